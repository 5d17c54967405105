"""`nerts-referee replay`: the shipped demo round, JSON output, and clear errors on bad input."""

from __future__ import annotations

import json

import pytest

from nerts_referee.cli import main
from referee.data import DEMO_ROUND
from referee.eventlog import EventLog


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_round_is_a_realistic_game(capsys):
    code, out, _ = run(capsys, "replay", str(DEMO_ROUND), "--json")
    assert code == 0
    d = json.loads(out)
    kinds = [r["kind"] for r in d["rulings"]]
    assert kinds.count("round_score") == 2 and "illegal" in kinds and "nerts_call" in kinds
    disputes = [r for r in d["rulings"] if r["kind"] == "dispute"]
    close = [r for r in disputes if not r["tie"]]
    ties = [r for r in disputes if r["tie"]]
    assert close and ties
    # the close dispute: dee's 3H was reported first but ana's touched 19 ms earlier
    assert close[0]["player"] == "dee" and close[0]["winner"] == "ana" and close[0]["margin_ms"] == pytest.approx(19.0)
    assert 0.95 < close[0]["confidence"] < 1.0
    flown = [r for r in d["rulings"] if r.get("reason") == "in_flight_at_call"]
    assert flown and all(r["kind"] == "returned" and not r["stays"] for r in flown)
    assert d["game_over"] and d["winners"] == ["ana"]
    assert d["totals"] == {"ana": 19, "ben": 3, "cy": -1, "dee": 9}
    for r in d["rulings"]:
        assert {"seq", "kind", "card", "pile", "player", "t"} <= set(r)


def test_human_readable_table_and_builtin_name(capsys):
    code, out, _ = run(capsys, "replay", "demo_round")
    assert code == 0
    assert "dispute" in out and "Scoreboard" in out and "Game over: ana wins" in out
    flown = [line for line in out.splitlines() if " 5H " in line and " p5 " in line]
    assert len(flown) == 1 and "  returned   " in flown[0] and "in_flight_at_call: in flight" in flown[0]


@pytest.mark.parametrize("line, where", [
    ("{not json", "line 3: not valid JSON"),
    ('{"type": "card_toched", "t": 1}', "line 3, field 'type': unknown event type 'card_toched'"),
    ('{"type": "card_touched", "t": 1, "card": "11H", "player": "ana", "pile": "p1"}', "line 3, field 'card': unknown card '11H'"),
    ('{"type": "card_touched", "t": 1, "card": "5H", "pile": "p1"}', "line 3, field 'player': missing"),
    ('{"type": "card_touched", "t": "soon", "card": "5H", "player": "ana", "pile": "p1"}', "line 3, field 't'"),
    ('{"type": "correction", "target": 99, "action": "overturn", "reason": "x"}', "line 3, field 'target'"),
])
def test_malformed_input_names_line_and_field(tmp_path, capsys, line, where):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "round_started", "t": 0}\n'
                    '{"type": "card_touched", "t": 0.5, "card": "AH", "player": "ana", "pile": "p1"}\n'
                    + line + "\n")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert where in err and err.count("\n") == 1


def test_with_a_log_the_events_before_the_bad_line_stay_committed(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    good = DEMO_ROUND.read_text().splitlines()[:20]
    path.write_text("\n".join(good + ['{"type": "card_touched", "t": 30, "card": "ZZ", "player": "ana", "pile": "p1"}']) + "\n")
    db = tmp_path / "game.db"
    code, _, err = run(capsys, "replay", str(path), "--log", str(db))
    assert code == 2 and "line 21, field 'card'" in err and "kept in" in err
    with EventLog.open(db) as log:
        assert len(log.events()) == 20
    # the good part alone replays to the same state as the log holds
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_text("\n".join(good) + "\n")
    _, out, _ = run(capsys, "replay", str(fixed), "--json")
    with EventLog.open(db) as log:
        assert log.state().to_dict() == json.loads(out)


def test_settings_file_and_its_errors(tmp_path, capsys):
    toml = tmp_path / "table.toml"
    toml.write_text('[[players]]\nname = "ana"\nback = "red"\n[[players]]\nname = "ben"\nback = "blue"\n'
                    '[rules]\npenalty_per_nerts_card = 1\n[camera]\nsource = "0"\n')
    rnd = tmp_path / "r.jsonl"
    rnd.write_text('{"type": "round_started", "t": 0}\n{"type": "card_touched", "t": 1, "card": "AH", "player": "ana", "pile": "p"}\n'
                   '{"type": "round_ended", "t": 5, "nerts_left": {"ana": 0, "ben": 3}}\n')
    code, out, _ = run(capsys, "replay", str(rnd), "--settings", str(toml), "--json")
    assert code == 0 and json.loads(out)["totals"] == {"ana": 1, "ben": -3}
    toml.write_text('[rules]\ntie_rule = "coin"\n')
    code, _, err = run(capsys, "replay", str(rnd), "--settings", str(toml))
    assert code == 2 and "rules.tie_rule: 'coin' is not allowed; allowed values: both_stay, neither_stays, replay" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "no such file" in err


def test_the_round_to_copy_in_docs_events_md_rules_as_documented(tmp_path, capsys):
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "events.md").read_text()
    block = doc.split("## A round to copy", 1)[1].split("```", 2)[1]
    path = tmp_path / "copy.jsonl"
    path.write_text(block)
    code, out, _ = run(capsys, "replay", str(path), "--json")
    assert code == 0
    d = json.loads(out)
    r = {x["seq"]: x for x in d["rulings"] if x["kind"] in ("accepted", "illegal", "dispute")}
    assert [r[s]["kind"] for s in (3, 4, 5, 6, 7, 8)] == ["accepted", "accepted", "dispute", "dispute", "illegal", "accepted"]
    assert r[5]["winner"] == "ana" and r[5]["margin_ms"] == pytest.approx(30.0) and round(r[5]["confidence"], 4) == 0.9998
    assert r[7]["reason"] == "wrong_rank" and "p2 needs 2S" in r[7]["message"]
    assert d["totals"] == {"ana": 2, "ben": -10}
