"""Table settings: every rule of RULES.md by name and default, TOML/JSON, clear errors."""

from __future__ import annotations

import doctest
import json
import re

import pytest

import referee.cards
import referee.engine
import referee.eventlog
import referee.nerts
import referee.observations
import referee.settings
from referee.settings import Rules, SettingsError, TableSettings

TOML = """
[table]
name = "table 1"

[[players]]
name = "ana"
back = "red"
seat = 0
team = ""

[[players]]
name = "ben"
back = "#1E40AF"
seat = 4

[rules]
tie_window_ms = 50
tie_rule = "neither_stays"
nerts_bonus = 10
jokers = true

[camera]
source = "0"
width = 1280

[calibration]
markers = "aruco_4x4_50"

[zones]
table_mm = [1200, 900]
"""


def test_defaults_follow_rules_md(shared_dir):
    """Every setting named in RULES.md (`name`: default ...) exists here with that default."""
    text = (shared_dir / "RULES.md").read_text()
    named = dict(re.findall(r"`([a-z_]+)`: ([A-Za-z0-9_]+)", text))
    rules = Rules().to_dict()
    for name, default in named.items():
        assert name in rules, f"{name} from RULES.md is not a setting"
        assert str(rules[name]).removesuffix(".0") == default, name
    assert "default 0" in text and rules["tie_window_ms"] == 0  # written "(default 0: ...)" there
    assert set(named) | {"rounds", "margin", "tie_window_ms"} == set(rules)


def test_load_toml_ignores_other_areas_sections(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(TOML)
    s = TableSettings.load(path)
    assert [p.name for p in s.players] == ["ana", "ben"]
    assert s.players[0].team is None and s.players[1].back == "#1e40af"
    assert (s.rules.tie_window_ms, s.rules.tie_rule, s.rules.nerts_bonus, s.rules.jokers) == (50.0, "neither_stays", 10, "on")
    assert s.tie_rule == "neither_stays" and s.name == "table 1"


def test_json_with_the_same_structure(tmp_path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"players": [{"name": "ana", "back": "red"}], "rules": {"penalty_per_nerts_card": 1}}))
    assert TableSettings.load(path).rules.penalty_per_nerts_card == 1


@pytest.mark.parametrize("rules, message", [
    ({"tie_rule": "coin"}, "rules.tie_rule: 'coin' is not allowed; allowed values: both_stay, neither_stays, replay"),
    ({"foundation_rule": "down"}, "rules.foundation_rule: 'down' is not allowed; allowed values: same_suit, alternate_colour, any_suit"),
    ({"tie_window_ms": -1}, "rules.tie_window_ms: -1 is not allowed; allowed values: a number of milliseconds"),
    ({"stock_turn": 2}, "rules.stock_turn: 2 is not allowed; allowed values: 3, 1"),
    ({"end_condition": "sudden_death"}, "allowed values: target_score, fixed_rounds, lead_margin"),
    ({"in_flight_at_call": "maybe"}, "allowed values: count_if_touched, count, return"),
    ({"target_score": "100"}, "rules.target_score: '100' is not allowed"),
    ({"tie_windw_ms": 5}, "rules.tie_windw_ms: unknown rule setting; known settings: arrival,"),
])
def test_wrong_values_name_the_setting_and_the_allowed_values(rules, message):
    with pytest.raises(SettingsError) as exc:
        TableSettings.from_dict({"rules": rules})
    assert message in str(exc.value)


@pytest.mark.parametrize("data, message", [
    ({"players": [{"name": "ana"}, {"name": "ana"}]}, "players.name: 'ana' appears twice"),
    ({"players": [{"name": "ana", "seat": 9}]}, "players[0].seat: 9 is not allowed; allowed values: 0..7"),
    ({"players": [{"name": "ana", "back": "red"}, {"name": "ben", "back": "red"}]}, "players.back: 'red' is used by two decks"),
    ({"players": [{"name": "ana", "team": "x"}], "rules": {"teams": "pairs"}}, "team 'x' has 1 players"),
    ({"players": [{"name": "ana"}], "rules": {"teams": "pairs"}}, "'ana' has no team but rules.teams = 'pairs'"),
    ({"players": [{"name": "ana", "colour": "red"}]}, "players[0].colour: unknown player field"),
    ({"rulez": {}}, "rulez: unknown section"),
])
def test_player_errors(data, message):
    with pytest.raises(SettingsError) as exc:
        TableSettings.from_dict(data)
    assert message in str(exc.value)


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "t.toml"
    bad.write_text("[rules\n")
    with pytest.raises(SettingsError, match="t.toml: not valid TOML"):
        TableSettings.load(bad)
    with pytest.raises(SettingsError, match="cannot read"):
        TableSettings.load(tmp_path / "missing.toml")


@pytest.mark.parametrize("module", [referee.cards, referee.settings, referee.observations, referee.nerts,
                                    referee.engine, referee.eventlog])
def test_docstring_examples_run(module):
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0
