"""Where everything lies on the table, in millimetres.

Table coordinates follow Contract 2's ``[zones]``: origin at the table's top-left corner as the
camera sees it, x to the right, y down (towards seat 0 at the bottom edge). Seats are numbered
clockwise (as seen from above) starting at the bottom edge.

Each deck's layout is one row of seven slots facing the centre: stock, waste, Nerts pile and the
four work piles (work piles cascade towards the player so every card's index shows). Foundations
live on a grid of slots in the common area in the middle.

>>> t = TableLayout.for_players(4)
>>> t.table_mm
(1300.0, 900.0)
>>> [round(s.angle_deg) for s in t.seats]
[0, 90, 180, 270]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

CARD_W_MM = 63.0
CARD_H_MM = 88.0
SLOT_PITCH_MM = 70.0
CASCADE_MM = 15.0  # work piles fan towards the player by this much per card
LAYOUT_DEPTH_MM = 230.0  # from the row's centre-facing edge to the table edge, roughly

Pose = tuple[float, float, float]  # (x_mm, y_mm, angle_deg): card centre and rotation


def rot(dx: float, dy: float, angle_deg: float) -> tuple[float, float]:
    """Rotate the vector (dx, dy) by ``angle_deg`` (clockwise on screen, y down)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return dx * c - dy * s, dx * s + dy * c


@dataclass(frozen=True)
class Seat:
    """One layout (one deck) at the table edge.

    ``anchor`` is the centre of the layout's row of piles; ``angle_deg`` rotates the layout's own
    frame (x to the player's right, y towards the player) into table coordinates: 0 for the bottom
    edge, 90 for the left edge, 180 for the top, 270 for the right.
    """

    index: int
    anchor: tuple[float, float]
    angle_deg: float

    def to_table(self, lx: float, ly: float) -> tuple[float, float]:
        dx, dy = rot(lx, ly, self.angle_deg)
        return self.anchor[0] + dx, self.anchor[1] + dy

    @property
    def toward_player(self) -> tuple[float, float]:
        return rot(0.0, 1.0, self.angle_deg)


# slot order along the row, from the player's left: stock, waste, nerts, work 0..3
SLOTS = ("stock", "waste", "nerts", "work0", "work1", "work2", "work3")


@dataclass
class TableLayout:
    """Table size, seats, pile positions, foundation slots and the common area."""

    n_layouts: int
    table_mm: tuple[float, float]
    seats: list[Seat]
    common: list[tuple[float, float]]  # polygon (rectangle), clockwise from top-left
    foundation_slots: list[tuple[float, float]] = field(default_factory=list)

    @classmethod
    def for_players(cls, n_layouts: int) -> "TableLayout":
        if n_layouts <= 4:
            w, h = 1300.0, 900.0
        elif n_layouts <= 6:
            w, h = 1700.0, 1100.0
        else:
            w, h = 1800.0, 1200.0
        inset = 105.0 + CARD_H_MM / 2  # from the edge to the row's centre line: room for cascades
        # keep layouts clear of the corner markers (70 mm, centred 50 mm in from each corner)
        lo = 3.5 * SLOT_PITCH_MM + 105.0
        # layouts per edge (bottom, left, top, right); seats run clockwise from the bottom edge,
        # which on screen is right-to-left along the bottom, up the left, along the top, down the right
        per_edge = {2: (1, 0, 1, 0), 3: (1, 1, 0, 1), 4: (1, 1, 1, 1), 5: (2, 1, 1, 1),
                    6: (2, 1, 2, 1), 7: (3, 1, 2, 1), 8: (3, 1, 3, 1)}[n_layouts]

        def spread(k: int, length: float) -> list[float]:
            if k == 1:
                return [length / 2]
            return [lo + (length - 2 * lo) * j / (k - 1) for j in range(k)]

        seats: list[Seat] = []
        for x in reversed(spread(per_edge[0], w)):
            seats.append(Seat(len(seats), (x, h - inset), 0.0))
        for y in reversed(spread(per_edge[1], h)):
            seats.append(Seat(len(seats), (inset, y), 90.0))
        for x in spread(per_edge[2], w):
            seats.append(Seat(len(seats), (x, inset), 180.0))
        for y in spread(per_edge[3], h):
            seats.append(Seat(len(seats), (w - inset, y), 270.0))
        # common area: what the layouts leave free in the middle
        side = inset + CARD_H_MM / 2 + 40.0
        if any(s.angle_deg in (90.0, 270.0) for s in seats):
            x0, x1 = side + 20.0, w - side - 20.0
        else:
            x0, x1 = 120.0, w - 120.0
        y0, y1 = side - 10.0, h - side + 10.0
        common = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        layout = cls(n_layouts, (w, h), seats, common)
        layout.foundation_slots = layout._grid(x0, y0, x1, y1)
        return layout

    def _grid(self, x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
        pitch_x, pitch_y = CARD_W_MM + 14.0, CARD_H_MM + 14.0
        nx = max(1, int((x1 - x0) // pitch_x))
        ny = max(1, int((y1 - y0) // pitch_y))
        ox = x0 + (x1 - x0 - nx * pitch_x) / 2 + pitch_x / 2
        oy = y0 + (y1 - y0 - ny * pitch_y) / 2 + pitch_y / 2
        return [(ox + i * pitch_x, oy + j * pitch_y) for j in range(ny) for i in range(nx)]

    # --- positions ----------------------------------------------------------------------------
    def slot_pose(self, deck: int, slot: str) -> Pose:
        seat = self.seats[deck]
        i = SLOTS.index(slot)
        lx = (i - 3) * SLOT_PITCH_MM
        x, y = seat.to_table(lx, 0.0)
        return (x, y, seat.angle_deg)

    def card_pose(self, deck: int, slot: str, index: int, count: int) -> Pose:
        """Nominal pose of the ``index``-th card (0 = bottom) of a pile of ``count`` cards."""
        seat = self.seats[deck]
        i = SLOTS.index(slot)
        lx, ly = (i - 3) * SLOT_PITCH_MM, 0.0
        if slot.startswith("work"):
            # long piles are squeezed so they stay on the table (at most 7 full steps long)
            step = CASCADE_MM if count <= 8 else CASCADE_MM * 7 / (count - 1)
            ly = index * step
        elif slot == "waste":
            # the last three turned cards are fanned to the right, as players spread them
            fan = max(0, index - (count - 3))
            lx += fan * 6.0
        elif slot in ("nerts", "stock"):
            ly = -index * 0.25  # the pile's thickness shows as a slight shift
        x, y = seat.to_table(lx, ly)
        return (x, y, seat.angle_deg)

    def hand_rest(self, deck: int, offset_mm: float = 0.0) -> tuple[float, float]:
        """Where a player's hand waits: just in front of their own layout, on their side."""
        seat = self.seats[deck]
        return seat.to_table(offset_mm + 30.0, CARD_H_MM / 2 + 125.0)

    def shoulder(self, deck: int, offset_mm: float = 0.0) -> tuple[float, float]:
        """Where the arm comes from: the player's shoulder, beyond the table edge."""
        seat = self.seats[deck]
        return seat.to_table(offset_mm + 60.0, CARD_H_MM / 2 + 330.0)

    def seat_zone(self, deck: int) -> list[tuple[float, float]]:
        seat = self.seats[deck]
        half = 3.5 * SLOT_PITCH_MM + 10.0
        pts = [(-half, -CARD_H_MM / 2 - 10.0), (half, -CARD_H_MM / 2 - 10.0),
               (half, CARD_H_MM / 2 + 175.0), (-half, CARD_H_MM / 2 + 175.0)]
        w, h = self.table_mm
        return [(min(max(x, 0.0), w), min(max(y, 0.0), h)) for x, y in (seat.to_table(px, py) for px, py in pts)]

    def corners(self) -> list[tuple[float, float]]:
        w, h = self.table_mm
        return [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)]


def distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
