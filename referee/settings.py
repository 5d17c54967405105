"""Table settings: the players, their deck backs and every rule setting of ``RULES.md``.

Every rule is named exactly as in ``RULES.md`` and defaults to the value listed first there.
Settings load from TOML (``tomllib``) or JSON with the same structure (Contract 2); sections the
referee does not read (``table``, ``camera``, ``calibration``, ``zones``) are left to vision, but an
unknown key inside ``[rules]`` or ``[[players]]`` is an error, as is any wrong value: the message
names the setting and the values it allows.

>>> s = TableSettings.from_dict({"players": [{"name": "ana", "back": "red"},
...                                          {"name": "ben", "back": "blue"}],
...                              "rules": {"tie_window_ms": 50}})
>>> s.rules.tie_window_ms, s.rules.tie_rule, s.rules.penalty_per_nerts_card
(50.0, 'both_stay', 2)
>>> s.tie_window_ms            # rule settings are also readable on the settings themselves
50.0
>>> TableSettings.from_dict({"rules": {"tie_rule": "coin"}})
Traceback (most recent call last):
...
referee.settings.SettingsError: rules.tie_rule: 'coin' is not allowed; allowed values: both_stay, neither_stays, replay
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping


class SettingsError(ValueError):
    """A table configuration that cannot be used; the message names the setting at fault."""


def read_table_file(path: str | Path, error: type[Exception] | None = None) -> dict[str, Any]:
    """The raw table configuration in a ``.json`` or TOML file, as a dict (the one reader of that
    file: the referee takes ``players``/``rules`` from it, vision ``camera``/``calibration``/``zones``).
    Failures raise ``error`` (default :class:`SettingsError`) naming the file."""
    error = error or SettingsError
    path = Path(path)
    is_json = path.suffix.lower() == ".json"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read the table file ({exc.strerror})") from None
    try:
        data = json.loads(raw.decode("utf-8")) if is_json else tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{path}: not valid {'JSON' if is_json else 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise error(f"{path}: expected a table of settings at the top level")
    return data


# name -> allowed values (first is the default, as in RULES.md)
CHOICES: dict[str, tuple[str, ...]] = {
    "teams": ("off", "pairs"),
    "jokers": ("off", "on"),
    "foundation_rule": ("same_suit", "alternate_colour", "any_suit"),
    "play_on_opponent_nerts": ("off", "on"),
    "tie_rule": ("both_stay", "neither_stays", "replay"),
    "arrival": ("touch", "release"),
    "in_flight_at_call": ("count_if_touched", "count", "return"),
    "stuck_rule": ("rotate_then_end", "end"),
    "end_condition": ("target_score", "fixed_rounds", "lead_margin"),
    "final_tie": ("shared", "play_another_round"),
    "handicap": ("off", "on"),
}

# Where RULES.md lists numeric alternatives they are customary, not exclusive: a table may choose
# another whole number. (min, max, description)
INTEGERS: dict[str, tuple[int, int, str]] = {
    "nerts_pile_size": (3, 40, "a whole number from 3 to 40 (RULES.md: 13)"),
    "points_per_centre_card": (0, 100, "a whole number from 0 to 100 (RULES.md: 1)"),
    "penalty_per_nerts_card": (0, 100, "a whole number from 0 to 100 (RULES.md: 2; some tables use 1)"),
    "nerts_bonus": (0, 1000, "a whole number from 0 to 1000 (RULES.md: 0, 5 or 10)"),
    "target_score": (1, 100000, "a whole number from 1 to 100000 (RULES.md: 100; 150 and 500 are also played)"),
    "rounds": (1, 1000, "a whole number of rounds from 1 to 1000"),
    "margin": (1, 100000, "a whole number of points from 1 to 100000"),
}
NUMBERS: dict[str, tuple[float, float, str]] = {
    "tie_window_ms": (0.0, 10000.0, "a number of milliseconds from 0 to 10000 (RULES.md: 0)"),
}


@dataclass(frozen=True)
class Rules:
    """Every rule setting of ``RULES.md``, under its name, with its default."""

    teams: str = "off"
    jokers: str = "off"
    nerts_pile_size: int = 13
    stock_turn: int = 3
    foundation_rule: str = "same_suit"
    play_on_opponent_nerts: str = "off"
    tie_rule: str = "both_stay"
    tie_window_ms: float = 0.0
    arrival: str = "touch"
    in_flight_at_call: str = "count_if_touched"
    stuck_rule: str = "rotate_then_end"
    points_per_centre_card: int = 1
    penalty_per_nerts_card: int = 2
    nerts_bonus: int = 0
    end_condition: str = "target_score"
    target_score: int = 100
    rounds: int = 5  # RULES.md names `rounds` for fixed_rounds without a default; 5 is ours
    margin: int = 50  # likewise for lead_margin
    final_tie: str = "shared"
    handicap: str = "off"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "rules") -> "Rules":
        if not isinstance(data, Mapping):
            raise SettingsError(f"{where}: expected a table of settings, got {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in names:
                raise SettingsError(
                    f"{where}.{key}: unknown rule setting; known settings: {', '.join(sorted(names))}"
                )
            values[key] = _check_rule(key, value, where)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_rule(key: str, value: Any, where: str) -> Any:
    name = f"{where}.{key}"
    if key in CHOICES:
        allowed = CHOICES[key]
        # TOML/JSON booleans are a natural way to write off/on
        if isinstance(value, bool) and allowed[:2] in (("off", "on"), ("off", "pairs")):
            value = allowed[1] if value else "off"
        if value not in allowed:
            raise SettingsError(f"{name}: {value!r} is not allowed; allowed values: {', '.join(allowed)}")
        return value
    if key == "stock_turn":
        if isinstance(value, bool) or value not in (3, 1):
            raise SettingsError(f"{name}: {value!r} is not allowed; allowed values: 3, 1")
        return int(value)
    if key in INTEGERS:
        lo, hi, text = INTEGERS[key]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise SettingsError(f"{name}: {value!r} is not allowed; allowed values: {text}")
        return value
    if key in NUMBERS:
        lo_f, hi_f, text = NUMBERS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not lo_f <= value <= hi_f:
            raise SettingsError(f"{name}: {value!r} is not allowed; allowed values: {text}")
        return float(value)
    raise SettingsError(f"{name}: unknown rule setting")  # pragma: no cover - guarded by from_dict


_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_NAME = re.compile(r"^[^\s].{0,39}$")


@dataclass(frozen=True)
class Player:
    """A seat at the table. ``back`` identifies the owner of every centre card of this deck."""

    name: str
    back: str = ""
    seat: int | None = None
    team: str | None = None
    nerts_pile_size: int | None = None  # per-player handicap; None = rules.nerts_pile_size

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> "Player":
        if not isinstance(data, Mapping):
            raise SettingsError(f"{where}: expected a table with name, back, seat, team")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise SettingsError(f"{where}.{key}: unknown player field; allowed: {', '.join(sorted(known))}")
        name = data.get("name")
        if not isinstance(name, str) or not _NAME.match(name) or name != name.strip():
            raise SettingsError(f"{where}.name: {name!r} is not allowed; allowed values: a non-empty name of at most 40 characters")
        back = data.get("back", "")
        if not isinstance(back, str) or (back.startswith("#") and not _HEX.match(back)):
            raise SettingsError(f"{where}.back: {back!r} is not allowed; allowed values: a colour name or '#rrggbb'")
        seat = data.get("seat")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 7):
            raise SettingsError(f"{where}.seat: {seat!r} is not allowed; allowed values: 0..7")
        team = data.get("team")
        if team is not None and not isinstance(team, str):
            raise SettingsError(f"{where}.team: {team!r} is not allowed; allowed values: a team name or \"\"")
        team = team or None
        size = data.get("nerts_pile_size")
        if size is not None:
            size = _check_rule("nerts_pile_size", size, where)
        return cls(name=name, back=back.lower() if not back.startswith("#") else back.lower(),
                   seat=seat, team=team, nerts_pile_size=size)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# Sections other areas read from the same file; the referee ignores them.
FOREIGN_SECTIONS = frozenset({"table", "camera", "calibration", "zones", "vision", "dashboard", "simulator"})


@dataclass(frozen=True)
class TableSettings:
    """Players and rules of one table. ``players`` may be empty (an open table: any name plays)."""

    players: tuple[Player, ...] = ()
    rules: Rules = field(default_factory=Rules)
    name: str = ""

    def __getattr__(self, item: str) -> Any:
        # Convenience: settings.tie_window_ms == settings.rules.tie_window_ms
        if item.startswith("_") or item in ("rules", "players", "name"):
            raise AttributeError(item)
        try:
            return getattr(self.rules, item)
        except AttributeError:
            raise AttributeError(f"TableSettings has no setting {item!r}") from None

    # --- loading -----------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TableSettings":
        if not isinstance(data, Mapping):
            raise SettingsError("settings: expected a table (TOML) or object (JSON) at the top level")
        for key in data:
            if key not in ("players", "rules") and key not in FOREIGN_SECTIONS:
                raise SettingsError(
                    f"{key}: unknown section; known: players, rules, " + ", ".join(sorted(FOREIGN_SECTIONS))
                )
        players = parse_players(data.get("players", []))
        rules = Rules.from_dict(data.get("rules", {}))
        table = data.get("table", {})
        name = table.get("name", "") if isinstance(table, Mapping) else ""
        settings = cls(players=players, rules=rules, name=str(name))
        settings.validate()
        return settings

    @classmethod
    def load(cls, path: str | Path) -> "TableSettings":
        """Read a ``.toml`` or ``.json`` file (decided by the suffix; TOML otherwise)."""
        path = Path(path)
        data = read_table_file(path, SettingsError)
        try:
            return cls.from_dict(data)
        except SettingsError as exc:
            raise SettingsError(f"{path}: {exc}") from None

    def with_overrides(self, players: Any = None, rules: Mapping[str, Any] | None = None) -> "TableSettings":
        """These settings with a ``game_started`` event's players/rules laid over them."""
        new_players = parse_players(players) if players else self.players
        merged = {**self.rules.to_dict(), **dict(rules or {})}
        out = replace(self, players=new_players, rules=Rules.from_dict(merged))
        out.validate()
        return out

    def validate(self) -> None:
        names = [p.name for p in self.players]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SettingsError(f"players.name: {sorted(dup)[0]!r} appears twice; allowed values: distinct names")
        seats = [p.seat for p in self.players if p.seat is not None]
        if len(seats) != len(set(seats)):
            raise SettingsError("players.seat: two players share a seat; allowed values: distinct seats 0..7")
        if len(self.players) > 8:
            raise SettingsError("players: at most 8 seats; allowed values: 2 to 8 players")
        teams: dict[str, list[Player]] = {}
        if self.rules.teams == "pairs" and self.players:
            for p in self.players:
                if not p.team:
                    raise SettingsError(f"players.team: {p.name!r} has no team but rules.teams = 'pairs'; "
                                        "allowed values: a team name shared by exactly two players")
                teams.setdefault(p.team, []).append(p)
            for team, members in teams.items():
                if len(members) != 2:
                    raise SettingsError(f"players.team: team {team!r} has {len(members)} players; "
                                        "allowed values: exactly two players per team")
                if len({m.back for m in members}) != 1:
                    raise SettingsError(f"players.back: team {team!r} shares one deck, so its players need "
                                        "the same back; allowed values: one back per team")
            clash = set(teams) & set(names)
            if clash:
                raise SettingsError(f"players.team: team name {sorted(clash)[0]!r} is also a player's name; "
                                    "allowed values: team names distinct from player names")
        # one deck = one back: different scoring units must have different backs
        backs: dict[str, str] = {}
        for p in self.players:
            if not p.back:
                continue
            unit = self.unit_of(p.name)
            if backs.setdefault(p.back, unit) != unit:
                raise SettingsError(f"players.back: {p.back!r} is used by two decks ({backs[p.back]} and {unit}); "
                                    "allowed values: a distinct back per deck")

    # --- queries -----------------------------------------------------------------------------
    def player(self, name: str) -> Player | None:
        for p in self.players:
            if p.name == name:
                return p
        return None

    def unit_of(self, name: str) -> str:
        """The scoring unit of a player: their team when teams are on, else themselves."""
        if self.rules.teams == "pairs":
            for p in self.players:
                if p.name == name and p.team:
                    return p.team
        return name

    def to_dict(self) -> dict[str, Any]:
        return {"players": [p.to_dict() for p in self.players], "rules": self.rules.to_dict(),
                **({"table": {"name": self.name}} if self.name else {})}


def parse_players(data: Any) -> tuple[Player, ...]:
    if not isinstance(data, list):
        raise SettingsError("players: expected a list of players ([[players]] tables in TOML)")
    return tuple(Player.from_dict(p, f"players[{i}]") for i, p in enumerate(data))
