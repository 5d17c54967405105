"""Int8 weights and activations for both ONNX models (static, calibrated), for the 2-core latency target.

The float models spend ~45 ms (detector, 416 px) + ~25 ms (classifier, ~40 crops) per 640 px
frame on 2 cores; int8 QDQ with per-channel weights runs on the VNNI/AMX int8 kernels of
onnxruntime's CPU provider. Activation ranges are calibrated on inputs prepared exactly as
``vision.detector`` prepares them: rendered scenes and the real-dev photos already trained on.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def expand_fp16(src: Path, dst: Path) -> None:
    """Undo ``compact``: float16 initializers + Cast back to plain float32 initializers."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    halves = {i.name: i for i in graph.initializer if i.data_type == onnx.TensorProto.FLOAT16}
    for node in [n for n in graph.node if n.op_type == "Cast" and n.input and n.input[0] in halves]:
        init = halves[node.input[0]]
        graph.initializer.remove(init)
        graph.initializer.append(numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float32), node.output[0]))
        graph.node.remove(node)
    onnx.save(model, str(dst))


class _Reader:
    """onnxruntime CalibrationDataReader over a list of ready input blobs."""

    def __init__(self, name: str, blobs: list[np.ndarray]):
        self.name, self.blobs = name, iter(blobs)

    def get_next(self):
        blob = next(self.blobs, None)
        return None if blob is None else {self.name: blob}

    def rewind(self):  # some onnxruntime versions call it between passes
        pass


def calibration_images(n_scenes: int, seed: int, shared: Path | None, holdout: str,
                       real_dev: Path | None, trained_on: list[str]) -> list[np.ndarray]:
    """BGR images: rendered training-design scenes + the real-dev photos the models trained on."""
    import cv2

    from models.recipe.build_data import _decks
    from models.recipe.scenes import render_scene

    faces, backs = _decks(shared, holdout)
    rng = np.random.default_rng(seed)
    images = [render_scene(rng, faces, backs)[0] for _ in range(n_scenes)]
    if real_dev is not None:
        for name in trained_on:
            img = cv2.imread(str(real_dev / "images" / name))
            if img is not None:
                images.append(img)
    return images


def _head_tail(model_path: Path) -> list[str]:
    """Nodes of the YOLO detect head other than its convolutions (box decoding, class sigmoid,
    concat): they mix pixel coordinates and probabilities in one tensor, which one int8 scale
    cannot hold, so they stay float."""
    import onnx

    nodes = onnx.load(str(model_path)).graph.node
    layers = [int(n.name.split("/")[1].split(".")[1]) for n in nodes if n.name.startswith("/model.")]
    head = f"/model.{max(layers)}/"
    return [n.name for n in nodes if n.name.startswith(head) and n.op_type != "Conv"]


def quantize(model_dir: Path, out_dir: Path, images: list[np.ndarray], log=print) -> None:
    """Write int8 ``cards_det.onnx`` / ``cards_cls.onnx`` for the float models in ``model_dir``
    (QDQ, per-channel int8 weights, uint8 activations, min/max ranges over ``images``)."""
    import cv2
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.detector import Detector, letterbox, square_crop

    det = Detector.load(model_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    det_blobs, crops = [], []
    for img in images:
        inp = letterbox(img, det.imgsz)[0]
        det_blobs.append(cv2.cvtColor(inp, cv2.COLOR_BGR2RGB).astype(np.float32).transpose(2, 0, 1)[None] / 255.0)
        boxes, _, cls_id = det._boxes(img)
        crops += [square_crop(img, b, det.cls_size) for b, c in zip(boxes[:16], cls_id[:16])
                  if det.det_classes[c] == "index"]
    cls_blobs = [np.ascontiguousarray(np.stack(crops[i:i + 32])[..., ::-1].astype(np.float32).transpose(0, 3, 1, 2) / 255.0)
                 for i in range(0, len(crops), 32)]
    for name, blobs in (("cards_det.onnx", det_blobs), ("cards_cls.onnx", cls_blobs)):
        f32, pre = out_dir / (name + ".f32"), out_dir / (name + ".pre")
        expand_fp16(model_dir / name, f32)
        quant_pre_process(str(f32), str(pre), skip_symbolic_shape=True)
        keep_float = _head_tail(pre) if name == "cards_det.onnx" else []
        quantize_static(str(pre), str(out_dir / name), _Reader("images", blobs), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=keep_float)
        f32.unlink()
        pre.unlink()
        log(f"int8 {name}: {len(blobs)} calibration inputs, {len(keep_float)} head nodes kept float, "
            f"{(out_dir / name).stat().st_size / 1e6:.1f} MB")


def quantize_folder(float_dir: Path, out: Path, shared: Path | None, seed: int = 20261130, n_scenes: int = 48,
                    log=print, extra: list[Path] | None = None) -> None:
    """A model folder (float weights + detector.json) -> the same folder in int8 at ``out``.
    ``extra``: more calibration images (the pipeline's canvases, whose grey fill and upsampled
    cards the scenes do not show)."""
    import json

    meta = json.loads((float_dir / "detector.json").read_text())
    real_dev = shared / "datasets" / "real-dev" if shared is not None else None
    images = calibration_images(n_scenes, seed, shared if shared and (shared / "cards").is_dir() else None,
                                meta.get("recipe", {}).get("holdout", "jumbo-index"),
                                real_dev if real_dev is not None and real_dev.is_dir() else None,
                                meta.get("trained_on", []))
    if extra:
        import cv2

        images += [img for img in (cv2.imread(str(p)) for p in extra) if img is not None]
    quantize(float_dir, out, images, log=log)
    meta["weights"] = "int8 QDQ (models/recipe/quantize.py)"
    (out / "detector.json").write_text(json.dumps(meta, indent=2) + "\n")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="int8-quantize a model folder (float weights + detector.json)")
    ap.add_argument("float_dir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = ap.parse_args()
    quantize_folder(args.float_dir, args.out, args.shared if args.shared.is_dir() else None)
