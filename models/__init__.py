"""The trained card detector: ONNX weights + ``detector.json``, and the recipe that reproduces them.

``MODEL_DIR`` is the folder :class:`vision.detector.Detector` loads by default; ``models/recipe/``
renders the training scenes and trains/exports both stages (see ``models/README.md``).
"""

from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent
DETECTOR_ONNX = MODEL_DIR / "cards_det.onnx"
CLASSIFIER_ONNX = MODEL_DIR / "cards_cls.onnx"
METADATA = MODEL_DIR / "detector.json"
