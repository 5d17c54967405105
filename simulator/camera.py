"""The overhead camera: a pinhole above the table, tilted towards seat 0, with mild lens distortion.

World coordinates are table millimetres (x right, y down towards seat 0, origin at the table's
top-left corner) on the plane z = 0; z grows downwards into the table, so the camera sits at
negative z. ``tilt_deg`` swings the camera towards the bottom edge while it keeps looking at the
table centre (0 = straight down). The focal length is chosen so the whole table fits the frame.

>>> cam = Camera.fit((1300.0, 900.0), (1280, 720), tilt_deg=0.0, k1=0.0)
>>> u, v = cam.project([(650.0, 450.0)])[0]
>>> round(float(u)), round(float(v))
(640, 360)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Camera:
    size: tuple[int, int]  # (width, height) pixels
    table_mm: tuple[float, float]
    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    tilt_deg: float
    height_mm: float

    @classmethod
    def fit(cls, table_mm: tuple[float, float], size: tuple[int, int], tilt_deg: float = 10.0,
            k1: float = -0.05, height_mm: float = 1500.0, margin: float = 0.035) -> "Camera":
        w_mm, h_mm = table_mm
        th = math.radians(tilt_deg)
        centre = np.array([w_mm / 2, h_mm / 2, 0.0])
        eye = centre + np.array([0.0, height_mm * math.sin(th), -height_mm * math.cos(th)])
        fwd = (centre - eye) / np.linalg.norm(centre - eye)
        x_c = np.array([1.0, 0.0, 0.0])
        y_c = np.cross(fwd, x_c)
        R = np.stack([x_c, y_c, fwd])
        rvec, _ = cv2.Rodrigues(R)
        tvec = -R @ eye
        dist = np.array([k1, k1 * 0.2, 0.0, 0.0, 0.0])
        W, H = size
        corners = np.array([[0, 0, 0], [w_mm, 0, 0], [w_mm, h_mm, 0], [0, h_mm, 0],
                            [w_mm / 2, 0, 0], [w_mm / 2, h_mm, 0], [0, h_mm / 2, 0], [w_mm, h_mm / 2, 0]], float)
        f, cx, cy = 1000.0, W / 2, H / 2
        for _ in range(4):  # fit the table's projected box (distortion included) into the frame
            K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], float)
            pts, _ = cv2.projectPoints(corners, rvec, tvec, K, dist)
            pts = pts.reshape(-1, 2)
            x0, y0 = pts.min(0)
            x1, y1 = pts.max(0)
            scale = min(W * (1 - 2 * margin) / (x1 - x0), H * (1 - 2 * margin) / (y1 - y0))
            f *= scale
            cx += W / 2 - (cx + ((x0 + x1) / 2 - cx) * scale)
            cy += H / 2 - (cy + ((y0 + y1) / 2 - cy) * scale)
        K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], float)
        return cls(size, table_mm, K, dist, rvec, tvec, tilt_deg, height_mm)

    def project(self, pts_mm) -> np.ndarray:
        """Table points (N, 2) in mm -> image points (N, 2) in pixels (float32)."""
        p = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        p3 = np.concatenate([p, np.zeros((len(p), 1))], axis=1)
        out, _ = cv2.projectPoints(p3, self.rvec, self.tvec, self.K, self.dist)
        return out.reshape(-1, 2).astype(np.float32)

    def px_per_mm(self) -> float:
        w, h = self.table_mm
        a, b = self.project([(w / 2 - 50, h / 2), (w / 2 + 50, h / 2)])
        return float(np.linalg.norm(b - a) / 100.0)

    def table_map(self, ppm: float) -> tuple[np.ndarray, np.ndarray]:
        """For every image pixel, the table-texture pixel it sees (texture at ``ppm`` px/mm):
        the maps for ``cv2.remap``."""
        W, H = self.size
        u, v = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
        pts = np.stack([u.ravel(), v.ravel()], axis=1).reshape(-1, 1, 2)
        norm = cv2.undistortPoints(pts, self.K, self.dist,
                                   criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 8, 1e-4))
        norm = norm.reshape(-1, 2).astype(np.float64)
        R, _ = cv2.Rodrigues(self.rvec)
        rays = np.concatenate([norm, np.ones((len(norm), 1))], axis=1) @ R  # camera -> world dirs (R^T d)
        eye = (-R.T @ self.tvec).ravel()
        s = -eye[2] / rays[:, 2]
        X = eye[0] + s * rays[:, 0]
        Y = eye[1] + s * rays[:, 1]
        return ((X * ppm).reshape(H, W).astype(np.float32), (Y * ppm).reshape(H, W).astype(np.float32))
