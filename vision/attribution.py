"""Attribution: which player a centre card came from.

A card is carried to the centre by its owner's arm, so the direction it arrived from (its track's
origin seen from where it landed) points at the owner's seat. The back colour, whenever a back was
seen on the card's track, is the independent check: the deck's back names its owner.

>>> from vision.config import VisionConfig
>>> cfg = VisionConfig.from_dict({"zones": {"table_mm": [1200, 900]},
...                               "players": [{"name": "ana", "seat": 0}, {"name": "ben", "seat": 1},
...                                           {"name": "cy", "seat": 2}, {"name": "dee", "seat": 3}]})
>>> att = Attributor(cfg)
>>> att.from_path(origin=(600.0, 700.0), rest=(600.0, 450.0))[0]    # came up from the bottom edge
'ana'
>>> att.from_path(origin=(350.0, 450.0), rest=(600.0, 450.0))[0]    # from the left edge
'ben'
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from typing import Callable

import numpy as np

from vision.calibrate import point_in_polygon
from vision.config import Point, VisionConfig
from vision.sources import INDEX_TO_CENTRE_MM

# A player puts a card down facing them: its top points from their seat to the centre. The line
# through its two corner indices (top-left to bottom-right) then runs at this angle from the card's
# "up" direction (141.7 degrees for the usual index position), so a card lying on a pile says,
# modulo 180 degrees, which seats it may have come from (60 s dev clip 5153: 13 ordinary plays all
# within 12 degrees of their player's seat, 4 seats 90 degrees apart).
INDEX_AXIS_FROM_UP_DEG = math.degrees(math.atan2(INDEX_TO_CENTRE_MM[1], INDEX_TO_CENTRE_MM[0])) + 90.0
AXIS_TOLERANCE_DEG = 30.0  # a card lying this far off a seat's axis was not put down from that seat
AXIS_OVERRULES_BELOW = 0.5  # ... which overrules a path (or arm) only as unsure of its seat as this


def axis_gap(a: float, b: float) -> float:
    """Difference of two directions modulo 180 degrees (0..90).

    >>> axis_gap(10.0, 175.0), axis_gap(50.0, 140.0)
    (15.0, 90.0)
    """
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def mean_axis(axes: list[float], spread_deg: float = 15.0) -> float | None:
    """Circular mean (modulo 180 degrees) of card axes, ``None`` when they disagree by more than
    ``spread_deg`` (two copies of a card read at one spot, a misread) or there are none.

    >>> round(mean_axis([178.0, 2.0, 1.0]), 1)
    0.3
    >>> mean_axis([50.0, 140.0]) is None
    True
    """
    if not axes:
        return None
    s = sum(math.sin(math.radians(2 * a)) for a in axes)
    c = sum(math.cos(math.radians(2 * a)) for a in axes)
    m = (math.degrees(math.atan2(s, c)) / 2.0) % 180.0
    return m if max(axis_gap(a, m) for a in axes) <= spread_deg else None


class Attributor:
    """Seat anchors per player: seat-zone centroids from the config, else points at the table edge
    in each seat's direction (seats clockwise from the camera's bottom edge)."""

    def __init__(self, cfg: VisionConfig, inset_mm: float = 120.0) -> None:
        self.cfg = cfg
        w, h = cfg.zones.table_mm
        cx, cy = w / 2, h / 2
        self.centre: Point = (cx, cy)
        self.anchors: dict[str, Point] = {}
        self.backs: dict[str, str] = {str(p["name"]): str(p.get("back", "")).lower() for p in cfg.players}
        for name, angle in cfg.seat_angles().items():
            zone = cfg.zones.seats.get(name)
            if zone:
                self.anchors[name] = (sum(p[0] for p in zone) / len(zone), sum(p[1] for p in zone) / len(zone))
                continue
            dx, dy = math.cos(angle), math.sin(angle)
            tx = (w / 2 - inset_mm) / abs(dx) if abs(dx) > 1e-9 else math.inf
            ty = (h / 2 - inset_mm) / abs(dy) if abs(dy) > 1e-9 else math.inf
            r = min(tx, ty)
            self.anchors[name] = (cx + dx * r, cy + dy * r)
        # the axis each player's cards lie at on the piles (see INDEX_AXIS_FROM_UP_DEG)
        self.axes: dict[str, float] = {
            name: (math.degrees(math.atan2(ay - cy, ax - cx)) + INDEX_AXIS_FROM_UP_DEG) % 180.0
            for name, (ax, ay) in self.anchors.items()}

    def depth_from_seat(self, player: str, spot: Point) -> float | None:
        """How far ``spot`` lies in from ``player``'s seat anchor, in mm along the line from it to
        the table's centre (``None`` for an unknown player)."""
        anchor = self.anchors.get(player)
        if anchor is None:
            return None
        nx, ny = self.centre[0] - anchor[0], self.centre[1] - anchor[1]
        norm = math.hypot(nx, ny)
        if norm == 0:
            return None
        return ((spot[0] - anchor[0]) * nx + (spot[1] - anchor[1]) * ny) / norm

    def fits_axis(self, player: str | None, axis: float | None) -> bool:
        """Whether a card lying at ``axis`` (``None``: unknown) may have been put down by ``player``."""
        if axis is None or player is None or player not in self.axes:
            return True
        return axis_gap(self.axes[player], axis) <= AXIS_TOLERANCE_DEG

    def tells_apart(self, a: str, b: str) -> bool:
        """Whether the way a card lies can tell ``a``'s cards from ``b``'s (seats not opposite)."""
        return a in self.axes and b in self.axes and axis_gap(self.axes[a], self.axes[b]) > 2 * AXIS_TOLERANCE_DEG

    def from_path(self, origin: Point, rest: Point, axis: float | None = None) -> tuple[str | None, float]:
        """(player, confidence 0..1) from the direction the card came from. A path too unsure of
        its seat (under ``AXIS_OVERRULES_BELOW``) with ``axis`` known (the way the card lies, see
        :meth:`fits_axis`) names only a seat that fits it; a sure path stands (where two copies
        of a card lie on one spot, the card read may be the other copy)."""
        player, conf = self._from_path(origin, rest, list(self.anchors))
        if axis is None or conf >= AXIS_OVERRULES_BELOW or self.fits_axis(player, axis):
            return player, conf
        fitting = [n for n in self.anchors if self.fits_axis(n, axis)]
        return self._from_path(origin, rest, fitting) if fitting else (player, conf)

    def _from_path(self, origin: Point, rest: Point, candidates: list[str]) -> tuple[str | None, float]:
        if not candidates:
            return None, 0.0
        for name, zone in self.cfg.zones.seats.items():
            if name in candidates and point_in_polygon(origin, zone):
                return name, 0.99
        vx, vy = origin[0] - rest[0], origin[1] - rest[1]
        travel = math.hypot(vx, vy)
        if travel < 1e-6:
            return None, 0.0
        scored = []
        for name in candidates:
            ax, ay = self.anchors[name]
            a = math.atan2(ay - rest[1], ax - rest[0]) - math.atan2(vy, vx)
            a = abs((a + math.pi) % (2 * math.pi) - math.pi)
            scored.append((a, name))
        scored.sort()
        best_a, best = scored[0]
        second_a = scored[1][0] if len(scored) > 1 else math.pi
        # Confidence: the angular margin to the next seat, discounted for short (late-seen) paths.
        margin = (second_a - best_a) / max(second_a, 1e-6)
        length = min(travel / 80.0, 1.0)
        return best, round(max(min(margin * length, 0.999), 0.0), 3)

    def from_backs(self, votes: Counter) -> tuple[str | None, float]:
        """Owner from back-colour votes (player names, or back colours mapped to their player)."""
        if not votes:
            return None, 0.0
        by_player: Counter = Counter()
        colour_to_player = {b: n for n, b in self.backs.items() if b}
        for who, n in votes.items():
            name = who if who in self.backs else colour_to_player.get(str(who).lower())
            if name:
                by_player[name] += n
        if not by_player:
            return None, 0.0
        (name, n), total = by_player.most_common(1)[0], sum(by_player.values())
        return name, n / total * min(total / 3.0, 1.0)

    def attribute(self, origin: Point, rest: Point, back_votes: Counter | None = None,
                  axis: float | None = None) -> tuple[str | None, float, str]:
        """Combine both cues: (player, confidence, how) with how in arm / back / arm+back / conflict.
        ``axis``: the way the card lies, when known (the path names only seats it fits)."""
        arm, arm_c = self.from_path(origin, rest, axis)
        back, back_c = self.from_backs(back_votes or Counter())
        if back is None:
            return arm, arm_c, "arm"
        if arm is None:
            return back, back_c, "back"
        if arm == back:
            return arm, 1 - (1 - arm_c) * (1 - back_c), "arm+back"
        # They disagree: the back is the deck's identity; trust it when it is well supported.
        if back_c >= arm_c:
            return back, back_c * (1 - arm_c), "conflict"
        return arm, arm_c * (1 - back_c), "conflict"


# An arm already at a spot when it is looked for is timed from when it came, this far back at most.
ARRIVAL_LOOKBACK_S = 1.0
# ... and a run of frames showing an arm goes on through this many frames without it
RUN_GAP_FRAMES = 2
# A hand resting still at a spot drops out of the changed pixels; moving again (to leave), it shows
# at the spot before its arm is seen crossing the edge, and its side's edge was still while it
# rested: such a run is that arm resuming, not arriving (fresh dev clip 5412: ben's hand rested
# 1.5 s beside the pile he had put his 3H on, and its withdrawal was taken for his arm bringing
# dev's 4H, a contest). Told by the spot's blob crossing no side in RESUME_FRAMES of the frames in
# the RESUME_S before the run, none crossing one, and no motion on the run's edge in the APPROACH_S
# before those (an arm coming in crosses its edge on the way).
RESUME_S = 0.1
RESUME_FRAMES = 2
APPROACH_S = 0.3
RESUME_GAP_S = 0.3  # ... and that arm seen again from its side within this is still the hand leaving
# An arm coming in shows at its edge first, for as long as its hand takes to cross to the spot. One
# first seen at a spot at least STILL_FROM_MM from its edge as a forearm whose root at the edge is
# still (Forearm: the hand and wrist lifting first), with that edge and the spot still in each of
# the NO_APPROACH_S of frames before, lay there still: it moves again, it did not come (fresh clip
# 6140: ben's hand rested 1.6 s beside his 5D while ana put her AC down under its fingers; lifting,
# it was taken for his arm bringing the AC, first seen then: a phantom AC for ben, ana's lost)
NO_APPROACH_S = 0.4
STILL_FROM_MM = 200.0
# A hand that left the spot leaves its way out in the trail (ArmWatcher.trail_s): the next hand to
# come there, joined to that trail, seems to cross the side the first one left by (fresh clip 5649:
# dev's arm withdrew from his 9S at 54.57 s, cleo's hand came for her copy at 54.9 s, and the trail
# made it dev's arm bringing his 10S, timed 0.66 s early). A side seen only through the trail is
# passed over when, since it was last seen at the spot, the spot lay empty in DEPARTED_FRAMES frames
# or more while that side's edge moved: its arm was going out.
# ... once it had stayed there DEPARTED_STAY_FRAMES frames or more: an arm coming in flickers out of
# the spot a frame or two while it still moves at its edge (fresh 5501: ben's arm at his 3H).
DEPARTED_FRAMES = 2
DEPARTED_STAY_FRAMES = 4
TRAIL_ONLY_FRAMES = 1  # frames more that a side seen only through a shared trail needs (ArmWatcher.reaches)
# A whole arm resting still over a spot (on its way to a pile beyond, waiting there in a contest)
# drops out of the changed pixels and shows again, crossing its edge at once, when it moves back:
# that is the arm that was there, not one arriving (fresh clip 5774: dev's arm lay over cleo's
# pile for 0.9 s, still, its hand on a 2H beyond; moving back it was taken for an arm coming, her
# 6C, first seen then, given to dev). Told by its side crossing the spot again within STAY_MAX_S
# (its arm crossed that edge in its run before too), the spot showing no blob meanwhile and that
# side's edge still: at most one frame with STILL_EDGE_SHARE or more of the changed pixels it had
# there (median) while the arm was at the spot (an arm going out and coming back crosses it twice).
STAY_MAX_S = 3.0
STILL_EDGE_SHARE = 0.5
OPPOSITE_SIDE = {"left": "right", "right": "left", "top": "bottom", "bottom": "top"}
# A side nearer the spot than this says nothing of an arm that does not cross it: a hand and card
# at the spot may run that far (used by ArmWatcher._arms_without_root and _roots_in_trail)
NEAR_SIDE_MM = 230.0
# A hand leaves a pile between two plays (it fetches the next card from its player's side): the
# spot empty for this many frames or more parts two visits (ArmWatcher.visits)
VISIT_GAP_FRAMES = 4


class Forearm(tuple):
    """A reach's point (x, y mm) on a forearm seen running to the spot without crossing the edge
    (:meth:`ArmWatcher._arms_without_root`): it may be another arm going on past the spot."""


class Trailed(tuple):
    """Where a side's arm crosses the edge (x, y mm), found only by following the spot's blob
    through the changed pixels of the moments before (``ArmWatcher.trail_s``): the arm moving in,
    or one that has just left (see ``DEPARTED_FRAMES``)."""


class SharedTrail(Trailed):
    """:class:`Trailed`, where the hand's trail led to other sides too: one may be another arm's
    way that only touched it (see ``TRAIL_ONLY_FRAMES``)."""


class ArmWatcher:
    """Where an arm reached in from, for cards never seen on their way (blurred under the hand).

    The motion gate's changed pixels (:attr:`vision.motion.MotionGate.arm_mask`, the rectified
    area downscaled) are kept for ``keep_s``. While a hand puts a card down, the hand and its arm
    are one changed blob reaching from the edge of the watched area (the player's side) to the
    pile. :meth:`entry` finds, in the frames around a landing, the blob at the landing spot and
    where it crosses the edge of the area: the arm's entry point, in table mm, which stands in
    for the card's origin. A blob that crosses two sides (two arms touching) says nothing.
    """

    def __init__(self, keep_s: float = 25.0, edge_px: int = 1, near_px: int = 3, join_px: int = 2,
                 trail_s: float = 0.4) -> None:
        # (25 s, was 2.5: a contest copy flagged for a weak read is confirmed by a card built on it
        # up to 20 s later, and its arms are looked at then, see PlayReader._confirm_flagged; fresh
        # dev clip 5255 lost a 2H contest's copy confirmed 3 s later. Masks are packed bits.)
        self.keep_s = keep_s
        # A forearm resting still across the margin settles into the motion reference and drops
        # out of the changed pixels, leaving the hand at the pile cut off from the edge (60 s dev
        # clip 5151: three plays whose arm was never found): such a blob is followed through the
        # changed pixels of the last ``trail_s`` (where the arm moved in) to the edge.
        self.trail_s = trail_s
        self.join_px = join_px
        self.edge_px = edge_px
        self.near_px = near_px  # the spot may lie this far outside the blob (a card beside the hand)
        # (packed bits, shape) per kept frame, and the frames' times: plain lists, searched in place
        # (bisect), trimmed in batches; no copy per question
        self._masks: list[tuple[np.ndarray, tuple[int, int]]] = []
        self._times: list[float] = []
        self._now = -math.inf  # the last update's time: frames before it by more than keep_s are gone
        self._to_mm: Callable[[np.ndarray], np.ndarray] | None = None

    def update(self, t: float, mask: np.ndarray | None, to_mm: Callable[[np.ndarray], np.ndarray]) -> None:
        """``mask``: changed pixels of the frame at ``t``; ``to_mm`` maps its (x, y) pixels to mm."""
        self._to_mm = to_mm
        self._now = t
        if mask is not None:
            self._masks.append((np.packbits(mask, axis=None), mask.shape))
            self._times.append(t)
        stale = bisect.bisect_left(self._times, t - self.keep_s)
        if stale >= 64 or stale == len(self._times):
            del self._masks[:stale], self._times[:stale]

    def reset(self) -> None:
        self._masks.clear()
        self._times.clear()

    def _frames(self, t0: float, t1: float, trail: bool = True):
        """(t, changed pixels, changed pixels of the ``trail_s`` before it, or ``None`` without
        ``trail``) for kept frames in [t0, t1]."""
        kept, times = self._masks, self._times
        t0 = max(t0, self._now - self.keep_s)  # (frames are trimmed in batches: some are kept longer)
        for k in range(bisect.bisect_left(times, t0), bisect.bisect_right(times, t1)):
            t = times[k]
            packed, shape = kept[k]
            before = None
            if trail:
                for packed2, shape2 in kept[bisect.bisect_left(times, t - self.trail_s):k]:
                    if shape2 == shape:
                        before = packed2 if before is None else before | packed2
            n = shape[0] * shape[1]
            mask = np.unpackbits(packed, count=n).reshape(shape)
            yield t, mask, None if before is None else np.unpackbits(before, count=n).reshape(shape)

    def visits(self, spot_mm: tuple[float, float], t0: float, t1: float, share: float = 0.3) -> int | None:
        """How many times an arm came to ``spot_mm`` between ``t0`` and ``t1``: runs of frames in
        which the spot's blob (followed through its trail) crosses a side, parted by at least
        ``VISIT_GAP_FRAMES`` frames without one; an arm already there at ``t0`` counts. ``None``
        when the kept frames do not reach back to ``t0`` (nothing to tell by)."""
        if self._to_mm is None or not self._times or self._times[0] > t0 or t0 < self._now - self.keep_s:
            return None
        count, empty = 0, VISIT_GAP_FRAMES
        for _, mask, trail in self._frames(t0, t1):
            blob = self._blob_at(mask, spot_mm)
            if blob is not None and self._sides_of(blob, mask, spot_mm, share, trail):
                count += empty >= VISIT_GAP_FRAMES
                empty = 0
            else:
                empty += 1
        return count

    def entry(self, spot_mm: tuple[float, float], t0: float, t1: float) -> tuple[float, float] | None:
        """The arm's entry point (mm) for a blob covering ``spot_mm`` between ``t0`` and ``t1``:
        the median over those frames of where it crosses the edge, ``None`` if no frame shows one."""
        if self._to_mm is None:
            return None
        points = []
        for t, mask, trail in self._frames(t0, t1):
            point = self._entry_in(mask, spot_mm, trail)
            if point is not None:
                points.append(point)
        if not points:
            return None
        p = np.median(np.asarray(points), axis=0)
        return float(p[0]), float(p[1])

    def arrival(self, spot_mm: tuple[float, float], t0: float, t1: float, min_frames: int = 2,
                lookback_s: float = ARRIVAL_LOOKBACK_S, since: float | None = None) -> float | None:
        """When an arm reached ``spot_mm`` and was there between ``t0`` and ``t1``: the first of at
        least ``min_frames`` frames in a row whose arm blob covers it (``None`` if none did). An arm
        already there at ``t0`` is timed from when it came, up to ``lookback_s`` earlier; with
        ``since``, an arm that came before then is passed over (see :meth:`reaches`)."""
        if self._to_mm is None:
            return None
        first = None
        run: list[float] = []
        missed = 0
        for t, mask, trail in self._frames(self._scan_from(t0, lookback_s, since), t1):
            first = t if first is None else first
            if self._entry_in(mask, spot_mm, trail) is not None:
                run.append(t)
                missed = 0
                if len(run) >= min_frames and t >= t0 and self._came_since(run[0], first, since):
                    return self._arrived(run[0], first, t0)
            elif run:
                missed += 1
                if missed > RUN_GAP_FRAMES:
                    run = []
        return None

    @staticmethod
    def _scan_from(t0: float, lookback_s: float, since: float | None) -> float:
        """Where to start looking: the look back, and with ``since`` a moment before it, so that an
        arm already there then is seen to have come before."""
        return t0 - lookback_s if since is None else min(t0 - lookback_s, since - 0.1)

    @staticmethod
    def _came_since(start: float, first: float, since: float | None) -> bool:
        """A run of frames from ``start`` counts with ``since``: it began then or later, not at the
        first frame looked at (when it came is unknown: maybe before)."""
        return since is None or (start >= since and start > first)

    def _arrived(self, start: float, first: float, t0: float) -> float:
        """A run of frames that began at the first frame looked at began before it: when it came is
        unknown, and ``t0`` (the window asked for) is what is reported, as without a look back."""
        return max(start, t0) if start <= first else start

    def reaches(self, spot_mm: tuple[float, float], t0: float, t1: float, min_frames: int = 2,
                share: float = 0.3, lookback_s: float = ARRIVAL_LOOKBACK_S,
                since: float | None = None,
                keep: Callable[[float, tuple[float, float]], bool] | None = None
                ) -> list[tuple[float, tuple[float, float]]]:
        """Every arm that reached ``spot_mm`` and was there between ``t0`` and ``t1``, one per side
        of the watched area it came in from: (first of ``min_frames`` frames in a row in which the
        spot's blob crossed that side with at least ``share`` of its busiest side's edge pixels,
        entry point in mm), earliest first. Two arms in one blob (two players reaching one pile
        together, a first-touch contest) show up as two sides. An arm already there at ``t0`` is
        timed from when it came, up to ``lookback_s`` earlier: a card seen late on its pile (under
        the hands, or under the other copy of a contest until that was taken back) is looked for
        from shortly before it was seen, while its arm came earlier (60 s dev clip 4242: a 5H
        contest first seen 1.3 s after its contacts, both copies timed from arms "arriving" at the
        start of the window, 0.6 s late, and counted as phantoms). With ``since``, an arm that came
        before then is passed over (the arm of an earlier card on the pile, still there or
        withdrawing), and a later arm from its side may still count once it has gone. An arm that
        ``keep`` turns down (given its time and point) is passed over the same way."""
        if self._to_mm is None:
            return []
        first = None
        runs: dict[str, list[tuple[float, tuple[float, float]]]] = {}
        missed: dict[str, int] = {}  # frames in a row a run's side was not seen
        found: dict[str, tuple[float, tuple[float, float]]] = {}
        seen: list[tuple[float, str, dict[str, int]]] = []  # per frame: what lay at the spot, motion per edge
        resumed: dict[str, float] = {}  # side -> last frame of its hand that rested there moving again
        refused: set[str] = set()  # sides whose arm now there ``keep`` turned down
        at_times: dict[str, list[float]] = {}  # side -> frames it was seen at the spot
        ended: dict[str, tuple[list[tuple[float, tuple[float, float]]], bool]] = {}  # side -> its last run, refused
        for t, mask, trail in self._frames(self._scan_from(t0, lookback_s, since), t1):
            first = t if first is None else first
            blob = self._blob_at(mask, spot_mm)
            sides = {} if blob is None else self._sides_of(blob, mask, spot_mm, share, trail, rootless=True)
            sides = {side: where for side, where in sides.items()
                     if not (isinstance(where, Trailed) and self._departed(seen, side, at_times.get(side, []), t))}
            beyond = self._hand_beyond(sides, seen)
            if beyond is not None:
                refused.add(beyond[1])  # (its run is new: see _hand_beyond)
            for side in sides:
                at_times.setdefault(side, []).append(t)
            for side in ("left", "top", "right", "bottom"):
                if side in found:
                    continue
                if side in sides and side not in runs and side in ended and \
                        self._stayed(seen, side, ended[side][0], sides[side], t, min_frames):
                    run, was_refused = ended.pop(side)
                    runs[side] = run  # the arm that was there, moving again: timed from when it came
                    resumed.pop(side, None)
                    if was_refused:
                        refused.add(side)
                elif beyond is not None and side == beyond[0] and side not in runs:
                    refused.add(side)  # (an arm that had not lain there: it came back from beyond)
                if side in sides:
                    if side not in runs:
                        # (a hand moving again that leaves the spot a moment, on its way out, goes on)
                        if t - resumed.get(side, -math.inf) > RESUME_GAP_S and not self._resumed(seen, side, t) \
                                and not (isinstance(sides[side], Forearm) and
                                         self._unannounced(seen, side, t, self._to_sides(mask.shape, spot_mm)[side])):
                            resumed.pop(side, None)
                        else:
                            resumed[side] = t
                    elif side in resumed:
                        resumed[side] = t
                    runs.setdefault(side, []).append((t, sides[side]))
                    missed[side] = 0
                    start, where = runs[side][0]
                    if side in resumed:
                        start = first  # it came before it was looked for, when is unknown
                    # (a side seen only through a trail that leads to other sides too needs a frame
                    # more: fresh clip 5660, an arm's trail crossing dev's way 200 mm from his 2C
                    # made two frames of a second arm there, a phantom copy; an arm whose root went
                    # still stays there as long as the trail holds it)
                    shared_only = all(isinstance(w, SharedTrail) for _, w in runs[side])
                    needed = min_frames + (TRAIL_ONLY_FRAMES if shared_only else 0)
                    if len(runs[side]) >= needed and t >= t0 and self._came_since(start, first, since) \
                            and side not in refused:
                        if isinstance(where, SharedTrail) and not shared_only:
                            where = Trailed(where)  # (seen through a trail of its own too)
                        reach = (first if side in resumed else self._arrived(start, first, t0), where)
                        if keep is None or keep(*reach):
                            found[side] = reach
                        else:
                            refused.add(side)
                elif side in runs:
                    # an arm crossing the edge flickers out of a frame or two where it merges
                    # with another or stands still a moment: the run goes on through such gaps
                    missed[side] = missed.get(side, 0) + 1
                    if missed[side] > RUN_GAP_FRAMES:
                        ended[side] = (runs.pop(side), side in refused)
                        refused.discard(side)
            seen.append((t, "crossed" if sides else "none" if blob is None else "sideless", self._edge_motion(mask)))
        return sorted(found.values())

    def _departed(self, seen: list[tuple[float, str, dict[str, int]]], side: str, at: list[float],
                  t: float) -> bool:
        """Whether ``side``'s arm, seen at the spot in the frames ``at``, stayed there and left it
        since, so that the trail seen at ``t`` is its way out (see ``DEPARTED_FRAMES``), from
        ``seen`` (as :meth:`_resumed` reads it)."""
        if not at or t - at[-1] > self.trail_s + 1e-6:
            return False
        last = at[-1]
        if sum(1 for ta in at if ta >= last - self.trail_s - 1e-6) < DEPARTED_STAY_FRAMES:
            return False  # a hand passing, or arriving and flickering out a frame or two, not one that left
        gone = [edges[side] for tf, state, edges in seen if last < tf < t and state == "none"]
        return len(gone) >= DEPARTED_FRAMES and any(gone)

    @staticmethod
    def _stayed(seen: list[tuple[float, str, dict[str, int]]], side: str,
                run: list[tuple[float, tuple[float, float]]], where: tuple[float, float], t: float,
                min_frames: int) -> bool:
        """Whether ``side``'s arm, crossing the spot's blob at ``t`` (its edge, not only through a
        trail) after its ``run`` there had ended, is that arm moving again after resting still over
        the spot (see ``STAY_MAX_S``), from ``seen`` (as :meth:`_resumed` reads it)."""
        if type(where) is not tuple or len(run) < min_frames or t - run[-1][0] > STAY_MAX_S or \
                not any(type(w) is tuple for _, w in run):
            return False
        crossing = [edges[side] for tf, _, edges in seen if run[0][0] - 1e-6 <= tf <= run[-1][0] + 1e-6]
        gap = [(state, edges[side]) for tf, state, edges in seen if run[-1][0] + 1e-6 < tf < t - 1e-6]
        if not gap or any(state != "none" for state, _ in gap):
            return False
        moving = STILL_EDGE_SHARE * float(np.median(crossing))
        return sum(moved >= moving for _, moved in gap) <= 1

    @staticmethod
    def _hand_beyond(sides: dict[str, tuple[float, float]],
                     seen: list[tuple[float, str, dict[str, int]]]) -> tuple[str, str] | None:
        """(the arm's side, its hand's side) for a rootless forearm that shows at the spot in the
        same frame as an arm crossing the opposite edge, neither there in the frames before: one
        arm coming back over the spot from a pile beyond, its hand on the far side read as a
        second arm from there (fresh clips 5774, 5681: a contest's loser, or a hand
        that played beyond, drawing back over a pile where a card went down unseen under it; each
        made a phantom contest there). The hand's side is no arm; the arm brought nothing here,
        unless it had lain there still (:meth:`_stayed`). An arm reaching on past the spot comes
        to it with its hand there first. ``None`` when there is none."""
        if len(seen) < RUN_GAP_FRAMES or any(state != "none" for _, state, _ in seen[-RUN_GAP_FRAMES:]):
            return None
        for side, where in sides.items():
            far = sides.get(OPPOSITE_SIDE[side])
            # (the arm crossing its edge or found through its trail; a far part found through a
            # trail of its own may be a second arm coming in with it: fresh dev clip 5658, ben's
            # and dev's arms met at a 2S contest in the same frame, dev's seen through its trail)
            if isinstance(far, Forearm) and (type(where) is tuple or type(where) is Trailed):
                return side, OPPOSITE_SIDE[side]
        return None

    @staticmethod
    def _resumed(seen: list[tuple[float, str, dict[str, int]]], side: str, t: float) -> bool:
        """Whether an arm first seen crossing ``side`` at ``t`` is a hand that rested at the spot
        moving again (see ``RESUME_S``), from ``seen``: (time, what lay at the spot: "none",
        "sideless" or "crossed", changed pixels per edge) of the frames before."""
        just_before = [state for tf, state, _ in seen if t - RESUME_S - 1e-6 <= tf < t]
        if just_before.count("sideless") < RESUME_FRAMES or "crossed" in just_before:
            return False
        approach = [edges[side] for tf, _, edges in seen if t - RESUME_S - APPROACH_S - 1e-6 <= tf < t - RESUME_S - 1e-6]
        return bool(approach) and not any(approach)

    @staticmethod
    def _unannounced(seen: list[tuple[float, str, dict[str, int]]], side: str, t: float, to_edge_mm: float) -> bool:
        """Whether an arm first seen crossing ``side`` at ``t`` came without crossing its edge on
        the way (see ``NO_APPROACH_S``): the hand of an arm that lay still there, moving again.
        ``seen`` as :meth:`_resumed` reads it."""
        if to_edge_mm < STILL_FROM_MM:
            return False  # (an arm comes that short a way in a frame or two)
        before = [(tf, state, edges[side]) for tf, state, edges in seen if t - NO_APPROACH_S - 1e-6 <= tf < t]
        # (frames all through that time, not a look begun just now: nothing tells then)
        return len(before) >= 3 and before[0][0] <= t - NO_APPROACH_S + 0.07 and \
            all(state == "none" and not moved for _, state, moved in before)

    def _edge_motion(self, mask: np.ndarray) -> dict[str, int]:
        """Changed pixels along each edge of the watched area (the band an arm crossing it fills)."""
        e = self.edge_px + self.join_px
        return {"left": int(mask[:, :e].sum()), "top": int(mask[:e].sum()),
                "right": int(mask[:, -e:].sum()), "bottom": int(mask[-e:].sum())}

    def departures(self, spot_mm: tuple[float, float], t0: float, t1: float, share: float = 0.3,
                   reach_mm: float = 60.0) -> dict[str, tuple[float, tuple[float, float]]]:
        """When each arm last moved at ``spot_mm`` between ``t0`` and ``t1``: {side: (time of the
        last frame, a point in mm towards where that arm came from)}.

        A hand holding still drops out of the changed pixels (the reference settles on it), and it
        shows again when it leaves: its last frame is when it went. In a first-touch contest the
        player whose card lies on top (the later touch) takes it back: that arm leaves last. A
        leaving forearm turns about the shoulder and hardly changes at the edge of the watched
        area, so a blob that reaches no edge points at its side with its far end (at least
        ``reach_mm`` from the spot: the hand and wrist leaving towards the player). The trail of
        earlier frames is not used: it would show the other arm, gone a moment ago.
        """
        if self._to_mm is None:
            return {}
        last: dict[str, tuple[float, tuple[float, float]]] = {}
        for t, mask, _ in self._frames(t0, t1, trail=False):
            sides = self._sides_in(mask, spot_mm, share, rootless=True)
            if not sides:
                far = self._far_end(mask, spot_mm, reach_mm)
                if far is not None:
                    sides = {self._side_towards(spot_mm, far): far}
            for side, where in sides.items():
                last[side] = (t, where)
        return last

    def last_move(self, spot_mm: tuple[float, float], t0: float, t1: float, quiet_frames: int = 1,
                  min_mm2: float = 2500.0, share: float = 0.3,
                  reach_mm: float = 60.0) -> tuple[float, float, tuple[float, float]] | None:
        """The last motion at ``spot_mm`` between ``t0`` and ``t1`` that began after a hand rested
        still there: (start, end, a point in mm towards the side the moving arm belongs to), or
        ``None`` when the last motion there was not preceded by at least ``quiet_frames`` frames
        without a blob of ``min_mm2`` at the spot (one continuous movement: arms arriving and
        leaving, nothing put down and picked up again).

        One quiet frame is enough: a hand waiting on a pile to take its copy back is not still (it
        shifts its grip), so the spot often goes quiet for a single frame before the lift (24 fresh
        dev clips 5340-5363: with two quiet frames required, 10 contests whose loser's hand was
        quiet for one frame were ruled ties; with one, all 10 go to the right player and none of
        the 24 staged ties changes).

        A first-touch contest's later card is taken back off the pile: its player's hand rests on
        it (a still hand drops out of the changed pixels), then lifts it and leaves, after the other
        arm has gone."""
        if self._to_mm is None:
            return None
        frames = list(self._frames(t0, t1, trail=False))
        if not frames:
            return None
        h, w = frames[0][1].shape
        corners = self._to_mm(np.array([[0.0, 0.0], [float(w), float(h)]]))
        px_mm2 = abs((corners[1][0] - corners[0][0]) / w * (corners[1][1] - corners[0][1]) / h)
        moving = []
        for t, mask, _ in frames:
            blob = self._blob_at(mask, spot_mm)
            moving.append((t, mask, blob is not None and float(blob.sum()) * px_mm2 >= min_mm2))
        last = max((k for k, (_, _, m) in enumerate(moving) if m), default=None)
        if last is None:
            return None
        start = last
        while start > 0 and moving[start - 1][2]:
            start -= 1
        quiet = 0
        k = start - 1
        while k >= 0 and not moving[k][2]:
            quiet += 1
            k -= 1
        if quiet < quiet_frames or k < 0:
            return None  # one continuous movement, or nothing moved there before it
        where = None
        for t, mask, _ in moving[start:last + 1]:
            sides = self._sides_in(mask, spot_mm, share)
            point = next(iter(sides.values())) if len(sides) == 1 else self._far_end(mask, spot_mm, reach_mm)
            if point is not None:
                where = point
        if where is None:
            return None
        return moving[start][0], moving[last][0], where

    def _far_end(self, mask: np.ndarray, spot_mm: tuple[float, float], reach_mm: float) -> tuple[float, float] | None:
        """The point of the spot's blob farthest from the spot (mm), if at least ``reach_mm`` away."""
        blob = self._blob_at(mask, spot_mm)
        if blob is None:
            return None
        ys, xs = np.nonzero(blob)
        pts = self._to_mm(np.stack([xs + 0.5, ys + 0.5], axis=1).astype(np.float64))
        d = np.hypot(pts[:, 0] - spot_mm[0], pts[:, 1] - spot_mm[1])
        k = int(np.argmax(d))
        return (float(pts[k, 0]), float(pts[k, 1])) if d[k] >= reach_mm else None

    @staticmethod
    def _side_towards(spot_mm: tuple[float, float], point: tuple[float, float]) -> str:
        dx, dy = point[0] - spot_mm[0], point[1] - spot_mm[1]
        if abs(dx) >= abs(dy):
            return "right" if dx > 0 else "left"
        return "bottom" if dy > 0 else "top"

    def _sides_in(self, mask: np.ndarray, spot_mm: tuple[float, float], share: float,
                  trail: np.ndarray | None = None, rootless: bool = False) -> dict[str, tuple[float, float]]:
        """Sides of the area the blob at ``spot_mm`` crosses (with ``share`` of the busiest one's
        edge pixels at least) and where it crosses each, in mm; with ``rootless``, also the sides
        an arm reaches the spot from without crossing the edge (:meth:`_arms_without_root`)."""
        blob = self._blob_at(mask, spot_mm)
        if blob is None:
            return {}
        return self._sides_of(blob, mask, spot_mm, share, trail, rootless)

    def _sides_of(self, blob: np.ndarray, mask: np.ndarray, spot_mm: tuple[float, float], share: float,
                  trail: np.ndarray | None = None, rootless: bool = False) -> dict[str, tuple[float, float]]:
        """:meth:`_sides_in` for the spot's blob ``blob`` of ``mask``."""
        sides = self._crossings(blob, mask.shape, share)
        if not sides and trail is not None:
            # the spot's blob reaches no edge: follow it through where the arm moved in just before
            joined = self._blob_at(mask | trail, spot_mm)
            sides = self._crossings(joined, mask.shape, share) if joined is not None else {}
            if len(sides) > 1:
                sides = self._one_arm_through(joined, spot_mm, sides)
            kind = SharedTrail if len(sides) > 1 else Trailed
            sides = {side: kind(where) for side, where in sides.items()}
        elif trail is not None and rootless:
            sides.update({side: Trailed(where) for side, where in
                          self._roots_in_trail(blob, mask, trail, spot_mm, share, set(sides)).items()})
        if rootless:
            sides.update(self._arms_without_root(blob, spot_mm, set(sides)))
        return sides

    def _roots_in_trail(self, blob: np.ndarray, mask: np.ndarray, trail: np.ndarray,
                        spot_mm: tuple[float, float], share: float, crossed: set[str],
                        far_mm: float = NEAR_SIDE_MM, run: float = 0.6) -> dict[str, tuple[float, float]]:
        """Sides not in ``crossed``, at least ``far_mm`` from the spot, that the spot's blob runs
        at least ``run`` of the way to, and crosses when followed through where it moved just
        before: a second arm joined to the first at the pile, whose root at the edge stopped
        changing as it stretched (fresh clip 5580: dev's arm came in across the right edge, then
        lay still there while its hand met ana's at a 3H contest, the blob reaching 350 of the
        450 mm to the edge; the blob crossed only ana's edge, and dev's copy was lost)."""
        (x0, y0), sx, sy = self._spot_px(blob.shape, spot_mm)
        ys, xs = np.nonzero(blob)
        runs = {"left": (x0 - xs.min()) / sx, "top": (y0 - ys.min()) / sy,  # how far the blob runs, mm
                "right": (xs.max() + 1 - x0) / sx, "bottom": (ys.max() + 1 - y0) / sy}
        near = {side for side, to_edge in self._to_sides(blob.shape, spot_mm).items()
                if side not in crossed and to_edge >= far_mm and runs[side] >= run * to_edge}
        if not near:
            return {}
        joined = self._blob_at(mask | trail, spot_mm)
        if joined is None:
            return {}
        return {side: where for side, where in self._crossings(joined, mask.shape, share).items() if side in near}

    def _one_arm_through(self, blob: np.ndarray, spot_mm: tuple[float, float],
                         sides: dict[str, tuple[float, float]], ring_mm: tuple[float, float] = (150.0, 200.0),
                         least: float = 0.2, within_deg: float = 60.0) -> dict[str, tuple[float, float]]:
        """``sides`` (where ``blob`` crosses the edge), less those whose arm does not reach the
        spot: when only one arm leaves the hand, the blob crossing the ring ``ring_mm`` around the
        spot in one piece, the sides joined to it farther out are arms that only crossed it (or
        its trail), and the one kept is the side that arm runs towards (fresh 5617: ben's arm,
        drawn back from another pile across cleo's way, left a trail that met her arm 280 mm
        from her 9C and made a phantom second copy of it). Two hands at one pile are two arms
        through the ring, or one piece running between their sides (kept: any side within
        ``within_deg`` of the piece). A piece is ``least`` of the largest at least. Unchanged
        when a side lies within ``NEAR_SIDE_MM`` of the spot (its arm may leave the area inside
        the ring)."""
        to_side = self._to_sides(blob.shape, spot_mm)
        if min(to_side[side] for side in sides) < NEAR_SIDE_MM:
            return sides
        import cv2

        h, w = blob.shape
        (x0, y0), sx, sy = self._spot_px(blob.shape, spot_mm)

        # (only the square around the ring is looked at: this runs for many frames of a reach)
        left, top = max(int(x0 - ring_mm[1] * sx), 0), max(int(y0 - ring_mm[1] * sy), 0)
        right, bottom = min(int(x0 + ring_mm[1] * sx) + 2, w), min(int(y0 + ring_mm[1] * sy) + 2, h)
        ys, xs = np.mgrid[top:bottom, left:right]
        r = np.hypot((xs + 0.5 - x0) / sx, (ys + 0.5 - y0) / sy)
        ring = blob[top:bottom, left:right] & (r >= ring_mm[0]) & (r < ring_mm[1])
        n, _, stats, centroids = cv2.connectedComponentsWithStats(ring.astype(np.uint8), connectivity=8)
        areas = stats[1:, cv2.CC_STAT_AREA]
        if n < 2:
            return sides
        pieces = [k + 1 for k in range(n - 1) if areas[k] >= max(least * areas.max(), 2)]
        if len(pieces) != 1:
            return sides
        cx, cy = centroids[pieces[0]]
        ux, uy = (cx + left - x0) / sx, (cy + top - y0) / sy

        def towards(side: str) -> float:
            px, py = sides[side]
            vx, vy = px - spot_mm[0], py - spot_mm[1]
            return (ux * vx + uy * vy) / max(math.hypot(ux, uy) * math.hypot(vx, vy), 1e-9)

        best = max(sides, key=towards)
        # (a side the piece runs nearly towards too may be a second arm merged with it there: dev
        # clip 5576, an 8S contest whose two hands lay together and whose arms joined in the ring)
        near = math.cos(math.radians(within_deg))
        return {side: where for side, where in sides.items() if side == best or towards(side) >= near}

    def _arms_without_root(self, blob: np.ndarray, spot_mm: tuple[float, float], crossed: set[str],
                           near_mm: float = 50.0, far_mm: float = NEAR_SIDE_MM, cover: float = 0.75
                           ) -> dict[str, tuple[float, float]]:
        """Sides not in ``crossed`` from which the blob runs straight to the spot: at least
        ``cover`` of the line from the spot towards the side's middle, ``near_mm`` to ``far_mm``
        out, lies in it (a forearm from the other side of a long reach, whose root at the edge
        settled into the motion reference while the other player's arm, crossing its own edge,
        kept the blob: 8 fresh 60 s dev clips, three contests whose second arm was never found).
        Each with the line's farthest point in the blob (mm), towards the arm's player."""
        h, w = blob.shape
        (x0, y0), sx, sy = self._spot_px(blob.shape, spot_mm)
        middles = {"left": (0.0, h / 2), "top": (w / 2, 0.0), "right": (float(w), h / 2), "bottom": (w / 2, float(h))}
        out: dict[str, tuple[float, float]] = {}
        steps = np.linspace(near_mm, far_mm, 12)
        for side, (mx, my) in middles.items():
            if side in crossed:
                continue
            dx_mm, dy_mm = (mx - x0) / sx, (my - y0) / sy
            length = math.hypot(dx_mm, dy_mm)
            if length < far_mm:
                continue  # the spot lies near that side: no telling an arm from a hand
            xs = np.round(x0 + steps * dx_mm / length * sx).astype(int)
            ys = np.round(y0 + steps * dy_mm / length * sy).astype(int)
            inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            hit = np.zeros(len(steps), bool)
            hit[inside] = blob[ys[inside], xs[inside]]
            if hit.mean() >= cover:
                k = int(np.nonzero(hit)[0][-1])
                out[side] = Forearm((float(spot_mm[0] + steps[k] * dx_mm / length),
                                     float(spot_mm[1] + steps[k] * dy_mm / length)))
        return out

    def _crossings(self, blob: np.ndarray, shape: tuple[int, int], share: float) -> dict[str, tuple[float, float]]:
        h, w = shape
        e = self.edge_px + self.join_px
        ys, xs = np.nonzero(blob)
        on = {"left": xs < e, "top": ys < e, "right": xs >= w - e, "bottom": ys >= h - e}
        counts = {k: int(v.sum()) for k, v in on.items()}
        top = max(counts.values())
        out = {}
        for side, sel in on.items():
            if top and counts[side] >= share * top and counts[side] > 0:
                mm = self._to_mm(np.array([[float(xs[sel].mean()) + 0.5, float(ys[sel].mean()) + 0.5]]))[0]
                out[side] = (float(mm[0]), float(mm[1]))
        return out

    def _to_sides(self, shape: tuple[int, int], spot_mm: tuple[float, float]) -> dict[str, float]:
        """How far ``spot_mm`` lies from each side of a mask of ``shape`` (the watched area), in mm."""
        h, w = shape
        (x0, y0), sx, sy = self._spot_px(shape, spot_mm)
        return {"left": x0 / sx, "top": y0 / sy, "right": (w - x0) / sx, "bottom": (h - y0) / sy}

    def _spot_px(self, shape: tuple[int, int], spot_mm: tuple[float, float]) -> tuple[tuple[float, float], float, float]:
        """``spot_mm`` in (fractional) pixels of a mask of ``shape``, and the px per mm along x and y."""
        h, w = shape
        corners = self._to_mm(np.array([[0.0, 0.0], [float(w), float(h)]]))
        sx = w / max(corners[1][0] - corners[0][0], 1e-9)
        sy = h / max(corners[1][1] - corners[0][1], 1e-9)
        return ((spot_mm[0] - corners[0][0]) * sx, (spot_mm[1] - corners[0][1]) * sy), sx, sy

    def _blob_at(self, mask: np.ndarray, spot_mm: tuple[float, float]) -> np.ndarray | None:
        import cv2

        h, w = mask.shape
        (fx, fy), _, _ = self._spot_px(mask.shape, spot_mm)
        x, y = int(round(fx)), int(round(fy))
        if not (0 <= x < w and 0 <= y < h):
            return None
        # an arm over a cloth of its own brightness breaks into pieces: join what lies close
        joined = cv2.dilate(mask.astype(np.uint8), np.ones((2 * self.join_px + 1,) * 2, np.uint8))
        _, labels = cv2.connectedComponents(joined, connectivity=8)
        r = self.near_px
        window = labels[max(y - r, 0):y + r + 1, max(x - r, 0):x + r + 1]
        ids = window[window > 0]
        if ids.size == 0:
            return None
        return labels == int(np.bincount(ids).argmax())

    def _entry_in(self, mask: np.ndarray, spot_mm: tuple[float, float],
                  trail: np.ndarray | None = None) -> tuple[float, float] | None:
        """Where the one arm whose blob covers ``spot_mm`` crosses the edge (``None``: no arm, or
        two arms in one blob)."""
        sides = self._sides_in(mask, spot_mm, 0.3, trail)
        if len(sides) != 1:
            return None
        return next(iter(sides.values()))
