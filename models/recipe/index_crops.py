"""Classifier crops rendered straight from the deck art: cheap, many, every card equally often.

A scene yields ~8 index crops for ~0.2 s; this yields one in ~1-2 ms: the square window around a
corner index (as :func:`vision.detector.square_crop` cuts it), turned, jittered like a detector
box, then shrunk to the pixel size a camera would give it (22-80 px), blurred, washed out, noised
and JPEG-compressed.

Real tables rarely show an index alone: in a fanned row or a cascaded column the window also holds
the neighbouring cards' indices and edges (a 5 between a 4 and a 9), and a foundation pile shows
the edges of the cards beneath. :func:`render_index_crop` therefore places, most of the time, other
cards of the same deck around the target card the way fans, columns and piles lie, keeping the
target's index visible (cards above it start past the index, as in a real fan).
"""

from __future__ import annotations

import cv2
import numpy as np

from simulator.deck_art import FULL_DECK, DeckArt
from vision.detector import CROP_MARGIN

NEIGHBOURS = [str(c) for c in FULL_DECK]
BACK_COLOURS = ("blue", "red", "green", "black", "navy", "maroon", "purple", "orange")
LAYOUTS = ("alone", "row", "column", "diagonal", "pile", "loose")
LAYOUT_P = (0.2, 0.35, 0.15, 0.1, 0.1, 0.1)


def _background(rng, size: int) -> np.ndarray:
    bg = np.empty((size, size, 3), np.float32)
    bg[:] = rng.uniform(0, 255, 3)
    if rng.random() < 0.5:  # another card's paper or pattern
        bg[:] = rng.uniform(200, 255, 3) if rng.random() < 0.5 else bg
        for _ in range(int(rng.integers(0, 4))):
            p = rng.integers(0, size, 2)
            cv2.circle(bg, (int(p[0]), int(p[1])), int(rng.integers(3, size // 2)), rng.uniform(0, 255, 3).tolist(), -1)
    return bg + rng.normal(0, 6, bg.shape).astype(np.float32)


def _place(dx: float, dy: float, angle: float, centre: tuple[float, float]) -> np.ndarray:
    """3x3 map from a neighbour's face pixels to the target face's pixels: the neighbour turned by
    ``angle`` degrees about its centre, its centre at the target's centre + (dx, dy)."""
    cx, cy = centre
    R = np.vstack([cv2.getRotationMatrix2D((cx, cy), angle, 1.0), [0, 0, 1]])
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64) @ R


def neighbour_layout(rng: np.random.Generator, deck: DeckArt, box, layout: str) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """Cards around the target as ``(face BGRA, 3x3 map into target face pixels, above)``.

    Offsets are drawn for a top-left index and mirrored through the card centre for the printed
    upside-down one (a card's print is point-symmetric), so the index always stays uncovered:
    cards *above* the target start past the index box, cards *below* it may lie anywhere.
    """
    w, h = deck.card_size
    x0, y0, x1, y1 = box
    top_left = (x0 + x1) / 2 < w / 2
    sign = 1.0 if top_left else -1.0
    ix1, iy1 = (x1, y1) if top_left else (w - x0, h - y0)  # index extent from the near corner
    centre = (w / 2, h / 2)
    placed: list[tuple[float, float, float, bool]] = []  # dx, dy (top-left frame), angle, above
    if layout in ("row", "column", "diagonal"):
        # tight fans are the common case (and put the neighbours' indices inside the window)
        u = rng.random() ** 2
        if layout == "row":  # offset along the short side: each card shows its left strip
            step = (ix1 + 0.05 * w + u * max(0.5 * w - ix1, 0.03 * w), rng.normal(0, 0.02 * h))
        elif layout == "column":  # cascade: each card shows its top strip
            step = (rng.normal(0, 0.02 * w), iy1 + 0.04 * h + u * max(0.4 * h - iy1, 0.03 * h))
        else:
            step = (ix1 + 0.05 * w + u * max(0.45 * w - ix1, 0.03 * w), rng.uniform(-0.15 * h, 0.3 * h))
        turn = rng.normal(0, 3)
        for k in range(1, int(rng.integers(0, 3)) + 1):  # on top of the target (turned little: a
            # turned edge would swing over the index)
            placed.append((k * step[0], k * step[1], float(np.clip(k * turn + rng.normal(0, 1.5), -4, 4)), True))
        for k in range(1, int(rng.integers(1, 4)) + 1):  # beneath it
            placed.append((-k * step[0], -k * step[1], -k * turn + rng.normal(0, 1.5), False))
    elif layout == "pile":  # foundation pile: cards beneath, a little shifted and turned
        for _ in range(int(rng.integers(1, 4))):
            placed.append((rng.normal(0, 0.07 * h), rng.normal(0, 0.07 * h), rng.normal(0, 15), False))
    elif layout == "loose":
        for _ in range(int(rng.integers(1, 3))):
            placed.append((rng.uniform(-w, w), rng.uniform(-h, h), rng.uniform(0, 360), False))
    out = []
    for dx, dy, angle, above in placed:
        if rng.random() < 0.12:
            face = deck.back(str(rng.choice(BACK_COLOURS)))
        else:
            face = deck.face(NEIGHBOURS[int(rng.integers(len(NEIGHBOURS)))])
        out.append((face, _place(sign * dx, sign * dy, angle, centre), above))
    # paint order: beneath first (the nearest one last), then above (the nearest one first)
    below = [c for c in out if not c[2]][::-1]
    return below + [c for c in out if c[2]]


def _composite(img: np.ndarray, face: np.ndarray, M: np.ndarray, size: int, shadow: float = 0.0) -> np.ndarray:
    warped = cv2.warpAffine(face, M[:2], (size, size), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    a = warped[:, :, 3:4].astype(np.float32) / 255.0
    if shadow > 0:  # the soft dark rim a card casts on the one beneath it
        s = cv2.GaussianBlur(a[:, :, 0], (0, 0), max(size / 40, 0.8))[:, :, None]
        img = img * (1 - shadow * s)
    return img * (1 - a) + warped[:, :, :3].astype(np.float32) * a


def render_index_crop(rng: np.random.Generator, deck: DeckArt, card: str, size: int = 64,
                      upright: float | None = None, context: float = 0.0) -> np.ndarray | None:
    """One BGR crop of ``card``'s index, or None when the design prints no index box for it.

    ``upright`` (degrees) keeps the printed glyph within that angle of upright instead of turning
    it anywhere; ``context`` is the chance of neighbouring cards (fans, columns, piles)."""
    boxes = deck.index_boxes(card)
    if not boxes:
        return None
    pick = int(rng.integers(len(boxes)))
    x0, y0, x1, y1 = boxes[pick]
    w, h = x1 - x0, y1 - y0
    top_left = (x0 + x1) / 2 < deck.card_size[0] / 2
    # detector-like box error, then the classifier's square window
    cx = (x0 + x1) / 2 + rng.normal(0, 0.1 * w)
    cy = (y0 + y1) / 2 + rng.normal(0, 0.1 * h)
    if upright is not None:  # the second index is printed upside down
        angle = float(rng.uniform(-upright, upright) + (0 if top_left else 180))
    elif rng.random() < 0.5:
        angle = float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 12))
    else:
        angle = float(rng.uniform(0, 360))
    # the window is 1.25x the longer side of the *axis-aligned* box of the turned index (as the
    # detector's box is), so a turned index fills less of it
    t = np.deg2rad(angle)
    bw, bh = abs(w * np.cos(t)) + abs(h * np.sin(t)), abs(w * np.sin(t)) + abs(h * np.cos(t))
    side = max(bw, bh) * CROP_MARGIN * float(np.exp(rng.normal(0, 0.1)))
    # rotation of the card about the window centre, mapped onto a size x size output
    R = np.vstack([cv2.getRotationMatrix2D((0.0, 0.0), angle, size / side), [0, 0, 1]])
    shear = np.eye(3)
    if rng.random() < 0.5:  # mild perspective / shear, about the window centre
        shear[:2, :2] += rng.normal(0, 0.06, (2, 2))
    if rng.random() < 0.5:  # real-dev photos were stretched to 640x640: unequal axis scales
        shear[0, :2] *= float(np.exp(rng.normal(0, 0.12)))
    to_origin = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    to_centre = np.array([[1, 0, size / 2], [0, 1, size / 2], [0, 0, 1]])
    M = to_centre @ shear @ R @ to_origin
    layout = str(rng.choice(LAYOUTS, p=LAYOUT_P)) if rng.random() < context else "alone"
    others = neighbour_layout(rng, deck, boxes[pick], layout) if layout != "alone" else []
    img = _background(rng, size)
    for face, T, above in others:
        if not above:
            img = _composite(img, face, M @ T, size)
    img = _composite(img, deck.face(card), M, size, shadow=rng.uniform(0, 0.4) if others else 0.0)
    for face, T, above in others:
        if above:
            img = _composite(img, face, M @ T, size, shadow=rng.uniform(0.1, 0.5))
    if rng.random() < 0.15:  # a finger or an unrelated edge over part of the window
        mask = np.zeros((size, size), np.float32)
        p = rng.uniform(0, size, (3, 2)).astype(np.int32)
        q = p.copy()
        q[:, 0] = np.where(p[:, 0] < size / 2, 0, size)
        cv2.fillPoly(mask, [np.concatenate([p, q[::-1]]).astype(np.int32)], 1.0)
        mask = mask[:, :, None] * (rng.random() < 0.7)
        img = img * (1 - mask) + rng.uniform(60, 255, 3) * mask
    return degrade(rng, img, size)


def render_nonindex_crop(rng: np.random.Generator, deck: DeckArt, card: str, size: int = 64) -> np.ndarray:
    """A ``_none`` crop: a window the size a detector box would have, over any part of a face
    except its corner indices (big pips, court figures, a joker's lettering), so the classifier
    learns to reject the detector's false alarms on card art."""
    face = deck.face(card)
    cw, ch = deck.card_size
    boxes = deck.index_boxes(card)
    iw, ih = ((boxes[0][2] - boxes[0][0]), (boxes[0][3] - boxes[0][1])) if boxes else (0.12 * cw, 0.25 * cw)
    side = max(iw, ih) * CROP_MARGIN * float(rng.uniform(0.7, 2.5))
    for _ in range(20):
        cx, cy = float(rng.uniform(0.1, 0.9) * cw), float(rng.uniform(0.1, 0.9) * ch)
        if all(abs(cx - (b[0] + b[2]) / 2) > 0.7 * (b[2] - b[0]) or abs(cy - (b[1] + b[3]) / 2) > 0.7 * (b[3] - b[1])
               for b in boxes):
            break
    angle = float(rng.uniform(-50, 50) + rng.choice([0, 180]))
    R = np.vstack([cv2.getRotationMatrix2D((0.0, 0.0), angle, size / side), [0, 0, 1]])
    M = np.array([[1, 0, size / 2], [0, 1, size / 2], [0, 0, 1]]) @ R @ np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    return degrade(rng, _composite(_background(rng, size), face, M, size), size)


def degrade(rng: np.random.Generator, img: np.ndarray, size: int = 64, native: tuple[float, float] = (22, 80)) -> np.ndarray:
    """The camera on a float BGR window: light level and white balance, a washed-out webcam
    (saturation lowered, never hue-shifted, so red stays red), the window's real pixel size,
    blur, noise and JPEG; back to ``size`` x ``size`` uint8."""
    img = img * rng.uniform(0.55, 1.2) * rng.uniform(0.87, 1.1, 3)
    if rng.random() < 0.5:
        grey = img.mean(axis=2, keepdims=True)
        img = img + rng.uniform(0, 0.45) * (grey - img)
    if rng.random() < 0.2:  # low contrast: haze, glare
        img = img * (1 - (k := rng.uniform(0.1, 0.4))) + k * rng.uniform(120, 255)
    close_up = rng.random() < 0.2  # a card held close to the camera: a big, sharp index
    px = int(rng.uniform(64, 160) if close_up else rng.uniform(*native))
    img = np.clip(img, 0, 255).astype(np.uint8)
    small = cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA if px < size else cv2.INTER_CUBIC)
    r = rng.random() + (0.3 if close_up else 0.0)
    if r < 0.45:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.3))
    elif r < 0.6:  # motion blur
        n = int(rng.integers(2, 5))
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0 / n
        kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), rng.uniform(0, 180), 1.0), (n, n))
        small = cv2.filter2D(small, -1, kernel / max(kernel.sum(), 1e-6))
    small = np.clip(small.astype(np.float32) + rng.normal(0, rng.uniform(0, 8), small.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(30, 95))])
    small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
