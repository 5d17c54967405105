"""Follow-ups of the engine: the ``returned`` kind, team Nerts counts, ``set_pile``, and rulings that
always agree with the score (a card is on a pile exactly when its ruling says it stays)."""

from __future__ import annotations

import json

import pytest

from referee.engine import CARD_KINDS, Engine, EngineError, replay
from referee.eventlog import EventLog
from referee.observations import EventError
from referee.settings import TableSettings

PLAYERS = [{"name": n, "back": b, "seat": i * 2} for i, (n, b) in
           enumerate([("ana", "red"), ("ben", "blue"), ("cy", "green"), ("dee", "yellow")])]
TEAMS = [{"name": "ana", "back": "red", "team": "reds"}, {"name": "bo", "back": "red", "team": "reds"},
         {"name": "cy", "back": "blue", "team": "blues"}, {"name": "di", "back": "blue", "team": "blues"}]


def table(players=PLAYERS, **rules) -> TableSettings:
    return TableSettings.from_dict({"players": players, "rules": rules})


def T(t, card, player, pile, u=0.0, **kw):
    return {"type": "card_touched", "t": t, "card": card, "player": player, "pile": pile, "uncertainty_ms": u, **kw}


def FIX(target, action, reason="review", **kw):
    return {"type": "correction", "target": target, "action": action, "reason": reason, **kw}


START = {"type": "round_started", "t": 0.0}


def cards(result):
    return {r["seq"]: r for r in result.rulings if r["kind"] in CARD_KINDS}


def assert_rulings_match_piles(result):
    """The invariant the score rests on: a card counts exactly when its ruling says it stays."""
    on_piles = {s for rd in result.rounds for p in rd["piles"] for s in p["seqs"]}
    for r in cards(result).values():
        assert bool(r["stays"]) == (r["seq"] in on_piles), r
    for rd in result.rounds:
        counted = {}
        for p in rd["piles"]:
            for owner in p["owners"]:
                counted[owner] = counted.get(owner, 0) + 1
        assert {u: n for u, n in rd["centre_cards"].items() if n} == counted


# --- 1. a tie with neither_stays, then a card onto the emptied spot -----------------------------

@pytest.mark.parametrize("tie_rule", ["neither_stays", "replay"])
def test_a_card_seconds_after_a_vacating_tie_stays_and_counts(tie_rule):
    """The simulator's seed-1 pattern: a tie inside tie_window_ms empties the spot, the card played
    seconds later lands on it. Its ruling and the score must agree, in every arrival order."""
    ev = [START, T(4.73, "AD", "cleo", "p1"), T(10.289656, "2D", "dev", "p1"), T(10.289656, "2D", "cleo", "p1"),
          T(12.749, "2D", "dev", "p1"), T(14.65, "3D", "ana", "p1"),
          T(19.36, "4D", "dev", "p1"), T(19.38, "4D", "cleo", "p1"), T(21.74, "4D", "dev", "p1"),
          {"type": "round_ended", "t": 30.0, "nerts_left": {}}]
    rules = table(players=[], tie_rule=tie_rule, tie_window_ms=50)
    for order in (ev, [ev[0], *reversed(ev[1:-1]), ev[-1]]):  # in time order and reported backwards
        res = replay(order, rules)
        assert_rulings_match_piles(res)
        by_card = {(r["card"], r["t"], r["player"]): r for r in cards(res).values()}
        late = by_card[("2D", 12.749, "dev")]
        assert late["kind"] == "accepted" and late["stays"]
        assert by_card[("4D", 21.74, "dev")]["stays"]
        assert res.totals == {"cleo": 1, "dev": 2, "ana": 1}


def test_a_call_reported_before_a_late_round_start_ends_the_new_round():
    """Round facts (the call) move with a late round_started; before, the new round ignored its call."""
    res = replay([START, T(1, "AH", "ana", "p1"), {"type": "nerts_called", "t": 12.0, "player": "ana"},
                  T(13, "AS", "ben", "p2"), {"type": "round_started", "t": 10.0}])
    assert res.rounds[1]["caller"] == "ana"
    r = cards(res)
    assert r[4]["reason"] == "after_call" and not r[4]["stays"]
    assert_rulings_match_piles(res)


# --- 2. in flight at the call: its own ruling kind ----------------------------------------------

def test_in_flight_at_call_is_returned_not_illegal_and_overturn_still_works():
    ev = [START, T(1, "AS", "ana", "p1"), {"type": "nerts_called", "t": 5.0, "player": "ana"},
          T(5.2, "2S", "ben", "p1"), T(7.0, "AH", "cy", "p2")]
    res = replay(ev, table())
    r = cards(res)
    assert (r[4]["kind"], r[4]["reason"], r[4]["stays"]) == ("returned", "in_flight_at_call", False)
    assert (r[5]["kind"], r[5]["reason"]) == ("illegal", "after_call")
    assert res.ruling(4)["kind"] == "returned"
    fixed = replay(ev + [FIX(4, "overturn", "it was down before the call")], table())
    assert cards(fixed)[4]["stays"] and fixed.piles[0]["cards"] == ["AS", "2S"]


# --- 3a. set_nerts_left under a team name or a member name --------------------------------------

@pytest.mark.parametrize("ended_under, fixed_under", [("ana", "reds"), ("reds", "bo"), ("ana", "bo"),
                                                      ("reds", "reds")])
def test_set_nerts_left_replaces_a_teams_count_whatever_name_it_was_under(ended_under, fixed_under):
    ev = [START, T(1, "AS", "ana", "p1"), {"type": "round_ended", "t": 5, "nerts_left": {ended_under: 4, "cy": 0}},
          FIX(3, "set_nerts_left", player=fixed_under, count=1)]
    res = replay(ev, table(TEAMS, teams="pairs"))
    assert res.rounds[0]["nerts_left"]["reds"] == 1
    assert res.team_totals == {"reds": 1 - 2, "blues": 0}


def test_set_nerts_left_of_one_team_leaves_the_other_alone():
    ev = [START, {"type": "round_ended", "t": 5, "nerts_left": {"ana": 4, "cy": 3}},
          FIX(2, "set_nerts_left", player="blues", count=2), FIX(2, "set_nerts_left", player="di", count=1)]
    res = replay(ev, table(TEAMS, teams="pairs"))
    assert res.rounds[0]["nerts_left"] == {"reds": 4, "blues": 1}


# --- 3b. set_pile -------------------------------------------------------------------------------

BASE = [START, T(1, "AS", "ana", "p1"), T(1.5, "AH", "ben", "p2"), T(2, "2H", "cy", "p1"),
        T(3, "3H", "dee", "p1"), T(4, "2S", "ana", "p1")]


def test_set_pile_moves_a_card_and_re_derives_both_piles():
    before = replay(BASE, table())
    r = cards(before)
    assert r[4]["reason"] == "wrong_suit" and r[5]["reason"] == "wrong_rank" and r[6]["stays"]
    res = replay(BASE + [FIX(4, "set_pile", "vision read the wrong pile", pile="p2"),
                         FIX(5, "set_pile", "same hand, same pile", pile="p2")], table())
    r = cards(res)
    assert (r[4]["pile"], r[4]["kind"], r[4]["stays"], r[4]["observed_pile"]) == ("p2", "accepted", True, "p1")
    assert r[5]["stays"] and r[6]["stays"]
    assert {p["id"]: p["cards"] for p in res.piles} == {"p1": ["AS", "2S"], "p2": ["AH", "2H", "3H"]}
    assert res.rounds[0]["centre_cards"] == {"ana": 2, "ben": 1, "cy": 1, "dee": 1}
    fixes = [x for x in res.rulings if x["kind"] == "correction"]
    assert [(x["action"], x["pile"], x["target"]) for x in fixes] == [("set_pile", "p2", 4), ("set_pile", "p2", 5)]
    assert_rulings_match_piles(res)


def test_set_pile_to_a_new_id_starts_a_pile_with_an_ace_and_empties_the_old_one():
    ev = [START, T(1, "AS", "ana", "p1"), T(2, "2S", "ben", "p1"), T(3, "AD", "cy", "p1")]
    assert cards(replay(ev, table()))[4]["reason"] == "wrong_rank"
    res = replay(ev + [FIX(4, "set_pile", "its own pile", pile="p9")], table())
    assert {p["id"]: p["cards"] for p in res.piles} == {"p1": ["AS", "2S"], "p9": ["AD"]}
    # moving the Ace away leaves p1 empty: the 2S has nothing to go on; cards can start it again
    eng = Engine(table())
    eng.feed_all(ev[:3] + [FIX(2, "set_pile", "it was p0", pile="p0"), T(4, "AS", "dee", "p1")])
    res = eng.result()
    r = cards(res)
    assert r[3]["reason"] == "no_such_pile" and r[5]["stays"] and r[2]["pile"] == "p0"
    assert_rulings_match_piles(res)


def test_set_pile_then_overturn_and_moving_back():
    ev = BASE + [FIX(4, "set_pile", "p2 really", pile="p2"), FIX(4, "set_pile", "no, p1 after all", pile="p1")]
    assert cards(replay(ev, table()))[4]["reason"] == "wrong_suit"


def test_set_pile_is_validated_and_a_refused_one_changes_nothing(tmp_path):
    with pytest.raises(EventError, match="field 'pile'"):
        replay(BASE + [FIX(4, "set_pile", "x")], table())
    with pytest.raises(EventError, match="field 'pile'"):
        replay(BASE + [FIX(4, "set_pile", "x", pile="  ")], table())
    with pytest.raises(EngineError, match="already on pile 'p1'"):
        replay(BASE + [FIX(4, "set_pile", "x", pile="p1")], table())
    with pytest.raises(EngineError, match="not a card_touched"):
        replay(BASE + [FIX(1, "set_pile", "x", pile="p2")], table())
    log = EventLog.open(tmp_path / "g.db", table())
    try:
        log.append_many(BASE)
        before = json.dumps(log.state().to_dict(), sort_keys=True)
        with pytest.raises(EngineError):
            log.append(FIX(4, "set_pile", "x", pile="p1"))
        assert log.last_seq() == len(BASE)
        assert json.dumps(log.state().to_dict(), sort_keys=True) == before
        log.append(FIX(4, "set_pile", "wrong pile", pile="p2"))
    finally:
        log.close()
    # a reopened log replays the correction to the same state
    log = EventLog.open(tmp_path / "g.db", table())
    try:
        assert cards(log.state())[4]["pile"] == "p2"
    finally:
        log.close()


def test_set_time_re_times_a_touch_and_re_rules_its_pile_in_contact_order():
    # vision reported ben's 2H first, provisionally; once the arms had left it re-timed ana's copy
    ev = [START, T(1, "AH", "ana", "p1"), T(2.00, "2H", "ben", "p1", 5), T(2.05, "2H", "ana", "p1", 5)]
    r = cards(replay(ev, table()))
    assert (r[3]["winner"], r[3]["stays"], r[4]["stays"]) == ("ben", True, False)
    res = replay(ev + [FIX(4, "set_time", "vision: ordered by the take-back", t=1.9, uncertainty_ms=12)], table())
    r = cards(res)
    assert (r[4]["kind"], r[4]["winner"], r[4]["stays"], r[3]["stays"]) == ("dispute", "ana", True, False)
    assert (r[4]["t"], r[4]["observed_t"], r[4]["uncertainty_ms"]) == (1.9, 2.05, 12)
    assert r[4]["sigma_ms"] == pytest.approx((5 ** 2 + 12 ** 2) ** 0.5, abs=1e-3)
    (fix,) = [x for x in res.rulings if x["kind"] == "correction"]
    assert (fix["action"], fix["target"], fix["t"], fix["uncertainty_ms"]) == ("set_time", 4, 1.9, 12)
    assert res.totals == replay([START, T(1, "AH", "ana", "p1"), T(1.9, "2H", "ana", "p1", 12),
                                 T(2.0, "2H", "ben", "p1", 5)], table()).totals
    assert_rulings_match_piles(res)
    # without an uncertainty the touch keeps its own; a second re-timing keeps the first reported time
    again = cards(replay(ev + [FIX(4, "set_time", "a", t=1.9), FIX(4, "set_time", "b", t=2.5)], table()))
    assert (again[4]["t"], again[4]["observed_t"], again[4]["uncertainty_ms"], again[4]["stays"]) == (2.5, 2.05, 5, False)


def test_set_time_is_validated():
    ev = [START, T(1, "AH", "ana", "p1")]
    for bad in ({}, {"t": -1}, {"t": "soon"}, {"t": 1.0, "uncertainty_ms": -3}, {"t": 1.0, "uncertainty_ms": True}):
        with pytest.raises(EventError, match="field '(t|uncertainty_ms)'"):
            replay(ev + [FIX(2, "set_time", "x", **bad)], table())
    with pytest.raises(EngineError, match="not a card_touched"):
        replay(ev + [FIX(1, "set_time", "x", t=1.0)], table())
