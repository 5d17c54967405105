"""The back network's training patches: one per face-down card, cut as the runtime cuts them, each
labelled with the colour its back was printed in; never the french-pattern back images the bench
scores on."""

from __future__ import annotations

import numpy as np

from models.recipe import back_data
from models.recipe.scenes import render_scene
from vision.backs import PATCH_SIDE, nominal_lab


def test_each_face_down_card_gives_a_patch_labelled_with_its_print_colour(shared_dir):
    seen = 0
    for seed in (3, 4, 5):
        patches, targets, visible = back_data.scene_patches(seed, shared_dir)
        assert len(patches) == len(targets) == len(visible)
        seen += len(patches)
        for p, lab, v in zip(patches, targets, visible):
            assert p.shape == (PATCH_SIDE, PATCH_SIDE, 3) and p.dtype == np.uint8
            assert 0.35 <= v <= 1.01  # labelled from 35% visible, as the detector's backs
            assert 0 <= lab[0] <= 100
    assert seen >= 5


def test_patch_colours_are_the_scene_backs_own(shared_dir, monkeypatch):
    """The labels are the colours the renderer printed (checked against a scene rendered the same
    way), and the colours are recolourings, not the shipped back images."""
    used = []
    real = render_scene

    def spy(rng, faces, backs, **kw):
        used.append(list(kw["back_colours"]))
        return real(rng, faces, backs, **kw)

    monkeypatch.setattr(back_data, "render_scene", spy)
    _, targets, _ = back_data.scene_patches(11, shared_dir)
    assert used and all(c.startswith("#") for c in used[0])  # hex colours: never a named back's image
    allowed = [nominal_lab(tuple(int(c[i:i + 2], 16) for i in (5, 3, 1))) for c in used[0]]
    for lab in targets:
        assert min(np.linalg.norm(lab - a) for a in allowed) < 1e-6


def test_random_colours_cover_the_cube_and_the_grey_axis():
    rng = np.random.default_rng(0)
    colours = np.array([back_data.random_colour(rng) for _ in range(2000)])
    assert colours.min() == 0 and colours.max() == 255
    grey = (colours.max(axis=1) - colours.min(axis=1)) < 25
    assert 0.1 < grey.mean() < 0.25  # GREY_SHARE of them on the grey axis (black, gray, silver)
    assert len({tuple(c) for c in colours}) > 1900
