"""Tracking cards on the table with Roboflow's ``trackers`` ByteTrack, in table millimetres.

Sightings (one detected card in one frame, placed on the table in mm) are associated frame to
frame by :class:`trackers.ByteTrackTracker` (Kalman motion + two-stage IoU matching). One tracker
runs per card identity, because two cards of the same identity are exactly the cards a first-touch
dispute is about and must never be merged with other identities. On top of ByteTrack's tracklets
this module keeps a :class:`CardTrack` per physical card: the history of positions and reads
(identity votes), and *stitches* a tracklet that reappears after a long hand occlusion back onto
the card it belongs to (same identity, near where it vanished), so a card keeps one identity and
one origin through occlusion.

>>> tr = CardTracker(fps=30)
>>> for i in range(5):
...     _ = tr.update([TableSighting("5H", 0.9, 100.0 + 10 * i, 200.0)], frame=i, t=i / 30)
>>> [(c.label, len(c.samples)) for c in tr.tracks.values()]
[('5H', 5)]
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

BOX_MM = 160.0  # association box (mm) around each card centre: a card plus a fast hand's move per frame


@dataclass(frozen=True)
class TableSighting:
    """One card seen in one frame, in table millimetres.

    ``label`` is a card name (``"5H"``) or ``"BACK"``; ``occluded`` (0..1) how much of it is hidden
    when known; ``owner`` the back-colour owner when a back was classified; ``axis_deg`` the
    direction (degrees mod 180, table axes) of the line through the card's two corner indices,
    when both were seen: which way the card lies (see :mod:`vision.attribution`).
    """

    label: str
    confidence: float
    x: float
    y: float
    occluded: float = 0.0
    owner: str | None = None
    axis_deg: float | None = None


@dataclass
class Sample:
    frame: int
    t: float
    x: float
    y: float
    confidence: float
    occluded: float = 0.0
    axis: float | None = None  # TableSighting.axis_deg


@dataclass
class CardTrack:
    """One physical card followed over time."""

    id: int
    label: str
    samples: list[Sample] = field(default_factory=list)
    owner_votes: Counter = field(default_factory=Counter)
    read_votes: Counter = field(default_factory=Counter)  # label -> summed confidence (incl. near misreads)
    # set by the foundation logic
    pile: str | None = None
    reported: bool = False
    landed_index: int | None = None  # index into samples of the first resting sample
    left: bool = False  # moved away after resting (a dispute loser taken back, a completed pile)
    missed_looks: int = 0  # frames since its last sighting in which the detector looked where it was

    @property
    def last(self) -> Sample:
        return self.samples[-1]

    @property
    def first(self) -> Sample:
        return self.samples[0]

    def positions(self) -> np.ndarray:
        return np.array([(s.x, s.y) for s in self.samples], dtype=np.float64)

    def times(self) -> np.ndarray:
        return np.array([s.t for s in self.samples], dtype=np.float64)

    @property
    def mean_confidence(self) -> float:
        return float(np.mean([s.confidence for s in self.samples])) if self.samples else 0.0


class CardTracker:
    """Per-identity ByteTrack + stitching into :class:`CardTrack` records.

    ``update(sightings, frame, t)`` returns the tracks updated in this frame. Tracks not updated
    for ``forget_s`` seconds are dropped from ``tracks`` unless ``keep(track)`` says otherwise
    (the pipeline keeps cards that sit on piles).
    """

    def __init__(self, fps: float = 30.0, lost_s: float = 1.0, stitch_s: float = 3.0,
                 stitch_mm: float = 90.0, max_speed_mm_s: float = 2500.0, min_confidence: float = 0.3,
                 box_mm: float = BOX_MM, metric: str = "diou") -> None:
        self.fps = fps
        self.box_mm = box_mm
        self.metric = metric
        self.lost_s = lost_s
        self.stitch_s = stitch_s
        self.stitch_mm = stitch_mm
        self.max_speed = max_speed_mm_s
        self.min_confidence = min_confidence
        self._bytetracks: dict[str, object] = {}
        self._bt_last_t: dict[str, float] = {}
        self._link: dict[tuple[str, int], int] = {}  # (label, bytetrack id) -> CardTrack id
        # A new ByteTrack tracklet reports id -1 on its first frame; keep that sighting so the
        # card's first position (its origin, used for attribution) is not lost.
        self._pending: dict[str, list[tuple[int, float, TableSighting]]] = {}
        # Sightings ByteTrack left untracked lately, by identity (see _lying_unconfirmed).
        self._unconfirmed: dict[str, list[tuple[int, float, TableSighting]]] = {}
        self.unconfirmed_s = 0.7
        # Cards the caller saw but chose not to track this frame (lying still outside the area of
        # interest): a track ending where one of them lies is not lost, so nothing is stitched to it.
        self.hidden: dict[str, list[tuple[float, float]]] = {}
        # Where each such untracked card was last seen lying: [x, y, t, frame, looks there since
        # without seeing it]. A card picked up there and carried off too fast (blurred, under the
        # hand) to be read in flight shows up again only where it lands; the spot it vanished from
        # is its origin (see _recall_origin).
        self._lying: dict[str, list[list[float]]] = {}
        self.recall_s = 1.0  # a card vanished this long ago may be the one now seen elsewhere
        self.recall_mm = 500.0  # ... at most this far away
        # Where the detector looked in the frame being updated (table mm boxes; None: everywhere).
        # A card lying still where nobody looked since is still lying there, whatever else of its
        # identity shows up elsewhere (see _card_for).
        self.looked: list[tuple[float, float, float, float]] | None = None
        self.still_mm = 6.0  # a track whose last samples stay this close was lying still
        self.jump_mm = 40.0  # ... and is continued farther than this only once seen to be gone
        self.copy_apart_mm = 20.0  # two sightings of one identity this far apart in a frame are two copies
        # ... as are reads of one track that go to a spot this far off and back, twice, in turn:
        # farther apart than one card read at its two corner indices in turn (see
        # vision.plays.ReaderSettings.rest_turn_mm), within turn_s
        self.twin_apart_mm = 30.0
        self.turn_s = 1.0
        self.turn_mm = 10.0  # ... each read coming back this near the last read of its spot
        # ... and no farther apart than two copies on one pile lie (a read this far off is a card
        # read in the hand bringing it: a King read 55 mm off under ben's hand, see
        # tests/test_vision_plays.py::test_a_king_read_only_in_the_hand_is_played_once_its_pile_leaves_the_table)
        self.twin_within_mm = 50.0
        self._twins: dict[int, int] = {}  # track id -> the other copy's, once told apart (_copy_in_turn)
        self._off_reads: dict[int, Sample] = {}  # track id -> a read taken off it, maybe another copy's
        self.settled_s = 1.5  # a card landed this long ago lies on its pile for good (contest copies go sooner)
        self.tracks: dict[int, CardTrack] = {}
        self._next_id = 1

    def _bytetrack(self, label: str):
        bt = self._bytetracks.get(label)
        if bt is None:
            from trackers import ByteTrackTracker
            from trackers.utils.iou import DIoU, IoU

            bt = ByteTrackTracker(
                # DIoU also scores the distance between centres, which separates two copies of a
                # card converging on one pile (plain IoU of two nearby card boxes is nearly equal)
                iou=DIoU() if self.metric == "diou" else IoU(),
                lost_track_buffer=int(round(self.lost_s * 30)),  # counted in 30 fps frames
                frame_rate=self.fps,
                track_activation_threshold=0.5,
                minimum_consecutive_frames=1,
                minimum_iou_threshold=0.05,
                high_conf_det_threshold=0.5,
            )
            self._bytetracks[label] = bt
        return bt

    def update(self, sightings: list[TableSighting], frame: int, t: float) -> list[CardTrack]:
        import supervision as sv

        by_label: dict[str, list[TableSighting]] = {}
        for s in sightings:
            if s.confidence >= self.min_confidence:
                by_label.setdefault(s.label, []).append(s)
        self._remember_lying(t, frame)
        # Only identities seen in this frame are updated: ByteTrack is given timestamps, so a
        # tracker skipped for a while predicts across the gap and ages its tracks by time.
        updated: list[CardTrack] = []
        for label in sorted(by_label):
            group = by_label[label]
            bt = self._bytetrack(label)
            half = self.box_mm / 2
            xyxy = np.array([(s.x - half, s.y - half, s.x + half, s.y + half) for s in group], dtype=np.float32)
            dets = sv.Detections(
                xyxy=xyxy,
                confidence=np.array([s.confidence for s in group], dtype=np.float32),
                data={"i": np.arange(len(group))},
            )
            self._bt_last_t[label] = t
            out = bt.update(dets, timestamp=t)
            ids = out.tracker_id if out.tracker_id is not None else np.full(len(out), -1)
            pending = [p for p in self._pending.get(label, []) if t - p[1] <= 3.0 / self.fps]
            # cards whose tracklets are followed in this frame, and where: a sighting well away from
            # one of them now is another copy
            followed = {self._link[(label, int(i))]: group[int(out.data["i"][k])]
                        for k, i in enumerate(ids) if (label, int(i)) in self._link}
            new_pending = []
            for k in range(len(out)):
                s = group[int(out.data["i"][k])]
                bt_id = int(ids[k])
                if bt_id < 0:
                    new_pending.append((frame, t, s))
                    still = self._lying_unconfirmed(label, frame, t, s, followed)
                    if still is not None:
                        updated.append(still)
                    continue
                fresh = (label, bt_id) not in self._link
                track = self._card_for(label, bt_id, s, t, followed)
                if track.samples and track.last.frame == frame and \
                        math.hypot(track.last.x - s.x, track.last.y - s.y) > self.copy_apart_mm:
                    # two tracklets joined into one card earlier (one copy stitched on while the
                    # other was not seen) and both seen now, well apart: one card is in one place
                    # in a frame, so this is another copy (fresh clip 6116: both copies of a tied
                    # 2D lay 40 mm apart, read into one track in turn, never at rest for 1.6 s,
                    # the tie lost and the 2D timed at the next card's arrival)
                    # (the copy it was told apart from in turn a moment ago, see _copy_in_turn)
                    twin = self._live_twin(track)
                    track = twin if twin is not None and twin.last.frame != frame else self._new_track(label)
                    self._link[(label, bt_id)] = track.id
                track = self._copy_in_turn(track, s, t)
                if fresh and not track.samples:
                    self._recall_origin(track, s, t)
                if fresh and (not track.samples or track.last.t < t - 0.5 / self.fps):
                    near = [p for p in pending if math.hypot(p[2].x - s.x, p[2].y - s.y) < BOX_MM]
                    if near:
                        p = min(near, key=lambda p: math.hypot(p[2].x - s.x, p[2].y - s.y))
                        pending.remove(p)
                        if not track.samples or p[1] > track.last.t:
                            self._add(track, p[0], p[1], p[2], label)
                self._add(track, frame, t, s, label)
                updated.append(track)
            self._pending[label] = new_pending
        self._count_misses(t, {tr.id for tr in updated})
        for label, group in by_label.items():  # a card followed now is no longer lying anywhere
            if label in self._lying:
                self._lying[label] = [k for k in self._lying[label]
                                      if all(math.hypot(k[0] - s.x, k[1] - s.y) >= 8.0 for s in group)]
        return updated

    def _copy_in_turn(self, track: CardTrack, s: TableSighting, t: float) -> CardTrack:
        """The card a sighting given to ``track`` belongs to, where two copies lie a little apart
        and are read one per look, in turn: ByteTrack's boxes of the two overlap, so it follows
        both as one tracklet, which never comes to rest (fresh clip 6149: ben's and ana's 7D on
        the pile 35 mm apart, read in turn for 0.5 s until ana took hers back; ben's was first
        seen at rest only then, given to the wrong arm, and the contest lost). A read that comes
        back to where the one before last lay (within ``turn_mm``), the last one
        ``twin_apart_mm`` or more away within ``turn_s``, takes that last read off the card: a
        read off to the side, once (in the hand that brings it, or of a card carried over it),
        or the first read of another copy, shown once it is read there again
        (:meth:`_twin_read`). From then on each read goes to the copy it lies nearer."""
        twin = self._live_twin(track)
        if twin is not None and track.samples:
            here = math.hypot(track.last.x - s.x, track.last.y - s.y)
            return twin if math.hypot(twin.last.x - s.x, twin.last.y - s.y) < here else track
        if track.id in self._twins:
            return track
        found = self._twin_read(track.label, s, t, of=track)
        if found is not None:
            return found
        if len(track.samples) < 2 or track.reported:
            return track
        a, b = track.samples[-2:]
        if not self.twin_apart_mm <= math.hypot(b.x - a.x, b.y - a.y) <= self.twin_within_mm or t - a.t > self.turn_s or \
                math.hypot(s.x - a.x, s.y - a.y) > self.turn_mm or \
                (track.landed_index is not None and track.landed_index >= len(track.samples) - 1):
            return track
        del track.samples[-1]  # (its read of the card's name still counts: the same name)
        self._off_reads[track.id] = b
        return track

    def _live_twin(self, track: CardTrack) -> CardTrack | None:
        """The other copy told apart from ``track`` (:meth:`_copy_in_turn`), while still followed."""
        twin = self.tracks.get(self._twins.get(track.id, -1))
        return twin if twin is not None and not twin.left and twin.samples else None

    def _twin_read(self, label: str, s: TableSighting, t: float, of: CardTrack | None = None) -> CardTrack | None:
        """The other copy's card, started by a read taken off a card (see :meth:`_copy_in_turn`)
        now that ``s`` is read again where it lay (within ``turn_mm``, ``turn_s``); ``None``
        otherwise. Read off ``of`` alone when given."""
        ids = [of.id] if of is not None else list(self._off_reads)
        for tid in ids:
            off = self._off_reads.get(tid)
            if off is None:
                continue
            track = self.tracks.get(tid)
            if track is None or t - off.t > self.turn_s:
                del self._off_reads[tid]
                continue
            if track.label != label or math.hypot(s.x - off.x, s.y - off.y) > self.turn_mm:
                continue
            del self._off_reads[tid]
            twin = self._new_track(label)
            twin.samples.append(off)
            twin.read_votes[label] += off.confidence
            self._twins[track.id], self._twins[twin.id] = twin.id, track.id
            return twin
        return None

    def _lying_unconfirmed(self, label: str, frame: int, t: float, s: TableSighting,
                           followed: dict[int, TableSighting]) -> CardTrack | None:
        """A sighting ByteTrack leaves untracked where a card of its identity lies still: followed
        here. ByteTrack drops a new tracklet that finds no detection in the next update of its
        identity; two copies read in alternate looks (the detector looks where things changed)
        each come in every other update, so the second copy's tracklet never outlived one (report
        clip 90223: a tied 2H on its pile read five times in 0.6 s, never tracked, both copies
        lost). The sighting continues a card last seen within ``still_mm`` of it a moment before,
        or starts one with an earlier such sighting there."""
        twin = self._twin_read(label, s, t)
        if twin is not None:  # (the other copy, read again where a read was taken off a card)
            self._add(twin, frame, t, s, label)
            return twin
        earlier = [u for u in self._unconfirmed.get(label, []) if 0.0 < t - u[1] <= self.unconfirmed_s]
        self._unconfirmed[label] = earlier + [(frame, t, s)]
        for track in self.tracks.values():
            if track.label != label or track.left or track.id in followed:
                continue
            if 0.0 < t - track.last.t <= self.unconfirmed_s and \
                    math.hypot(track.last.x - s.x, track.last.y - s.y) <= self.still_mm:
                self._add(track, frame, t, s, label)
                return track
        near = [u for u in earlier if math.hypot(u[2].x - s.x, u[2].y - s.y) <= self.still_mm]
        if not near:
            return None
        track = self._new_track(label)
        self._add(track, near[-1][0], near[-1][1], near[-1][2], label)
        self._add(track, frame, t, s, label)
        return track

    def _count_misses(self, t: float, updated: set[int]) -> None:
        """Tracks not seen in this frame although the detector looked where they were."""
        for track in self.tracks.values():
            if track.id in updated or not track.samples or track.last.t >= t:
                continue
            if self._looked_at(track.last.x, track.last.y):
                track.missed_looks += 1

    def _looked_at(self, x: float, y: float) -> bool:
        """Whether the detector looked at (x, y) mm in the frame being updated (well inside a box)."""
        return self.looked is None or any(b[0] + 20 <= x <= b[2] - 20 and b[1] + 20 <= y <= b[3] - 20 for b in self.looked)

    def _lying_unwatched(self, track: CardTrack) -> bool:
        """It lay still when last seen and the detector has hardly looked there since: it is most
        likely still there (a lone card out of the way of the hands is not looked at)."""
        if len(track.samples) < 2 or track.missed_looks >= 2:
            return False
        tail = track.samples[-3:]
        return all(math.hypot(s.x - track.last.x, s.y - track.last.y) <= self.still_mm for s in tail)

    def _remember_lying(self, t: float, frame: int) -> None:
        for label, spots in self.hidden.items():
            known = self._lying.setdefault(label, [])
            for x, y in spots:
                for k in known:
                    if math.hypot(k[0] - x, k[1] - y) < 8.0:
                        k[0], k[1], k[2], k[3], k[4] = x, y, t, frame, 0
                        break
                else:
                    known.append([x, y, t, frame, 0])
        for label in list(self._lying):
            self._lying[label] = [k for k in self._lying[label] if t - k[2] <= self.recall_s]
            for k in self._lying[label]:
                # looked at since it was last seen, and not seen: gone from there
                if k[2] != t and self._looked_at(k[0], k[1]):
                    k[4] += 1
            if not self._lying[label]:
                del self._lying[label]

    def _recall_origin(self, track: CardTrack, s: TableSighting, t: float) -> None:
        """A new card of an identity that, a moment ago, lay untracked elsewhere and is no longer
        seen there: the same card, carried over unseen. Its first sample becomes that spot (at the
        time it was last seen there), so the card keeps its origin (the arm's seat) and the time
        it left. A spot that is seen in this very frame is a different copy lying still."""
        spots = self._lying.get(track.label, [])
        best, best_t = None, -math.inf
        for k in spots:
            d = math.hypot(k[0] - s.x, k[1] - s.y)
            if d < 20.0:
                return  # seen where it started from: followed from there, nothing to recall
            if t - k[2] < 2.5 / self.fps or d > self.recall_mm or not k[4]:
                continue  # (not looked at since: it may well lie there still, another copy)
            if any(math.hypot(k[0] - x, k[1] - y) < 8.0 for x, y in self.hidden.get(track.label, ())):
                continue
            if k[2] > best_t:
                best, best_t = k, k[2]
        if best is None:
            return
        spots.remove(best)
        track.samples.append(Sample(int(best[3]), float(best[2]), float(best[0]), float(best[1]), s.confidence, 0.0))

    @staticmethod
    def _add(track: CardTrack, frame: int, t: float, s: TableSighting, label: str) -> None:
        track.missed_looks = 0
        track.samples.append(Sample(frame, t, s.x, s.y, s.confidence, s.occluded, s.axis_deg))
        track.read_votes[label] += s.confidence
        if s.owner:
            track.owner_votes[s.owner] += 1

    def _card_for(self, label: str, bt_id: int, s: TableSighting, t: float,
                  followed: dict[int, TableSighting]) -> CardTrack:
        key = (label, bt_id)
        if key in self._link and self._link[key] in self.tracks:
            return self.tracks[self._link[key]]
        # A new tracklet: the continuation of a card lost under a hand, or a new card.
        best, best_d = None, math.inf
        linked = set(self._link.values())
        for track in self.tracks.values():
            if track.label != label or track.left:
                continue
            gap = t - track.last.t
            if gap <= 0 or gap > self.stitch_s:
                continue
            # updated in this very frame: followed by a live tracklet, so not lost
            if track.id in linked and gap < 0.5 / self.fps:
                continue
            # about to be updated in this frame, well away: another copy (fresh dev clip 5448: both
            # copies of a tied 2H lay on the pile 40 mm apart, the second joined the first's track,
            # its reads alternating between them, never at rest: the pile's hearts all lost)
            now = followed.get(track.id)
            if now is not None and math.hypot(now.x - s.x, now.y - s.y) > self.copy_apart_mm:
                continue
            if any(math.hypot(track.last.x - x, track.last.y - y) < 8.0 for x, y in self.hidden.get(label, ())):
                continue  # still lying where it was, just not tracked: not the card now seen
            # a plausible continuation: near where the card was heading when it was lost (its last
            # velocity carried on, at most for a moment), and not a one-frame misread (which would
            # otherwise capture the next real card of that identity)
            if len(track.samples) < 3 and gap > 0.2 and track.id not in self._twins:
                continue  # (a copy told apart from its twin was read in turn: no misread)
            landed = track.landed_index is not None
            settled = landed and t - track.samples[track.landed_index].t > self.settled_s
            # nobody has looked where it landed since it was last seen there
            unlooked = landed and track.missed_looks == 0 and not self._looked_at(track.last.x, track.last.y)
            if (settled or unlooked or ((landed or self._lying_unwatched(track)) and gap > 0.25)) and \
                    math.hypot(s.x - track.last.x, s.y - track.last.y) > self.jump_mm:
                # a card that lay still (on a pile, or where the detector has not looked since)
                # and vanished was covered, or is still there: another copy is seen elsewhere. A
                # card settled on a pile never leaves it, however soon the copy shows up (fresh dev
                # clip 5226: an AD under its pile, out of the look, continued 200 mm away onto a
                # new Ace 0.2 s later, and that pile's first three cards went unreported); one that
                # landed a moment ago leaves it only once its pile was looked at and it was not
                # there (fresh dev clip 5417: dev's 3H on the next pile, seen 0.2 s after ana's was
                # last read on hers, continued her card, which was taken for a copy taken back)
                continue
            px, py = track.last.x, track.last.y
            if len(track.samples) >= 2:
                prev = track.samples[-2]
                dt = track.last.t - prev.t
                if dt > 0:
                    vx, vy = (track.last.x - prev.x) / dt, (track.last.y - prev.y) / dt
                    speed = math.hypot(vx, vy)
                    if speed > self.max_speed:
                        vx, vy = vx * self.max_speed / speed, vy * self.max_speed / speed
                    coast = min(gap, 0.2)
                    px, py = px + vx * coast, py + vy * coast
            d = math.hypot(s.x - px, s.y - py)
            if d <= self.stitch_mm + 600.0 * min(gap, 0.5) and d < best_d:
                best, best_d = track, d
        if best is None:
            best = self._new_track(label)
        self._link[key] = best.id
        return best

    def _new_track(self, label: str) -> CardTrack:
        track = CardTrack(self._next_id, label)
        self.tracks[track.id] = track
        self._next_id += 1
        return track

    def forget(self, t: float, keep=lambda track: False) -> None:
        """Drop tracks idle for longer than the stitch window unless ``keep(track)``."""
        for tid in [tid for tid, tr in self.tracks.items() if t - tr.last.t > self.stitch_s and not keep(tr)]:
            del self.tracks[tid]
        live = set(self.tracks)
        self._link = {k: v for k, v in self._link.items() if v in live}
        self._twins = {k: v for k, v in self._twins.items() if k in live and v in live}
        self._off_reads = {k: v for k, v in self._off_reads.items() if k in live}
