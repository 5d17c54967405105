"""The classifier's training data: rendered index crops with fan context, real-dev patches."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from models.recipe.index_crops import LAYOUTS, neighbour_layout, render_index_crop
from models.recipe.train_cls import RealSet, real_holdout_photo
from simulator.deck_art import DeckArt
from vision.detector import index_turns as inference_turns, square_crop


@pytest.fixture(scope="module")
def deck() -> DeckArt:
    return DeckArt.drawn(0)


def test_crop_shape_and_determinism(deck):
    a = render_index_crop(np.random.default_rng(7), deck, "5H", 64, upright=50, context=1.0)
    b = render_index_crop(np.random.default_rng(7), deck, "5H", 64, upright=50, context=1.0)
    assert a.shape == (64, 64, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)


def test_cards_above_never_cover_the_index(deck):
    """In a fan the cards on top start past the target's index: its box stays (almost) uncovered."""
    w, h = deck.card_size
    rng = np.random.default_rng(3)
    checked = 0
    for card in ("5H", "10C", "QS", "AD"):
        for box in deck.index_boxes(card):
            for layout in ("row", "column", "diagonal"):
                for _ in range(10):
                    x0, y0, x1, y1 = (int(round(v)) for v in box)
                    for face, T, above in neighbour_layout(rng, deck, box, layout):
                        if not above:
                            continue
                        alpha = cv2.warpAffine(np.ascontiguousarray(face[:, :, 3]), T[:2], (w, h))
                        covered = (alpha[y0:y1, x0:x1] > 128).mean()
                        assert covered < 0.1, (card, box, layout, covered)
                        checked += 1
    assert checked > 20


def test_layouts_render(deck):
    rng = np.random.default_rng(1)
    box = deck.index_boxes("7S")[0]
    for layout in LAYOUTS[1:]:
        cards = neighbour_layout(rng, deck, box, layout)
        assert cards and all(T.shape == (3, 3) for _, T, _ in cards)


def test_real_patch_window_is_the_inference_crop(tmp_path):
    """The un-augmented window over a 2.5x patch equals the 1.25x crop Detector classifies."""
    rng = np.random.default_rng(0)
    img = cv2.GaussianBlur(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8), (0, 0), 3)
    box = (120.0, 60.0, 171.2, 111.2)  # 51.2 px: the 128 px patch is 1:1 with the image
    (tmp_path / "5H").mkdir()
    cv2.imwrite(str(tmp_path / "5H" / "p_0.png"), square_crop(img, box, 128, margin=2.5))
    (tmp_path / "index.json").write_text(json.dumps({"margin": 2.5, "patch": 128, "items": [
        {"file": "5H/p_0.png", "class": "5H", "photo": "x.jpg", "box_wh": [51.2, 51.2]}]}))
    real = RealSet(tmp_path, ["5H", "_none"])
    assert len(real) == 1 and real.labels.tolist() == [0]
    window = real.window(0, 0.0)
    expected = square_crop(img, box, 64)[:, :, ::-1]
    assert np.abs(window.astype(int) - expected.astype(int)).mean() < 4
    aug = real.window(0, 20.0, rng=np.random.default_rng(1))
    assert aug.shape == (64, 64, 3) and aug.dtype == np.uint8


def test_real_holdout_is_a_fixed_share():
    names = [f"webcam-{k}.jpg" for k in range(400)]
    held = [n for n in names if real_holdout_photo(n, 0.3)]
    assert 0.2 < len(held) / len(names) < 0.4
    assert held == [n for n in names if real_holdout_photo(n, 0.3)]
    assert not any(real_holdout_photo(n, 0.0) for n in names)


def test_inference_turns_follow_the_box_shape():
    assert inference_turns(20, 40) == (0, 2)
    assert inference_turns(40, 20) == (1, 3)
    assert inference_turns(30, 32) == (0, 1, 2, 3)


def test_thresholds_are_tuned_on_train_half_photos_the_classifier_kept_out():
    from models.recipe.build_data import real_dev_split
    from models.recipe.train import tuning_photos
    from models.recipe.train_cls import REAL_HOLDOUT

    names = [f"webcam-photo{k}.jpg" for k in range(200)]
    trained = {n for n in names if real_dev_split(n) == "train"}
    picked = tuning_photos(names, trained)
    assert picked and set(picked) < trained  # never an eval-half photo
    assert picked == [n for n in names if n in trained and real_holdout_photo(n, REAL_HOLDOUT)]
    assert 0.1 < len(picked) / len(trained) < 0.4  # about the classifier's held-out quarter
