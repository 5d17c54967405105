"""Back colours -> owners: registration, close pairs under light and colour cast, occlusion,
rejection of unregistered colours (also on dark tables), the frame's colour cast, the back
network's input, nominal colours, persistence (formats /1 to /4) and bad input."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from simulator.deck_art import DeckArt
from vision.backs import (FORMAT, PATCH_SIDE, UNKNOWN, BackError, BackNet, BackRegistry, back_patch, frame_cast,
                          nominal_lab)

TABLE = (60, 95, 135)  # BGR: a brown wooden table, no registered back's colour


def _on_table(back: np.ndarray, gain=(1.0, 1.0, 1.0), light: float = 1.0, angle: float = 0.0,
              on_top: np.ndarray | None = None) -> tuple[np.ndarray, tuple]:
    """A back lying on a table, rotated, under tinted light (optionally another card lying across
    it, as in a pile); returns (image, box of the back's visible part)."""
    img = np.empty((400, 400, 3), np.float32)
    img[:] = TABLE
    mask = np.zeros((400, 400), bool)
    for k, card in enumerate([back] if on_top is None else [back, on_top]):
        h, w = card.shape[:2]
        M = cv2.getRotationMatrix2D((w / 2, h / 2), angle + 35 * k, 0.6)
        M[:, 2] += (200 - w / 2 + 95 * k, 200 - h / 2 + 40 * k)
        warped = cv2.warpAffine(card, M, (400, 400))
        a = warped[:, :, 3:4] / 255.0
        img = img * (1 - a) + warped[:, :, :3] * a
        mask = (warped[:, :, 3] > 128) if k == 0 else mask & ~(warped[:, :, 3] > 128)
    img = np.clip(img * np.array(gain) * light, 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(mask)
    return img, (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)


REGISTERED = ["blue", "navy", "red", "maroon", "green", "teal", "black", "gray"]
LIGHTS = [((1.0, 1.0, 1.0), 1.0, 30), ((0.9, 1.0, 1.1), 0.75, 75), ((1.08, 1.0, 0.9), 0.9, 120), ((1.0, 1.0, 1.0), 0.6, 200)]


@pytest.fixture(scope="module")
def drawn_registry():
    deck = DeckArt.drawn()
    reg = BackRegistry()
    for colour in REGISTERED:
        img, box = _on_table(deck.back(colour))
        reg.register(colour, [img], [box])
    return deck, reg


@pytest.mark.parametrize("colour", REGISTERED)
def test_close_pairs_survive_light_and_colour_cast(drawn_registry, colour):
    deck, reg = drawn_registry
    for gain, light, angle in LIGHTS:
        img, box = _on_table(deck.back(colour), gain, light, angle)
        match = reg.classify(img, box)
        assert match.owner == colour, (colour, gain, light, match)


def test_back_under_another_card_keeps_its_owner(drawn_registry):
    deck, reg = drawn_registry
    for colour, other in (("navy", "blue"), ("maroon", "red"), ("teal", "green")):
        img, box = _on_table(deck.back(colour), angle=20, on_top=deck.back(other))
        assert reg.classify(img, box).owner == colour, (colour, other)


def _alone(back: np.ndarray, table: tuple, angle: float) -> tuple[np.ndarray, tuple]:
    """One back (scale 0.6) on a plain table of colour ``table``; returns (image, box)."""
    img = np.empty((400, 400, 3), np.float32)
    img[:] = table
    h, w = back.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 0.6)
    M[:, 2] += (200 - w / 2, 200 - h / 2)
    warped = cv2.warpAffine(back, M, (400, 400))
    a = warped[:, :, 3:4] / 255.0
    ys, xs = np.nonzero(warped[:, :, 3] > 128)
    return (img * (1 - a) + warped[:, :, :3] * a).astype(np.uint8), (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)


DARK_TABLES = [(50, 50, 50), (60, 60, 60), (30, 40, 30)]


@pytest.mark.parametrize("colour", ["fuchsia", "orange", "lime", "aqua"])
def test_unregistered_back_on_a_dark_table_is_unknown(drawn_registry, colour):
    """The dark table in the box's corners is no reason to call the back black."""
    deck, reg = drawn_registry
    for table in DARK_TABLES:
        img, box = _alone(deck.back(colour), table, 10)
        match = reg.classify(img, box)
        assert match.owner == UNKNOWN, (colour, table, match)
        assert match.runner_up is not None  # the nearest owner it was not taken for


def test_registered_back_on_a_dark_table_keeps_its_owner(drawn_registry):
    """At 45 degrees the dark table fills half the box: the back is still its owner's."""
    deck, reg = drawn_registry
    for colour in ("blue", "navy", "red", "maroon", "green", "teal", "gray"):
        for table in DARK_TABLES[:2]:
            img, box = _alone(deck.back(colour), table, 45)
            assert reg.classify(img, box).owner == colour, (colour, table)


def test_back_patch_is_the_box_with_a_margin_divided_by_the_cast():
    deck = DeckArt.drawn()
    img, box = _on_table(deck.back("red"), (0.9, 1.0, 1.1), 0.8, 10)
    patch = back_patch(img, box)
    assert patch.shape == (PATCH_SIDE, PATCH_SIDE, 3) and patch.dtype == np.float32
    assert 0.0 <= patch.min() and patch.max() <= 1.0
    assert patch[PATCH_SIDE // 2, PATCH_SIDE // 2, 0] > patch[PATCH_SIDE // 2, PATCH_SIDE // 2, 2]  # RGB: red first
    corner = patch[0, 0] * 255 * frame_cast(img)[::-1]  # the margin shows the table, cast put back
    assert np.abs(corner - np.array(TABLE[::-1]) * np.array((1.1, 1.0, 0.9)) * 0.8).max() < 8
    alone = back_patch(deck.back("red")[:, :, :3])  # a photo of the back alone: framed in a neutral surround
    assert np.allclose(alone[0, 0], alone[0, 0].mean(), atol=0.05)


def test_estimate_is_the_print_colour_under_white_light(drawn_registry):
    """The network reads a back as the colour it was printed in, whatever the light."""
    deck, reg = drawn_registry
    for colour in ("navy", "maroon", "teal"):
        for gain, light, angle in LIGHTS[:3]:
            img, box = _on_table(deck.back(colour), gain, light, angle)
            est = reg.estimate(img, [box])[0]
            from simulator.deck_art import colour_bgr

            assert np.linalg.norm(est - nominal_lab(colour_bgr(colour))) < reg.tau, (colour, light, est)


def test_missing_or_corrupt_back_network_is_a_clear_error(tmp_path):
    with pytest.raises(BackError, match="cannot load the back network"):
        BackNet(tmp_path / "missing.onnx")
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    with pytest.raises(BackError, match="cannot load the back network"):
        BackNet(tmp_path / "bad.onnx")


def test_unregistered_colour_is_unknown(drawn_registry):
    deck, reg = drawn_registry
    for colour in ("yellow", "orange", "fuchsia", "lime", "aqua", "olive"):
        img, box = _on_table(deck.back(colour), angle=50)
        assert reg.classify(img, box).owner == UNKNOWN, colour


def test_frame_cast_is_read_from_the_paper():
    deck = DeckArt.drawn()
    img, _ = _on_table(deck.back("blue"), (0.9, 1.0, 1.1), 0.8, 10)
    face = cv2.resize(deck.face("QH")[:, :, :3], (100, 140))
    img[250:390, 290:390] = np.clip(face * np.array([0.9, 1.0, 1.1]) * 0.8, 0, 255).astype(np.uint8)
    cast = frame_cast(img)
    assert cast[0] < 0.95 and cast[2] > 1.05, cast  # (B, G, R): warm light, weak blue, strong red


def test_frame_cast_is_the_paper_not_a_pale_table():
    """A pale, grainy, unevenly lit table (near-neutral, but tinted) covers most of the frame; two
    white cards lie on it. The cast is the paper's, not the table's tint."""
    rng = np.random.default_rng(5)
    h, w = 320, 400
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 3)
    grain /= grain.std()
    shade = np.linspace(0.8, 1.05, w, dtype=np.float32)[None, :] * np.ones((h, 1), np.float32)
    table = np.stack([175 + 9 * grain, 190 + 5 * grain, 205 - 4 * grain], axis=2) * shade[..., None]
    img = table.copy()
    face = cv2.resize(DeckArt.drawn().face("7S")[:, :, :3], (70, 100)).astype(np.float32)
    for y, x in ((40, 60), (170, 230)):
        img[y:y + 100, x:x + 70] = face
    gain = np.array([1.08, 1.0, 0.92], np.float32)  # (B, G, R): a cool cast
    img = np.clip(img * gain * 0.85 + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)  # paper unclipped
    cast = frame_cast(img)
    assert np.abs(np.log(cast / (gain / gain.mean()))).max() < 0.03, cast


def test_shared_french_backs_close_pairs(shared_dir):
    deck = DeckArt.load(shared_dir / "cards" / "french-pattern")
    reg = BackRegistry()
    for colour in REGISTERED:
        reg.register(colour, [deck.back(colour)[:, :, :3]])  # a photo of the back: whole image
    for colour in REGISTERED:
        img, box = _on_table(deck.back(colour), (0.95, 1.0, 1.05), 0.85, 40)
        assert reg.classify(img, box).owner == colour
    for colour in ("aqua", "lime", "olive", "default"):  # lighter twins of registered backs
        img, box = _on_table(deck.back(colour), (0.95, 1.0, 1.05), 0.85, 40)
        assert reg.classify(img, box).owner == UNKNOWN, colour


def test_register_from_nominal_colour(drawn_registry):
    deck, _ = drawn_registry
    reg = BackRegistry()
    for colour in ("red", "maroon", "blue", "navy", "green"):
        reg.register_colour(colour, colour)
    for colour in ("red", "maroon", "blue", "navy", "green"):
        img, box = _on_table(deck.back(colour), (0.95, 1.0, 1.05), 0.85, 25)
        assert reg.classify(img, box).owner == colour
    with pytest.raises(ValueError, match="unknown back colour"):
        reg.register_colour("cy", "sparkly")


def test_registry_round_trip_and_errors(drawn_registry, tmp_path):
    deck, reg = drawn_registry
    path = tmp_path / "decks.json"
    reg.save(path)
    again = BackRegistry.load(path)
    assert set(again.backs) == set(reg.backs)
    img, box = _on_table(deck.back("maroon"), angle=10)
    assert again.classify(img, box).owner == "maroon"
    saved = json.loads(path.read_text())
    assert saved["format"] == FORMAT == "nerts-backs/4"
    assert (again.tau, again.min_gap) == (reg.tau, reg.min_gap)
    bad_files = {
        "bad.json": ("{not json", "not JSON"),
        "other.json": ('{"format": "something-else"}', "not a back registry"),
        "v9.json": ('{"format": "nerts-backs/9", "backs": []}', "not readable by this version"),
        "entry.json": ('{"format": "nerts-backs/4", "backs": [{"owner": "x"}]}', "bad back entry"),
    }
    for name, (text, message) in bad_files.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(BackError, match=message):
            BackRegistry.load(tmp_path / name)
    with pytest.raises(BackError, match="not found"):
        BackRegistry.load(tmp_path / "missing.json")
    old = {"format": "nerts-backs/1", "tau": 9.0, "backs": [{"owner": "ana", "lab": [[30.0, 60.0, 40.0]]}]}
    (tmp_path / "v1.json").write_text(json.dumps(old))  # an older file: its backs, today's thresholds
    v1 = BackRegistry.load(tmp_path / "v1.json")
    assert list(v1.backs) == ["ana"] and v1.tau == BackRegistry().tau
    v2 = dict(saved, format="nerts-backs/3", tau=9.0)  # a /3 file: its backs, today's thresholds
    v2.pop("min_gap")
    (tmp_path / "v2.json").write_text(json.dumps(v2))
    old2 = BackRegistry.load(tmp_path / "v2.json")
    assert set(old2.backs) == set(reg.backs) and old2.tau == BackRegistry().tau
    assert old2.classify(img, box).owner == "maroon"


def test_check_names_disagreeing_images_and_lookalike_backs(drawn_registry):
    deck, reg = drawn_registry
    assert all(reg.check(owner) == [] for owner in reg.backs)  # the close pairs are far enough apart
    red, red_box = _on_table(deck.back("red"))
    green, green_box = _on_table(deck.back("green"))
    other = BackRegistry(backs=dict(reg.backs))
    other.register("ana", [red, red, green], [red_box, red_box, green_box])  # one "photo of ana's back" is another deck's
    notes = other.check("ana")
    assert len(notes) == 3 and "images of ana's back disagree" in notes[0]
    # ana's red is the red player's red, and the stray image the green player's green
    assert "close to red's" in notes[1] and "close to green's" in notes[2]
    with pytest.raises(BackError, match="no registered back"):
        other.check("zoe")


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
        reg.register("ana", [img], [(10, 10, 11, 11)])
    with pytest.raises(BackError, match="too small"):
        reg.classify(img, (10, 10, 11, 11))
    with pytest.raises(BackError, match="BGR uint8"):
        reg.register("ana", [np.zeros((50, 50), np.uint8)])
    with pytest.raises(BackError, match="no coloured pixels"):
        reg.register("ana", [np.full((50, 50, 3), 255, np.uint8)])
    with pytest.raises(BackError, match="one box"):
        reg.register("ana", [img], [None, None])


def test_empty_registry_says_unknown():
    img = np.full((40, 30, 3), 128, np.uint8)
    assert BackRegistry().classify(img).owner == UNKNOWN


def _lay_back(img: np.ndarray, card: np.ndarray, angle: float, centre: tuple[int, int], scale: float,
              boxes: list) -> np.ndarray:
    """Composite an RGBA back onto a 400x400 float image; append its axis-aligned box to ``boxes``."""
    h, w = card.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    M[:, 2] += (centre[0] - w / 2, centre[1] - h / 2)
    warped = cv2.warpAffine(card, M, (400, 400))
    a = warped[:, :, 3:4] / 255.0
    ys, xs = np.nonzero(warped[:, :, 3] > 128)
    boxes.append((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
    return img * (1 - a) + warped[:, :, :3] * a
