"""Hand-worked rounds, one rule or setting of RULES.md at a time (python-chess style: small, exact)."""

from __future__ import annotations

import math

import pytest

from referee.engine import CARD_KINDS, Engine, EngineError, replay
from referee.settings import TableSettings

PLAYERS = [{"name": n, "back": b, "seat": i * 2} for i, (n, b) in
           enumerate([("ana", "red"), ("ben", "blue"), ("cy", "green"), ("dee", "yellow")])]


def table(players=PLAYERS, **rules) -> TableSettings:
    return TableSettings.from_dict({"players": players, "rules": rules})


def T(t, card, player, pile, u=0.0, **kw):
    return {"type": "card_touched", "t": t, "card": card, "player": player, "pile": pile, "uncertainty_ms": u, **kw}


def START(t=0.0):
    return {"type": "round_started", "t": t}


def CALL(t, player):
    return {"type": "nerts_called", "t": t, "player": player}


def END(t, **left):
    return {"type": "round_ended", "t": t, "nerts_left": left}


def FIX(target, action, reason="review", **kw):
    return {"type": "correction", "target": target, "action": action, "reason": reason, **kw}


def play(events, players=PLAYERS, **rules):
    return replay(events, table(players, **rules))


def by_seq(result):
    """seq -> the ruling on that card touch."""
    return {r["seq"]: r for r in result.rulings if r["kind"] in CARD_KINDS}


def pile(result, pid, round_no=None):
    rounds = result.rounds if round_no is None else [result.rounds[round_no - 1]]
    for rd in rounds:
        for p in rd["piles"]:
            if p["id"] == pid:
                return p["cards"]
    return None


# --- foundations -----------------------------------------------------------------------------

def test_an_ace_starts_a_pile_and_only_an_ace():
    r = by_seq(play([START(), T(1, "2H", "ana", "p1"), T(2, "AH", "ana", "p1"), T(3, "2H", "ben", "p1")]))
    assert (r[2]["kind"], r[2]["reason"]) == ("illegal", "no_such_pile")
    assert r[3]["kind"] == "accepted" and r[4]["kind"] == "accepted"


def test_same_suit_one_rank_higher():
    res = play([START(), T(1, "AH", "ana", "p1"), T(2, "2S", "ben", "p1"), T(3, "3H", "ben", "p1"),
                T(4, "2H", "cy", "p1"), T(5, "AS", "dee", "p1")])
    r = by_seq(res)
    assert r[3]["reason"] == "wrong_suit" and "needs 2H" in r[3]["message"]
    assert r[4]["reason"] == "wrong_rank"
    assert r[5]["kind"] == "accepted"
    assert r[6]["reason"] == "wrong_rank"  # an Ace on a built pile
    assert pile(res, "p1") == ["AH", "2H"]


@pytest.mark.parametrize("rule, card, ok", [
    ("alternate_colour", "2S", True), ("alternate_colour", "2D", False), ("alternate_colour", "2H", False),
    ("any_suit", "2D", True), ("any_suit", "3H", False), ("same_suit", "2D", False),
])
def test_foundation_rule_variants(rule, card, ok):
    r = by_seq(play([START(), T(1, "AH", "ana", "p1"), T(2, card, "ben", "p1")], foundation_rule=rule))
    assert (r[3]["kind"] == "accepted") is ok
    if not ok:
        assert r[3]["reason"] in ("wrong_colour", "wrong_suit", "wrong_rank")


def test_a_king_completes_the_pile_which_is_still_scored():
    suit = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC"]
    ev = [START()] + [T(i + 1, c, "ana" if i % 2 else "ben", "p1") for i, c in enumerate(suit)]
    ev += [T(20, "AC", "cy", "p1"), END(30, ana=0, ben=0, cy=0, dee=0)]
    res = play(ev)
    assert by_seq(res)[15]["reason"] == "pile_completed"
    p = res.rounds[0]["piles"][0]
    assert p["completed"] and p["top"] == "KC" and len(p["cards"]) == 13
    assert res.rounds[0]["centre_cards"] == {"ben": 7, "ana": 6}


def test_unlimited_piles_several_decks():
    # four players, four Aces of hearts: four piles of the same suit
    ev = [START()] + [T(1 + i, "AH", n, f"p{i}") for i, n in enumerate(["ana", "ben", "cy", "dee"])]
    ev += [T(6, "2H", "ana", "p3"), T(7, "2H", "ben", "p0")]
    res = play(ev)
    assert all(r["kind"] == "accepted" for r in by_seq(res).values())
    assert len(res.piles) == 4


# --- first touch ---------------------------------------------------------------------------------

def test_first_touch_by_contact_time_not_arrival():
    # ben's 2H is reported first; ana's touched 40 ms earlier and arrives late
    res = play([START(), T(1, "AH", "cy", "p1"), T(2.040, "2H", "ben", "p1", u=5), T(2.000, "2H", "ana", "p1", u=5)])
    r = by_seq(res)
    assert r[3]["kind"] == r[4]["kind"] == "dispute"
    assert r[4]["outcome"] == "won" and r[4]["stays"] and not r[3]["stays"]
    assert (r[3]["winner"], r[3]["losers"], r[3]["tie"]) == ("ana", ["ben"], False)
    assert r[3]["margin_ms"] == pytest.approx(40.0)
    sigma = math.hypot(5, 5)
    assert r[3]["sigma_ms"] == pytest.approx(sigma, abs=1e-3)
    assert r[3]["confidence"] == pytest.approx(0.5 * (1 + math.erf(40 / sigma / math.sqrt(2))), abs=1e-6)
    assert pile(res, "p1") == ["AH", "2H"] and res.rounds[0]["piles"][0]["owners"] == ["cy", "ana"]


def test_the_loser_scores_nothing_and_the_pile_builds_on_the_winner():
    res = play([START(), T(1, "AS", "ana", "p1"), T(2.0, "2S", "ben", "p1", u=3), T(2.1, "2S", "cy", "p1", u=3),
                T(3, "3S", "cy", "p1"), END(5, ana=0, ben=0, cy=0, dee=0)])
    assert res.rounds[0]["centre_cards"] == {"ana": 1, "ben": 1, "cy": 1}
    assert by_seq(res)[5]["kind"] == "accepted"


def test_tie_inside_two_sigma_of_combined_uncertainty():
    # gap 20 ms; sigma = hypot(8, 8) = 11.3 ms; 2 sigma = 22.6 ms > 20: a tie
    r = by_seq(play([START(), T(1, "AS", "ana", "p1"), T(2.000, "2S", "ben", "p1", u=8), T(2.020, "2S", "cy", "p1", u=8)]))
    assert r[3]["tie"] and r[3]["tied"] == ["cy"] and r[3]["outcome"] == "tie"
    # gap 25 ms > 22.6: not a tie
    r = by_seq(play([START(), T(1, "AS", "ana", "p1"), T(2.000, "2S", "ben", "p1", u=8), T(2.025, "2S", "cy", "p1", u=8)]))
    assert not r[3]["tie"] and r[4]["outcome"] == "lost"


def test_tie_window_ms_is_a_human_tie():
    ev = [START(), T(1, "AS", "ana", "p1"), T(2.000, "2S", "ben", "p1"), T(2.040, "2S", "cy", "p1")]
    assert not by_seq(play(ev))[3]["tie"]  # exact times, window 0: 40 ms decides
    assert by_seq(play(ev, tie_window_ms=50))[3]["tie"]
    assert not by_seq(play(ev, tie_window_ms=30))[3]["tie"]


def test_identical_times_are_a_tie_even_with_no_window():
    assert by_seq(play([START(), T(1, "AS", "ana", "p1"), T(2, "2S", "ben", "p1"), T(2, "2S", "cy", "p1")]))[3]["tie"]


@pytest.mark.parametrize("tie_rule, stays, top", [("both_stay", True, "3S"), ("neither_stays", False, "AS"),
                                                  ("replay", False, "AS")])
def test_tie_rule(tie_rule, stays, top):
    ev = [START(), T(1, "AS", "ana", "p1"), T(2.0, "2S", "ben", "p1", u=10), T(2.005, "2S", "cy", "p1", u=10),
          T(3, "3S", "dee", "p1"), END(5, ana=0, ben=0, cy=0, dee=0)]
    res = play(ev, tie_rule=tie_rule)
    r = by_seq(res)
    assert r[3]["stays"] is stays and r[4]["stays"] is stays and r[3]["tie_rule"] == tie_rule
    assert res.piles[0]["top"] == top
    if stays:
        assert res.rounds[0]["centre_cards"] == {"ana": 1, "ben": 1, "cy": 1, "dee": 1}
    else:
        assert r[5]["reason"] == "wrong_rank" and res.rounds[0]["centre_cards"] == {"ana": 1}
    if tie_rule == "replay":
        assert "plays again" in r[3]["message"]


def test_a_third_card_inside_the_tie_joins_it_after_neither_stays():
    ev = [START(), T(1, "AS", "ana", "p1"), T(2.000, "2S", "ben", "p1", u=10), T(2.004, "2S", "cy", "p1", u=10),
          T(2.008, "2S", "dee", "p1", u=10), T(2.5, "2S", "ana", "p1", u=10)]
    r = by_seq(play(ev, tie_rule="neither_stays"))
    assert not any(r[s]["stays"] for s in (3, 4, 5))
    assert r[5]["kind"] == "dispute" and r[5]["outcome"] == "tie"
    assert r[6]["kind"] == "accepted" and r[6]["stays"]  # half a second later the spot is free again


def test_a_late_duplicate_after_the_pile_moved_on_is_wrong_rank():
    r = by_seq(play([START(), T(1, "AS", "ana", "p1"), T(2, "2S", "ben", "p1"), T(3, "3S", "ben", "p1"),
                     T(4, "2S", "cy", "p1")]))
    assert r[5]["reason"] == "wrong_rank"


def test_arrival_release_orders_by_release_time():
    ev = [START(), T(1, "AS", "ana", "p1"), T(2.00, "2S", "ben", "p1", release_t=2.50),
          T(2.10, "2S", "cy", "p1", release_t=2.30)]
    assert by_seq(play(ev))[3]["winner"] == "ben"
    assert by_seq(play(ev, arrival="release"))[3]["winner"] == "cy"


def test_ruling_becomes_final_after_the_latency_window():
    eng = Engine(table())
    eng.feed_all([START(), T(1.0, "AS", "ana", "p1")])
    assert eng.result().rulings[-1]["final"] is False
    eng.feed(T(2.5, "AH", "ben", "p2"))
    assert [r["final"] for r in eng.result().rulings if r["card"]] == [True, False]


# --- the Nerts call ----------------------------------------------------------------------------

def _call_round(**rules):
    return play([START(), T(1, "AS", "ana", "p1"), CALL(5.0, "ana"),
                 T(4.9, "2S", "ben", "p1", release_t=5.2),   # touched before the call, reported after it
                 T(5.3, "3S", "cy", "p1"),                     # in the air at the call (300 ms after)
                 T(7.0, "AH", "dee", "p2"),                    # played well after the call
                 END(8, ana=0, ben=3, cy=3, dee=3)], **rules)


def test_in_flight_at_call_count_if_touched():
    r = by_seq(_call_round())
    assert r[4]["kind"] == "accepted"
    assert (r[5]["reason"], r[6]["reason"]) == ("in_flight_at_call", "after_call")
    # in the air at the call is a normal outcome of the rules (its own kind); after it is illegal
    assert (r[5]["kind"], r[6]["kind"]) == ("returned", "illegal")
    assert not r[5]["stays"] and "in flight at the Nerts call" in r[5]["message"]
    assert r[5]["margin_ms"] == pytest.approx(300.0)


def test_in_flight_at_call_count():
    r = by_seq(_call_round(in_flight_at_call="count"))
    assert r[4]["stays"] and r[5]["stays"] and r[6]["reason"] == "after_call"


def test_in_flight_at_call_return():
    r = by_seq(_call_round(in_flight_at_call="return"))
    assert (r[4]["kind"], r[4]["reason"]) == ("returned", "in_flight_at_call")  # touched, not released
    assert r[2]["stays"]


def test_lift_t_decides_what_was_in_the_air():
    ev = [START(), T(1, "AS", "ana", "p1"), CALL(5.0, "ana"), T(5.9, "2S", "ben", "p1", lift_t=4.8),
          T(5.1, "AH", "cy", "p2", lift_t=5.05)]
    r = by_seq(play(ev, in_flight_at_call="count"))
    assert r[4]["stays"] and r[5]["reason"] == "after_call"


def test_the_earliest_call_ends_the_round_and_later_calls_are_after_it():
    res = play([START(), CALL(6, "ben"), CALL(5, "ana"), END(7, ana=0, ben=0)])
    calls = [r for r in res.rulings if r["kind"] == "nerts_call"]
    assert [(c["player"], c["valid"], c["reason"]) for c in calls] == [("ben", False, "after_call"), ("ana", True, None)]
    assert res.rounds[0]["caller"] == "ana"


# --- scoring -----------------------------------------------------------------------------------

def test_round_score_points_penalty_bonus():
    ev = [START(), T(1, "AS", "ana", "p1"), T(2, "2S", "ana", "p1"), T(3, "AH", "ben", "p2"), CALL(4, "ana"),
          END(5, ana=0, ben=4, cy=13, dee=1)]
    res = play(ev)
    assert res.rounds[0]["scores"] == {"ana": 2, "ben": 1 - 8, "cy": -26, "dee": -2}
    res = play(ev, points_per_centre_card=2, penalty_per_nerts_card=1, nerts_bonus=10)
    assert res.rounds[0]["scores"] == {"ana": 4 + 10, "ben": 2 - 4, "cy": -13, "dee": -1}
    assert res.totals == res.rounds[0]["scores"]


def test_a_false_call_gets_no_bonus():
    res = play([START(), T(1, "AS", "ana", "p1"), CALL(4, "ana"), END(5, ana=2, ben=0)], nerts_bonus=5)
    assert res.rounds[0]["call_valid"] is False and res.rounds[0]["scores"]["ana"] == 1 - 4
    assert [r["reason"] for r in res.rulings if r["kind"] == "nerts_call"] == ["false_call"]


def test_teams_score_together():
    players = [{"name": "ana", "back": "red", "team": "reds"}, {"name": "bo", "back": "red", "team": "reds"},
               {"name": "cy", "back": "blue", "team": "blues"}, {"name": "di", "back": "blue", "team": "blues"}]
    ev = [START(), T(1, "AS", "ana", "p1"), T(2, "2S", "bo", "p1"), T(3, "AH", "cy", "p2"), T(4, "2H", "blues", "p2"),
          T(5, "3H", "di", "p2"), CALL(6, "bo"), END(7, reds=0, blues=2)]
    res = play(ev, players=players, teams="pairs", nerts_bonus=5)
    assert res.rounds[0]["scores"] == {"reds": 2 + 5, "blues": 3 - 4}
    assert res.team_totals == {"reds": 7, "blues": -1}
    assert res.totals == {"ana": 7, "bo": 7, "cy": -1, "di": -1}


def test_handicap_grows_the_winner_and_shrinks_those_at_or_below_zero():
    ev = [START(), T(1, "AS", "ana", "p1"), CALL(2, "ana"), END(3, ana=0, ben=5, cy=0, dee=0)]
    res = play(ev, handicap="on")
    assert res.rounds[0]["nerts_pile_size_next"] == {"ana": 14, "ben": 12, "cy": 12, "dee": 12}
    assert play(ev).rounds[0]["nerts_pile_size_next"] == {"ana": 13, "ben": 13, "cy": 13, "dee": 13}


# --- the end of the game -------------------------------------------------------------------------

def _rounds(scores_per_round):
    """Rounds where each player's score is exactly their number of Aces-started piles."""
    ev, t = [], 0.0
    for rnd in scores_per_round:
        ev.append(START(t))
        pid = 0
        for who, n in rnd.items():
            for _ in range(n):
                ev.append(T(t + 0.1 * pid + 0.05, "AS", who, f"r{t}-{pid}"))
                pid += 1
        ev.append(END(t + 50, **{w: 0 for w in rnd}))
        t += 100
    return ev


def test_target_score_highest_total_wins():
    players = PLAYERS[:3]
    ev = _rounds([{"ana": 3, "ben": 2, "cy": 1}, {"ana": 1, "ben": 3, "cy": 4}])
    res = play(ev, players=players, target_score=5)
    assert res.rounds[0]["totals"] == {"ana": 3, "ben": 2, "cy": 1}
    assert res.totals == {"ana": 4, "ben": 5, "cy": 5}
    assert res.game_over and res.winners == ["ben", "cy"]  # equal highest share (final_tie = shared)
    assert not play(ev, players=players, target_score=6).game_over


def test_final_tie_play_another_round():
    players = PLAYERS[:2]
    ev = _rounds([{"ana": 3, "ben": 3}, {"ana": 2, "ben": 1}])
    first_round = ev[:ev.index(END(50.0, ana=0, ben=0)) + 1]
    res = play(first_round, players=players, target_score=3, final_tie="play_another_round")
    assert res.totals == {"ana": 3, "ben": 3} and res.rounds[0]["complete"] and not res.game_over
    assert play(first_round, players=players, target_score=3).winners == ["ana", "ben"]
    res = play(ev, players=players, target_score=3, final_tie="play_another_round")
    assert res.game_over and res.winners == ["ana"] and len([r for r in res.rulings if r["kind"] == "game_over"]) == 1


def test_fixed_rounds_and_rounds_after_the_game_are_void():
    players = PLAYERS[:2]
    ev = _rounds([{"ana": 1, "ben": 2}, {"ana": 1, "ben": 0}, {"ana": 5, "ben": 0}])
    res = play(ev, players=players, end_condition="fixed_rounds", rounds=2)
    assert res.game_over and res.winners == ["ana", "ben"]
    assert res.rounds[2]["void"] and res.totals == {"ana": 2, "ben": 2}
    third = [r for r in res.rulings if r.get("round") == 3 and r["card"]]
    assert len(third) == 5 and all(r["reason"] == "game_over" and not r["stays"] for r in third)


def test_lead_margin():
    players = PLAYERS[:3]
    ev = _rounds([{"ana": 4, "ben": 1, "cy": 2}, {"ana": 3, "ben": 1, "cy": 5}])
    res = play(ev, players=players, end_condition="lead_margin", margin=5)
    assert res.rounds[0]["totals"] == {"ana": 4, "ben": 1, "cy": 2}  # lead 3: play on
    assert res.totals == {"ana": 7, "ben": 2, "cy": 7}  # lead 5: over, ana and cy share
    assert res.game_over and res.winners == ["ana", "cy"]
    assert not play(ev, players=players, end_condition="lead_margin", margin=6).game_over


# --- stuck, jokers, players, rounds ------------------------------------------------------------

@pytest.mark.parametrize("rule, ended_at", [("rotate_then_end", 20.0), ("end", 10.0)])
def test_stuck_rule(rule, ended_at):
    ev = [START(), T(1, "AS", "ana", "p1"), {"type": "everyone_stuck", "t": 10.0}, T(15, "2S", "ben", "p1"),
          {"type": "everyone_stuck", "t": 20.0}, T(25, "3S", "cy", "p1"), END(30, ana=1, ben=1, cy=1, dee=1)]
    res = play(ev, stuck_rule=rule)
    r = by_seq(res)
    assert r[4]["stays"] is (rule == "rotate_then_end")
    assert r[6]["reason"] == "after_round_end"
    assert [x["action"] for x in res.rulings if x["kind"] == "stuck"] == (["rotate", "end"] if rule == "rotate_then_end" else ["end", "end"])
    assert res.rounds[0]["ended_by"] == "stuck"


def test_jokers():
    ev = [START(), T(1, "AS", "ana", "p1"), T(2, "JOKER", "ben", "p1", declared="2S"), T(3, "JOKER", "cy", "p1"),
          T(4, "JOKER=3S", "dee", "p1")]
    r = by_seq(play(ev))
    assert r[3]["reason"] == "jokers_off"
    r = by_seq(play(ev, jokers="on"))
    assert r[3]["kind"] == "accepted" and r[3]["card"] == "JOKER=2S"
    assert r[4]["reason"] == "joker_undeclared"
    assert r[5]["kind"] == "accepted"


def test_unknown_player():
    r = by_seq(play([START(), T(1, "AS", "zed", "p1")]))
    assert r[2]["reason"] == "unknown_player"
    # an open table (no players declared) accepts anyone
    assert by_seq(replay([START(), T(1, "AS", "zed", "p1")]))[2]["kind"] == "accepted"


def test_a_card_whose_owner_nobody_saw_builds_the_pile_scores_for_nobody_until_the_table_names_it():
    ev = [START(), T(1, "AS", "ana", "p1"), T(2, "2S", None, "p1"), T(3, "3S", "ben", "p1"), END(9, ana=0, ben=0)]
    res = play(ev, players=PLAYERS[:2])
    r = by_seq(res)
    assert r[3]["kind"] == "accepted" and r[3]["owner_unknown"] and r[3]["player"] is None
    assert "nobody was seen playing it" in r[3]["message"]
    assert r[4]["kind"] == "accepted"  # the 3S fits on it: no cascade of wrong-rank rulings
    assert pile(res, "p1") == ["AS", "2S", "3S"]
    assert res.totals == {"ana": 1, "ben": 1}
    # a card of unknown owner still must fit its pile
    assert by_seq(play([START(), T(1, "AS", "ana", "p1"), T(2, "3S", None, "p1")]))[3]["reason"] == "wrong_rank"
    # the table names the owner: re-scored
    fixed = play(ev + [FIX(3, "set_owner", player="ben")], players=PLAYERS[:2])
    assert fixed.totals == {"ana": 1, "ben": 2} and "owner_unknown" not in by_seq(fixed)[3]


def test_rounds_are_delimited_in_time_so_late_reports_count_in_their_round():
    ev = [START(0), T(1, "AS", "ana", "p1"), CALL(5, "ana"), END(6, ana=0, ben=0),
          START(10), T(4.5, "2S", "ben", "p1"),  # round 1's card, reported after round 2 began
          T(11, "AH", "ben", "p1"), END(20, ana=0, ben=0)]
    res = play(ev, players=PLAYERS[:2])
    assert res.rounds[0]["piles"][0]["cards"] == ["AS", "2S"]
    assert res.rounds[1]["piles"][0]["cards"] == ["AH"]
    assert res.totals == {"ana": 1, "ben": 2}


def test_before_round_start_and_implicit_first_round():
    r = by_seq(play([START(5.0), T(4.0, "AS", "ana", "p1")]))
    assert r[2]["reason"] == "before_round_start"
    res = play([T(1, "AS", "ana", "p1"), END(2, ana=0)])
    assert res.rounds[0]["complete"] and res.totals["ana"] == 1


# --- corrections --------------------------------------------------------------------------------

BASE = [START(), T(1, "AS", "ana", "p1"), T(2, "2S", "ben", "p1"), T(3, "3S", "cy", "p1"),
        END(5, ana=0, ben=0, cy=0, dee=0)]


def test_overturning_an_accepted_card_re_derives_everything_after_it():
    res = play(BASE + [FIX(3, "overturn", "it never touched the pile")])
    r = by_seq(res)
    assert r[3]["reason"] == "overturned" and r[3]["overturned"]
    assert r[4]["reason"] == "wrong_rank"
    assert res.totals == {"ana": 1, "ben": 0, "cy": 0, "dee": 0}
    corr = [x for x in res.rulings if x["kind"] == "correction"][0]
    assert corr["target"] == 3 and corr["reason"] == "it never touched the pile" and corr["force"] == "back"


def test_overturning_a_dispute_gives_the_loser_the_spot():
    ev = [START(), T(1, "AS", "ana", "p1"), T(2.00, "2S", "ben", "p1"), T(2.03, "2S", "cy", "p1"),
          END(5, ana=0, ben=0, cy=0, dee=0)]
    res = play(ev + [FIX(4, "overturn", "footage shows cy first")])
    r = by_seq(res)
    assert r[4]["stays"] and not r[3]["stays"] and r[3]["winner"] == "cy" and r[3]["losers"] == ["ben"]
    assert res.totals["cy"] == 1 and res.totals["ben"] == 0
    # overturning the winner instead hands the spot to the next contender
    r = by_seq(play(ev + [FIX(3, "overturn", "ben's card slipped off")]))
    assert r[4]["stays"] and r[3]["reason"] == "overturned"


def test_overturning_an_illegal_card_places_it():
    r = by_seq(play([START(), T(1, "AS", "ana", "p1"), T(2, "3S", "ben", "p1"), T(3, "4S", "cy", "p1"),
                     FIX(3, "overturn", "rank misread")]))
    assert r[3]["stays"] and r[3]["forced"] and r[4]["kind"] == "accepted"


def test_set_owner_set_card_and_set_nerts_left():
    res = play(BASE + [FIX(3, "set_owner", player="dee"), FIX(4, "set_card", card="3H"),
                       FIX(5, "set_nerts_left", player="ben", count=2)])
    r = by_seq(res)
    assert r[3]["player"] == "dee" and r[4]["reason"] == "wrong_suit"
    assert res.totals == {"ana": 1, "ben": -4, "cy": 0, "dee": 1}


def test_overturning_a_call_voids_it():
    res = play([START(), T(1, "AS", "ana", "p1"), CALL(2, "ana"), T(3, "2S", "ben", "p1"),
                FIX(3, "overturn", "nobody called"), END(5, ana=1, ben=1, cy=1, dee=1)])
    assert by_seq(res)[4]["stays"] and res.rounds[0]["caller"] is None


def test_uphold_marks_final():
    eng = Engine(table())
    eng.feed_all([START(), T(1, "AS", "ana", "p1"), FIX(2, "uphold", "seen on camera")])
    r = by_seq(eng.result())[2]
    assert r["upheld"] == "seen on camera" and r["final"]


@pytest.mark.parametrize("bad, field", [
    (FIX(99, "overturn"), "target"), (FIX(1, "set_card", card="2S"), "target"),
    (FIX(2, "set_nerts_left", player="ana", count=1), "target"),
    ({"type": "round_ended", "t": 6, "nerts_left": {}}, "type"), ({"type": "round_started", "t": 0.5}, "t"),
    ({"type": "game_started"}, "type"), ({"type": "round_ended", "t": 9, "nerts_left": {"zed": 1}}, "nerts_left"),
])
def test_impossible_events_are_rejected_and_change_nothing(bad, field):
    eng = Engine(table())
    eng.feed_all([START(1.0), T(2, "AS", "ana", "p1"), END(5, ana=0)][:3 if field != "nerts_left" else 2])
    before = eng.result().to_dict()
    with pytest.raises(EngineError) as exc:
        eng.feed(bad)
    assert exc.value.field == field
    assert eng.result().to_dict() == before


def test_a_card_reported_before_its_round_started_moves_into_that_round():
    ev = [START(0), T(1, "AS", "ana", "p1"), END(5, ana=0, ben=0),
          T(11, "AH", "ben", "q1"),  # arrives before the operator marked round 2 (at t=10)
          START(10), T(12, "2H", "ana", "q1"), END(20, ana=0, ben=0)]
    res = play(ev, players=PLAYERS[:2])
    assert [p["cards"] for p in res.rounds[1]["piles"]] == [["AH", "2H"]]
    assert by_seq(res)[4]["round"] == 2
    assert [rd["scores"] for rd in res.rounds] == [{"ana": 1, "ben": 0}, {"ana": 1, "ben": 1}]


def test_legal_next_publishes_what_each_open_pile_needs():
    eng = Engine(table())
    eng.feed_all([START(), T(1, "AS", "ana", "p1"), T(2, "AH", "ben", "p2"), T(3, "2H", "ben", "p2")])
    assert eng.legal_next() == {"p1": "2S", "p2": "3H"}
    eng = Engine(table(foundation_rule="alternate_colour"))
    eng.feed_all([START(), T(1, "AS", "ana", "p1")])
    assert eng.legal_next() == {"p1": "a red 2"}


def test_overturning_an_after_call_ruling_counts_the_card():
    ev = [START(), T(1, "AS", "ana", "p1"), CALL(5.0, "ana"), T(5.8, "2S", "ben", "p1"),
          END(6, ana=0, ben=0, cy=0, dee=0)]
    assert by_seq(play(ev))[4]["reason"] == "after_call"
    res = play(ev + [FIX(4, "overturn", "footage: it touched at 4.9 s")])
    assert by_seq(res)[4]["stays"] and res.totals["ben"] == 1
