"""Sighting sources: the detector adapter pairs corner indices into cards; the truth-pose source
behaves like a noisy detector."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from vision.calibrate import Calibration, Rectifier
from vision.sources import DetectorSightings, LookWaits, PoseSightings, merge_indices, plan_patches


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


class BlobDetector:
    """Stands in for vision.detector.Detector: every white blob in the image is a ``5H`` index; its
    classifier reads a crop as ``5H`` when the crop's dark dot (the pip) is in its lower half."""

    cls_classes = ["5H", "_none"]
    cls_size = 32

    def __init__(self):
        self.shapes = []

    def detect(self, image):
        import cv2

        self.shapes.append(image.shape[:2])
        mask = (image.min(axis=2) > 200).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        return [FakeSighting("5H", 0.9, (x, y, x + w, y + h)) for x, y, w, h, a in stats[1:] if a >= 20]

    def classify_crops(self, crops):
        out = []
        for c in crops:
            dark = np.argwhere(c.min(axis=2) < 50)
            below = (dark[:, 0].mean() - c.shape[0] / 2) / c.shape[0] if len(dark) else -1.0
            p = float(np.clip(0.5 + below, 0.0, 1.0))  # surest when the pip is well below the rank
            out.append([p, 1.0 - p])
        return np.array(out, np.float32)


def _table_with_indices(indices, size=(800, 1000)):
    """A dark table (1 px = 1 mm) with white index boxes (x, y, turn): a dark pip sits below the
    rank when printed upright (turn 0), and turns clockwise with the card."""
    img = np.full((*size, 3), 40, np.uint8)
    for x, y, turn in indices:
        w, h = (10, 18) if turn % 2 == 0 else (18, 10)
        x0, y0 = int(x - w / 2), int(y - h / 2)
        img[y0:y0 + h, x0:x0 + w] = 255
        dot = {0: (0, 5), 1: (-5, 0), 2: (0, -5), 3: (5, 0)}[turn]
        img[int(y + dot[1]) - 1:int(y + dot[1]) + 2, int(x + dot[0]) - 1:int(x + dot[0]) + 2] = 0
    return img


def test_patches_keep_the_scale_and_cover_every_change():
    region = (0.0, 0.0, 1000.0, 700.0)
    views = plan_patches([(100, 100, 130, 130), (700, 500, 720, 540)], region, 1.0, canvas=416, margin_mm=40)
    assert len(views) == 1 and len(views[0]) == 2  # two small changes share one detector call
    for p in views[0]:
        assert p.w == pytest.approx(p.region_mm[2] - p.region_mm[0], abs=1)  # 1 px per mm: never shrunk
        assert p.ox + p.w <= 416 and p.oy + p.h <= 416
    big = plan_patches([(50, 50, 950, 650)], region, 1.0, canvas=416, margin_mm=0)
    pieces = [p.region_mm for v in big for p in v]
    assert all(b[2] - b[0] <= 404 and b[3] - b[1] <= 404 for b in pieces)
    for x in range(50, 951, 25):  # every point of the change lies inside some piece
        for y in range(50, 651, 25):
            assert any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in pieces)
    with pytest.raises(ValueError):
        plan_patches([(0, 0, 1, 1)], region, 0.0)


def test_indices_found_in_a_packed_view_land_at_their_table_position():
    view = _identity_view()
    det = BlobDetector()
    src = DetectorSightings(det, px_per_mm=1.0, stride=1)
    # one card centred at (300, 400): top-left index upright, bottom-right index turned 180
    image = _table_with_indices([(300 - 24.8, 400 - 31.4, 0), (300 + 24.8, 400 + 31.4, 2)])
    src.sightings(0, 0.0, image, view.calibration, view, changed_mm=[(0, 0, 1000, 800)])  # first look: all
    assert det.shapes and all(s == (416, 416) for s in det.shapes)
    out = src.sightings(1, 0.04, image, view.calibration, view, changed_mm=[(280, 380, 320, 420)])
    assert len(det.shapes) <= 2 + 3 + 1  # the first look is spread: at most max_calls per frame
    cards = [s for s in out if s.label == "5H"]
    assert len(cards) == 1
    assert cards[0].x == pytest.approx(300, abs=1.5) and cards[0].y == pytest.approx(400, abs=1.5)


def test_a_lone_index_is_placed_at_the_card_centre():
    view = _identity_view()
    # seen whole first, then a hand covers the bottom-right index: the centre stays put
    src = DetectorSightings(BlobDetector(), px_per_mm=1.0, full_every_s=1e9, stride=1)
    both = _table_with_indices([(500 - 24.8, 300 - 31.4, 0), (500 + 24.8, 300 + 31.4, 2)])
    one = _table_with_indices([(500 - 24.8, 300 - 31.4, 0)])
    src.sightings(0, 0.0, both, view.calibration, view, changed_mm=[(450, 250, 550, 350)])
    (s,) = src.sightings(1, 0.033, one, view.calibration, view, changed_mm=[(450, 250, 550, 350)])
    assert (s.x, s.y) == (pytest.approx(500, abs=1.5), pytest.approx(300, abs=1.5))
    # never seen whole: which way up the index reads says where the card lies (here turned 90
    # degrees clockwise, so its centre is down-left of the index)
    fresh = DetectorSightings(BlobDetector(), px_per_mm=1.0, full_every_s=1e9, stride=1)
    turned = _table_with_indices([(600, 400, 1)])
    (s,) = fresh.sightings(0, 0.0, turned, view.calibration, view, changed_mm=[(560, 360, 640, 440)])
    assert (s.x, s.y) == (pytest.approx(600 - 31.4, abs=2), pytest.approx(400 + 24.8, abs=2))
    assert s.occluded > 0


def test_stride_skips_frames_while_the_table_moves_or_settles():
    view = _identity_view()
    det = BlobDetector()
    src = DetectorSightings(det, px_per_mm=1.0, stride=2, full_every_s=1e9)
    image = _table_with_indices([(300 - 24.8, 400 - 31.4, 0), (300 + 24.8, 400 + 31.4, 2)])
    change = [(280, 380, 320, 420)]
    got, calls = [], []
    for i in range(4):
        got.append(src.sightings(i, i / 30, image, view.calibration, view, changed_mm=change))
        calls.append(src.calls)
    assert [len(g) for g in got] == [0, 1, 0, 1]
    assert calls[0] == 0 and calls[2] == calls[1]  # skipped frames cost nothing
    assert src.looked_mm and all(b[0] <= 280 and b[2] >= 320 for b in src.looked_mm)  # where it looked
    # settling (nothing changed since the last look): it looks again, at the same pace, where the
    # table just moved (a landing needs a few still reads)
    assert src.sightings(4, 4 / 30, image, view.calibration, view, changed_mm=[]) == []
    assert src.looked_mm == []
    (s,) = src.sightings(5, 5 / 30, image, view.calibration, view, changed_mm=[])
    assert s.label == "5H" and src.calls > calls[3]
    # later: the first full look finishes, then with nothing new, nothing recent and no full
    # look due, no call at all
    for i in range(40, 80):
        src.sightings(i, i / 30, image, view.calibration, view, changed_mm=[])
    before = src.calls
    assert all(src.sightings(i, i / 30, image, view.calibration, view, changed_mm=[]) == [] for i in range(80, 90))
    assert src.calls == before
    with pytest.raises(ValueError):
        DetectorSightings(det, stride=0)


def test_a_full_look_goes_on_while_most_of_the_table_keeps_changing():
    # two arms meeting across the table make one change box over most of it, frame after frame
    # (dev clip 5487): the full look it starts must still reach every part of the table, not
    # restart at its first piece on every frame while a card lands elsewhere unread
    view = _identity_view()
    src = DetectorSightings(BlobDetector(), px_per_mm=1.0, stride=1, full_every_s=1e9)
    image = _table_with_indices([(850 - 24.8, 650 - 31.4, 0), (850 + 24.8, 650 + 31.4, 2)])
    across = [(0.0, 0.0, 1000.0, 560.0)]  # 70% of the region, away from the card
    looked, seen = [], []
    for i in range(12):
        seen += [s.label for s in src.sightings(i, i / 30, image, view.calibration, view, changed_mm=across)]
        looked += src.looked_mm
    assert "5H" in seen
    for x in range(50, 1000, 100):  # the whole region was looked at
        for y in range(50, 800, 100):
            assert any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in looked), (x, y)


def test_when_more_changes_than_calls_a_part_passed_over_too_long_goes_first():
    # four arms over the table's quarters (one detector view each, the fourth coming and going
    # frame by frame) and a card waiting for reads in the middle: with two calls a frame, a
    # turn counting places in a list that changes every frame never reached the middle (fresh
    # clip 5611: a contested 4C left unread for 0.6 s, never landed). A view that has waited
    # max_wait_s goes first.
    view = _identity_view()
    src = DetectorSightings(BlobDetector(), px_per_mm=1.0, stride=1, full_every_s=1e9)
    src.recent_s = 0.0  # only this frame's changes: the list of views changes every frame
    image = _table_with_indices([(500 - 24.8, 400 - 31.4, 0), (500 + 24.8, 400 + 31.4, 2)])
    src.sightings(0, 0.0, image, view.calibration, view, changed_mm=[(0, 0, 1000, 800)])
    quarters = [(20, 20, 320, 320), (680, 20, 980, 320), (20, 480, 320, 780), (680, 480, 980, 780)]
    card = [(450, 350, 550, 450)]
    read, looked = [], []
    for i in range(1, 41):
        changed = quarters[:3] + quarters[3:] * (i % 2)
        out = src.sightings(i, 10 + i / 30, image, view.calibration, view, changed_mm=changed, watch_mm=card)
        read.append(any(s.label == "5H" for s in out))
        looked.append(list(src.looked_mm))
    frames = int(src.max_wait_s * 30) + 2  # the longest wait, and the frame that ends it
    assert sum(read) >= 3
    assert all(any(read[i:i + frames]) for i in range(len(read) - frames + 1))
    for q in quarters:  # the turn still reaches every quarter
        cx, cy = (q[0] + q[2]) / 2, (q[1] + q[3]) / 2
        seen = [any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in frame) for frame in looked]
        assert all(any(seen[i:i + frames]) for i in range(len(seen) - frames + 1)), q


def test_look_waits_count_from_the_first_ask_until_looked_at():
    waits = LookWaits((0.0, 0.0, 400.0, 400.0), cell_mm=40.0)
    assert waits.waited((0, 0, 400, 400), 1.0) == 0.0  # nothing asked for
    waits.asked([(0, 0, 200, 400)], 1.0)
    waits.asked([(0, 0, 400, 400)], 2.0)  # asked again: the left half still waits from 1.0
    assert waits.waited((0, 0, 400, 400), 3.0) == pytest.approx(2.0)
    assert waits.waited((250, 0, 400, 400), 3.0) == pytest.approx(1.0)
    waits.looked((0, 0, 200, 400))
    assert waits.waited((0, 0, 400, 400), 3.0) == pytest.approx(1.0)  # only the right half waits
    waits.asked([(0, 0, 200, 400)], 4.0)  # the right half no longer asked for: no longer waiting
    assert waits.waited((250, 0, 400, 400), 5.0) == 0.0
    assert waits.waited((390, 390, 395, 395), 5.0) == 0.0  # a box smaller than a cell: its cell
