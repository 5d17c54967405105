"""Card identity: the currency every area shares.

>>> Card.parse("10H")
Card(rank=10, suit='H')
>>> str(Card.parse("qs"))
'QS'
>>> Card.parse("AS").colour
'black'
>>> Card.parse("5D").next_up()
Card(rank=6, suit='D')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUITS = ("C", "D", "H", "S")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
RANKS = tuple(range(1, 14))
RED_SUITS = frozenset({"D", "H"})

_RANK_FROM_TEXT = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(2, 11)}}
_CARD_RE = re.compile(r"^\s*(10|[2-9AJQK1])\s*([CDHS])\s*$", re.IGNORECASE)


class UnknownCard(ValueError):
    """A card name that is not one of the 52 cards (e.g. ``11H``, ``ZZ``)."""


def rank_text(rank: int) -> str:
    return RANK_NAMES.get(rank, str(rank))


@dataclass(frozen=True, order=True)
class Card:
    """One of the 52 French-suited cards: rank 1 (Ace) .. 13 (King), suit C/D/H/S."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise UnknownCard(f"rank must be 1..13 (A..K), got {self.rank!r}")
        if self.suit not in SUITS:
            raise UnknownCard(f"suit must be one of C D H S, got {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Parse ``"10H"``, ``"QS"``, ``"as"`` (case-insensitive). ``"1"`` is not a rank."""
        if not isinstance(text, str):
            raise UnknownCard(f"card must be a string like '10H' or 'QS', got {text!r}")
        match = _CARD_RE.match(text)
        if not match or match.group(1) == "1":
            raise UnknownCard(
                f"unknown card {text!r}: expected rank A 2-10 J Q K then suit C D H S, e.g. '10H', 'QS'"
            )
        return cls(_RANK_FROM_TEXT[match.group(1).upper()], match.group(2).upper())

    @property
    def colour(self) -> str:
        return "red" if self.suit in RED_SUITS else "black"

    @property
    def is_ace(self) -> bool:
        return self.rank == 1

    @property
    def is_king(self) -> bool:
        return self.rank == 13

    def next_up(self) -> "Card | None":
        """The card one rank higher in the same suit (``None`` above the King)."""
        return None if self.rank == 13 else Card(self.rank + 1, self.suit)

    def __str__(self) -> str:
        return f"{rank_text(self.rank)}{self.suit}"


FULL_DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
"""The 52 cards, clubs first, Ace to King within each suit."""

CARD_NAMES: tuple[str, ...] = tuple(str(c) for c in FULL_DECK)
