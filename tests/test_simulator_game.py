"""The bots' game: legal, deterministic, faithful to RULES.md, and agreeing with the referee engine."""

from __future__ import annotations

import collections

import pytest

from nerts_referee.errors import UsageError
from simulator.game import WORK, GameConfig, fits, play_game
from referee.cards import Card

GAPS = [0, 5, 10, 20, 33, 50, 100]


def _engine():
    try:
        from referee.engine import replay
    except ImportError:  # pragma: no cover - the engine lands separately
        pytest.skip("referee.engine not importable yet")
    return replay


def _replay_matches(rec, in_flight_ok: bool = False) -> None:
    """The engine, fed the truth log, rules nothing illegal and totals exactly what the bots counted.

    ``in_flight_ok``: the game let cards in the air at the Nerts call land (``land_after_call``) or
    holds cards still being released at the call (``arrival = release``, ``in_flight_at_call =
    return``), so the engine may send such a card back (``in_flight_at_call``) and nothing else."""
    replay = _engine()
    res = replay(rec.truth).to_dict()
    calls = [ev["t"] for ev in rec.truth if ev["type"] == "nerts_called"]
    for r in res["rulings"]:
        if r["kind"] in ("accepted", "dispute", "round_started", "nerts_call", "round_score", "game_over", "stuck"):
            continue
        assert in_flight_ok, r
        assert r.get("reason") == "in_flight_at_call" and any(abs(r["t"] - c) < 1.0 for c in calls), r
    assert res["totals"] == rec.totals
    # every contest the simulator staged or saw is a dispute for the engine, with the same winner
    ruled = {(r["pile"], r["card"], r["player"], round(r["t"], 6)): r
             for r in res["rulings"] if r["kind"] == "dispute"}
    for d in rec.disputes:
        for who, card, t in zip(d.contenders, d.cards, d.times):
            r = ruled[(d.pile, card if card != "JOKER" else r_joker(res, d.pile, who, t), who, round(t, 6))]
            assert r["tie"] == d.tie
            if not d.tie:
                assert r["winner"] == d.winner


def r_joker(res, pile, who, t):
    """The engine's text for a declared Joker ('JOKER=5H')."""
    for r in res["rulings"]:
        if r["pile"] == pile and r["player"] == who and round(r["t"], 6) == round(t, 6):
            return r["card"]
    return "JOKER"


def test_same_seed_same_truth_and_different_seed_differs():
    a = play_game(GameConfig(players=4, seed=11, max_seconds=40, disputes=[10]))
    b = play_game(GameConfig(players=4, seed=11, max_seconds=40, disputes=[10]))
    c = play_game(GameConfig(players=4, seed=12, max_seconds=40, disputes=[10]))
    assert a.truth == b.truth
    assert [(p.t, p.uid, p.kind, p.pose) for p in a.timeline.placements] == \
        [(p.t, p.uid, p.kind, p.pose) for p in b.timeline.placements]
    assert a.truth != c.truth


@pytest.mark.parametrize("seed", range(8))
def test_full_rounds_replay_legally_with_matching_scores(seed):
    rec = play_game(GameConfig(players=4, seed=seed, disputes=GAPS))
    r = rec.rounds[0]
    assert r.ended_by in ("nerts", "stuck")
    _replay_matches(rec)


@pytest.mark.parametrize("seed", range(4))
def test_cards_landing_after_the_call_follow_in_flight_at_call(seed):
    rec = play_game(GameConfig(players=4, seed=seed, disputes=GAPS, land_after_call=True, rounds=2))
    _replay_matches(rec, in_flight_ok=True)


@pytest.mark.parametrize("players,rules,rounds", [
    (2, {}, 2),
    (3, {"stock_turn": 1}, 1),
    (8, {}, 1),
    (6, {"teams": "pairs"}, 1),
    (4, {"jokers": "on"}, 1),
    (4, {"tie_window_ms": 50, "tie_rule": "neither_stays"}, 1),
    (4, {"arrival": "release", "in_flight_at_call": "return"}, 1),
    (4, {"in_flight_at_call": "count", "nerts_bonus": 5, "penalty_per_nerts_card": 1}, 1),
    (4, {"foundation_rule": "alternate_colour", "stuck_rule": "end"}, 1),
    (5, {"handicap": "on"}, 3),
])
def test_rule_variants_replay_legally(players, rules, rounds):
    rec = play_game(GameConfig(players=players, seed=3, rules=rules, rounds=rounds, disputes=[0, 20]))
    assert len(rec.rounds) == rounds
    _replay_matches(rec, in_flight_ok=rules.get("in_flight_at_call") == "return")


def test_staged_disputes_have_the_requested_gaps_and_true_winner():
    rec = play_game(GameConfig(players=4, seed=5, disputes=GAPS))
    staged = [d for d in rec.disputes if d.staged]
    assert sorted(round(d.gap_ms, 6) for d in staged) == sorted(float(g) for g in GAPS if g not in rec.unstaged)
    assert len(staged) >= 5
    by_pile_t = collections.defaultdict(list)
    for ev in rec.truth:
        if ev["type"] == "card_touched":
            by_pile_t[(ev["pile"], ev["card"])].append(ev)
    for d in staged:
        touches = sorted(by_pile_t[(d.pile, d.card)], key=lambda e: e["t"])
        assert len(touches) >= 2
        first, second = touches[0], touches[1]
        assert abs((second["t"] - first["t"]) * 1000 - d.gap_ms) < 1e-3
        if d.gap_ms == 0:
            assert d.tie and d.winner is None
        else:
            assert d.winner == first["player"] and not d.tie


def test_misjudged_plays_are_illegal_touches_taken_back_and_scored_by_the_engine_as_the_bots_count():
    from simulator.game import Game

    replay = _engine()
    g = Game(GameConfig(players=4, seed=5300, max_seconds=60, mistakes=0.3))
    rec = g.play()
    assert len(rec.mistakes) >= 3
    res = replay(rec.truth).to_dict()
    illegal = [r for r in res["rulings"] if r["kind"] == "illegal"]
    assert sorted((r["card"], r["player"], round(r["t"], 6)) for r in illegal) == \
        sorted((m["card"], m["player"], round(m["t"], 6)) for m in rec.mistakes)
    assert {r["reason"] for r in illegal} <= {"wrong_rank", "wrong_suit"}
    assert res["totals"] == rec.totals
    # each lay on its pile a moment, then its owner took it back: it is on no foundation
    on_piles = {c.uid for f in g.foundations for c in f.cards}
    for m in rec.mistakes:
        (put,) = [p for p in rec.timeline.placements if p.kind == "place" and p.pile == m["pile"]
                  and rec.timeline.cards[p.uid].name == m["card"] and 0 <= p.t - m["t"] < 0.2]
        lifted = [p.t for p in rec.timeline.placements if p.kind == "lift" and p.uid == put.uid and p.t > put.t]
        assert lifted and 0.7 < min(lifted) - m["t"] < 2.5 and put.uid not in on_piles
    # off by default: the bots never play an illegal card
    assert play_game(GameConfig(players=4, seed=5300, max_seconds=60)).mistakes == []
    with pytest.raises(UsageError):
        GameConfig(players=4, mistakes=1.5).validate()


def test_every_card_is_somewhere_and_foundations_build_legally():
    from simulator.game import Game

    g = Game(GameConfig(players=4, seed=9, disputes=[10, 50]))
    g.play()
    seen = collections.Counter()
    for lay in g.layouts:
        for pile in [lay.nerts, lay.stock, lay.waste, *lay.work]:
            seen.update(c.uid for c in pile)
    for f in g.foundations:
        seen.update(c.uid for c in f.cards)
        below = None
        for group in f.groups:
            card = group[0][0].ident
            assert fits(card, below, "same_suit")
            below = card
    in_hand = sum(1 for m in g.inflight.values())
    assert sum(seen.values()) + in_hand == 52 * 4
    assert max(seen.values()) == 1
    # work piles are built down in alternating colours (the dealt base may be anything)
    for lay in g.layouts:
        assert len(lay.work) == WORK
        for pile in lay.work:
            for lower, upper in zip(pile, pile[1:]):
                assert upper.card.rank == lower.card.rank - 1 and upper.card.colour != lower.card.colour


def test_rounds_last_realistic_minutes():
    lengths = [(r.t_end - r.t_start) for s in range(4) for r in play_game(GameConfig(players=4, seed=s)).rounds]
    assert all(60 < x < 420 for x in lengths), lengths
    assert 100 < sum(lengths) / len(lengths) < 360


def test_max_seconds_ends_the_round_as_it_stands():
    rec = play_game(GameConfig(players=4, seed=2, max_seconds=20))
    r = rec.rounds[0]
    assert r.ended_by == "time" and abs(r.t_end - r.t_start - 20) < 1e-9
    assert rec.truth[-1]["type"] == "round_ended"
    assert all(ev.get("t", 0) <= r.t_end for ev in rec.truth)
    _replay_matches(rec)


def test_a_contest_copy_due_back_after_the_time_limit_is_still_taken_back(monkeypatch):
    """Seed 191's 12 s round ends while a contest's losing copy lies on its pile, due back 0.25 s
    later: the camera films on, so its player still takes it back (a flight from the pile to their
    layout after the end) instead of freezing there holding it. What was played, the truth and
    every later round are the same as when nothing moved after the end."""
    from simulator.game import Game

    cfg = GameConfig(players=4, seed=191, max_seconds=12, rounds=2, disputes=[0, 5, 10, 20, 33, 50, 100])
    rec = play_game(cfg)
    end = rec.rounds[0].t_end
    back = [f for f in rec.timeline.flights if end < f.t_grab < rec.rounds[1].t_start]
    assert len(back) == 1 and back[0].t_contact - end < 1.5
    assert [d for d in rec.disputes if d.round == 0 and end - 1.0 < d.t <= end]  # (the contest it lost)
    monkeypatch.setattr(Game, "_settle_take_backs", lambda self: None)
    frozen = play_game(cfg)
    assert frozen.truth == rec.truth
    assert not [f for f in frozen.timeline.flights if end < f.t_grab < frozen.rounds[1].t_start]


@pytest.mark.parametrize("players", [0, 1, 9, -3])
def test_bad_player_counts_are_usage_errors(players):
    with pytest.raises(UsageError, match="2 to 8"):
        play_game(GameConfig(players=players))


def test_bad_rules_and_gaps_are_usage_errors():
    with pytest.raises(UsageError, match="tie_rule"):
        play_game(GameConfig(rules={"tie_rule": "coin"}))
    with pytest.raises(UsageError, match="pairs"):
        play_game(GameConfig(players=5, rules={"teams": "pairs"}))
    with pytest.raises(UsageError, match="disputes"):
        play_game(GameConfig(disputes=[-5]))


def test_fits_follows_the_foundation_rules():
    c = Card.parse
    assert fits(c("AH"), None, "same_suit") and not fits(c("2H"), None, "same_suit")
    assert fits(c("6H"), c("5H"), "same_suit") and not fits(c("6D"), c("5H"), "same_suit")
    assert fits(c("6S"), c("5H"), "alternate_colour") and not fits(c("6D"), c("5H"), "alternate_colour")
    assert fits(c("6D"), c("5H"), "any_suit") and not fits(c("7D"), c("5H"), "any_suit")
