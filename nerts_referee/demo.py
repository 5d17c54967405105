"""`nerts-referee demo`: the product end to end on a built-in table.

Simulates a short 4-player round (bots, overhead camera, a staged first-touch dispute), referees its
footage with the vision pipeline, prints the rulings and the scoreboard next to the truth, then
serves the dashboard on the recorded game. Every step is the same command a user would run; results
are cached under ``--out`` so a second run starts the dashboard at once.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(".cache") / "demo"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="simulate a short round, referee its footage and serve the dashboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="cache folder (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=7, help="simulation seed (default: %(default)s)")
    parser.add_argument("--seconds", type=float, default=60.0, help="simulated play time (default: %(default)s)")
    parser.add_argument("--deck-art", type=Path, default=None, help="card art folder (default: the project's drawn deck)")
    parser.add_argument(
        "--poses", action="store_true",
        help="read the cards from the simulator's per-frame poses (with detector-like noise) instead of "
        "the trained detector: isolates everything after detection",
    )
    parser.add_argument("--fresh", action="store_true", help="ignore the cache and redo every step")
    parser.add_argument("--no-serve", action="store_true", help="stop after printing the rulings")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.set_defaults(handler=run_demo)


def _step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def _cli(argv: list[str]) -> None:
    from nerts_referee.cli import main
    from nerts_referee.errors import UsageError

    status = main(argv)
    if status:
        raise UsageError(f"step `nerts-referee {' '.join(argv)}` failed with status {status}")


def _simulate_args(args: argparse.Namespace, table_dir: Path) -> list[str]:
    argv = [
        "simulate", "--players", "4", "--seed", str(args.seed), "--out", str(table_dir),
        "--max-seconds", f"{args.seconds:g}", "--disputes", "20",
    ]
    if args.deck_art:
        argv += ["--deck-art", str(args.deck_art)]
    return argv


def _cached(stamp: Path, key: dict[str, Any], fresh: bool) -> bool:
    """True when ``stamp`` records exactly ``key`` (the step ran with these inputs)."""
    if fresh or not stamp.is_file():
        return False
    try:
        return json.loads(stamp.read_text()) == key
    except (OSError, ValueError):
        return False


def run_demo(args: argparse.Namespace) -> int:
    out: Path = args.out
    table_dir, analysis_dir = out / "table", out / "analysis"
    sim_argv = _simulate_args(args, table_dir)

    _step("1/3 simulate a 4-player round (bots + overhead camera)")
    sim_stamp = table_dir / ".demo-stamp.json"
    if _cached(sim_stamp, {"argv": sim_argv}, args.fresh):
        print(f"cached: {table_dir}")
    else:
        _cli(sim_argv)
        sim_stamp.write_text(json.dumps({"argv": sim_argv}))

    _step("2/3 referee the footage (vision pipeline -> rules engine -> event log)")
    # The camera cannot see the Nerts call or the cards left in each Nerts pile: at a real table the
    # players enter them on the dashboard; in the demo the simulated table's own record supplies them.
    an_argv = [
        "analyze", str(table_dir / "table.mp4"), "--config", str(table_dir / "table.toml"),
        "--out", str(analysis_dir), "--table-events", str(table_dir / "truth.jsonl"),
    ]
    if args.poses:
        # Card identities and outlines come from the renderer's poses (with detector-like noise);
        # tracking, contact timing, piles, attribution and rulings are the real pipeline's.
        an_argv += ["--poses", str(table_dir / "poses.jsonl")]
        print("cards read from the simulator's per-frame poses (--poses), not the detector")
    else:
        print("cards read from the footage by the trained detector (models/cards_det.onnx)")
    an_stamp = analysis_dir / ".demo-stamp.json"
    an_key = {"argv": an_argv, "table": sim_stamp.read_text()}
    if _cached(an_stamp, an_key, args.fresh):
        print(f"cached: {analysis_dir}")
    else:
        _cli(an_argv)
        an_stamp.write_text(json.dumps(an_key))

    _step("3/3 rulings and scores")
    _cli(["replay", str(analysis_dir / "observations.jsonl"), "--settings", str(table_dir / "table.toml")])
    _print_truth_comparison(table_dir, analysis_dir)

    if args.no_serve:
        return 0
    _step("dashboard")
    _cli(["serve", str(analysis_dir / "game.db"), "--host", args.host, "--port", str(args.port)])
    return 0


def _print_truth_comparison(table_dir: Path, analysis_dir: Path) -> None:
    truth = json.loads((table_dir / "truth.json").read_text())
    result = json.loads((analysis_dir / "result.json").read_text())
    true_totals: dict[str, int] = truth.get("totals", {})
    seen_totals: dict[str, int] = result.get("totals", {})
    print(f"\n{'player':<10}{'refereed':>10}{'truth':>8}")
    for player in sorted(set(true_totals) | set(seen_totals)):
        seen, true = seen_totals.get(player), true_totals.get(player)
        mark = "" if seen == true else "   <- differs"
        print(f"{player:<10}{seen!s:>10}{true!s:>8}{mark}")
    for dispute in truth.get("disputes", []):
        print(f"staged dispute: {json.dumps(dispute)}")
