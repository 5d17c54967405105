"""Motion gating: nothing on a still table, the changed region when a card moves, no flicker alarm."""

from __future__ import annotations

import cv2
import numpy as np

from vision.motion import MotionGate


def _table():
    rng = np.random.default_rng(0)
    img = np.full((240, 320, 3), (50, 100, 40), np.uint8)
    img += rng.integers(0, 6, img.shape, dtype=np.uint8)  # cloth texture
    return img


def test_still_table_costs_nothing_and_a_moving_card_is_found():
    gate = MotionGate(scale=0.5)
    table = _table()
    gate.update(table)
    assert all(gate.update(table) == [] for _ in range(20))
    moved = table.copy()
    moved[100:140, 200:230] = 230
    boxes = gate.update(moved)
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    assert x0 <= 200 and y0 <= 100 and x1 >= 230 and y1 >= 140
    assert (x1 - x0) * (y1 - y0) < 0.1 * 320 * 240  # only there, not the whole table
    assert gate.active_fraction < 0.15


def test_flickering_light_is_not_motion():
    gate = MotionGate(scale=0.5)
    table = _table()
    gate.update(table)
    for k in range(10):
        lit = np.clip(table.astype(int) + (12 if k % 2 else -12), 0, 255).astype(np.uint8)
        assert gate.update(lit) == []


def test_a_slow_slide_accumulates_until_noticed():
    gate = MotionGate(scale=0.25, threshold=18)
    table = _table()
    table[100:140, 100:130] = 200
    gate.update(table)
    gate.update(table)
    per_frame = []
    for k in range(1, 12):
        img = _table()
        img[100:140, 100 + k:130 + k] = 200  # a card creeping one pixel per frame
        per_frame.append(bool(gate.update(img)))
    assert not per_frame[0]  # one pixel at quarter scale is below the threshold...
    assert any(per_frame)  # ...but against the last still frame the slide adds up


def test_a_busy_corner_does_not_keep_a_settled_card_changed():
    gate = MotionGate(scale=0.5)
    table = _table()
    gate.update(table)
    landed = table.copy()
    landed[40:80, 40:70] = 230  # a card lands top left...
    boxes = []
    for k in range(12):
        img = landed.copy()
        img[150 + (k % 2) * 20:190 + (k % 2) * 20, 250:290] = 200  # ...while a hand keeps moving bottom right
        boxes = gate.update(img)
    assert boxes and all(x0 >= 200 and y0 >= 120 for x0, y0, _, _ in boxes)  # only the hand


def test_fresh_is_what_changed_since_the_detector_last_looked():
    gate = MotionGate(scale=0.5)
    table = _table()
    gate.update(table)
    assert gate.fresh() == [(0, 0, 320, 240)]  # never looked: everything is news
    gate.mark_looked(None)
    hand = table.copy()
    hand[150:200, 250:300] = 200  # a hand comes in and rests
    assert gate.update(hand) and gate.fresh()
    gate.mark_looked(gate.fresh())
    for _ in range(5):
        gate.update(hand)
        assert gate.fresh() == []  # nothing new where the detector looked
    card = hand.copy()
    card[40:80, 40:70] = 230  # a card lands elsewhere on a frame the detector skips
    gate.update(card)
    gate.update(card)
    (box,) = gate.fresh()  # news until the detector looks there
    assert box[0] <= 40 and box[2] >= 70 and box[3] <= 120
    gate.mark_looked([box])
    gate.update(card)
    assert gate.fresh() == []
    assert gate.last_mask is not None and gate.last_mask.shape == (120, 160)


def test_a_sleeve_of_the_cloths_brightness_is_still_an_arm():
    # a purple sleeve reaching over green felt: nearly the same grey level, another colour (fresh
    # clip 5760: such an arm was missing from the arm watcher's blobs and its contest copy lost)
    table = _table()
    sleeve = table.copy()
    sleeve[100:130, 160:320] = (120, 30, 150)  # BGR, grey ~76 like the cloth's (50, 100, 40)
    grey = cv2.cvtColor(sleeve, cv2.COLOR_BGR2GRAY).astype(int) - cv2.cvtColor(table, cv2.COLOR_BGR2GRAY)
    assert abs(grey[100:130, 160:320]).max() <= 6  # nothing a grey difference could see
    masks = {}
    for chroma in (None, 30):
        gate = MotionGate(scale=0.5, chroma_threshold=chroma)
        gate.update(table)
        gate.update(table)
        assert gate.update(sleeve) == []  # the detector has nothing new to read there...
        masks[chroma] = gate.arm_mask
    assert not masks[None].any()
    ys, xs = np.nonzero(masks[30])  # ...but the arm watcher sees the arm
    assert ys.min() <= 50 and ys.max() >= 64 and xs.min() <= 80 and xs.max() == 159


def test_light_turning_warmer_is_no_arm():
    gate = MotionGate(scale=0.5)
    table = _table()
    gate.update(table)
    gate.update(table)
    warm = np.clip(table.astype(int) + (-50, 0, 50), 0, 255).astype(np.uint8)  # BGR: less blue, more red
    assert gate.update(warm) == []
    assert not gate.arm_mask.any()
