"""Sighting sources: the detector adapter pairs corner indices into cards; the truth-pose source
behaves like a noisy detector."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from vision.calibrate import Calibration, Rectifier
from vision.sources import DetectorSightings, PoseSightings, merge_indices


@dataclass
class FakeSighting:  # the shape of vision.detector.Sighting
    identity: str
    confidence: float
    box: tuple[float, float, float, float]
    owner: str | None = None


def _identity_view(region=(0.0, 0.0, 1000.0, 800.0), px_per_mm=1.0):
    cal = Calibration(H=np.eye(3), source="manual", image_points=np.zeros((4, 2)))
    return Rectifier(cal, region, px_per_mm)


def test_two_indices_of_one_card_become_one_sighting_at_its_centre():
    view = _identity_view()
    found = [
        FakeSighting("5H", 0.9, (100, 100, 110, 120)),  # top-left index of a card centred at (130, 150)
        FakeSighting("5H", 0.8, (150, 180, 160, 200)),  # its bottom-right index
        FakeSighting("5H", 0.95, (500, 300, 510, 320)),  # a second 5H elsewhere (another deck)
        FakeSighting("BACK", 0.7, (700, 500, 760, 590), owner="ben"),
        FakeSighting("KS", 0.1, (10, 10, 20, 20)),  # too weak
    ]
    out = merge_indices(found, view)
    cards = sorted((s.label, round(s.x), round(s.y)) for s in out)
    assert cards == [("5H", 130, 150), ("5H", 505, 310), ("BACK", 730, 545)]
    assert [s.owner for s in out if s.label == "BACK"] == ["ben"]
    lone = [s for s in out if s.label == "5H" and round(s.x) == 505][0]
    assert lone.occluded > 0  # one index seen: the card is partly hidden, its centre less sure


def test_detector_runs_on_the_changed_part_while_a_full_look_is_recent():
    class Fake:
        def __init__(self):
            self.shapes = []

        def detect(self, image):
            self.shapes.append(image.shape[:2])
            return []

    det = Fake()
    src = DetectorSightings(det, px_per_mm=1.0)
    view = _identity_view()
    image = np.zeros((800, 1000, 3), np.uint8)
    src.sightings(0, 0.0, image, view.calibration, view)  # first look: the whole area
    src.sightings(1, 0.033, image, view.calibration, view, changed_mm=[(400, 300, 450, 350)])
    src.sightings(2, 1.5, image, view.calibration, view, changed_mm=[(400, 300, 450, 350)])  # full look due
    assert det.shapes == [(800, 1000), (190, 190), (800, 1000)]


def test_pose_source_drops_hidden_cards_and_keeps_to_the_region(tmp_path):
    poses = tmp_path / "poses.jsonl"
    quad = lambda x, y: [[x - 30, y - 40], [x + 30, y - 40], [x + 30, y + 40], [x - 30, y + 40]]
    poses.write_text(json.dumps({"frame": 0, "t": 0.0, "cards": [
        {"card": "7C", "owner": "ana", "quad": quad(200, 200), "occluded": 0.1},
        {"card": "8C", "owner": "ana", "quad": quad(300, 200), "occluded": 0.95},
        {"card": "BACK", "owner": "ben", "quad": quad(400, 200), "occluded": 0.0},
        {"card": "9C", "owner": "cy", "quad": quad(1500, 200), "occluded": 0.0},
    ]}) + "\n")
    view = _identity_view()
    src = PoseSightings(poses, seed=1, miss_rate=0.0, misread_rate=0.0)
    out = src.sightings(0, 0.0, np.zeros((8, 8, 3), np.uint8), view.calibration, view)
    assert sorted(s.label for s in out) == ["7C", "BACK"]
    assert [s.owner for s in out if s.label == "BACK"] == ["ben"]
    seven = [s for s in out if s.label == "7C"][0]
    assert seven.x == pytest.approx(200, abs=5) and seven.y == pytest.approx(200, abs=5)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"frame": 0, "cards": []}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        PoseSightings(bad)
