"""Property tests over random observation streams (hypothesis, derandomised so runs are repeatable)."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import Card
from referee.engine import CARD_KINDS, Engine, replay
from referee.eventlog import EventLog
from referee.nerts import fits
from referee.settings import TableSettings

NAMES = ["ana", "ben", "cy", "dee"]
BACKS = ["red", "blue", "green", "yellow"]
CARDS = [f"{r}{s}" for r in ("A", "2", "3", "4", "5") for s in "HSD"]
PROFILE = settings(max_examples=60, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def games(draw):
    """A table (2-4 players, random rule settings) and a stream of 1-2 rounds in true time order."""
    n = draw(st.integers(2, 4))
    players = [{"name": NAMES[i], "back": BACKS[i], "seat": i} for i in range(n)]
    rules = draw(st.fixed_dictionaries({}, optional={
        "foundation_rule": st.sampled_from(["same_suit", "alternate_colour", "any_suit"]),
        "tie_rule": st.sampled_from(["both_stay", "neither_stays", "replay"]),
        "tie_window_ms": st.sampled_from([0, 30]),
        "arrival": st.sampled_from(["touch", "release"]),
        "in_flight_at_call": st.sampled_from(["count_if_touched", "count", "return"]),
        "stuck_rule": st.sampled_from(["rotate_then_end", "end"]),
        "points_per_centre_card": st.sampled_from([1, 2]),
        "penalty_per_nerts_card": st.sampled_from([1, 2]),
        "nerts_bonus": st.sampled_from([0, 5]),
    }))
    events = []
    for rnd in range(draw(st.integers(1, 2))):
        base = rnd * 100.0
        events.append({"type": "round_started", "t": base})
        t = base + 0.1
        for _ in range(draw(st.integers(0, 30))):
            t += draw(st.sampled_from([0.0, 0.004, 0.02, 0.1, 0.4, 1.5]))
            ev = {"type": "card_touched", "t": round(t, 3), "card": draw(st.sampled_from(CARDS)),
                  "player": draw(st.sampled_from(NAMES[:n])), "pile": draw(st.sampled_from("abc")),
                  "uncertainty_ms": draw(st.sampled_from([0.0, 3.0, 10.0]))}
            if draw(st.booleans()):
                ev["release_t"] = round(t + draw(st.sampled_from([0.05, 0.3])), 3)
            events.append(ev)
        if draw(st.booleans()):
            events.append({"type": "everyone_stuck", "t": round(t + 0.2, 3)})
        if draw(st.booleans()):
            events.append({"type": "nerts_called", "t": round(base + draw(st.floats(0.5, 20.0)), 3),
                           "player": draw(st.sampled_from(NAMES[:n]))})
        left = {p["name"]: draw(st.integers(0, 13)) for p in players}
        events.append({"type": "round_ended", "t": base + 60.0, "nerts_left": left})
    events.sort(key=lambda e: e["t"])  # true time order (stable: round_started first)
    return TableSettings.from_dict({"players": players, "rules": rules}), events


def _arrive_late(events, delays):
    """The same events in the order they would arrive if each touch were reported d seconds late."""
    keyed = [(e["t"] + (delays[i % len(delays)] if e["type"] == "card_touched" else 0.0), i, e)
             for i, e in enumerate(events)]
    return [e for _, _, e in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _ruling_multiset(result):
    out = Counter()
    for r in result.rulings:
        if r["kind"] in CARD_KINDS:
            out[(r["t"], r["card"], r["player"], r["pile"], r["kind"], r["reason"], r["stays"], r.get("outcome"),
                 r.get("winner"), r.get("tie"))] += 1
    return out


@PROFILE
@given(games())
def test_every_pile_is_a_legal_sequence(game):
    table, events = game
    res = replay(events, table)
    rule, both_stay = table.rules.foundation_rule, table.rules.tie_rule == "both_stay"
    for rd in res.rounds:
        for p in rd["piles"]:
            cards = [Card.parse(c) for c in p["cards"]]
            assert cards[0].rank == 1
            below, slot = None, [cards[0]]
            for c in cards[1:]:
                if c.rank == slot[0].rank:  # a tie that both stayed: fits the same card as the slot
                    assert both_stay and fits(c, below, rule) is None
                    slot.append(c)
                else:
                    assert fits(c, slot[-1], rule) is None, (p, c)
                    below, slot = slot[-1], [c]


@PROFILE
@given(games(), st.sampled_from([(0.0,), (0.9, 0.0, 0.3), (0.0, 0.6)]))
def test_a_card_counts_exactly_when_its_ruling_says_it_stays(game, delays):
    """The ruling and the score never disagree (kind, stays, pile membership), in any arrival order."""
    table, events = game
    res = replay(_arrive_late(events, delays), table)
    on_piles = {s for rd in res.rounds for p in rd["piles"] for s in p["seqs"]}
    for r in res.rulings:
        if r["kind"] in CARD_KINDS:
            assert bool(r["stays"]) == (r["seq"] in on_piles), r
            assert r["stays"] is False or r["kind"] in ("accepted", "dispute"), r


@PROFILE
@given(games())
def test_totals_are_own_centre_cards_times_points_minus_penalties_plus_bonus(game):
    table, events = game
    rules = table.rules
    res = replay(events, table)
    expected = {p.name: 0 for p in table.players}
    for rd in res.rounds:
        assert rd["complete"]
        owners = Counter(o for p in rd["piles"] for o in p["owners"])
        end = next(e for e in events if e["type"] == "round_ended" and e["t"] == (rd["number"] - 1) * 100 + 60)
        calls = sorted((e["t"], e["player"]) for e in events if e["type"] == "nerts_called"
                       and (rd["number"] - 1) * 100 <= e["t"] < rd["number"] * 100)
        caller = calls[0][1] if calls and end["nerts_left"][calls[0][1]] == 0 else None
        for name in expected:
            score = owners[name] * rules.points_per_centre_card - end["nerts_left"][name] * rules.penalty_per_nerts_card
            score += rules.nerts_bonus if name == caller else 0
            assert rd["scores"][name] == score
            expected[name] += score
    assert res.totals == expected
    json.dumps(res.to_dict(), allow_nan=False)  # strict JSON: no NaN or Infinity anywhere


@PROFILE
@given(games(), st.lists(st.floats(0.0, 0.9), min_size=1, max_size=7))
def test_arrival_order_within_the_latency_window_never_changes_rulings(game, delays):
    table, events = game
    truth = replay(events, table)
    late = replay(_arrive_late(events, delays), table)
    assert _ruling_multiset(late) == _ruling_multiset(truth)
    assert late.totals == truth.totals
    assert [rd["scores"] for rd in late.rounds] == [rd["scores"] for rd in truth.rounds]


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.lists(st.floats(0.0, 0.9), min_size=1, max_size=7),
       st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(["overturn", "uphold", "set_owner", "set_card"])),
                max_size=4))
def test_replaying_the_log_gives_the_same_state(game, delays, fixes):
    table, events = game
    arrival = _arrive_late(events, delays)
    touches = [i + 1 for i, e in enumerate(arrival) if e["type"] == "card_touched"]
    for pick, action in fixes:  # admin corrections, appended at the end
        if touches:
            fix = {"type": "correction", "target": touches[pick % len(touches)], "action": action, "reason": "review"}
            fix.update({"set_owner": {"player": "ana"}, "set_card": {"card": CARDS[pick % len(CARDS)]}}.get(action, {}))
            arrival.append(fix)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.db")
        with EventLog.open(path, table) as log:
            half = len(arrival) // 2
            for ev in arrival[:half]:
                log.append(ev)
            log.append_many(arrival[half:])
            live = log.state().to_dict()
        with EventLog.open(path) as log:
            assert log.state().to_dict() == live
            assert replay(log.events(), table).to_dict() == live
    assert live == replay(arrival, table).to_dict()


@PROFILE
@given(games(), st.lists(st.floats(0.0, 0.9), min_size=1, max_size=7))
def test_live_incremental_rulings_end_where_a_batch_replay_does(game, delays):
    """Asking for each ruling as it arrives (the incremental path) ends in the batch replay's state."""
    table, events = game
    arrival = _arrive_late(events, delays)
    eng = Engine(table)
    for ev in arrival:
        seq = eng.feed(ev)
        if ev["type"] == "card_touched":
            assert eng.ruling(seq)["seq"] == seq
        elif ev["type"] == "round_ended":
            eng.result()
    assert eng.result().to_dict() == replay(arrival, table).to_dict()
