"""Annotated frames for the dashboard: piles, card identities, owners and the latest rulings.

Annotation is separate from the logic (as in supervision): it reads the pipeline's state and
draws on a copy of the camera frame; the result is JPEG-encoded for the frame hub.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.calibrate import Calibration
from vision.config import VisionConfig
from vision.foundations import FoundationRegistry
from vision.tracking import CardTrack

GREEN = (80, 200, 80)
RED = (60, 60, 230)
YELLOW = (40, 210, 230)
WHITE = (255, 255, 255)
GREY = (160, 160, 160)


def annotate(image: np.ndarray, calibration: Calibration | None, cfg: VisionConfig,
             registry: FoundationRegistry, tracks: dict[int, CardTrack], t: float,
             rulings: list[dict[str, Any]], status: str = "", scale: float = 1.0) -> np.ndarray:
    """A copy of ``image`` (resized by ``scale``) with the referee's view drawn on it."""
    import cv2

    out = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale != 1.0 else image.copy()
    if calibration is not None:
        def px(points_mm):
            return (calibration.to_image(np.asarray(points_mm, dtype=np.float64)) * scale).astype(np.int32)

        cv2.polylines(out, [px(cfg.zones.common).reshape(-1, 1, 2)], True, GREY, 1, cv2.LINE_AA)
        for pile in registry.open_piles():
            (x, y), = px([(pile.x, pile.y)])
            colour = GREY if pile.completed else GREEN
            cv2.circle(out, (int(x), int(y)), max(int(28 * scale), 6), colour, 2, cv2.LINE_AA)
            _label(out, f"{pile.id} {pile.top or ''}", (int(x) - 20, int(y) - int(34 * scale)), colour)
        for track in tracks.values():
            if t - track.last.t > 0.2:
                continue
            (x, y), = px([(track.last.x, track.last.y)])
            cv2.circle(out, (int(x), int(y)), 4, YELLOW, -1)
            _label(out, track.label, (int(x) + 6, int(y) + 4), YELLOW)
    y0 = 22
    if status:
        _label(out, status, (10, y0), WHITE)
        y0 += 22
    for ruling in rulings[-4:]:
        kind = ruling.get("kind", "")
        text = f"{ruling.get('card') or ''} {ruling.get('player') or ''} {ruling.get('pile') or ''}: {kind}"
        if kind == "dispute":
            text += f" winner {ruling.get('winner')}" + (" (tie)" if ruling.get("tie") else "")
        _label(out, text, (10, y0), GREEN if kind == "accepted" else RED)
        y0 += 22
    return out


def _label(img: np.ndarray, text: str, org: tuple[int, int], colour: tuple[int, int, int]) -> None:
    import cv2

    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)


def to_jpeg(image: np.ndarray, quality: int = 75) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()
