"""Footage recording: H.264 in fragmented MP4 (playable after a crash) + the frame→time table.

Fragmented MP4 (``movflags=frag_keyframe+empty_moov``) writes the header first and a
self-contained fragment at every keyframe, so a recording cut by a crash or a pulled plug still
plays up to its last fragment. A keyframe each second bounds what a crash can lose to about one
second. Each frame is written with its capture time as pts (90 kHz time base), and its
``(index, t)`` row goes to the event log (``log.add_frames``) in small batches, so every ruling can
be found in the footage.
"""

from __future__ import annotations

import queue
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import numpy as np


class FrameTable(Protocol):
    def add_frames(self, rows: list[tuple[int, float]]) -> Any: ...


class RecordError(Exception):
    """The footage file cannot be created or written."""


class FootageRecorder:
    """Writes frames to ``path``; ``write(index, t, image)``, then ``close()`` (also a context manager).

    ``log`` (optional) receives ``add_frames`` rows every ``flush_every`` frames and on close.
    """

    TIME_BASE = Fraction(1, 90000)  # the usual video clock: exact at 30 and 60 fps

    def __init__(
        self,
        path: str | Path,
        width: int,
        height: int,
        fps: float = 30.0,
        log: FrameTable | None = None,
        flush_every: int = 30,
        crf: int = 28,
        preset: str = "ultrafast",
        threads: int = 1,
        background: bool = True,
    ) -> None:
        import av

        self.path = Path(path)
        self.log = log
        self.flush_every = flush_every
        self._rows: list[tuple[int, float]] = []
        self.frames_written = 0
        self._last_pts = -1
        if width % 2 or height % 2:
            raise RecordError(f"H.264 needs even frame sizes, got {width}x{height}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._container = av.open(
                str(self.path),
                mode="w",
                format="mp4",
                options={"movflags": "frag_keyframe+empty_moov+default_base_moof",
                         "flush_packets": "1"},  # each fragment reaches the file at once
            )
        except (OSError, av.error.FFmpegError) as exc:
            raise RecordError(f"cannot create footage file {self.path}: {exc}") from exc
        rate = Fraction(fps).limit_denominator(1001)
        codec = "libx264" if "libx264" in av.codecs_available else "h264"
        self._stream = self._container.add_stream(codec, rate=rate)
        self._stream.width = width
        self._stream.height = height
        self._stream.pix_fmt = "yuv420p"
        self._stream.time_base = self.TIME_BASE
        self._stream.codec_context.time_base = self.TIME_BASE
        gop = max(int(round(fps)), 1)
        self._stream.codec_context.gop_size = gop
        self._stream.codec_context.thread_count = threads
        self._stream.options = {
            "preset": preset,
            "tune": "zerolatency",
            "crf": str(crf),
            "g": str(gop),
            "keyint_min": str(gop),
        }
        self.width, self.height = width, height
        # Encoding runs in a worker thread (FFmpeg releases the GIL), so on two cores the
        # pipeline and the encoder overlap; a short queue bounds what a crash could lose.
        self._error: BaseException | None = None
        self._queue: queue.Queue | None = None
        self._worker: threading.Thread | None = None
        if background:
            self._queue = queue.Queue(maxsize=8)
            self._worker = threading.Thread(target=self._run, name="footage-encoder", daemon=True)
            self._worker.start()

    def _encode(self, image: np.ndarray, pts: int) -> None:
        import av

        vframe = av.VideoFrame.from_ndarray(image, format="bgr24")
        vframe.pts = pts
        vframe.time_base = self.TIME_BASE
        for packet in self._stream.encode(vframe):
            self._container.mux(packet)

    def _run(self) -> None:
        assert self._queue is not None
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._error is None:
                try:
                    self._encode(*item)
                except BaseException as exc:  # reported to the caller at its next write/close
                    self._error = exc

    def write(self, index: int, t: float, image: np.ndarray) -> None:
        """Encode one BGR frame stamped with capture time ``t`` (seconds)."""
        if self._error is not None:
            raise RecordError(f"recording {self.path} failed: {self._error}")
        if image.shape[0] != self.height or image.shape[1] != self.width:
            raise RecordError(
                f"frame {index} is {image.shape[1]}x{image.shape[0]}, recording is {self.width}x{self.height}"
            )
        pts = int(round(t * 90000))
        if pts <= self._last_pts:  # two frames on one tick: keep pts strictly increasing
            pts = self._last_pts + 1
        self._last_pts = pts
        if self._queue is not None:
            self._queue.put((image, pts))
        else:
            self._encode(image, pts)
        self.frames_written += 1
        self._rows.append((index, t))
        if len(self._rows) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        """Hand pending frame-index→time rows to the log (durable there)."""
        if self._rows and self.log is not None:
            self.log.add_frames(self._rows)
        self._rows = []

    def close(self) -> None:
        if self._worker is not None and self._queue is not None:
            self._queue.put(None)
            self._worker.join()
            self._worker = None
        try:
            for packet in self._stream.encode(None):
                self._container.mux(packet)
        finally:
            self._container.close()
            self.flush()
        if self._error is not None:
            raise RecordError(f"recording {self.path} failed: {self._error}")

    def __enter__(self) -> "FootageRecorder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
