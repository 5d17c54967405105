"""H.264 MP4 writing with PyAV, with exact per-frame timestamps (pts = frame index at 1/fps)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np


def fps_fraction(fps: float) -> Fraction:
    """30 -> 30/1, 29.97 -> 30000/1001: a rational rate so pts are exact."""
    f = Fraction(fps).limit_denominator(1001)
    return f


class VideoWriter:
    """Write BGR frames as H.264 (yuv420p) into an MP4. Frame ``i`` is stamped ``i / fps`` exactly."""

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float, crf: int = 23,
                 preset: str = "ultrafast", threads: int = 0):
        import av

        self.path = Path(path)
        self.size = size
        self.rate = fps_fraction(fps)
        self.container = av.open(str(self.path), mode="w")
        stream = self.container.add_stream("libx264", rate=self.rate)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        stream.codec_context.time_base = 1 / self.rate
        stream.options = {"crf": str(crf), "preset": preset}
        if threads:
            stream.codec_context.thread_count = threads
        self.stream = stream
        self.count = 0

    def write(self, bgr: np.ndarray, index: int | None = None) -> None:
        import av
        import cv2

        if bgr.shape[1] != self.size[0] or bgr.shape[0] != self.size[1]:
            raise ValueError(f"frame is {bgr.shape[1]}x{bgr.shape[0]}, the video is {self.size[0]}x{self.size[1]}")
        yuv = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)
        frame = av.VideoFrame.from_ndarray(yuv, format="yuv420p")
        frame.pts = self.count if index is None else index
        frame.time_base = 1 / self.rate
        for packet in self.stream.encode(frame):
            self.container.mux(packet)
        self.count += 1

    def close(self) -> None:
        for packet in self.stream.encode(None):
            self.container.mux(packet)
        self.container.close()

    def __enter__(self) -> "VideoWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
