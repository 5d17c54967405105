"""Back colours -> owners: registration, lighting robustness, rejection, persistence."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from simulator.deck_art import DeckArt
from vision.backs import UNKNOWN, BackError, BackRegistry, back_descriptor


def _on_table(back: np.ndarray, gain=(1.0, 1.0, 1.0), light: float = 1.0, angle: float = 0.0) -> tuple[np.ndarray, tuple]:
    """A back lying on a grey table, rotated, under tinted light; returns (image, box)."""
    table = np.full((400, 400, 3), 90, np.uint8)
    h, w = back.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 0.6)
    M[:, 2] += (200 - w / 2, 200 - h / 2)
    warped = cv2.warpAffine(back, M, (400, 400))
    a = warped[:, :, 3:4] / 255.0
    img = table * (1 - a) + warped[:, :, :3] * a
    img = np.clip(img * np.array(gain) * light, 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(warped[:, :, 3] > 128)
    return img, (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)


CLOSE_PAIRS = ["blue", "navy", "red", "maroon", "green", "teal", "gray", "silver"]


@pytest.fixture(scope="module")
def drawn_registry():
    deck = DeckArt.drawn()
    reg = BackRegistry()
    for colour in CLOSE_PAIRS:
        img, box = _on_table(deck.back(colour))
        reg.register(colour, [img], [box])
    return deck, reg


@pytest.mark.parametrize("colour", CLOSE_PAIRS)
def test_close_pairs_survive_light_and_colour_cast(drawn_registry, colour):
    deck, reg = drawn_registry
    for gain, light, angle in [((1.0, 1.0, 1.0), 1.0, 30), ((0.9, 1.0, 1.1), 0.75, 75), ((1.1, 1.0, 0.88), 1.15, 120)]:
        img, box = _on_table(deck.back(colour), gain, light, angle)
        match = reg.classify(img, box)
        assert match.owner == colour, (colour, gain, light, match)


def test_unregistered_colour_is_unknown(drawn_registry):
    deck, reg = drawn_registry
    for colour in ("yellow", "orange", "fuchsia"):
        img, box = _on_table(deck.back(colour))
        assert reg.classify(img, box).owner == UNKNOWN, colour


def test_shared_french_backs_close_pairs(shared_dir):
    deck = DeckArt.load(shared_dir / "cards" / "french-pattern")
    reg = BackRegistry()
    for colour in CLOSE_PAIRS:
        reg.register(colour, [deck.back(colour)[:, :, :3]])  # a photo of the back: whole image
    for colour in CLOSE_PAIRS:
        img, box = _on_table(deck.back(colour), (0.95, 1.0, 1.05), 0.85, 40)
        assert reg.classify(img, box).owner == colour


def test_registry_round_trip_and_errors(drawn_registry, tmp_path):
    deck, reg = drawn_registry
    path = tmp_path / "decks.json"
    reg.save(path)
    again = BackRegistry.load(path)
    assert set(again.backs) == set(reg.backs)
    img, box = _on_table(deck.back("maroon"), angle=10)
    assert again.classify(img, box).owner == "maroon"
    assert json.loads(path.read_text())["format"] == "nerts-backs/1"
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(BackError, match="not JSON"):
        BackRegistry.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"format": "something-else"}')
    with pytest.raises(BackError, match="not a back registry"):
        BackRegistry.load(tmp_path / "other.json")
    with pytest.raises(BackError, match="not found"):
        BackRegistry.load(tmp_path / "missing.json")


def test_bad_registration_inputs():
    reg = BackRegistry()
    img = np.zeros((50, 50, 3), np.uint8)
    with pytest.raises(BackError):
        reg.register("", [img])
    with pytest.raises(BackError):
        reg.register(UNKNOWN, [img])
    with pytest.raises(BackError):
        reg.register("ana", [])
    with pytest.raises(BackError, match="too small"):
        back_descriptor(img, (10, 10, 11, 11))


def test_empty_registry_says_unknown():
    img = np.full((40, 30, 3), 128, np.uint8)
    assert BackRegistry().classify(img).owner == UNKNOWN


def test_register_from_nominal_colour(drawn_registry):
    deck, _ = drawn_registry
    reg = BackRegistry()
    for colour in ("red", "blue", "green"):
        reg.register_colour(colour, colour)
    img, box = _on_table(deck.back("blue"))
    assert reg.classify(img, box).owner == "blue"
