"""The Setup page: players, teams and deck backs, every rule setting of RULES.md, calibration.

Settings are changed the only way the dashboard changes anything: by appending an event. The new
players and rules are validated by ``referee.settings`` (the one home of those names) first.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, render_template

from web_dashboard import charts, summary
from web_dashboard.app import dash
from web_dashboard.security import admin_required
from web_dashboard.views import payload

bp = Blueprint("setup", __name__)


def _rule_types() -> dict[str, type]:
    """Each rule setting's value type, read from its default (``Rules`` is the one home of the names)."""
    from dataclasses import fields

    from referee.settings import Rules

    defaults = Rules()
    return {f.name: type(getattr(defaults, f.name)) for f in fields(Rules)}


def rule_fields(current: dict) -> list[dict]:
    """Every rule setting with its kind, allowed values and current value (drives the form).

    Settings with a fixed list of values become a choice; numbers get their bounds where
    ``referee.settings`` publishes them; anything else is a plain field validated on save.
    """
    from referee.settings import CHOICES, INTEGERS, NUMBERS, Rules

    defaults = Rules()
    out = []
    for name, kind in _rule_types().items():
        value = current.get(name, getattr(defaults, name))
        if name in CHOICES:
            out.append({"name": name, "kind": "choice", "choices": CHOICES[name], "value": value})
        elif kind in (int, float):
            lo, hi, text = (INTEGERS.get(name) or NUMBERS.get(name) or (None, None, ""))
            out.append({"name": name, "kind": "int" if kind is int else "number", "min": lo, "max": hi,
                        "help": text, "value": value})
        else:
            out.append({"name": name, "kind": "text", "value": value})
    return out


def _coerce_rules(raw: Any) -> dict:
    """Form values arrive as text: turn numeric settings into numbers before validation."""
    types = _rule_types()
    if not isinstance(raw, dict):
        abort(400, description="rules must be an object {setting: value}")
    out = {}
    for key, value in raw.items():
        kind = types.get(key)
        if isinstance(value, str) and kind in (int, float):
            text = value.strip()
            try:
                value = int(text) if kind is int else float(text)
            except ValueError:
                abort(400, description=f"rules.{key}: {value!r} is not a number")
        out[key] = value
    return out


def _coerce_players(raw: Any) -> list:
    if not isinstance(raw, list):
        abort(400, description="players must be a list of {name, back, seat, team}")
    out = []
    for i, p in enumerate(raw):
        if not isinstance(p, dict):
            abort(400, description=f"players[{i}] must be an object")
        p = dict(p)
        seat = p.get("seat")
        if isinstance(seat, str):
            if seat.strip() == "":
                p.pop("seat")
            elif seat.strip().isdigit():
                p["seat"] = int(seat.strip())
        if isinstance(p.get("team"), str) and not p["team"].strip():
            p["team"] = None
        if isinstance(p.get("name"), str):
            p["name"] = p["name"].strip()
        if not p.get("name") and not p.get("back") and p.get("team") is None and "seat" not in p:
            continue  # an empty row of the form
        out.append(p)
    return out


@bp.get("/setup")
def page():
    snap = dash().store.snapshot()
    rules = summary.settings(snap.state, snap.events)
    people = summary.players(snap.state, snap.events)
    colours = {p["name"]: charts.colour_for(p.get("back"), i) for i, p in enumerate(people)}
    return render_template("setup.html", players=people, colours=colours, fields=rule_fields(rules),
                           calibration=dash().hub.still("calibration") is not None,
                           backs={p["name"] for p in people if dash().hub.still(f"back:{p['name']}") is not None},
                           locked=snap.seq > 0, error=snap.error)


@bp.post("/api/settings")
@admin_required
def save():
    from referee.settings import SettingsError, TableSettings

    body = payload()
    players = _coerce_players(body.get("players", []))
    rules = _coerce_rules(body.get("rules", {}))
    try:
        table = TableSettings.from_dict({"players": players, "rules": rules})
    except SettingsError as exc:
        abort(400, description=str(exc))
    if len(table.players) < 2:
        abort(400, description="players: a game needs 2 to 8 players")
    data = table.to_dict()

    def build(snap):
        if snap.seq > 0:
            abort(409, description="settings are fixed once the game has started (the log already has events)")
        return {"type": "game_started", "players": data["players"], "settings": data["rules"]}

    try:
        seq, snap = dash().store.append_checked(build)
    except ValueError as exc:
        abort(400, description=str(exc))
    return jsonify(seq=seq, board=snap.board)
