"""Nerts' own rules, kept behind one small boundary so the engine could host another game later.

Everything here is a pure function of its arguments: which card may go on which foundation
(``fits``), who touched a pile first (``contest_order``/``is_tie``), how one foundation builds up from
the touches it received in contact-time order (:class:`PileSim`), how a round is scored
(``score_round``) and when the game is over (``game_over``).

>>> from referee.cards import Card
>>> fits(Card.parse("6H"), Card.parse("5H"), "same_suit") is None
True
>>> fits(Card.parse("6S"), Card.parse("5H"), "same_suit")
'wrong_suit'
>>> fits(Card.parse("7H"), Card.parse("5H"), "same_suit")
'wrong_rank'
>>> fits(Card.parse("2H"), None, "same_suit")
'no_such_pile'
>>> round(order_confidence(gap_ms=10.0, sigma_ms=10.0), 3)   # one sigma apart: 84% sure
0.841
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from referee.cards import Card, rank_text

K_SIGMA = 2.0
"""A gap under ``K_SIGMA`` combined standard deviations is a tie: at 2 sigma the referee would call
the order wrongly about 2.3% of the time, so below it the order is not sure enough to send a card
back (see ``docs/events.md``)."""

REASONS = {
    "wrong_suit": "wrong suit",
    "wrong_colour": "wrong colour (this table builds in alternating colours)",
    "wrong_rank": "wrong rank",
    "no_such_pile": "no such pile: only an Ace starts a new pile",
    "pile_completed": "pile completed: a King closed it",
    "after_call": "played after the Nerts call",
    "in_flight_at_call": "in flight at the Nerts call: goes back (in_flight_at_call)",
    "after_round_end": "played after the round ended",
    "before_round_start": "played before the round started",
    "unknown_player": "unknown player: not seated at this table",
    "jokers_off": "Jokers are not used at this table (jokers = off)",
    "joker_undeclared": "a Joker must be declared before it is played to a foundation",
    "game_over": "the game is already over",
    "overturned": "overturned by the table's admin",
    "no_round": "no round is in progress",
}


def fits(card: Card, below: Card | None, foundation_rule: str) -> str | None:
    """``None`` when ``card`` may be played on ``below`` (``None``: an empty spot), else a reason."""
    if below is None:
        return None if card.rank == 1 else "no_such_pile"
    if below.rank == 13:
        return "pile_completed"
    if card.rank != below.rank + 1:
        return "wrong_rank"
    if foundation_rule == "same_suit":
        return None if card.suit == below.suit else "wrong_suit"
    if foundation_rule == "alternate_colour":
        return None if card.colour != below.colour else "wrong_colour"
    return None  # any_suit


def expected_text(below: Card | None, foundation_rule: str) -> str:
    """What the pile needs next, for messages: ``'6H'``, ``'a red 6'``, ``'an Ace'``."""
    if below is None:
        return "an Ace"
    if below.rank == 13:
        return "nothing (completed)"
    rank = rank_text(below.rank + 1)
    if foundation_rule == "same_suit":
        return f"{rank}{below.suit}"
    if foundation_rule == "alternate_colour":
        return f"a {'black' if below.colour == 'red' else 'red'} {rank}"
    return f"any {rank}"


def order_confidence(gap_ms: float, sigma_ms: float) -> float:
    """Probability that the earlier-measured card really touched first: Phi(gap / sigma)."""
    if sigma_ms <= 0.0:
        return 1.0 if gap_ms > 0 else (0.0 if gap_ms < 0 else 0.5)
    return 0.5 * (1.0 + math.erf(gap_ms / (sigma_ms * math.sqrt(2.0))))


def is_tie(gap_ms: float, sigma_ms: float, tie_window_ms: float, k_sigma: float = K_SIGMA) -> bool:
    """A tie: the gap is inside the table's ``tie_window_ms`` or inside k x combined sigma."""
    return gap_ms <= tie_window_ms or gap_ms < k_sigma * sigma_ms


# --- one foundation --------------------------------------------------------------------------

@dataclass(slots=True, eq=False)
class Entry:
    """What the pile simulation needs to know about one touch (the engine owns the rest)."""

    seq: int
    card: Card | None
    player: str
    arrival: float  # seconds: touch or release time per `arrival`
    uncertainty_ms: float
    pre_reason: str | None = None  # rejected before the pile is looked at (after call, unknown player...)
    force: str | None = None  # "stay" | "back": an admin overturn
    # outcome, filled by PileSim
    stays: bool = False
    reason: str | None = None
    expected: str | None = None
    forced: bool = False
    group: "Contest | None" = None


@dataclass(slots=True, eq=False)
class Contest:
    """All the cards that went for one spot of one pile (a dispute when there are two or more)."""

    base: Card | None  # the card below the spot
    contenders: list[Entry] = field(default_factory=list)
    stays: list[Entry] = field(default_factory=list)
    winner: Entry | None = None
    tied: list[Entry] = field(default_factory=list)
    losers: list[Entry] = field(default_factory=list)
    vacated: bool = False


class PileSim:
    """Builds one foundation from its touches, fed in contact-time order.

    A touch that fits the spot the top card occupies (it would have been legal just before the top
    card landed) contests that spot: the first touch stays, later ones go back, a tie follows
    ``tie_rule``. Any other touch must fit on the top card.
    """

    __slots__ = ("rule", "tie_rule", "tie_window_ms", "k_sigma", "slots", "pending")

    def __init__(self, foundation_rule: str, tie_rule: str, tie_window_ms: float, k_sigma: float = K_SIGMA):
        self.rule = foundation_rule
        self.tie_rule = tie_rule
        self.tie_window_ms = tie_window_ms
        self.k_sigma = k_sigma
        self.slots: list[Contest] = []  # occupied spots, bottom first
        self.pending: Contest | None = None  # a spot just vacated by a tie (neither_stays/replay)

    def top_card(self) -> Card | None:
        return self.slots[-1].stays[-1].card if self.slots else None

    def cards(self) -> list[Entry]:
        return [e for s in self.slots for e in s.stays]

    def completed(self) -> bool:
        top = self.top_card()
        return top is not None and top.rank == 13

    def step(self, e: Entry) -> Contest | None:
        """Apply one touch; return the contest it joined or opened (whose rulings may change)."""
        e.stays = False
        e.reason = None
        e.forced = False
        e.group = None
        e.expected = None
        if e.pre_reason is not None and (e.force != "stay" or e.card is None):
            e.reason = e.pre_reason  # an admin may still place it (e.g. it did touch before the call)
            return None
        if e.force == "back":
            e.reason = "overturned"
            return None
        card = e.card
        # 1. a contender for the spot on top (or for a spot a tie just vacated)?
        group = None
        pending = self.pending
        if pending is not None and fits(card, pending.base, self.rule) is None:
            first = pending.contenders[0]
            gap = (e.arrival - first.arrival) * 1000.0
            if is_tie(gap, math.hypot(first.uncertainty_ms, e.uncertainty_ms), self.tie_window_ms, self.k_sigma):
                group = pending
        if group is None and self.slots and fits(card, self.slots[-1].base, self.rule) is None:
            group = self.slots[-1]
        if group is not None:
            group.contenders.append(e)
            e.group = group
            self._resolve(group)
            return group
        # 2. a new card on top
        below = self.top_card()
        reason = fits(card, below, self.rule)
        if reason is not None and e.force != "stay":
            e.reason = reason
            e.expected = expected_text(below, self.rule)
            return None
        self.pending = None
        group = Contest(below, [e], [e], e, [], [])  # a new spot, uncontested so far
        e.group = group
        e.forced = reason is not None
        e.stays = True
        self.slots.append(group)
        return group

    def _resolve(self, g: Contest) -> None:
        for c in g.contenders:
            c.stays = False
        forced = [c for c in g.contenders if c.force == "stay"]
        if forced:
            g.winner, g.tied = forced[0], []
            g.stays = forced
        else:
            w = g.contenders[0]
            g.winner = w
            g.tied = [c for c in g.contenders[1:]
                      if is_tie((c.arrival - w.arrival) * 1000.0, math.hypot(w.uncertainty_ms, c.uncertainty_ms),
                                self.tie_window_ms, self.k_sigma)]
            if g.tied and self.tie_rule != "both_stay":
                g.stays = []
            else:
                g.stays = [w] + g.tied
        kept = {id(g.winner), *map(id, g.tied)}
        g.losers = [c for c in g.contenders if id(c) not in kept]
        for c in g.stays:
            c.stays = True
        on_pile = bool(self.slots) and self.slots[-1] is g
        if g.stays and not on_pile:
            self.slots.append(g)
            self.pending = None
        elif not g.stays and on_pile:
            self.slots.pop()
            self.pending = g
        g.vacated = not g.stays


# --- scoring and the end of the game ------------------------------------------------------------

@dataclass(frozen=True)
class RoundScore:
    centre_cards: dict[str, int]
    nerts_left: dict[str, int]
    scores: dict[str, int]
    bonus: dict[str, int]


def score_round(units: Iterable[str], centre_cards: dict[str, int], nerts_left: dict[str, int],
                caller: str | None, call_valid: bool, rules: Any) -> RoundScore:
    """Round score = own centre cards x points - Nerts cards left x penalty (+ bonus to the caller)."""
    scores: dict[str, int] = {}
    bonus: dict[str, int] = {}
    for u in units:
        b = rules.nerts_bonus if (caller == u and call_valid) else 0
        bonus[u] = b
        scores[u] = centre_cards.get(u, 0) * rules.points_per_centre_card \
            - nerts_left.get(u, 0) * rules.penalty_per_nerts_card + b
    return RoundScore(dict(centre_cards), dict(nerts_left), scores, bonus)


def game_over(totals: dict[str, int], rounds_played: int, rules: Any) -> list[str] | None:
    """The winning units when the game ends after this round, else ``None``."""
    if not totals:
        return None
    best = max(totals.values())
    if rules.end_condition == "target_score":
        ended = best >= rules.target_score
    elif rules.end_condition == "fixed_rounds":
        ended = rounds_played >= rules.rounds
    else:  # lead_margin
        ended = len(totals) >= 2 and best - min(totals.values()) >= rules.margin
    if not ended:
        return None
    top = sorted(u for u, v in totals.items() if v == best)
    if len(top) > 1 and rules.final_tie == "play_another_round":
        return None
    return top


def handicap_sizes(sizes: dict[str, int], round_scores: dict[str, int], totals: dict[str, int],
                   rules: Any) -> dict[str, int]:
    """Next round's Nerts pile sizes: the round winner +1, anyone at or below zero -1 (min 3)."""
    if rules.handicap != "on" or not round_scores:
        return dict(sizes)
    best = max(round_scores.values())
    out = dict(sizes)
    for u in out:
        if round_scores.get(u) == best:
            out[u] = min(out[u] + 1, 40)
        if totals.get(u, 0) <= 0:
            out[u] = max(out[u] - 1, 3)
    return out

