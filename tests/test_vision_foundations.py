"""The foundation registry: Aces start piles where they land, cards join the pile under them, Kings
complete piles, and a completed pile's spot is free for a new Ace."""

from __future__ import annotations

from vision.foundations import FoundationRegistry

SUIT = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def test_a_pile_builds_to_the_king_and_its_spot_is_reused():
    reg = FoundationRegistry()
    for k, r in enumerate(SUIT):
        landing = reg.land(f"{r}S", 400.0 + k % 3, 300.0 - k % 2)
        assert landing.pile.id == "p1" and landing.legal
    assert reg.pile("p1").completed and reg.pile("p1").top == "KS"
    assert not reg.legal("AS", reg.pile("p1"))
    reg.remove("p1")
    assert reg.land("AD", 401.0, 300.0).pile.id == "p2"  # a new pile in the same spot


def test_illegal_reads_and_rivals_leave_the_pile_alone():
    reg = FoundationRegistry()
    reg.land("AH", 400.0, 300.0)
    bad = reg.land("3H", 402.0, 300.0)
    assert not bad.legal and reg.pile("p1").cards == ["AH"]
    rival = reg.land("AH", 401.0, 301.0, same_as_top=True)  # a second Ace on the same spot: a contest
    assert rival.pile.id == "p1" and reg.pile("p1").cards == ["AH"]
    stray = reg.land("7C", 800.0, 300.0)  # no pile there: its own id, illegal
    assert stray.new and not stray.legal


def test_a_card_put_down_wide_of_its_pile_joins_it_only_as_its_next_card():
    reg = FoundationRegistry()  # join_mm 42, wide_mm 55
    reg.land("AC", 836.0, 395.0)
    reg.land("AH", 600.0, 300.0)
    assert reg.where("2C", 879.0, 406.0) == (reg.pile("p1"), True)  # 44 mm off: the Ace's next card
    assert reg.where("3C", 879.0, 406.0) == (None, False)  # not a card of that pile yet: no pile
    assert reg.where("2H", 879.0, 406.0) == (None, False)  # the 2H's pile is 280 mm away
    assert reg.where("2C", 900.0, 395.0) == (None, False)  # 64 mm off: too far
    assert reg.where("AD", 879.0, 406.0) == (None, True)  # an Ace there starts a pile of its own
    wide = reg.land("2C", 879.0, 406.0)
    assert wide.pile.id == "p1" and wide.legal and reg.pile("p1").cards == ["AC", "2C"]


def test_an_ace_put_down_beside_a_pile_starts_its_own():
    """An Ace always starts a pile. Put down beside the club pile, 42 mm from its spot, farther
    than a card laid on a pile lies off it, cleo's AS begins the spades (fresh clip 6135: taken for
    a card on the clubs, flagged as fitting nowhere, and the spade pile's four cards were lost).
    An Ace read 20 mm off a pile is one of that pile's cards, or its own Ace's rival copy."""
    reg = FoundationRegistry()  # join_mm 42, ace_apart_mm 32
    reg.land("AC", 612.9, 298.7)
    reg.land("2C", 613.0, 299.0)
    assert reg.where("AS", 654.7, 296.0) == (None, True)
    spades = reg.land("AS", 654.7, 296.0)
    assert spades.new and spades.legal and spades.pile.id != "p1"
    assert reg.where("AD", 632.0, 305.0) == (reg.pile("p1"), False)
    assert reg.where("AC", 576.0, 301.0) == (reg.pile("p1"), False)  # the clubs' own Ace, read off its spot
    assert reg.where("2S", 660.0, 298.0) == (spades.pile, True)


def test_alternate_colour_rule():
    reg = FoundationRegistry("alternate_colour")
    reg.land("AH", 400.0, 300.0)
    assert reg.legal("2S", reg.pile("p1")) and not reg.legal("2D", reg.pile("p1"))
