"""Benchmark of the vision pipeline against simulator truth (issue 5's figures).

Simulates clips with seeds never used in development (4 players, 1280x720 at 30 fps, hands,
blur and noise on, staged disputes at 0-100 ms gaps), referees each clip's footage with
``nerts-referee analyze --record`` in a child process (recording on, as live), and scores the
result against the clip's truth:

- plays recognised (recall) and phantom plays per round;
- attribution to the right player;
- first-touch order in staged disputes by true gap (>= 20 ms, 10 ms), and ties declared only
  where the true gap is inside the stated uncertainty (2 combined sigma, the referee's rule) or
  inside ``tie_window_ms``;
- rounds whose totals equal the truth;
- throughput (footage seconds per wall second, decode + pipeline + H.264 recording), median
  delay from contact to ruling (footage time from the reported contact until the card's ruling,
  owner and whether it stays, stood as it stands at the end: a provisional ruling revised later
  counts from its revision; + per-frame processing), peak memory of the analysing process.

Card sightings come from the trained detector when it can be loaded, else (or with
``--source poses``) from the simulator's per-frame truth with detector-like noise, which measures
everything after detection. The source used is printed with the figures.

    .venv/bin/python bench/pipeline.py                    # 3 clips, 60 s each
    .venv/bin/python bench/pipeline.py --clips 6 --seconds 120 --source poses
    .venv/bin/python bench/pipeline.py --seeds 4242,5151 --detail   # development: each dispute and phantom

``--mistakes P`` makes the bots misjudge and play illegal cards (``simulate --mistakes``; 0 by default,
as the issue's figures) and prints how many of them vision rules illegal: the other side of
rule-aware reading, which the issue states no target for.

``--json FILE`` also writes every clip's figures (and, with ``--detail``, its dispute, phantom,
missed and misattributed lines) to FILE; ``--compare OLD NEW`` reads two such files and prints the
figures of each over the clips both ran, then every clip that reads differently with the lines
that changed, in order. That is how a change to the reader is judged: run the old code (a ``git worktree``
of it) and the new on the same ``--keep`` folder, then compare:

    .venv/bin/python bench/pipeline.py --seeds 5780,5781 --keep /tmp/k --detail --json /tmp/new.json
    (cd /tmp/old && PYTHONPATH=/tmp/old .venv/bin/python bench/pipeline.py --seeds 5780,5781 --keep /tmp/k --detail --json /tmp/old.json)
    .venv/bin/python bench/pipeline.py --compare /tmp/old.json /tmp/new.json

``--detail`` also prints where the delay goes: per kind of play (ordinary, a seen contest copy, an
inferred copy) and per wait that last held its report (``evidence.timing`` of each observation),
the median delay, the time from the true contact to the first resting sighting, and the time from
that sighting to the report.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SEEDS = (90211, 90223, 90227, 90229, 90233, 90239, 90247, 90251, 90253, 90263)  # never developed on
GAPS = "0,5,10,20,33,50,100"
K_SIGMA = 2.0


def simulate(seed: int, out: Path, seconds: float, rounds: int, mistakes: float = 0.0) -> None:
    cmd = [sys.executable, "-m", "nerts_referee", "simulate", "--players", "4", "--seed", str(seed),
           "--out", str(out), "--disputes", GAPS, "--rounds", str(rounds), "--max-seconds", str(seconds), "--quiet"]
    if mistakes:
        cmd += ["--mistakes", str(mistakes)]
    subprocess.run(cmd, check=True, cwd=REPO, stdout=subprocess.DEVNULL)


def analyze(clip: Path, out: Path, source: str, weights: str | None = None) -> tuple[dict, float, int, float]:
    """Run the CLI in a child process; returns (stats, wall seconds, peak RSS bytes of the child,
    CPU seconds of the child: user + system, all its threads)."""
    cmd = [sys.executable, "-m", "nerts_referee", "analyze", str(clip / "table.mp4"), "--config",
           str(clip / "table.toml"), "--out", str(out), "--table-events", str(clip / "truth.jsonl"),
           "--record", "--no-progress"]
    if source == "poses":
        cmd += ["--poses", str(clip / "poses.jsonl")]
    elif weights:
        cmd += ["--weights", weights]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"analyze failed on {clip}: {err.strip()}")
    return (json.loads((out / "stats.json").read_text()), wall, usage.ru_maxrss * 1024,
            usage.ru_utime + usage.ru_stime)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _obs_line(o: dict, t_ref: float | None = None) -> str:
    ev = o.get("evidence", {})
    when = f"{(o['t'] - t_ref) * 1000:+.0f} ms" if t_ref is not None else f"t={o['t']:.2f}"
    tags = [ev.get("attribution", "?")]
    if ev.get("inferred"):
        tags.append("inferred")
    if "contest" in ev:
        tags.append(f"visible {ev['contest'].get('visible_share')}")
    if ev.get("occlusion"):
        tags.append(f"occlusion {ev['occlusion']}")
    if ev.get("revised"):
        tags.append(f"revised, {ev['revised']}")
    return (f"{o['card']} {o['player']} {when} sigma {o.get('uncertainty_ms', 0):.0f} ms conf {o.get('confidence', 0):.2f} "
            f"[{', '.join(map(str, tags))}] reads {ev.get('reads')}")


def _detail(summary: dict, truth: list[dict], seen: list[dict], used: set[int], result: dict,
            pairs: list[tuple[dict, dict]]) -> list[str]:
    """Per dispute: the true touches, what vision reported of that card then, and the ruling; then
    every phantom, every play missed and every play given to another player. For development
    (``--detail``)."""
    lines = []
    for d in summary.get("disputes", []):
        t0 = d["t"]
        true = ", ".join(f"{p} {(t - t0) * 1000:+.0f} ms" for p, t in zip(d["contenders"], d.get("times", [])))
        lines.append(f"  dispute {d['card']} on {d['pile']} at {t0:.2f}s, gap {d['gap_ms']:.0f} ms: truth {true}; "
                     f"winner {d['winner'] or 'tie'}")
        for o in seen:
            if o["card"] == d["card"] and abs(o["t"] - t0) < 1.5:
                lines.append(f"      seen  {_obs_line(o, t0)}")
        for r in result["rulings"]:
            if r.get("kind") == "dispute" and r.get("card") == d["card"] and abs((r.get("t") or 0) - t0) < 1.5:
                lines.append(f"      ruled winner {r.get('winner')} tie {r.get('tie')} margin {r.get('margin_ms')} "
                             f"confidence {r.get('confidence')}")
    for k, o in enumerate(seen):
        if k not in used:
            near = [tr for tr in truth if tr["card"] == o["card"] and abs(tr["t"] - o["t"]) < 3.0]
            why = f"true play of it {near[0]['player']} at {near[0]['t']:.2f}s" if near else "no true play of it within 3 s"
            lines.append(f"  phantom {_obs_line(o)}; {why}")
    found = {id(tr) for tr, _ in pairs}
    for tr in truth:
        if id(tr) not in found:
            lines.append(f"  missed  {tr['card']} {tr['player']} t={tr['t']:.2f} on {tr.get('pile')}")
    for tr, o in pairs:
        if o["player"] != tr["player"]:
            lines.append(f"  misattributed {tr['card']} {tr['player']} t={tr['t']:.2f}: {_obs_line(o)}")
    return lines


def _corrected_plays(events: list[dict]) -> list[dict]:
    """The card observations, each as vision finally named it: the corrections vision sent apply to
    their targets (seq = line number, as a replay counts): ``set_card`` (a misread Ace renamed),
    ``set_owner`` and ``set_time`` (a contest's copy reported provisionally, then revised)."""
    plays = {seq: dict(e) for seq, e in enumerate(events, 1) if e["type"] == "card_touched"}
    for e in events:
        o = plays.get(e.get("target")) if e["type"] == "correction" else None
        if o is None:
            continue
        if e["action"] == "set_card":
            o["card"] = e["card"]
        elif e["action"] == "set_owner":
            o["player"] = e["player"]
        elif e["action"] == "set_time":
            o["t"] = e["t"]
            if e.get("uncertainty_ms") is not None:
                o["uncertainty_ms"] = e["uncertainty_ms"]
        if e["action"] in ("set_owner", "set_time"):
            o["evidence"] = {**(o.get("evidence") or {}), "revised": e["reason"]}
    return list(plays.values())


def score(clip: Path, out: Path, detailed: bool = False) -> dict:
    truth = [e for e in read_jsonl(clip / "truth.jsonl") if e["type"] == "card_touched"]
    seen = _corrected_plays(read_jsonl(out / "observations.jsonl"))
    summary = json.loads((clip / "truth.json").read_text())
    result = json.loads((out / "result.json").read_text())
    # one-to-one matching: same card, closest time within half a second (a card found on a pile,
    # played unseen, is timed only between its neighbours: anywhere between them), same player
    # preferred
    def near(o: dict, tr: dict) -> bool:
        between = (o.get("evidence") or {}).get("between") if o["player"] is None else None
        if between:
            return between[0] - 0.5 < tr["t"] < between[1] + 0.5
        return abs(o["t"] - tr["t"]) < 0.5

    pairs, used = [], set()
    for tr in sorted(truth, key=lambda e: e["t"]):
        cands = [(abs(o["t"] - tr["t"]) + (0 if o["player"] == tr["player"] else 0.25), k)
                 for k, o in enumerate(seen) if k not in used and o["card"] == tr["card"] and near(o, tr)]
        if cands:
            _, k = min(cands)
            used.add(k)
            pairs.append((tr, seen[k]))
    timing = [abs(o["t"] - tr["t"]) * 1000 for tr, o in pairs if o["player"] is not None]  # (unseen: not timed)
    # disputes, by true gap
    disputes = []
    tie_window = float(summary.get("rules", {}).get("tie_window_ms", 0.0))
    for d in summary.get("disputes", []):
        mine = [(tr, o) for tr, o in pairs if tr["card"] == d["card"] and abs(tr["t"] - d["t"]) < 1.0
                and tr["player"] in d["contenders"]]
        rulings = [r for r in result["rulings"] if r.get("kind") == "dispute" and r.get("card") == d["card"]
                   and abs((r.get("t") or 0) - d["t"]) < 1.0]
        entry = {"gap": d["gap_ms"], "found": len(mine) == len(d["contenders"]) and bool(rulings), "correct": False,
                 "tie": False, "tie_justified": None}
        if entry["found"]:
            r = rulings[0]
            entry["tie"] = bool(r.get("tie"))
            entry["correct"] = (not entry["tie"]) and r.get("winner") == d["winner"] and not d.get("tie")
            if entry["tie"]:
                sigma = (sum((o.get("uncertainty_ms") or 0.0) ** 2 for _, o in mine)) ** 0.5
                entry["tie_justified"] = d["gap_ms"] <= tie_window or d["gap_ms"] < K_SIGMA * sigma
        disputes.append(entry)
    rounds_true = summary.get("rounds", [])
    waits = [_wait_row(tr, o) for tr, o in pairs if "timing" in o.get("evidence", {})]
    detail = _detail(summary, truth, seen, used, result, pairs) if detailed else []
    rounds_mine = result.get("rounds", [])
    exact = sum(1 for i, rt in enumerate(rounds_true)
                if i < len(rounds_mine) and rounds_mine[i].get("scores") == rt.get("scores"))
    return {
        "plays": len(truth), "found": len(pairs), "phantoms": len(seen) - len(used),
        "attributed": sum(1 for tr, o in pairs if o["player"] == tr["player"]),
        "owner_unknown": sum(1 for o in seen if o["player"] is None),
        "owner_unknown_found": sum(1 for _, o in pairs if o["player"] is None),
        **_illegal_plays(summary, result),
        "timing_ms": timing, "disputes": disputes, "rounds": len(rounds_true), "rounds_exact": exact,
        "footage_s": summary.get("duration_s", 0.0), "detail": detail, "waits": waits,
    }


def _illegal_plays(summary: dict, result: dict) -> dict:
    """The simulator's illegal plays (``mistakes``) ruled illegal, and illegal rulings on anything else."""
    illegal = [r for r in result["rulings"] if r.get("kind") == "illegal"]
    caught, used = 0, set()
    for m in summary.get("mistakes", []):
        hits = [k for k, r in enumerate(illegal) if k not in used and r.get("card") == m["card"]
                and abs((r.get("t") or 0.0) - m["t"]) < 0.5]
        if hits:
            used.add(hits[0])
            caught += 1
    return {"illegal_true": len(summary.get("mistakes", [])), "illegal_caught": caught,
            "illegal_wrong": len(illegal) - len(used)}


def _wait_row(tr: dict, o: dict) -> dict:
    """Where one play's delay went (development): its kind, the wait that last held it, and the
    times from the true contact to the first resting sighting and to the report."""
    ev = o["evidence"]
    timing = ev["timing"]
    kind = "inferred" if ev.get("inferred") else "contest" if "contest" in ev or ev.get("occlusion") else \
        "provisional" if ev.get("provisional") else "ordinary"
    return {"kind": kind, "held": timing.get("held") or "-", "delay_ms": 1000 * (timing["reported_t"] - o["t"]),
            "seen_ms": 1000 * (timing["rest_t"] - tr["t"]), "wait_ms": 1000 * (timing["reported_t"] - timing["rest_t"]),
            "card": o["card"], "t": tr["t"]}


def _wait_table(rows: list[dict]) -> list[str]:
    """Median delays by kind of play and by the wait that held it (``--detail``)."""
    def med(xs: list[float]) -> str:
        return f"{statistics.median(xs):5.0f}" if xs else "    -"

    lines = ["  delay by play (ms; delay = first report - reported contact, seen = first rest - true contact, "
             "wait = report - first rest): kind / last wait   n   delay   seen   wait"]
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["kind"], "all"), []).append(r)
        groups.setdefault((r["kind"], r["held"]), []).append(r)
    for (kind, held), rs in sorted(groups.items()):
        lines.append(f"    {kind:<11} {held:<18} {len(rs):3d}   {med([r['delay_ms'] for r in rs])}  "
                     f"{med([r['seen_ms'] for r in rs])}  {med([r['wait_ms'] for r in rs])}")
    lines.append(f"    all         all                {len(rows):3d}   {med([r['delay_ms'] for r in rows])}  "
                 f"{med([r['seen_ms'] for r in rows])}  {med([r['wait_ms'] for r in rows])}")
    return lines


CLIP_COUNTS = ("plays", "found", "phantoms", "attributed", "rounds", "rounds_exact")


def clip_record(seed: int, s: dict) -> dict:
    """One clip's figures as ``--json`` writes them (``score``'s, less the per-play timing rows)."""
    return {"seed": seed, **{k: s[k] for k in CLIP_COUNTS},
            "disputes": [{k: d[k] for k in ("gap", "found", "correct", "tie")} for d in s["disputes"]],
            "detail": s["detail"]}


def figures_line(clips: list[dict]) -> str:
    """The accuracy figures over ``clips`` (``clip_record``s), on one line."""
    t = {k: sum(c[k] for c in clips) for k in CLIP_COUNTS}
    disputes = [d for c in clips for d in c["disputes"]]
    big = [d for d in disputes if d["gap"] >= 20]
    ten = [d for d in disputes if d["gap"] == 10]

    def pct(a: int, b: int) -> str:
        return f"{a}/{b} ({100.0 * a / b:.2f}%)" if b else f"{a}/{b}"

    return (f"{len(clips)} clips: plays {pct(t['found'], t['plays'])}, phantoms {t['phantoms']} in {t['rounds']} rounds, "
            f"attributed {pct(t['attributed'], t['found'])}, first touch >= 20 ms "
            f"{sum(d['correct'] for d in big)}/{len(big)} (ties {sum(d['tie'] for d in big)}), "
            f"10 ms {sum(d['correct'] for d in ten)}/{len(ten)}, rounds exact {t['rounds_exact']}/{t['rounds']}")


def compare(old_path: str, new_path: str) -> int:
    """``--compare``: two ``--json`` files' figures over their common clips, then each clip that
    reads differently, with the detail lines that changed, in order: the old run's (-), the new one's (+)."""
    runs = []
    for path in (old_path, new_path):
        try:
            runs.append({c["seed"]: c for c in json.loads(Path(path).read_text())["clips"]})
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"--compare: {path}: not a bench --json file ({exc})", file=sys.stderr)
            return 2
    old, new = runs
    common = sorted(set(old) & set(new))
    if not common:
        print("--compare: the two runs share no clip (seed)", file=sys.stderr)
        return 2
    print(f"old: {figures_line([old[s] for s in common])}")
    print(f"new: {figures_line([new[s] for s in common])}")
    changed = 0
    for seed in common:
        a, b = old[seed], new[seed]
        if a == b:
            continue
        changed += 1
        print(f"seed {seed}: found {a['found']} -> {b['found']}/{b['plays']}, phantoms {a['phantoms']} -> {b['phantoms']}, "
              f"attributed {a['attributed']} -> {b['attributed']}, rounds exact {a['rounds_exact']} -> {b['rounds_exact']}")
        # in order (a dispute's ruling lines read alike: which dispute they follow tells them apart)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a["detail"], b["detail"], autojunk=False).get_opcodes():
            if tag != "equal":
                print(*(f"  - {line.strip()}" for line in a["detail"][i1:i2]),
                      *(f"  + {line.strip()}" for line in b["detail"][j1:j2]), sep="\n")
    only_old, only_new = sorted(set(old) - set(new)), sorted(set(new) - set(old))
    print(f"{changed} of {len(common)} clips read differently"
          + (f"; only in old: {only_old}" if only_old else "") + (f"; only in new: {only_new}" if only_new else ""))
    return 0


def fmt(value: float | None, target: str, ok: bool | None, unit: str = "") -> str:
    mark = "n/a " if ok is None else ("PASS" if ok else "MISS")
    shown = "n/a" if value is None else (f"{value:.1f}{unit}" if isinstance(value, float) else f"{value}{unit}")
    return f"{shown:>12}   target {target:<10} {mark}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, default=None, help="number of simulated clips (default 3, or every --seeds)")
    ap.add_argument("--seconds", type=float, default=60.0, help="cap on each round's length (default 60 s)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds per clip (default 1)")
    ap.add_argument("--source", choices=("auto", "detector", "poses"), default="auto")
    ap.add_argument("--keep", metavar="DIR", help="keep clips and outputs here")
    ap.add_argument("--weights", metavar="MODEL", help="detector weights for --source detector (default: the shipped model)")
    ap.add_argument("--seeds", help="comma-separated simulator seeds for development runs (default: the "
                    "final-figure seeds, never developed on)")
    ap.add_argument("--detail", action="store_true", help="print each dispute, phantom, missed and misattributed play (development)")
    ap.add_argument("--mistakes", type=float, default=0.0, metavar="P",
                    help="bots misjudge and play an illegal card with this chance when they have nothing to play "
                         "(simulate --mistakes; default 0, as the issue's figures): measures illegal plays ruled "
                         "illegal (use another --keep folder: the clips differ)")
    ap.add_argument("--json", metavar="FILE", help="also write every clip's figures here (for --compare)")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"),
                    help="run nothing: compare two --json files clip by clip (development)")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    seeds = SEEDS
    if args.seeds:
        try:
            seeds = tuple(int(x) for x in args.seeds.split(",") if x.strip())
        except ValueError:
            ap.error(f"--seeds: {args.seeds!r} is not a comma-separated list of integers")
        if set(seeds) & set(SEEDS):
            ap.error("--seeds: seeds 90211-90263 are kept for the final figures; develop on others")
    args.clips = min(args.clips or (len(seeds) if args.seeds else 3), len(seeds))
    source = args.source
    if source == "auto":
        try:
            from vision.sources import DetectorSightings

            DetectorSightings.load()
            source = "detector"
        except Exception as exc:  # no weights yet, or the detector module is missing
            print(f"(detector not loadable: {str(exc).splitlines()[0][:100]}; using simulator truth poses)")
            source = "poses"
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    work.mkdir(parents=True, exist_ok=True)
    totals = {"plays": 0, "found": 0, "phantoms": 0, "attributed": 0, "rounds": 0, "rounds_exact": 0,
              "owner_unknown": 0, "owner_unknown_found": 0, "illegal_true": 0, "illegal_caught": 0, "illegal_wrong": 0}
    timing, disputes, delays, factors, peaks, ms_frame, cpu_share = [], [], [], [], [], [], []
    waits: list[dict] = []
    records: list[dict] = []
    for seed in seeds[: args.clips]:
        clip, out = work / f"clip-{seed}", work / f"out-{seed}"
        if not (clip / "table.mp4").exists():
            t0 = time.perf_counter()
            simulate(seed, clip, args.seconds, args.rounds, args.mistakes)
            print(f"seed {seed}: simulated in {time.perf_counter() - t0:.0f} s", flush=True)
        stats, wall, peak, cpu = analyze(clip, out, source, args.weights)
        s = score(clip, out, args.detail)
        for k in totals:
            totals[k] += s[k]
        timing += s["timing_ms"]
        disputes += s["disputes"]
        waits += s["waits"]
        if stats.get("median_report_delay_ms") is not None:
            delays.append(stats["median_report_delay_ms"] + (stats.get("ms_per_frame") or 0.0))
        factors.append(s["footage_s"] / wall if wall else 0.0)
        peaks.append(peak)
        ms_frame.append(stats.get("ms_per_frame") or 0.0)
        cpu_share.append(cpu / s["footage_s"] if s["footage_s"] else 0.0)
        print(f"seed {seed}: {s['found']}/{s['plays']} plays, {s['phantoms']} phantom, "
              f"{s['attributed']}/{s['found']} attributed, rounds exact {s['rounds_exact']}/{s['rounds']}, "
              f"{s['footage_s'] / wall:.2f}x real time, {cpu_share[-1]:.2f} CPU s per footage s", flush=True)
        for line in s["detail"]:
            print(line, flush=True)
        records.append(clip_record(seed, s))
        if args.json:  # (after every clip: a run cut short keeps what it measured)
            Path(args.json).write_text(json.dumps({"source": source, "clips": records}, indent=1) + "\n")

    def share(a: int, b: int) -> float | None:
        return 100.0 * a / b if b else None

    recall = share(totals["found"], totals["plays"])
    attribution = share(totals["attributed"], totals["found"])
    phantom_rate = totals["phantoms"] / totals["rounds"] if totals["rounds"] else None
    rounds_exact = share(totals["rounds_exact"], totals["rounds"])
    big = [d for d in disputes if d["gap"] >= 20]
    ten = [d for d in disputes if d["gap"] == 10]
    bad_ties = [d for d in disputes if d["tie"] and d["tie_justified"] is False]
    print()
    print(f"vision pipeline vs simulator truth: {args.clips} clips (seeds {', '.join(map(str, seeds[:args.clips]))}), "
          f"source = {source}, 1280x720 @ 30 fps, 4 players, disputes {GAPS} ms")
    print(f"  plays recognised (recall)       {fmt(recall, '>= 99.5%', None if recall is None else recall >= 99.5, '%')}"
          f"   ({totals['found']}/{totals['plays']})")
    print(f"  phantom plays per round         {fmt(phantom_rate, '<= 0.1', None if phantom_rate is None else phantom_rate <= 0.1)}"
          f"   ({totals['phantoms']} in {totals['rounds']} rounds)")
    print(f"  attribution                     {fmt(attribution, '>= 99.5%', None if attribution is None else attribution >= 99.5, '%')}"
          f"   (cards found on a pile, owner unknown: {totals['owner_unknown']}, "
          f"{totals['owner_unknown_found']} of them true plays; counted found, not attributed)")
    r20 = share(sum(d["correct"] for d in big), len(big))
    r10 = share(sum(d["correct"] for d in ten), len(ten))
    print(f"  first touch, gap >= 20 ms       {fmt(r20, '>= 99%', None if r20 is None else r20 >= 99, '%')}"
          f"   ({sum(d['correct'] for d in big)}/{len(big)}; ties {sum(d['tie'] for d in big)})")
    print(f"  first touch, gap = 10 ms        {fmt(r10, '>= 90%', None if r10 is None else r10 >= 90, '%')}"
          f"   ({sum(d['correct'] for d in ten)}/{len(ten)}; ties {sum(d['tie'] for d in ten)})")
    print(f"  ties outside stated uncertainty {fmt(len(bad_ties), '0', len(bad_ties) == 0)}")
    print(f"  illegal plays ruled illegal     {totals['illegal_caught']:>7d} of {totals['illegal_true']:<4d}"
          f"  (no target; --mistakes {args.mistakes:g}; {totals['illegal_wrong']} illegal rulings of anything else)")
    print(f"  rounds with exact totals        {fmt(rounds_exact, '>= 95%', None if rounds_exact is None else rounds_exact >= 95, '%')}"
          f"   ({totals['rounds_exact']}/{totals['rounds']})")
    rt = min(factors) if factors else None
    print(f"  throughput (recording on)       {fmt(rt, '>= 1.0x', None if rt is None else rt >= 1.0, 'x')}"
          f"   (worst clip; pipeline {statistics.mean(ms_frame):.1f} ms/frame; {os.cpu_count()} CPUs)")
    if cpu_share:
        # wall-clock throughput depends on what else the machine runs; the CPU the analysis itself
        # used does not: under 2.0 CPU s per footage s is real time on 2 free cores at best,
        # under 1.0 on one
        print(f"  CPU per footage second          {max(cpu_share):>12.2f}   (worst clip; user + system, all threads; "
              f"load average {os.getloadavg()[0]:.1f} at the end)")
    md = statistics.median(delays) if delays else None
    print(f"  median contact -> ruling delay  {fmt(md, '<= 300 ms', None if md is None else md <= 300, ' ms')}")
    pk = max(peaks) / 2**30 if peaks else None
    print(f"  peak memory                     {fmt(pk, '<= 1.5 GB', None if pk is None else pk <= 1.5, ' GB')}")
    if timing:
        print(f"  contact time error: median {statistics.median(timing):.1f} ms, "
              f"90th percentile {sorted(timing)[int(0.9 * (len(timing) - 1))]:.1f} ms over {len(timing)} plays")
    missed = [d["gap"] for d in disputes if not d["found"]]
    if missed:
        print(f"  disputes not found as disputes (gaps ms): {missed}")
    if args.detail and waits:
        for line in _wait_table(waits):
            print(line)
    print(f"  clips and outputs: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
