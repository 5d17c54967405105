"""The referee engine: observations in, rulings and scores out. Pure: no I/O, no clock, no threads.

The engine is event-sourced. It keeps every event it was fed (in ``seq`` order) and derives the
rulings from them; nothing it says depends on the order in which observations *arrived*, only on
what they say. Touches of one pile are replayed in contact-time order (``arrival`` time, then
player, card and seq as a deterministic tie-break), so an observation that arrives a second late
but touched first still wins its pile. Rulings whose contact time is older than the stream time
minus ``latency_ms`` are marked ``final``; younger ones may still change when a late observation
arrives. Corrections (admin) are applied in ``seq`` order and re-derive everything after them.

Nerts' rules live in :mod:`referee.nerts`; this module is the bookkeeping around them: rounds,
piles, the Nerts call, corrections, the scoreboard.

>>> result = replay([
...     {"type": "round_started", "t": 0.0},
...     {"type": "card_touched", "t": 1.00, "card": "AH", "player": "ana", "pile": "p1"},
...     {"type": "card_touched", "t": 2.00, "card": "2H", "player": "ben", "pile": "p1", "uncertainty_ms": 5},
...     {"type": "card_touched", "t": 1.95, "card": "2H", "player": "ana", "pile": "p1", "uncertainty_ms": 5},
...     {"type": "nerts_called", "t": 3.0, "player": "ana"},
...     {"type": "round_ended", "t": 3.5, "nerts_left": {"ana": 0, "ben": 4}},
... ])
>>> [(r["seq"], r["kind"], r.get("winner")) for r in result.rulings if r["card"]]
[(2, 'accepted', None), (3, 'dispute', 'ana'), (4, 'dispute', 'ana')]
>>> result.totals
{'ana': 2, 'ben': -8}
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from referee import nerts
from referee.cards import Card
from referee.observations import (CardTouched, Correction, Event, EventError, EveryoneStuck, GameStarted,
                                  NertsCalled, RoundEnded, RoundStarted, parse_event)
from referee.settings import SettingsError, TableSettings

LATENCY_MS = 1000.0
"""How late vision may report a touch. A ruling is ``final`` once the stream is this far past it."""

IN_FLIGHT_MS = 500.0
"""With ``in_flight_at_call = count`` and no ``lift_t``: a card touching within this long after the
call is taken to have been in the air at the call."""


RETURNED_REASONS = frozenset({"in_flight_at_call"})
"""Reasons for the ``returned`` ruling kind: the card goes back by rule, nobody played wrongly."""

CARD_KINDS = ("accepted", "illegal", "returned", "dispute")

TOUCH_EDITS = ("set_owner", "set_card", "set_pile", "set_time")
"""Corrections that change what a ``card_touched`` says: it is taken off its pile and put back."""
"""The ruling kinds of a ``card_touched`` event (exactly one per touch)."""


class EngineError(EventError):
    """An event that is well formed but cannot be accepted here (e.g. a correction of nothing)."""


_TEXT: dict[Card, str] = {}


def _text(card: Card | None) -> str:
    if card is None:
        return ""
    s = _TEXT.get(card)
    if s is None:
        s = _TEXT[card] = str(card)
    return s


def card_text(card: Card | None, joker: bool) -> str | None:
    """``'5H'``, or ``'JOKER=5H'`` / ``'JOKER'`` for a (declared / undeclared) Joker."""
    if joker:
        return f"JOKER={card}" if card else "JOKER"
    return _text(card) if card else None


# --- the engine's own records ------------------------------------------------------------------

@dataclass(slots=True, eq=False)
class Touch:
    seq: int
    obs: CardTouched
    player: str | None  # None: owner unknown until the table sets it (it scores for nobody)
    card: Card | None
    joker: bool
    round: "Round"
    key: tuple = ()
    force: str | None = None
    upheld: str | None = None
    corrections: list[int] | None = None
    entry: nerts.Entry | None = None
    ruling: dict[str, Any] | None = None
    text: str = ""
    pile: str = ""  # the pile it is on: the observed one unless a set_pile correction moved it
    observed_t: float | None = None  # the contact time first reported, when a set_time correction re-timed it

    def arrival(self, rule: str) -> float:
        if rule == "release" and self.obs.release_t is not None:
            return self.obs.release_t
        return self.obs.t

    def make_key(self, rule: str) -> tuple:
        o = self.obs
        arrival = o.release_t if rule == "release" and o.release_t is not None else o.t
        if not self.text:
            self.text = card_text(self.card, self.joker) or ""
        self.key = (arrival, o.t, self.player or "", self.text, self.pile, self.seq)
        return self.key


@dataclass(slots=True, eq=False)
class Call:
    seq: int
    t: float
    player: str
    void: str | None = None  # overturned: the reason
    upheld: str | None = None
    corrections: list[int] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class Stuck:
    seq: int
    t: float
    void: str | None = None
    upheld: str | None = None
    corrections: list[int] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class Ending:
    seq: int
    t: float | None
    nerts_left: dict[str, int]
    corrections: list[int] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class Round:
    number: int
    start_t: float
    start_seq: int | None
    piles: dict[str, list[Touch]] = field(default_factory=dict)
    sims: dict[str, nerts.PileSim] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)
    all_dirty: bool = False
    calls: list[Call] = field(default_factory=list)
    stucks: list[Stuck] = field(default_factory=list)
    ending: Ending | None = None
    pile_order: list[str] = field(default_factory=list)  # first-seen order, for display
    # round-level facts derived on demand
    call: Call | None = None
    cut_t: float = math.inf  # no card may arrive after this (round ended by stuck / round_ended)
    ended_by: str | None = None


# --- results ------------------------------------------------------------------------------------

@dataclass
class GameResult:
    """The state of a game: every ruling, the rounds, the scoreboard. ``to_dict()`` is Contract 3."""

    rulings: list[dict[str, Any]]
    totals: dict[str, int]
    rounds: list[dict[str, Any]]
    piles: list[dict[str, Any]]
    game_over: bool
    winners: list[str]
    players: list[dict[str, Any]]
    settings: dict[str, Any]
    team_totals: dict[str, int] | None = None
    last_seq: int = 0
    stream_t: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out = {
            "game": "nerts",
            "last_seq": self.last_seq,
            "stream_t": self.stream_t,
            "players": self.players,
            "settings": self.settings,
            "rulings": self.rulings,
            "rounds": self.rounds,
            "piles": self.piles,
            "totals": self.totals,
            "game_over": self.game_over,
            "winners": self.winners,
        }
        if self.team_totals is not None:
            out["team_totals"] = self.team_totals
        return out

    def ruling(self, seq: int) -> dict[str, Any] | None:
        """The ruling on the event ``seq`` (a card, call or stuck), if any."""
        for r in self.rulings:
            if r["seq"] == seq and (r["kind"] in CARD_KINDS or r["kind"] in ("nerts_call", "stuck")):
                return r
        return None


# --- the engine ---------------------------------------------------------------------------------

class Engine:
    """Feed it events (dicts as in ``docs/events.md``, or parsed events); ask for ``result()``.

    >>> eng = Engine()
    >>> eng.feed({"type": "card_touched", "t": 1.0, "card": "AS", "player": "ana", "pile": "a"})
    1
    >>> eng.ruling(1)["kind"]
    'accepted'
    """

    def __init__(self, settings: TableSettings | None = None, *, latency_ms: float = LATENCY_MS,
                 k_sigma: float = nerts.K_SIGMA, in_flight_ms: float = IN_FLIGHT_MS):
        self.base_settings = settings or TableSettings()
        self.settings = self.base_settings
        self.latency_ms = latency_ms
        self.k_sigma = k_sigma
        self.in_flight_ms = in_flight_ms
        self.last_seq = 0
        self.stream_t = 0.0
        self.rounds: list[Round] = []
        self._starts: list[float] = []
        self.touches: dict[int, Touch] = {}
        self.calls: dict[int, Call] = {}
        self.stucks: dict[int, Stuck] = {}
        self.endings: dict[int, Ending] = {}
        self.corrections: dict[int, Correction] = {}
        self.order: list[tuple[int, str]] = []  # (seq, type) of every event fed
        self.round_starts: dict[int, Round] = {}
        self._refresh_settings()

    # --- settings ---
    def _refresh_settings(self) -> None:
        s = self.settings
        r = s.rules
        self._rules = r
        self._known = {p.name for p in s.players} | {p.team for p in s.players if p.team and r.teams == "pairs"}
        self._unit = {p.name: s.unit_of(p.name) for p in s.players}

    def unit_of(self, name: str) -> str:
        return self._unit.get(name, name)

    # --- feeding ---
    def check(self, event: Mapping[str, Any] | Event) -> Event:
        """Validate ``event`` against the schema and the state so far, without changing anything."""
        ev = parse_event(event) if type(event) is dict or isinstance(event, Mapping) else event
        if type(ev) is CardTouched:  # the hot path: nothing to check against the state
            return ev
        if isinstance(ev, GameStarted):
            if self.order:
                raise EngineError("game_started must be the first event of a game", "type")
            try:
                self.base_settings.with_overrides(ev.players or None, ev.settings)
            except SettingsError as exc:
                raise EngineError(str(exc), "settings" if "rules" in str(exc) else "players") from None
        elif isinstance(ev, RoundStarted):
            if ev.t is not None and self._starts and ev.t < self._starts[-1]:
                raise EngineError(f"round_started at {ev.t} is before the previous round's start "
                                  f"({self._starts[-1]})", "t")
        elif isinstance(ev, RoundEnded):
            r = self._round_for_ending(ev.t)
            if r is None:
                raise EngineError("round_ended with no round to end", "type")
            if r.ending is not None:
                raise EngineError(f"round {r.number} already ended (seq {r.ending.seq}); "
                                  "fix its counts with a set_nerts_left correction", "type")
            for who in ev.nerts_left:
                if self._known and who not in self._known:
                    raise EngineError(f"{who!r} is not a player at this table", "nerts_left")
        elif isinstance(ev, Correction):
            self._check_correction(ev)
        return ev

    def feed(self, event: Mapping[str, Any] | Event, seq: int | None = None) -> int:
        """Apply one event; return its seq. Raises :class:`EventError` and changes nothing if bad."""
        ev = self.check(event)
        if seq is None:
            seq = self.last_seq + 1
        elif seq <= self.last_seq:
            raise EngineError(f"seq {seq} is not after the last seq {self.last_seq}", "seq")
        self.last_seq = seq
        self.order.append((seq, ev.type))
        if type(ev) is CardTouched:
            if ev.t > self.stream_t:
                self.stream_t = ev.t
            self._touch(seq, ev)
            return seq
        t = getattr(ev, "t", None)
        if t is not None and t > self.stream_t:
            self.stream_t = t
        if isinstance(ev, RoundStarted):
            self._start_round(seq, ev.t if ev.t is not None else self.stream_t)
        elif isinstance(ev, NertsCalled):
            c = Call(seq, ev.t, ev.player)
            self.calls[seq] = c
            r = self._round_at(ev.t)
            r.calls.append(c)
            r.all_dirty = True
        elif isinstance(ev, EveryoneStuck):
            st = Stuck(seq, ev.t)
            self.stucks[seq] = st
            r = self._round_at(ev.t)
            r.stucks.append(st)
            r.all_dirty = True
        elif isinstance(ev, RoundEnded):
            r = self._round_for_ending(ev.t)
            assert r is not None
            en = Ending(seq, ev.t, dict(ev.nerts_left))
            r.ending = en
            self.endings[seq] = en
            r.all_dirty = True
        elif isinstance(ev, GameStarted):
            self.settings = self.base_settings.with_overrides(ev.players or None, ev.settings)
            self._refresh_settings()
        elif isinstance(ev, Correction):
            self._apply_correction(seq, ev)
        return seq

    def feed_all(self, events: Iterable[Mapping[str, Any] | Event]) -> None:
        for ev in events:
            seq = ev.get("seq") if isinstance(ev, Mapping) else None
            self.feed(ev, seq if isinstance(seq, int) and not isinstance(seq, bool) else None)

    # --- rounds ---
    def _start_round(self, seq: int | None, t: float) -> Round:
        r = Round(number=len(self.rounds) + 1, start_t=t, start_seq=seq)
        # touches that arrived early (their t is at/after this start) move to the new round
        if self.rounds:
            prev = self.rounds[-1]
            for pid in list(prev.piles):
                moved = [tc for tc in prev.piles[pid] if tc.obs.t >= t]
                if moved:
                    prev.piles[pid] = [tc for tc in prev.piles[pid] if tc.obs.t < t]
                    prev.dirty.add(pid)
                    for tc in moved:
                        tc.round = r
                        self._insert(r, tc)
            for lst, attr in ((prev.calls, "calls"), (prev.stucks, "stucks")):
                keep = [x for x in lst if x.t < t]
                getattr(r, attr).extend(x for x in lst if x.t >= t)
                setattr(prev, attr, keep)
            # the round's call and cut-off are derived facts: both rounds re-derive them
            prev.all_dirty = r.all_dirty = True
        self.rounds.append(r)
        self._starts.append(t)
        if seq is not None:
            self.round_starts[seq] = r
        return r

    def _round_at(self, t: float) -> Round:
        if not self.rounds:
            return self._start_round(None, -math.inf)  # an implicit first round
        if t >= self._starts[-1]:
            return self.rounds[-1]
        i = bisect.bisect_right(self._starts, t) - 1
        return self.rounds[max(i, 0)]

    def _round_for_ending(self, t: float | None) -> Round | None:
        if not self.rounds:
            return None
        if t is None:
            for r in reversed(self.rounds):
                if r.ending is None:
                    return r
            return self.rounds[-1]
        return self._round_at(t)

    # --- touches ---
    def _touch(self, seq: int, ev: CardTouched) -> None:
        r = self._round_at(ev.t)
        tc = Touch(seq, ev, ev.player, ev.card, ev.joker, r, pile=ev.pile)
        tc.text = ev.text
        self.touches[seq] = tc
        self._insert(r, tc)

    def _insert(self, r: Round, tc: Touch) -> None:
        key = tc.make_key(self._rules.arrival)
        pid = tc.pile
        lst = r.piles.get(pid)
        if not lst:  # a new pile id (or one a set_pile correction emptied)
            r.piles[pid] = [tc]
            if lst is None:
                r.pile_order.append(pid)
            r.dirty.add(pid)
            return
        if key > lst[-1].key:
            lst.append(tc)
            if not r.all_dirty and pid not in r.dirty and pid in r.sims:
                self._step(r, r.sims[pid], tc)  # the common case: in order, apply incrementally
                return
        else:
            bisect.insort(lst, tc, key=lambda x: x.key)
        r.dirty.add(pid)

    # --- deriving ---
    def _round_facts(self, r: Round) -> None:
        calls = sorted((c for c in r.calls if c.void is None), key=lambda c: (c.t, c.seq))
        r.call = calls[0] if calls else None
        cut = math.inf
        ended_by = None
        stucks = sorted((s for s in r.stucks if s.void is None), key=lambda s: (s.t, s.seq))
        need = 1 if self._rules.stuck_rule == "end" else 2
        if len(stucks) >= need:
            cut, ended_by = stucks[need - 1].t, "stuck"
        if r.ending is not None and r.ending.t is not None and r.ending.t < cut:
            cut, ended_by = r.ending.t, "round_ended"
        if r.call is not None and r.call.t <= cut:
            ended_by = "nerts"
        elif r.ending is not None and ended_by is None:
            ended_by = "round_ended"
        r.cut_t = cut
        r.ended_by = ended_by

    def _pre_reason(self, r: Round, tc: Touch) -> str | None:
        rules = self._rules
        if self._known and tc.player is not None and tc.player not in self._known:
            return "unknown_player"
        if tc.joker:
            if rules.jokers != "on":
                return "jokers_off"
            if tc.card is None:
                return "joker_undeclared"
        arrival = tc.key[0]
        if arrival < r.start_t:
            return "before_round_start"
        call = r.call
        if call is not None:
            o = tc.obs
            mode = rules.in_flight_at_call
            if mode == "return":  # only cards fully placed (released) before the call count
                late = max(o.release_t if o.release_t is not None else o.t, arrival) >= call.t
            else:
                late = arrival >= call.t
            if late:
                if o.lift_t is not None:
                    in_air = o.lift_t < call.t
                else:
                    in_air = o.t < call.t or (arrival - call.t) * 1000.0 <= self.in_flight_ms
                if not (mode == "count" and in_air):
                    return "in_flight_at_call" if in_air else "after_call"
        if arrival > r.cut_t:
            return "after_round_end"
        return None

    def _entry(self, r: Round, tc: Touch) -> nerts.Entry:
        e = nerts.Entry(tc.seq, tc.card, tc.player, tc.key[0], tc.obs.uncertainty_ms, self._pre_reason(r, tc), tc.force)
        tc.entry = e
        return e

    def _new_sim(self) -> nerts.PileSim:
        rules = self._rules
        return nerts.PileSim(rules.foundation_rule, rules.tie_rule, rules.tie_window_ms, self.k_sigma)

    def _step(self, r: Round, sim: nerts.PileSim, tc: Touch) -> None:
        group = sim.step(self._entry(r, tc))
        if group is not None and len(group.contenders) > 1:
            for e in group.contenders:
                self.touches[e.seq].ruling = None
        tc.ruling = None

    def _resim(self, r: Round, pid: str) -> None:
        sim = self._new_sim()
        for tc in r.piles[pid]:
            sim.step(self._entry(r, tc))
            tc.ruling = None
        r.sims[pid] = sim

    def _clean(self, r: Round) -> None:
        if r.all_dirty:
            self._round_facts(r)
            for pid in r.piles:
                self._resim(r, pid)
            r.all_dirty = False
            r.dirty.clear()
        elif r.dirty:
            for pid in r.dirty:
                self._resim(r, pid)
            r.dirty.clear()

    def ruling(self, seq: int) -> dict[str, Any] | None:
        """The current ruling on card touch ``seq`` (cheap: re-derives only its pile if needed).

        ``result()`` is the full story: it also voids rounds played after the game was over."""
        d = self._ruling(seq)
        if d is None:
            return None
        d = d.copy()
        d["final"] = self.touches[seq].upheld is not None or d["t"] <= self.stream_t - self.latency_ms / 1000.0
        return d

    def _ruling(self, seq: int) -> dict[str, Any] | None:
        tc = self.touches.get(seq)
        if tc is None:
            return None
        r = tc.round
        if r.all_dirty:
            self._clean(r)
        elif tc.pile in r.dirty:
            self._resim(r, tc.pile)
            r.dirty.discard(tc.pile)
        if tc.ruling is None:
            tc.ruling = self._touch_ruling(tc)
        return tc.ruling

    def _touch_ruling(self, tc: Touch) -> dict[str, Any]:
        e = tc.entry
        assert e is not None
        o = tc.obs
        d: dict[str, Any] = {
            "seq": tc.seq, "kind": "accepted", "card": tc.text or None, "pile": tc.pile,
            "player": tc.player, "t": o.t, "round": tc.round.number, "stays": e.stays, "reason": None,
            "uncertainty_ms": o.uncertainty_ms,
        }
        if o.confidence is not None:
            d["detection_confidence"] = o.confidence
        if o.release_t is not None:
            d["release_t"] = o.release_t
        if o.evidence is not None:
            d["evidence"] = o.evidence
        if tc.pile != o.pile:
            d["observed_pile"] = o.pile  # a set_pile correction moved it
        if tc.observed_t is not None:
            d["observed_t"] = tc.observed_t  # a set_time correction re-timed it
        g = e.group
        if g is None:
            # in the air at the call and sent back by the table's in_flight_at_call rule: a normal
            # outcome of the rules, not a bad play, so it is not "illegal"
            d["kind"] = "returned" if e.reason in RETURNED_REASONS else "illegal"
            d["reason"] = e.reason
            msg = nerts.REASONS.get(e.reason or "", e.reason or "")
            if e.expected and e.reason != "pile_completed":
                msg += f": {tc.pile} needs {e.expected}"
            call = tc.round.call
            if e.reason in ("after_call", "in_flight_at_call") and call is not None:
                d["margin_ms"] = round((e.arrival - call.t) * 1000.0, 3)
            d["message"] = msg
        elif len(g.contenders) > 1:
            d["kind"] = "dispute"
            w = g.winner
            assert w is not None
            others = [c for c in g.contenders if c is not w]
            runner = min(others, key=lambda c: c.arrival) if others else None
            gap = (runner.arrival - w.arrival) * 1000.0 if runner else 0.0
            sigma = math.hypot(w.uncertainty_ms, runner.uncertainty_ms) if runner else 0.0
            d.update({
                "winner": w.player, "winner_seq": w.seq,
                "losers": [c.player for c in g.losers], "loser_seqs": [c.seq for c in g.losers],
                "tie": bool(g.tied), "tied": [c.player for c in g.tied], "tied_seqs": [c.seq for c in g.tied],
                "contenders": [{"seq": c.seq, "player": c.player, "card": _text(c.card), "t": c.arrival,
                                "uncertainty_ms": c.uncertainty_ms} for c in g.contenders],
                "margin_ms": round(gap, 3), "sigma_ms": round(sigma, 3),
                "confidence": round(nerts.order_confidence(gap, sigma), 6) if runner else 1.0,
                "outcome": ("tie" if g.tied else "won") if e is w else ("tie" if e in g.tied else "lost"),
            })
            if g.tied:
                d["tie_rule"] = self._rules.tie_rule
            if e.stays:
                d["message"] = "tie: both stay" if g.tied else "touched first: stays"
            elif g.tied and (e is w or e in g.tied):
                d["message"] = "tie: everyone takes back and plays again" if self._rules.tie_rule == "replay" \
                    else "tie: neither stays, both take back"
            else:
                d["message"] = f"touched after {w.player}: take it back"
            if e.forced:
                d["forced"] = True
        else:
            d["message"] = "accepted"
            if e.forced:
                d["forced"] = True
                d["message"] = "accepted by the table's admin (overturned)"
        if tc.player is None:
            d["owner_unknown"] = True  # scores for nobody until a set_owner correction names its owner
            if d["kind"] == "accepted":
                d["message"] = "on the pile, but nobody was seen playing it: the table names its owner"
        if tc.force is not None:
            d["overturned"] = True
        if tc.upheld is not None:
            d["upheld"] = tc.upheld
        if tc.corrections:
            d["corrections"] = list(tc.corrections)
        return d

    # --- corrections ---
    def _check_correction(self, c: Correction) -> None:
        t = c.target
        if c.action in ("overturn", "uphold"):
            if t not in self.touches and t not in self.calls and t not in self.stucks:
                raise EngineError(f"seq {t} is not a card_touched, nerts_called or everyone_stuck event "
                                  f"that can be {c.action}d", "target")
        elif c.action in TOUCH_EDITS:
            if t not in self.touches:
                raise EngineError(f"seq {t} is not a card_touched event", "target")
            if c.action == "set_pile" and self.touches[t].pile == c.pile:
                raise EngineError(f"seq {t} is already on pile {c.pile!r}", "pile")
        elif c.action == "set_nerts_left":
            if t not in self.endings:
                raise EngineError(f"seq {t} is not a round_ended event", "target")
            if self._known and c.player not in self._known:
                raise EngineError(f"{c.player!r} is not a player at this table", "player")

    def _apply_correction(self, seq: int, c: Correction) -> None:
        self.corrections[seq] = c
        t = c.target
        if t in self.touches:
            tc = self.touches[t]
            r = tc.round
            tc.corrections = [*(tc.corrections or ()), seq]
            if c.action == "overturn":
                current = self._ruling(t)
                tc.force = "back" if current and current["stays"] else "stay"
                tc.upheld = None
            elif c.action == "uphold":
                tc.upheld = c.reason
            elif c.action in TOUCH_EDITS:
                old_pile = tc.pile
                r.piles[old_pile].remove(tc)
                r.dirty.add(old_pile)  # what was on or after it there is re-derived
                if c.action == "set_owner":
                    tc.player = c.player or tc.player
                elif c.action == "set_card":
                    tc.card, tc.joker = c.card, bool(c.joker)
                    tc.text = ""
                elif c.action == "set_time":
                    if tc.observed_t is None:
                        tc.observed_t = tc.obs.t
                    u = tc.obs.uncertainty_ms if c.uncertainty_ms is None else c.uncertainty_ms
                    tc.obs = dataclasses.replace(tc.obs, t=c.t, uncertainty_ms=u)
                else:
                    tc.pile = c.pile or tc.pile
                # back in contact-time order on its (new) pile; an Ace may start a new pile there
                self._insert(r, tc)
            r.dirty.add(tc.pile)
            tc.ruling = None
        elif t in self.calls or t in self.stucks:
            x = self.calls.get(t) or self.stucks[t]
            x.corrections.append(seq)
            if c.action == "overturn":
                x.void = None if x.void else c.reason
            else:
                x.upheld = c.reason
            for r in self.rounds:
                r.all_dirty = True
        elif t in self.endings:
            en = self.endings[t]
            en.corrections.append(seq)
            # one Nerts pile per scoring unit: a team's count may have been given under a member's
            # name or the team's; the correction replaces it whichever name it was under
            unit = self.unit_of(c.player or "")
            for who in [w for w in en.nerts_left if self.unit_of(w) == unit]:
                del en.nerts_left[who]
            en.nerts_left[c.player or ""] = c.count or 0

    # --- the scoreboard ---
    def result(self) -> GameResult:
        """Derive every ruling, round score and the game's standing from the events so far."""
        rules = self._rules
        s = self.settings
        units_declared = list(dict.fromkeys(self.unit_of(p.name) for p in s.players))
        totals: dict[str, int] = {u: 0 for u in units_declared}
        sizes: dict[str, int] = {}
        for p in s.players:
            sizes.setdefault(self.unit_of(p.name), p.nerts_pile_size or rules.nerts_pile_size)
        extra: dict[int, list[dict[str, Any]]] = {}
        rounds_out: list[dict[str, Any]] = []
        over_after: int | None = None
        winners: list[str] = []
        complete_rounds = 0
        for r in self.rounds:
            self._clean(r)
            void = over_after is not None
            centre: dict[str, int] = {}
            piles = []
            for pid in r.pile_order:
                sim = r.sims.get(pid)
                if sim is None or not r.piles.get(pid):
                    continue
                cards = sim.cards()
                if not cards:  # only illegal or returned cards: no pile there
                    continue
                if not void:
                    for e in cards:
                        if e.player is None:
                            continue  # owner unknown: it builds the pile but scores for nobody
                        u = self.unit_of(e.player)
                        centre[u] = centre.get(u, 0) + 1
                touches = self.touches
                piles.append({"id": pid, "cards": [touches[e.seq].text for e in cards],
                              "owners": [e.player for e in cards], "seqs": [e.seq for e in cards],
                              "top": str(sim.top_card()) if sim.top_card() else None,
                              "completed": sim.completed()})
            units = list(dict.fromkeys([*units_declared, *centre]))
            for u in units:
                totals.setdefault(u, 0)
                sizes.setdefault(u, rules.nerts_pile_size)
            left: dict[str, int] = {}
            if r.ending is not None:
                for who, n in r.ending.nerts_left.items():
                    u = self.unit_of(who)
                    left[u] = left.get(u, 0) + n
                    if u not in units:
                        units.append(u)
                        totals.setdefault(u, 0)
                        sizes.setdefault(u, rules.nerts_pile_size)
            call = r.call
            caller = self.unit_of(call.player) if call else None
            call_valid = call is not None and (not self._known or call.player in self._known) and \
                (r.ending is None or left.get(caller or "", 0) == 0)
            score = nerts.score_round(units, centre, left, caller, call_valid, rules)
            complete = r.ending is not None and not void
            rd: dict[str, Any] = {
                "number": r.number, "start_t": None if r.start_t == -math.inf else r.start_t,
                "start_seq": r.start_seq, "complete": complete, "void": void,
                "ended_by": r.ended_by, "end_seq": r.ending.seq if r.ending else None,
                "caller": call.player if call else None, "call_t": call.t if call else None,
                "call_seq": call.seq if call else None, "call_valid": call_valid if call else None,
                "centre_cards": score.centre_cards, "nerts_left": score.nerts_left,
                "bonus": score.bonus, "scores": score.scores, "piles": piles,
                "nerts_pile_size": dict(sizes),
            }
            warnings = [f"{u} reports {n} Nerts cards left but plays a {sizes.get(u, rules.nerts_pile_size)}-card pile"
                        for u, n in left.items() if n > sizes.get(u, rules.nerts_pile_size)]
            if warnings:
                rd["warnings"] = warnings
            # rulings on the call and the stuck declarations
            for c in r.calls:
                reason = None
                if c.void:
                    reason = "overturned"
                elif c is not call:
                    reason = "after_call"
                elif self._known and c.player not in self._known:
                    reason = "unknown_player"
                elif not call_valid:
                    reason = "false_call"
                msg = {"overturned": f"overturned: {c.void}", "after_call": "the round was already called",
                       "unknown_player": nerts.REASONS["unknown_player"],
                       "false_call": f"{c.player} still had {left.get(caller or '', 0)} Nerts cards: no bonus"}
                extra.setdefault(c.seq, []).append({
                    "seq": c.seq, "kind": "nerts_call", "card": None, "pile": None, "player": c.player, "t": c.t,
                    "round": r.number, "valid": reason is None, "reason": reason,
                    "message": msg.get(reason or "", "Nerts! the round ends"),
                    **({"upheld": c.upheld} if c.upheld else {}),
                    **({"corrections": c.corrections} if c.corrections else {})})
            live = sorted((st for st in r.stucks if st.void is None), key=lambda x: (x.t, x.seq))
            for st in r.stucks:
                if st.void:
                    action, msg = "void", f"overturned: {st.void}"
                elif rules.stuck_rule == "end" or live.index(st) >= 1:
                    action, msg = "end", "everyone stuck: the round ends and is scored as it stands"
                else:
                    action, msg = "rotate", "everyone stuck: turn the waste, move its top card to the bottom, play on"
                extra.setdefault(st.seq, []).append({
                    "seq": st.seq, "kind": "stuck", "card": None, "pile": None, "player": None, "t": st.t,
                    "round": r.number, "action": action, "message": msg,
                    **({"corrections": st.corrections} if st.corrections else {})})
            if r.start_seq is not None:
                extra.setdefault(r.start_seq, []).append({
                    "seq": r.start_seq, "kind": "round_started", "card": None, "pile": None, "player": None,
                    "t": rd["start_t"], "round": r.number,
                    "message": "the game is over: this round does not count" if void else f"round {r.number}"})
            if complete and r.ending is not None:
                complete_rounds += 1
                for u, v in score.scores.items():
                    totals[u] = totals.get(u, 0) + v
                rd["totals"] = dict(totals)
                extra.setdefault(r.ending.seq, []).append({
                    "seq": r.ending.seq, "kind": "round_score", "card": None, "pile": None, "player": None,
                    "t": r.ending.t, "round": r.number, "scores": score.scores, "totals": dict(totals),
                    "message": "round " + str(r.number) + ": " + ", ".join(f"{u} {v:+d}" for u, v in score.scores.items())})
                sizes = nerts.handicap_sizes(sizes, score.scores, totals, rules)
                rd["nerts_pile_size_next"] = dict(sizes)
                won = nerts.game_over(totals, complete_rounds, rules)
                if won is not None:
                    over_after = r.number
                    winners = self._members(won)
                    extra.setdefault(r.ending.seq, []).append({
                        "seq": r.ending.seq, "kind": "game_over", "card": None, "pile": None, "player": None,
                        "t": r.ending.t, "round": r.number, "winners": winners, "totals": dict(totals),
                        "message": "game over: " + " and ".join(winners) + (" share the win" if len(won) > 1 else " wins")})
            elif void and r.ending is not None:
                extra.setdefault(r.ending.seq, []).append({
                    "seq": r.ending.seq, "kind": "round_score", "card": None, "pile": None, "player": None,
                    "t": r.ending.t, "round": r.number, "scores": {}, "totals": dict(totals), "void": True,
                    "message": "the game is over: this round does not count"})
            rounds_out.append(rd)
        # assemble every ruling in seq order
        horizon = self.stream_t - self.latency_ms / 1000.0
        rulings: list[dict[str, Any]] = []
        void_rounds = {rd["number"] for rd in rounds_out if rd["void"]}
        for seq, kind in self.order:
            if kind == "card_touched":
                tc = self.touches[seq]
                d = tc.ruling
                if d is None:
                    d = tc.ruling = self._touch_ruling(tc)  # its round is clean: derived above
                d = d.copy()  # the cached ruling stays untouched by what follows
                if void_rounds and tc.round.number in void_rounds:
                    d.update(kind="illegal", stays=False, reason="game_over", message=nerts.REASONS["game_over"])
                d["final"] = tc.upheld is not None or d["t"] <= horizon
                rulings.append(d)
            elif kind == "correction":
                c = self.corrections[seq]
                cd: dict[str, Any] = {"seq": seq, "kind": "correction", "card": None, "pile": None,
                                      "player": None, "t": None, "target": c.target, "action": c.action,
                                      "reason": c.reason, "message": f"{c.action} seq {c.target}: {c.reason}"}
                if c.action == "set_owner" or c.action == "set_nerts_left":
                    cd["player"] = c.player
                if c.action == "set_card":
                    cd["card"] = card_text(c.card, bool(c.joker))
                if c.action == "set_nerts_left":
                    cd["count"] = c.count
                if c.action == "set_pile":
                    cd["pile"] = c.pile
                if c.action == "set_time":
                    cd["t"], cd["uncertainty_ms"] = c.t, c.uncertainty_ms
                if c.target in self.touches and c.action == "overturn":
                    cd["force"] = self.touches[c.target].force
                rulings.append(cd)
            else:
                rulings.extend(extra.get(seq, ()))
        last = rounds_out[-1] if rounds_out else None
        player_totals = {p.name: totals.get(self.unit_of(p.name), 0) for p in s.players}
        for u, v in totals.items():
            if u not in player_totals and u not in {self.unit_of(p.name) for p in s.players}:
                player_totals[u] = v
        team_totals = {u: v for u, v in totals.items() if u not in player_totals} \
            if rules.teams == "pairs" else None
        return GameResult(
            rulings=rulings, totals=player_totals, rounds=rounds_out, piles=last["piles"] if last else [],
            game_over=over_after is not None, winners=winners,
            players=[p.to_dict() for p in s.players], settings=rules.to_dict(),
            team_totals=team_totals, last_seq=self.last_seq, stream_t=self.stream_t)

    def _members(self, units: list[str]) -> list[str]:
        out: list[str] = []
        for u in units:
            members = [p.name for p in self.settings.players if self.unit_of(p.name) == u and p.name != u]
            out.extend(members or [u])
        return out

    # --- published state for vision ---
    def legal_next(self) -> dict[str, str]:
        """For each open pile of the current round: what it needs next (vision may prioritise)."""
        if not self.rounds:
            return {}
        r = self.rounds[-1]
        self._clean(r)
        out = {}
        for pid, sim in r.sims.items():
            if sim.slots and not sim.completed():
                out[pid] = nerts.expected_text(sim.top_card(), self._rules.foundation_rule)
        return out


def replay(events: Iterable[Mapping[str, Any] | Event], settings: TableSettings | None = None,
           **options: Any) -> GameResult:
    """Feed ``events`` (in log order) to a fresh engine and return the result.

    Events that carry a ``seq`` (from the log) keep it; others are numbered 1, 2, ...
    """
    eng = Engine(settings, **options)
    eng.feed_all(events)
    return eng.result()
