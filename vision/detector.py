"""Card detector at run time: two ONNX models run with onnxruntime (no torch, no ultralytics).

Stage 1 finds corner indices and face-down cards (2 classes: ``index``, ``back``) in a
letterboxed frame; stage 2 names each index crop (52 cards, 2 jokers, or ``_none`` for a crop
that is not an index after all, which is how stage-1 false alarms are rejected).
:func:`square_crop` is the crop both training (models/recipe) and inference use.

>>> det = Detector.load()                      # the weights shipped in models/
>>> sightings = det.detect(image_bgr)          # doctest: +SKIP
>>> [(s.identity, round(s.confidence, 2), s.box) for s in sightings]   # doctest: +SKIP
[('10H', 0.97, (101.0, 40.5, 121.3, 82.0)), ('BACK', 0.91, (300.2, 210.0, 380.9, 330.1))]
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

CROP_MARGIN = 1.25
"""Side of the square index crop as a multiple of the longer side of the index box (keeps the pip)."""


def square_crop(image: np.ndarray, box, size: int, margin: float = CROP_MARGIN) -> np.ndarray:
    """A ``size`` x ``size`` BGR crop centred on ``box`` (x0, y0, x1, y1), side = margin x longer
    side; parts outside the image are filled by replicating the border."""
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(x1 - x0, y1 - y0, 2.0) * margin
    s = max(int(round(side)), 2)
    sx0, sy0 = int(round(cx - s / 2)), int(round(cy - s / 2))
    h, w = image.shape[:2]
    patch = image[max(sy0, 0):min(sy0 + s, h), max(sx0, 0):min(sx0 + s, w)]
    if patch.size == 0:
        return np.zeros((size, size, 3), np.uint8)
    pad = (max(0, -sy0), max(0, sy0 + s - h), max(0, -sx0), max(0, sx0 + s - w))
    if any(pad):
        patch = cv2.copyMakeBorder(patch, *pad, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if s > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


# --- the real-dev folder format (Contract 4) ------------------------------------------------------

REAL_DEV_ALIASES = {"BLACK JOKER": "JOKER-B", "RED JOKER": "JOKER-R"}


def read_class_names(classes_yaml) -> list[str]:
    """The ``names: [...]`` list of a real-dev ``classes.yaml`` (parsed without a YAML library)."""
    import ast
    import re
    from pathlib import Path

    text = Path(classes_yaml).read_text(encoding="utf-8")
    match = re.search(r"^names:\s*(\[.*?\])", text, re.MULTILINE | re.DOTALL)
    if match:
        return [str(n) for n in ast.literal_eval(match.group(1))]
    block = re.search(r"^names:\s*\n((?:\s+.*\n?)+)", text, re.MULTILINE)  # block style "- name" / "0: name"
    if not block:
        raise ValueError(f"{classes_yaml}: no 'names' list")
    names = []
    for line in block.group(1).splitlines():
        item = line.strip()
        if not item:
            continue
        item = item[1:].strip() if item.startswith("-") else item.split(":", 1)[-1].strip()
        names.append(item.strip("'\""))
    return names


def read_yolo_labels(path, names: list[str], width: int, height: int) -> list[tuple[str, tuple[float, float, float, float]]]:
    """``(identity, (x0, y0, x1, y1))`` pixels per line of a YOLO label file; polygon lines become
    their bounding box; identities use the project's names (``JOKER-B``, ``BACK``)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 5:
                continue
            cls = int(float(parts[0]))
            name = names[cls] if 0 <= cls < len(names) else str(cls)
            name = REAL_DEV_ALIASES.get(name, name)
            values = [float(v) for v in parts[1:]]
            if len(values) == 4:
                cx, cy, bw, bh = values
                box = ((cx - bw / 2) * width, (cy - bh / 2) * height, (cx + bw / 2) * width, (cy + bh / 2) * height)
            else:
                xs, ys = values[0::2], values[1::2]
                box = (min(xs) * width, min(ys) * height, max(xs) * width, max(ys) * height)
            out.append((name, box))
    return out


# --- inference ------------------------------------------------------------------------------------


@dataclass
class Sighting:
    """One detection: a corner index named by the classifier, or a face-down card (``BACK``).

    ``box`` is (x0, y0, x1, y1) in input-image pixels; ``confidence`` = detector score x classifier
    probability for indices; ``alternatives`` the classifier's next guesses (tracking may vote over
    frames); ``owner`` is set for backs when a back registry was given and names a registered
    owner (``None``: unknown back, or no registry).
    """

    identity: str
    confidence: float
    box: tuple[float, float, float, float]
    kind: str = "index"  # "index" | "back"
    det_confidence: float = 0.0
    cls_confidence: float = 1.0
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    owner: str | None = None

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def label(self) -> str:
        return self.identity

    def to_dict(self) -> dict:
        d = asdict(self)
        d["box"] = [round(float(v), 1) for v in self.box]
        d["confidence"] = round(float(self.confidence), 4)
        d["det_confidence"] = round(float(self.det_confidence), 4)
        d["cls_confidence"] = round(float(self.cls_confidence), 4)
        d["alternatives"] = [[n, round(float(p), 4)] for n, p in self.alternatives]
        if self.owner is None:
            del d["owner"]
        return d


class DetectorError(ValueError):
    """Missing or unusable weights."""


def default_model_dir() -> Path:
    """``$NERTS_MODELS`` or the ``models/`` package that ships the weights."""
    env = os.environ.get("NERTS_MODELS")
    if env:
        return Path(env)
    from models import MODEL_DIR

    return MODEL_DIR


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping aspect into ``size`` x ``size``, centred on grey 114 (as in training)."""
    h, w = image.shape[:2]
    r = min(size / h, size / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR if r > 1 else cv2.INTER_AREA) \
        if (nw, nh) != (w, h) else image
    dw, dh = (size - nw) / 2, (size - nh) / 2
    top, left = int(round(dh - 0.1)), int(round(dw - 0.1))
    out = cv2.copyMakeBorder(resized, top, size - nh - top, left, size - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, r, (left, top)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float, contain: float | None = None) -> list[int]:
    """Greedy non-maximum suppression; returns kept indices, best first.

    With ``contain``, a box is also dropped when at least that share of its area lies inside a
    better one: a part of an index (its pip, its "0" of "10") inside the whole index box, or a
    tile's clipped copy of a box, overlaps too little for IoU to catch it."""
    order = scores.argsort()[::-1]
    x0, y0, x1, y1 = boxes.T
    areas = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        iw = np.clip(np.minimum(x1[i], x1[rest]) - np.maximum(x0[i], x0[rest]), 0, None)
        ih = np.clip(np.minimum(y1[i], y1[rest]) - np.maximum(y0[i], y0[rest]), 0, None)
        inter = iw * ih
        keep_rest = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-9) <= iou
        if contain is not None:
            keep_rest &= inter / np.maximum(areas[rest], 1e-9) < contain
        order = rest[keep_rest]
    return keep


def index_turns(width: float, height: float) -> tuple[int, ...]:
    """Quarter turns an *upright* classifier is tried at for an index box of this shape: 0/180
    degrees for a tall box, 90/270 for a wide one (the card lies across), all four when squarish."""
    aspect = height / max(width, 1e-6)
    return (0, 2) if aspect >= 1.3 else (1, 3) if aspect <= 1 / 1.3 else (0, 1, 2, 3)


def drop_overlapping_reads(reads: list[Sighting], overlap: float = 0.5, ratio: float = 0.5) -> list[Sighting]:
    """Of two index reads naming different cards whose boxes overlap by ``overlap`` of the smaller
    one, drop the weaker when it is less than ``ratio`` times as sure: a box around one index and
    part of its card, read as another card (single-card photos: 9S boxed again and read 9C at 0.08
    against 0.47). Fanned indices can overlap that much too (real webcam fans: 10D 0.31 and QD 0.29
    share 51%), so near-equal reads both stay; same-card reads always do. Survivors best first."""
    kept: list[Sighting] = []
    for read in sorted(reads, key=lambda r: -r.confidence):
        x0, y0, x1, y1 = read.box
        area = max((x1 - x0) * (y1 - y0), 1e-9)
        for other in kept:
            a0, b0, a1, b1 = other.box
            if other.identity == read.identity or read.confidence >= ratio * other.confidence:
                continue
            inter = max(0.0, min(x1, a1) - max(x0, a0)) * max(0.0, min(y1, b1) - max(y0, b0))
            if inter / min(area, max((a1 - a0) * (b1 - b0), 1e-9)) >= overlap:
                break
        else:
            kept.append(read)
    return kept


TRAIN_VIEW = 640  # training scenes are 640 px views: the scale the detector knows
TILE_FROM = 1000  # longer side above which detect() tiles the frame


class Detector:
    """The two-stage card detector. Thread-compatible per instance (one session each)."""

    def __init__(self, model_dir: Path, threads: int | None = None, det_conf: float | None = None,
                 cls_conf: float | None = None, iou: float = 0.5, max_indices: int = 60,
                 index_contain: float = 0.7, read_overlap: float = 0.5, read_ratio: float = 0.5):
        meta_path = model_dir / "detector.json"
        if not meta_path.is_file():
            raise DetectorError(f"no detector.json in {model_dir}: not a model folder (train with 'make train')")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # no busy-waiting between runs: spinning onnxruntime threads starve the OpenCV/numpy work
        # between the two stages (and the pipeline's other threads) on a 2-core machine
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers = ["CPUExecutionProvider"]
        try:
            self.det = ort.InferenceSession(str(model_dir / meta["detector"]["file"]), opts, providers=providers)
            self.cls = ort.InferenceSession(str(model_dir / meta["classifier"]["file"]), opts, providers=providers)
        except Exception as exc:  # onnxruntime raises its own types for missing/corrupt files
            raise DetectorError(f"cannot load the detector weights in {model_dir}: {exc}") from exc
        self.model_dir = model_dir
        self.meta = meta
        self.imgsz = int(meta["detector"]["imgsz"])
        self.cls_size = int(meta["classifier"]["imgsz"])
        self.det_classes = list(meta["detector"]["classes"])
        self.cls_classes = list(meta["classifier"]["classes"])
        self.upright = bool(meta["classifier"].get("upright", False))
        # thresholds: chosen on the training half of real-dev by the recipe, stored with the weights
        thresholds = meta.get("thresholds", {})
        self.det_conf = float(thresholds.get("det_conf", 0.25) if det_conf is None else det_conf)
        self.cls_conf = float(thresholds.get("cls_conf", 0.5) if cls_conf is None else cls_conf)
        self.iou = iou
        self.index_contain = index_contain
        self.read_overlap, self.read_ratio = read_overlap, read_ratio
        self.max_indices = max_indices  # most-confident index boxes classified per frame (bounds latency)
        self.backs = None  # optional vision.backs.BackRegistry: names the owner of each back
        self._det_input = self.det.get_inputs()[0].name
        self._cls_input = self.cls.get_inputs()[0].name

    @classmethod
    def load(cls, path: str | Path | None = None, **kwargs) -> "Detector":
        """Load from a model folder (``detector.json`` + two ``.onnx``), a path to one of its files,
        or the shipped weights when ``path`` is None."""
        folder = default_model_dir() if path is None else Path(path)
        if folder.is_file():
            folder = folder.parent
        if not folder.exists():
            raise DetectorError(f"model folder not found: {folder}")
        return cls(folder, **kwargs)

    # stage 1
    def _boxes(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        inp, r, (left, top) = letterbox(image, self.imgsz)
        blob = cv2.dnn.blobFromImage(inp, 1 / 255.0, swapRB=True)  # 1x3xHxW RGB float in one pass
        out = self.det.run(None, {self._det_input: blob})[0][0]  # (4 + nc, anchors)
        scores = out[4:].T
        cls_id = scores.argmax(axis=1)
        conf = scores[np.arange(len(cls_id)), cls_id]
        keep = conf >= self.det_conf
        cx, cy, w, h = out[:4, keep]
        boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
        boxes = (boxes - np.array([left, top, left, top], np.float32)) / r
        H, W = image.shape[:2]
        boxes = np.clip(boxes, 0, [W, H, W, H])
        conf, cls_id = conf[keep], cls_id[keep]
        return self._per_class_nms(boxes, conf, cls_id)

    def _per_class_nms(self, boxes: np.ndarray, conf: np.ndarray, cls_id: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Non-maximum suppression within each class; survivors best first. Index boxes mostly
        inside a better index box go too (``index_contain``): two real indices never nest."""
        kept: list[int] = []
        for c in np.unique(cls_id):
            idx = np.nonzero(cls_id == c)[0]
            contain = self.index_contain if self.det_classes[c] == "index" else None
            kept += [int(idx[k]) for k in nms(boxes[idx], conf[idx], self.iou, contain)]
        kept.sort(key=lambda k: -conf[k])
        return boxes[kept], conf[kept], cls_id[kept]

    # stage 2
    def classify_crops(self, crops: np.ndarray) -> np.ndarray:
        """Probabilities (n, classes) for BGR crops (n, s, s, 3)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.cls_classes)), np.float32)
        blob = cv2.dnn.blobFromImages(list(crops), 1 / 255.0, swapRB=True)
        return self.cls.run(None, {self._cls_input: blob})[0]

    def _tiled_boxes(self, image: np.ndarray, tile: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Stage 1 on overlapping ``tile`` x ``tile`` windows (large frames keep small indices big
        enough), merged by per-class NMS."""
        h, w = image.shape[:2]
        step = int(tile * 0.8)
        xs = list(range(0, max(w - tile, 0) + 1, step)) or [0]
        ys = list(range(0, max(h - tile, 0) + 1, step)) or [0]
        if xs[-1] + tile < w:
            xs.append(w - tile)
        if ys[-1] + tile < h:
            ys.append(h - tile)
        all_b, all_c, all_k = [], [], []
        for y in ys:
            for x in xs:
                b, c, k = self._boxes(image[y:y + tile, x:x + tile])
                all_b.append(b + np.array([x, y, x, y], np.float32))
                all_c.append(c)
                all_k.append(k)
        boxes, conf, cls_id = np.concatenate(all_b), np.concatenate(all_c), np.concatenate(all_k)
        return self._per_class_nms(boxes, conf, cls_id)

    def classify_boxes(self, image_bgr: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Class probabilities for the index in each box.

        An *upright* classifier (``detector.json``: ``classifier.upright``) was trained on indices
        turned at most ~50 degrees from upright; each crop is then also tried turned by 180 degrees
        (and by 90/270 when the box is not clearly tall, i.e. the card lies across), and the turn
        the classifier is surest about wins."""
        if len(boxes) == 0:
            return np.zeros((0, len(self.cls_classes)), np.float32)
        crops = [square_crop(image_bgr, b, self.cls_size) for b in boxes]
        if not self.upright:
            return self.classify_crops(np.stack(crops))
        batch, owner = [], []
        for i, (crop, (x0, y0, x1, y1)) in enumerate(zip(crops, boxes)):
            for k in index_turns(x1 - x0, y1 - y0):
                batch.append(np.rot90(crop, k))
                owner.append(i)
        probs = self.classify_crops(np.ascontiguousarray(np.stack(batch)))
        best = np.zeros((len(crops), probs.shape[1]), np.float32)
        best_conf = np.full(len(crops), -1.0)
        for row, i in enumerate(owner):
            if probs[row].max() > best_conf[i]:
                best_conf[i] = probs[row].max()
                best[i] = probs[row]
        return best

    def detect(self, image_bgr: np.ndarray, tile: int | None = None) -> list[Sighting]:
        """All sightings in one BGR image.

        Up to ``TILE_FROM`` px on the longer side the whole image is letterboxed to the model's
        input (the scale it was trained at: ~640 px views); larger frames are cut into overlapping
        640 px tiles so small indices stay readable. ``tile`` forces a tile size (0: never tile).
        """
        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("detect() needs a BGR image (height x width x 3)")
        if tile is None:
            tile = TRAIN_VIEW if max(image_bgr.shape[:2]) > TILE_FROM else 0
        if tile and max(image_bgr.shape[:2]) > tile:
            boxes, conf, cls_id = self._tiled_boxes(image_bgr, tile)
        else:
            boxes, conf, cls_id = self._boxes(image_bgr)
        index_rows = [i for i, c in enumerate(cls_id) if self.det_classes[c] == "index"][:self.max_indices]
        probs = self.classify_boxes(image_bgr, boxes[index_rows])
        out: list[Sighting] = []
        for row, p in zip(index_rows, probs):
            order = np.argsort(p)[::-1]
            best = self.cls_classes[order[0]]
            if best.startswith("_") or p[order[0]] < self.cls_conf:
                continue  # not an index after all, or unreadable
            alts = [(self.cls_classes[k], float(p[k])) for k in order[1:4] if not self.cls_classes[k].startswith("_")]
            out.append(Sighting(best, float(conf[row] * p[order[0]]), tuple(float(v) for v in boxes[row]),
                                "index", float(conf[row]), float(p[order[0]]), alts))
        if self.read_overlap:
            out = drop_overlapping_reads(out, self.read_overlap, self.read_ratio)
        back_rows = [row for row, c in enumerate(cls_id) if self.det_classes[c] == "back"]
        back_boxes = [tuple(float(v) for v in boxes[row]) for row in back_rows]
        # all backs of the frame at once: a card lying across another explains part of its box
        matches = self.backs.classify_frame(image_bgr, back_boxes) if self.backs is not None and back_boxes else []
        owners = [m.owner if m.known else None for m in matches] or [None] * len(back_rows)
        for row, box, owner in zip(back_rows, back_boxes, owners):
            out.append(Sighting("BACK", float(conf[row]), box, "back", float(conf[row]), 1.0, [], owner))
        out.sort(key=lambda s: -s.confidence)
        return out
