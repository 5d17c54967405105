"""``nerts-referee analyze`` / ``run`` / ``markers``: the vision pipeline on the command line.

Heavy imports (OpenCV, PyAV, onnxruntime, Flask) stay inside the handlers so ``--help`` is fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nerts_referee.errors import UsageError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="referee a video file offline: event log, observations, rulings and scores",
        description=(
            "Referee VIDEO (a recording of the table from above) with the table configuration and "
            "write DIR/game.db (the event log), DIR/observations.jsonl (what vision reported, in the "
            "replay schema), DIR/result.json (rulings and totals, as `replay --json` prints them), "
            "DIR/review.jsonl (what vision flagged instead of ruling) and DIR/stats.json."
        ),
    )
    p.add_argument("video", metavar="VIDEO", help="the footage (MP4 or any format FFmpeg reads)")
    p.add_argument("--config", required=True, metavar="TABLE.toml", help="the table configuration (Contract 2)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--table-events", metavar="FILE.jsonl",
                   help="what the camera cannot see, from the table: round_started, nerts_called, "
                        "everyone_stuck, round_ended (with nerts_left); card events in it are ignored")
    p.add_argument("--poses", metavar="POSES.jsonl",
                   help="development: read cards from the simulator's per-frame truth (with detector-like "
                        "noise) instead of the trained detector")
    p.add_argument("--weights", metavar="MODEL", help="detector weights (default: the shipped model)")
    p.add_argument("--seed", type=int, default=0, help="noise seed for --poses (default 0)")
    p.add_argument("--record", action="store_true",
                   help="also re-record the footage to DIR/footage.mp4 (as the live loop does)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print result.json instead of the rulings table")
    p.set_defaults(handler=analyze_command)

    r = subparsers.add_parser(
        "run",
        help="referee a live camera or stream, record the footage and serve the dashboard",
        description=(
            "Referee the table live from a camera (index), a stream URL or a file: every frame is "
            "recorded (fragmented MP4, playable after a crash), observations go to DIR/game.db and "
            "the dashboard shows the annotated view, scoreboard and rulings."
        ),
    )
    r.add_argument("--camera", metavar="SOURCE",
                   help="camera index (0, 1, ...), stream URL or video file (default: camera.source in the config)")
    r.add_argument("--config", required=True, metavar="TABLE.toml", help="the table configuration")
    r.add_argument("--out", default="nerts-live", metavar="DIR", help="folder for game.db and footage (default nerts-live)")
    r.add_argument("--host", default="127.0.0.1", help="dashboard address (default 127.0.0.1)")
    r.add_argument("--port", type=int, default=8000, help="dashboard port (default 8000)")
    r.add_argument("--no-serve", action="store_true", help="do not serve the dashboard")
    r.add_argument("--poses", metavar="POSES.jsonl", help="development: simulator truth instead of the detector")
    r.add_argument("--weights", metavar="MODEL", help="detector weights (default: the shipped model)")
    r.add_argument("--seconds", type=float, help="stop after this many seconds")
    r.set_defaults(handler=run_command)

    m = subparsers.add_parser(
        "markers",
        help="print the ArUco marker sheet for the table corners",
        description=(
            "Write an A4 sheet (PNG, 300 dpi) with ArUco markers 0-3 (DICT_4X4_50), one per table "
            "corner: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left as the camera sees the "
            "table (seat 0 at the camera's bottom edge). Print at 100% scale."
        ),
    )
    m.add_argument("--out", required=True, metavar="SHEET.png", help="where to write the sheet")
    m.add_argument("--size-mm", type=float, default=60.0, help="marker side in millimetres (default 60)")
    m.set_defaults(handler=markers_command)


def _source(args: argparse.Namespace):
    from vision.session import make_source

    if args.poses:
        if not Path(args.poses).is_file():
            raise UsageError(f"--poses {args.poses}: no such file")
        try:
            return make_source("poses", Path(args.poses), seed=getattr(args, "seed", 0))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    try:
        return make_source("detector", weights=args.weights, config_path=args.config)
    except ModuleNotFoundError as exc:
        raise UsageError(f"the card detector is not available ({exc.name} missing); "
                         "use --poses POSES.jsonl to analyse simulator footage with its truth") from None
    except (FileNotFoundError, OSError, ValueError) as exc:
        raise UsageError(f"cannot load the detector: {exc} (or use --poses POSES.jsonl with simulator "
                         "footage)") from None


def _config_errors():
    from referee.settings import SettingsError
    from vision.config import ConfigError

    return (SettingsError, ConfigError)


def analyze_command(args: argparse.Namespace) -> int:
    from vision.capture import CaptureError
    from vision.pipeline import PipelineError, read_table_events
    from vision.session import analyze_video

    video = Path(args.video)
    if not video.is_file():
        raise UsageError(f"{video}: no such video file")
    if not Path(args.config).is_file():
        raise UsageError(f"--config {args.config}: no such file")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    table_events = None
    if args.table_events:
        try:
            table_events = read_table_events(args.table_events)
        except (OSError, ValueError) as exc:
            raise UsageError(f"--table-events: {exc}") from None
    source = _source(args)
    try:
        res = analyze_video(video, args.config, out, source, table_events=table_events, record=args.record,
                            progress=not args.no_progress)
    except _config_errors() as exc:
        raise UsageError(f"--config: {exc}") from None
    except (CaptureError, PipelineError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(res.result, indent=1))
    else:
        _print_result(res.result, res.stats, res.flags, out)
    if res.error:
        print(f"nerts-referee analyze: warning: {res.error}; the rulings above cover the frames "
              f"before the damage and are saved in {out}", file=sys.stderr)
        return 1
    return 0


def _print_result(result: dict[str, Any], stats: dict[str, Any], flags: list[dict[str, Any]], out: Path) -> None:
    for r in result.get("rulings", []):
        kind = r.get("kind", "")
        line = f"{r.get('t', 0) or 0:8.3f}s  {kind:9s} {r.get('card') or '':4s} {r.get('player') or '':10s} {r.get('pile') or ''}"
        if kind == "dispute":
            line += f"  winner {r.get('winner')}" + (" (tie)" if r.get("tie") else f" by {r.get('margin_ms')} ms")
        elif r.get("reason"):
            line += f"  ({r.get('reason')})"
        print(line)
    totals = result.get("totals", {})
    if totals:
        print("totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    print(f"{stats.get('frames')} frames, detector on {stats.get('detector_frames')}, "
          f"{stats.get('ms_per_frame')} ms/frame, {stats.get('realtime_factor')}x real time; "
          f"{len(flags)} flagged for review; written to {out}/")


def run_command(args: argparse.Namespace) -> int:
    from vision.capture import CaptureError
    from vision.config import VisionConfig
    from vision.pipeline import PipelineError
    from vision.session import run_live

    if not Path(args.config).is_file():
        raise UsageError(f"--config {args.config}: no such file")
    try:
        cfg = VisionConfig.load(args.config)
    except _config_errors() as exc:
        raise UsageError(f"--config: {exc}") from None
    spec = args.camera if args.camera is not None else cfg.camera.source
    source = _source(args)
    try:
        stats = run_live(spec, args.config, args.out, source, host=args.host, port=args.port,
                         serve=not args.no_serve, max_seconds=args.seconds)
    except _config_errors() as exc:
        raise UsageError(f"--config: {exc}") from None
    except (CaptureError, PipelineError) as exc:
        raise UsageError(f"{exc} (what was recorded is kept in {args.out}/)") from None
    print(json.dumps(stats))
    return 0


def markers_command(args: argparse.Namespace) -> int:
    from vision.calibrate import marker_sheet

    if not 10 <= args.size_mm <= 90:
        raise UsageError(f"--size-mm {args.size_mm}: expected 10..90 (four markers must fit on A4)")
    out = Path(args.out)
    if out.suffix.lower() not in (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"):
        raise UsageError(f"--out {out}: expected an image file name such as sheet.png")
    try:
        marker_sheet(out, args.size_mm)
    except OSError as exc:
        raise UsageError(f"--out {out}: {exc}") from None
    print(f"marker sheet: {out} (print at 100%; markers {args.size_mm:g} mm)")
    return 0
