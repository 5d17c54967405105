"""``nerts-referee replay``: referee a scripted or recorded round from a JSON Lines file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from nerts_referee.errors import UsageError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "replay",
        help="referee a JSONL file of observations: print every ruling and the scoreboard",
        description=(
            "Referee ROUND.jsonl (one event per line, see docs/events.md) and print every ruling and "
            "the scoreboard. Several rounds in one file are separated by round_started lines. ROUND "
            "may also name a round shipped with the package (e.g. 'demo_round'), or '-' for stdin."
        ),
    )
    p.add_argument("round", metavar="ROUND.jsonl", help="the events, one JSON object per line")
    p.add_argument("--settings", metavar="TABLE.toml", help="table configuration (TOML or JSON): players and rules")
    p.add_argument("--json", action="store_true", help="print one JSON object (rulings, rounds, totals, ...)")
    p.add_argument("--log", metavar="GAME.db",
                   help="also append the events to this SQLite event log (created if missing); the "
                        "result is then the replay of the whole log")
    p.set_defaults(handler=replay_command)


def _resolve_round(name: str) -> Path | None:
    if name == "-":
        return None
    path = Path(name)
    if path.exists():
        return path
    from referee.data import builtin_round

    builtin = builtin_round(name)
    if builtin is not None:
        return builtin
    raise UsageError(f"{name}: no such file")


def replay_command(args: argparse.Namespace) -> int:
    from referee.engine import Engine
    from referee.observations import EventError, parse_jsonl_line
    from referee.settings import SettingsError, TableSettings

    try:
        settings = TableSettings.load(args.settings) if args.settings else None
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    path = _resolve_round(args.round)
    label = str(path) if path else "<stdin>"
    try:
        fh: TextIO = open(path, encoding="utf-8") if path else sys.stdin
    except OSError as exc:
        raise UsageError(f"{label}: cannot read ({exc.strerror})") from None
    try:
        if args.log:
            from referee.eventlog import EventLog

            try:
                log = EventLog.open(args.log, settings)
            except Exception as exc:  # sqlite3.DatabaseError: not a log file, unwritable...
                raise UsageError(f"{args.log}: cannot open the event log ({exc})") from None
            try:
                log.import_jsonl(fh)
                result = log.state()
            except EventError as exc:
                raise UsageError(f"{label}: {exc} (events before it are kept in {args.log})") from None
            except UnicodeDecodeError:
                raise UsageError(f"{label}: not a UTF-8 text file") from None
            finally:
                log.close()
        else:
            engine = Engine(settings)
            try:
                for lineno, text in enumerate(fh, 1):
                    parsed = parse_jsonl_line(text, lineno)
                    if parsed is None:
                        continue
                    seq = parsed[0].get("seq")  # an exported log keeps its numbering (corrections refer to it)
                    try:
                        engine.feed(parsed[1], seq if type(seq) is int else None)
                    except EventError as exc:
                        raise exc.at_line(lineno) from None
            except EventError as exc:
                raise UsageError(f"{label}: {exc}") from None
            except UnicodeDecodeError:
                raise UsageError(f"{label}: not a UTF-8 text file") from None
            except SettingsError as exc:
                raise UsageError(f"{label}: {exc}") from None
            result = engine.result()
    finally:
        if path:
            fh.close()
    text = json.dumps(result.to_dict(), indent=1) + "\n" if args.json else format_result(result.to_dict())
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: not an error of the referee
        sys.stderr.close()
    return 0


def format_result(d: dict[str, Any]) -> str:
    """A plain-text report: every ruling, then each round's scores and the standings."""
    lines = [f"{'seq':>4}  {'t':>8}  {'ruling':<10} {'card':<8} {'pile':<6} {'player':<8} detail"]
    for r in d["rulings"]:
        t = f"{r['t']:.3f}" if isinstance(r.get("t"), (int, float)) else ""
        kind = r["kind"]
        detail = r.get("message", "")
        if kind in ("illegal", "returned") and r.get("reason"):
            detail = f"{r['reason']}: {detail}"
        if kind == "dispute":
            who = f"tie {' = '.join([r['winner'], *r['tied']])}" if r["tie"] else f"winner {r['winner']}"
            detail = (f"{r['outcome']}: {detail} ({who}, margin {r['margin_ms']:.1f} ms, "
                      f"sigma {r['sigma_ms']:.1f} ms, order {100 * r['confidence']:.1f}% sure)")
        if r.get("overturned"):
            detail += " [overturned]"
        if r.get("upheld"):
            detail += f" [upheld: {r['upheld']}]"
        lines.append(f"{r['seq']:>4}  {t:>8}  {kind:<10} {r.get('card') or '':<8} {r.get('pile') or '':<6} "
                     f"{r.get('player') or '':<8} {detail}")
    lines.append("")
    for rd in d["rounds"]:
        state = "complete" if rd["complete"] else ("void (game over)" if rd["void"] else "in progress")
        head = f"Round {rd['number']} ({state}"
        if rd.get("caller"):
            head += f"; Nerts called by {rd['caller']}" + ("" if rd.get("call_valid") in (True, None) else " (false call)")
        elif rd.get("ended_by"):
            head += f"; ended by {rd['ended_by']}"
        lines.append(head + ")")
        for u, v in rd["scores"].items():
            lines.append(f"  {u:<12} centre {rd['centre_cards'].get(u, 0):>3}  nerts left {rd['nerts_left'].get(u, 0):>3}"
                         f"  bonus {rd['bonus'].get(u, 0):>3}  round {v:+4d}")
        for w in rd.get("warnings", []):
            lines.append(f"  warning: {w}")
    lines.append("")
    lines.append("Scoreboard")
    board = d.get("team_totals") or d["totals"]
    for u, v in sorted(board.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  {u:<12} {v:>5}")
    if d["game_over"]:
        lines.append("Game over: " + " and ".join(d["winners"]) + (" share the win" if len(d["winners"]) > 1 and not d.get("team_totals") else " win" if len(d["winners"]) > 1 else " wins"))
    return "\n".join(lines) + "\n"
