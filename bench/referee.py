"""Referee figures: engine throughput, durable appends per second, replay time of a 20-round game.

    .venv/bin/python bench/referee.py [--dir DIR] [--appends N]

Targets (issue #2): >= 50,000 observations/s through the engine, >= 1,000 durable appends/s with
synchronous=FULL, < 1 s to replay a 20-round game. The log is written under --dir (default: the
current directory, i.e. the disk a game log would live on; /tmp may be RAM, where fsync is free).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.cards import FULL_DECK  # noqa: E402
from referee.engine import Engine, replay  # noqa: E402
from referee.eventlog import EventLog  # noqa: E402
from referee.settings import TableSettings  # noqa: E402

NAMES = ["ana", "ben", "cy", "dee"]
SETTINGS = TableSettings.from_dict({
    "players": [{"name": n, "back": b, "seat": 2 * i} for i, (n, b) in enumerate(zip(NAMES, ["red", "blue", "green", "yellow"]))],
    "rules": {"end_condition": "fixed_rounds", "rounds": 1000},
})


def make_game(rounds: int, seed: int = 7) -> list[dict]:
    """A plausible game: 4 decks, ~150 touches a round, ~5% disputes, ~2% illegal plays, reports
    0.05-0.8 s late (so arrival order differs from contact order), a Nerts call, and the round end."""
    rng = random.Random(seed)
    events: list[dict] = []
    for rnd in range(rounds):
        base = rnd * 400.0
        events.append({"type": "round_started", "t": base})
        held = {n: set(FULL_DECK) for n in NAMES}
        piles: dict = {}  # pile id -> top card
        obs: list[tuple[float, dict]] = []
        t = base + 1.0
        npile = 0
        for _ in range(150):
            t += rng.expovariate(1 / 0.35)
            who = rng.choice(NAMES)
            moves = [(pid, top.next_up()) for pid, top in piles.items() if top.next_up() in held[who]]
            aces = [c for c in held[who] if c.rank == 1]
            if aces and (not moves or rng.random() < 0.15):
                pid, card = f"r{rnd}p{npile}", rng.choice(sorted(aces))
                npile += 1
            elif moves:
                pid, card = rng.choice(sorted(moves, key=lambda m: m[0]))
            else:
                continue
            legal = card
            if rng.random() < 0.02:  # an illegal play: a random card of the player's
                card = rng.choice(sorted(held[who]))
            held[who].discard(card)
            u = rng.choice([3.0, 5.0, 8.0])
            ev = {"type": "card_touched", "t": round(t, 4), "card": str(card), "player": who, "pile": pid,
                  "uncertainty_ms": u, "confidence": 0.95, "evidence": {"frames": [int(t * 30) - 1, int(t * 30) + 1]}}
            obs.append((t + rng.uniform(0.05, 0.8), ev))
            other = rng.choice([n for n in NAMES if n != who])
            if card in held[other] and rng.random() < 0.05:  # a race for the same spot
                held[other].discard(card)
                t2 = t + rng.uniform(-0.03, 0.03)
                obs.append((t2 + rng.uniform(0.05, 0.8), {**ev, "t": round(t2, 4), "player": other}))
            if card == legal:
                piles[pid] = card
        call_t = t + 0.5
        obs.append((call_t, {"type": "nerts_called", "t": round(call_t, 4), "player": rng.choice(NAMES)}))
        events.extend(ev for _, ev in sorted(obs, key=lambda o: o[0]))
        events.append({"type": "round_ended", "t": round(call_t + 2, 4),
                       "nerts_left": {n: rng.randint(0, 8) for n in NAMES}})
    return events


def bench_engine(events: list[dict], repeats: int = 3) -> tuple[float, float, float]:
    """Best of ``repeats`` (the machine may be shared): (batch wall /s, batch CPU /s, live wall /s)."""
    n_obs = sum(1 for e in events if e["type"] == "card_touched")
    best_wall = best_cpu = best_live = 0.0
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        eng = Engine(SETTINGS)
        for e in events:
            eng.feed(e)
        eng.result()
        best_wall = max(best_wall, n_obs / (time.perf_counter() - w0))
        best_cpu = max(best_cpu, n_obs / (time.process_time() - c0))
        w0 = time.perf_counter()  # live: every observation's ruling is read as it arrives
        eng = Engine(SETTINGS)
        for e in events:
            seq = eng.feed(e)
            if e["type"] == "card_touched":
                eng.ruling(seq)
        eng.result()
        best_live = max(best_live, n_obs / (time.perf_counter() - w0))
    return best_wall, best_cpu, best_live


def bench_appends(directory: str, n: int, events: list[dict]) -> tuple[float, float, str]:
    tmp = tempfile.mkdtemp(prefix="nerts-bench-", dir=directory)
    try:
        log = EventLog.open(os.path.join(tmp, "bench.db"), SETTINGS)
        evs = events[:n]
        t0 = time.perf_counter()
        for e in evs:
            log.append(e)  # one durable transaction (fsync of the WAL) per call
        single = len(evs) / (time.perf_counter() - t0)
        log.close()
        log = EventLog.open(os.path.join(tmp, "bench2.db"), SETTINGS)
        t0 = time.perf_counter()
        for i in range(0, len(evs), 10):
            log.append_many(evs[i:i + 10])  # 10 events per durable transaction (e.g. one frame's worth)
        batched = len(evs) / (time.perf_counter() - t0)
        log.close()
        return single, batched, _fs_of(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def raw_fsync_rate(directory: str, seconds: float = 0.5) -> float:
    """The disk's own limit: 4 KiB appended + fsync per call, as fast as it goes (no SQLite)."""
    fd, path = tempfile.mkstemp(prefix="nerts-fsync-", dir=directory)
    try:
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            os.write(fd, b"x" * 4096)
            os.fsync(fd)
            n += 1
        return n / (time.perf_counter() - t0)
    finally:
        os.close(fd)
        os.unlink(path)


def _fs_of(path: str) -> str:
    best = ("", "?")
    try:
        with open("/proc/mounts") as fh:
            for line in fh:
                parts = line.split()
                mnt, fstype = parts[1], parts[2]
                if os.path.realpath(path).startswith(mnt) and len(mnt) > len(best[0]):
                    best = (mnt, fstype)
    except OSError:
        pass
    return f"{best[1]} at {best[0] or '?'}"


def bench_replay(directory: str, events: list[dict], repeats: int = 3) -> tuple[float, float]:
    """Best of ``repeats``: (seconds to replay from a list, seconds to open the log and derive its state)."""
    mem = disk = float("inf")
    tmp = tempfile.mkdtemp(prefix="nerts-bench-", dir=directory)
    try:
        path = os.path.join(tmp, "game.db")
        with EventLog.open(path, SETTINGS) as log:
            log.append_many(events)
        for _ in range(repeats):
            t0 = time.perf_counter()
            replay(events, SETTINGS)
            mem = min(mem, time.perf_counter() - t0)
            t0 = time.perf_counter()
            with EventLog.open(path) as log:
                log.state()
            disk = min(disk, time.perf_counter() - t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return mem, disk


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=".", help="where to write the benchmark logs (default: current directory)")
    ap.add_argument("--appends", type=int, default=1000, help="events appended one by one (default 1000)")
    ap.add_argument("--rounds", type=int, default=100, help="rounds fed to the engine for throughput (default 100)")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)  # a --dir that does not exist yet is created
    big = make_game(args.rounds)
    n_obs = sum(1 for e in big if e["type"] == "card_touched")
    batch, cpu, live = bench_engine(big)
    print(f"engine: {n_obs} observations ({args.rounds} rounds, reported 0.05-0.8 s late, ~5% disputes), best of 3")
    print(f"  fed, then result() once:       {batch:10,.0f} observations/s wall, {cpu:,.0f}/s CPU   (target >= 50,000)")
    print(f"  ruling(seq) read after each:   {live:10,.0f} observations/s wall")
    print(f"  (load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    game20 = make_game(20, seed=11)
    single, batched, fs = bench_appends(args.dir, args.appends, big)
    print(f"event log ({fs}), synchronous=FULL, WAL; this disk's raw fsync rate now: "
          f"{raw_fsync_rate(args.dir):,.0f}/s")
    print(f"  append(), each call its own durable commit: {single:8,.0f} appends/s   (target >= 1,000)")
    print(f"  append_many() of 10, one durable commit:    {batched:8,.0f} events/s")
    mem, disk = bench_replay(args.dir, game20)
    print(f"replay of a 20-round game ({len(game20)} events), best of 3: {mem * 1000:.0f} ms from memory, "
          f"{disk * 1000:.0f} ms from the SQLite log   (target < 1000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
