"""Frame capture: camera index, video file or stream URL, on one clock.

Every frame carries an ``index`` and a capture time ``t`` (seconds). For a video file ``t`` is the
container's presentation time (pts x time base, starting at 0), so a ruling's time is the footage
time and can be shown in the footage. For a live source ``t`` is ``time.monotonic()`` minus the
moment capture started, and the index counts frames actually delivered plus frames the camera
visibly skipped.

Dropped frames (a pts jump or an interval much longer than the nominal one) and camera loss are
reported as :class:`Gap` records; a live source keeps running through a loss and reconnects with
backoff so the referee never stops because a USB cable wobbled.

>>> gaps = GapDetector(fps=30.0)
>>> gaps.check(0, 0.0), gaps.check(1, 1 / 30), gaps.check(4, 4 / 30)
(None, None, Gap(start_t=0.0333, end_t=0.1333, missing=2, reason='dropped'))
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


class CaptureError(Exception):
    """A source that cannot be opened or that broke mid-stream (the message says which and why)."""


@dataclass
class Frame:
    """One captured frame: index on the source, capture time ``t`` (s), BGR pixels."""

    index: int
    t: float
    image: np.ndarray


@dataclass(frozen=True)
class Gap:
    """An interval without frames: ``dropped`` frames or a ``camera_lost`` blind interval."""

    start_t: float
    end_t: float
    missing: int
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "start_t", round(self.start_t, 4))
        object.__setattr__(self, "end_t", round(self.end_t, 4))

    def to_dict(self) -> dict[str, Any]:
        return {"start_t": self.start_t, "end_t": self.end_t, "missing": self.missing, "reason": self.reason}


class GapDetector:
    """Notices missing frames from frame indices (or, when the index is implicit, from intervals)."""

    def __init__(self, fps: float, tolerance: float = 1.5) -> None:
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.tolerance = tolerance
        self._last: tuple[int, float] | None = None

    def check(self, index: int, t: float) -> Gap | None:
        last, self._last = self._last, (index, t)
        if last is None:
            return None
        missing = index - last[0] - 1
        if missing <= 0 and self.period > 0:
            # Index given by arrival order: fall back to the interval (a camera that skipped).
            missing = int(round((t - last[1]) / self.period)) - 1 if (t - last[1]) > self.tolerance * self.period else 0
        if missing > 0:
            return Gap(last[1], t, missing, "dropped")
        return None


class FrameSource:
    """Iterable of :class:`Frame`; ``gaps`` collects what was missing, ``info`` describes the source."""

    fps: float = 30.0
    width: int = 0
    height: int = 0
    live: bool = False
    description: str = ""

    def __init__(self) -> None:
        self.gaps: list[Gap] = []
        self._unread_gaps = 0

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def take_gaps(self) -> list[Gap]:
        """Gaps found since the last call (the pipeline logs and reviews them)."""
        new = self.gaps[self._unread_gaps :]
        self._unread_gaps = len(self.gaps)
        return new

    def close(self) -> None:
        pass


class VideoFileSource(FrameSource):
    """A video file decoded with PyAV; ``t`` is the pts in seconds from the first frame.

    A corrupt or truncated file raises :class:`CaptureError` *after* every decodable frame has been
    yielded, so what was analysed (and logged) up to the damage is kept.
    """

    def __init__(self, path: str | Path, threads: int = 0) -> None:
        super().__init__()
        import av

        self.path = Path(path)
        self.description = str(self.path)
        if not self.path.is_file():
            raise CaptureError(f"video file not found: {self.path}")
        try:
            self._container = av.open(str(self.path))
        except (av.error.FFmpegError, OSError, ValueError) as exc:
            raise CaptureError(f"cannot open video {self.path}: {exc}") from exc
        if not self._container.streams.video:
            self._container.close()
            raise CaptureError(f"no video stream in {self.path}")
        self._stream = self._container.streams.video[0]
        self._stream.thread_type = "AUTO"
        if threads:
            self._stream.codec_context.thread_count = threads
        # The nominal rate, not the average: an average over a recording with drops is too low.
        rate = self._stream.codec_context.framerate or self._stream.guessed_rate or self._stream.average_rate
        self.fps = float(rate) if rate else 30.0
        self.width = self._stream.codec_context.width
        self.height = self._stream.codec_context.height
        self.frame_count = int(self._stream.frames or 0)
        duration = self._stream.duration
        self.duration_s = float(duration * self._stream.time_base) if duration else (
            self.frame_count / self.fps if self.frame_count else 0.0
        )
        self.frames_read = 0

    def __iter__(self) -> Iterator[Frame]:
        """Frames in order; decoding runs one step ahead in a worker thread (FFmpeg releases the
        GIL), errors are raised here after the frames decoded before them."""
        import queue
        import threading

        q: queue.Queue = queue.Queue(maxsize=6)
        stop = threading.Event()

        def work() -> None:
            try:
                for frame in self._decode():
                    while not stop.is_set():
                        try:
                            q.put(frame, timeout=0.1)
                            break
                        except queue.Full:
                            continue
                    if stop.is_set():
                        return
                q.put(None)
            except BaseException as exc:
                q.put(exc)

        worker = threading.Thread(target=work, name="video-decoder", daemon=True)
        worker.start()
        try:
            while True:
                item = q.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            worker.join(timeout=5)

    def _decode(self) -> Iterator[Frame]:
        import av

        detector = GapDetector(self.fps)
        t0: float | None = None
        last_t = -1.0
        try:
            for vframe in self._container.decode(self._stream):
                if vframe.pts is None:
                    t_abs = last_t + 1.0 / self.fps if t0 is not None else 0.0
                else:
                    t_abs = float(vframe.pts * vframe.time_base)
                if t0 is None:
                    t0 = t_abs
                t = t_abs - t0
                if t <= last_t:  # non-monotonic pts: keep the clock monotonic
                    t = last_t + 1e-6
                index = int(round(t * self.fps))
                gap = detector.check(index, t)
                if gap:
                    self.gaps.append(gap)
                last_t = t
                self.frames_read += 1
                yield Frame(index, t, vframe.to_ndarray(format="bgr24"))
        except av.error.FFmpegError as exc:
            raise CaptureError(
                f"video {self.path} is damaged after frame {self.frames_read} (t={max(last_t, 0):.3f}s): {exc}"
            ) from exc
        if self.frame_count and self.frames_read < self.frame_count * 0.98 - 1:
            raise CaptureError(
                f"video {self.path} is truncated: {self.frames_read} of {self.frame_count} frames decoded"
            )
        if self.frames_read == 0:
            raise CaptureError(f"video {self.path} has no decodable frames")

    def close(self) -> None:
        self._container.close()


Opener = Callable[[], Any]
"""Returns an object with ``read() -> (ok, image)``, ``isOpened()`` and ``release()`` (cv2.VideoCapture)."""


@dataclass
class Backoff:
    """Reconnect delays: ``first`` seconds, doubling up to ``maximum``."""

    first: float = 0.25
    maximum: float = 5.0
    _next: float = field(default=0.0, init=False)

    def reset(self) -> None:
        self._next = self.first

    def next(self) -> float:
        delay = self._next or self.first
        self._next = min(delay * 2, self.maximum)
        return delay


class LiveSource(FrameSource):
    """A camera or stream read through OpenCV, stamped with ``time.monotonic()`` at capture.

    When the source stops delivering frames it is released and reopened with exponential backoff;
    the blind interval becomes a ``camera_lost`` :class:`Gap` and iteration continues. Iteration ends
    when ``stop()`` is called, or when ``give_up_after`` seconds pass without a frame.
    """

    live = True

    def __init__(
        self,
        opener: Opener,
        description: str,
        fps: float = 30.0,
        give_up_after: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        backoff: Backoff | None = None,
    ) -> None:
        super().__init__()
        self._opener = opener
        self.description = description
        self.fps = fps
        self.give_up_after = give_up_after
        self._clock = clock
        self._sleep = sleep
        self._backoff = backoff or Backoff()
        self._stopped = False
        self._cap = self._open_first()
        self._t0 = clock()

    def _open_first(self) -> Any:
        cap = self._opener()
        if cap is None or not cap.isOpened():
            raise CaptureError(f"cannot open {self.description} (is it connected and free?)")
        ok, image = cap.read()
        if not ok or image is None:
            cap.release()
            raise CaptureError(f"{self.description} opened but delivers no frames")
        self.height, self.width = image.shape[:2]
        self._first_image: np.ndarray | None = image
        return cap

    def stop(self) -> None:
        self._stopped = True

    def __iter__(self) -> Iterator[Frame]:
        detector = GapDetector(self.fps)
        index = 0
        last_t = 0.0
        if self._first_image is not None:
            image, self._first_image = self._first_image, None
            yield Frame(0, 0.0, image)
            detector.check(0, 0.0)
            index = 1
        while not self._stopped:
            ok, image = (False, None)
            if self._cap is not None:
                ok, image = self._cap.read()
            t = self._clock() - self._t0
            if ok and image is not None:
                gap = detector.check(index, t)
                if gap:
                    # The camera skipped frames: advance the index so it stays on the video clock.
                    index += gap.missing
                    self.gaps.append(gap)
                    detector._last = (index, t)
                yield Frame(index, t, image)
                last_t = t
                index += 1
                continue
            # Lost: reconnect with backoff until a frame arrives again.
            lost_at = last_t
            self._backoff.reset()
            while not self._stopped:
                if self._cap is not None:
                    self._cap.release()
                    self._cap = None
                now = self._clock() - self._t0
                if self.give_up_after is not None and now - lost_at > self.give_up_after:
                    self.gaps.append(Gap(lost_at, now, int((now - lost_at) * self.fps), "camera_lost"))
                    raise CaptureError(
                        f"{self.description} lost at t={lost_at:.2f}s and not back after {self.give_up_after:.0f}s"
                    )
                self._sleep(self._backoff.next())
                cap = self._opener()
                if cap is not None and cap.isOpened():
                    ok, image = cap.read()
                    if ok and image is not None:
                        self._cap = cap
                        back = self._clock() - self._t0
                        missing = max(int(round((back - lost_at) * self.fps)) - 1, 0)
                        self.gaps.append(Gap(lost_at, back, missing, "camera_lost"))
                        index += missing
                        detector._last = (index, back)
                        yield Frame(index, back, image)
                        last_t = back
                        index += 1
                        break
                    cap.release()

    def close(self) -> None:
        self._stopped = True
        if self._cap is not None:
            self._cap.release()
            self._cap = None


_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def open_source(spec: str | int, fps: float = 30.0, width: int = 0, height: int = 0,
                give_up_after: float | None = None) -> FrameSource:
    """Open ``spec``: an int / digit string (camera index), a URL (stream) or a video file path."""
    import cv2

    text = str(spec).strip()
    if text.isdigit():
        index = int(text)

        def opener() -> Any:
            cap = cv2.VideoCapture(index)
            if width and height:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            if fps:
                cap.set(cv2.CAP_PROP_FPS, fps)
            return cap

        return LiveSource(opener, f"camera {index}", fps=fps, give_up_after=give_up_after)
    if _URL.match(text) and not text.lower().startswith("file://"):
        return LiveSource(lambda: cv2.VideoCapture(text), f"stream {text}", fps=fps, give_up_after=give_up_after)
    return VideoFileSource(text.removeprefix("file://"))
