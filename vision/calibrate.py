"""Calibration: the homography from camera pixels to the top-down table in millimetres.

Four ArUco markers (``DICT_4X4_50``, ids 0..3) sit at the table corners; their centres' table
positions come from the config (``calibration.marker_mm``; by default the corners TL, TR, BR, BL).
The homography is found automatically from one frame and re-checked every few seconds: if the
markers moved by more than a few pixels the camera was bumped, the homography is replaced and the
pipeline is told (rulings around that moment deserve a look). Without markers the four manual
``calibration.corners`` (image pixels of the table corners TL, TR, BR, BL) are used.

:class:`Rectifier` warps a region of the table (e.g. the common area plus a margin) to a top-down
image at a fixed pixels-per-millimetre, which is what the detector and motion gate look at.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.config import CalibrationConfig, Point, VisionConfig

MARKER_IDS = (0, 1, 2, 3)


class CalibrationError(Exception):
    """The table cannot be located (markers not found and no manual corners, or a degenerate fit)."""


def _dictionary():
    import cv2

    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def _detector():
    import cv2

    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(_dictionary(), params)


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id → its centre in image pixels (diagonal intersection, exact under perspective)."""
    import cv2

    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        if int(marker_id) in MARKER_IDS:
            found[int(marker_id)] = _diagonal_centre(quad.reshape(4, 2))
    return found


def _diagonal_centre(q: np.ndarray) -> np.ndarray:
    p1, p3, p2, p4 = q[0], q[2], q[1], q[3]
    d1, d2 = p3 - p1, p4 - p2
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-9:
        return q.mean(axis=0)
    s = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / denom
    return p1 + s * d1


@dataclass
class Calibration:
    """``H`` maps image pixels to table millimetres; ``source`` says how it was found."""

    H: np.ndarray
    source: str  # "markers" or "manual"
    image_points: np.ndarray  # the 4 reference points in the image (for re-checks)

    @property
    def H_inv(self) -> np.ndarray:
        return np.linalg.inv(self.H)

    def to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Image points (N, 2) → table mm (N, 2)."""
        return _apply(self.H, points_px)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        return _apply(self.H_inv, points_mm)


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    hom = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return hom[:, :2] / hom[:, 2:3]


def _fit(image_pts: np.ndarray, table_pts: np.ndarray, source: str) -> Calibration:
    import cv2

    image_pts = np.asarray(image_pts, dtype=np.float64)
    area = abs(cv2.contourArea(image_pts.astype(np.float32)))
    if area < 100:
        raise CalibrationError(f"the four {source} points are degenerate (area {area:.0f} px²)")
    H = cv2.getPerspectiveTransform(image_pts.astype(np.float32), np.asarray(table_pts, dtype=np.float32))
    return Calibration(H=H.astype(np.float64), source=source, image_points=image_pts)


def from_markers(image: np.ndarray, cfg: CalibrationConfig) -> Calibration:
    found = find_markers(image)
    missing = [i for i in MARKER_IDS if i not in found]
    if missing:
        raise CalibrationError(
            f"ArUco markers {missing} not found (DICT_4X4_50, ids 0-3 at the table corners); "
            "print them with `nerts-referee markers --out sheet.png` or set calibration.corners"
        )
    image_pts = np.array([found[i] for i in MARKER_IDS])
    return _fit(image_pts, np.array(cfg.marker_mm), "markers")


def from_corners(corners: tuple[Point, Point, Point, Point], table_mm: Point) -> Calibration:
    w, h = table_mm
    return _fit(np.array(corners), np.array([(0, 0), (w, 0), (w, h), (0, h)]), "manual")


def calibrate(image: np.ndarray, cfg: VisionConfig) -> Calibration:
    """Markers when configured and visible, else the manual corners, else a clear error."""
    errors = []
    if cfg.calibration.markers != "none":
        try:
            return from_markers(image, cfg.calibration)
        except CalibrationError as exc:
            errors.append(str(exc))
    if cfg.calibration.corners:
        cal = from_corners(cfg.calibration.corners, cfg.zones.table_mm)
        return cal
    errors.append("no manual calibration.corners in the config")
    raise CalibrationError("; ".join(errors))


@dataclass
class RecheckResult:
    moved_px: float  # largest marker displacement seen
    bumped: bool
    calibration: Calibration | None  # the new calibration when bumped and all markers were seen


class CalibrationMonitor:
    """Re-checks the markers every ``recheck_s`` seconds and notices a bumped camera.

    A displacement above ``threshold_px`` on markers that were all seen replaces the homography;
    with some markers hidden (a hand over a corner) only the visible ones are compared and the old
    homography is kept until all four are visible again.
    """

    def __init__(self, calibration: Calibration, cfg: VisionConfig, threshold_px: float = 3.0) -> None:
        self.calibration = calibration
        self.cfg = cfg
        self.threshold_px = threshold_px
        self._last_check_t = -1e9
        self.pending_bump = False

    def due(self, t: float) -> bool:
        return self.calibration.source == "markers" and t - self._last_check_t >= self.cfg.calibration.recheck_s

    def check(self, image: np.ndarray, t: float) -> RecheckResult | None:
        if not self.due(t):
            return None
        self._last_check_t = t
        found = find_markers(image)
        if not found:
            return None
        ids = [i for i in MARKER_IDS if i in found]
        moved = float(max(np.linalg.norm(found[i] - self.calibration.image_points[i]) for i in ids))
        if moved <= self.threshold_px and not self.pending_bump:
            return RecheckResult(moved, False, None)
        if len(ids) == 4:
            new = _fit(np.array([found[i] for i in MARKER_IDS]), np.array(self.cfg.calibration.marker_mm), "markers")
            bumped = moved > self.threshold_px
            self.pending_bump = False
            if bumped:
                self.calibration = new
            return RecheckResult(moved, bumped, new if bumped else None)
        self.pending_bump = True
        return RecheckResult(moved, True, None)


class Rectifier:
    """Warps a table region (mm, axis-aligned ``x0, y0, x1, y1``) to a top-down image.

    ``px_per_mm`` sets the resolution; :meth:`to_mm` maps rectified pixels back to table mm.
    """

    def __init__(self, calibration: Calibration, region_mm: tuple[float, float, float, float],
                 px_per_mm: float = 1.0) -> None:
        self.region_mm = region_mm
        self.px_per_mm = px_per_mm
        x0, y0, x1, y1 = region_mm
        self.size = (int(round((x1 - x0) * px_per_mm)), int(round((y1 - y0) * px_per_mm)))
        self.set_calibration(calibration)

    def set_calibration(self, calibration: Calibration) -> None:
        x0, y0, _, _ = self.region_mm
        s = self.px_per_mm
        to_region = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], dtype=np.float64)
        self.calibration = calibration
        self.M = to_region @ calibration.H  # image px -> rectified px

    def warp(self, image: np.ndarray) -> np.ndarray:
        import cv2

        return cv2.warpPerspective(image, self.M, self.size, flags=cv2.INTER_LINEAR)

    def to_mm(self, pts_px: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        x0, y0, _, _ = self.region_mm
        return pts / self.px_per_mm + np.array([x0, y0])

    def to_px(self, pts_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        x0, y0, _, _ = self.region_mm
        return (pts - np.array([x0, y0])) * self.px_per_mm


def region_around(polygon: tuple[Point, ...], margin_mm: float, table_mm: Point) -> tuple[float, float, float, float]:
    """Axis-aligned box around ``polygon`` grown by ``margin_mm``, clipped to the table."""
    xs = [p[0] for p in polygon]
    ys = [p[1] for p in polygon]
    return (max(min(xs) - margin_mm, 0.0), max(min(ys) - margin_mm, 0.0),
            min(max(xs) + margin_mm, table_mm[0]), min(max(ys) + margin_mm, table_mm[1]))


def point_in_polygon(p: Point, polygon: tuple[Point, ...]) -> bool:
    import cv2

    return cv2.pointPolygonTest(np.asarray(polygon, dtype=np.float32), (float(p[0]), float(p[1])), False) >= 0


def marker_sheet(path: str | Path, marker_mm: float = 60.0, dpi: int = 300) -> Path:
    """Write an A4 sheet (PNG) with markers 0..3 at ``marker_mm`` size, each labelled with its corner."""
    import cv2

    path = Path(path)
    px_per_mm = dpi / 25.4
    page_w, page_h = int(210 * px_per_mm), int(297 * px_per_mm)
    sheet = np.full((page_h, page_w), 255, np.uint8)
    side = int(round(marker_mm * px_per_mm))
    labels = ("0: top-left", "1: top-right", "2: bottom-right", "3: bottom-left")
    cell_w, cell_h = page_w // 2, page_h // 2
    cells = ((0, 0), (1, 0), (1, 1), (0, 1))  # laid out on the page as they lie on the table
    for i, label in enumerate(labels):
        marker = cv2.aruco.generateImageMarker(_dictionary(), i, side)
        # a white quiet zone around each marker is part of the printout
        cx, cy = cells[i][0] * cell_w + cell_w // 2, cells[i][1] * cell_h + cell_h // 2
        x, y = cx - side // 2, cy - side // 2
        sheet[y : y + side, x : x + side] = marker
        cv2.putText(sheet, label, (x, y + side + int(12 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                    px_per_mm * 0.35, 0, max(int(px_per_mm * 0.6), 1), cv2.LINE_AA)
    cv2.putText(sheet, f"nerts-referee table markers, ArUco DICT_4X4_50, {marker_mm:g} mm; place each "
                "marker's centre at its table corner (seat 0 at the camera's bottom edge)",
                (int(8 * px_per_mm), int(10 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX, px_per_mm * 0.14, 0, 1,
                cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), sheet):
        raise OSError(f"cannot write {path}")
    return path
