"""Card backs and their owners: register each player's back colour, classify a back to its owner.

Every player brings their own deck, so the back of a face-down card names whose it is. The close
pairs (blue/navy, red/maroon, aqua/teal, lime/green, yellow/olive) have the same hue and differ
only in how dark the print is *relative to the paper*, so colours are compared after dividing by
the white of the cards themselves:

- the camera's colour cast is one per frame: it is read from the frame's bright, near-neutral,
  unclipped pixels (card faces, back borders) and divided out;
- the light level varies over the table (lamps, shadows): each pixel is divided by the local
  white, the brightest near-neutral pixels around it (the back's own border and pattern), with a
  floor at 80% of the box's white so a patch with no white nearby is not blown up to white.

The result is the printed colour as if lit by white light of the paper's level, in CIE Lab.

- Registering keeps one *prototype* per image: the centre-weighted mode of the box's non-white
  pixels (the printed field, not the white pattern, the table or a hand).
- Classifying lets every non-white pixel of the box vote for the owner of the nearest prototype
  (within ``tau``; a prototype also stands for its print blurred 15% into the white pattern, at
  a tighter distance), weighted towards the box centre; other cards, hands or table inside the
  box vote for nobody or for someone else. The winner needs ``min_share`` of the weight and
  ``min_ratio`` times the runner-up's; otherwise the back is ``unknown`` (rejection, not a guess).
- :meth:`BackRegistry.classify_frame` reads all the backs of one frame together: a pixel that
  votes for the owner of *another* box covering it is most likely that card lying across this
  one (piles, fans), so it weighs little. Use it when the detector gives every back of a frame.

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
FORMAT = "nerts-backs/2"
READABLE_FORMATS = ("nerts-backs/1", FORMAT)  # /1 prototypes were balanced differently: re-register
L_WEIGHT = 0.8  # lightness against chroma for coloured backs (shading still moves L most)
SIDE = 64  # boxes are measured at most SIDE px on their long side (nearest-neighbour: no mixing)
CLIP_SHARE, CLIP_BOOST = 0.01, 1.1  # clipped paper (> 1% of the box): its true level is ~10% higher
OVERLAP_WEIGHT = 0.3  # weight of a pixel explained by another back's box (classify_frame)
LOCAL_K, LOCAL_FLOOR = 0.2, 0.8  # local white: window (share of the box side), floor (share of the box's white)
BLUR_SCALE = 1.4  # blurred variants count at 1/1.4 of tau: the lighter twins (lime, aqua, #0062ff) stay out
BLUR_MIX = (0.0, 0.15)  # shares of white pattern mixed into a print by blur (see with_blur)

Box = Sequence[float]


class BackError(ValueError):
    """A back that cannot be measured (empty crop, not an image) or a bad registry file."""


def _crop(image: np.ndarray, box: Box | None) -> np.ndarray:
    """The box (whole image when None), subsampled to at most SIDE px, float32 BGR."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BackError(f"a back image must be BGR uint8 (h, w, 3), got "
                        f"{getattr(image, 'dtype', type(image).__name__)} {getattr(image, 'shape', '')}")
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (0.0, 0.0, float(w), float(h)) if box is None else (float(v) for v in box)
    xa, xb = int(max(0, round(x0))), int(min(w, round(x1)))
    ya, yb = int(max(0, round(y0))), int(min(h, round(y1)))
    if xb - xa < 3 or yb - ya < 3:
        raise BackError(f"back box {tuple(round(float(v), 1) for v in (x0, y0, x1, y1))} is empty or too small")
    crop = image[ya:yb, xa:xb]
    ch, cw = crop.shape[:2]
    scale = min(1.0, SIDE / max(ch, cw))
    if scale < 1.0:  # nearest neighbour keeps pixels pure (area averaging would mix in the pattern)
        crop = cv2.resize(crop, (max(3, round(cw * scale)), max(3, round(ch * scale))), interpolation=cv2.INTER_NEAREST)
    return crop.astype(np.float32)


_CAST_CACHE: dict[tuple, np.ndarray] = {}


def frame_cast(image: np.ndarray) -> np.ndarray:
    """Per-channel colour cast of the frame (mean 1): the median chromaticity of its brightest
    near-neutral unclipped pixels (card paper). Cached per frame: a detector classifies every
    back of one frame in a row."""
    sample = image[::4, ::4]
    key = (image.ctypes.data, image.shape, sample[::7, ::7].tobytes())
    if key in _CAST_CACHE:
        return _CAST_CACHE[key]
    px = sample.reshape(-1, 3).astype(np.float32)
    hi, lo = px.max(axis=1), px.min(axis=1)
    white = px[(hi < 245) & (lo > 40) & (lo > 0.7 * hi)]  # clipped pixels lie about the cast
    cast = np.ones(3, np.float32)
    if len(white) >= 30:
        total = white.sum(axis=1)
        white = white[total >= np.quantile(total, 0.7)]
        cast = np.median(white / white.mean(axis=1, keepdims=True), axis=0).astype(np.float32)
        cast /= cast.mean()
    _CAST_CACHE.clear()
    _CAST_CACHE[key] = cast
    return cast


def normalised_lab(image: np.ndarray, box: Box | None = None) -> np.ndarray:
    """Lab (L 0..100) of the box's pixels (h', w', 3) relative to the cards' white: cast from the
    frame, light level from the brightest neutral pixels near each pixel."""
    raw = _crop(image, box)
    cast = frame_cast(image)
    crop = raw / cast
    h, w = crop.shape[:2]
    neutral = crop.min(axis=2)  # high only where every channel is high: white paper, not a colour
    k = max(3, int(round(LOCAL_K * max(h, w))) | 1)
    local = cv2.dilate(neutral, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    local = cv2.GaussianBlur(local, (0, 0), max(1.0, 0.1 * max(h, w)))
    px = crop.reshape(-1, 3)
    n = max(5, int(0.08 * len(px)))
    brightest = px[np.argpartition(-px.min(axis=1), n - 1)[:n]]
    box_white = max(float(np.quantile(brightest.max(axis=1), 0.9)), 40.0)
    white = np.clip(local, LOCAL_FLOOR * box_white, 255.0)[..., None]
    if (raw.min(axis=2) >= 250).mean() > CLIP_SHARE:
        # the paper is clipped: its true level is higher than it reads (by CLIP_BOOST on average)
        white = white * np.where(local >= 0.97 * 255.0 / cast.max(), CLIP_BOOST, 1.0)[..., None]
    return cv2.cvtColor(np.clip(crop / white, 0, 1).astype(np.float32), cv2.COLOR_BGR2LAB)


def _centre_weights(h: int, w: int, sigma: float = 0.3) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w]
    return np.exp(-(((yy + 0.5) / h - 0.5) ** 2 + ((xx + 0.5) / w - 0.5) ** 2) / (2 * sigma ** 2)).reshape(-1)


def _covered(shape: tuple, box: Box | None, other: Box, size: tuple[int, int]) -> np.ndarray:
    """Flattened mask of the measured crop (``size``) of ``box``: pixels inside ``other``."""
    h, w = shape[:2]
    x0, y0, x1, y1 = (0.0, 0.0, float(w), float(h)) if box is None else (float(v) for v in box)
    xa, xb = max(0.0, round(x0)), min(float(w), round(x1))
    ya, yb = max(0.0, round(y0)), min(float(h), round(y1))
    sh, sw = size
    xs = xa + (np.arange(sw) + 0.5) * (xb - xa) / sw  # image coordinates of the crop's pixel centres
    ys = ya + (np.arange(sh) + 0.5) * (yb - ya) / sh
    ox0, oy0, ox1, oy1 = (float(v) for v in other)
    return (((ys >= oy0) & (ys < oy1))[:, None] & ((xs >= ox0) & (xs < ox1))[None, :]).reshape(-1)


def _not_white(lab: np.ndarray) -> np.ndarray:
    return ~((lab[:, 0] > 85) & (np.hypot(lab[:, 1], lab[:, 2]) < 15))


def _distances(lab: np.ndarray, protos: np.ndarray) -> np.ndarray:
    """(n, k) colour differences. Lightness weighs L_WEIGHT against chromatic prototypes but fully
    against colourless ones (black, gray and silver differ by lightness alone)."""
    chroma = np.hypot(protos[:, 1], protos[:, 2])
    lw = L_WEIGHT + (1 - L_WEIGHT) * np.exp(-chroma / 12.0)
    d = lab[:, None, :] - protos[None, :, :]
    return np.sqrt((lw[None, :] * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def back_descriptor(image: np.ndarray, box: Box | None = None) -> np.ndarray:
    """Lab of the back's printed field: the centre-weighted mode of the box's non-white pixels."""
    lab = normalised_lab(image, box)
    weights = _centre_weights(*lab.shape[:2])
    lab = lab.reshape(-1, 3)
    keep = _not_white(lab)
    if keep.sum() < 5:
        raise BackError("no coloured pixels in the back box (a blank or white image?)")
    lab, weights = lab[keep], weights[keep]
    seeds = lab[np.linspace(0, len(lab) - 1, min(len(lab), 200)).astype(int)]
    support = (_distances(lab, seeds) < 10) * weights[:, None]  # (n, seeds)
    best = seeds[int(support.sum(axis=0).argmax())]
    for _ in range(3):  # refine: median of the pixels around the mode
        best = np.median(lab[_distances(lab, best[None])[:, 0] < 10], axis=0)
    return best.astype(np.float64)


def colour_descriptor(colour: str) -> np.ndarray:
    """Lab of a named or ``#rrggbb`` colour (a back known only from the table settings), (1, 3)."""
    from simulator.deck_art import colour_bgr

    bgr = np.array([[colour_bgr(colour)]], np.float32) / 255.0
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)[0].astype(np.float64)


def _blur_scale(n: int) -> np.ndarray:
    """Distance factor per row of :func:`with_blur`'s output: blurred variants must match closer."""
    k = n // len(BLUR_MIX)
    return np.repeat([1.0 if t == 0 else BLUR_SCALE for t in BLUR_MIX], k)[None, :]


def with_blur(protos: np.ndarray) -> np.ndarray:
    """Prototypes plus the same prints blurred into the back's white pattern (far, small or
    out-of-focus cards look lighter and paler: the print mixes with the white, never with black)."""
    bgr = cv2.cvtColor(np.asarray(protos, np.float32)[:, None, :], cv2.COLOR_LAB2BGR)[:, 0, :]
    mixes = np.concatenate([(1 - t) * bgr + t for t in BLUR_MIX])[:, None, :].astype(np.float32)
    return cv2.cvtColor(np.clip(mixes, 0, 1), cv2.COLOR_BGR2LAB)[:, 0, :].astype(np.float64)


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """Colour difference between two Lab colours as the classifier measures it."""
    return float(_distances(np.asarray(a, float).reshape(1, 3), np.asarray(b, float).reshape(1, 3))[0, 0])


@dataclass
class BackMatch:
    owner: str  # a registered owner or UNKNOWN
    share: float  # centre-weighted share of the box's non-white pixels that voted for the winner (or best loser)
    runner_up: str | None = None
    runner_up_share: float = 0.0

    @property
    def known(self) -> bool:
        return self.owner != UNKNOWN


@dataclass
class BackRegistry:
    """Registered backs: owner -> prototypes (white-normalised Lab, one row per registration image)."""

    backs: dict[str, np.ndarray] = field(default_factory=dict)
    tau: float = 14.0
    min_share: float = 0.05
    min_ratio: float = 1.3
    _protos: list = field(default_factory=list, init=False, repr=False, compare=False)
    _protos_key: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def register(self, owner: str, images: Iterable[np.ndarray], boxes: Iterable[Box | None] | None = None) -> np.ndarray:
        """Learn ``owner``'s back from one or more images (whole image = the back, or with boxes);
        replaces what ``owner`` had."""
        owner = self._owner(owner)
        images = list(images)
        box_list = list(boxes) if boxes is not None else [None] * len(images)
        if not images:
            raise BackError(f"no image given for {owner!r}")
        if len(box_list) != len(images):
            raise BackError("one box (or None) per image")
        self.backs[owner] = np.array([back_descriptor(img, box) for img, box in zip(images, box_list)])
        return self.backs[owner]

    def register_colour(self, owner: str, colour: str) -> np.ndarray:
        """Learn ``owner``'s back from its nominal colour (``"red"``, ``"#0062ff"``); a ValueError
        names an unknown colour."""
        self.backs[self._owner(owner)] = colour_descriptor(colour)
        return self.backs[self._owner(owner)]

    @staticmethod
    def _owner(owner: str) -> str:
        name = str(owner).strip()
        if not name or name == UNKNOWN:
            raise BackError(f"owner name must be non-empty and not {UNKNOWN!r}")
        return name

    def _assign(self, image: np.ndarray, box: Box | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
        """Per pixel of the measured crop: index of the nearest owner within tau (-1: none or
        white), centre weight, non-white mask, crop shape."""
        lab = normalised_lab(image, box)
        shape = lab.shape[:2]
        lab = lab.reshape(-1, 3)
        keep = _not_white(lab)
        nearest = np.full(len(lab), -1)
        if self.backs and keep.any():
            key = tuple((n, p.tobytes()) for n, p in self.backs.items())
            if self._protos_key != key:  # the blurred variants only change when a back does
                self._protos = [with_blur(p) for p in self.backs.values()]
                self._protos_key = key
            dist = np.stack([(_distances(lab[keep], p) * _blur_scale(len(p))).min(axis=1) for p in self._protos], axis=1)
            nearest[keep] = np.where(dist.min(axis=1) < self.tau, dist.argmin(axis=1), -1)
        return nearest, _centre_weights(*shape), keep, shape

    def _tally(self, image: np.ndarray, box: Box | None, assigned: tuple, others: Sequence[tuple[Box, str]]) -> dict[str, float]:
        nearest, weights, keep, shape = assigned
        names = list(self.backs)
        if not names or not keep.any():
            return {n: 0.0 for n in names}
        if len(others):
            index = {n: i for i, n in enumerate(names)}
            explained = np.zeros(len(nearest), bool)
            for other_box, owner in others:
                if owner in index:
                    explained |= _covered(image.shape, box, other_box, shape) & (nearest == index[owner])
            weights = np.where(explained, OVERLAP_WEIGHT * weights, weights)
        voted = nearest >= 0
        counts = np.bincount(nearest[voted], weights=weights[voted], minlength=len(names)) / max(weights[keep].sum(), 1e-9)
        return {n: float(c) for n, c in zip(names, counts)}

    def votes(self, image: np.ndarray, box: Box | None = None, others: Sequence[tuple[Box, str]] = ()) -> dict[str, float]:
        """Centre-weighted share of the box's non-white pixels nearest to each owner (within tau).

        ``others``: (box, owner) of the frame's other backs. A pixel that votes for the owner of
        another box covering it is most likely that card lying across this one (piles and fans
        cover each other's boxes), so it weighs only OVERLAP_WEIGHT."""
        return self._tally(image, box, self._assign(image, box), others)

    def _decide(self, votes: dict[str, float]) -> BackMatch:
        ranked = sorted(votes.items(), key=lambda kv: -kv[1])
        if not ranked:
            return BackMatch(UNKNOWN, 0.0)
        best, share = ranked[0]
        second, second_share = ranked[1] if len(ranked) > 1 else (None, 0.0)
        if share < self.min_share or share < self.min_ratio * second_share:
            return BackMatch(UNKNOWN, share, best, share if second is None else second_share)
        return BackMatch(best, share, second, second_share)

    def classify(self, image: np.ndarray, box: Box | None = None, others: Sequence[tuple[Box, str]] = ()) -> BackMatch:
        """The owner of the back in ``box`` of ``image`` (whole image when None), or ``unknown``.
        ``others``: (box, owner) of the frame's other backs, if known (see :meth:`classify_frame`)."""
        return self._decide(self.votes(image, box, others))

    def classify_frame(self, image: np.ndarray, boxes: Sequence[Box]) -> list[BackMatch]:
        """Owners of all the backs found in one frame. Each back is read alone first; then again
        with the pixels that another box's owner explains (a card lying across it) discounted."""
        boxes = list(boxes)
        assigned = [self._assign(image, b) for b in boxes]
        first = [self._decide(self._tally(image, b, a, ())) for b, a in zip(boxes, assigned)]
        return [self._decide(self._tally(image, b, a, [(o, m.owner) for j, (o, m) in enumerate(zip(boxes, first))
                                                        if j != i and m.known]))
                for i, (b, a) in enumerate(zip(boxes, assigned))]

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
        if not isinstance(data, dict) or data.get("format") not in READABLE_FORMATS:
            raise BackError(f"not a back registry (expected format {FORMAT!r})")
        if data["format"] != FORMAT:  # older measurements: the thresholds of this version apply
            data = {k: v for k, v in data.items() if k not in ("tau", "min_share", "min_ratio")}
        reg = cls()
        try:
            reg.tau = float(data.get("tau", reg.tau))
            reg.min_share = float(data.get("min_share", reg.min_share))
            reg.min_ratio = float(data.get("min_ratio", reg.min_ratio))
        except (TypeError, ValueError) as exc:
            raise BackError(f"bad threshold in back registry: {exc}") from exc
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
