"""Hard negatives for the classifier's ``_none`` class: stage-1 false alarms that it reads as a card.

The ``_none`` crops the classifier was trained on so far are drawn at random away from the indices
(``build_data`` / ``table_views.none_boxes``, ``index_crops.render_nonindex_crop``). The single-card
close-ups showed the shipped detector's real mistakes look different: card art (court figures, big
pips) boxed as an index and then named ("10C", "KD", "QD"). Here the shipped stage 1 runs at a low
``det_conf`` on images whose indices are all labelled, every box that matches no labelled index is
kept, and it is cut with :func:`vision.detector.square_crop` exactly as ``Detector.classify_boxes``
cuts it, in the quarter turn the classifier was surest was a card (the turn that fooled it).

Sources: the rendered close-up scenes of the fine-tune set (every index labelled) and, optionally
(``train.py --mine-real``), the real-dev **train** half (the eval half is never read; photos the
classifier holds out to pick its epoch are skipped too). The recipe leaves the photos out by
default: their labels miss some visible indices, and with their 52 crops (x3) in cls-ft2 the
held-out real reading fell from 0.865 to 0.714, 31 of 126 real indices read as ``_none``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from models.recipe.build_data import NONE_CLASS, real_dev_split  # noqa: E402
from vision.detector import index_turns, read_class_names, read_yolo_labels, square_crop  # noqa: E402

Box = Sequence[float]
MATCH_IOU = 0.2  # a detection overlapping a labelled index this much is (a loose box on) that index
GROW = 0.25  # a detection centred within a labelled index grown by this share of its size is that index
COVER = 0.4  # a (loose, oversized) detection holding this share of a labelled index shows that index
REAL_MAX_DET_CONF = 0.3
"""Real-dev labels miss some visible indices (partly covered cards, e.g. a fanned 2S or 9D read at
det_conf ~0.6): in the photos only boxes stage 1 was unsure of are taken as negatives."""


@dataclass(frozen=True)
class MineStats:
    images: int
    detections: int
    mined: int


def _overlap(a: Box, b: Box) -> tuple[float, float]:
    """(IoU of ``a`` and ``b``, share of ``b``'s area inside ``a``)."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0, 0.0
    inter = iw * ih
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    union = (a[2] - a[0]) * (a[3] - a[1]) + area_b - inter
    return inter / max(union, 1e-9), inter / max(area_b, 1e-9)


def false_alarms(boxes: Iterable[Box], index_boxes: Sequence[Box], match_iou: float = MATCH_IOU,
                 grow: float = GROW, cover: float = COVER) -> list[int]:
    """Positions in ``boxes`` that match no labelled index: IoU below ``match_iou`` with every one,
    centre outside every one (grown by ``grow`` of its size each side) and holding less than
    ``cover`` of each one's area (an oversized box around an index is not a clean negative)."""
    out = []
    for i, b in enumerate(boxes):
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        hit = False
        for t in index_boxes:
            gw, gh = grow * (t[2] - t[0]), grow * (t[3] - t[1])
            inside = t[0] - gw <= cx <= t[2] + gw and t[1] - gh <= cy <= t[3] + gh
            iou, covered = _overlap(b, t)
            if inside or iou >= match_iou or covered >= cover:
                hit = True
                break
        if not hit:
            out.append(i)
    return out


def mine_image(detector, image: np.ndarray, index_boxes: Sequence[Box], size: int = 64,
               max_det_conf: float = 1.0) -> list[np.ndarray]:
    """The crops of ``detector``'s index sightings in ``image`` (stage-1 confidence at most
    ``max_det_conf``) that match no labelled index, each turned the way the classifier read it as a
    card most surely. ``detector`` is a ``vision.detector.Detector`` (or anything with its
    ``detect`` / ``classify_crops`` / ``cls_classes``)."""
    found = [s for s in detector.detect(image) if s.kind == "index" and s.det_confidence <= max_det_conf]
    crops = []
    for k in false_alarms([s.box for s in found], index_boxes):
        box = found[k].box
        crop = square_crop(image, box, size)
        turned = np.stack([np.ascontiguousarray(np.rot90(crop, t)) for t in index_turns(box[2] - box[0], box[3] - box[1])])
        probs = detector.classify_crops(turned)
        card = probs[:, [j for j, c in enumerate(detector.cls_classes) if not c.startswith("_")]].max(axis=1)
        crops.append(turned[int(np.argmax(card))])
    return crops


def _closeup_items(closeups: Path) -> Iterable[tuple[str, np.ndarray, list[Box]]]:
    for p in sorted((closeups / "images").glob("*.jpg")):
        img = cv2.imread(str(p))
        if img is None:
            continue
        h, w = img.shape[:2]
        boxes = []
        label = closeups / "labels" / f"{p.stem}.txt"
        for row in (label.read_text().split("\n") if label.is_file() else []):
            parts = row.split()
            if len(parts) == 5 and parts[0] == "0":  # class 0: index
                cx, cy, bw, bh = (float(v) for v in parts[1:])
                boxes.append(((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h))
        yield p.stem, img, boxes


def _real_train_items(real: Path, holdout: float) -> Iterable[tuple[str, np.ndarray, list[Box]]]:
    from models.recipe.train_cls import real_holdout_photo

    names = read_class_names(real / "classes.yaml")
    for p in sorted((real / "images").glob("*.jpg")):
        if real_dev_split(p.name) != "train" or real_holdout_photo(p.name, holdout):
            continue  # the eval half is only ever reported; the classifier's held-out photos pick its epoch
        img = cv2.imread(str(p))
        if img is None:
            continue
        labels = read_yolo_labels(real / "labels" / f"{p.stem}.txt", names, img.shape[1], img.shape[0])
        yield f"real_{p.stem[:40]}", img, [box for name, box in labels if name != "BACK"]


def mine_negatives(model_dir: Path, out: Path, closeups: Path | None, real: Path | None, det_conf: float = 0.05,
                   real_holdout: float = 0.25, size: int = 64, threads: int = 1, log=print) -> MineStats:
    """Write the mined crops to ``out/_none/*.png`` (a ``train_classifier`` ``extra`` folder)."""
    from vision.detector import Detector

    det = Detector.load(model_dir, threads=threads, det_conf=det_conf, cls_conf=0.0)
    (out / NONE_CLASS).mkdir(parents=True, exist_ok=True)
    items: list[tuple[Iterable, float]] = []
    if closeups is not None and (closeups / "images").is_dir():
        items.append((_closeup_items(closeups), 1.0))  # rendered: every index is labelled
    if real is not None and (real / "images").is_dir():
        items.append((_real_train_items(real, real_holdout), REAL_MAX_DET_CONF))
    n_img = n_det = n_mined = 0
    for source, max_conf in items:
        for stem, img, boxes in source:
            n_img += 1
            crops = mine_image(det, img, boxes, size, max_conf)
            n_det += 1 if crops else 0
            for j, crop in enumerate(crops):
                cv2.imwrite(str(out / NONE_CLASS / f"{stem}_m{j}.png"), crop)
            n_mined += len(crops)
    log(f"mined {n_mined} hard negatives from {n_img} images ({n_det} with a false alarm) into {out}")
    return MineStats(n_img, n_det, n_mined)
