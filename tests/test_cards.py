"""Card identity: parsing and printing, the names every area exchanges."""

import pytest

from referee.cards import CARD_NAMES, FULL_DECK, Card, UnknownCard


@pytest.mark.parametrize(
    "text, rank, suit",
    [("10H", 10, "H"), ("QS", 12, "S"), ("as", 1, "S"), (" kd ", 13, "D"), ("2C", 2, "C"), ("JH", 11, "H")],
)
def test_parse(text, rank, suit):
    assert Card.parse(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["11H", "1S", "ZZ", "10", "H", "", "10HH", "0C", "AX"])
def test_unknown_card_names_are_rejected_with_the_name(text):
    with pytest.raises(UnknownCard) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)


def test_non_string_is_rejected():
    with pytest.raises(UnknownCard):
        Card.parse(10)  # type: ignore[arg-type]


def test_print_round_trips_every_card():
    assert len(FULL_DECK) == len(set(FULL_DECK)) == 52
    for card in FULL_DECK:
        assert Card.parse(str(card)) == card
    assert "10D" in CARD_NAMES and "AS" in CARD_NAMES and "KC" in CARD_NAMES


def test_colours_and_sequence():
    assert Card.parse("5D").colour == "red" and Card.parse("5H").colour == "red"
    assert Card.parse("5C").colour == "black" and Card.parse("5S").colour == "black"
    assert Card.parse("9S").next_up() == Card.parse("10S")
    assert Card.parse("KS").next_up() is None
    assert Card.parse("AH").is_ace and Card.parse("KH").is_king


def test_constructor_validates():
    with pytest.raises(UnknownCard):
        Card(14, "H")
    with pytest.raises(UnknownCard):
        Card(3, "X")
