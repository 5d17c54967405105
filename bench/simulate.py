"""Simulator figures: render speed vs real time (1280x720, 30 fps, H.264) and typical round lengths.

    .venv/bin/python bench/simulate.py [--seconds 60] [--seeds 20] [--size 1280x720] [--fps 30]

Prints the wall-clock speed ratio (footage seconds per second; target >= 2x on 2 cores) and the CPU
time per footage second (user+sys of all threads), which says what two idle cores would do when
the machine is shared; then round lengths of full 4-player rounds over many seeds (target 2-6 min).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="footage to render (capped round)")
    ap.add_argument("--seeds", type=int, default=20, help="full rounds simulated for round lengths")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--preset", default="ultrafast", help="x264 preset (the simulator default is ultrafast)")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))

    from simulator.api import SimulationConfig, make_renderer, load_deck, simulate
    from simulator.game import GameConfig, play_game

    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (1 min)")
    # 1. render speed: the whole pipeline (render + poses + H.264) into a temporary folder
    with tempfile.TemporaryDirectory() as tmp:
        cfg = SimulationConfig(players=args.players, seed=7, out=tmp, size=(w, h), fps=args.fps,
                               max_seconds=args.seconds, disputes=[20], progress=False, preset=args.preset)
        c0, t0 = cpu_seconds(), time.perf_counter()
        res = simulate(cfg)
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        footage = res.frames / args.fps
        size_mb = (Path(tmp) / "table.mp4").stat().st_size / 1e6
        poses_mb = (Path(tmp) / "poses.jsonl").stat().st_size / 1e6
    print(f"full pipeline {w}x{h} @ {args.fps:g} fps, x264 {args.preset}: {res.frames} frames "
          f"({footage:.1f} s footage)")
    print(f"  wall {wall:.1f} s  -> {footage / wall:.2f}x real time, {res.frames / wall:.1f} frames/s "
          f"(render loop alone {res.speed:.2f}x)")
    print(f"  CPU  {cpu:.1f} s  -> {footage / cpu * 2:.2f}x real time on 2 idle cores "
          f"({cpu / res.frames * 1000:.1f} ms CPU per frame)")
    print(f"  table.mp4 {size_mb:.1f} MB, poses.jsonl {poses_mb:.1f} MB")

    # 2. the renderer alone (no encoding, no poses file)
    rec = play_game(GameConfig(players=args.players, seed=7, max_seconds=min(args.seconds, 20)))
    r = make_renderer(rec, load_deck(None), SimulationConfig(size=(w, h), fps=args.fps, seed=7))
    c0, t0 = cpu_seconds(), time.perf_counter()
    n = sum(1 for _ in r.frames())
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    print(f"renderer alone: {n / wall:.1f} frames/s wall, {cpu / n * 1000:.1f} ms CPU per frame")

    # 3. round lengths (pure simulation, fast)
    lengths, calls, stuck = [], 0, 0
    for seed in range(args.seeds):
        rec = play_game(GameConfig(players=args.players, seed=seed))
        for rd in rec.rounds:
            lengths.append(rd.t_end - rd.t_start)
            calls += rd.ended_by == "nerts"
            stuck += rd.ended_by == "stuck"
    q = statistics.quantiles(lengths, n=10)
    print(f"{args.players}-player round length over {len(lengths)} rounds: median {statistics.median(lengths) / 60:.2f} min, "
          f"10-90% {q[0] / 60:.2f}-{q[-1] / 60:.2f} min, min {min(lengths) / 60:.2f}, max {max(lengths) / 60:.2f}; "
          f"{calls} ended by a Nerts call, {stuck} by everyone stuck")
    return 0


if __name__ == "__main__":
    sys.exit(main())
