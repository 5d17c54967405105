"""Hard-negative mining for the classifier's ``_none`` class (models/recipe/mine_none.py)."""

from __future__ import annotations

import numpy as np

from models.recipe.mine_none import false_alarms, mine_image
from vision.detector import Sighting, square_crop

INDEX_BOX = (40.0, 40.0, 60.0, 80.0)  # the labelled index
FALSE_BOX = (150.0, 100.0, 170.0, 140.0)  # stage 1 fired on card art far from any index


class StubDetector:
    """Stage 1 finds the labelled index and one false alarm; the classifier reads every crop as a
    card, surest when the crop is turned by 180 degrees (the orientation that fooled it)."""

    cls_classes = ["5H", "KD", "_none"]

    def __init__(self, sightings: list[Sighting]):
        self.sightings = sightings
        self.turn_calls: list[int] = []

    def detect(self, image):
        return list(self.sightings)

    def classify_crops(self, crops):
        self.turn_calls.append(len(crops))
        probs = np.tile([[0.5, 0.1, 0.4]], (len(crops), 1)).astype(np.float32)
        probs[1] = [0.1, 0.85, 0.05]  # the second turn tried (180 degrees for a tall box)
        return probs


def _image() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (200, 240, 3), dtype=np.uint8)


def test_false_alarms_keeps_only_boxes_matching_no_index():
    loose = (38.0, 36.0, 64.0, 86.0)  # a sloppy box on the same index: not a negative
    assert false_alarms([INDEX_BOX, FALSE_BOX, loose], [INDEX_BOX]) == [1]


def test_oversized_box_around_an_index_is_not_a_negative():
    big = (20.0, 10.0, 140.0, 130.0)  # holds the whole index, centre outside it, IoU small
    assert false_alarms([big], [INDEX_BOX]) == []
    assert false_alarms([big], []) == [0]  # with no index under it, it is one


def test_mine_image_returns_only_the_false_box_in_the_fooling_turn():
    img = _image()
    det = StubDetector([Sighting("5H", 0.9, INDEX_BOX, "index", 0.9, 0.9),
                        Sighting("KD", 0.5, FALSE_BOX, "index", 0.6, 0.85),
                        Sighting("BACK", 0.8, (0.0, 0.0, 30.0, 50.0), "back", 0.8, 1.0)])
    crops = mine_image(det, img, [INDEX_BOX], size=64)
    assert len(crops) == 1
    # tall box: inference tries turns 0 and 180; the 180-degree one read surest as a card
    assert det.turn_calls == [2]
    assert np.array_equal(crops[0], np.rot90(square_crop(img, FALSE_BOX, 64), 2))
    assert crops[0].shape == (64, 64, 3) and crops[0].dtype == np.uint8


def test_mine_image_skips_confident_boxes_when_labels_may_be_incomplete():
    det = StubDetector([Sighting("KD", 0.5, FALSE_BOX, "index", 0.6, 0.85)])
    assert mine_image(det, _image(), [INDEX_BOX], max_det_conf=0.3) == []
    assert len(mine_image(det, _image(), [INDEX_BOX], max_det_conf=1.0)) == 1
