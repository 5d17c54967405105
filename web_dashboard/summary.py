"""Pure functions that turn the log (events) and its replay (``GameResult.to_dict()``) into what
the pages show: the scoreboard, feed lines, per-player statistics and the score progression.

No Flask and no I/O here, so every figure on the dashboard is unit-testable from plain dicts.
"""

from __future__ import annotations

from typing import Any, Iterable

from web_dashboard.charts import colour_for



# -- who plays and under which rules -------------------------------------------------------------

def game_started(events: Iterable[dict]) -> dict | None:
    for event in events:
        if event.get("type") == "game_started":
            return event
    return None


def players(state: dict, events: Iterable[dict]) -> list[dict]:
    """Players in seat order: from the state if it lists them, else ``game_started``, else totals."""
    listed = state.get("players")
    if not listed:
        started = game_started(events)
        listed = started.get("players") if started else None
    if listed:
        out = []
        for i, p in enumerate(listed):
            p = p if isinstance(p, dict) else {"name": str(p)}
            out.append({"name": p.get("name", f"player {i + 1}"), "back": p.get("back"),
                        "seat": p.get("seat", i), "team": p.get("team") or None})
        return sorted(out, key=lambda p: (p["seat"] is None, p["seat"]))
    return [{"name": n, "back": None, "seat": i, "team": None}
            for i, n in enumerate(state.get("totals", {}))]


def settings(state: dict, events: Iterable[dict]) -> dict:
    """The rule settings in force: the replay's if it reports them, else the last ones logged."""
    if isinstance(state.get("settings"), dict):
        return dict(state["settings"])
    found: dict = {}
    for event in events:
        if event.get("type") in ("game_started", "settings_changed") and isinstance(event.get("settings"), dict):
            found.update(event["settings"])
    return found


# -- rounds and the scoreboard --------------------------------------------------------------------

def round_phase(state: dict, events: Iterable[dict]) -> dict:
    """Round number, whether one is in play (not yet ended), and its stuck count and caller.

    The engine's rounds are the truth (a card touched before any ``round_started`` opens an
    implicit round); the events fill in when the log could not be replayed.
    """
    rounds = [r for r in state.get("rounds") or [] if isinstance(r, dict)]
    if rounds:
        last = rounds[-1]
        stuck = sum(1 for e in events if e.get("type") == "everyone_stuck"
                    and isinstance(e.get("t"), (int, float)) and last.get("start_t") is not None
                    and e["t"] >= last["start_t"])
        return {"round": last.get("number", len(rounds)), "active": last.get("end_seq") is None,
                "stuck": stuck, "nerts_by": last.get("caller")}
    number, active, stuck, nerts_by = 0, False, 0, None
    for event in events:
        kind = event.get("type")
        if kind == "round_started":
            number, active, stuck, nerts_by = number + 1, True, 0, None
        elif kind == "everyone_stuck" and active:
            stuck += 1
        elif kind == "nerts_called" and active:
            nerts_by = nerts_by or event.get("player")
        elif kind == "round_ended":
            active = False
    return {"round": number, "active": active, "stuck": stuck, "nerts_by": nerts_by}


def finished_rounds(state: dict) -> list[dict]:
    """The rounds that count: ended, and not played after the game was already over."""
    return [r for r in state.get("rounds") or []
            if isinstance(r, dict) and r.get("complete", r.get("end_seq") is not None) and not r.get("void")]


def round_scores(state: dict) -> list[dict[str, float]]:
    """Each finished round's score per scoring unit (player, or team when teams are on), in order."""
    out = []
    for r in finished_rounds(state):
        scores = r.get("scores")
        if isinstance(scores, dict):
            out.append({str(k): _num(v) for k, v in scores.items()})
    return out


def _num(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return 0.0


def units(state: dict, events: Iterable[dict]) -> list[str]:
    """The scoring units in seat order: teams when ``teams = pairs``, else players."""
    people = players(state, events)
    rules = settings(state, events)
    out: list[str] = []
    for p in people:
        unit = p.get("team") if rules.get("teams") == "pairs" and p.get("team") else p["name"]
        if unit not in out:
            out.append(unit)
    for r in state.get("rounds") or []:
        for name in (r.get("scores") or {}) if isinstance(r, dict) else ():
            if name not in out:
                out.append(name)
    return out


def progression(state: dict, names: list[str]) -> list[dict[str, float]]:
    """Running totals after each round, starting from zero (the chart's points)."""
    running = {n: 0.0 for n in names}
    series = [dict(running)]
    for scores in round_scores(state):
        for name, value in scores.items():
            running[name] = running.get(name, 0.0) + value
        series.append(dict(running))
    return series


def target(rules: dict) -> dict:
    condition = rules.get("end_condition", "target_score")
    if condition == "fixed_rounds":
        value = rules.get("rounds", 0)
        label = f"{value} rounds"
    elif condition == "lead_margin":
        value = rules.get("margin", 0)
        label = f"lead of {value}"
    else:
        condition, value = "target_score", rules.get("target_score", 100)
        label = f"first to {value}"
    return {"end_condition": condition, "value": value, "label": label}


def scoreboard(state: dict, events: list[dict], seq: int) -> dict:
    """The Live page's scoreboard: round, totals, and each player's progress to the end of the game."""
    people = players(state, events)
    rules = settings(state, events)
    goal = target(rules)
    totals = {str(k): _num(v) for k, v in (state.get("totals") or {}).items()}
    phase = round_phase(state, events)
    finished = round_scores(state)
    last = finished[-1] if finished else {}
    team_of = {p["name"]: p.get("team") for p in people}
    teams_on = rules.get("teams") == "pairs"
    names = [p["name"] for p in people]
    for name in totals:  # a player who is not declared (open table) still scores
        if name not in names:
            names.append(name)
    values = [totals.get(n, 0.0) for n in names]
    rows = []
    for i, name in enumerate(names):
        total = totals.get(name, 0.0)
        unit = team_of.get(name) if teams_on and team_of.get(name) else name
        if goal["end_condition"] == "fixed_rounds":
            progress = len(finished) / goal["value"] if goal["value"] else 0.0
        elif goal["end_condition"] == "lead_margin":
            lead = total - min(values) if values else 0.0
            progress = lead / goal["value"] if goal["value"] else 0.0
        else:
            progress = total / goal["value"] if goal["value"] else 0.0
        person = next((p for p in people if p["name"] == name), {})
        rows.append({"name": name, "unit": unit, "total": _clean(total),
                     "last_round": _clean(last.get(unit, 0.0)),
                     "back": person.get("back"), "team": person.get("team"),
                     "colour": colour_for(person.get("back"), i),
                     "progress": max(0.0, min(1.0, progress))})
    return {
        "seq": seq,
        "round": phase["round"],
        "round_active": phase["active"],
        "stuck": phase["stuck"],
        "nerts_by": phase["nerts_by"],
        "rounds_finished": len(finished),
        "target": goal,
        "players": rows,
        "units": units(state, events),
        "game_over": bool(state.get("game_over")),
        "winners": list(state.get("winners") or []),
    }


def _clean(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 2)


# -- rulings and the feed -------------------------------------------------------------------------

REVIEW_KINDS = ("dispute", "illegal", "returned")
CARD_KINDS = ("accepted", "illegal", "returned", "dispute")  # the rulings on a card touch (referee.engine)


def rulings_by_seq(state: dict) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for ruling in state.get("rulings") or []:
        if isinstance(ruling, dict) and isinstance(ruling.get("seq"), int):
            out.setdefault(ruling["seq"], []).append(ruling)
    return out


def reviewable(state: dict) -> list[dict]:
    """Card rulings a table may contest: disputes, illegal plays, cards returned at the call, cards
    seen on a pile whose owner nobody saw (the table names it), and any ruling already corrected (an overturned illegal play becomes ``accepted`` and must stay
    reviewable), in log order."""
    return [r for r in state.get("rulings") or []
            if isinstance(r, dict) and r.get("card") is not None and isinstance(r.get("seq"), int)
            and (r.get("kind") in REVIEW_KINDS or r.get("owner_unknown") or r.get("overturned") or r.get("upheld")
                 or r.get("corrections"))]


def card_rulings(state: dict) -> list[dict]:
    """Every ruling on a card touch, in log order (any of them may be corrected)."""
    return [r for r in state.get("rulings") or []
            if isinstance(r, dict) and r.get("kind") in CARD_KINDS and isinstance(r.get("seq"), int)]


def corrections(events: Iterable[dict]) -> dict[int, list[dict]]:
    """Correction events by the seq they target."""
    out: dict[int, list[dict]] = {}
    for event in events:
        if event.get("type") == "correction" and isinstance(event.get("target"), int):
            out.setdefault(event["target"], []).append(event)
    return out


def _ms(x: Any) -> str | None:
    return f"{x:.0f} ms" if isinstance(x, (int, float)) else None


def provisional(ruling: dict) -> bool:
    """A card vision reported at once while a second arm at the pile may have brought a hidden copy
    (``evidence.provisional``): its ruling may still be revised, until a revision came (a
    correction) or the stream has moved past it by the engine's latency (``final``)."""
    evidence = ruling.get("evidence")
    return isinstance(evidence, dict) and bool(evidence.get("provisional")) and \
        not ruling.get("corrections") and ruling.get("final") is False


def ruling_text(ruling: dict) -> str:
    """One line a player understands, from an engine ruling (``kind`` + ``message``)."""
    kind = ruling.get("kind", "?")
    card, pile, player = ruling.get("card"), ruling.get("pile"), ruling.get("player")
    message = ruling.get("message") or kind
    if card is not None:
        head = f"{player or 'owner unknown:'} {card} on {pile}"
        if provisional(ruling):
            head += " (provisional: another copy may lie under it)"
        if kind == "accepted" and not ruling.get("overturned") and not ruling.get("owner_unknown"):
            return head
        if kind == "dispute":
            margin, sigma = _ms(ruling.get("margin_ms")), _ms(ruling.get("sigma_ms"))
            how = f" (margin {margin}" + (f" ± {sigma}" if sigma else "") + ")" if margin else ""
            return f"{head}: {message}{how}"
        return f"{head}: {message}"
    if kind == "nerts_call":
        return f"NERTS! {player}" + ("" if ruling.get("valid") else f": {message}")
    return message


def feed_line(event: dict, rulings: dict[int, list[dict]]) -> dict:
    """One event as the feed shows it: time, text and a CSS class for its colour."""
    kind = event.get("type", "?")
    seq = event.get("seq")
    t = event.get("t")
    found = rulings.get(seq) or []
    css = found[-1].get("kind", kind) if found else kind
    if found:
        text = "; ".join(ruling_text(r) for r in found)
    elif kind == "card_touched":
        text = f"{event.get('player', '?')} {event.get('card', '?')} on {event.get('pile', '?')}"
    elif kind == "nerts_called":
        text = f"NERTS! {event.get('player', '?')}"
    elif kind == "round_ended":
        left = event.get("nerts_left") or {}
        text = "round ended" + (": Nerts cards left " + ", ".join(f"{k} {v}" for k, v in left.items()) if left else "")
    elif kind == "correction":
        text = f"{event.get('action')} #{event.get('target')}: {event.get('reason', '')}"
    elif kind == "game_started":
        names = [p.get("name", "?") for p in event.get("players") or [] if isinstance(p, dict)]
        text = "game started" + (": " + ", ".join(names) if names else "")
    else:
        text = str(kind).replace("_", " ")
    return {"seq": seq, "t": t if isinstance(t, (int, float)) else None, "type": kind, "css": css, "text": text}


# -- per-player statistics -------------------------------------------------------------------------

def player_stats(state: dict, events: list[dict]) -> list[dict]:
    """Per player: cards to the centre (those that stayed), disputes won, lost and tied, illegal
    plays, cards returned at the Nerts call and Nerts calls, over the whole game."""
    stats: dict[str, dict] = {}

    def row(name: Any) -> dict:
        name = str(name)
        if name not in stats:
            stats[name] = {"name": name, "centre": 0, "disputes_won": 0, "disputes_lost": 0, "ties": 0,
                           "illegal": 0, "returned": 0, "nerts_calls": 0}
        return stats[name]

    for p in players(state, events):
        row(p["name"])
    void_rounds = {r.get("number") for r in state.get("rounds") or [] if isinstance(r, dict) and r.get("void")}
    for ruling in state.get("rulings") or []:
        if not isinstance(ruling, dict) or ruling.get("card") is None or not ruling.get("player"):
            continue
        who = row(ruling["player"])
        kind = ruling.get("kind")
        if ruling.get("stays") and ruling.get("round") not in void_rounds:
            who["centre"] += 1
        if kind == "dispute":
            outcome = ruling.get("outcome")
            key = {"won": "disputes_won", "lost": "disputes_lost", "tie": "ties"}.get(outcome)
            if key:
                who[key] += 1
        elif kind in ("illegal", "returned"):  # returned: in the air at the call, not a bad play
            who[kind] += 1
    for event in events:
        if event.get("type") == "nerts_called" and event.get("player"):
            row(event["player"])["nerts_calls"] += 1
    return list(stats.values())
