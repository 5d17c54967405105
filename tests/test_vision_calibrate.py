"""Calibration: ArUco markers → homography (re-checked), manual fallback, marker sheet, config."""

from __future__ import annotations

import numpy as np
import pytest

from vision.calibrate import (CalibrationError, CalibrationMonitor, Rectifier, calibrate, find_markers,
                              marker_sheet)
from vision.config import ConfigError, VisionConfig
from vision.synthetic import SyntheticScene


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    scene = SyntheticScene(players=["ana", "ben"], seed=2)
    scene.play("AH", "ana", 0, 0.5)
    paths = scene.render_clip(tmp_path_factory.mktemp("cal"), 1.0, size=(640, 360))
    from vision.capture import VideoFileSource

    frames = list(VideoFileSource(paths["video"]))
    return paths, frames, scene


def test_markers_give_a_homography_that_maps_the_table(clip):
    paths, frames, scene = clip
    cfg = VisionConfig.load(paths["config"])
    cal = calibrate(frames[0].image, cfg)
    assert cal.source == "markers"
    # The manual corners in the config are the true table corners: markers must agree with them.
    corners_mm = cal.to_table(np.array(cfg.calibration.corners))
    W, H = cfg.zones.table_mm
    assert corners_mm == pytest.approx(np.array([(0, 0), (W, 0), (W, H), (0, H)]), abs=6.0)


def test_manual_corners_when_markers_are_missing(clip):
    paths, frames, _ = clip
    cfg = VisionConfig.load(paths["config"])
    blank = frames[0].image.copy()
    blank[:] = 50  # no markers visible
    cal = calibrate(blank, cfg)
    assert cal.source == "manual"
    no_corners = VisionConfig.from_dict({**cfg.raw, "calibration": {"markers": "aruco_4x4_50"}})
    with pytest.raises(CalibrationError, match=r"markers \[0, 1, 2, 3\] not found.*markers --out"):
        calibrate(blank, no_corners)


def test_a_bumped_camera_is_noticed_and_recalibrated(clip):
    import cv2

    paths, frames, _ = clip
    cfg = VisionConfig.load(paths["config"])
    cal = calibrate(frames[0].image, cfg)
    mon = CalibrationMonitor(cal, cfg)
    assert mon.check(frames[0].image, 10.0).bumped is False
    shifted = cv2.warpAffine(frames[0].image, np.float32([[1, 0, 9], [0, 1, -6]]), (640, 360))
    res = mon.check(shifted, 20.0)
    assert res.bumped and res.moved_px == pytest.approx(np.hypot(9, 6), abs=1.5)
    assert mon.calibration is res.calibration
    assert mon.check(shifted, 20.5) is None  # not due yet: re-checks are periodic, not per frame


def test_rectifier_round_trip(clip):
    paths, frames, _ = clip
    cfg = VisionConfig.load(paths["config"])
    cal = calibrate(frames[0].image, cfg)
    r = Rectifier(cal, (300, 225, 900, 675), px_per_mm=0.5)
    assert r.size == (300, 225)
    assert r.warp(frames[0].image).shape == (225, 300, 3)
    assert r.to_mm(r.to_px(np.array([[450.0, 300.0]]))) == pytest.approx(np.array([[450.0, 300.0]]))


def test_marker_sheet_prints_four_detectable_markers(tmp_path):
    import cv2

    path = marker_sheet(tmp_path / "sheet.png", marker_mm=50)
    found = find_markers(cv2.imread(str(path)))
    assert sorted(found) == [0, 1, 2, 3]
    # laid out as on the table: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
    assert found[0][0] < found[1][0] and found[3][0] < found[2][0]
    assert found[0][1] < found[3][1] and found[1][1] < found[2][1]


@pytest.mark.parametrize("data, message", [
    ({"zones": {"table_mm": [0, 900]}}, "zones.table_mm"),
    ({"zones": {"table_mm": [1200, 900], "common": [[0, 0], [2000, 0], [2000, 10]]}}, r"zones.common\[1\]"),
    ({"calibration": {"corners": [[0, 0], [1, 1]]}}, "calibration.corners"),
    ({"calibration": {"markers": "apriltag"}}, "calibration.markers"),
    ({"camera": {"fps": -3}}, "camera.fps"),
])
def test_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        VisionConfig.from_dict(data)
