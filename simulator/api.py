"""The simulator's Python API: ``simulate(SimulationConfig(...)) -> SimulationResult``.

One call plays a game with bots, writes its truth (``truth.jsonl``, ``truth.json``, ``table.toml``)
and renders the overhead footage (``table.mp4``) with per-frame card poses (``poses.jsonl``) and,
when asked, YOLO-labelled frames (``yolo/``). Truth is written before rendering starts, so a render
that fails or is interrupted never loses it.

>>> from simulator.api import SimulationConfig, simulate
>>> res = simulate(SimulationConfig(players=2, seed=3, max_seconds=12, video=False))
>>> res.record.truth[1]["type"]
'round_started'
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from nerts_referee.errors import UsageError
from simulator.game import GameConfig, GameRecord, play_game

YOLO_CLASSES: tuple[str, ...] = tuple(sorted(
    [f"{r}{s}" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "CDHS"]
    + ["BACK", "BLACK JOKER", "RED JOKER"]))
"""The 55 class names of Contract 4 (the order of ``../shared/datasets/real-dev/classes.yaml``)."""

_YOLO_NAME = {"JOKER-B": "BLACK JOKER", "JOKER-R": "RED JOKER"}


@dataclass
class SimulationConfig:
    """Everything ``nerts-referee simulate`` can set. ``out=None`` keeps results in memory only."""

    players: int = 4
    seed: int = 0
    out: str | Path | None = None
    fps: float = 30.0
    size: tuple[int, int] = (1280, 720)
    tilt_deg: float = 10.0
    deck_art: str | Path | None = None
    disputes: list[float] = field(default_factory=list)
    rounds: int = 1
    max_seconds: float | None = None
    yolo_every: int = 0
    rules: dict[str, Any] = field(default_factory=dict)
    skill: float | list[float] = 0.5
    names: list[str] | None = None
    backs: list[str] | None = None
    land_after_call: bool = False  # cards in the air at the Nerts call still land (see GameConfig)
    mistakes: float = 0.0  # chance of a misjudged (illegal) play when a bot has nothing to play (see GameConfig)
    markers: bool = True
    cloth: str | None = None
    noise: float = 2.5
    video: bool = True
    poses: bool = True
    poses_every: int = 1  # write poses.jsonl for every Nth frame only (it is ~30 MB per minute)
    progress: bool = True
    crf: int = 23
    preset: str = "ultrafast"  # x264 preset: ultrafast is ~2x cheaper; veryfast makes ~5x smaller files

    def validate(self) -> None:
        w, h = self.size
        if not (isinstance(w, int) and isinstance(h, int)) or w < 160 or h < 90 or w > 7680 or h > 4320 \
                or w % 2 or h % 2:
            raise UsageError(f"--size: {w}x{h} is not allowed; allowed values: even WxH from 160x90 to 7680x4320")
        if not (1.0 <= float(self.fps) <= 240.0):
            raise UsageError(f"--fps: {self.fps!r} is not allowed; allowed values: 1 to 240")
        if not (0.0 <= float(self.tilt_deg) <= 30.0):
            raise UsageError(f"--tilt: {self.tilt_deg!r} is not allowed; allowed values: 0 to 30 degrees")
        if isinstance(self.yolo_every, bool) or not isinstance(self.yolo_every, int) or self.yolo_every < 0:
            raise UsageError(f"--yolo-every: {self.yolo_every!r} is not allowed; allowed values: 0 (off) or N >= 1")
        if isinstance(self.poses_every, bool) or not isinstance(self.poses_every, int) or self.poses_every < 1:
            raise UsageError(f"--poses-every: {self.poses_every!r} is not allowed; allowed values: N >= 1")
        if self.yolo_every and not self.out:
            raise UsageError("--yolo-every needs an output folder (--out)")
        if self.cloth is not None:
            from simulator.render import CLOTHS
            if self.cloth not in CLOTHS:
                raise UsageError(f"cloth: {self.cloth!r} is not allowed; allowed values: {', '.join(CLOTHS)}")

    def game_config(self) -> GameConfig:
        return GameConfig(players=self.players, seed=self.seed, names=self.names, backs=self.backs,
                          rules=dict(self.rules), skill=self.skill, disputes=list(self.disputes),
                          rounds=self.rounds, max_seconds=self.max_seconds,
                          land_after_call=self.land_after_call, mistakes=self.mistakes)


@dataclass
class SimulationResult:
    config: SimulationConfig
    record: GameRecord
    frames: int = 0
    fps: float = 30.0
    render_s: float = 0.0
    paths: dict[str, Path] = field(default_factory=dict)
    table: dict[str, Any] = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return self.record.duration

    @property
    def speed(self) -> float:
        """Rendered footage seconds per wall-clock second (>= 2 is the target at 1280x720 30 fps)."""
        return (self.frames / self.fps) / self.render_s if self.render_s > 0 else 0.0


def load_deck(path: str | Path | None, jokers: bool = False):
    from simulator.deck_art import DeckArt

    text = str(path) if path is not None else "drawn"
    if text == "drawn" or text.startswith("drawn:"):  # the project's own deck, optionally another style
        try:
            style = int(text.partition(":")[2] or 0)
        except ValueError:
            raise UsageError(f"--deck-art: {text!r} is not allowed; use a deck folder or drawn:N") from None
        deck = DeckArt.drawn(style)
    else:
        deck = DeckArt.load(path)
    if jokers and deck.folder is not None:
        for j in ("JOKER-R", "JOKER-B"):
            if not (deck.folder / f"{j}.png").is_file():
                raise UsageError(f"deck folder {deck.folder} has no {j}.png, needed with jokers = on")
    return deck


def truth_events(record: GameRecord, fps: float) -> list[dict[str, Any]]:
    """The truth log with evidence frames: the last frame before contact and the first after."""
    out = []
    for ev in record.truth:
        ev = dict(ev)
        if ev["type"] == "card_touched":
            f0 = int(math.floor(ev["t"] * fps))
            ev["uncertainty_ms"] = 0.0
            ev["confidence"] = 1.0
            ev["evidence"] = {"frames": [f0, f0 + 1], "source": "simulator"}
        out.append(ev)
    return out


def summary(record: GameRecord, cfg: SimulationConfig, frames: int, deck_name: str) -> dict[str, Any]:
    return {
        "seed": cfg.seed, "fps": cfg.fps, "size": list(cfg.size), "tilt_deg": cfg.tilt_deg, "deck": deck_name,
        "frames": frames, "duration_s": round(record.duration, 6),
        "players": record.players,
        "rules": record.rules.to_dict(),
        "totals": record.totals,
        "rounds": [{"number": r.index + 1, "t_start": round(r.t_start, 6), "t_end": round(r.t_end, 6),
                    "ended_by": r.ended_by, "caller": r.caller, "centre_cards": r.centre,
                    "nerts_left": r.nerts_left, "scores": r.scores} for r in record.rounds],
        "disputes": [d.to_dict() for d in record.disputes],
        "mistakes": record.mistakes,
        "unstaged_disputes_ms": record.unstaged,
    }


def table_config(record: GameRecord, cfg: SimulationConfig, camera=None) -> dict[str, Any]:
    """Contract 2: the table configuration a user would write for this table."""
    from simulator.render import MARKER_MM, marker_centres

    lay = record.layout
    w, h = lay.table_mm
    players = [{"name": p["name"], "back": p["back"], "seat": p["seat"], "team": p["team"] or ""}
               for p in record.players]
    seats = {}
    for i, p in enumerate(record.players):
        deck = i // 2 if record.rules.teams == "pairs" else i
        seats[p["name"]] = [[round(x, 1), round(y, 1)] for x, y in lay.seat_zone(deck)]
    cal: dict[str, Any] = {"markers": "aruco_4x4_50" if cfg.markers else "none",
                           "marker_mm": [[round(x, 1), round(y, 1)] for x, y in marker_centres(lay.table_mm)],
                           "marker_size_mm": MARKER_MM}
    if camera is not None:
        cal["corners"] = [[round(float(x), 2), round(float(y), 2)] for x, y in camera.project(lay.corners())]
    rules = record.rules.to_dict()
    return {
        "table": {"name": f"simulated table (seed {cfg.seed})"},
        "players": players,
        "rules": rules,
        "camera": {"source": "table.mp4", "width": cfg.size[0], "height": cfg.size[1], "fps": cfg.fps},
        "calibration": cal,
        "zones": {"table_mm": [w, h], "common": [[round(x, 1), round(y, 1)] for x, y in lay.common],
                  "seats": seats},
    }


def to_toml(data: dict[str, Any]) -> str:
    """A small TOML writer for the table file (tables, arrays of tables, scalars, nested lists)."""

    def val(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{_key(k)} = {val(x)}" for k, x in v.items()) + " }"
        if v is None:
            return '""'
        raise TypeError(f"cannot write {type(v).__name__} to TOML")

    lines: list[str] = []
    for section, body in data.items():
        if isinstance(body, list):
            for item in body:
                lines.append(f"[[{section}]]")
                lines += [f"{_key(k)} = {val(v)}" for k, v in item.items()]
                lines.append("")
            continue
        lines.append(f"[{section}]")
        subtables = {k: v for k, v in body.items() if isinstance(v, dict)}
        lines += [f"{_key(k)} = {val(v)}" for k, v in body.items() if not isinstance(v, dict)]
        lines.append("")
        for k, v in subtables.items():
            lines.append(f"[{section}.{_key(k)}]")
            lines += [f"{_key(k2)} = {val(v2)}" for k2, v2 in v.items()]
            lines.append("")
    return "\n".join(lines)


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def simulate(cfg: SimulationConfig, on_frame: Callable[..., None] | None = None) -> SimulationResult:
    """Play, record and (unless ``cfg.video`` is false) render one simulated game."""
    cfg.validate()
    gcfg = cfg.game_config()
    record = play_game(gcfg)
    deck = load_deck(cfg.deck_art, jokers=record.rules.jokers == "on") if (cfg.video or cfg.yolo_every or cfg.poses) \
        else None
    out = Path(cfg.out) if cfg.out else None
    res = SimulationResult(cfg, record, fps=cfg.fps)
    camera = None
    renderer = None
    if deck is not None and (cfg.video or cfg.poses or cfg.yolo_every):
        renderer = make_renderer(record, deck, cfg)
        camera = renderer.cam
    if camera is None:  # no rendering: the same camera still gives table.toml its corners
        from simulator.camera import Camera

        camera = Camera.fit(record.layout.table_mm, tuple(cfg.size), tilt_deg=float(cfg.tilt_deg))
    res.table = table_config(record, cfg, camera)
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--out: cannot create {out}: {exc.strerror}") from None
        events = truth_events(record, cfg.fps)
        p = out / "truth.jsonl"
        p.write_text("".join(json.dumps(e) + "\n" for e in events))
        res.paths["truth.jsonl"] = p
        p = out / "table.toml"
        p.write_text(to_toml(res.table))
        res.paths["table.toml"] = p
    frames = renderer.frame_count() if renderer is not None else int(math.floor(record.duration * cfg.fps)) + 1
    if out is not None:
        p = out / "truth.json"
        p.write_text(json.dumps(summary(record, cfg, frames, deck.name if deck else "drawn"), indent=1) + "\n")
        res.paths["truth.json"] = p
    if renderer is not None and (out is not None or on_frame is not None):
        t0 = time.perf_counter()
        res.frames = _render(renderer, record, cfg, out, res, on_frame)
        res.render_s = time.perf_counter() - t0
    return res


def make_renderer(record: GameRecord, deck, cfg: SimulationConfig):
    from simulator.render import Renderer, RenderConfig

    lay = record.layout
    hand_sources = [(lay.shoulder(h.deck, h.offset_mm), lay.hand_rest(h.deck, h.offset_mm))
                    for h in record.timeline.hands]
    owners = {}
    for i, p in enumerate(record.players):
        deck_i = i // 2 if record.rules.teams == "pairs" else i
        owners.setdefault(deck_i, p["team"] or p["name"])
    rcfg = RenderConfig(size=tuple(cfg.size), fps=float(cfg.fps), tilt_deg=float(cfg.tilt_deg), markers=cfg.markers,
                        cloth=cfg.cloth, noise=cfg.noise, seed=cfg.seed)
    return Renderer(record.timeline, lay.table_mm, deck, rcfg, owners, hand_sources,
                    [p["name"] for p in record.players])


def _render(renderer, record: GameRecord, cfg: SimulationConfig, out: Path | None, res: SimulationResult,
            on_frame: Callable[..., None] | None) -> int:
    """Render every frame; encode on a second thread so drawing and H.264 overlap on two cores
    (OpenCV, numpy and libx264 release the GIL)."""
    import queue
    import threading

    from tqdm import tqdm

    from simulator.video import VideoWriter

    n = renderer.frame_count()
    writer = None
    poses_f = None
    yolo = None
    if out is not None and cfg.video:
        writer = VideoWriter(out / "table.mp4", tuple(cfg.size), cfg.fps, crf=cfg.crf, preset=cfg.preset)
        res.paths["table.mp4"] = out / "table.mp4"
    if out is not None and cfg.poses:
        poses_f = open(out / "poses.jsonl", "w")
        res.paths["poses.jsonl"] = out / "poses.jsonl"
    if out is not None and cfg.yolo_every:
        yolo = YoloExporter(out / "yolo", renderer)
        res.paths["yolo"] = out / "yolo"
    frames: queue.Queue = queue.Queue(maxsize=6)
    failure: list[BaseException] = []

    def encode() -> None:
        while True:
            item = frames.get()
            if item is None:
                return
            if failure:
                continue  # drain after an error so the renderer never blocks
            try:
                writer.write(*item)  # type: ignore[union-attr]
            except BaseException as exc:  # reported on the main thread
                failure.append(exc)

    encoder = threading.Thread(target=encode, name="h264", daemon=True) if writer is not None else None
    if encoder is not None:
        encoder.start()
    count = 0
    try:
        bar = tqdm(total=n, unit="frame", desc="rendering", disable=not cfg.progress, leave=False,
                   mininterval=0.5)
        for fr in renderer.frames():
            if encoder is not None:
                frames.put((fr.image, fr.index))
                if failure:
                    raise failure[0]
            if poses_f is not None and fr.index % cfg.poses_every == 0:
                poses_f.write(fr.poses_json() + "\n")
            if yolo is not None and fr.index % cfg.yolo_every == 0:
                yolo.add(fr)
            if on_frame is not None:
                on_frame(fr)
            count += 1
            bar.update(1)
        bar.close()
    finally:
        if encoder is not None:
            frames.put(None)
            encoder.join()
        if writer is not None:
            writer.close()
        if poses_f is not None:
            poses_f.close()
        if yolo is not None:
            yolo.close()
    if failure:
        raise failure[0]
    return count


class YoloExporter:
    """Contract 4: ``images/*.jpg``, ``labels/*.txt`` (class cx cy w h, normalised), ``classes.yaml``.

    Boxes surround each printed corner index of a face-up card that is mostly visible (at least 60%
    of the box's pixels show that card) and each mostly visible face-down card (``BACK``).
    """

    MIN_VISIBLE = 0.6

    def __init__(self, folder: Path, renderer):
        self.folder = folder
        self.r = renderer
        (folder / "images").mkdir(parents=True, exist_ok=True)
        (folder / "labels").mkdir(parents=True, exist_ok=True)
        names = "\n".join(f"  {i}: {json.dumps(n)}" for i, n in enumerate(YOLO_CLASSES))
        (folder / "classes.yaml").write_text(
            "# Contract 4 classes (same order as ../shared/datasets/real-dev/classes.yaml)\n"
            f"nc: {len(YOLO_CLASSES)}\nnames:\n{names}\n")
        self.index = {n: i for i, n in enumerate(YOLO_CLASSES)}
        self.count = 0

    def labels(self, fr) -> list[tuple[int, float, float, float, float]]:
        import numpy as np

        r = self.r
        W, H = r.W, r.H
        label = fr.label
        drawn = [d for d, _ in fr.visible]
        from simulator.render import LABEL_SCALE

        out = []
        for d in drawn:
            info = r.tl.cards[d.uid]
            if d.face_up:
                cls = self.index[_YOLO_NAME.get(info.name, info.name)]
                quads = r.index_boxes(d)
            else:
                cls = self.index["BACK"]
                quads = [d.quad]
            for q in quads:
                x0, y0 = np.clip(q.min(0), 0, [W, H])
                x1, y1 = np.clip(q.max(0), 0, [W, H])
                if x1 - x0 < 2 or y1 - y0 < 2:
                    continue
                lx0, ly0 = int(x0 * LABEL_SCALE), int(y0 * LABEL_SCALE)
                lx1, ly1 = max(lx0 + 1, int(math.ceil(x1 * LABEL_SCALE))), max(ly0 + 1, int(math.ceil(y1 * LABEL_SCALE)))
                patch = label[ly0:ly1, lx0:lx1]
                if patch.size == 0:
                    continue
                poly = np.round(q * LABEL_SCALE).astype(np.int32) - np.array([lx0, ly0], np.int32)
                mask = np.zeros(patch.shape, np.uint8)
                import cv2
                cv2.fillConvexPoly(mask, poly, 1)
                inside = int(mask.sum())
                if inside == 0:
                    continue
                vis = int(((patch == d.uid + 1) & (mask == 1)).sum()) / inside
                if vis < self.MIN_VISIBLE:
                    continue
                out.append((cls, (x0 + x1) / 2 / W, (y0 + y1) / 2 / H, (x1 - x0) / W, (y1 - y0) / H))
        return out

    def add(self, fr) -> None:
        import cv2

        stem = f"frame_{fr.index:06d}"
        cv2.imwrite(str(self.folder / "images" / f"{stem}.jpg"), fr.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        rows = self.labels(fr)
        (self.folder / "labels" / f"{stem}.txt").write_text(
            "".join(f"{c} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for c, cx, cy, w, h in rows))
        self.count += 1

    def close(self) -> None:
        pass
