"""The training-scene generator: deterministic, labels in bounds, hidden indices not labelled."""

from __future__ import annotations

import numpy as np

from models.recipe.build_data import real_dev_split
from models.recipe.scenes import BACK, INDEX, OUT, Scene, _labels, render_scene
from simulator.deck_art import CARD_SIZE, DRAWN_STYLES, DeckArt


def test_same_seed_same_scene_and_labels_in_bounds():
    decks = [DeckArt.drawn(s) for s in range(DRAWN_STYLES)]
    backs = [DeckArt.drawn()]
    a_img, a_lab = render_scene(np.random.default_rng([1, 2]), decks, backs)
    b_img, b_lab = render_scene(np.random.default_rng([1, 2]), decks, backs)
    assert np.array_equal(a_img, b_img) and a_lab == b_lab
    assert a_img.shape == (OUT, OUT, 3) and a_img.dtype == np.uint8
    rng = np.random.default_rng(9)
    seen = set()
    for _ in range(6):
        _, labels = render_scene(rng, decks, backs)
        for lab in labels:
            x0, y0, x1, y1 = lab.box
            assert 0 <= x0 < x1 <= OUT and 0 <= y0 < y1 <= OUT
            assert (lab.identity == "BACK") == (lab.cls == BACK)
            seen.add(lab.cls)
    assert INDEX in seen


def _quad(x, y, scale=0.5):
    w, h = CARD_SIZE
    return np.float32([[x, y], [x + w * scale, y], [x + w * scale, y + h * scale], [x, y + h * scale]])


def test_a_covered_index_is_not_labelled():
    deck = DeckArt.drawn()
    rng = np.random.default_rng(0)
    scene = Scene(rng, OUT, OUT)
    scene.add_card(deck.face("7C"), "7C", _quad(100, 100), deck.index_boxes("7C"), shadow=False)
    # a second card right on top of the first one's top-left corner, leaving its bottom-right free
    scene.add_card(deck.face("KD"), "KD", _quad(60, 60), deck.index_boxes("KD"), shadow=False)
    labels = _labels(scene, np.eye(3), scene.owner.copy())
    sevens = [lab for lab in labels if lab.identity == "7C"]
    assert len(sevens) == 1  # only the uncovered bottom-right index
    assert sevens[0].box[0] > 150 and sevens[0].box[1] > 200
    assert len([lab for lab in labels if lab.identity == "KD"]) == 2


def test_real_dev_split_is_fixed_and_about_half():
    names = [f"webcam-{k}.jpg" for k in range(200)]
    splits = [real_dev_split(n) for n in names]
    assert splits == [real_dev_split(n) for n in names]
    assert 70 < splits.count("train") < 130
