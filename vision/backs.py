"""Card backs and their owners: register each player's back colour, classify a back to its owner.

Every player brings their own deck, so the back of a face-down card names whose it is. The close
pairs (blue/navy, red/maroon, aqua/teal, lime/green, yellow/olive) have the same hue and differ
only in how dark the print is *relative to the paper*, so colours are compared after dividing by
the white of the cards themselves:

- the camera's colour cast is one per frame: it is read from the frame's bright, near-neutral,
  unclipped pixels (card faces, back borders: the brightness-weighted mode of their
  chromaticities, not a pale table's) and divided out;
- the light level varies over the table (lamps, shadows): each pixel is divided by the local
  white, the brightest near-neutral pixels around it (the back's own border and pattern), with a
  floor at 80% of the box's white so a patch with no white nearby is not blown up to white. The
  box's white is also read from the paper around the box (other cards' faces): on a small or
  blurred back the thin white border and dots never reach the paper's level, and a white read
  too low turns maroon into red, navy into blue and teal into aqua.

The result is the printed colour as if lit by white light of the paper's level, in CIE Lab.

- Registering keeps one *prototype* per image: the centre-weighted mode of the box's non-white
  pixels (the printed field, not the white pattern, the table or a hand).
- Classifying lets every non-white pixel of the box vote for the owner of the nearest prototype
  (within ``tau``; a prototype also stands for its print blurred 15% into the white pattern, at
  a tighter distance), weighted towards the box centre; other cards, hands or table inside the
  box vote for nobody or for someone else. The winner needs ``min_share`` of the weight and
  ``min_ratio`` times the runner-up's; otherwise the back is ``unknown`` (rejection, not a guess).
- An unregistered back votes for nobody, so a few dark table or outline pixels voting "black"
  could win it. The pixels that vote for nobody are therefore clustered too: when their main
  cluster is ``max_unmatched`` times the winner's share and is not a drifted version of the
  winner's print (more than ``unmatched_dist`` from it), the back is ``unknown``.
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
FORMAT = "nerts-backs/3"
# Older files load with this version's thresholds: /1 prototypes were balanced differently and /2
# ones read the white from the box alone, so re-registering (``decks register``) is better.
READABLE_FORMATS = ("nerts-backs/1", "nerts-backs/2", FORMAT)
L_WEIGHT = 0.8  # lightness against chroma for coloured backs (shading still moves L most)
SIDE = 64  # boxes are measured at most SIDE px on their long side (nearest-neighbour: no mixing)
CLIP_SHARE, CLIP_BOOST = 0.01, 1.1  # clipped paper (> 1% of the box): its true level is ~10% higher
OVERLAP_WEIGHT = 0.3  # weight of a pixel explained by another back's box (classify_frame)
LOCAL_K, LOCAL_FLOOR = 0.3, 0.8  # local white: window (share of the box side), floor (share of the box's white)
CONTEXT, CONTEXT_Q = 0.5, 0.97  # paper around the box: margin (share of the box side), quantile of its white
# Blur, distance and JPEG mix a back's print with its white pattern: a small back's pixels are a
# paler version of the print. Each share t of BLUR_MIX is a variant of every prototype, matched
# within tau / (1 + BLUR_K * t) (tau / 1.4 at 15%): twins converge towards white as t grows, so
# paler variants must match closer or the lighter twins (lime, aqua, #0062ff) get in. Mixes of
# 30% and 45% were measured too: +0.2% correct on registered backs, but rejection 0.86 -> 0.72.
BLUR_MIX = (0.0, 0.15)
BLUR_K = 2.67
# Registration checks (BackRegistry.check). One back's sightings agree within ~15 and drift up to
# ~17 in lightness between light and shadow on rendered tables; the french-pattern close pairs
# lie 24 (gray/silver) to 52 (blue/navy) apart.
DISAGREE_DIST, SIMILAR_DIST = 30.0, 25.0

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
# Cast: a histogram of log(B/G), log(R/G) over +-CAST_RANGE (a white balance off by up to ~28%) in
# CAST_BINS cells, each pixel weighted by its brightness (share of the brightest) ** CAST_POWER.
CAST_BINS, CAST_RANGE, CAST_POWER = 50, 0.25, 4.0


def frame_cast(image: np.ndarray) -> np.ndarray:
    """Per-channel colour cast of the frame (mean 1): the chromaticity of the card paper, the
    brightness-weighted mode of the near-neutral unclipped pixels' chromaticities. The paper is
    one colour (a sharp peak); a pale table, skin or a glare halo is near-neutral too and often
    covers more of the frame, but its chromaticity spreads wider (grain, shading) and it is
    darker, so its peak is lower (a median of the brightest 30% of those pixels took up the
    table's tint: off by > 6% in 15% of the frames of a dev seed, the mode in 12%). Cached per frame: a detector
    classifies every back of one frame in a row."""
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
        logs = np.log(white + 1.0)
        x, y = logs[:, 0] - logs[:, 1], logs[:, 2] - logs[:, 1]
        hist, xe, ye = np.histogram2d(x, y, bins=CAST_BINS, range=((-CAST_RANGE, CAST_RANGE),) * 2,
                                      weights=(total / total.max()) ** CAST_POWER)
        hist = cv2.GaussianBlur(hist.astype(np.float32), (0, 0), 1.0)
        i, j = np.unravel_index(int(hist.argmax()), hist.shape)
        step = 2 * CAST_RANGE / CAST_BINS
        near = (np.abs(x - (xe[i] + xe[i + 1]) / 2) < 2 * step) & (np.abs(y - (ye[j] + ye[j + 1]) / 2) < 2 * step)
        # the peak's pixels (or, with no peak in range, the brightest 30%)
        white = white[near] if near.sum() >= 10 else white[total >= np.quantile(total, 0.7)]
        cast = np.median(white / white.mean(axis=1, keepdims=True), axis=0).astype(np.float32)
        cast /= cast.mean()
    _CAST_CACHE.clear()
    _CAST_CACHE[key] = cast
    return cast


def _context_white(image: np.ndarray, box: Box | None, cast: np.ndarray) -> float:
    """Paper level around the box (grown by CONTEXT on each side): a high quantile of the
    near-neutral pixels' darkest channel; 0 when there is no paper (or no box)."""
    if box is None:
        return 0.0
    x0, y0, x1, y1 = (float(v) for v in box)
    mx, my = CONTEXT * (x1 - x0), CONTEXT * (y1 - y0)
    px = (_crop(image, (x0 - mx, y0 - my, x1 + mx, y1 + my)) / cast).reshape(-1, 3)
    lo = px.min(axis=1)
    lo = lo[lo > 0.75 * px.max(axis=1)]
    return float(np.quantile(lo, CONTEXT_Q)) if len(lo) > 20 else 0.0


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
    box_white = max(float(np.quantile(brightest.max(axis=1), 0.9)), 40.0, _context_white(image, box, cast))
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
    return np.repeat([1.0 + BLUR_K * t for t in BLUR_MIX], n // len(BLUR_MIX))[None, :]


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
class _Pixels:
    """One box's measured pixels (flattened crop): nearest owner within tau (-1: nobody or white),
    centre weight, non-white mask, Lab, crop shape."""

    nearest: np.ndarray
    weights: np.ndarray
    keep: np.ndarray
    lab: np.ndarray
    shape: tuple


def _main_cluster(lab: np.ndarray, weights: np.ndarray) -> tuple[float, np.ndarray]:
    """Weight and centre of the densest cluster of Lab pixels (10-unit cells, 3x3x3 neighbourhood)."""
    hist, edges = np.histogramdd(lab, bins=(10, 20, 20), range=((0, 100), (-100, 100), (-100, 100)), weights=weights)
    padded = np.pad(hist, 1)
    dense = sum(padded[i:i + hist.shape[0], j:j + hist.shape[1], k:k + hist.shape[2]]
                for i in range(3) for j in range(3) for k in range(3))
    cell = np.unravel_index(int(dense.argmax()), dense.shape)
    centre = np.array([(e[c] + e[c + 1]) / 2 for e, c in zip(edges, cell)])
    near = np.linalg.norm(lab - centre, axis=1) < 15
    if weights[near].sum() > 0:
        centre = np.average(lab[near], axis=0, weights=weights[near])
    return float(dense.max()), centre


@dataclass
class BackRegistry:
    """Registered backs: owner -> prototypes (white-normalised Lab, one row per registration image)."""

    backs: dict[str, np.ndarray] = field(default_factory=dict)
    tau: float = 16.0
    min_share: float = 0.05
    min_ratio: float = 1.15
    max_unmatched: float = 3.0  # unmatched cluster / winner's share above which a back is unknown
    unmatched_dist: float = 20.0  # ... unless that cluster lies this close to the winner's print
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

    def check(self, owner: str) -> list[str]:
        """What may go wrong with ``owner``'s registration, in words (empty: nothing seen):

        - its images disagree by more than DISAGREE_DIST (one back's sightings agree within ~15
          even under uneven light): one of them may show a hand, another card or the table;
        - its back is within SIMILAR_DIST of another owner's (closer than one back's sightings
          can drift): the two may be taken for each other.
        """
        owner = self._owner(owner)
        mine = self.backs.get(owner)
        if mine is None:
            raise BackError(f"{owner!r} has no registered back")
        notes = []
        spread = max((distance(a, b) for i, a in enumerate(mine) for b in mine[i + 1:]), default=0.0)
        if spread > DISAGREE_DIST:
            notes.append(f"the {len(mine)} images of {owner}'s back disagree (colours {spread:.0f} apart): one may "
                         f"show a hand, another card or the table; register again from clear images of the back")
        for other, theirs in self.backs.items():
            if other == owner:
                continue
            near = min(distance(a, b) for a in mine for b in theirs)
            if near < SIMILAR_DIST:
                notes.append(f"{owner}'s back is close to {other}'s (colours {near:.0f} apart): the two may be "
                             f"taken for each other; decks of clearly different colours are safer")
        return notes

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

    def _assign(self, image: np.ndarray, box: Box | None) -> _Pixels:
        """The box's pixels, each with the nearest owner within tau."""
        lab = normalised_lab(image, box)
        shape = lab.shape[:2]
        lab = lab.reshape(-1, 3)
        keep = _not_white(lab)
        nearest = np.full(len(lab), -1)
        if self.backs and keep.any():
            dist = np.stack([(_distances(lab[keep], p) * _blur_scale(len(p))).min(axis=1) for p in self._variants()], axis=1)
            nearest[keep] = np.where(dist.min(axis=1) < self.tau, dist.argmin(axis=1), -1)
        return _Pixels(nearest, _centre_weights(*shape), keep, lab, shape)

    def _variants(self) -> list[np.ndarray]:
        """Each owner's prototypes with their blurred variants (recomputed only when a back changes)."""
        key = tuple((n, p.tobytes()) for n, p in self.backs.items())
        if self._protos_key != key:
            self._protos = [with_blur(p) for p in self.backs.values()]
            self._protos_key = key
        return self._protos

    def _tally(self, image: np.ndarray, box: Box | None, px: _Pixels,
               others: Sequence[tuple[Box, str]]) -> tuple[dict[str, float], float]:
        """Vote shares per owner, and the share of the main cluster of pixels that voted for
        nobody (pixels inside another box are left out of it: they are that card's)."""
        names = list(self.backs)
        if not names or not px.keep.any():
            return {n: 0.0 for n in names}, 0.0
        weights = px.weights
        covered = np.zeros(len(px.nearest), bool)
        if len(others):
            index = {n: i for i, n in enumerate(names)}
            explained = np.zeros(len(px.nearest), bool)
            for other_box, owner in others:
                inside = _covered(image.shape, box, other_box, px.shape)
                covered |= inside
                if owner in index:
                    explained |= inside & (px.nearest == index[owner])
            weights = np.where(explained, OVERLAP_WEIGHT * weights, weights)
        voted = px.nearest >= 0
        total = max(float(weights[px.keep].sum()), 1e-9)
        counts = np.bincount(px.nearest[voted], weights=weights[voted], minlength=len(names)) / total
        unmatched = px.keep & ~voted & ~covered
        share = 0.0
        if unmatched.sum() >= 5 and counts.max() > 0:
            mass, centre = _main_cluster(px.lab[unmatched], weights[unmatched])
            winner = self._variants()[int(counts.argmax())]
            if _distances(centre[None], winner).min() > self.unmatched_dist:  # not the winner's print, drifted
                share = mass / total
        return {n: float(c) for n, c in zip(names, counts)}, share

    def votes(self, image: np.ndarray, box: Box | None = None, others: Sequence[tuple[Box, str]] = ()) -> dict[str, float]:
        """Centre-weighted share of the box's non-white pixels nearest to each owner (within tau).

        ``others``: (box, owner) of the frame's other backs. A pixel that votes for the owner of
        another box covering it is most likely that card lying across this one (piles and fans
        cover each other's boxes), so it weighs only OVERLAP_WEIGHT."""
        return self._tally(image, box, self._assign(image, box), others)[0]

    def _decide(self, tally: tuple[dict[str, float], float]) -> BackMatch:
        votes, unmatched = tally
        ranked = sorted(votes.items(), key=lambda kv: -kv[1])
        if not ranked:
            return BackMatch(UNKNOWN, 0.0)
        best, share = ranked[0]
        second, second_share = ranked[1] if len(ranked) > 1 else (None, 0.0)
        if share < self.min_share or share < self.min_ratio * second_share or unmatched > self.max_unmatched * share:
            return BackMatch(UNKNOWN, share, best, share if second is None else second_share)
        return BackMatch(best, share, second, second_share)

    def classify(self, image: np.ndarray, box: Box | None = None, others: Sequence[tuple[Box, str]] = ()) -> BackMatch:
        """The owner of the back in ``box`` of ``image`` (whole image when None), or ``unknown``.
        ``others``: (box, owner) of the frame's other backs, if known (see :meth:`classify_frame`)."""
        return self._decide(self._tally(image, box, self._assign(image, box), others))

    def classify_frame(self, image: np.ndarray, boxes: Sequence[Box]) -> list[BackMatch]:
        """Owners of all the backs found in one frame. Each back is read alone first; then again
        with the pixels that another box's owner explains (a card lying across it) discounted,
        and with every other box's pixels left out of the unmatched cluster."""
        boxes = list(boxes)
        measured = [self._assign(image, b) for b in boxes]
        first = [self._decide(self._tally(image, b, px, ())) for b, px in zip(boxes, measured)]
        return [self._decide(self._tally(image, b, px, [(o, m.owner) for j, (o, m) in enumerate(zip(boxes, first)) if j != i]))
                for i, (b, px) in enumerate(zip(boxes, measured))]

    # persistence -----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "tau": self.tau,
            "min_share": self.min_share,
            "min_ratio": self.min_ratio,
            "max_unmatched": self.max_unmatched,
            "unmatched_dist": self.unmatched_dist,
            "backs": [
                {"owner": name, "lab": [[round(float(v), 3) for v in row] for row in protos],
                 "preview_bgr": [int(v) for v in _lab_to_bgr(np.median(protos, axis=0))]}
                for name, protos in self.backs.items()
            ],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "BackRegistry":
        fmt = data.get("format") if isinstance(data, dict) else None
        if isinstance(fmt, str) and fmt.startswith("nerts-backs/") and fmt not in READABLE_FORMATS:
            raise BackError(f"back registry format {fmt!r} is not readable by this version "
                            f"(reads {', '.join(READABLE_FORMATS)}): upgrade nerts-referee or re-register the backs")
        if fmt not in READABLE_FORMATS:
            raise BackError(f"not a back registry (expected format {FORMAT!r})")
        thresholds = ("tau", "min_share", "min_ratio", "max_unmatched", "unmatched_dist")
        if fmt != FORMAT:  # older measurements: the thresholds of this version apply
            data = {k: v for k, v in data.items() if k not in thresholds}
        reg = cls()
        try:
            for name in thresholds:
                setattr(reg, name, float(data.get(name, getattr(reg, name))))
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
