"""Observations and admin events: the referee's input (Contract 1, ``docs/events.md``).

``parse_event(dict)`` turns one JSON object into a typed event or raises :class:`EventError`
naming the field at fault; ``parse_jsonl_line`` adds the line number.

>>> e = parse_event({"type": "card_touched", "t": 12.345, "card": "5H", "player": "ana", "pile": "p3"})
>>> e.card, e.pile, e.uncertainty_ms
(Card(rank=5, suit='H'), 'p3', 0.0)
>>> parse_event({"type": "card_touched", "t": 1, "card": "11H", "player": "ana", "pile": "p1"})
Traceback (most recent call last):
...
referee.observations.EventError: field 'card': unknown card '11H': expected rank A 2-10 J Q K then suit C D H S, e.g. '10H', 'QS'
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from referee.cards import Card, UnknownCard

EVENT_TYPES = ("game_started", "round_started", "card_touched", "nerts_called", "everyone_stuck",
               "round_ended", "correction")
CORRECTION_ACTIONS = ("overturn", "uphold", "set_owner", "set_card", "set_pile", "set_time", "set_nerts_left")
JOKER_NAMES = frozenset({"JOKER", "JK", "RED JOKER", "BLACK JOKER", "JOKER-R", "JOKER-B", "JOKER_R", "JOKER_B"})


class EventError(ValueError):
    """An event that does not follow the schema. ``line`` and ``field`` say where."""

    def __init__(self, message: str, field: str | None = None, line: int | None = None):
        self.message = message
        self.field = field
        self.line = line
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field is not None:
            where.append(f"field {self.field!r}")
        return (", ".join(where) + ": " if where else "") + self.message

    def at_line(self, line: int) -> "EventError":
        return EventError(self.message, self.field, line)


# --- typed events ------------------------------------------------------------------------------

@dataclass(slots=True)
class GameStarted:
    players: list[dict[str, Any]]
    settings: dict[str, Any]
    type: str = "game_started"


@dataclass(slots=True)
class RoundStarted:
    t: float | None
    type: str = "round_started"


@dataclass(slots=True)
class CardTouched:
    """A card touched a centre pile. ``card`` is the (declared) identity; ``joker`` marks a Joker."""

    t: float
    card: Card | None  # None only for an undeclared Joker
    player: str | None  # None: seen on the pile, but nobody was seen playing it (owner unknown)
    pile: str
    uncertainty_ms: float = 0.0
    confidence: float | None = None
    evidence: Any = None
    release_t: float | None = None
    lift_t: float | None = None
    joker: bool = False
    text: str = ""  # the card as printed: "5H", "JOKER=5H", "JOKER"
    type: str = "card_touched"


@dataclass(slots=True)
class NertsCalled:
    t: float
    player: str
    type: str = "nerts_called"


@dataclass(slots=True)
class EveryoneStuck:
    t: float
    type: str = "everyone_stuck"


@dataclass(slots=True)
class RoundEnded:
    t: float | None
    nerts_left: dict[str, int] = field(default_factory=dict)
    type: str = "round_ended"


@dataclass(slots=True)
class Correction:
    target: int
    action: str
    reason: str
    player: str | None = None
    card: Card | None = None
    joker: bool | None = None
    count: int | None = None
    pile: str | None = None
    t: float | None = None  # set_time: the re-measured contact time
    uncertainty_ms: float | None = None  # set_time: its uncertainty (unchanged when None)
    type: str = "correction"


Event = GameStarted | RoundStarted | CardTouched | NertsCalled | EveryoneStuck | RoundEnded | Correction


# --- field readers -----------------------------------------------------------------------------

def _time(d: Mapping[str, Any], key: str, required: bool = True) -> float | None:
    v = d.get(key)
    if v is None:
        if required:
            raise EventError("missing (seconds on the footage clock, a number)", key)
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise EventError(f"{v!r} is not a time: expected a non-negative number of seconds", key)
    return float(v)


def _name(d: Mapping[str, Any], key: str) -> str:
    v = d.get(key)
    if v is None:
        raise EventError("missing (a player name)" if key == "player" else "missing", key)
    if not isinstance(v, str) or not v.strip():
        raise EventError(f"{v!r} is not allowed: expected a non-empty string", key)
    return v


_CARD_CACHE: dict[str, tuple[Card | None, bool]] = {}
_CARD_TEXT: dict[str, str] = {}  # spelling -> canonical text ("qs" -> "QS")


def parse_card(value: Any, key: str = "card") -> tuple[Card | None, bool]:
    """``(identity, is_joker)``; a bare Joker has identity ``None`` until declared."""
    hit = _CARD_CACHE.get(value) if isinstance(value, str) else None
    if hit is not None:
        return hit
    out = _parse_card(value, key)
    if len(_CARD_CACHE) < 4096:  # valid spellings only, so this stays small
        _CARD_CACHE[value] = out
        if out[0] is not None and not out[1]:
            _CARD_TEXT[value] = str(out[0])
    return out


def _parse_card(value: Any, key: str) -> tuple[Card | None, bool]:
    if isinstance(value, str):
        up = value.strip().upper()
        if up in JOKER_NAMES:
            return None, True
        if "=" in up or ":" in up:  # "JOKER=5H": a Joker with its declared identity
            head, _, tail = up.replace(":", "=").partition("=")
            if head.strip() in JOKER_NAMES:
                return parse_card(tail, key)[0], True
    try:
        return Card.parse(value), False
    except UnknownCard as exc:
        raise EventError(str(exc), key) from None


def _number(d: Mapping[str, Any], key: str, lo: float, hi: float, default: Any) -> Any:
    v = d.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= v <= hi:
        raise EventError(f"{v!r} is not allowed: expected a number from {lo:g} to {hi:g}", key)
    return float(v)


# --- parsing -----------------------------------------------------------------------------------

def parse_event(d: Any) -> Event:
    """Validate one event object; raise :class:`EventError` naming the field at fault."""
    if not isinstance(d, dict):
        raise EventError(f"expected a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    if kind == "card_touched":  # the hot path: keep it lean
        cv = d.get("card")
        if cv is None:
            raise EventError("missing (a card like '10H', 'QS', or 'JOKER')", "card")
        card, joker = parse_card(cv)
        if joker:
            if d.get("declared") is not None:
                card = parse_card(d["declared"], "declared")[0]
            text = f"JOKER={card}" if card else "JOKER"
        else:
            text = _CARD_TEXT.get(cv) or str(card)
        pile = d.get("pile")
        if pile is None:
            raise EventError("missing (the id of a centre pile)", "pile")
        if isinstance(pile, int) and not isinstance(pile, bool):
            pile = str(pile)
        if not isinstance(pile, str) or not pile:
            raise EventError(f"{pile!r} is not allowed: expected a pile id (a non-empty string)", "pile")
        t = d.get("t")
        if type(t) is not float or not 0.0 <= t < math.inf:
            t = _time(d, "t")
        player = d.get("player")
        if player is None and "player" in d:
            pass  # seen on the pile, nobody seen playing it: the owner is the table's to set
        elif type(player) is not str or not player or player.isspace():
            player = _name(d, "player")
        u = d.get("uncertainty_ms")
        if u is None:
            u = 0.0
        elif type(u) is not float or not 0.0 <= u <= 10000.0:
            u = _number(d, "uncertainty_ms", 0.0, 10000.0, 0.0)
        conf = d.get("confidence")
        if conf is not None and (type(conf) is not float or not 0.0 <= conf <= 1.0):
            conf = _number(d, "confidence", 0.0, 1.0, None)
        rel = d.get("release_t")
        if rel is not None:
            rel = _time(d, "release_t", False)
        lift = d.get("lift_t")
        if lift is not None:
            lift = _time(d, "lift_t", False)
        return CardTouched(t, card, player, pile, u, conf, d.get("evidence"), rel, lift, joker, text)
    if kind == "round_started":
        return RoundStarted(t=_time(d, "t", False))
    if kind == "nerts_called":
        return NertsCalled(t=_time(d, "t"), player=_name(d, "player"))
    if kind == "everyone_stuck":
        return EveryoneStuck(t=_time(d, "t"))
    if kind == "round_ended":
        left = d.get("nerts_left", {})
        if not isinstance(left, dict):
            raise EventError("expected an object {player: cards left in their Nerts pile}", "nerts_left")
        for who, n in left.items():
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 52:
                raise EventError(f"{who}: {n!r} is not allowed: expected a whole number from 0 to 52", "nerts_left")
        return RoundEnded(t=_time(d, "t", False), nerts_left=dict(left))
    if kind == "game_started":
        players = d.get("players", [])
        if not isinstance(players, list):
            raise EventError("expected a list of players", "players")
        settings = d.get("settings", {})
        if not isinstance(settings, dict):
            raise EventError("expected an object of rule settings", "settings")
        return GameStarted(players=players, settings=settings)
    if kind == "correction":
        target = d.get("target")
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise EventError(f"{target!r} is not allowed: expected the seq (a whole number >= 1) of the event it corrects"
                             if target is not None else "missing (the seq of the event it corrects)", "target")
        action = d.get("action")
        if action not in CORRECTION_ACTIONS:
            raise EventError(f"{action!r} is not allowed; allowed values: {', '.join(CORRECTION_ACTIONS)}", "action")
        reason = d.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise EventError("missing: every correction needs a reason", "reason")
        c = Correction(target=target, action=action, reason=reason)
        if action == "set_owner":
            c.player = _name(d, "player")
        elif action == "set_card":
            if d.get("card") is None:
                raise EventError("missing (the card's true identity)", "card")
            c.card, c.joker = parse_card(d["card"])
            if c.joker and d.get("declared") is not None:
                c.card = parse_card(d["declared"], "declared")[0]
        elif action == "set_pile":
            pile = d.get("pile")
            if isinstance(pile, int) and not isinstance(pile, bool):
                pile = str(pile)
            if pile is None:
                raise EventError("missing (the id of the pile the card really touched)", "pile")
            if not isinstance(pile, str) or not pile.strip():
                raise EventError(f"{pile!r} is not allowed: expected a pile id (a non-empty string)", "pile")
            c.pile = pile
        elif action == "set_time":
            c.t = _time(d, "t")
            c.uncertainty_ms = _number(d, "uncertainty_ms", 0.0, 10000.0, None)
        elif action == "set_nerts_left":
            c.player = _name(d, "player")
            n = d.get("count")
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 52:
                raise EventError(f"{n!r} is not allowed: expected a whole number from 0 to 52", "count")
            c.count = n
        return c
    if kind is None:
        raise EventError("missing (one of " + ", ".join(EVENT_TYPES) + ")", "type")
    raise EventError(f"unknown event type {kind!r}; allowed values: {', '.join(EVENT_TYPES)}", "type")


def parse_jsonl_line(text: str, line: int) -> tuple[dict[str, Any], Event] | None:
    """Parse one JSONL line: ``(raw dict, typed event)``, or ``None`` for a blank/comment line."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#") or stripped.startswith("//"):
        return None
    try:
        raw = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise EventError(f"not valid JSON: {exc.msg} (column {exc.colno})", None, line) from None
    try:
        return raw, parse_event(raw)
    except EventError as exc:
        raise exc.at_line(line) from None
