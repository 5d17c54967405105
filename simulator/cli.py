"""``nerts-referee simulate``: bots play Nerts and an overhead camera films the table, with truth."""

from __future__ import annotations

import argparse
from typing import Any

from nerts_referee.errors import UsageError


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = text.lower().split("x")
        return int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; expected WxH, e.g. 1280x720") from None


def _gaps(text: str) -> list[float]:
    try:
        return [float(g) for g in text.split(",") if g.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of gaps in ms, e.g. 0,5,10,20") from None


def _rule(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE, e.g. tie_window_ms=50")
    v: Any = value.strip()
    for conv in (int, float):
        try:
            v = conv(v)
            break
        except ValueError:
            continue
    return key.strip(), v


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "simulate", help="bots play Nerts; render overhead footage with exact truth",
        description="Bots play real Nerts rounds; an overhead camera renders the table. Writes table.mp4, "
                    "truth.jsonl (referee observations), truth.json (summary, disputes), poses.jsonl "
                    "(per-frame card poses), table.toml (table configuration) and, with --yolo-every, "
                    "YOLO-labelled frames under yolo/.")
    p.add_argument("--players", type=int, default=4, help="2 to 8 (default 4)")
    p.add_argument("--seed", type=int, default=0, help="same seed, same truth and same frames")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--fps", type=float, default=30.0, help="frames per second (default 30)")
    p.add_argument("--size", type=_size, default=(1280, 720), help="WxH (default 1280x720)")
    p.add_argument("--tilt", type=float, default=10.0, help="camera tilt towards seat 0, 0-30 degrees (default 10)")
    p.add_argument("--deck-art", default=None, help="deck folder in ../shared/cards/<deck> format "
                                                     "(default: the project's own drawn deck; drawn:N for "
                                                     "its other typefaces)")
    p.add_argument("--cloth", default=None, choices=("green_felt", "blue_felt", "wood", "grey_linen", "red_felt"),
                   help="table cloth (default: chosen by the seed)")
    p.add_argument("--disputes", type=_gaps, default=[], help="stage races with these contact gaps in ms, "
                                                              "e.g. 0,5,10,20,33,50,100")
    p.add_argument("--rounds", type=int, default=1, help="rounds to play (default 1)")
    p.add_argument("--max-seconds", type=float, default=None, help="cap each round at this many seconds")
    p.add_argument("--yolo-every", type=int, default=0, help="export every Nth frame as YOLO-labelled image")
    p.add_argument("--skill", type=float, default=0.5, help="bot speed 0 (slow) .. 1 (fast), default 0.5")
    p.add_argument("--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE",
                   help="a RULES.md setting, e.g. --rule tie_window_ms=50 --rule teams=pairs")
    p.add_argument("--preset", default="ultrafast", choices=("ultrafast", "superfast", "veryfast", "faster", "fast", "medium"),
                   help="x264 preset (default ultrafast: fastest; veryfast makes ~5x smaller files)")
    p.add_argument("--mistakes", type=float, default=0.0, metavar="P",
                   help="chance that a bot with nothing to play misjudges a card and plays it illegally "
                        "(taken back a moment later; listed in truth.json); default 0")
    p.add_argument("--land-after-call", action="store_true",
                   help="cards within 350 ms of contact at the Nerts call still land (ruled by in_flight_at_call)")
    p.add_argument("--no-markers", action="store_true", help="no ArUco markers at the table corners")
    p.add_argument("--no-video", action="store_true", help="truth and table.toml only (no rendering)")
    p.add_argument("--no-poses", action="store_true", help="do not write poses.jsonl")
    p.add_argument("--poses-every", type=int, default=1, metavar="N", help="poses.jsonl for every Nth frame only")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from simulator.api import SimulationConfig, simulate

    cfg = SimulationConfig(
        players=args.players, seed=args.seed, out=args.out, fps=args.fps, size=args.size, tilt_deg=args.tilt,
        deck_art=args.deck_art, disputes=args.disputes, rounds=args.rounds, max_seconds=args.max_seconds,
        yolo_every=args.yolo_every, skill=args.skill, rules=dict(args.rule), markers=not args.no_markers,
        video=not args.no_video, poses=not args.no_poses and not args.no_video, progress=not args.quiet,
        preset=args.preset, poses_every=args.poses_every, land_after_call=args.land_after_call,
        mistakes=args.mistakes,
        cloth=args.cloth)
    if not 0.0 <= args.skill <= 1.0:
        raise UsageError(f"--skill: {args.skill!r} is not allowed; allowed values: 0 to 1")
    res = simulate(cfg)
    rec = res.record
    for r in rec.rounds:
        how = {"nerts": f"Nerts called by {r.caller}", "stuck": "everyone stuck", "time": "time limit"}[r.ended_by]
        print(f"round {r.index + 1}: {r.t_end - r.t_start:.1f} s, {how}; scores "
              + ", ".join(f"{u} {s:+d}" for u, s in r.scores.items()))
    staged = [d for d in rec.disputes if d.staged]
    print(f"disputes: {len(rec.disputes)} ({len(staged)} staged)"
          + (f"; not staged: {', '.join(f'{g:g}' for g in rec.unstaged)} ms" if rec.unstaged else ""))
    if rec.mistakes:
        print(f"illegal plays (misjudged, taken back): {len(rec.mistakes)}")
    print("totals: " + ", ".join(f"{n} {t}" for n, t in rec.totals.items()))
    if res.frames:
        print(f"rendered {res.frames} frames ({res.frames / res.fps:.1f} s of footage) in {res.render_s:.1f} s: "
              f"{res.speed:.2f}x real time")
    for name, path in res.paths.items():
        print(f"wrote {path}")
    return 0
