"""Where sightings come from: the trained detector, or (for development) the simulator's truth.

Both turn one frame into :class:`vision.tracking.TableSighting` lists in table millimetres.

- :class:`DetectorSightings` runs ``vision.detector`` on the rectified table at the scale it was
  trained at (see the class for why and how: patches of what changed, packed into 416 px views).
  The detector finds printed corner indices; the two indices of one card (same identity, less
  than a card's diagonal apart) are merged into one sighting at their midpoint, the card's
  centre; a lone index is placed at the centre from the pair last seen there or from which way
  up it reads. Its confidences are calibrated (:func:`calibrated`) to the scale the tracker and
  the play reader use.
- :class:`PoseSightings` reads the simulator's ``poses.jsonl`` (each visible card's identity, owner,
  image quad and occluded fraction per frame) and reports those cards as a detector would: with
  position noise, missed detections under occlusion and occasional misreads, so that tracking,
  contact timing and attribution are proven independently of the detector.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Protocol

import numpy as np

from vision.calibrate import Calibration, Rectifier
from vision.tracking import TableSighting

CARD_DIAGONAL_MM = 108.0
CARD_MM = (63.0, 88.0)
INDEX_TO_CENTRE_MM = (24.8, 31.4)
"""From the centre of an upright card's top-left corner index to the card's centre (63x88 mm card,
index ~7 mm from the side and ~13 mm from the top; most decks are within a few mm of this)."""


class SightingSource(Protocol):
    def sightings(self, index: int, t: float, image: np.ndarray, calibration: Calibration,
                  rectifier: Rectifier, changed_mm: list[tuple[float, float, float, float]] | None = None,
                  watch_mm: list[tuple[float, float, float, float]] | None = None) -> list[TableSighting]: ...


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return default


BoxMM = tuple[float, float, float, float]


@dataclass(frozen=True)
class Patch:
    """A piece of the table (``region_mm``) warped at ``px_per_mm`` into a canvas at ``(ox, oy)``."""

    region_mm: BoxMM
    ox: int
    oy: int
    w: int
    h: int
    inner: tuple[bool, bool, bool, bool]  # which sides (left, top, right, bottom) cut the table region


@dataclass
class IndexSeen:
    """One named corner index in table mm (before the two indices of a card are paired)."""

    label: str
    confidence: float
    x: float
    y: float
    w: float  # box size, mm
    h: float
    owner: str | None = None
    turn: int | None = None  # quarter turns (clockwise on the table) of the printed index, if known
    source: tuple[int, tuple[float, float, float, float]] | None = None  # (canvas, box px) it was found in


def _merge_boxes(boxes: list[list[float]], join_mm: float) -> list[list[float]]:
    """Union of boxes that overlap or lie within ``join_mm`` of each other (until none do)."""
    boxes = [list(b) for b in boxes]
    merged = True
    while merged and len(boxes) > 1:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] - join_mm <= b[2] and b[0] - join_mm <= a[2] and a[1] - join_mm <= b[3] and b[1] - join_mm <= a[3]:
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def _inside(a: BoxMM, b: BoxMM) -> bool:
    """Whether box ``a`` lies within box ``b``."""
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def plan_patches(boxes_mm: list[BoxMM], region_mm: BoxMM, px_per_mm: float, canvas: int = 416,
                 margin_mm: float = 40.0, overlap_mm: float = 30.0, gap_px: int = 6) -> list[list[Patch]]:
    """Cover ``boxes_mm`` (each grown by ``margin_mm``, clipped to ``region_mm``) with patches at
    ``px_per_mm`` packed into ``canvas`` x ``canvas`` views: one list of patches per detector call.

    The detector sees every patch at the scale it was trained at (never shrunk to fit one input):
    a change too big for one view is cut into pieces that overlap by ``overlap_mm`` (more than an
    index, so every index lies whole in some piece); small changes share one view (shelf packing,
    ``gap_px`` of grey between them so no crop reaches into a neighbour)."""
    if px_per_mm <= 0 or canvas < 32:
        raise ValueError("px_per_mm must be > 0 and the canvas at least 32 px")
    rx0, ry0, rx1, ry1 = region_mm
    grown = []
    for b in boxes_mm:
        g = [max(b[0] - margin_mm, rx0), max(b[1] - margin_mm, ry0), min(b[2] + margin_mm, rx1), min(b[3] + margin_mm, ry1)]
        if g[2] > g[0] and g[3] > g[1]:
            grown.append(g)
    side_mm = (canvas - 2 * gap_px) / px_per_mm
    pieces: list[BoxMM] = []
    for x0, y0, x1, y1 in _merge_boxes(grown, 0.0):
        nx = max(1, math.ceil((x1 - x0 - overlap_mm) / (side_mm - overlap_mm)))
        ny = max(1, math.ceil((y1 - y0 - overlap_mm) / (side_mm - overlap_mm)))
        pw, ph = min((x1 - x0 + (nx - 1) * overlap_mm) / nx, side_mm), min((y1 - y0 + (ny - 1) * overlap_mm) / ny, side_mm)
        for i in range(nx):
            for j in range(ny):
                px0 = x0 + i * (pw - overlap_mm) if nx > 1 else x0
                py0 = y0 + j * (ph - overlap_mm) if ny > 1 else y0
                pieces.append((px0, py0, min(px0 + pw, x1), min(py0 + ph, y1)))
    # shelf packing, tallest first
    pieces.sort(key=lambda p: -(p[3] - p[1]))
    views: list[list[Patch]] = []
    x = y = shelf_h = 0
    for p in pieces:
        w = max(int(math.ceil((p[2] - p[0]) * px_per_mm)), 1)
        h = max(int(math.ceil((p[3] - p[1]) * px_per_mm)), 1)
        if not views or x + w + gap_px > canvas:
            x, y, shelf_h = 0, y + shelf_h, 0
        if not views or y + h + gap_px > canvas:
            views.append([])
            x, y, shelf_h = 0, 0, 0
        inner = (p[0] > rx0 + 1e-6, p[1] > ry0 + 1e-6, p[2] < rx1 - 1e-6, p[3] < ry1 - 1e-6)
        views[-1].append(Patch(p, x + gap_px, y + gap_px, w, h, inner))
        x += w + gap_px
        shelf_h = max(shelf_h, h + gap_px)
    return views


class LookWaits:
    """How long each part of the table (square cells of ``cell_mm``) has waited for the detector:
    since it was first asked to look there (a change, a spot settling, a card waiting for reads)
    without looking. The asks go away when no longer asked, and end when looked at."""

    def __init__(self, region_mm: BoxMM, cell_mm: float = 40.0) -> None:
        self.region_mm = tuple(float(v) for v in region_mm)
        self.cell_mm = cell_mm
        nx = max(1, math.ceil((self.region_mm[2] - self.region_mm[0]) / cell_mm))
        ny = max(1, math.ceil((self.region_mm[3] - self.region_mm[1]) / cell_mm))
        self._since = np.full((ny, nx), np.nan)  # when first asked for and not looked at since

    def _cells(self, box: BoxMM) -> tuple[slice, slice]:
        """The cells whose centres lie in ``box`` (at least the one under its centre)."""
        x0, y0 = self.region_mm[:2]
        c = self.cell_mm
        ny, nx = self._since.shape
        i0 = min(max(math.ceil((box[0] - x0) / c - 0.5), 0), nx - 1)
        j0 = min(max(math.ceil((box[1] - y0) / c - 0.5), 0), ny - 1)
        i1 = max(min(math.floor((box[2] - x0) / c - 0.5), nx - 1), i0)
        j1 = max(min(math.floor((box[3] - y0) / c - 0.5), ny - 1), j0)
        return slice(j0, j1 + 1), slice(i0, i1 + 1)

    def asked(self, boxes: Iterable[BoxMM], t: float) -> None:
        """This call is asked to look at ``boxes``: they wait from now unless already waiting;
        every other part stops waiting."""
        wanted = np.zeros(self._since.shape, bool)
        for b in boxes:
            wanted[self._cells(b)] = True
        self._since = np.where(wanted, np.fmin(self._since, t), np.nan)

    def waited(self, box: BoxMM, t: float) -> float:
        """Seconds the part of ``box`` waiting longest has waited (0 when none waits)."""
        since = np.nanmin(self._since[self._cells(box)], initial=np.inf)
        return max(0.0, float(t - since)) if np.isfinite(since) else 0.0

    def looked(self, box: BoxMM) -> None:
        self._since[self._cells(box)] = np.nan


def tile_region(region_mm: BoxMM, px_per_mm: float, canvas: int = 416, overlap_mm: float = 30.0) -> list[BoxMM]:
    """The whole region as canvas-sized pieces (a full look, spread over several calls)."""
    return [p.region_mm for v in plan_patches([region_mm], region_mm, px_per_mm, canvas, 0.0, overlap_mm) for p in v]


class DetectorSightings:
    """The trained detector (``vision.detector.Detector``) on the rectified table.

    Why it looks the way it does (measured on a simulated dev clip, drawn deck): the detector
    was trained on views where a card is ~35-65 px wide at its 416 px input; the rectified area
    with its margin (~1000 x 650 mm at 0.8 px/mm) squeezed into one 416 px input makes a card ~25
    px wide and an index ~5 x 10 px: 22% of the face-up cards in view were read right (68% of
    those lying in the common area), against 83-90% (100%) in 416 px tiles at 1.2-1.6 px/mm. So
    the table is rectified at ``px_per_mm`` (1.2: a card ~75 px, an index ~12 x 20 px, where the
    classifier is also surer than at 1.0) and the detector is given canvas-sized patches at that
    scale, never shrunk:

    - while the table moves, only the changed parts (plus ``crop_margin_mm``) are looked at,
      packed together into as few 416 px canvases as they fit in;
    - a full look (the whole area, canvas by canvas, one extra piece per call) is spread over
      ``full_every_s`` so the piles are re-read without a burst of calls;
    - ``stride``: the detector runs on every ``stride``-th frame that has anything to look at
      (what changed since its last look there, what just settled, landed cards waiting for
      reads, the full look).

    The two indices of a card are paired into one sighting at the card's centre; a lone index
    (the other covered by a hand or the card above) is moved to where the card's centre is, from
    the pair last seen there, else from which way up the index reads.
    """

    def __init__(self, detector: Any, min_confidence: float = 0.3, px_per_mm: float = 1.2,
                 full_every_s: float = 2.0, crop_margin_mm: float = 45.0, stride: int = 3,
                 canvas: int = 416, max_calls: int = 2) -> None:
        if stride < 1 or max_calls < 1:
            raise ValueError("stride and max_calls must be at least 1")
        self.detector = detector
        self.min_confidence = min_confidence
        self.px_per_mm = px_per_mm
        self.full_every_s = full_every_s
        # sightings carry calibrated confidences (see :func:`calibrated`), on the scale the pose
        # source uses; pooled reads of a card at rest that agree score 0.5-0.55 when a hand's blur
        # or a neighbour's misread fragment pulls the mean down (dev clips 4242/4343: every such
        # card was read right), so the floor sits a little lower than the pose source's 0.55
        self.min_play_confidence = 0.5
        # It reads a spot every `stride`-th frame: three still reads take 0.2-0.3 s and four reads
        # before a card's confidence counts in full 0.3-0.4 s, most of the delay to a ruling; two
        # still reads 0.1 s apart are as telling at this pace (a read illegal on its pile is still
        # looked at for 0.5 s before it is ruled, and a weak one flagged).
        # A landing is made on the stride's second still read, 0.1 s after the first: the reader's
        # 0.1 s confirm wait then held it one frame more (three frames at 30 fps add up to a hair
        # under 0.1 s), a frame in which this source reads nothing new (60 s dev clips: 20 of 68
        # ordinary plays). With every frame read (the pose source) that frame may show a rival copy
        # landing: its wait stays.
        # (Stride 2 was tried in session 19 on 24 fresh dev clips: ordinary plays ruled 206 ms after
        # contact instead of 307 (median) and rounds exact 11 -> 14, but plays 562 -> 559 and
        # phantoms 12 -> 18, for ~25% more CPU: the reader's waits are set for this pace; see
        # docs/pipeline.md, Figures, session 19.)
        self.reader_settings = {"rest_frames": 2, "support_reads": 2, "confirm_s": 0.09}
        self.crop_margin_mm = crop_margin_mm
        self.stride = stride
        self.canvas = canvas
        self.max_calls = max_calls  # detector calls per frame at most (a full look waits, moves do not)
        self.calls = 0  # detector calls
        self.frames = 0  # frames looked at
        self._skipped = 0
        self._full_queue: list[BoxMM] = []
        self._recent: list[tuple[BoxMM, float]] = []  # changed boxes of the last moments
        self.recent_s = 0.5
        self.pair_memory_s = 3.0
        self.orient_inset_mm = 60.0
        self._turn = 0
        self._waits: LookWaits | None = None
        # A view waited on this long goes before the turn's: three looks (0.3 s at stride 3) is
        # longer than a turn over the usual few views takes
        self.max_wait_s = 0.3
        self._last_full: float | None = None
        self._pairs: dict[str, list[tuple[float, float, float, float, float]]] = {}  # label -> (ix, iy, cx, cy, t)
        self.looked_mm: list[BoxMM] = []  # where the last call looked (table mm)

    @classmethod
    def load(cls, weights: str | None = None, backs: dict[str, str] | None = None, cls_conf: float = 0.3,
             **kwargs: Any) -> "DetectorSightings":
        """The shipped (or given) weights; ``backs`` (player -> back colour from the table config)
        lets face-down cards name their owner, the independent check of attribution."""
        from vision.detector import Detector  # the detector area's module

        # The classifier's own floor (``cls_conf``, chosen for single photographs) would drop
        # reads of clear indices it is unsure between two suits of; here reads are pooled over
        # many frames and the product score is thresholded instead (``min_confidence``).
        det = Detector.load(weights, cls_conf=cls_conf)
        if backs:
            from vision.backs import BackRegistry

            registry = BackRegistry()
            for owner, colour in backs.items():
                try:
                    registry.register_colour(owner, colour)
                except ValueError:
                    continue  # a back named in a way the colour table does not know: arm cue only
            det.backs = registry if registry.backs else None
        return cls(det, **kwargs)

    def sightings(self, index: int, t: float, image: np.ndarray, calibration: Calibration,
                  rectifier: Rectifier, changed_mm: list[tuple[float, float, float, float]] | None = None,
                  watch_mm: list[tuple[float, float, float, float]] | None = None) -> list[TableSighting]:
        """Sightings in this frame (``[]`` on a frame skipped by ``stride``).

        ``changed_mm``: what changed since the detector last looked there (the pipeline's motion
        gate, see :meth:`vision.motion.MotionGate.fresh`); ``watch_mm``: where a landed card waits
        for more reads before it is ruled (looked at again while still); :attr:`looked_mm` says
        afterwards where it looked in this frame (empty when it did not)."""
        region = rectifier.region_mm
        area = (region[2] - region[0]) * (region[3] - region[1])
        changed = [tuple(float(v) for v in b) for b in changed_mm or ()]
        self.looked_mm = []
        self._recent = [r for r in self._recent if t - r[1] <= self.recent_s]
        if sum((b[2] - b[0]) * (b[3] - b[1]) for b in changed) > 0.6 * area:
            # (nearly) everything changed: the first frame, a new calibration, light switched on,
            # two arms meeting across the table. A full look already under way goes on: restarted
            # on every such frame it would look at its first piece only, while what it never looks
            # at stays "changed" (dev clip 5487: two arms met, and nothing was read for 50 s)
            if not self._full_queue:
                self._full_queue = tile_region(region, self.px_per_mm, self.canvas)
                self._last_full = t
                self._recent = []
            changed = []
        elif not self._full_queue and (self._last_full is None or t - self._last_full >= self.full_every_s):
            self._full_queue = tile_region(region, self.px_per_mm, self.canvas)
            self._last_full = t
        # where to look: what changed since the last look, and what changed a moment ago (cards
        # settling under the hands' withdrawal: a landing needs a few still reads), plus one piece
        # of the full look. Every `stride`-th frame only: the table moves a few mm per frame.
        look = changed + [b for b, _ in self._recent] + [tuple(float(v) for v in b) for b in watch_mm or ()]
        if not look and not self._full_queue:
            return []
        self._skipped += 1
        if self._skipped < self.stride:
            return []
        self._skipped = 0
        self.frames += 1
        if changed:  # looked at now: kept as "recent" (merged, so the list stays short)
            self._recent = [(tuple(b), t) for b in _merge_boxes([list(b) for b in changed], 0.0)] + \
                [r for r in self._recent if not any(_inside(r[0], c) for c in changed)]
        views = plan_patches(look, region, self.px_per_mm, self.canvas, self.crop_margin_mm) if look else []
        if len(views) > self.max_calls:
            views = plan_patches(look, region, self.px_per_mm, self.canvas, self.crop_margin_mm / 2)
        if self._waits is None or self._waits.region_mm != tuple(float(v) for v in region):
            self._waits = LookWaits(region)
        self._waits.asked([p.region_mm for v in views for p in v], t)
        if len(views) > self.max_calls:
            # more moving than one frame's calls can cover: take turns, so every part is seen; the
            # turn counts places in a list that changes from frame to frame as arms come and go,
            # so a view that has waited too long goes first (fresh clip 5611: the turn passed a
            # contested 4C over for 0.6 s after the hands had left it, and it never landed)
            self._turn = (self._turn + self.max_calls) % len(views)
            turn = [views[(self._turn + k) % len(views)] for k in range(len(views))]
            views = sorted(turn, key=self._lateness(t))[:self.max_calls]  # (stable: the rest keep the turn)
        if self._full_queue and (not views or not changed and len(views) < self.max_calls):
            views.append(plan_patches([self._full_queue.pop(0)], region, self.px_per_mm, self.canvas, 0.0)[0])
        found: list[IndexSeen] = []
        canvases: list[np.ndarray] = []
        for patches in views:
            self.looked_mm += [p.region_mm for p in patches]
            canvas = self._canvas(image, calibration, patches)
            canvases.append(canvas)
            found += self._detect(canvas, patches, len(canvases) - 1)
        for b in self.looked_mm:
            self._waits.looked(b)
        return self.pair(found, t, canvases, region)

    def _lateness(self, t: float):
        """Sort key for views: those waited on ``max_wait_s`` or more first, longest wait first;
        the others equal (0)."""
        def key(view: list[Patch]) -> float:
            waited = max(self._waits.waited(p.region_mm, t) for p in view)
            return -waited if waited >= self.max_wait_s else 0.0
        return key

    def _canvas(self, image: np.ndarray, calibration: Calibration, patches: list[Patch]) -> np.ndarray:
        """The patches warped from the camera image straight into one canvas (grey elsewhere)."""
        import cv2

        canvas = np.full((self.canvas, self.canvas, 3), 114, np.uint8)
        s = self.px_per_mm
        for p in patches:
            M = np.array([[s, 0, -p.region_mm[0] * s], [0, s, -p.region_mm[1] * s], [0, 0, 1]]) @ calibration.H
            canvas[p.oy:p.oy + p.h, p.ox:p.ox + p.w] = cv2.warpPerspective(image, M, (p.w, p.h), flags=cv2.INTER_LINEAR)
        return canvas

    def _detect(self, canvas: np.ndarray, patches: list[Patch], canvas_id: int) -> list[IndexSeen]:
        self.calls += 1
        s = self.px_per_mm
        out = []
        for d in self.detector.detect(canvas):
            label = _get(d, "identity", "label", "name", "card")
            box = _get(d, "box", "xyxy", "bbox")
            if label is None or box is None:
                continue
            conf = float(_get(d, "confidence", "score", default=1.0))
            if conf < self.min_confidence:
                continue
            label = str(label).upper()
            bx0, by0, bx1, by1 = (float(v) for v in box)
            cx, cy = (bx0 + bx1) / 2, (by0 + by1) / 2
            for p in patches:
                if not (p.ox <= cx < p.ox + p.w and p.oy <= cy < p.oy + p.h):
                    continue
                # an index cut by a piece's inner edge lies whole in the neighbouring piece
                cut = (p.inner[0] and bx0 <= p.ox + 1.5, p.inner[1] and by0 <= p.oy + 1.5,
                       p.inner[2] and bx1 >= p.ox + p.w - 1.5, p.inner[3] and by1 >= p.oy + p.h - 1.5)
                if label != "BACK" and any(cut):
                    break
                out.append(IndexSeen(label, calibrated(conf), p.region_mm[0] + (cx - p.ox) / s, p.region_mm[1] + (cy - p.oy) / s,
                                     (bx1 - bx0) / s, (by1 - by0) / s, _get(d, "owner"),
                                     source=(canvas_id, (bx0, by0, bx1, by1))))
                break
        return out

    def _orient(self, lone: list[IndexSeen], canvases: list[np.ndarray]) -> None:
        """Which way up each lone index is printed: the quarter turn under which the classifier
        reads its label best. It says where the card's centre lies from that one index."""
        cls = getattr(self.detector, "classify_crops", None)
        names = list(getattr(self.detector, "cls_classes", None) or ())
        size = getattr(self.detector, "cls_size", None)
        if cls is None or not names or size is None:
            return
        from vision.detector import square_crop

        batch, owner = [], []
        for k, s in enumerate(lone):
            if s.source is None or s.label not in names:
                continue
            crop = square_crop(canvases[s.source[0]], s.source[1], int(size))
            for turn in range(4):
                batch.append(np.rot90(crop, turn))  # turned counter-clockwise
                owner.append((k, turn))
        if not batch:
            return
        probs = cls(np.ascontiguousarray(np.stack(batch)))
        best: dict[int, tuple[float, int]] = {}
        for row, (k, turn) in enumerate(owner):
            p = float(probs[row][names.index(lone[k].label)])
            if p > best.get(k, (-1.0, 0))[0]:
                best[k] = (p, turn)
        for k, (_, turn) in best.items():
            lone[k].turn = turn  # read upright after `turn` counter-clockwise: printed turned clockwise

    def pair(self, found: list[IndexSeen], t: float, canvases: list[np.ndarray] | None = None,
             region: BoxMM | None = None) -> list[TableSighting]:
        """Indices → cards: two indices of one identity a card's diagonal apart become one sighting
        at their midpoint; a lone index is placed at the card's centre (see the class docstring)."""
        out = pair_indices(found)
        memory = {k: [m for m in v if t - m[4] <= self.pair_memory_s] for k, v in self._pairs.items()}
        for s, members in out:
            if len(members) == 2:
                for m in members:
                    memory.setdefault(s.label, []).append((m.x, m.y, s.x, s.y, t))
        self._pairs = {k: v[-40:] for k, v in memory.items() if v}
        lone = []
        for s, members in out:
            if len(members) == 1 and s.label != "BACK":
                m = members[0]
                if not any(math.hypot(r[0] - m.x, r[1] - m.y) < 6.0 for r in self._pairs.get(s.label, ())):
                    lone.append(m)
        if lone and canvases and region is not None:
            # only where a card may be on its way to or lying on a pile: a lone index at the edge
            # of the view is mostly a card of a player's layout (the rest of it outside the view)
            m = self.orient_inset_mm
            lone = [s for s in lone if region[0] + m <= s.x <= region[2] - m and region[1] + m <= s.y <= region[3] - m]
            self._orient(lone, canvases)
        result = []
        for s, members in out:
            if len(members) == 1 and s.label != "BACK":
                m = members[0]
                near = [r for r in self._pairs.get(s.label, ()) if math.hypot(r[0] - m.x, r[1] - m.y) < 6.0]
                if near:  # this card was seen whole here a moment ago: its centre is known
                    r = max(near, key=lambda r: r[4])
                    s = TableSighting(s.label, s.confidence, m.x + r[2] - r[0], m.y + r[3] - r[1], s.occluded, s.owner)
                elif m.turn is not None:
                    dx, dy = INDEX_TO_CENTRE_MM
                    for _ in range(m.turn):  # the card lies turned clockwise (y points down the table)
                        dx, dy = -dy, dx
                    s = TableSighting(s.label, s.confidence, m.x + dx, m.y + dy, s.occluded, s.owner)
            result.append(s)
        return result


def index_axis(corners: np.ndarray) -> float:
    """The direction (degrees mod 180) of the line through a card's corner indices, from its
    corners in table mm in the card's own order (top-left, top-right, bottom-right, bottom-left).

    >>> round(index_axis(np.array([[0, 0], [63, 0], [63, 88], [0, 88]], dtype=float)), 1)  # upright
    51.7
    """
    right = corners[1] - corners[0]
    down = corners[3] - corners[0]
    v = INDEX_TO_CENTRE_MM[0] * right / np.linalg.norm(right) + INDEX_TO_CENTRE_MM[1] * down / np.linalg.norm(down)
    return math.degrees(math.atan2(v[1], v[0])) % 180.0


def calibrated(score: float) -> float:
    """The detector's score (detection x classification, 0..1) as the chance that the read is
    right. The raw product runs low: on simulated footage (drawn deck, 1 px/mm) reads of cards in
    a hand's blur scored median 0.5 when right and 0.13 when wrong, with ~70% of reads scoring 0.3
    right and ~100% of reads at rest (0.6-0.85) right; the square root puts those near 0.55, 0.7
    and 0.8-0.9, the scale the tracker and the play reader expect (and the pose source uses)."""
    return math.sqrt(min(max(float(score), 0.0), 1.0))


def pair_indices(found: Iterable[IndexSeen], dedupe_mm: float = 6.0) -> list[tuple[TableSighting, list[IndexSeen]]]:
    """Pair the two indices of each card (same identity, 30 mm to 1.1 card diagonals apart) into
    a sighting at their midpoint; duplicates of one index (seen in two overlapping pieces) count
    once. Returns each sighting with the indices it came from."""
    by_label: dict[str, list[IndexSeen]] = {}
    for d in found:
        by_label.setdefault(d.label, []).append(d)
    out: list[tuple[TableSighting, list[IndexSeen]]] = []
    for label, items in by_label.items():
        items.sort(key=lambda it: -it.confidence)
        uniq: list[IndexSeen] = []
        for it in items:
            if label == "BACK" or all(math.hypot(it.x - u.x, it.y - u.y) >= dedupe_mm for u in uniq):
                uniq.append(it)
        used = [False] * len(uniq)
        for i, a in enumerate(uniq):
            if used[i]:
                continue
            used[i] = True
            if label == "BACK":
                out.append((TableSighting(label, a.confidence, a.x, a.y, owner=a.owner), [a]))
                continue
            best, best_d = None, CARD_DIAGONAL_MM * 1.1
            for j in range(i + 1, len(uniq)):
                if not used[j]:
                    d = math.hypot(uniq[j].x - a.x, uniq[j].y - a.y)
                    if 30.0 < d < best_d:
                        best, best_d = j, d
            if best is not None:
                used[best] = True
                b = uniq[best]
                axis = math.degrees(math.atan2(b.y - a.y, b.x - a.x)) % 180.0
                out.append((TableSighting(label, max(a.confidence, b.confidence), (a.x + b.x) / 2, (a.y + b.y) / 2,
                                          owner=a.owner, axis_deg=axis), [a, b]))
            else:
                out.append((TableSighting(label, a.confidence * 0.9, a.x, a.y, occluded=0.5, owner=a.owner), [a]))
    return out


def merge_indices(found: Iterable[Any], rectifier: Rectifier, min_confidence: float = 0.35) -> list[TableSighting]:
    """Detections in rectified px (``identity``, ``confidence``, ``box``) → card sightings (mm)."""
    seen = []
    for d in found:
        label = _get(d, "identity", "label", "name", "card")
        box = _get(d, "box", "xyxy", "bbox")
        conf = float(_get(d, "confidence", "score", default=1.0))
        if label is None or box is None or conf < min_confidence:
            continue
        x0, y0, x1, y1 = (float(v) for v in box)
        c = rectifier.to_mm(np.array([[(x0 + x1) / 2, (y0 + y1) / 2]]))[0]
        s = rectifier.px_per_mm
        seen.append(IndexSeen(str(label).upper(), conf, float(c[0]), float(c[1]), (x1 - x0) / s, (y1 - y0) / s,
                              _get(d, "owner")))
    return [s for s, _ in pair_indices(seen)]


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
                  rectifier: Rectifier, changed_mm: list[tuple[float, float, float, float]] | None = None,
                  watch_mm: list[tuple[float, float, float, float]] | None = None) -> list[TableSighting]:
        from vision.synthetic import CARD_NAMES

        self.calls += 1
        x0, y0, x1, y1 = rectifier.region_mm
        out = []
        for c in self._frames.get(index, []):
            occluded = float(c.get("occluded", 0.0))
            if occluded > self.max_occluded or self.rng.random() < self.miss_rate:
                continue
            quad = np.asarray(c.get("quad"), dtype=np.float64).reshape(-1, 2)
            corners = calibration.to_table(quad)
            centre = corners.mean(axis=0)
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
                # both indices in view (as the detector pairs them): the line through them
                axis_deg=index_axis(corners) if face_up and occluded < 0.3 and len(corners) == 4 else None,
            ))
        return out
