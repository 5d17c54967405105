"""Admin actions: the Nerts call and round controls. Each appends one event to the log.

Every route here is a POST that needs the admin (PIN session + CSRF token, or the token header),
validates its whole input before touching the log, and answers JSON: ``{"seq": n, "board": ...}``
on success, ``{"error": "..."}`` with a 4xx status otherwise.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, abort, jsonify

from web_dashboard.app import dash
from web_dashboard.security import admin_required
from web_dashboard.views import payload

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_PRESS_DELAY_MS = 5000.0  # a press older than this is a stuck client, not a Nerts call


def _append(build) -> Any:
    """Build the event from the current snapshot and append it, atomically w.r.t. other admins."""
    store = dash().store
    try:
        seq, snap = store.append_checked(build)
    except (ValueError, TypeError) as exc:  # the log's own validation (EventError is a ValueError)
        abort(400, description=str(exc))
    return jsonify(seq=seq, board=snap.board)


def unit_names(snap) -> list[str]:
    """Who has a Nerts pile: teams when teams are on (they share one layout), else players."""
    return list(snap.board["units"])


def _round_start(snap) -> float:
    rounds = snap.state.get("rounds") or []
    start = rounds[-1].get("start_t") if rounds else None
    return float(start) if isinstance(start, (int, float)) else 0.0


def _not_before(t: float, floor: float) -> float:
    """A control pressed while round N is in play belongs to round N (the engine files events by
    time), so its time never falls before that round's start, whatever the clock says."""
    return max(t, floor)


def _now(body: dict) -> float:
    """The footage clock at the moment the button was pressed (the client says how long ago)."""
    t = dash().clock()
    ago = body.get("pressed_ms_ago", 0)
    if isinstance(ago, str):
        try:
            ago = float(ago)
        except ValueError:
            abort(400, description="pressed_ms_ago must be a number of milliseconds")
    if isinstance(ago, bool) or not isinstance(ago, (int, float)) or not math.isfinite(ago) \
            or not 0 <= ago <= MAX_PRESS_DELAY_MS:
        abort(400, description=f"pressed_ms_ago must be a number from 0 to {MAX_PRESS_DELAY_MS:.0f}")
    return round(max(0.0, t - ago / 1000.0), 4)


@bp.post("/nerts")
@admin_required
def nerts():
    body = payload()
    t = _now(body)
    player = body.get("player")

    def build(snap):
        names = [p["name"] for p in snap.board["players"]]
        if not isinstance(player, str) or player not in names:
            abort(400, description=f"player must be one of: {', '.join(names) or '(no players yet)'}")
        if not snap.board["round_active"]:
            abort(409, description="no round is in play: start a round first")
        return {"type": "nerts_called", "t": _not_before(t, _round_start(snap)), "player": player}

    return _append(build)


@bp.post("/round/start")
@admin_required
def round_start():
    t = _now(payload())

    def build(snap):
        if snap.board["round_active"]:
            abort(409, description=f"round {snap.board['round']} is still in play: end it first")
        if snap.board["game_over"]:
            abort(409, description="the game is over")
        # a new round starts after everything the log has seen
        return {"type": "round_started", "t": _not_before(t, float(snap.state.get("stream_t") or 0.0))}

    return _append(build)


@bp.post("/round/stuck")
@admin_required
def round_stuck():
    t = _now(payload())

    def build(snap):
        if not snap.board["round_active"]:
            abort(409, description="no round is in play")
        return {"type": "everyone_stuck", "t": _not_before(t, _round_start(snap))}

    return _append(build)


@bp.post("/round/end")
@admin_required
def round_end():
    body = payload()
    t = _now(body)
    raw = body.get("nerts_left")
    if raw is None:  # form fields nerts_left.<name>
        raw = {k.split(".", 1)[1]: v for k, v in body.items() if k.startswith("nerts_left.")}
    if not isinstance(raw, dict):
        abort(400, description="nerts_left must be an object {player: cards left in their Nerts pile}")

    def build(snap):
        units = unit_names(snap)
        if not snap.board["round_active"]:
            abort(409, description="no round is in play")
        unknown = sorted(set(raw) - set(units))
        if unknown:
            abort(400, description=f"nerts_left: unknown player {unknown[0]!r}; players: {', '.join(units)}")
        missing = [u for u in units if u not in raw or raw[u] in ("", None)]
        if missing:
            abort(400, description=f"nerts_left: enter the Nerts cards left for {', '.join(missing)}")
        left: dict[str, int] = {}
        for unit in units:
            value = raw[unit]
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value.strip())
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 52:
                abort(400, description=f"nerts_left: {unit}: {value!r} is not a whole number from 0 to 52")
            left[unit] = value
        return {"type": "round_ended", "t": _not_before(t, _round_start(snap)), "nerts_left": left}

    return _append(build)
