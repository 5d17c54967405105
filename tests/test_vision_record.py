"""Recording: fragmented MP4 that plays after a crash, and the frame→time table in the log."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from vision.capture import VideoFileSource
from vision.record import FootageRecorder, RecordError


def test_recording_round_trips_timestamps_and_fills_the_frame_table(tmp_path):
    from referee.eventlog import EventLog

    log = EventLog.open(tmp_path / "game.db")
    times = [0.0, 0.033, 0.070, 0.101, 0.2, 0.234]  # a live camera's uneven clock
    with FootageRecorder(tmp_path / "f.mp4", 64, 48, fps=30, log=log, flush_every=4) as rec:
        for i, t in enumerate(times):
            rec.write(i, t, np.zeros((48, 64, 3), np.uint8))
    assert log.frames() == [(i, pytest.approx(t)) for i, t in enumerate(times)]
    decoded = [f.t for f in VideoFileSource(tmp_path / "f.mp4")]
    assert decoded == pytest.approx(times, abs=1e-4)
    log.close()


def test_footage_written_before_a_crash_still_plays(tmp_path):
    path = tmp_path / "crash.mp4"
    child = textwrap.dedent(f"""
        import sys, time, numpy as np
        sys.path.insert(0, {str(os.getcwd())!r})
        from vision.record import FootageRecorder
        rec = FootageRecorder({str(path)!r}, 96, 64, fps=30)
        i = 0
        while True:
            rec.write(i, i / 30, np.full((64, 96, 3), i % 250, np.uint8))
            if i == 75:
                print("written", flush=True)
            i += 1
            time.sleep(0.002)
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "written"
        time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)  # no close(), no trailer: like a pulled plug
        proc.wait()
    frames = list(VideoFileSource(path))
    # keyframe (hence a complete fragment) every second: everything up to the last full second
    assert len(frames) >= 60
    assert [f.index for f in frames[:60]] == list(range(60))


def test_odd_sizes_and_wrong_frames_are_refused(tmp_path):
    with pytest.raises(RecordError, match="even"):
        FootageRecorder(tmp_path / "x.mp4", 63, 48)
    with FootageRecorder(tmp_path / "y.mp4", 64, 48) as rec:
        with pytest.raises(RecordError, match="64x48"):
            rec.write(0, 0.0, np.zeros((10, 10, 3), np.uint8))
