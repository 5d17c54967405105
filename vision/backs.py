"""Card backs and their owners: register each player's back colour, classify a back to its owner.

Every player brings their own deck, so the back of a face-down card names whose it is. Colours
are compared in CIE Lab after white balance on the card's own white (the brightest pixels:
border and pattern), so the camera's colour cast and the light level cancel out (skipped when
those pixels are not near-neutral: a back printed edge to edge has no white).

- Registering keeps one *prototype* per image: the median Lab of the darker part of the inner
  crop (the printed field, not the white pattern). A few frames give a few prototypes, which
  covers the desaturation of small, blurred backs.
- Classifying lets every pixel of the inner crop vote for the owner of the nearest prototype
  (within ``tau``); pixels of other cards, hands or table lying inside the box vote for nobody or
  for someone else. The winner needs ``min_share`` of the pixels and ``min_ratio`` times the
  runner-up's votes; otherwise the back is ``unknown`` (rejection, not a forced guess).

>>> import numpy as np
>>> reg = BackRegistry()
>>> red = np.zeros((70, 50, 3), np.uint8); red[:] = (30, 30, 200); red[::6, :] = 255
>>> blue = red[:, :, ::-1].copy()
>>> _ = reg.register("ana", [red]); _ = reg.register("ben", [blue])
>>> reg.classify(red).owner, reg.classify(blue).owner
('ana', 'ben')
>>> green = red.copy(); green[red[:, :, 2] == 200] = (40, 180, 40)
>>> reg.classify(green).owner
'unknown'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

UNKNOWN = "unknown"
L_WEIGHT = 0.35
FORMAT = "nerts-backs/1"

Box = Sequence[float]


class BackError(ValueError):
    """A back that cannot be measured (empty crop) or a bad registry file."""


def _inner(image: np.ndarray, box: Box | None, keep: float = 0.6) -> np.ndarray:
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (0.0, 0.0, float(w), float(h)) if box is None else (float(v) for v in box)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hw, hh = (x1 - x0) * keep / 2, (y1 - y0) * keep / 2
    xa, xb = int(max(0, round(cx - hw))), int(min(w, round(cx + hw)))
    ya, yb = int(max(0, round(cy - hh))), int(min(h, round(cy + hh)))
    crop = image[ya:yb, xa:xb]
    if crop.size == 0 or crop.shape[0] < 3 or crop.shape[1] < 3:
        raise BackError(f"back box {tuple(round(float(v), 1) for v in (x0, y0, x1, y1))} is empty or too small")
    return crop


def _pixels_lab(image: np.ndarray, box: Box | None, keep: float) -> np.ndarray:
    """Lab of (up to 4000) pixels of the inner crop, white-balanced on the card's own white."""
    crop = _inner(image, box, keep).reshape(-1, 3).astype(np.float32)
    if len(crop) > 4000:  # a subsample is plenty for medians and votes and keeps this ~1 ms
        crop = crop[np.linspace(0, len(crop) - 1, 4000).astype(int)]
    # white reference: the brightest 5% of the whole box (the card's white border is there; the
    # inner crop of a pale back may hold no true white at all)
    whole = _inner(image, box, 1.0).reshape(-1, 3).astype(np.float32)
    if len(whole) > 8000:
        whole = whole[np.linspace(0, len(whole) - 1, 8000).astype(int)]
    brightness = whole.sum(axis=1)
    ref = whole[brightness >= np.percentile(brightness, 95)].mean(axis=0)
    if ref.min() > 40 and ref.max() / max(ref.min(), 1.0) < 1.25:  # near-neutral: the card's white
        crop = np.clip(crop * (235.0 / ref), 0, 255)
    return cv2.cvtColor((crop / 255.0).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)


def back_descriptor(image: np.ndarray, box: Box | None = None) -> np.ndarray:
    """Lab (L 0..100, a, b) of the back's printed field: median of the darker pixels."""
    lab = _pixels_lab(image, box, 0.6)
    dark = lab[lab[:, 0] <= np.percentile(lab[:, 0], 45)]
    return np.median(dark, axis=0).astype(np.float64)


def colour_descriptor(colour: str) -> np.ndarray:
    """Lab of a named or ``#rrggbb`` colour (a back known only from the table settings)."""
    from simulator.deck_art import colour_bgr

    bgr = np.array([[colour_bgr(colour)]], np.float32) / 255.0
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """Colour difference with lightness at a third of the weight (shading changes L most)."""
    d = np.asarray(a, float) - np.asarray(b, float)
    return float(np.sqrt((L_WEIGHT * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2))


@dataclass
class BackMatch:
    owner: str  # a registered owner or UNKNOWN
    share: float  # fraction of the crop's pixels that voted for the winner (or the best loser)
    runner_up: str | None = None
    runner_up_share: float = 0.0

    @property
    def known(self) -> bool:
        return self.owner != UNKNOWN


@dataclass
class BackRegistry:
    """Registered backs: owner -> prototypes (Lab, one row per registration image)."""

    backs: dict[str, np.ndarray] = field(default_factory=dict)
    tau: float = 16.0
    min_share: float = 0.05
    min_ratio: float = 1.3

    def register(self, owner: str, images: Iterable[np.ndarray], boxes: Iterable[Box | None] | None = None) -> np.ndarray:
        """Learn ``owner``'s back from one or more images (whole image = the back, or with boxes);
        replaces what ``owner`` had."""
        owner = str(owner).strip()
        if not owner or owner == UNKNOWN:
            raise BackError(f"owner name must be non-empty and not {UNKNOWN!r}")
        images = list(images)
        box_list = list(boxes) if boxes is not None else [None] * len(images)
        if not images:
            raise BackError(f"no image given for {owner!r}")
        if len(box_list) != len(images):
            raise BackError("one box (or None) per image")
        self.backs[owner] = np.array([back_descriptor(img, box) for img, box in zip(images, box_list)])
        return self.backs[owner]

    def register_colour(self, owner: str, colour: str) -> np.ndarray:
        """Learn ``owner``'s back from its nominal colour (``"red"``, ``"#0062ff"``)."""
        self.backs[str(owner)] = colour_descriptor(colour)[None, :]
        return self.backs[str(owner)]

    def votes(self, lab: np.ndarray) -> dict[str, float]:
        """Share of the pixels ``lab`` (n x 3) nearest to each owner's prototypes (within tau).

        The card's own white (light, colourless pixels) votes for nobody and is not counted.
        Lightness weighs little against chromatic prototypes (shading) but fully against
        colourless ones (black, gray and silver differ by lightness alone)."""
        names = list(self.backs)
        lab = lab[~((lab[:, 0] > 88) & (np.hypot(lab[:, 1], lab[:, 2]) < 10))]
        if not names or len(lab) == 0:
            return {n: 0.0 for n in names}
        best = []
        for n in names:
            protos = self.backs[n]
            chroma = np.hypot(protos[:, 1], protos[:, 2])
            lw = L_WEIGHT + (1 - L_WEIGHT) * np.exp(-chroma / 12.0)
            d = lab[:, None, :] - protos[None, :, :]
            best.append(np.sqrt((lw[None, :] * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2).min(axis=1))
        dist = np.stack(best, axis=1)
        nearest = dist.argmin(axis=1)
        close = dist.min(axis=1) < self.tau
        counts = np.bincount(nearest[close], minlength=len(names)) / len(lab)
        return {n: float(c) for n, c in zip(names, counts)}

    def classify(self, image: np.ndarray, box: Box | None = None) -> BackMatch:
        """The owner of the back in ``box`` of ``image`` (whole image when None), or ``unknown``."""
        ranked = sorted(self.votes(_pixels_lab(image, box, 0.65)).items(), key=lambda kv: -kv[1])
        if not ranked:
            return BackMatch(UNKNOWN, 0.0)
        best, share = ranked[0]
        second, second_share = ranked[1] if len(ranked) > 1 else (None, 0.0)
        if share < self.min_share or share < self.min_ratio * second_share:
            return BackMatch(UNKNOWN, share, best, share if second is None else second_share)
        return BackMatch(best, share, second, second_share)

    # persistence -----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "tau": self.tau,
            "min_share": self.min_share,
            "min_ratio": self.min_ratio,
            "backs": [
                {"owner": name, "lab": [[round(float(v), 3) for v in row] for row in protos],
                 "preview_bgr": [int(v) for v in _lab_to_bgr(np.median(protos, axis=0))]}
                for name, protos in self.backs.items()
            ],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "BackRegistry":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BackError(f"not a back registry (expected format {FORMAT!r})")
        reg = cls(tau=float(data.get("tau", 16.0)), min_share=float(data.get("min_share", 0.05)),
                  min_ratio=float(data.get("min_ratio", 1.3)))
        for item in data.get("backs", []):
            try:
                protos = np.array(item["lab"], np.float64).reshape(-1, 3)
                reg.backs[str(item["owner"])] = protos
            except (KeyError, TypeError, ValueError) as exc:
                raise BackError(f"bad back entry {item!r}: {exc}") from exc
        return reg

    def save(self, path: str | Path) -> None:
        """Write atomically (temp file + rename): a crash never leaves half a registry."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> "BackRegistry":
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise BackError(f"deck file not found: {path}") from exc
        except json.JSONDecodeError as exc:
            raise BackError(f"deck file {path} is not JSON: {exc}") from exc
        return cls.from_dict(data)


def _lab_to_bgr(lab: np.ndarray) -> np.ndarray:
    px = np.array([[lab]], np.float32)
    return np.clip(cv2.cvtColor(px, cv2.COLOR_LAB2BGR)[0, 0] * 255, 0, 255).round()
