"""The overhead camera renderer: turns a game's :class:`~simulator.timeline.Timeline` into frames.

Designed for speed on two cores: everything lying still (table cloth, markers, resting cards) lives
in a cached *static layer* that is redrawn only inside the rectangles that changed; each frame copies
it and composites only what moves (cards in a hand or landing, arms and hands), then applies the
per-frame camera effects (flickering light, sensor noise) in one OpenCV call.

Realism: a tilted pinhole camera with mild barrel distortion (background remapped exactly, each card
warped by the homography of its projected corners), uneven and flickering light, sensor noise,
motion blur along each moving card's image velocity, arms and hands from every seat occluding what
is under them, cards that slide and turn a little as they land, imperfect stacks (from the game's
pose jitter), each deck's back colour, table-cloth textures and optional ArUco markers (DICT_4X4_50,
ids 0..3) at the table corners.

Per frame it also reports every visible card's pose: identity (or ``BACK``), owner, quad in image
pixels, fraction occluded (from a half-resolution id buffer drawn alongside), pile and moving flag.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterator

import cv2
import numpy as np

from simulator.camera import Camera
from simulator.deck_art import DeckArt
from simulator.layout import CARD_H_MM, CARD_W_MM, rot
from simulator.timeline import Flight, Timeline, ease

HAND_ID = 4095  # id of hands and arms in the label buffer (card ids are uid + 1, at most 8 x 54)
LABEL_SCALE = 0.5
MARKER_MM = 70.0
MARKER_INSET_MM = 50.0  # marker centre from the table's corner, along both edges

CLOTHS = ("green_felt", "blue_felt", "wood", "grey_linen", "red_felt")
SKINS = ((140, 170, 225), (110, 145, 200), (80, 110, 160), (60, 85, 125), (150, 180, 230), (95, 125, 180))
SLEEVES = ((60, 60, 60), (140, 80, 30), (40, 40, 140), (200, 200, 200), (40, 110, 40), (120, 40, 110),
           (30, 30, 30), (160, 130, 90))


@dataclass
class RenderConfig:
    size: tuple[int, int] = (1280, 720)
    fps: float = 30.0
    tilt_deg: float = 10.0
    distortion: float = -0.05  # k1: negative = mild barrel
    markers: bool = True
    cloth: str | None = None  # one of CLOTHS; None: chosen by the seed
    noise: float = 3.0  # sensor noise sigma, grey levels
    flicker: float = 0.025  # relative amplitude of the light's flicker
    light: float = 0.25  # unevenness of the light (0 = flat)
    motion_blur: bool = True
    seed: int = 0


def marker_centres(table_mm: tuple[float, float]) -> list[tuple[float, float]]:
    """Centres of markers 0..3 (TL, TR, BR, BL) in table mm."""
    w, h = table_mm
    m = MARKER_INSET_MM
    return [(m, m), (w - m, m), (w - m, h - m), (m, h - m)]


def card_corners_mm(pose: tuple[float, float, float]) -> np.ndarray:
    """The card's corners TL, TR, BR, BL (in its own upright frame) in table mm."""
    x, y, a = pose
    hw, hh = CARD_W_MM / 2, CARD_H_MM / 2
    pts = []
    for lx, ly in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)):
        dx, dy = rot(lx, ly, a)
        pts.append((x + dx, y + dy))
    return np.array(pts, dtype=np.float64)


@dataclass
class Drawn:
    """A card as drawn in one frame (static or moving)."""

    uid: int
    key: str  # sprite key: face name or "back:<colour>"
    face_up: bool
    quad: np.ndarray  # (4, 2) image px
    H: np.ndarray  # sprite px -> image px
    bbox: tuple[int, int, int, int]
    z: float
    pile: str | None
    moving: bool = False
    lquad: np.ndarray | None = None  # label-buffer polygon (int32)
    area: float = 1.0  # label-buffer area of the whole card
    _head: str | None = None  # cached JSON of everything but the occlusion

    def pose(self, renderer: "Renderer", occluded: float) -> dict[str, Any]:
        info = renderer.tl.cards[self.uid]
        return {"uid": self.uid, "card": info.name if self.face_up else "BACK",
                "owner": renderer.owners[info.deck],
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
                "occluded": round(occluded, 3), "pile": self.pile, "moving": self.moving}

    def pose_json(self, renderer: "Renderer", occluded: float) -> str:
        if self._head is None:
            d = self.pose(renderer, 0.0)
            del d["occluded"]
            self._head = json.dumps(d, separators=(",", ":"))[:-1] + ',"occluded":'
        return f"{self._head}{occluded:.3f}}}"


@dataclass
class Frame:
    """One rendered frame: the image and what is visible in it."""

    index: int
    t: float
    image: np.ndarray
    visible: list[tuple[Drawn, float]]  # (card, fraction occluded), bottom to top
    drawn: list[Drawn]  # every card drawn (including fully hidden ones)
    label: np.ndarray  # half-resolution id buffer (uid + 1; HAND_ID for hands)
    renderer: "Renderer"
    hands: list[tuple[float, float]] = field(default_factory=list)  # palm centre per player, image px

    def poses(self) -> list[dict[str, Any]]:
        """Each visible card: uid, identity (or ``BACK``), owner, quad (image px, card's TL TR BR BL),
        fraction occluded, pile id (None while moving between piles) and moving flag."""
        return [d.pose(self.renderer, occ) for d, occ in self.visible]

    def poses_json(self) -> str:
        """The ``poses.jsonl`` line of this frame (without the newline)."""
        cards = ",".join(d.pose_json(self.renderer, occ) for d, occ in self.visible)
        hands = ",".join(f'{{"player":{json.dumps(n)},"xy":[{x:.1f},{y:.1f}]}}'
                         for n, (x, y) in zip(self.renderer.hand_names, self.hands))
        return f'{{"frame":{self.index},"t":{self.t:.6f},"cards":[{cards}],"hands":[{hands}]}}'


class Renderer:
    """Renders a game record frame by frame. Use :meth:`frames`."""

    def __init__(self, timeline: Timeline, table_mm: tuple[float, float], deck: DeckArt,
                 cfg: RenderConfig, owners: dict[int, str], hand_sources: list[tuple[tuple[float, float], tuple[float, float]]],
                 hand_names: list[str] | None = None):
        self.tl = timeline
        self.cfg = cfg
        self.deck = deck
        self.owners = owners  # deck index -> owner name
        self.rng = np.random.default_rng(cfg.seed + 7919)
        W, H = cfg.size
        self.W, self.H = W, H
        self.cam = Camera.fit(table_mm, cfg.size, tilt_deg=cfg.tilt_deg, k1=cfg.distortion)
        self.ppm = self.cam.px_per_mm()
        self.table_mm = table_mm
        # sprites: all cards share one pre-scaled size (about 1.3x their size on screen)
        sw = max(16, int(round(CARD_W_MM * self.ppm * 1.3)))
        sh = max(22, int(round(CARD_H_MM * self.ppm * 1.3)))
        self.sprite_size = (sw, sh)
        self._sprites: dict[str, np.ndarray] = {}
        self._sprite_alpha: dict[str, np.ndarray] = {}
        self.src_quad = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], dtype=np.float32)
        fw, fh = deck.card_size
        self.face_to_sprite = np.diag([sw / fw, sh / fh, 1.0])
        self.hand_sources = hand_sources  # per hand: (shoulder, rest) in table mm
        self.hand_names = hand_names or [str(i) for i in range(len(hand_sources))]
        self.skins = [SKINS[(cfg.seed + i * 3) % len(SKINS)] for i in range(len(timeline.hands))]
        self.sleeves = [SLEEVES[(cfg.seed * 5 + i * 7) % len(SLEEVES)] for i in range(len(timeline.hands))]
        self._build_background()
        self._build_light()
        self.static: dict[int, Drawn] = {}
        self.unlit = self.bg.copy()
        self.lit = self._light_apply(self.unlit)
        lw, lh = int(W * LABEL_SCALE), int(H * LABEL_SCALE)
        self.label_size = (lw, lh)
        self.static_label = np.zeros((lh, lw), np.uint16)
        noise_sigma = max(cfg.noise, 0.0)
        big = self.rng.normal(16.0, noise_sigma, (H + 32, W + 32, 3)) if noise_sigma > 0 else np.full((H + 32, W + 32, 3), 16.0)
        self.noise = np.clip(big, 0, 255).astype(np.uint8)
        self.flicker_phase = self.rng.uniform(0, 2 * math.pi, 3)

    # --- static scenery ----------------------------------------------------------------------
    def _build_background(self) -> None:
        cfg = self.cfg
        rng = np.random.default_rng(cfg.seed + 17)
        cloth = cfg.cloth or CLOTHS[cfg.seed % len(CLOTHS)]
        ppm_tex = 1.5
        margin = 300.0
        w_mm, h_mm = self.table_mm
        tw, th = int((w_mm + 2 * margin) * ppm_tex), int((h_mm + 2 * margin) * ppm_tex)
        floor = np.full((th, tw, 3), (38, 42, 48), np.uint8)
        floor = cv2.add(floor, rng.integers(0, 10, (th, tw, 3), dtype=np.uint8))
        x0, y0 = int(margin * ppm_tex), int(margin * ppm_tex)
        x1, y1 = int((margin + w_mm) * ppm_tex), int((margin + h_mm) * ppm_tex)
        tex = _cloth_texture(cloth, (x1 - x0, y1 - y0), rng)
        floor[y0:y1, x0:x1] = tex
        cv2.rectangle(floor, (x0, y0), (x1 - 1, y1 - 1), (25, 25, 25), 3)
        if cfg.markers:
            dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
            size = int(MARKER_MM * ppm_tex)
            quiet = int(10 * ppm_tex)
            for mid, (cx, cy) in enumerate(marker_centres(self.table_mm)):
                img = cv2.aruco.generateImageMarker(dictionary, mid, size)
                px, py = int((cx + margin) * ppm_tex - size / 2), int((cy + margin) * ppm_tex - size / 2)
                floor[py - quiet:py + size + quiet, px - quiet:px + size + quiet] = 245
                floor[py:py + size, px:px + size] = img[:, :, None]
        mx, my = self.cam.table_map(ppm_tex)
        mx += margin * ppm_tex
        my += margin * ppm_tex
        self.bg = cv2.remap(floor, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self.cloth = cloth

    def _build_light(self) -> None:
        W, H = self.W, self.H
        rng = np.random.default_rng(self.cfg.seed + 29)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        hx, hy = rng.uniform(0.25, 0.75) * W, rng.uniform(0.2, 0.8) * H
        spot = np.exp(-((xx - hx) ** 2 + (yy - hy) ** 2) / (2 * (0.55 * W) ** 2))
        r2 = ((xx - W / 2) / (W / 2)) ** 2 + ((yy - H / 2) / (H / 2)) ** 2
        k = self.cfg.light
        gain = (1.0 - k * 0.5) + k * 0.75 * spot - k * 0.25 * r2
        low = cv2.resize(rng.normal(0, 1, (6, 10)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
        gain += k * 0.08 * low
        self.gain = np.clip(gain, 0.45, 1.2).astype(np.float32)[:, :, None]
        self.bg_unlit = self.bg

    def _light_apply(self, img: np.ndarray, rect: tuple[int, int, int, int] | None = None) -> np.ndarray:
        if rect is None:
            return np.clip(img.astype(np.float32) * self.gain, 0, 255).astype(np.uint8)
        x0, y0, x1, y1 = rect
        return np.clip(img[y0:y1, x0:x1].astype(np.float32) * self.gain[y0:y1, x0:x1], 0, 255).astype(np.uint8)

    # --- sprites -----------------------------------------------------------------------------
    def sprite(self, key: str) -> np.ndarray:
        s = self._sprites.get(key)
        if s is None:
            img = self.deck.back(key[5:]) if key.startswith("back:") else self.deck.face(key)
            s = cv2.resize(img, self.sprite_size, interpolation=cv2.INTER_AREA)
            self._sprites[key] = s
        return s

    def _card(self, uid: int, pose: tuple[float, float, float], face_up: bool, z: float, pile: str | None,
              moving: bool = False) -> Drawn:
        info = self.tl.cards[uid]
        quad = self.cam.project(card_corners_mm(pose))
        Hm = cv2.getPerspectiveTransform(self.src_quad, quad)
        x0, y0 = np.floor(quad.min(0)).astype(int)
        x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
        bbox = (max(0, x0), max(0, y0), min(self.W, x1), min(self.H, y1))
        key = info.name if face_up else "back:" + info.back
        lq = np.round(quad * LABEL_SCALE).astype(np.int32)
        area = max(1.0, cv2.contourArea(quad * LABEL_SCALE) + 0.5 * cv2.arcLength(quad * LABEL_SCALE, True))
        return Drawn(uid, key, face_up, quad, Hm, bbox, z, pile, moving, lq, area)

    def _shadow(self, dst: np.ndarray, d: Drawn, offset: tuple[float, float], strength: float = 0.35) -> None:
        """The soft shadow a lifted card casts on the table (light from the upper left)."""
        sx, sy = offset
        pad = 4
        x0, y0 = max(0, int(d.bbox[0] + sx) - pad), max(0, int(d.bbox[1] + sy) - pad)
        x1, y1 = min(self.W, int(d.bbox[2] + sx) + pad), min(self.H, int(d.bbox[3] + sy) + pad)
        if x0 >= x1 or y0 >= y1:
            return
        alpha = self._sprite_alpha.get(d.key)
        if alpha is None:
            alpha = np.ascontiguousarray(self.sprite(d.key)[:, :, 3])
            self._sprite_alpha[d.key] = alpha
        T = np.array([[1, 0, sx - x0], [0, 1, sy - y0], [0, 0, 1]], np.float64)
        a = cv2.warpPerspective(alpha, T @ d.H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a = cv2.GaussianBlur(a, (0, 0), 2.0).astype(np.float32) * (strength / 255.0)
        roi = dst[y0:y1, x0:x1]
        dst[y0:y1, x0:x1] = (roi.astype(np.float32) * (1.0 - a[:, :, None])).astype(np.uint8)

    def _blit(self, dst: np.ndarray, d: Drawn, rect: tuple[int, int, int, int], blur: tuple[float, float] | None = None,
              lit: bool = False) -> None:
        """Warp card ``d`` into ``dst`` restricted to ``rect`` (x0, y0, x1, y1)."""
        x0, y0, x1, y1 = rect
        bx0, by0, bx1, by1 = d.bbox
        ix0, iy0, ix1, iy1 = max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1)
        if ix0 >= ix1 or iy0 >= iy1:
            return
        pad = 0
        if blur is not None:
            pad = int(math.ceil(max(abs(blur[0]), abs(blur[1])) / 2)) + 1
            ix0, iy0 = max(0, ix0 - pad), max(0, iy0 - pad)
            ix1, iy1 = min(self.W, ix1 + pad), min(self.H, iy1 + pad)
        T = np.array([[1, 0, -ix0], [0, 1, -iy0], [0, 0, 1]], np.float64)
        warped = cv2.warpPerspective(self.sprite(d.key), T @ d.H, (ix1 - ix0, iy1 - iy0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        f = warped.astype(np.float32)
        a = f[:, :, 3:4] * (1.0 / 255.0)
        col = f[:, :, :3] * a  # premultiplied
        if blur is not None:
            k = _motion_kernel(*blur)
            col = cv2.filter2D(col, -1, k)
            a = cv2.filter2D(a, -1, k)[:, :, None] if a.ndim == 3 else cv2.filter2D(a, -1, k)
            if a.ndim == 2:
                a = a[:, :, None]
        if lit:
            g = self.gain[iy0:iy1, ix0:ix1]
            col = col * g
        roi = dst[iy0:iy1, ix0:ix1]
        out = roi.astype(np.float32) * (1.0 - a) + col
        dst[iy0:iy1, ix0:ix1] = np.clip(out, 0, 255).astype(np.uint8)

    # --- static layer maintenance ------------------------------------------------------------
    def _redraw(self, rect: tuple[int, int, int, int]) -> None:
        x0, y0, x1, y1 = rect
        if x0 >= x1 or y0 >= y1:
            return
        self.unlit[y0:y1, x0:x1] = self.bg[y0:y1, x0:x1]
        lx0, ly0 = int(x0 * LABEL_SCALE), int(y0 * LABEL_SCALE)
        lx1, ly1 = int(math.ceil(x1 * LABEL_SCALE)), int(math.ceil(y1 * LABEL_SCALE))
        lab = self.static_label[ly0:ly1, lx0:lx1]
        lab[:] = 0
        hits = [d for d in self.static.values()
                if d.bbox[0] < x1 and d.bbox[2] > x0 and d.bbox[1] < y1 and d.bbox[3] > y0]
        hits.sort(key=lambda d: d.z)
        for d in hits:
            self._blit(self.unlit, d, rect)
            cv2.fillConvexPoly(lab, d.lquad - np.array([lx0, ly0], np.int32), int(d.uid + 1))
        self.lit[y0:y1, x0:x1] = self._light_apply(self.unlit, rect)

    def _apply_placements(self, t: float) -> None:
        pl = self.tl.placements
        dirty: list[tuple[int, int, int, int]] = []
        while self._pi < len(pl) and pl[self._pi].t <= t:
            p = pl[self._pi]
            self._pi += 1
            old = self.static.get(p.uid)
            if old is not None:
                dirty.append(old.bbox)
            if p.kind == "place":
                d = self._card(p.uid, p.pose, p.face_up, p.z, p.pile)
                self.static[p.uid] = d
                dirty.append(d.bbox)
            elif p.kind in ("lift", "remove"):
                self.static.pop(p.uid, None)
            elif p.kind == "flip" and old is not None:
                self.static[p.uid] = self._card(p.uid, self._pose_of_static(p.uid), p.face_up, old.z, old.pile)
        if not dirty:
            return
        self._static_sorted = None
        if len(dirty) > 24:
            self._redraw((0, 0, self.W, self.H))
            return
        for r in _merge_rects(dirty):
            self._redraw(r)

    def _pose_of_static(self, uid: int) -> tuple[float, float, float]:
        return self._poses[uid]

    # --- moving things -----------------------------------------------------------------------
    def _flight_pose(self, fl: Flight, t: float) -> tuple[float, float, float]:
        if t >= fl.t_contact:
            s = ease((t - fl.t_contact) / max(1e-6, fl.t_settle - fl.t_contact))
            return tuple(a + (b - a) * s for a, b in zip(fl.contact, fl.final))  # type: ignore[return-value]
        track = self.tl.hands[fl.hand]
        span = max(1e-6, fl.t_contact - fl.t_grab)
        s = ease((t - fl.t_grab) / span)
        hx, hy = track.at(t)
        g0 = track.at(fl.t_grab)
        g1 = track.at(fl.t_contact)
        off0 = (fl.src[0] - g0[0], fl.src[1] - g0[1])
        off1 = (fl.contact[0] - g1[0], fl.contact[1] - g1[1])
        ang = fl.src[2] + _angle_diff(fl.contact[2], fl.src[2]) * s
        x = hx + off0[0] + (off1[0] - off0[0]) * s
        y = hy + off0[1] + (off1[1] - off0[1]) * s
        return (x, y, ang)

    def _draw_hand(self, frame: np.ndarray, polys: list[tuple[np.ndarray, tuple[int, int, int]]], gain: float,
                   blur: tuple[float, float] | None) -> None:
        """Arm and hand, anti-aliased; a moving hand is drawn on its own layer and motion-blurred."""
        first = 0
        if blur is not None:
            # the sleeve is uniform, so only the forearm end, wrist, palm and fingers need blurring
            first = 2
            for poly, colour in polys[:2]:
                col = tuple(int(min(255, c * gain)) for c in colour)
                cv2.fillConvexPoly(frame, np.round(poly * 16).astype(np.int32), col, lineType=cv2.LINE_AA, shift=4)
            pts = np.concatenate([p for p, _ in polys[2:]])
            pad = int(math.ceil(max(abs(blur[0]), abs(blur[1])) / 2)) + 2
            x0, y0 = np.floor(pts.min(0)).astype(int) - pad
            x1, y1 = np.ceil(pts.max(0)).astype(int) + pad
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(self.W, x1), min(self.H, y1)
            if x0 < x1 and y0 < y1:
                layer = np.zeros((y1 - y0, x1 - x0, 4), np.uint8)
                off = np.array([x0, y0], np.float32)
                for poly, colour in polys[2:]:
                    col = tuple(int(min(255, c * gain)) for c in colour) + (255,)
                    cv2.fillConvexPoly(layer, np.round((poly - off) * 16).astype(np.int32), col,
                                       lineType=cv2.LINE_AA, shift=4)
                f = cv2.filter2D(layer.astype(np.float32), -1, _motion_kernel(*blur))
                a = f[:, :, 3:4] * (1.0 / 255.0)
                roi = frame[y0:y1, x0:x1].astype(np.float32)
                # colours were drawn opaque, so premultiply by the blurred alpha's own coverage
                frame[y0:y1, x0:x1] = np.clip(roi * (1.0 - a) + f[:, :, :3], 0, 255).astype(np.uint8)
            return
        for poly, colour in polys[first:]:
            col = tuple(int(min(255, c * gain)) for c in colour)
            cv2.fillConvexPoly(frame, np.round(poly * 16).astype(np.int32), col, lineType=cv2.LINE_AA, shift=4)

    def _hand_shadow(self, frame: np.ndarray, polys: list[tuple[np.ndarray, tuple[int, int, int]]]) -> None:
        """A soft shadow of the hand and forearm, cast down-right (the light is up-left)."""
        polys = polys[2:]  # wrist, palm, fingers, thumb: the forearm's shadow is lost in the sleeve's
        pts = np.concatenate([p for p, _ in polys])
        off = np.array([7.0, 10.0], np.float32) * (self.ppm / 0.77)
        x0, y0 = np.floor(pts.min(0) + off).astype(int) - 6
        x1, y1 = np.ceil(pts.max(0) + off).astype(int) + 6
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(self.W, x1), min(self.H, y1)
        if x0 >= x1 or y0 >= y1:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        shift = off - np.array([x0, y0], np.float32)
        for poly, _ in polys:
            cv2.fillConvexPoly(mask, np.round(poly + shift).astype(np.int32), 72)  # 72/256: 28% darker
        keep = 256 - cv2.blur(mask, (9, 9)).astype(np.uint16)
        roi = frame[y0:y1, x0:x1]
        frame[y0:y1, x0:x1] = ((roi.astype(np.uint16) * keep[:, :, None]) >> 8).astype(np.uint8)

    def _hand_polys(self, hi: int, t: float) -> list[tuple[np.ndarray, tuple[int, int, int]]]:
        """Arm and hand outlines (image px) for hand ``hi`` at time ``t``."""
        track = self.tl.hands[hi]
        shoulder, rest = self.hand_sources[hi]
        px, py = track.at(t)
        dx, dy = shoulder[0] - px, shoulder[1] - py
        n = math.hypot(dx, dy) or 1.0
        dx, dy = dx / n, dy / n
        nx, ny = -dy, dx

        def P(a: float, b: float) -> tuple[float, float]:  # a along the arm (towards the shoulder), b across
            a += 28.0  # the grip is at the card's near edge: fingertips reach only its middle
            return (px + dx * a + nx * b, py + dy * a + ny * b)

        skin, sleeve = self.skins[hi], self.sleeves[hi]
        elbow_a = min(n, 330.0)
        shapes_mm: list[tuple[list[tuple[float, float]], tuple[int, int, int]]] = []
        shapes_mm.append(([P(elbow_a, -52), P(n + 60, -60), P(n + 60, 60), P(elbow_a, 52)], sleeve))
        shapes_mm.append(([P(115, -32), P(elbow_a, -48), P(elbow_a, 48), P(115, 32)], sleeve))
        shapes_mm.append(([P(78, -30), P(125, -31), P(125, 31), P(78, 30)], skin))  # wrist
        palm = [P(40 + 42 * math.cos(a), 40 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 14, endpoint=False)]
        shapes_mm.append((palm, skin))
        for b, length in ((-24, 40), (-8, 48), (8, 46), (24, 38)):
            shapes_mm.append(([P(20, b - 7), P(20 - length, b - 6), P(20 - length - 5, b), P(20 - length, b + 6),
                               P(20, b + 7)], skin))
        shapes_mm.append(([P(45, 34), P(10, 48), P(5, 42), P(40, 26)], skin))  # thumb
        pts = np.concatenate([np.array(s, np.float64) for s, _ in shapes_mm])
        img = self.cam.project(pts)
        out = []
        k = 0
        for s, colour in shapes_mm:
            out.append((img[k:k + len(s)], colour))
            k += len(s)
        return out

    # --- frames ------------------------------------------------------------------------------
    def frame_count(self) -> int:
        return int(math.floor(self.tl.end_t * self.cfg.fps)) + 1

    def frames(self, start: int = 0, stop: int | None = None) -> Iterator[Frame]:
        """Yield a :class:`Frame` for each of frames ``start..stop-1`` (earlier ones are stepped
        through without drawing, so any range gives the same pixels)."""
        fps = self.cfg.fps
        stop = self.frame_count() if stop is None else stop
        self._pi = 0
        self._static_sorted: list[Drawn] | None = None
        self._poses: dict[int, tuple[float, float, float]] = {}
        # remember each card's latest resting pose (for flips)
        flights = self.tl.flights
        fi = 0
        active: list[Flight] = []
        lw, lh = self.label_size
        exposure = 0.5 / fps
        for i in range(stop):
            t = i / fps
            # static changes up to t
            pl = self.tl.placements
            j = self._pi
            while j < len(pl) and pl[j].t <= t:
                if pl[j].kind == "place":
                    self._poses[pl[j].uid] = pl[j].pose  # type: ignore[assignment]
                j += 1
            self._apply_placements(t)
            while fi < len(flights) and flights[fi].t_grab <= t:
                active.append(flights[fi])
                fi += 1
            active = [f for f in active if f.t_settle > t]
            if i < start:
                continue
            frame = self.lit.copy()
            label = self.static_label.copy()
            moving: list[Drawn] = []
            for fl in sorted(active, key=lambda f: (f.t_grab, f.lift_mm)):
                pose = self._flight_pose(fl, t)
                d = self._card(fl.uid, pose, fl.face_up, 1e9, None, moving=True)
                if t < fl.t_contact:  # carried: lifted off the table, so it casts a shadow
                    s = (t - fl.t_grab) / max(1e-6, fl.t_contact - fl.t_grab)
                    h = 45.0 * 4.0 * s * (1.0 - s) * self.ppm  # peak height 45 mm, in px
                    if h > 0.5:
                        self._shadow(frame, d, (0.35 * h, 0.5 * h))
                blur = None
                if self.cfg.motion_blur:
                    p0 = self.cam.project([self._flight_pose(fl, max(fl.t_grab, t - exposure / 2))[:2]])[0]
                    p1 = self.cam.project([self._flight_pose(fl, min(fl.t_settle, t + exposure / 2))[:2]])[0]
                    v = p1 - p0
                    if abs(v[0]) + abs(v[1]) > 1.5:
                        blur = (float(v[0]), float(v[1]))
                self._blit(frame, d, (0, 0, self.W, self.H), blur=blur, lit=True)
                cv2.fillConvexPoly(label, d.lquad, int(d.uid + 1))
                moving.append(d)
            hands_xy = []
            for hi in range(len(self.tl.hands)):
                polys = self._hand_polys(hi, t)
                self._hand_shadow(frame, polys)
                cx, cy = polys[3][0].mean(0)
                hands_xy.append((float(cx), float(cy)))
                g = float(self.gain[int(min(max(cy, 0), self.H - 1)), int(min(max(cx, 0), self.W - 1)), 0])
                blur = None
                if self.cfg.motion_blur:
                    track = self.tl.hands[hi]
                    a, b = self.cam.project([track.at(t - exposure / 2), track.at(t + exposure / 2)])
                    v = b - a
                    if abs(v[0]) + abs(v[1]) > 2.0:
                        blur = (float(v[0]), float(v[1]))
                self._draw_hand(frame, polys, g, blur)
                # the label buffer only needs the silhouette: arm quads and the hand's hull
                for poly, _ in polys[:2]:
                    cv2.fillConvexPoly(label, np.round(poly * LABEL_SCALE).astype(np.int32), HAND_ID)
                hull = cv2.convexHull(np.round(np.concatenate([p for p, _ in polys[2:]]) * LABEL_SCALE).astype(np.int32))
                cv2.fillConvexPoly(label, hull, HAND_ID)
            frame = self._camera_effects(frame, t)
            if self._static_sorted is None:
                self._static_sorted = sorted(self.static.values(), key=lambda d: d.z)
            drawn = self._static_sorted + moving
            yield Frame(i, t, frame, self._visible(label, drawn), drawn, label, self, hands_xy)

    def _camera_effects(self, frame: np.ndarray, t: float) -> np.ndarray:
        A = self.cfg.flicker
        ph = self.flicker_phase
        g = 1.0 + A * math.sin(2 * math.pi * 1.3 * t + ph[0]) + 0.4 * A * math.sin(2 * math.pi * 7.7 * t + ph[1]) \
            + 0.2 * A * math.sin(2 * math.pi * 0.21 * t + ph[2])
        ox, oy = self.rng.integers(0, 32, 2)
        noise = self.noise[oy:oy + self.H, ox:ox + self.W]
        return cv2.addWeighted(frame, g, noise, 1.0, -16.0)

    def _visible(self, label: np.ndarray, drawn: list[Drawn]) -> list[tuple[Drawn, float]]:
        # pixel count per id (uint16 ids < 4096); calcHist is ~4x faster than np.bincount here
        counts = cv2.calcHist([label], [0], None, [HAND_ID + 1], [0, HAND_ID + 1]).ravel()
        out = []
        for d in drawn:
            vis = counts[d.uid + 1]
            if vis > 0:
                out.append((d, 1.0 - min(1.0, vis / d.area)))
        return out

    def index_boxes(self, d: Drawn, label: np.ndarray | None = None) -> list[np.ndarray]:
        """The printed corner-index boxes of a face-up card, projected into the image (4 corners each)."""
        out = []
        for x0, y0, x1, y1 in self.deck.index_boxes(self.tl.cards[d.uid].name):
            pts = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]], np.float64).T
            img = d.H @ self.face_to_sprite @ pts
            out.append((img[:2] / img[2]).T.astype(np.float32))
        return out


def _angle_diff(a: float, b: float) -> float:
    return (a - b + 180.0) % 360.0 - 180.0


def _motion_kernel(vx: float, vy: float) -> np.ndarray:
    length = max(2, int(round(math.hypot(vx, vy))))
    size = length + (1 - length % 2)
    k = np.zeros((size, size), np.float32)
    c = size // 2
    ang = math.atan2(vy, vx)
    x0, y0 = c - math.cos(ang) * (length - 1) / 2, c - math.sin(ang) * (length - 1) / 2
    x1, y1 = c + math.cos(ang) * (length - 1) / 2, c + math.sin(ang) * (length - 1) / 2
    cv2.line(k, (int(round(x0)), int(round(y0))), (int(round(x1)), int(round(y1))), 1.0, 1)
    s = k.sum()
    return k / s if s > 0 else np.ones((1, 1), np.float32)


def _merge_rects(rects: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Merge overlapping rectangles so each pixel is redrawn once."""
    rs = [list(r) for r in rects if r[0] < r[2] and r[1] < r[3]]
    changed = True
    while changed:
        changed = False
        out: list[list[int]] = []
        for r in rs:
            for o in out:
                if r[0] <= o[2] and o[0] <= r[2] and r[1] <= o[3] and o[1] <= r[3]:
                    o[0], o[1], o[2], o[3] = min(o[0], r[0]), min(o[1], r[1]), max(o[2], r[2]), max(o[3], r[3])
                    changed = True
                    break
            else:
                out.append(r)
        rs = out
    return [tuple(r) for r in rs]  # type: ignore[misc]


def _cloth_texture(kind: str, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    w, h = size
    base = {"green_felt": (60, 110, 40), "blue_felt": (120, 70, 30), "red_felt": (40, 40, 120),
            "grey_linen": (150, 150, 145), "wood": (70, 110, 150)}.get(kind, (60, 110, 40))
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    fine = rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    img += cv2.GaussianBlur(fine, (0, 0), 0.8)[:, :, None] if fine.ndim == 3 else fine
    blotch = cv2.resize(rng.normal(0, 1, (12, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    img += 7 * blotch[:, :, None]
    if kind == "wood":
        yy = np.arange(h, dtype=np.float32)[:, None]
        xx = np.arange(w, dtype=np.float32)[None, :]
        warp = cv2.resize(rng.normal(0, 1, (8, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        grain = np.sin((yy + 25 * warp) * 0.09 + 0.002 * xx) * 0.5 + 0.5
        img *= (0.8 + 0.25 * grain)[:, :, None]
        planks = (np.arange(h) // 180) % 2
        img[planks == 1] *= 0.92
    elif kind == "grey_linen":
        yy, xx = np.mgrid[0:h, 0:w]
        weave = ((xx % 3 == 0) | (yy % 3 == 0)).astype(np.float32)
        img -= 6 * weave[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)
