"""Where sightings come from: the trained detector, or (for development) the simulator's truth.

Both turn one frame into :class:`vision.tracking.TableSighting` lists in table millimetres.

- :class:`DetectorSightings` runs ``vision.detector`` on the rectified common area. The detector
  finds printed corner indices; the two indices of one card (same identity, less than a card's
  diagonal apart) are merged into one sighting at their midpoint, the card's centre.
- :class:`PoseSightings` reads the simulator's ``poses.jsonl`` (each visible card's identity, owner,
  image quad and occluded fraction per frame) and reports those cards as a detector would: with
  position noise, missed detections under occlusion and occasional misreads, so that tracking,
  contact timing and attribution are proven independently of the detector.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterable, Protocol

import numpy as np

from vision.calibrate import Calibration, Rectifier
from vision.tracking import TableSighting

CARD_DIAGONAL_MM = 108.0


class SightingSource(Protocol):
    def sightings(self, index: int, t: float, image: np.ndarray, calibration: Calibration,
                  rectifier: Rectifier, changed_mm: list[tuple[float, float, float, float]] | None = None
                  ) -> list[TableSighting]: ...


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return default


class DetectorSightings:
    """The trained detector (``vision.detector.Detector``) on the rectified common area."""

    def __init__(self, detector: Any, min_confidence: float = 0.35, px_per_mm: float = 0.8,
                 full_every_s: float = 1.0, crop_margin_mm: float = 70.0) -> None:
        self.detector = detector
        self.min_confidence = min_confidence
        # about the scale of the rendered frames the detector was trained on (a card ~50 px wide)
        self.px_per_mm = px_per_mm
        self.full_every_s = full_every_s
        # detector confidence is detection x classification probability: ~0.4-0.6 on a sure read
        self.min_play_confidence = 0.3
        self.crop_margin_mm = crop_margin_mm
        self.calls = 0
        self._view: Rectifier | None = None
        self._last_full = -1e9

    @classmethod
    def load(cls, weights: str | None = None, backs: dict[str, str] | None = None) -> "DetectorSightings":
        """The shipped (or given) weights; ``backs`` (player -> back colour from the table config)
        lets face-down cards name their owner, the independent check of attribution."""
        from vision.detector import Detector  # the detector area's module

        det = Detector.load(weights) if weights else Detector.load()
        if backs:
            from vision.backs import BackRegistry

            registry = BackRegistry()
            for owner, colour in backs.items():
                try:
                    registry.register_colour(owner, colour)
                except ValueError:
                    continue  # a back named in a way the colour table does not know: arm cue only
            det.backs = registry if registry.backs else None
        return cls(det)

    def sightings(self, index: int, t: float, image: np.ndarray, calibration: Calibration,
                  rectifier: Rectifier, changed_mm: list[tuple[float, float, float, float]] | None = None
                  ) -> list[TableSighting]:
        """Detect on the rectified area; while only part of it changes (and a full look was taken
        within ``full_every_s``), detect on the changed part only: the cost follows the motion."""
        region = rectifier.region_mm
        if changed_mm and t - self._last_full < self.full_every_s:
            m = self.crop_margin_mm
            x0 = max(min(b[0] for b in changed_mm) - m, region[0])
            y0 = max(min(b[1] for b in changed_mm) - m, region[1])
            x1 = min(max(b[2] for b in changed_mm) + m, region[2])
            y1 = min(max(b[3] for b in changed_mm) + m, region[3])
            if (x1 - x0) * (y1 - y0) < 0.5 * (region[2] - region[0]) * (region[3] - region[1]):
                region = (x0, y0, x1, y1)
        if region == rectifier.region_mm:
            self._last_full = t
        if self._view is None or self._view.calibration is not calibration or self._view.region_mm != region:
            self._view = Rectifier(calibration, region, self.px_per_mm)
        view = self._view.warp(image)
        self.calls += 1
        found = self.detector.detect(view)
        return merge_indices(found, self._view, self.min_confidence)


def merge_indices(found: Iterable[Any], rectifier: Rectifier, min_confidence: float = 0.35) -> list[TableSighting]:
    """Detections (rectified px) → card sightings (mm): pair the two indices of each card."""
    by_label: dict[str, list[tuple[np.ndarray, float, str | None]]] = {}
    for d in found:
        label = _get(d, "identity", "label", "name", "card")
        if label is None:
            continue
        label = str(label)
        conf = float(_get(d, "confidence", "score", default=1.0))
        if conf < min_confidence:
            continue
        box = _get(d, "box", "xyxy", "bbox")
        if box is None:
            continue
        x0, y0, x1, y1 = (float(v) for v in box)
        centre = rectifier.to_mm(np.array([[(x0 + x1) / 2, (y0 + y1) / 2]]))[0]
        owner = _get(d, "owner")
        by_label.setdefault(label.upper(), []).append((centre, conf, owner))
    out: list[TableSighting] = []
    for label, items in by_label.items():
        items.sort(key=lambda it: -it[1])
        used = [False] * len(items)
        for i, (c, conf, owner) in enumerate(items):
            if used[i]:
                continue
            used[i] = True
            if label == "BACK":
                out.append(TableSighting(label, conf, float(c[0]), float(c[1]), owner=owner))
                continue
            # the other index of the same card: same identity, within a card's diagonal
            best, best_d = None, CARD_DIAGONAL_MM * 1.1
            for j in range(i + 1, len(items)):
                if not used[j]:
                    d = float(np.linalg.norm(items[j][0] - c))
                    if 30.0 < d < best_d:
                        best, best_d = j, d
            if best is not None:
                used[best] = True
                m = (c + items[best][0]) / 2
                out.append(TableSighting(label, max(conf, items[best][1]), float(m[0]), float(m[1]), owner=owner))
            else:
                out.append(TableSighting(label, conf * 0.9, float(c[0]), float(c[1]), occluded=0.5, owner=owner))
    return out


class PoseSightings:
    """Simulator truth (``poses.jsonl``) reported as a noisy detector would (development, bench).

    Each line: ``{"frame": i, "t": ..., "cards": [{"card": "5H", "owner": "ana", "quad": [[x, y] x4],
    "occluded": 0.1, "face_up": true}, ...]}`` (image pixels). Face-down cards become ``BACK``
    sightings carrying their owner (the back colour). Only cards inside the rectified region are
    reported, as the detector only looks there.
    """

    def __init__(self, path: str | Path, seed: int = 0, noise_mm: float = 0.8, max_occluded: float = 0.85,
                 misread_rate: float = 0.005, miss_rate: float = 0.02) -> None:
        self.path = Path(path)
        self.rng = random.Random(seed)
        self.noise_mm = noise_mm
        self.max_occluded = max_occluded
        self.misread_rate = misread_rate
        self.miss_rate = miss_rate
        self.min_play_confidence = 0.55
        self._frames = self._read(self.path)
        self.calls = 0

    @staticmethod
    def _read(path: Path) -> dict[int, list[dict[str, Any]]]:
        frames: dict[int, list[dict[str, Any]]] = {}
        try:
            with open(path, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
                    idx = rec.get("frame", rec.get("index"))
                    if idx is None:
                        raise ValueError(f"{path}:{n}: missing 'frame'")
                    frames[int(idx)] = list(rec.get("cards", []))
        except OSError as exc:
            raise ValueError(f"cannot read poses {path}: {exc.strerror}") from None
        return frames

    def sightings(self, index: int, t: float, image: np.ndarray, calibration: Calibration,
                  rectifier: Rectifier, changed_mm: list[tuple[float, float, float, float]] | None = None
                  ) -> list[TableSighting]:
        from vision.synthetic import CARD_NAMES

        self.calls += 1
        x0, y0, x1, y1 = rectifier.region_mm
        out = []
        for c in self._frames.get(index, []):
            occluded = float(c.get("occluded", 0.0))
            if occluded > self.max_occluded or self.rng.random() < self.miss_rate:
                continue
            quad = np.asarray(c.get("quad"), dtype=np.float64).reshape(-1, 2)
            centre = calibration.to_table(quad).mean(axis=0)
            if not (x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1):
                continue
            face_up = c.get("face_up", True) and str(c.get("card", "")).upper() != "BACK"
            label = str(c.get("card", "")) if face_up else "BACK"
            if face_up and self.rng.random() < self.misread_rate:
                label = self.rng.choice(CARD_NAMES)
            conf = min(max(0.93 - 0.4 * occluded + self.rng.gauss(0, 0.03), 0.05), 0.99)
            # a card seen in part (a hand over it) is placed less precisely
            noise = self.noise_mm * (1.0 + 2.0 * occluded)
            out.append(TableSighting(
                label, conf,
                float(centre[0] + self.rng.gauss(0, noise)),
                float(centre[1] + self.rng.gauss(0, noise)),
                occluded=occluded,
                owner=None if face_up else c.get("owner"),
            ))
        return out
