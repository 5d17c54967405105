"""The physical record of a simulated game: what the camera would see, in continuous time.

The game model (``simulator/game.py``) writes it; the renderer reads it. Three kinds of record:

- :class:`Placement` — at time ``t`` a card comes to rest at a pose (or leaves the table, or flips);
  between placements a card lies still, so the renderer can cache it in its static layer.
- :class:`Flight` — a card carried by a hand from ``t_grab`` to contact at ``t_contact``, then
  sliding to its resting pose until ``t_settle`` (cards rotate and slide a little as they land).
- hand keyframes per hand — piecewise minimum-jerk motion between ``(t, x, y)`` points.

All positions are table millimetres (see ``simulator/layout.py``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

Pose = tuple[float, float, float]


@dataclass(frozen=True)
class CardInfo:
    """One physical card: its deck (layout index), face name and back colour."""

    uid: int
    deck: int
    name: str  # "10H", "QS", "JOKER-R"
    back: str


@dataclass
class Placement:
    t: float
    uid: int
    kind: str  # "place" | "lift" | "flip" | "remove"
    pose: Pose | None = None
    z: float = 0.0
    face_up: bool = True
    pile: str | None = None


@dataclass
class Flight:
    uid: int
    hand: int
    t_grab: float
    t_contact: float
    t_settle: float
    src: Pose
    contact: Pose
    final: Pose
    face_up: bool
    lift_mm: float = 0.0  # carry offset from the hand's grip point, along the card


def ease(s: float) -> float:
    """Minimum-jerk profile: the bell-shaped speed of a human reach."""
    s = 0.0 if s < 0.0 else 1.0 if s > 1.0 else s
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


@dataclass
class HandTrack:
    """Keyframes of one hand; the hand moves between them along a minimum-jerk profile."""

    deck: int
    offset_mm: float
    keys: list[tuple[float, float, float]] = field(default_factory=list)  # (t, x, y)
    _times: list[float] = field(default_factory=list, repr=False)

    def add(self, t: float, x: float, y: float) -> None:
        if self.keys and t < self.keys[-1][0]:
            t = self.keys[-1][0]
        self.keys.append((t, x, y))
        self._times.append(t)

    def at(self, t: float) -> tuple[float, float]:
        keys = self.keys
        if not keys:
            return (0.0, 0.0)
        i = bisect.bisect_right(self._times, t)
        if i == 0:
            return keys[0][1], keys[0][2]
        if i >= len(keys):
            return keys[-1][1], keys[-1][2]
        t0, x0, y0 = keys[i - 1]
        t1, x1, y1 = keys[i]
        if t1 <= t0:
            return x1, y1
        s = ease((t - t0) / (t1 - t0))
        return x0 + (x1 - x0) * s, y0 + (y1 - y0) * s

    def last(self) -> tuple[float, float, float]:
        return self.keys[-1]


@dataclass
class Timeline:
    cards: dict[int, CardInfo] = field(default_factory=dict)
    placements: list[Placement] = field(default_factory=list)
    flights: list[Flight] = field(default_factory=list)
    hands: list[HandTrack] = field(default_factory=list)
    end_t: float = 0.0

    def sorted(self) -> "Timeline":
        """Order records by time (stable, so same-time records keep the order they were made)."""
        self.placements.sort(key=lambda p: p.t)
        self.flights.sort(key=lambda f: f.t_grab)
        return self
