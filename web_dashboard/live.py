"""The live frame hub: the vision pipeline publishes annotated JPEG frames, the dashboard reads them.

The pipeline thread must never wait for a spectator. ``publish`` only swaps a reference and
wakes waiters; every reader (one thread per MJPEG client) picks up the *latest* frame when it is
ready, so a slow phone skips frames instead of slowing the camera.

>>> hub = FrameHub()
>>> hub.latest() is None
True
>>> hub.publish(b"\\xff\\xd8jpeg", frame_index=7, t=0.25)
>>> hub.latest().index, hub.latest().t
(7, 0.25)
>>> hub.wait(after_index=7, timeout=0.01) is None   # nothing newer than frame 7
True
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Frame:
    """One annotated camera frame as the pipeline published it."""

    jpeg: bytes
    index: int  # footage frame index
    t: float  # seconds on the footage clock
    published_at: float = field(default_factory=time.monotonic)  # local monotonic clock


class FrameHub:
    """Thread-safe latest-frame store with blocking waits, plus named still images.

    ``stills`` hold images the pipeline produces once, e.g. ``"calibration"`` (the rectified
    table with its zones drawn) for the Setup page.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._stills: dict[str, bytes] = {}
        self._closed = False

    def publish(self, jpeg_bytes: bytes, frame_index: int, t: float) -> None:
        """Make ``jpeg_bytes`` the current frame (called by the pipeline, any thread)."""
        if not isinstance(jpeg_bytes, (bytes, bytearray, memoryview)):
            raise TypeError("jpeg_bytes must be bytes")
        frame = Frame(bytes(jpeg_bytes), int(frame_index), float(t))
        with self._cond:
            self._latest = frame
            self._cond.notify_all()

    def latest(self) -> Frame | None:
        """The most recent frame, or ``None`` before the first publish."""
        return self._latest  # a single reference read is atomic

    def wait(self, after_index: int | None, timeout: float) -> Frame | None:
        """Block until a frame newer than ``after_index`` exists; ``None`` on timeout or close.

        ``after_index=None`` returns the latest frame at once if there is one. A frame with a
        *lower* index than ``after_index`` also counts as new (the pipeline restarted a clip).
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                frame = self._latest
                if frame is not None and (after_index is None or frame.index != after_index):
                    return frame
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    return None
                self._cond.wait(remaining)

    def now(self) -> float | None:
        """The footage clock now: the latest frame's ``t`` plus the time since it was published.

        ``None`` before the first frame. This is what a "Nerts!" press is stamped with while the
        camera runs, so the call lines up with the footage.
        """
        frame = self._latest
        if frame is None:
            return None
        return frame.t + (time.monotonic() - frame.published_at)

    def set_still(self, name: str, jpeg_bytes: bytes) -> None:
        """Store a named still image (e.g. ``"calibration"``)."""
        with self._cond:
            self._stills[name] = bytes(jpeg_bytes)

    def still(self, name: str) -> bytes | None:
        return self._stills.get(name)

    def close(self) -> None:
        """Wake every waiter so streaming responses end (server shutdown)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed
