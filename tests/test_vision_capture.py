"""Capture: frame indices and timestamps, dropped frames, camera loss, damaged files."""

from __future__ import annotations

import numpy as np
import pytest

from vision.capture import Backoff, CaptureError, Gap, GapDetector, LiveSource, VideoFileSource, open_source
from vision.record import FootageRecorder


def _write(path, n=40, skip=(), size=(64, 48), fps=30):
    with FootageRecorder(path, size[0], size[1], fps) as rec:
        for i in range(n):
            if i in skip:
                continue
            rec.write(i, i / fps, np.full((size[1], size[0], 3), (i * 5) % 255, np.uint8))


def test_file_frames_carry_pts_time_and_index(tmp_path):
    path = tmp_path / "a.mp4"
    _write(path, n=30)
    src = VideoFileSource(path)
    frames = list(src)
    assert src.fps == pytest.approx(30.0)
    assert [f.index for f in frames] == list(range(30))
    assert frames[10].t == pytest.approx(10 / 30, abs=1e-4)
    assert all(b.t > a.t for a, b in zip(frames, frames[1:]))  # one monotonic clock
    assert src.gaps == []


def test_dropped_frames_are_detected_from_pts(tmp_path):
    path = tmp_path / "drops.mp4"
    _write(path, n=40, skip={20, 21, 22})
    src = VideoFileSource(path)
    frames = list(src)
    assert len(frames) == 37
    assert 23 in [f.index for f in frames] and 20 not in [f.index for f in frames]
    assert src.gaps == [Gap(19 / 30, 23 / 30, 3, "dropped")]
    assert src.take_gaps() == src.gaps and src.take_gaps() == []


def test_damaged_file_yields_good_frames_then_a_clear_error(tmp_path):
    path = tmp_path / "a.mp4"
    _write(path, n=60, size=(160, 120))
    data = bytearray(path.read_bytes())
    # scribble over the second half: the first fragments stay decodable
    for k in range(len(data) // 2, len(data), 7):
        data[k] = (data[k] * 31 + 7) % 256
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    src = VideoFileSource(bad)
    seen = []
    try:
        for f in src:
            seen.append(f.index)
    except CaptureError as exc:
        assert "bad.mp4" in str(exc)
    assert len(seen) >= 10  # what could be read was delivered before any error


def test_unopenable_file_and_missing_file(tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a video at all" * 10)
    with pytest.raises(CaptureError, match="cannot open video|no video stream"):
        VideoFileSource(junk)
    with pytest.raises(CaptureError, match="not found"):
        open_source(str(tmp_path / "missing.mp4"))


class FakeCamera:
    """A cv2.VideoCapture stand-in driven by a shared schedule: which clock times deliver frames."""

    def __init__(self, clock, alive):
        self.clock, self.alive, self.open = clock, alive, alive(clock.now)

    def isOpened(self):
        return self.open

    def read(self):
        self.clock.now += 1 / 30
        if self.open and self.alive(self.clock.now):
            return True, np.zeros((8, 8, 3), np.uint8)
        self.open = False
        return False, None

    def release(self):
        self.open = False


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.slept = []

    def __call__(self):
        return self.now

    def sleep(self, s):
        self.slept.append(s)
        self.now += s


def test_camera_loss_keeps_running_reconnects_with_backoff_and_reports_blind_interval():
    clock = FakeClock()
    alive = lambda t: not (1.0 < t < 2.0)  # unplugged for one second
    src = LiveSource(lambda: FakeCamera(clock, alive), "camera 0", fps=30, clock=clock, sleep=clock.sleep,
                     backoff=Backoff(first=0.1, maximum=0.4))
    frames = []
    for f in src:
        frames.append(f)
        if f.t > 3.0:
            src.stop()
    lost = [g for g in src.gaps if g.reason == "camera_lost"]
    assert len(lost) == 1
    assert lost[0].start_t == pytest.approx(1.0, abs=0.05) and lost[0].end_t >= 2.0
    assert clock.slept[:3] == [0.1, 0.2, 0.4] and max(clock.slept) == 0.4  # doubling, capped
    # the index jumps over the blind interval, so it stays on the video clock
    after = [f for f in frames if f.t >= lost[0].end_t][0]
    assert after.index == pytest.approx(after.t * 30, abs=2)
    assert frames[-1].t > 3.0


def test_camera_that_cannot_be_opened_is_a_clear_error():
    class Dead:
        def isOpened(self):
            return False

        def release(self):
            pass

    with pytest.raises(CaptureError, match="cannot open camera 7"):
        LiveSource(lambda: Dead(), "camera 7")


def test_camera_gone_for_good_ends_with_error_after_give_up():
    clock = FakeClock()
    src = LiveSource(lambda: FakeCamera(clock, lambda t: t < 0.5), "camera 0", clock=clock, sleep=clock.sleep,
                     give_up_after=3.0)
    got = []
    with pytest.raises(CaptureError, match="lost at"):
        for f in src:
            got.append(f)
    assert got and src.gaps[-1].reason == "camera_lost"


def test_gap_detector_without_index_jumps_uses_intervals():
    g = GapDetector(fps=30)
    assert g.check(0, 0.0) is None
    assert g.check(1, 0.2).missing == 5  # a live camera that delivered late: 5 frames were skipped
