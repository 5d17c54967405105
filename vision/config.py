"""The vision sections of the table configuration (Contract 2): camera, calibration, zones.

Players and rules are read by :mod:`referee.settings` from the same file; this module reads only
what vision needs and checks it with messages that name the key at fault.

Table coordinates are millimetres on the rectified (top-down) table: x to the right and y down as
the camera sees it, origin at the table's top-left corner; seat 0 is at the camera's bottom edge and
seats go clockwise (seen from above: bottom, left, top, right for four players).

>>> cfg = VisionConfig.from_dict({"zones": {"table_mm": [1200, 900]}})
>>> cfg.zones.common   # default common area: the middle half of the table
((300.0, 225.0), (900.0, 225.0), (900.0, 675.0), (300.0, 675.0))
>>> cfg.calibration.marker_mm[2]   # marker 2 sits at the bottom-right corner by default
(1200.0, 900.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from referee.settings import read_table_file

Point = tuple[float, float]


class ConfigError(ValueError):
    """A vision setting that cannot be used; the message names the key."""


def _point(value: Any, where: str) -> Point:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)):
        raise ConfigError(f"{where}: expected [x, y] numbers, got {value!r}")
    return (float(value[0]), float(value[1]))


def _quad(value: Any, where: str) -> tuple[Point, Point, Point, Point]:
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise ConfigError(f"{where}: expected four [x, y] points, got {value!r}")
    return tuple(_point(v, f"{where}[{i}]") for i, v in enumerate(value))  # type: ignore[return-value]


def _polygon(value: Any, where: str) -> tuple[Point, ...]:
    if not isinstance(value, (list, tuple)) or len(value) < 3:
        raise ConfigError(f"{where}: expected a polygon of at least three [x, y] points, got {value!r}")
    return tuple(_point(v, f"{where}[{i}]") for i, v in enumerate(value))


@dataclass(frozen=True)
class CameraConfig:
    source: str = "0"
    width: int = 1280
    height: int = 720
    fps: float = 30.0


@dataclass(frozen=True)
class CalibrationConfig:
    """ArUco markers ids 0..3 (centres at ``marker_mm``) and/or manual image corners of the table."""

    markers: str = "aruco_4x4_50"
    corners: tuple[Point, Point, Point, Point] | None = None  # image px of table corners TL, TR, BR, BL
    marker_mm: tuple[Point, Point, Point, Point] = ((0.0, 0.0), (1200.0, 0.0), (1200.0, 900.0), (0.0, 900.0))
    marker_size_mm: float = 60.0
    recheck_s: float = 2.0  # how often the markers are looked for again (a bumped camera)


@dataclass(frozen=True)
class Zones:
    table_mm: Point = (1200.0, 900.0)
    common: tuple[Point, ...] = ((300.0, 225.0), (900.0, 225.0), (900.0, 675.0), (300.0, 675.0))
    seats: dict[str, tuple[Point, ...]] = field(default_factory=dict)  # optional seat polygons by player


@dataclass(frozen=True)
class VisionConfig:
    camera: CameraConfig = field(default_factory=CameraConfig)
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    zones: Zones = field(default_factory=Zones)
    players: tuple[dict[str, Any], ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "VisionConfig":
        if not isinstance(data, Mapping):
            raise ConfigError("config: expected a table at the top level")
        cam = data.get("camera", {}) or {}
        if not isinstance(cam, Mapping):
            raise ConfigError("camera: expected a table")
        camera = CameraConfig(
            source=str(cam.get("source", "0")),
            width=_positive_int(cam.get("width", 1280), "camera.width"),
            height=_positive_int(cam.get("height", 720), "camera.height"),
            fps=_positive(cam.get("fps", 30.0), "camera.fps"),
        )
        zones_raw = data.get("zones", {}) or {}
        if not isinstance(zones_raw, Mapping):
            raise ConfigError("zones: expected a table")
        table_mm = _point(zones_raw.get("table_mm", [1200, 900]), "zones.table_mm")
        if table_mm[0] <= 0 or table_mm[1] <= 0:
            raise ConfigError(f"zones.table_mm: expected a positive size, got {list(table_mm)}")
        w, h = table_mm
        common = (_polygon(zones_raw["common"], "zones.common") if "common" in zones_raw
                  else ((w / 4, h / 4), (3 * w / 4, h / 4), (3 * w / 4, 3 * h / 4), (w / 4, 3 * h / 4)))
        for i, (x, y) in enumerate(common):
            if not (0 <= x <= w and 0 <= y <= h):
                raise ConfigError(f"zones.common[{i}]: {[x, y]} lies outside the table (0..{w:g} x 0..{h:g} mm)")
        seats_raw = zones_raw.get("seats", {}) or {}
        if not isinstance(seats_raw, Mapping):
            raise ConfigError("zones.seats: expected a table of player name = polygon")
        seats = {str(k): _polygon(v, f"zones.seats.{k}") for k, v in seats_raw.items()}
        zones = Zones(table_mm=table_mm, common=common, seats=seats)
        cal_raw = data.get("calibration", {}) or {}
        if not isinstance(cal_raw, Mapping):
            raise ConfigError("calibration: expected a table")
        markers = str(cal_raw.get("markers", "aruco_4x4_50")).lower()
        if markers not in ("aruco_4x4_50", "none", ""):
            raise ConfigError(f"calibration.markers: {markers!r} is not supported; allowed values: aruco_4x4_50, none")
        corners = _quad(cal_raw["corners"], "calibration.corners") if cal_raw.get("corners") else None
        marker_mm = (_quad(cal_raw["marker_mm"], "calibration.marker_mm") if "marker_mm" in cal_raw
                     else ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h)))
        calibration = CalibrationConfig(
            markers=markers or "none",
            corners=corners,
            marker_mm=marker_mm,
            marker_size_mm=_positive(cal_raw.get("marker_size_mm", 60.0), "calibration.marker_size_mm"),
            recheck_s=_positive(cal_raw.get("recheck_s", 2.0), "calibration.recheck_s"),
        )
        players_raw = data.get("players", []) or []
        if not isinstance(players_raw, list) or not all(isinstance(p, Mapping) and "name" in p for p in players_raw):
            raise ConfigError("players: expected a list of [[players]] tables, each with a name")
        players = tuple(dict(p) for p in players_raw)
        return cls(camera=camera, calibration=calibration, zones=zones, players=players, raw=dict(data))

    @classmethod
    def load(cls, path: str | Path) -> "VisionConfig":
        path = Path(path)
        data = read_table_file(path, ConfigError)
        try:
            return cls.from_dict(data)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None

    def seat_angles(self) -> dict[str, float]:
        """Each player's direction from the table centre (radians, image axes, y down).

        Seat ``k`` of the 8 possible seat positions, clockwise from the bottom edge; with explicit
        seats 0..n-1 and n players the seats spread evenly (4 players: bottom, left, top, right).
        """
        players = list(self.players)
        n = max(len(players), 1)
        out: dict[str, float] = {}
        for i, p in enumerate(players):
            seat = p.get("seat", i)
            seat = i if seat is None else int(seat)
            out[str(p["name"])] = math.pi / 2 + seat * 2 * math.pi / n
        return out


def _positive(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{where}: expected a positive number, got {value!r}")
    return float(value)


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where}: expected a positive whole number, got {value!r}")
    return value
