"""Whole sessions: analyse a video file offline, or referee a live camera with the dashboard.

:func:`analyze_video` writes into its output folder:

- ``game.db``: the event log (observations, frame-index→time table, meta);
- ``observations.jsonl``: everything appended to the log, in order (the replay schema: a
  ``game_started`` line with players and rules, then rounds and card observations), so
  ``nerts-referee replay DIR/observations.jsonl --json`` reproduces ``result.json``;
- ``result.json``: the referee's result (``rulings``, ``totals``), as ``replay --json`` prints it;
- ``review.jsonl``: what vision flagged instead of ruling (low-confidence reads, camera loss, a
  bumped camera, refused observations);
- ``stats.json``: frames, detector frames, timing.

Anything already appended stays in ``game.db`` if the footage turns out to be damaged halfway.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from vision.capture import CaptureError, FrameSource, VideoFileSource, open_source
from vision.config import VisionConfig
from vision.pipeline import Pipeline, PipelineError


@dataclass
class AnalyzeResult:
    out_dir: Path
    result: dict[str, Any]
    stats: dict[str, Any]
    flags: list[dict[str, Any]]
    error: str | None = None  # footage damaged after some frames: what was seen is still kept


def _settings(config_path: Path):
    from referee.settings import TableSettings

    return TableSettings.load(config_path)


def game_started_event(settings) -> dict[str, Any] | None:
    if not settings.players:
        return None
    players = [{k: v for k, v in p.to_dict().items() if v is not None} for p in settings.players]
    return {"type": "game_started", "players": players, "settings": settings.rules.to_dict()}


def make_source(kind: str, poses: Path | None = None, seed: int = 0, weights: str | None = None,
                config_path: str | Path | None = None, read_backs: bool = False):
    """``kind``: ``detector`` (the trained model) or ``poses`` (simulator truth, for development).

    ``read_backs``: name the owner of every face-down card the detector boxes (the players' back
    colours from the config). Off by default: in Nerts a card reaches the centre face up, so a
    back is never seen on a played card's track and the owners named only cost time (about a
    quarter of each detector call on dev clips)."""
    from vision.sources import DetectorSightings, PoseSightings

    if kind == "poses":
        if poses is None:
            raise ValueError("--poses FILE is needed to analyse with simulator truth")
        return PoseSightings(poses, seed=seed)
    backs = None
    if read_backs and config_path is not None:
        cfg = VisionConfig.load(config_path)
        backs = {str(p["name"]): str(p.get("back", "")) for p in cfg.players}
    return DetectorSightings.load(weights, backs=backs)


def share_cores_with_the_detector() -> None:
    """One OpenCV thread: the loop's cores go to the detector (onnxruntime's two threads) and the
    footage encoder, and OpenCV's own pool, splitting each frame's small warps and blurs, only
    adds switching (dev clip 5253, recording on: 8% less CPU, 4% less wall time, the same
    observations)."""
    import cv2

    cv2.setNumThreads(1)


def analyze_video(video: str | Path, config_path: str | Path, out_dir: str | Path, source: Any,
                  table_events: list[dict[str, Any]] | None = None, record: bool = False,
                  progress: bool = True, hub: Any = None) -> AnalyzeResult:
    """Referee ``video`` with the table config; see the module docstring for what is written."""
    from referee.eventlog import EventLog

    share_cores_with_the_detector()

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = VisionConfig.load(config_path)
    settings = _settings(Path(config_path))
    src = VideoFileSource(video)
    if (cfg.camera.width, cfg.camera.height) != (src.width, src.height) and cfg.calibration.markers == "none":
        src.close()
        raise PipelineError(f"the config is for a {cfg.camera.width}x{cfg.camera.height} camera but the video is "
                            f"{src.width}x{src.height}; its manual corners cannot apply")
    db = out / "game.db"
    for stale in (db, out / "game.db-wal", out / "game.db-shm"):
        stale.unlink(missing_ok=True)  # a fresh analysis: never mix two runs in one log
    log = EventLog.open(db, settings)
    log.set_meta("footage", str(Path(video).resolve()))
    log.set_meta("source", "vision.analyze")
    recorder = None
    if record:
        from vision.record import FootageRecorder

        recorder = FootageRecorder(out / "footage.mp4", src.width, src.height, src.fps, log=log)
    obs_path = out / "observations.jsonl"
    obs_file = open(obs_path, "w", encoding="utf-8")

    def write_event(ev: dict[str, Any]) -> None:
        obs_file.write(json.dumps(ev) + "\n")
        obs_file.flush()

    # The players and rules open both the log and the JSONL, so replaying either gives one result.
    pipeline = Pipeline(cfg, source, fps=src.fps, foundation_rule=settings.rules.foundation_rule, log=log,
                        hub=hub, recorder=recorder, table_events=table_events or [],
                        game_started=game_started_event(settings), on_event=write_event)
    error = None
    frame_rows: list[tuple[int, float]] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=src.frame_count or None, unit="frame", desc="analyze", dynamic_ncols=True)
    t_wall = time.perf_counter()
    try:
        for frame in src:
            pipeline.process(frame)
            gaps = src.take_gaps()
            if gaps:
                pipeline.handle_gaps(gaps)
            if recorder is None:
                frame_rows.append((frame.index, frame.t))
                if len(frame_rows) >= 300:
                    log.add_frames(frame_rows)
                    frame_rows = []
            if bar is not None:
                bar.update(1)
    except CaptureError as exc:
        error = str(exc)
    finally:
        if bar is not None:
            bar.close()
        if frame_rows:
            log.add_frames(frame_rows)
        src.close()
    wall = time.perf_counter() - t_wall
    if pipeline.calibration is None and pipeline.stats.frames:
        obs_file.close()
        log.close()
        raise PipelineError(f"cannot locate the table in {video}: {pipeline._last_error}")
    pipeline.finish()
    obs_file.close()
    result = log.state().to_dict()
    log.close()
    stats = pipeline.stats.to_dict()
    duration = pipeline._t + 1.0 / src.fps
    stats.update({"wall_s": round(wall, 2), "footage_s": round(duration, 2),
                  "realtime_factor": round(duration / wall, 2) if wall > 0 else None,
                  "source_frames_read": src.frames_read, "error": error})
    (out / "result.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (out / "stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    with open(out / "review.jsonl", "w", encoding="utf-8") as fh:
        for flag in pipeline.flags:
            fh.write(json.dumps(flag) + "\n")
    return AnalyzeResult(out, result, stats, pipeline.flags, error)


def run_live(spec: str, config_path: str | Path, out_dir: str | Path, source: Any, host: str = "127.0.0.1",
             port: int = 8000, serve: bool = True, max_seconds: float | None = None,
             give_up_after: float | None = None, announce: Callable[[str], None] = print) -> dict[str, Any]:
    """Referee a camera or stream live: record footage, log observations, serve the dashboard."""
    from referee.eventlog import EventLog
    from vision.record import FootageRecorder

    share_cores_with_the_detector()

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = VisionConfig.load(config_path)
    settings = _settings(Path(config_path))
    src: FrameSource = open_source(spec, fps=cfg.camera.fps, width=cfg.camera.width, height=cfg.camera.height,
                                   give_up_after=give_up_after)
    log = EventLog.open(out / "game.db", settings)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    footage = out / f"footage-{stamp}.mp4"
    log.set_meta("footage", footage.name)
    recorder = FootageRecorder(footage, src.width - src.width % 2, src.height - src.height % 2, src.fps, log=log)
    hub = server = None
    if serve:
        try:
            from web_dashboard.app import create_app
            from web_dashboard.live import FrameHub
            from web_dashboard.serving import DashboardServer
        except ImportError as exc:
            raise PipelineError(f"the dashboard is not available ({exc})") from None
        hub = FrameHub()
        app = create_app(out / "game.db", hub=hub, footage_dir=out)
        server = DashboardServer(app, host, port)
        server.start()
        announce(f"dashboard: {server.url}  (admin PIN {app.config['ADMIN_PIN']})")
    started = game_started_event(settings)
    if started and log.last_seq() == 0:
        log.append(started)
    pipeline = Pipeline(cfg, source, fps=src.fps, foundation_rule=settings.rules.foundation_rule, log=log,
                        hub=hub, recorder=recorder, publish_every=2)
    t0 = time.monotonic()
    try:
        for frame in src:
            if frame.image.shape[1] != recorder.width or frame.image.shape[0] != recorder.height:
                frame.image = frame.image[: recorder.height, : recorder.width]
            pipeline.process(frame)
            gaps = src.take_gaps()
            if gaps:
                pipeline.handle_gaps(gaps)
                for g in gaps:
                    announce(f"{g.reason}: {g.start_t:.2f}s..{g.end_t:.2f}s ({g.missing} frames)")
            if max_seconds is not None and time.monotonic() - t0 > max_seconds:
                break
    except KeyboardInterrupt:
        pass
    finally:
        src.close()
        pipeline.finish()
        log.close()
        if server is not None:
            server.stop()
    return pipeline.stats.to_dict()
