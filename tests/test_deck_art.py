"""Deck artwork: loading shared folders, the drawn deck, backs and corner-index boxes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.cards import CARD_NAMES, Card
from simulator.deck_art import CARD_SIZE, DeckArt, DeckArtError, card_key, colour_bgr, shared_designs


def _ink_fraction(face: np.ndarray, box) -> float:
    x0, y0, x1, y1 = box
    patch = face[y0:y1, x0:x1, :3].astype(int)
    return float((patch.max(axis=2) - patch.min(axis=2) > 60).mean() + (patch.max(axis=2) < 110).mean())


def test_drawn_deck_faces_have_one_size_and_differ():
    deck = DeckArt.drawn()
    w, h = CARD_SIZE
    seen = set()
    for name in CARD_NAMES:
        face = deck.face(name)
        assert face.shape == (h, w, 4) and face.dtype == np.uint8
        seen.add(face.tobytes().__hash__())
    assert len(seen) == 52
    assert deck.face(Card.parse("QS")) is deck.face("qs")  # cached, same key either way
    assert deck.face("RED JOKER").shape == (h, w, 4)


def test_drawn_faces_are_read_only_and_have_transparent_corners():
    face = DeckArt.drawn().face("AS")
    assert not face.flags.writeable
    assert face[0, 0, 3] == 0 and face[CARD_SIZE[1] // 2, CARD_SIZE[0] // 2, 3] == 255


def test_drawn_index_boxes_top_left_and_bottom_right():
    deck = DeckArt.drawn()
    w, h = CARD_SIZE
    for name in CARD_NAMES:
        boxes = deck.index_boxes(name)
        assert len(boxes) == 2, name
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = sorted(boxes)
        assert ax1 < w * 0.3 and ay1 < h * 0.3, (name, boxes)  # top-left corner
        assert bx0 > w * 0.7 and by0 > h * 0.7, (name, boxes)  # bottom-right corner
        # the two indices are the same print turned 180 degrees: same size within a pixel or two
        assert abs((ax1 - ax0) - (bx1 - bx0)) <= 2 and abs((ay1 - ay0) - (by1 - by0)) <= 2


def test_back_colours_named_hex_and_unknown():
    deck = DeckArt.drawn()
    red = deck.back("red")
    assert red.shape == (CARD_SIZE[1], CARD_SIZE[0], 4)
    centre = red[60:80, 30:60, :3].reshape(-1, 3).astype(int)
    assert (centre[:, 2] > 200).mean() > 0.5  # a red back is mostly red
    navy = deck.back("#000080")
    assert navy is deck.back("#000080")
    assert not np.array_equal(navy, deck.back("blue"))
    assert colour_bgr("#0062ff") == (255, 98, 0)
    with pytest.raises(DeckArtError, match="unknown back colour"):
        deck.back("blurple")


def test_card_key_aliases():
    assert card_key("BLACK JOKER") == "JOKER-B"
    assert card_key(Card(10, "H")) == "10H"
    with pytest.raises(ValueError):
        card_key("11H")


def test_unknown_folder_is_a_clear_error(tmp_path):
    with pytest.raises(DeckArtError, match="deck folder not found"):
        DeckArt.load(tmp_path / "nope")


def test_missing_card_image_is_named(shared_dir, tmp_path):
    src = shared_dir / "cards" / "jumbo-index"
    dst = tmp_path / "deck"
    dst.mkdir()
    for name in CARD_NAMES:  # symlinks: no copies of shared art
        if name != "7D":
            (dst / f"{name}.png").symlink_to(src / f"{name}.png")
    with pytest.raises(DeckArtError, match=r"7D\.png"):
        DeckArt.load(dst)
    (dst / "7D.png").write_bytes(b"not a png")
    deck = DeckArt.load(dst)
    with pytest.raises(DeckArtError, match=r"unreadable.*7D\.png"):
        deck.face("7D")
    with pytest.raises(DeckArtError, match=r"JOKER-R\.png"):
        deck.face("JOKER-R")


@pytest.mark.parametrize("design", ["byron-knoll", "french-pattern", "jumbo-index"])
def test_shared_designs_index_boxes_hold_ink(shared_dir, design):
    deck = DeckArt.load(shared_dir / "cards" / design)
    w, h = CARD_SIZE
    for name in ("AS", "10H", "7C", "QD", "KS"):
        face = deck.face(name)
        assert face.shape == (h, w, 4)
        boxes = deck.index_boxes(name)
        assert len(boxes) == 2, (design, name, boxes)
        for x0, y0, x1, y1 in boxes:
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            assert (x1 - x0) < 0.4 * w and (y1 - y0) < 0.4 * h  # an index, not the court art
            assert _ink_fraction(face, (x0, y0, x1, y1)) > 0.1


def test_shared_backs_own_recoloured_and_generated(shared_dir):
    french = DeckArt.load(shared_dir / "cards" / "french-pattern")
    assert "navy" in french.back_colours and "0062ff" in french.back_colours
    assert french.back("#0062ff").shape == (CARD_SIZE[1], CARD_SIZE[0], 4)
    jumbo = DeckArt.load(shared_dir / "cards" / "jumbo-index")
    orange = jumbo.back("orange")  # not shipped: recoloured from the folder's own back
    inside = orange[50:-50, 40:-40, :3].reshape(-1, 3).astype(int)
    bgr = np.array(colour_bgr("orange"))
    assert (np.abs(inside - bgr).max(axis=1) < 40).mean() > 0.2
    byron = DeckArt.load(shared_dir / "cards" / "byron-knoll")  # no back at all: generated
    assert byron.back("green").shape == (CARD_SIZE[1], CARD_SIZE[0], 4)
    assert shared_designs(shared_dir / "cards") == ["byron-knoll", "french-pattern", "jumbo-index"]


def test_shared_designs_empty_for_missing_dir(tmp_path: Path):
    assert shared_designs(tmp_path / "absent") == []


def test_drawn_styles_differ_and_bad_style_is_an_error():
    from simulator.deck_art import DRAWN_STYLES

    faces = {DeckArt.drawn(s).face("QS").tobytes() for s in range(DRAWN_STYLES)}
    assert len(faces) >= 3  # OpenCV 5 draws the duplex/complex/triplex Hershey faces alike
    assert DeckArt.drawn(3).name == "drawn-3"
    with pytest.raises(DeckArtError, match="style"):
        DeckArt.drawn(DRAWN_STYLES)
