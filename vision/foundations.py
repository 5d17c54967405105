"""The foundation registry: where each centre pile lies and which card is on top, as vision sees it.

An Ace landing on free table starts a pile at that spot; a later card joins the pile it lands on; a
King completes its pile, which then leaves the table (its spot becomes free again). Pile ids are
the observer's (``p1``, ``p2``, ... in order of creation) and go into the observations. The registry
also answers "is this read legal on that pile?" so that an illegal-looking read can be re-examined
before it is reported; legality itself is the referee's (``referee.nerts.fits``), not re-implemented.

>>> reg = FoundationRegistry()
>>> reg.land("AH", 500.0, 400.0).pile.id
'p1'
>>> reg.land("2H", 503.0, 398.0).pile.id, reg.pile("p1").top
('p1', '2H')
>>> reg.land("AS", 600.0, 400.0).pile.id
'p2'
>>> reg.legal("4H", reg.pile("p1")), reg.legal("3H", reg.pile("p1"))
(False, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from referee.cards import Card, UnknownCard
from referee.nerts import fits


@dataclass
class Pile:
    id: str
    x: float
    y: float
    cards: list[str] = field(default_factory=list)
    completed: bool = False
    gone: bool = False  # a completed pile that has left the table

    @property
    def top(self) -> str | None:
        return self.cards[-1] if self.cards else None


@dataclass(frozen=True)
class Landing:
    pile: Pile
    new: bool
    legal: bool


class FoundationRegistry:
    """Piles by position. ``join_mm``: a card within this distance of a pile's spot lands on it;
    ``wide_mm``: a card that is not an Ace, with no pile within ``join_mm``, lands on the nearest
    pile within this distance that it is the next card of (put down wide of it: fresh dev clip
    5236, a 2C contest copy 44 mm from its Ace, ruled "no such pile", and with it the pile's every
    later club lost); ``ace_apart_mm``: an Ace farther than this from the nearest pile's spot
    starts a pile of its own (unless it is that pile's own Ace)."""

    def __init__(self, foundation_rule: str = "same_suit", join_mm: float = 42.0, wide_mm: float = 55.0,
                 ace_apart_mm: float = 32.0) -> None:
        self.foundation_rule = foundation_rule
        self.join_mm = join_mm
        self.wide_mm = wide_mm
        self.ace_apart_mm = ace_apart_mm
        self.piles: dict[str, Pile] = {}
        self._n = 0

    def pile(self, pile_id: str) -> Pile:
        return self.piles[pile_id]

    def nearest(self, x: float, y: float, include_completed: bool = True) -> Pile | None:
        """The pile on the table nearest to ``(x, y)`` within ``join_mm``."""
        best, best_d = None, self.join_mm
        for p in self.piles.values():
            if p.gone or (p.completed and not include_completed):
                continue
            d = math.hypot(p.x - x, p.y - y)
            if d <= best_d:
                best, best_d = p, d
        return best

    def legal(self, card: str, pile: Pile | None) -> bool:
        try:
            c = Card.parse(card)
        except UnknownCard:
            return False
        below = Card.parse(pile.top) if pile is not None and pile.top else None
        if pile is not None and pile.completed:
            return False
        return fits(c, below, self.foundation_rule) is None

    def where(self, card: str, x: float, y: float) -> tuple[Pile | None, bool]:
        """The pile a card landing at ``(x, y)`` belongs to (``None``: it would start a new one)
        and whether that would be legal; changes nothing."""
        target = self.nearest(x, y)
        if card.startswith("A") and (target is None or target.completed or (
                card not in target.cards and math.hypot(target.x - x, target.y - y) > self.ace_apart_mm)):
            # an Ace always starts a pile (a completed pile's spot is free again), also put down
            # beside another pile, more than a card on it lies off its spot (fresh clip 6135:
            # cleo's AS 42 mm from the club pile, taken for a card on it; the spades were all lost);
            # the Ace a pile began, read off its spot, is that Ace seen again
            return None, True
        if target is None:
            fits = [p for p in self.piles.values() if not p.gone and self.legal(card, p)]
            wide = min(fits, key=lambda p: math.hypot(p.x - x, p.y - y), default=None)
            if wide is not None and math.hypot(wide.x - x, wide.y - y) <= self.wide_mm:
                return wide, True
            return None, False
        return target, self.legal(card, target)

    def land(self, card: str, x: float, y: float, same_as_top: bool = False) -> Landing:
        """Record ``card`` landing at ``(x, y)``; returns the pile and whether the play looked legal.

        ``same_as_top``: the card is a rival copy of the pile's top card (a first-touch contest),
        so the pile does not grow.
        """
        target, legal = self.where(card, x, y)
        if target is None:
            if not card.startswith("A"):
                # A non-Ace on free table: the referee rules it (no such pile); give it its own id.
                pile = self._new(x, y)
                pile.cards.append(card)
                pile.completed = True  # nothing may be built on a pile that does not exist
                return Landing(pile, True, False)
            pile = self._new(x, y)
            pile.cards.append(card)
            return Landing(pile, True, True)
        if same_as_top:
            return Landing(target, False, True)
        if legal:
            target.cards.append(card)
            # the pile's spot follows its cards: imperfect stacking drifts a little
            target.x = 0.8 * target.x + 0.2 * x
            target.y = 0.8 * target.y + 0.2 * y
            if card.startswith("K"):
                target.completed = True
        return Landing(target, False, legal)

    def _new(self, x: float, y: float) -> Pile:
        self._n += 1
        pile = Pile(f"p{self._n}", x, y)
        self.piles[pile.id] = pile
        return pile

    def remove(self, pile_id: str) -> None:
        """A pile left the table (a completed pile set aside)."""
        self.piles[pile_id].gone = True

    def open_piles(self) -> list[Pile]:
        return [p for p in self.piles.values() if not p.gone]
