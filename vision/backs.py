"""Card backs and their owners: register each player's back colour, classify a back to its owner.

Every player brings their own deck, so the back of a face-down card names whose it is. The close
pairs (blue/navy, red/maroon, aqua/teal, lime/green, yellow/olive) have the same hue and differ
only in how dark the print is *relative to the paper*: under a lamp, in a shadow or through a
tinted camera, navy in good light is as bright as blue in poor light. So a back is read as the
colour its print would have under white light, judged against the white of the card itself:

- the camera's colour cast is one per frame: it is read from the frame's bright, near-neutral,
  unclipped pixels (card faces, back borders: the brightness-weighted mode of their
  chromaticities, not a pale table's) and divided out (:func:`frame_cast`);
- the back network (``models/cards_backs.onnx``, recipe ``models/recipe/train_backs.py``) looks
  at the back's box with a margin around it (its white border and pattern, the paper and table
  beside it: :func:`back_patch`) and estimates the print's Lab colour. It was trained on rendered
  backs of random colours under uneven light, shadows, glare, hands, overlapping cards, blur,
  noise and JPEG, which is where a hand-made estimate of the white failed (a small or blurred
  back's border never reaches the paper's level: navy read blue, maroon red).

Registering keeps one estimate per image (or the nominal colour of the table settings, the
network's own target); a back then belongs to the owner whose colour is nearest its estimate, if
that is within ``tau`` (Lab units) and at least ``min_gap`` nearer than the next owner's;
otherwise it is ``unknown`` (rejection, not a guess: an unregistered deck, or a back read too
poorly to tell two registered colours apart).

>>> import numpy as np
>>> reg = BackRegistry()
>>> _ = reg.register_colour("ana", "red"); _ = reg.register_colour("ben", "blue")
>>> card = np.full((140, 100, 3), 255, np.uint8); card[8:-8, 8:-8] = (40, 40, 200); card[12:-12:6, 12:-12] = 255
>>> table = np.full((300, 300, 3), (60, 95, 135), np.uint8); table[80:220, 100:200] = card
>>> reg.classify(table, (100, 80, 200, 220)).owner, reg.classify(table[:, :, ::-1], (100, 80, 200, 220)).owner
('ana', 'ben')
>>> green = table.copy(); green[95:205, 115:185] = (40, 160, 40)
>>> reg.classify(green, (100, 80, 200, 220)).owner
'unknown'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

UNKNOWN = "unknown"
FORMAT = "nerts-backs/4"
# /1-/3 files hold the print colours a hand-made estimate read (the same quantity, Lab relative to
# the paper, measured less well): they load with this version's thresholds; re-registering
# (``decks register``) is better.
READABLE_FORMATS = ("nerts-backs/1", "nerts-backs/2", "nerts-backs/3", FORMAT)
MODEL_FILE = "cards_backs.onnx"
TURNS = 4  # quarter turns of each patch the network reads (their answers are averaged)
SIDE = 64  # a box is checked at most SIDE px on its long side for print (any non-white pixel)
# Registration checks (BackRegistry.check): on rendered tables one back's clear sightings lie 4.6
# Lab units from their median (13 at the 95th percentile) and two of them up to ~27 apart; the
# french-pattern close pairs lie 30 (gray/teal) to 57 (blue/navy) apart. Backs nearer than the
# registry's tau (25) can be taken for each other.
DISAGREE_DIST, SIMILAR_DIST = 30.0, 25.0

Box = Sequence[float]


class BackError(ValueError):
    """A back that cannot be measured (empty crop, not an image) or a bad registry file."""


def _bounds(image: np.ndarray, box: Box | None) -> tuple[int, int, int, int]:
    """Pixel bounds (xa, ya, xb, yb) of the box in the image (whole image when None); a BackError
    for anything that is not a BGR image or a box too small to read."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BackError(f"a back image must be BGR uint8 (h, w, 3), got "
                        f"{getattr(image, 'dtype', type(image).__name__)} {getattr(image, 'shape', '')}")
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (0.0, 0.0, float(w), float(h)) if box is None else (float(v) for v in box)
    xa, xb = int(max(0, round(x0))), int(min(w, round(x1)))
    ya, yb = int(max(0, round(y0))), int(min(h, round(y1)))
    if xb - xa < 3 or yb - ya < 3:
        raise BackError(f"back box {tuple(round(float(v), 1) for v in (x0, y0, x1, y1))} is empty or too small")
    return xa, ya, xb, yb


def _crop(image: np.ndarray, box: Box | None) -> np.ndarray:
    """The box (whole image when None), subsampled to at most SIDE px, float32 BGR."""
    xa, ya, xb, yb = _bounds(image, box)
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


# The back network's input (``cards_backs.onnx``): the box grown by PATCH_MARGIN of its size on
# each side (the back's white border and the paper around it are the white the print is read
# against), divided by the frame's colour cast, resized to PATCH_SIDE x PATCH_SIDE, RGB in 0..1.
PATCH_SIDE, PATCH_MARGIN = 48, 0.12
PHOTO_SURROUND = (114, 114, 114)  # what a photo of the back alone is framed in: a neutral table


def back_patch(image: np.ndarray, box: Box | None = None) -> np.ndarray:
    """The network's view of one back: (PATCH_SIDE, PATCH_SIDE, 3) float32 RGB in 0..1. With no
    box the image is the back (a photo of it alone), framed in a neutral surround as a box's
    margin would show the table."""
    _bounds(image, box)  # validates the image and the box
    cast = frame_cast(image)
    h, w = image.shape[:2]
    if box is None:
        mx, my = int(round(PATCH_MARGIN * w)), int(round(PATCH_MARGIN * h))
        crop = cv2.copyMakeBorder(image, my, my, mx, mx, cv2.BORDER_CONSTANT, value=PHOTO_SURROUND)
    else:
        x0, y0, x1, y1 = (float(v) for v in box)
        mx, my = PATCH_MARGIN * (x1 - x0), PATCH_MARGIN * (y1 - y0)
        xa, xb = int(max(0, round(x0 - mx))), int(min(w, round(x1 + mx)))
        ya, yb = int(max(0, round(y0 - my))), int(min(h, round(y1 + my)))
        crop = image[ya:yb, xa:xb]
    crop = cv2.resize(crop, (PATCH_SIDE, PATCH_SIDE), interpolation=cv2.INTER_AREA)
    crop = crop.astype(np.float32) / (255.0 * cast)
    return np.clip(crop[:, :, ::-1], 0.0, 1.0)


def _has_print(image: np.ndarray, box: Box | None) -> bool:
    """Whether the box holds any print at all (not a blank sheet of paper)."""
    px = _crop(image, box).reshape(-1, 3)
    return int(((px.max(axis=1) < 200) | (px.max(axis=1) - px.min(axis=1) > 40)).sum()) >= 5


def nominal_lab(colour_bgr: Sequence[float]) -> np.ndarray:
    """Lab (L 0..100) of a print colour given as BGR 0..255: what the back network estimates."""
    px = np.asarray(colour_bgr, np.float32).reshape(1, 1, 3) / 255.0
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)


def colour_descriptor(colour: str) -> np.ndarray:
    """Lab of a named or ``#rrggbb`` colour (a back known only from the table settings), (1, 3)."""
    from simulator.deck_art import colour_bgr

    return nominal_lab(colour_bgr(colour))[None, :]


class BackNet:
    """The back network run with onnxruntime: patches in, print colours (Lab) out."""

    def __init__(self, path: str | Path | None = None, threads: int | None = None):
        import onnxruntime as ort

        if path is None:
            from vision.detector import default_model_dir

            path = default_model_dir() / MODEL_FILE
        self.path = Path(path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as the detector's sessions
        try:
            self.session = ort.InferenceSession(str(self.path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types for missing/corrupt files
            raise BackError(f"cannot load the back network {self.path}: {exc}") from exc
        self._input = self.session.get_inputs()[0].name

    def estimate(self, image: np.ndarray, boxes: Sequence[Box | None]) -> np.ndarray:
        """(n, 3) Lab print colour of each box's back (whole image for None): the mean of the
        network's answers for the patch at its four quarter turns (a back's print does not depend
        on which way it lies; the turns' errors are partly independent)."""
        if not len(boxes):
            return np.zeros((0, 3))
        x = np.stack([back_patch(image, b) for b in boxes]).transpose(0, 3, 1, 2)
        turns = np.concatenate([np.rot90(x, k, axes=(2, 3)) for k in range(TURNS)])
        out = self.session.run(None, {self._input: np.ascontiguousarray(turns, np.float32)})[0].astype(np.float64)
        return out.reshape(TURNS, len(boxes), 3).mean(axis=0)


_NETS: dict[str, BackNet] = {}


def back_net(path: str | Path | None = None) -> BackNet:
    """One loaded network per file, shared (a session is safe to run from several threads)."""
    key = str(path)
    if key not in _NETS:
        _NETS[key] = BackNet(path)
    return _NETS[key]


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """Colour difference (CIE76, Lab units) between two Lab colours, as the registry measures it."""
    return float(np.linalg.norm(np.asarray(a, float).reshape(3) - np.asarray(b, float).reshape(3)))


@dataclass
class BackMatch:
    owner: str  # a registered owner or UNKNOWN
    distance: float  # Lab units from the back's estimated colour to the owner's (or the nearest owner's)
    runner_up: str | None = None
    runner_up_distance: float | None = None
    colour: tuple[float, float, float] | None = None  # the estimated print colour (Lab)

    @property
    def known(self) -> bool:
        return self.owner != UNKNOWN


@dataclass
class BackRegistry:
    """Registered backs: owner -> print colours (Lab, one row per registration image)."""

    backs: dict[str, np.ndarray] = field(default_factory=dict)
    tau: float = 25.0  # farthest a back may be from its owner's colour
    min_gap: float = 3.0  # how much nearer the owner's colour must be than the next owner's
    model: str | None = None  # the back network's file (None: the shipped one)

    def estimate(self, image: np.ndarray, boxes: Sequence[Box | None]) -> np.ndarray:
        """(n, 3) estimated print colours (Lab) of the backs in ``boxes`` (a BackError for a bad
        image or box, from :func:`back_patch`, before the network runs)."""
        return back_net(self.model).estimate(image, list(boxes))

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
        for img, box in zip(images, box_list):
            if not _has_print(img, box):
                raise BackError("no coloured pixels in the back box (a blank or white image?)")
        self.backs[owner] = np.concatenate([self.estimate(img, [box]) for img, box in zip(images, box_list)])
        return self.backs[owner]

    def check(self, owner: str) -> list[str]:
        """What may go wrong with ``owner``'s registration, in words (empty: nothing seen):

        - its images disagree by more than DISAGREE_DIST (one back's clear sightings agree within ~27):
          one of them may show a hand, another card or the table;
        - its back is within SIMILAR_DIST of another owner's: the two may be taken for each other.
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

    def match(self, colour: np.ndarray) -> BackMatch:
        """The owner of a back whose print was estimated as ``colour`` (Lab), or ``unknown``."""
        colour = np.asarray(colour, float).reshape(3)
        found = tuple(round(float(v), 2) for v in colour)
        ranked = sorted((float(np.linalg.norm(protos - colour, axis=1).min()), name) for name, protos in self.backs.items())
        if not ranked:
            return BackMatch(UNKNOWN, float("inf"), colour=found)
        (d1, best), (d2, second) = ranked[0], ranked[1] if len(ranked) > 1 else (float("inf"), None)
        owner = best if d1 <= self.tau and d2 - d1 >= self.min_gap else UNKNOWN
        return BackMatch(owner, d1, best if owner == UNKNOWN else second, d1 if owner == UNKNOWN else
                         (None if second is None else d2), found)

    def classify(self, image: np.ndarray, box: Box | None = None) -> BackMatch:
        """The owner of the back in ``box`` of ``image`` (whole image when None), or ``unknown``."""
        return self.classify_frame(image, [box])[0]

    def classify_frame(self, image: np.ndarray, boxes: Sequence[Box | None]) -> list[BackMatch]:
        """Owners of all the backs found in one frame (one network call for all of them)."""
        if not self.backs:
            for b in boxes:
                _bounds(image, b)  # bad input is an error even with nobody registered
            return [BackMatch(UNKNOWN, float("inf")) for _ in boxes]
        return [self.match(c) for c in self.estimate(image, list(boxes))]

    # persistence -----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "tau": self.tau,
            "min_gap": self.min_gap,
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
        thresholds = ("tau", "min_gap")
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
