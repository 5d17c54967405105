"""Attribution: which player a centre card came from.

A card is carried to the centre by its owner's arm, so the direction it arrived from (its track's
origin seen from where it landed) points at the owner's seat. The back colour, whenever a back was
seen on the card's track, is the independent check: the deck's back names its owner.

>>> from vision.config import VisionConfig
>>> cfg = VisionConfig.from_dict({"zones": {"table_mm": [1200, 900]},
...                               "players": [{"name": "ana", "seat": 0}, {"name": "ben", "seat": 1},
...                                           {"name": "cy", "seat": 2}, {"name": "dee", "seat": 3}]})
>>> att = Attributor(cfg)
>>> att.from_path(origin=(600.0, 700.0), rest=(600.0, 450.0))[0]    # came up from the bottom edge
'ana'
>>> att.from_path(origin=(350.0, 450.0), rest=(600.0, 450.0))[0]    # from the left edge
'ben'
"""

from __future__ import annotations

import math
from collections import Counter

from vision.calibrate import point_in_polygon
from vision.config import Point, VisionConfig


class Attributor:
    """Seat anchors per player: seat-zone centroids from the config, else points at the table edge
    in each seat's direction (seats clockwise from the camera's bottom edge)."""

    def __init__(self, cfg: VisionConfig, inset_mm: float = 120.0) -> None:
        self.cfg = cfg
        w, h = cfg.zones.table_mm
        cx, cy = w / 2, h / 2
        self.anchors: dict[str, Point] = {}
        self.backs: dict[str, str] = {str(p["name"]): str(p.get("back", "")).lower() for p in cfg.players}
        for name, angle in cfg.seat_angles().items():
            zone = cfg.zones.seats.get(name)
            if zone:
                self.anchors[name] = (sum(p[0] for p in zone) / len(zone), sum(p[1] for p in zone) / len(zone))
                continue
            dx, dy = math.cos(angle), math.sin(angle)
            tx = (w / 2 - inset_mm) / abs(dx) if abs(dx) > 1e-9 else math.inf
            ty = (h / 2 - inset_mm) / abs(dy) if abs(dy) > 1e-9 else math.inf
            r = min(tx, ty)
            self.anchors[name] = (cx + dx * r, cy + dy * r)

    def from_path(self, origin: Point, rest: Point) -> tuple[str | None, float]:
        """(player, confidence 0..1) from the direction the card came from."""
        if not self.anchors:
            return None, 0.0
        for name, zone in self.cfg.zones.seats.items():
            if name in self.anchors and point_in_polygon(origin, zone):
                return name, 0.99
        vx, vy = origin[0] - rest[0], origin[1] - rest[1]
        travel = math.hypot(vx, vy)
        if travel < 1e-6:
            return None, 0.0
        scored = []
        for name, (ax, ay) in self.anchors.items():
            a = math.atan2(ay - rest[1], ax - rest[0]) - math.atan2(vy, vx)
            a = abs((a + math.pi) % (2 * math.pi) - math.pi)
            scored.append((a, name))
        scored.sort()
        best_a, best = scored[0]
        second_a = scored[1][0] if len(scored) > 1 else math.pi
        # Confidence: the angular margin to the next seat, discounted for short (late-seen) paths.
        margin = (second_a - best_a) / max(second_a, 1e-6)
        length = min(travel / 80.0, 1.0)
        return best, round(max(min(margin * length, 0.999), 0.0), 3)

    def from_backs(self, votes: Counter) -> tuple[str | None, float]:
        """Owner from back-colour votes (player names, or back colours mapped to their player)."""
        if not votes:
            return None, 0.0
        by_player: Counter = Counter()
        colour_to_player = {b: n for n, b in self.backs.items() if b}
        for who, n in votes.items():
            name = who if who in self.backs else colour_to_player.get(str(who).lower())
            if name:
                by_player[name] += n
        if not by_player:
            return None, 0.0
        (name, n), total = by_player.most_common(1)[0], sum(by_player.values())
        return name, n / total * min(total / 3.0, 1.0)

    def attribute(self, origin: Point, rest: Point, back_votes: Counter | None = None) -> tuple[str | None, float, str]:
        """Combine both cues: (player, confidence, how) with how in arm / back / arm+back / conflict."""
        arm, arm_c = self.from_path(origin, rest)
        back, back_c = self.from_backs(back_votes or Counter())
        if back is None:
            return arm, arm_c, "arm"
        if arm is None:
            return back, back_c, "back"
        if arm == back:
            return arm, 1 - (1 - arm_c) * (1 - back_c), "arm+back"
        # They disagree: the back is the deck's identity; trust it when it is well supported.
        if back_c >= arm_c:
            return back, back_c * (1 - arm_c), "conflict"
        return arm, arm_c * (1 - back_c), "conflict"
