"""Classifier crops rendered straight from the deck art: cheap, many, every card equally often.

A scene yields ~8 index crops for ~0.2 s; this yields one in ~1 ms: the square window around a
corner index (as :func:`vision.detector.square_crop` cuts it), turned to any angle, jittered like a
detector box, over a random background where the window leaves the card, then shrunk to the pixel
size a camera would give it (22-80 px), blurred, tinted, noised and JPEG-compressed.
"""

from __future__ import annotations

import cv2
import numpy as np

from simulator.deck_art import DeckArt
from vision.detector import CROP_MARGIN


def _background(rng, size: int) -> np.ndarray:
    bg = np.empty((size, size, 3), np.float32)
    bg[:] = rng.uniform(0, 255, 3)
    if rng.random() < 0.5:  # another card's paper or pattern
        bg[:] = rng.uniform(200, 255, 3) if rng.random() < 0.5 else bg
        for _ in range(int(rng.integers(0, 4))):
            p = rng.integers(0, size, 2)
            cv2.circle(bg, (int(p[0]), int(p[1])), int(rng.integers(3, size // 2)), rng.uniform(0, 255, 3).tolist(), -1)
    return bg + rng.normal(0, 6, bg.shape).astype(np.float32)


def render_index_crop(rng: np.random.Generator, deck: DeckArt, card: str, size: int = 64,
                      upright: float | None = None) -> np.ndarray | None:
    """One crop; ``upright`` (degrees) keeps the printed glyph within that angle of upright
    instead of turning it anywhere."""
    boxes = deck.index_boxes(card)
    if not boxes:
        return None
    pick = int(rng.integers(len(boxes)))
    x0, y0, x1, y1 = boxes[pick]
    w, h = x1 - x0, y1 - y0
    # detector-like box error, then the classifier's square window
    cx = (x0 + x1) / 2 + rng.normal(0, 0.1 * w)
    cy = (y0 + y1) / 2 + rng.normal(0, 0.1 * h)
    side = max(w, h) * CROP_MARGIN * float(np.exp(rng.normal(0, 0.1)))
    if upright is not None:  # the second index is printed upside down
        top_left = (x0 + x1) / 2 < deck.card_size[0] / 2
        angle = float(rng.uniform(-upright, upright) + (0 if top_left else 180))
    elif rng.random() < 0.5:
        angle = float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 12))
    else:
        angle = float(rng.uniform(0, 360))
    # rotation of the card about the window centre, mapped onto a size x size output
    R = np.vstack([cv2.getRotationMatrix2D((0.0, 0.0), angle, size / side), [0, 0, 1]])
    shear = np.eye(3)
    if rng.random() < 0.5:  # mild perspective / shear, about the window centre
        shear[:2, :2] += rng.normal(0, 0.06, (2, 2))
    to_origin = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    to_centre = np.array([[1, 0, size / 2], [0, 1, size / 2], [0, 0, 1]])
    M = (to_centre @ shear @ R @ to_origin)[:2]
    face = deck.face(card)
    warped = cv2.warpAffine(face, M, (size, size), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    a = warped[:, :, 3:4].astype(np.float32) / 255.0
    img = _background(rng, size) * (1 - a) + warped[:, :, :3].astype(np.float32) * a
    if rng.random() < 0.2:  # a neighbouring card / finger edge over part of the window
        mask = np.zeros((size, size), np.float32)
        p = rng.uniform(0, size, (3, 2)).astype(np.int32)
        q = p.copy()
        q[:, 0] = np.where(p[:, 0] < size / 2, 0, size)
        cv2.fillPoly(mask, [np.concatenate([p, q[::-1]]).astype(np.int32)], 1.0)
        mask = mask[:, :, None] * (rng.random() < 0.7)
        img = img * (1 - mask) + rng.uniform(60, 255, 3) * mask
    img *= rng.uniform(0.55, 1.2) * rng.uniform(0.85, 1.12, 3)  # light level, colour cast
    # the camera: the window is only 22..80 px wide in the frame
    native = int(rng.uniform(22, 80))
    img = np.clip(img, 0, 255).astype(np.uint8)
    small = cv2.resize(img, (native, native), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.4:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.0))
    small = np.clip(small.astype(np.float32) + rng.normal(0, rng.uniform(0, 8), small.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(30, 95))])
    small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
