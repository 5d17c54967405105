"""The vision loop: frames in, observations out (to the referee's event log), annotated frames to
the dashboard.

Per frame: (re)calibrate when due → record → rectify the common area → motion gate → (only when
something moved, or a card is still settling) sightings → tracking → plays → observations.
Observations are appended to the event log (durable, validated by the referee) as soon as they
are known; the referee's rulings come back from the log's state and are drawn on the frames
published to the frame hub.

Events vision cannot see (the Nerts call, the cards left in each Nerts pile, round starts) come
from the table (dashboard buttons) or, offline, from a ``table_events`` JSONL file; they are
appended once the footage clock has passed them by ``hold_s``, so late card observations land
in the right round first.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from vision.attribution import ArmWatcher
from vision.calibrate import Calibration, CalibrationError, CalibrationMonitor, Rectifier, calibrate, region_around
from vision.capture import Frame, Gap
from vision.config import VisionConfig
from vision.motion import MotionGate
from vision.plays import REVISED_FIELDS, PlayReader
from vision.sources import SightingSource
from vision.tracking import CardTracker


class PipelineError(Exception):
    """The footage cannot be refereed (e.g. the table cannot be located)."""


@dataclass
class PipelineStats:
    frames: int = 0
    detector_frames: int = 0
    observations: int = 0
    rejected: int = 0  # observations the log refused (reported in flags)
    gaps: list[Gap] = field(default_factory=list)
    bumps: list[float] = field(default_factory=list)  # times a moved camera was noticed
    process_s: float = 0.0  # wall time spent in process()
    delays_s: list[float] = field(default_factory=list)  # footage time from contact to report
    # seq of each card play -> (footage time its ruling last changed, its contact time): with an
    # event log, the delay is until the ruling (owner, card, stays or goes back) stood as it does now
    ruled: dict[int, tuple[float, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = sorted(max(at - contact, 0.0) for at, contact in self.ruled.values()) if self.ruled else sorted(self.delays_s)
        return {
            "frames": self.frames,
            "detector_frames": self.detector_frames,
            "observations": self.observations,
            "rejected": self.rejected,
            "gaps": [g.to_dict() for g in self.gaps],
            "camera_bumps": [round(t, 3) for t in self.bumps],
            "ms_per_frame": round(1000 * self.process_s / self.frames, 2) if self.frames else None,
            "median_report_delay_ms": round(1000 * d[len(d) // 2], 1) if d else None,
        }


class Pipeline:
    """Feed frames with :meth:`process`; call :meth:`finish` at the end of the footage.

    ``log``: a ``referee.eventlog.EventLog`` (or ``None`` to only return observations);
    ``hub``: anything with ``publish(jpeg_bytes, frame_index, t)``; ``recorder``: a
    :class:`vision.record.FootageRecorder`; ``on_event``: called with every event appended.
    """

    def __init__(self, cfg: VisionConfig, source: SightingSource, fps: float = 30.0,
                 foundation_rule: str = "same_suit", log: Any = None, hub: Any = None,
                 recorder: Any = None, table_events: Iterable[dict[str, Any]] = (),
                 game_started: dict[str, Any] | None = None, hold_s: float = 1.2,
                 region_margin_mm: float = 100.0, focus_margin_mm: float = 30.0, px_per_mm: float = 0.5,
                 publish_every: int = 1,
                 publish_scale: float = 0.5, calibration_tries: int = 60,
                 on_event: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.cfg = cfg
        self.source = source
        self.fps = fps
        self.log = log
        self.hub = hub
        self.recorder = recorder
        self.on_event = on_event
        self.hold_s = hold_s
        self.region_margin_mm = region_margin_mm
        self.focus_margin_mm = focus_margin_mm
        self.px_per_mm = px_per_mm
        self.publish_every = max(int(publish_every), 1)
        self.publish_scale = publish_scale
        self.calibration_tries = calibration_tries
        self.foundation_rule = foundation_rule
        self.tracker = CardTracker(fps=fps)
        self.arms = ArmWatcher()
        self.reader = self._new_reader()
        self.gate = MotionGate(scale=0.5)
        self.calibration: Calibration | None = None
        self.monitor: CalibrationMonitor | None = None
        self.rectifier: Rectifier | None = None
        self.stats = PipelineStats()
        self.events: list[dict[str, Any]] = []  # everything appended, in order (observations.jsonl)
        self.rulings: list[dict[str, Any]] = []
        self._table_events = sorted((dict(e) for e in table_events), key=lambda e: e.get("t") or 0.0)
        self._round_open = False
        self._last_active_t = -1e9
        self._outside: dict[str, list[tuple[float, float]]] = {}
        self._calibration_failures = 0
        self._last_error = ""
        self._t = 0.0
        self._round_plays: list[tuple[int, dict[str, Any]]] = []  # (seq, event) of this round's card_touched
        self._seq_of: dict[int, int] = {}  # id(card_touched event as the reader sent it) -> seq (for revisions)
        self._verdicts: dict[int, tuple] = {}  # seq -> (owner, card, stays) as last ruled
        if game_started:
            self._append(game_started)
        self._explicit_rounds = any(e.get("type") == "round_started" for e in self._table_events)

    # --- event output ----------------------------------------------------------------------------
    def _append(self, event: dict[str, Any]) -> bool:
        seq = len(self.events) + 1  # (without a log: its line in observations.jsonl, as a replay numbers it)
        if self.log is not None:
            try:
                seq = self.log.append(event)
            except ValueError as exc:  # referee.observations.EventError: keep going, say why
                self.stats.rejected += 1
                self.reader.flags.append(_flag(event, f"refused by the referee: {exc}"))
                return False
            ruling = self.log.state().ruling(seq) if event.get("type") == "card_touched" else None
            if ruling:
                self.rulings.append(ruling)
        if event.get("type") == "round_started":
            self._round_plays = []
        elif event.get("type") == "card_touched":
            self._round_plays.append((seq, event))
            self._seq_of[id(event)] = seq
        self.events.append(event)
        if self.on_event:
            self.on_event(event)
        return True

    def _release_table_events(self, t: float, final: bool = False) -> None:
        while self._table_events:
            ev = self._table_events[0]
            et = ev.get("t")
            et = et if isinstance(et, (int, float)) else t
            if ev.get("type") == "round_started":
                if not final and t < et:
                    return
                self._new_round()
            elif not final and t < et + self.hold_s:
                return
            self._table_events.pop(0)
            self._append(ev)
            if ev.get("type") == "round_started":
                self._round_open = True

    def _new_round(self) -> None:
        # A new round clears the centre: piles start again (tracks of old cards are forgotten).
        self.events_flush(self._t)
        self.arms.reset()
        self.reader = self._new_reader()
        self.tracker = CardTracker(fps=self.fps)

    def _new_reader(self) -> PlayReader:
        from vision.plays import ReaderSettings

        # a source states how sure a read must be before it is ruled (its confidences' scale), and
        # may adjust how the reader waits for reads to the pace it reads at (``reader_settings``)
        overrides = dict(getattr(self.source, "reader_settings", None) or {})
        floor = getattr(self.source, "min_play_confidence", None)
        if floor is not None:
            overrides.setdefault("min_confidence", floor)
        settings = ReaderSettings(**overrides)
        return PlayReader(self.cfg, self.fps, self.foundation_rule, settings, arms=self.arms)

    def events_flush(self, t: float) -> None:
        for obs in self.reader.flush(t):
            self._observe(obs, t)

    def _observe(self, obs: dict[str, Any], t: float) -> None:
        if obs.get("type") == "pile_revised":
            self._revise(obs)
            return
        if obs.get("type") == "play_revised":
            self._revise_play(obs, t)
            return
        if not self._round_open and not self._explicit_rounds:
            self._append({"type": "round_started", "t": 0.0})
            self._round_open = True
        if self._append(obs):
            self.stats.observations += 1
            self.stats.delays_s.append(t - obs["t"])
            self._note_rulings(obs["pile"], t)

    def _revise_play(self, revision: dict[str, Any], t: float) -> None:
        """The reader revised a play it reported provisionally (``PlayReader._revision``: a
        contest's seen copy, once the other copy's arm has left): a ``set_owner`` and/or a
        ``set_time`` correction of that play, so the referee re-rules its pile."""
        original = revision["of"]
        seq = self._seq_of.get(id(original))
        if seq is None:
            return  # the play itself was refused by the log (flagged then): nothing to revise
        changes = []
        if "player" in revision:
            changes.append({"action": "set_owner", "player": revision["player"]})
        if "t" in revision or "uncertainty_ms" in revision:
            changes.append({"action": "set_time", "t": revision.get("t", original["t"]),
                            "uncertainty_ms": revision.get("uncertainty_ms", original.get("uncertainty_ms"))})
        for change in changes:
            self._append({"type": "correction", "target": seq, **change, "reason": revision["reason"]})
        for k, (s, ev) in enumerate(self._round_plays):
            if s == seq:
                self._round_plays[k] = (seq, {**ev, **{key: revision[key] for key in REVISED_FIELDS if key in revision}})
        if self.log is not None:
            fresh = self.log.ruling(seq)
            self.rulings = [fresh if r.get("seq") == seq and fresh else r for r in self.rulings]
        self._note_rulings(original["pile"], t)

    def _note_rulings(self, pile: str, t: float) -> None:
        """After a play on ``pile`` or a revision of one: when each ruling there last changed (the
        delay figure: a provisional ruling counts from when it stood as it stands at the end)."""
        if self.log is None:
            return
        for seq, ev in self._round_plays:
            if ev.get("pile") != pile:
                continue
            r = self.log.ruling(seq)  # (incremental: re-derives this pile only)
            if r is None:
                continue
            verdict = (r.get("player"), r.get("card"), r.get("stays"))
            if self._verdicts.get(seq) != verdict:
                self._verdicts[seq] = verdict
                self.stats.ruled[seq] = (t, r["t"])
            else:
                self.stats.ruled[seq] = (self.stats.ruled[seq][0], r["t"])

    def _revise(self, revision: dict[str, Any]) -> None:
        """The reader renamed cards of a pile it had misread (``PlayReader._misread_suit``): each
        play reported as one of them on that pile this round gets a ``set_card`` correction, so
        the referee re-judges the pile and the plays that build on it."""
        renamed = revision["renamed"]
        for k, (seq, ev) in enumerate(list(self._round_plays)):
            if ev.get("pile") == revision["pile"] and ev.get("card") in renamed:
                self._append({"type": "correction", "target": seq, "action": "set_card",
                              "card": renamed[ev["card"]], "reason": revision["reason"]})
                # (the play goes by its new name now: a pile may be revised again, fresh dev clip 5526)
                self._round_plays[k] = (seq, {**ev, "card": renamed[ev["card"]]})

    # --- frames ----------------------------------------------------------------------------------
    def _ensure_calibration(self, frame: Frame) -> bool:
        if self.calibration is not None:
            return True
        try:
            self.calibration = calibrate(frame.image, self.cfg)
        except CalibrationError as exc:
            self._calibration_failures += 1
            self._last_error = str(exc)
            if self._calibration_failures >= self.calibration_tries:
                raise PipelineError(f"cannot locate the table in the first {self._calibration_failures} "
                                    f"frames: {exc}") from None
            return False
        self._check_config_matches(frame)
        self.monitor = CalibrationMonitor(self.calibration, self.cfg)
        region = region_around(self.cfg.zones.common, self.region_margin_mm, self.cfg.zones.table_mm)
        self.rectifier = Rectifier(self.calibration, region, self.px_per_mm)
        self.monitor._last_check_t = frame.t
        return True

    def _check_config_matches(self, frame: Frame) -> None:
        """A config written for another camera puts the table outside the picture: say so."""
        h, w = frame.image.shape[:2]
        W, H = self.cfg.zones.table_mm
        corners = self.calibration.to_image(np.array([(0, 0), (W, 0), (W, H), (0, H)], dtype=np.float64))
        common = self.calibration.to_image(np.asarray(self.cfg.zones.common, dtype=np.float64))
        margin = 0.25 * max(w, h)
        if (common[:, 0].min() < -margin or common[:, 1].min() < -margin or common[:, 0].max() > w + margin
                or common[:, 1].max() > h + margin or not np.all(np.isfinite(corners))):
            raise PipelineError(f"the config does not match this video ({w}x{h}): its common area falls "
                                "outside the picture; check zones and calibration in the table config")

    def process(self, frame: Frame) -> list[dict[str, Any]]:
        """Handle one frame; returns the observations it produced."""
        start = time.perf_counter()
        self._t = frame.t
        self.stats.frames += 1
        if self.recorder is not None:
            self.recorder.write(frame.index, frame.t, frame.image)
        self._release_table_events(frame.t)
        if not self._ensure_calibration(frame):
            self.stats.process_s += time.perf_counter() - start
            return []
        if self.monitor is not None:
            check = self.monitor.check(frame.image, frame.t)
            if check is not None and check.bumped and check.calibration is not None:
                self.stats.bumps.append(frame.t)
                self.reader.flags.append(_flag({"t": frame.t}, f"camera moved by {check.moved_px:.1f} px: "
                                                "calibration renewed; rulings around this time deserve a look"))
                self.calibration = check.calibration
                self.rectifier.set_calibration(check.calibration)
                self.gate.reset()
        rectified_small = self._small_view(frame.image)
        changed = self.gate.update(rectified_small)
        scale = self.gate.scale
        self.arms.update(frame.t, self.gate.arm_mask, lambda p: self.rectifier.to_mm(np.asarray(p) / scale))
        busy = bool(changed) or frame.t - self._last_active_t < 0.4 or self.reader.wants_reads()
        out: list[dict[str, Any]] = []
        if busy:
            if changed:
                self._last_active_t = frame.t
            self.stats.detector_frames += 1
            # the source is told what changed since it last looked there (a change on a frame it
            # skipped is news, one it has seen since is not) and where landed cards wait for
            # reads; it says where it looked
            fresh = self.gate.fresh()
            changed_mm = self._focus([self._box_mm(b) for b in fresh])
            sightings = self.source.sightings(frame.index, frame.t, frame.image, self.calibration, self.rectifier,
                                              changed_mm=changed_mm, watch_mm=self.reader.watch_boxes())
            looked = getattr(self.source, "looked_mm", None)
            if looked is None:
                self.gate.mark_looked(None)
            elif looked:
                self.gate.mark_looked([self._box_px(b) for b in looked])
            if looked is None or looked:  # frames the detector skipped tell nothing about what is gone
                self.tracker.looked = looked
                self.tracker.update(self._drop_still_outside(sightings), frame.index, frame.t)
            # a card still moving (beyond position noise over three frames) keeps the detector on
            if sightings and any(t.last.t == frame.t and len(t.samples) > 2
                                 and math.hypot(t.last.x - t.samples[-3].x, t.last.y - t.samples[-3].y) > 6.0
                                 for t in self.tracker.tracks.values()):
                self._last_active_t = frame.t
        for obs in self.reader.update(self.tracker.tracks, frame.t):
            self._observe(obs, frame.t)
            out.append(obs)
        self.tracker.forget(frame.t, keep=lambda tr: tr.landed_index is not None and not tr.left)
        if self.hub is not None and self.stats.frames % self.publish_every == 0:
            self._publish(frame)
        self.stats.process_s += time.perf_counter() - start
        return out

    def _focus(self, boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
        """Changes clipped to the common area grown by ``focus_margin_mm``: plays happen there,
        while the rest of the watched margin is mostly the players' arms and their own layouts
        (an arm's seat comes from :class:`vision.attribution.ArmWatcher`, not from reading it)."""
        xs = [p[0] for p in self.cfg.zones.common]
        ys = [p[1] for p in self.cfg.zones.common]
        m = self.focus_margin_mm
        fx0, fy0, fx1, fy1 = min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m
        out = []
        for b in boxes:
            c = (max(b[0], fx0), max(b[1], fy0), min(b[2], fx1), min(b[3], fy1))
            if c[2] > c[0] and c[3] > c[1]:
                out.append(c)
        return out

    def _box_mm(self, b) -> tuple[float, float, float, float]:
        return tuple(float(v) for v in self.rectifier.to_mm(np.array([[b[0], b[1]], [b[2], b[3]]], dtype=np.float64)).ravel())

    def _box_px(self, b) -> tuple[float, float, float, float]:
        """Table mm → rectified px (the motion gate's frame)."""
        return tuple(float(v) for v in self.rectifier.to_px(np.array([[b[0], b[1]], [b[2], b[3]]], dtype=np.float64)).ravel())

    def _drop_still_outside(self, sightings: list) -> list:
        """Cards lying still outside the common area (the players' own layouts at its edge) are
        not followed: only their moves matter, and following them costs most of the tracking.
        A card starts being tracked the moment it moves, so its origin is still seen."""
        from vision.calibrate import point_in_polygon

        keep, seen = [], {}
        for s in sightings:
            inside = point_in_polygon((s.x, s.y), self.cfg.zones.common)
            if not inside:
                seen.setdefault(s.label, []).append((s.x, s.y))
                if any(math.hypot(s.x - x, s.y - y) < 3.0 for x, y in self._outside.get(s.label, ())):
                    continue
            keep.append(s)
        self._outside = seen
        self.tracker.hidden = seen
        return keep

    def _small_view(self, image: np.ndarray) -> np.ndarray:
        """The rectified common area at low resolution (0.5 px/mm): what the motion gate compares."""
        return self.rectifier.warp(image)

    def handle_gaps(self, gaps: list[Gap]) -> None:
        """Frames the source lost: camera loss makes plays seen only afterwards reviewable."""
        for gap in gaps:
            self.stats.gaps.append(gap)
            if gap.reason == "camera_lost":
                self.reader.camera_lost(gap.start_t, gap.end_t)
                self.reader.flags.append(_flag({"t": gap.start_t}, f"camera lost for {gap.end_t - gap.start_t:.2f}s; "
                                                "piles that changed meanwhile need review"))
                self.gate.reset()

    def finish(self) -> list[dict[str, Any]]:
        """End of footage: report pending plays, then the remaining table events."""
        t = self._t
        out = self.reader.flush(t + 1.0)
        for obs in out:
            self._observe(obs, t)
        self._release_table_events(t, final=True)
        if self.recorder is not None:
            self.recorder.close()
        return out

    @property
    def flags(self) -> list[dict[str, Any]]:
        return [f.to_dict() for f in self.reader.flags]

    def _publish(self, frame: Frame) -> None:
        from vision.annotate import annotate, to_jpeg

        status = f"t={frame.t:7.2f}s  frame {frame.index}"
        img = annotate(frame.image, self.calibration, self.cfg, self.reader.registry, self.tracker.tracks,
                       frame.t, self.rulings, status, scale=self.publish_scale)
        self.hub.publish(to_jpeg(img), frame.index, frame.t)


def _flag(event: dict[str, Any], reason: str):
    from vision.plays import Flag

    return Flag(float(event.get("t") or 0.0), reason, event.get("card"), event.get("pile"))


def read_table_events(path: str | Path) -> list[dict[str, Any]]:
    """Non-visual events (round_started, nerts_called, everyone_stuck, round_ended) from a JSONL
    file of referee events; card events in it are ignored (vision reports those). Each line is
    checked by the referee's own reader, so a bad line is named exactly as ``replay`` names it."""
    from referee.eventlog import read_jsonl

    keep = {"round_started", "nerts_called", "everyone_stuck", "round_ended"}
    return [ev for ev in read_jsonl(path) if ev["type"] in keep]
