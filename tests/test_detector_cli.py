"""``detect``, ``eval-detector`` and ``decks`` through the real CLI entry point."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from nerts_referee.cli import main
from simulator.deck_art import DeckArt
from vision.detect_cli import _pair_errors, score_images
from vision.detector import Detector, DetectorError, Sighting

try:
    Detector.load()
    HAVE_WEIGHTS = True
except DetectorError:
    HAVE_WEIGHTS = False
needs_weights = pytest.mark.skipif(not HAVE_WEIGHTS, reason="no trained weights in models/")


class FakeDetector:
    """Returns fixed identities per image (keyed by the image's first pixel value)."""

    def __init__(self, answers):
        self.answers = answers

    def detect(self, image):
        return [Sighting(name, 0.9, (0, 0, 1, 1)) for name in self.answers[int(image[0, 0, 0])]]


def test_score_images_counts_per_image_sets_and_groups():
    images = [np.full((4, 4, 3), k, np.uint8) for k in range(3)]
    fake = FakeDetector({0: ["AS", "KD", "BACK"], 1: ["2C", "3C"], 2: []})
    items = [("webcam-a.jpg", images[0], {"AS", "KD"}),
             ("webcam-b.jpg", images[1], {"2C", "4C"}),
             ("single-c.jpg", images[2], {"QH"})]
    r = score_images(fake, items)
    # found: AS KD (2 right), 2C right + 3C wrong; missed 4C, QH
    assert r["precision"] == pytest.approx(3 / 4)
    assert r["recall"] == pytest.approx(3 / 5)
    assert r["groups"]["webcam"]["precision"] == pytest.approx(3 / 4)
    assert r["groups"]["webcam"]["recall"] == pytest.approx(3 / 4)
    assert r["groups"]["single"] == {"precision": 1.0, "recall": 0.0, "images": 1, "true_positives": 0,
                                     "false_positives": 0, "false_negatives": 1}
    assert ["4C", "3C", 1] in r["confusions"] and ["QH", "-", 1] in r["confusions"]


def test_pair_errors_prefers_same_rank_or_suit():
    assert _pair_errors(["6H", "9S"], ["9H", "QS"]) == [("6H", "9H"), ("9S", "QS")]
    assert _pair_errors([], ["KC"]) == [("-", "KC")]


def test_eval_detector_rejects_a_folder_without_labels(tmp_path, capsys):
    (tmp_path / "images").mkdir()
    assert main(["eval-detector", str(tmp_path)]) == 2
    assert "labels/" in capsys.readouterr().err


def _back_photo(deck: DeckArt, colour: str, path) -> None:
    """A photo of one back lying at (100, 80, 200, 220) on a grey table."""
    img = np.full((300, 300, 3), 70, np.uint8)
    back = cv2.resize(deck.back(colour), (100, 140))
    a = back[:, :, 3:4] / 255.0
    img[80:220, 100:200] = (img[80:220, 100:200] * (1 - a) + back[:, :, :3] * a).astype(np.uint8)
    cv2.imwrite(str(path), img)


def test_decks_register_and_classify_with_boxes(tmp_path, capsys):
    deck = DeckArt.drawn()
    paths = {colour: tmp_path / f"{colour}.png" for colour in ("red", "maroon", "blue")}
    for colour, path in paths.items():
        _back_photo(deck, colour, path)
    decks = tmp_path / "decks.json"
    for owner, colour in (("ana", "red"), ("ben", "maroon")):
        assert main(["decks", "register", owner, str(paths[colour]), "--decks", str(decks), "--box", "100,80,200,220"]) == 0
    assert set(b["owner"] for b in json.loads(decks.read_text())["backs"]) == {"ana", "ben"}
    capsys.readouterr()
    code = main(["decks", "classify", str(paths["maroon"]), str(paths["blue"]), str(tmp_path / "missing.png"),
                 "--decks", str(decks), "--box", "100,80,200,220", "--json"])
    assert code == 1  # one unreadable image; the others still classified
    out = json.loads(capsys.readouterr().out)["images"]
    assert out[0]["backs"][0]["owner"] == "ben"
    assert out[0]["backs"][0]["runner_up"] == "ana"
    assert out[0]["backs"][0]["distance"] < out[0]["backs"][0]["runner_up_distance"]
    assert len(out[0]["backs"][0]["colour_lab"]) == 3
    assert out[1]["backs"][0]["owner"] == "unknown"
    assert "no such file" in out[2]["error"]


def test_decks_register_warns_of_a_back_like_another_players(tmp_path, capsys):
    deck = DeckArt.drawn()
    paths = {name: tmp_path / f"{name}.png" for name in ("ana", "ben", "cleo")}
    for name, colour in (("ana", "red"), ("ben", "red"), ("cleo", "blue")):
        _back_photo(deck, colour, paths[name])
    decks = tmp_path / "decks.json"
    box = ["--decks", str(decks), "--box", "100,80,200,220"]
    assert main(["decks", "register", "ana", str(paths["ana"]), *box]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["decks", "register", "cleo", str(paths["cleo"]), *box]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["decks", "register", "ben", str(paths["ben"]), *box]) == 0  # registered all the same
    err = capsys.readouterr().err
    assert "warning: ben's back is close to ana's" in err and "cleo" not in err
    assert {b["owner"] for b in json.loads(decks.read_text())["backs"]} == {"ana", "ben", "cleo"}


def test_decks_bad_box_and_missing_registry(tmp_path, capsys):
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), np.zeros((20, 20, 3), np.uint8))
    assert main(["decks", "register", "ana", str(img), "--decks", str(tmp_path / "d.json"), "--box", "5,5,1,1"]) == 2
    assert "--box" in capsys.readouterr().err
    assert main(["decks", "classify", str(img), "--decks", str(tmp_path / "none.json")]) == 2
    assert "not found" in capsys.readouterr().err


@needs_weights
def test_detect_json_reports_unreadable_images_and_runs_the_rest(tmp_path, capsys):
    good = tmp_path / "table.png"
    cv2.imwrite(str(good), np.full((240, 320, 3), 100, np.uint8))
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not an image")
    code = main(["detect", str(bad), str(good), "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert "broken.jpg: not a readable image" in captured.err
    images = json.loads(captured.out)["images"]
    assert images[0]["error"].endswith("not a readable image")
    assert images[1]["width"] == 320 and isinstance(images[1]["sightings"], list)


@needs_weights
def test_eval_detector_json_on_a_rendered_folder(tmp_path, capsys):
    """A tiny folder in the real-dev format, made from rendered scenes."""
    from models.recipe.scenes import render_scene

    names = ["AS", "BACK", "10H"]
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "classes.yaml").write_text(f"nc: {len(names)}\nnames: {names!r}\n")
    rng = np.random.default_rng(3)
    deck = [DeckArt.drawn()]
    for k, group in enumerate(["webcam", "webcam", "single"]):
        img, _ = render_scene(rng, deck, deck)
        cv2.imwrite(str(tmp_path / "images" / f"{group}-{k}.jpg"), img)
        (tmp_path / "labels" / f"{group}-{k}.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    assert main(["eval-detector", str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"precision", "recall", "groups"} <= set(result)
    assert result["groups"]["webcam"]["images"] == 2 and result["groups"]["single"]["images"] == 1
    assert 0.0 <= result["precision"] <= 1.0 and 0.0 <= result["recall"] <= 1.0
