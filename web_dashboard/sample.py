"""A small recorded game (event log + footage) built through the real APIs, for the dashboard's
tests, its benchmark and trying the dashboard out without a camera:

    python -m web_dashboard.sample /tmp/sample && nerts-referee serve /tmp/sample/game.db

Round 1 has a first-touch dispute on pile p1 (ana touched 2H 50 ms before ben), an illegal play
(ben starts a pile with 5S), a Nerts call by ana and the end of the round; round 2 is in play.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

FPS = 30
SIZE = (320, 240)
PLAYERS = [{"name": "ana", "back": "red", "seat": 0}, {"name": "ben", "back": "blue", "seat": 1}]

# card outlines in video pixels (what vision puts in an observation's evidence)
ANA_QUAD = [[60, 80], [130, 80], [130, 180], [60, 180]]
BEN_QUAD = [[150, 70], [220, 70], [220, 170], [150, 170]]

ROUND_1 = [
    {"type": "round_started", "t": 0.0},
    {"type": "card_touched", "t": 1.0, "card": "AH", "player": "ana", "pile": "p1", "uncertainty_ms": 6.0,
     "evidence": {"frames": [29, 31], "quad": ANA_QUAD}},
    {"type": "card_touched", "t": 2.0, "card": "2H", "player": "ben", "pile": "p1", "uncertainty_ms": 8.0,
     "confidence": 0.93, "evidence": {"frames": [59, 61], "quad": BEN_QUAD}},
    {"type": "card_touched", "t": 1.95, "card": "2H", "player": "ana", "pile": "p1", "uncertainty_ms": 8.0,
     "confidence": 0.95, "evidence": {"frames": [57, 59], "quad": ANA_QUAD}},
    {"type": "card_touched", "t": 2.5, "card": "5S", "player": "ben", "pile": "p2", "uncertainty_ms": 7.0,
     "evidence": {"frames": [74, 76], "box": [150, 70, 220, 170]}},
    {"type": "card_touched", "t": 2.8, "card": "3H", "player": "ana", "pile": "p1", "uncertainty_ms": 6.0},
    {"type": "nerts_called", "t": 3.2, "player": "ana"},
    {"type": "round_ended", "t": 3.4, "nerts_left": {"ana": 0, "ben": 5}},
    {"type": "round_started", "t": 3.6},
]
DISPUTE_SEQ = 5  # seq of ana's 2H (the winner); the log starts with game_started
LOSER_SEQ = 4  # ben's 2H (touched 50 ms later)
ILLEGAL_SEQ = 6  # ben's 5S on a new pile
DURATION_S = 4.0


def write_footage(path: Path, seconds: float = DURATION_S, fps: int = FPS) -> list[tuple[int, float]]:
    """An H.264 MP4 whose frame ``i`` is shown at exactly ``i / fps`` s; returns the frame table.

    Each frame carries its index as a bar code so a test can tell frames apart by pixel.
    """
    import av
    import numpy as np

    w, h = SIZE
    frames = []
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.time_base = Fraction(1, fps)
        stream.options = {"preset": "ultrafast", "g": "15", "bf": "0"}
        for i in range(int(seconds * fps)):
            img = np.full((h, w, 3), (40, 110, 60), np.uint8)  # green baize
            x = int((i / (seconds * fps)) * (w - 20))
            img[200:230, x:x + 20] = (240, 240, 240)  # a moving marker
            for bit in range(8):  # the frame index as 8 bits along the top
                if (i >> bit) & 1:
                    img[4:20, 8 + bit * 20:24 + bit * 20] = (255, 255, 0)
            frame = av.VideoFrame.from_ndarray(img, format="rgb24")
            frame.pts = i
            for packet in stream.encode(frame):
                container.mux(packet)
            frames.append((i, i / fps))
        for packet in stream.encode():
            container.mux(packet)
    return frames


def make_sample_game(folder: str | Path, footage: bool = True) -> Path:
    """Write ``game.db`` (and ``table.mp4``) into ``folder``; return the log's path."""
    from referee.eventlog import EventLog

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "game.db"
    log = EventLog.open(db)
    try:
        log.append({"type": "game_started", "players": PLAYERS, "settings": {"target_score": 100}})
        for event in ROUND_1:
            log.append(event)
        if footage:
            log.add_frames(write_footage(folder / "table.mp4"))
            log.set_meta("footage", "table.mp4")
    finally:
        log.close()
    return db


if __name__ == "__main__":
    out = make_sample_game(sys.argv[1] if len(sys.argv) > 1 else "sample_game")
    print(out)
