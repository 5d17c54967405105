"""Synthetic card motion for testing the play logic without pixels or a detector.

A :class:`SyntheticScene` moves cards from each seat's side of the table to foundation spots along
minimum-jerk reaches (the human reach profile), lets them slide a little after contact, stacks them
(a later card covers the earlier one) and produces per-frame :class:`TableSighting` lists with
position noise, dropped detections, occasional misreads and hand occlusion. The true contact times
are known exactly, so tracking, contact timing, attribution and the foundation registry can be
tested against truth.

>>> scene = SyntheticScene(players=["ana", "ben"], seed=1)
>>> _ = scene.play("AH", "ana", slot=0, t_contact=1.0)
>>> frames = scene.frames(duration=2.0)
>>> len(frames), max(len(s) for _, _, s in frames)
(60, 1)
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from vision.contact import min_jerk
from vision.tracking import TableSighting

CARD_NAMES = [f"{r}{s}" for s in "CDHS" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]]


@dataclass
class SynthPlay:
    card: str
    player: str
    seat: int
    slot: int
    t_contact: float
    duration: float
    start: tuple[float, float]
    contact: tuple[float, float]
    final: tuple[float, float]
    t_settle: float
    z: int = 0
    t_leave: float | None = None  # taken back (a dispute loser) at this time
    hover: tuple[float, float] | None = None  # (mm short of the pile, seconds): pause before the drop


@dataclass
class SyntheticScene:
    players: list[str]
    seed: int = 0
    table_mm: tuple[float, float] = (1200.0, 900.0)
    fps: float = 30.0
    noise_mm: float = 0.7
    miss_rate: float = 0.03
    misread_rate: float = 0.01
    confidence: float = 0.9
    plays: list[SynthPlay] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        w, h = self.table_mm
        self.common = [(w / 4, h / 4), (3 * w / 4, h / 4), (3 * w / 4, 3 * h / 4), (w / 4, 3 * h / 4)]
        self.slots = [(w / 4 + 90 + i * 85, h / 4 + 80 + j * 110) for j in range(3) for i in range(5)]

    def config(self) -> dict:
        w, h = self.table_mm
        return {
            "zones": {"table_mm": [w, h], "common": [list(p) for p in self.common]},
            "players": [{"name": n, "seat": i} for i, n in enumerate(self.players)],
        }

    def _seat_angle(self, seat: int) -> float:
        """The seat's direction from the table centre (radians, y down), as VisionConfig.seat_angles."""
        return math.pi / 2 + seat * 2 * math.pi / len(self.players)

    def seat_point(self, seat: int) -> tuple[float, float]:
        w, h = self.table_mm
        a = self._seat_angle(seat)
        dx, dy = math.cos(a), math.sin(a)
        r = min((w / 2 - 120) / max(abs(dx), 1e-9), (h / 2 - 120) / max(abs(dy), 1e-9))
        return (w / 2 + dx * r + self.rng.uniform(-60, 60) * abs(dy),
                h / 2 + dy * r + self.rng.uniform(-60, 60) * abs(dx))

    def play(self, card: str, player: str, slot: int, t_contact: float, duration: float | None = None,
             slide_mm: float = 3.0, t_leave: float | None = None,
             hover: tuple[float, float] | None = None) -> SynthPlay:
        seat = self.players.index(player)
        dur = duration if duration is not None else self.rng.uniform(0.35, 0.7)
        sx, sy = self.slots[slot]
        contact = (sx + self.rng.gauss(0, 3), sy + self.rng.gauss(0, 3))
        ang = self.rng.uniform(0, 2 * math.pi)
        final = (contact[0] + slide_mm * math.cos(ang), contact[1] + slide_mm * math.sin(ang))
        p = SynthPlay(card, player, seat, slot, t_contact, dur, self.seat_point(seat), contact, final,
                      t_contact + self.rng.uniform(0.08, 0.2), z=len(self.plays), t_leave=t_leave, hover=hover)
        self.plays.append(p)
        return p

    def _pose(self, p: SynthPlay, t: float) -> tuple[float, float] | None:
        t_grab = p.t_contact - p.duration
        if t < t_grab:
            return None  # still in the player's layout (outside what the centre camera tracks)
        if p.t_leave is not None and t >= p.t_leave:
            s = min_jerk((t - p.t_leave) / 0.5)
            if s >= 1:
                return None
            return (p.final[0] + (p.start[0] - p.final[0]) * s, p.final[1] + (p.start[1] - p.final[1]) * s)
        if t < p.t_contact and p.hover:
            # reach to a point short of the pile, pause, then a short final move (a hand that
            # waits over the pile before putting the card down)
            short, pause = p.hover
            final_move = 0.12
            dx, dy = p.contact[0] - p.start[0], p.contact[1] - p.start[1]
            norm = math.hypot(dx, dy) or 1.0
            hov = (p.contact[0] - dx / norm * short, p.contact[1] - dy / norm * short)
            t_drop = p.t_contact - final_move
            t_hover = t_drop - pause
            if t < t_hover:
                s = min_jerk((t - t_grab) / max(t_hover - t_grab, 1e-3))
                return (p.start[0] + (hov[0] - p.start[0]) * s, p.start[1] + (hov[1] - p.start[1]) * s)
            if t < t_drop:
                return hov
            s = min_jerk((t - t_drop) / final_move)
            return (hov[0] + (p.contact[0] - hov[0]) * s, hov[1] + (p.contact[1] - hov[1]) * s)
        if t < p.t_contact:
            s = min_jerk((t - t_grab) / p.duration)
            return (p.start[0] + (p.contact[0] - p.start[0]) * s, p.start[1] + (p.contact[1] - p.start[1]) * s)
        s = min_jerk((t - p.t_contact) / (p.t_settle - p.t_contact))
        return (p.contact[0] + (p.final[0] - p.contact[0]) * s, p.contact[1] + (p.final[1] - p.contact[1]) * s)

    def visible(self, t: float) -> list[tuple[SynthPlay, tuple[float, float], bool]]:
        """Cards on view at ``t``: (play, centre mm, covered by a later card at the same spot)."""
        visible: list[tuple[SynthPlay, tuple[float, float]]] = []
        for p in self.plays:
            pos = self._pose(p, t)
            if pos is not None:
                visible.append((p, pos))
        out = []
        for p, pos in visible:
            covered = any(q.z > p.z and q.t_contact <= t and math.hypot(qp[0] - pos[0], qp[1] - pos[1]) < 25
                          and (q.t_leave is None or t < q.t_leave) for q, qp in visible)
            out.append((p, pos, covered))
        return out

    def frames(self, duration: float, t0: float = 0.0) -> list[tuple[int, float, list[TableSighting]]]:
        """``[(frame index, t, sightings)]`` over ``duration`` seconds."""
        out = []
        n = int(round(duration * self.fps))
        for i in range(n):
            t = t0 + i / self.fps
            sightings = []
            for p, pos, covered in self.visible(t):
                # the pile shows its top card only
                if covered or self.rng.random() < self.miss_rate:
                    continue
                label = p.card
                if self.rng.random() < self.misread_rate:
                    label = self.rng.choice(CARD_NAMES)
                sightings.append(TableSighting(
                    label, min(max(self.confidence + self.rng.gauss(0, 0.05), 0.05), 0.99),
                    pos[0] + self.rng.gauss(0, self.noise_mm), pos[1] + self.rng.gauss(0, self.noise_mm)))
            out.append((i, t, sightings))
        return out

    def render_clip(self, out_dir: str | Path, duration: float, size: tuple[int, int] = (640, 360),
                    tilt: float = 0.08, markers: bool = True) -> dict[str, Path]:
        """Write ``table.mp4`` (ArUco corners, cards as pale rectangles), ``poses.jsonl`` (truth per
        frame, image quads), ``table.toml`` and ``truth.jsonl`` (the observations a perfect observer
        would make) into ``out_dir``; for end-to-end tests of the pipeline without the simulator."""
        import cv2
        import numpy as np

        from vision.record import FootageRecorder

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        w_px, h_px = size
        W, H = self.table_mm
        # table corners in the image: a mild perspective (the far edge is narrower)
        m = 0.04 * w_px
        img_corners = np.float32([[m + tilt * w_px, m], [w_px - m - tilt * w_px, m], [w_px - m, h_px - m], [m, h_px - m]])
        mm_corners = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
        Hm = cv2.getPerspectiveTransform(mm_corners, img_corners)  # mm -> px
        base = np.zeros((h_px, w_px, 3), np.uint8)
        base[:] = (40, 40, 40)
        table = cv2.warpPerspective(np.full((int(H), int(W), 3), (60, 110, 50), np.uint8), Hm, (w_px, h_px))
        base = np.where(table.sum(axis=2, keepdims=True) > 0, table, base)
        marker_mm = 70.0
        if markers:
            dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
            for i, (cx, cy) in enumerate([(0, 0), (W, 0), (W, H), (0, H)]):
                cx = min(max(cx, marker_mm), W - marker_mm)
                cy = min(max(cy, marker_mm), H - marker_mm)
                tile = cv2.aruco.generateImageMarker(dictionary, i, 120)
                tile = cv2.copyMakeBorder(tile, 24, 24, 24, 24, cv2.BORDER_CONSTANT, value=255)
                s = marker_mm * 168 / 120 / 2
                src = np.float32([[0, 0], [168, 0], [168, 168], [0, 168]])
                dst = cv2.perspectiveTransform(np.float32([[[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]]]), Hm)[0]
                warped = cv2.warpPerspective(cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR), cv2.getPerspectiveTransform(src, dst), (w_px, h_px))
                mask = cv2.warpPerspective(np.full((168, 168), 255, np.uint8), cv2.getPerspectiveTransform(src, dst), (w_px, h_px))
                base[mask > 0] = warped[mask > 0]
            self.marker_centres = [(min(max(x, marker_mm), W - marker_mm), min(max(y, marker_mm), H - marker_mm))
                                   for x, y in [(0, 0), (W, 0), (W, H), (0, H)]]
        poses = open(out / "poses.jsonl", "w", encoding="utf-8")
        n = int(round(duration * self.fps))
        with FootageRecorder(out / "table.mp4", w_px, h_px, self.fps) as rec:
            for i in range(n):
                t = i / self.fps
                frame = base.copy()
                cards = []
                for p, pos, covered in sorted(self.visible(t), key=lambda v: v[0].z):
                    # a card faces its player: its top points from their seat to the table centre
                    a = self._seat_angle(p.seat)
                    ux, uy = -math.cos(a), -math.sin(a)
                    rx, ry = -uy, ux  # the card's right: a quarter turn clockwise (y points down)
                    quad_mm = np.float32([[[pos[0] + sx_ * 31.5 * rx + sy_ * 44 * ux, pos[1] + sx_ * 31.5 * ry + sy_ * 44 * uy]
                                           for sx_, sy_ in ((-1, 1), (1, 1), (1, -1), (-1, -1))]])
                    quad = cv2.perspectiveTransform(quad_mm, Hm)[0]
                    shade = 200 + 5 * (CARD_NAMES.index(p.card) % 10)
                    cv2.fillConvexPoly(frame, quad.astype(np.int32), (shade, shade, shade - 20), cv2.LINE_AA)
                    cards.append({"card": p.card, "owner": p.player, "quad": quad.round(2).tolist(),
                                  "occluded": 1.0 if covered else 0.0, "face_up": True})
                rec.write(i, t, frame)
                poses.write(json.dumps({"frame": i, "t": t, "cards": cards}) + "\n")
        poses.close()
        players = "".join(f'[[players]]\nname = "{n}"\nback = "{c}"\nseat = {k}\n\n'
                          for k, (n, c) in enumerate(zip(self.players, ["red", "blue", "green", "black", "navy", "teal", "maroon", "grey"])))
        common = ", ".join(f"[{x:g}, {y:g}]" for x, y in self.common)
        mk = ", ".join(f"[{x:g}, {y:g}]" for x, y in getattr(self, "marker_centres", [(0, 0), (W, 0), (W, H), (0, H)]))
        corners = ", ".join(f"[{x:.1f}, {y:.1f}]" for x, y in img_corners)
        (out / "table.toml").write_text(
            f'[table]\nname = "synthetic"\n\n{players}[rules]\n\n[camera]\nsource = "table.mp4"\n'
            f"width = {w_px}\nheight = {h_px}\nfps = {self.fps:g}\n\n"
            f'[calibration]\nmarkers = "{"aruco_4x4_50" if markers else "none"}"\nmarker_mm = [{mk}]\n'
            f"corners = [{corners}]\n\n[zones]\ntable_mm = [{W:g}, {H:g}]\ncommon = [{common}]\n",
            encoding="utf-8")
        with open(out / "truth.jsonl", "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"type": "round_started", "t": 0.0}) + "\n")
            for p in sorted(self.plays, key=lambda p: p.t_contact):
                fh.write(json.dumps({"type": "card_touched", "t": p.t_contact, "card": p.card,
                                     "player": p.player, "pile": f"s{p.slot}"}) + "\n")
        return {"video": out / "table.mp4", "poses": out / "poses.jsonl", "config": out / "table.toml",
                "truth": out / "truth.jsonl"}
