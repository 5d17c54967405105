"""Font decks: card faces whose corner indices are set in the system's TrueType fonts."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL")

from models.recipe.font_decks import FontDeckError, find_fonts, font_decks  # noqa: E402
from models.recipe.index_crops import render_index_crop  # noqa: E402
from simulator.deck_art import CARD_SIZE  # noqa: E402

try:
    FONTS = find_fonts()
except FontDeckError:
    FONTS = []
needs_fonts = pytest.mark.skipif(not FONTS, reason="no TrueType fonts installed (fonts-dejavu / fonts-liberation)")


@pytest.fixture(scope="module")
def decks():
    return font_decks(3, seed=5, fonts=FONTS) if FONTS else []


def _ink(face: np.ndarray, box) -> float:
    """Share of the box's pixels clearly darker than the face's paper."""
    x0, y0, x1, y1 = box
    bgr = face[:, :, :3].astype(np.int16)
    paper = np.median(bgr[150:200, 5:20].reshape(-1, 3), axis=0)
    patch = bgr[y0:y1, x0:x1]
    return float((np.abs(patch - paper).max(axis=2) > 80).mean())


@needs_fonts
@pytest.mark.parametrize("card", ["10H", "AS", "QD", "7C", "JOKER-R"])
def test_faces_have_two_inked_index_boxes_inside_the_face(decks, card):
    w, h = CARD_SIZE
    for deck in decks:
        face = deck.face(card)
        assert face.shape == (h, w, 4) and face.dtype == np.uint8
        boxes = deck.index_boxes(card)
        assert len(boxes) == 2
        top, bottom = boxes
        for x0, y0, x1, y1 in boxes:
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            assert 8 <= y1 - y0 <= 0.4 * h and 4 <= x1 - x0 <= 0.3 * w
        assert top[2] < w / 2 and top[3] < h / 2 and bottom[0] > w / 2 and bottom[1] > h / 2
        # the printed rank and pip: plenty of ink in the box, the bottom one the top turned 180 deg
        assert _ink(face, top) > 0.15
        assert bottom == (w - top[2], h - top[3], w - top[0], h - top[1])
        # and nothing but paper between the index and the face's centre art, to its right
        assert _ink(face, (top[2] + 3, top[1], min(top[2] + 10, w), top[3])) < 0.02


@needs_fonts
def test_red_and_black_ink_and_distinct_typefaces(decks):
    deck = decks[0]
    red = deck.face("5H")[:, :, :3].astype(int)
    black = deck.face("5S")[:, :, :3].astype(int)
    x0, y0, x1, y1 = deck.index_boxes("5H")[0]
    r = red[y0:y1, x0:x1].reshape(-1, 3)
    s = black[y0:y1, x0:x1].reshape(-1, 3)
    darkest_r, darkest_s = r[r.sum(1).argmin()], s[s.sum(1).argmin()]
    assert darkest_r[2] > darkest_r[1] + 80  # red ink: R well above G
    assert darkest_s.max() < 110              # black ink
    # three decks, three different fonts (fonts cycle through the installed ones)
    assert len({d.font_style.font for d in decks}) == min(3, len(FONTS))


@needs_fonts
def test_plugs_into_the_crop_renderer(decks):
    a = render_index_crop(np.random.default_rng(1), decks[1], "10D", 64, upright=50, context=1.0)
    b = render_index_crop(np.random.default_rng(1), decks[1], "10D", 64, upright=50, context=1.0)
    assert a.shape == (64, 64, 3) and np.array_equal(a, b)
    assert a.std() > 10  # an index, not a blank window


@needs_fonts
def test_decks_are_deterministic():
    a = font_decks(2, seed=9, fonts=FONTS)[1]
    b = font_decks(2, seed=9, fonts=FONTS)[1]
    assert a.font_style == b.font_style
    assert np.array_equal(a.face("KH"), b.face("KH"))


def test_clear_error_without_fonts(tmp_path):
    with pytest.raises(FontDeckError, match="fonts-dejavu.*fonts-liberation"):
        find_fonts([tmp_path])
    with pytest.raises(FontDeckError, match="apt-get install"):
        find_fonts([tmp_path / "missing"])
    with pytest.raises(FontDeckError, match="fonts-liberation"):
        font_decks(2, seed=0, fonts=[])


@needs_fonts
def test_font_crops_join_an_existing_classifier_set(tmp_path):
    """``add_font_crops`` adds f<k>.png to every class of both splits and leaves what is there alone."""
    import cv2

    from models.recipe.build_data import NONE_CLASS, add_font_crops
    from models.recipe.scenes import IDENTITIES

    existing = tmp_path / "train" / "AS" / "a0.png"
    existing.parent.mkdir(parents=True)
    cv2.imwrite(str(existing), np.zeros((64, 64, 3), np.uint8))
    n = add_font_crops(tmp_path, seed=3, n_decks=2, per_class=2, val_per_class=1, none_art=2)
    assert n == len(IDENTITIES) * 3 + 2 + 1
    for split, per in (("train", 2), ("val", 1)):
        for identity in IDENTITIES:
            files = sorted((tmp_path / split / identity).glob("f*.png"))
            assert len(files) == per
            assert cv2.imread(str(files[0])).shape == (64, 64, 3)
        assert any((tmp_path / split / NONE_CLASS).glob("fart*.png"))
    assert not cv2.imread(str(existing)).any()
    assert add_font_crops(tmp_path / "none", seed=3, n_decks=0) == 0


@needs_fonts
def test_font_scenes_are_labelled_and_reproducible(tmp_path):
    """``build_font_scenes``: scenes of font-deck cards with YOLO labels inside the view, the same
    files from the same seed whatever the worker count."""
    import cv2

    from models.recipe.finetune_data import build_font_scenes

    n_a = build_font_scenes(tmp_path / "a", 3, seed=4, n_decks=2, shared=None, workers=1)
    n_b = build_font_scenes(tmp_path / "b", 3, seed=4, n_decks=2, shared=None, workers=2)
    assert n_a == n_b > 0
    for k in range(3):
        a = cv2.imread(str(tmp_path / "a" / "images" / f"font{k:05d}.jpg"))
        b = cv2.imread(str(tmp_path / "b" / "images" / f"font{k:05d}.jpg"))
        assert a.shape[:2] == (640, 640) and np.array_equal(a, b)
        rows = (tmp_path / "a" / "labels" / f"font{k:05d}.txt").read_text().split("\n")
        for row in filter(None, rows):
            cls, *xywh = row.split()
            assert cls in ("0", "1") and all(0.0 <= float(v) <= 1.0 for v in xywh)
