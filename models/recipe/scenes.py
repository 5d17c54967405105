"""Labelled training scenes composited from deck art (Contract 4 labels, 2 detector classes).

Each scene: a procedural table texture, cards laid out as a loose spread, fanned rows, stacked
foundation piles or one or two big close-up cards, some face down in assorted back colours; then
hands and arms, shadows, glare, uneven light, perspective, anisotropic stretch, blur, noise and
JPEG compression. Every card carries its own id in an occupancy map, so a corner index is
labelled only when most of it is still visible on top (the real-dev convention: hidden indices are
not labelled).

Labels per scene: ``(class, identity, x0, y0, x1, y1)`` in output pixels, class 0 = index,
1 = back (whole face-down card).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from simulator.deck_art import CARD_SIZE, COLOURS_BGR, DeckArt

OUT = 640
INDEX, BACK = 0, 1
IDENTITIES = [
    *(f"{r}{s}" for s in "CDHS" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")),
    "JOKER-B",
    "JOKER-R",
]


@dataclass
class Label:
    cls: int
    identity: str  # card name, or "BACK"
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in output pixels
    colour: str | None = None  # back colour name, for backs
    visible: float = 1.0  # visible share of the card (backs) or of the index


# --- textures -------------------------------------------------------------------------------------


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    small = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def table_texture(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Wood, felt, cloth, plain laminate or a patterned mat, as BGR uint8."""
    kind = rng.choice(["wood", "felt", "plain", "cloth", "pattern", "busy"], p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1])
    base = rng.uniform(20, 235, 3)
    if kind == "wood":
        base = np.array([rng.uniform(40, 140), rng.uniform(80, 170), rng.uniform(120, 220)])
        y = np.arange(h, dtype=np.float32)[:, None]
        warp = _smooth_noise(rng, h, w, 4) * rng.uniform(10, 60)
        grain = np.sin((y + warp) / rng.uniform(2, 9)) * 0.5 + 0.5
        shade = 0.75 + 0.25 * grain + 0.1 * _smooth_noise(rng, h, w, 30)
        img = base[None, None, :] * shade[:, :, None]
        if rng.random() < 0.5:
            img = np.rot90(img).copy() if h == w else img
    elif kind == "felt":
        base = np.array(rng.choice([[40, 110, 30], [110, 60, 20], [60, 60, 60], [40, 40, 120], [90, 90, 30]]), float)
        base *= rng.uniform(0.6, 1.4)
        img = base[None, None, :] * (0.9 + 0.2 * rng.random((h, w, 1)))
    elif kind == "cloth":
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        period = rng.uniform(6, 30)
        check = ((np.floor(x / period) + np.floor(y / period)) % 2)[:, :, None]
        other = rng.uniform(20, 235, 3)
        img = base * check + other * (1 - check)
    elif kind == "pattern":
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        for _ in range(int(rng.integers(10, 60))):
            colour = rng.uniform(0, 255, 3).tolist()
            p1 = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            if rng.random() < 0.5:
                cv2.circle(img, p1, int(rng.integers(3, 40)), colour, -1)
            else:
                p2 = (int(rng.integers(0, w)), int(rng.integers(0, h)))
                cv2.line(img, p1, p2, colour, int(rng.integers(1, 6)))
    elif kind == "busy":  # keyboards, papers, objects at the table's edge
        img = np.empty((h, w, 3), np.uint8)
        img[:] = base.astype(np.uint8)
        for _ in range(int(rng.integers(3, 12))):
            colour = rng.uniform(0, 255, 3).tolist()
            x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
            cv2.rectangle(img, (x0, y0), (x0 + int(rng.integers(20, 200)), y0 + int(rng.integers(20, 200))), colour, -1)
        if rng.random() < 0.5:  # a keyboard-like grid of keys
            kx, ky = int(rng.integers(0, w // 2)), int(rng.integers(h // 2, h))
            key = int(rng.integers(12, 30))
            for r in range(5):
                for c in range(int(rng.integers(8, 20))):
                    x, y = kx + c * (key + 3), ky + r * (key + 3)
                    cv2.rectangle(img, (x, y), (x + key, y + key), (225, 225, 225), -1)
                    cv2.putText(img, chr(65 + (r * 7 + c) % 26), (x + 3, y + key - 4), cv2.FONT_HERSHEY_PLAIN, 0.8, (60, 60, 60), 1)
        img = img.astype(np.float32)
    else:
        img = base[None, None, :] * np.ones((h, w, 1), np.float32)
    img = img * (0.85 + 0.3 * _smooth_noise(rng, h, w, 3)[:, :, None])
    img += rng.normal(0, rng.uniform(1, 8), img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


# --- placing cards --------------------------------------------------------------------------------


def _card_quad(cx: float, cy: float, card_h: float, angle: float, skew: float, rng) -> np.ndarray:
    """The 4 corners (TL, TR, BR, BL) of a card centred at (cx, cy), rotated, slightly warped."""
    w, h = CARD_SIZE
    scale = card_h / h
    hw, hh = w * scale / 2, h * scale / 2
    pts = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]], np.float32)
    pts += rng.normal(0, skew * card_h, pts.shape).astype(np.float32)  # bent / tilted card
    a = np.deg2rad(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    return pts @ rot.T + np.array([cx, cy], np.float32)


@dataclass
class Placed:
    id: int
    identity: str  # card name or "BACK"
    quad: np.ndarray  # 4x2 float32 corners in canvas pixels
    boxes: list  # index boxes in face pixels
    colour: str | None = None


class Scene:
    """A canvas with an occupancy map; cards and occluders are composited in order."""

    def __init__(self, rng: np.random.Generator, h: int, w: int):
        self.rng = rng
        self.img = table_texture(rng, h, w).astype(np.float32)
        self.owner = np.zeros((h, w), np.int32)  # 0 = table/occluder, k = card k
        self.cards: list[Placed] = []

    def add_card(self, art: np.ndarray, identity: str, quad: np.ndarray, boxes: list, shadow: bool = True,
                 colour: str | None = None) -> None:
        """Composite one card inside its own bounding box (whole-canvas warps are 10x slower)."""
        h, w = self.owner.shape
        pad = 8
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - pad
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + pad
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        self.cards.append(Placed(len(self.cards) + 1, identity, quad, boxes, colour))
        if x1 <= x0 or y1 <= y0:
            return
        src = np.array([[0, 0], [CARD_SIZE[0], 0], [CARD_SIZE[0], CARD_SIZE[1]], [0, CARD_SIZE[1]]], np.float32)
        H = cv2.getPerspectiveTransform(src, (quad - np.float32([x0, y0])).astype(np.float32))
        rw, rh = x1 - x0, y1 - y0
        warped = cv2.warpPerspective(art, H, (rw, rh), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
        roi = self.img[y0:y1, x0:x1]
        if shadow and self.rng.random() < 0.8:  # soft drop shadow under the card
            off = self.rng.normal(0, 3, 2)
            M = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
            sh = cv2.warpAffine(alpha[:, :, 0], M, (rw, rh))
            sh = cv2.GaussianBlur(sh, (0, 0), self.rng.uniform(1.5, 4))[:, :, None]
            roi *= 1 - self.rng.uniform(0.15, 0.45) * sh
        roi[:] = roi * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha
        self.owner[y0:y1, x0:x1][alpha[:, :, 0] > 0.5] = len(self.cards)

    def occlude(self, mask: np.ndarray, colour_img: np.ndarray) -> None:
        m = mask.astype(np.float32)[:, :, None]
        self.img = self.img * (1 - m) + colour_img * m
        self.owner[mask > 0.5] = 0


def _skin(rng) -> np.ndarray:
    lab = np.uint8([[[rng.uniform(90, 215), rng.uniform(138, 158), rng.uniform(135, 165)]]])
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)[0, 0].astype(np.float32)


def add_hand(scene: Scene) -> None:
    """A hand (palm + fingers) reaching in from an edge, or a sleeve-covered arm."""
    rng = scene.rng
    h, w = scene.owner.shape
    mask = np.zeros((h, w), np.float32)
    edge = rng.integers(4)
    t = rng.uniform(0.1, 0.9)
    start = [(t * w, -20), (w + 20, t * h), (t * w, h + 20), (-20, t * h)][edge]
    reach = rng.uniform(0.2, 0.55) * min(h, w)
    direction = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][edge], np.float32)
    direction = direction + rng.normal(0, 0.35, 2)
    direction /= np.linalg.norm(direction)
    end = np.array(start) + direction * reach
    size = rng.uniform(0.05, 0.11) * min(h, w)
    cv2.line(mask, tuple(map(int, start)), tuple(map(int, end)), 1.0, int(size * 1.5))
    cv2.ellipse(mask, tuple(map(int, end)), (int(size * 1.1), int(size * 0.9)), float(np.degrees(np.arctan2(direction[1], direction[0]))), 0, 360, 1.0, -1)
    base_angle = np.arctan2(direction[1], direction[0])
    for k in range(int(rng.integers(2, 6))):
        a = base_angle + rng.uniform(-0.9, 0.9)
        length = size * rng.uniform(1.0, 2.2)
        tip = end + np.array([np.cos(a), np.sin(a)]) * length
        cv2.line(mask, tuple(map(int, end)), tuple(map(int, tip)), 1.0, max(3, int(size * rng.uniform(0.28, 0.4))))
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
    skin = _skin(rng)
    shade = 0.8 + 0.35 * _smooth_noise(rng, h, w, 6)[:, :, None]
    colour = skin[None, None, :] * shade
    if rng.random() < 0.3:  # a sleeve over the forearm part
        sleeve = np.zeros((h, w), np.float32)
        mid = np.array(start) + direction * reach * 0.5
        cv2.line(sleeve, tuple(map(int, start)), tuple(map(int, mid)), 1.0, int(size * 2.0))
        colour = np.where(sleeve[:, :, None] > 0, rng.uniform(0, 255, 3)[None, None, :] * shade, colour)
        mask = np.maximum(mask, sleeve)
    scene.occlude(mask, colour)


def _pick_art(rng, decks: list[DeckArt], back_decks: list[DeckArt], p_back: float, back_colours=None):
    """(art, identity, index boxes, back colour) of one random card."""
    if rng.random() < p_back:
        deck = back_decks[int(rng.integers(len(back_decks)))]
        if back_colours:
            name = str(back_colours[int(rng.integers(len(back_colours)))])
        elif rng.random() < 0.5:
            name = str(rng.choice(sorted(COLOURS_BGR)))
        else:
            name = "#%02x%02x%02x" % tuple(int(v) for v in rng.integers(0, 256, 3))
        return deck.back(name), "BACK", [], name
    deck = decks[int(rng.integers(len(decks)))]
    identity = IDENTITIES[int(rng.integers(52))] if rng.random() > 0.01 else str(rng.choice(IDENTITIES[52:]))
    return deck.face(identity), identity, deck.index_boxes(identity), None


def _angle(rng) -> float:
    """Card rotation: half near a player's axis (0/90/180/270 +- 20 deg), half anything."""
    if rng.random() < 0.5:
        return float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 12))
    return float(rng.uniform(0, 360))


def render_scene(rng: np.random.Generator, decks: list[DeckArt], back_decks: list[DeckArt],
                 back_share: float | None = None, back_colours: list[str] | None = None,
                 layout: str | None = None, close_size: tuple[float, float] = (0.45, 0.95)
                 ) -> tuple[np.ndarray, list[Label]]:
    """One labelled scene, BGR uint8 OUT x OUT. ``back_share`` overrides the share of face-down
    cards, ``back_colours`` limits their colours (the back-owner bench uses both); ``layout``
    forces one layout, ``close_size`` is a close-up card's height as a share of the view (above 1:
    the card overflows the view, its indices 100-200 px tall, like a phone photo of one card)."""
    # Render at a random size and aspect, then resize to OUT x OUT: the real-dev photos were
    # stretched to 640x640 by their publisher, so card proportions vary.
    cw, ch = int(rng.uniform(480, 900)), int(rng.uniform(480, 900))
    scene = Scene(rng, ch, cw)
    if layout is None:
        layout = rng.choice(["spread", "fan", "piles", "close"], p=[0.4, 0.2, 0.2, 0.2])
    elif layout not in ("spread", "fan", "piles", "close"):
        raise ValueError(f"layout: {layout!r} is not one of spread, fan, piles, close")
    deck_pool = [decks[int(rng.integers(len(decks)))]] if rng.random() < 0.6 else decks
    if layout == "close":
        n = int(rng.integers(1, 3))
        for _ in range(n):
            card_h = rng.uniform(*close_size) * min(cw, ch)
            art, ident, boxes, colour = _pick_art(rng, deck_pool, back_decks, 0.1 if back_share is None else back_share, back_colours)
            spread = 0.25 if card_h <= min(cw, ch) else 0.45  # an overflowing card shows one corner or another
            quad = _card_quad(rng.uniform(0.5 - spread, 0.5 + spread) * cw, rng.uniform(0.5 - spread, 0.5 + spread) * ch, card_h,
                              rng.choice([0, 90, 180, 270]) + rng.normal(0, 12), 0.03, rng)
            scene.add_card(art, ident, quad, boxes, colour=colour)
    else:
        # real webcam indices are 24-66 px tall at 640: cards 0.2-0.45 of the view, some smaller
        card_h = (rng.uniform(0.2, 0.45) if rng.random() < 0.8 else rng.uniform(0.12, 0.2)) * min(cw, ch)
        if layout == "spread":
            for _ in range(int(rng.integers(3, 15))):
                art, ident, boxes, colour = _pick_art(rng, deck_pool, back_decks, 0.2 if back_share is None else back_share, back_colours)
                quad = _card_quad(rng.uniform(0, cw), rng.uniform(0, ch), card_h * rng.uniform(0.9, 1.1),
                                  _angle(rng), 0.02, rng)
                scene.add_card(art, ident, quad, boxes, colour=colour)
        elif layout == "fan":
            for _ in range(int(rng.integers(1, 4))):
                x, y = rng.uniform(0.1, 0.7) * cw, rng.uniform(0.2, 0.8) * ch
                angle = _angle(rng)
                step = card_h * rng.uniform(0.15, 0.35)
                turn = rng.normal(0, 6)
                d = np.deg2rad(angle)
                for k in range(int(rng.integers(3, 9))):
                    art, ident, boxes, colour = _pick_art(rng, deck_pool, back_decks, 0.1 if back_share is None else back_share, back_colours)
                    quad = _card_quad(x + k * step * np.cos(d), y + k * step * np.sin(d), card_h,
                                      angle + k * turn + rng.normal(0, 2), 0.015, rng)
                    scene.add_card(art, ident, quad, boxes, shadow=True, colour=colour)
        else:  # piles: foundation stacks, each a few cards nearly on top of each other
            for _ in range(int(rng.integers(2, 7))):
                x, y = rng.uniform(0.05, 0.95) * cw, rng.uniform(0.05, 0.95) * ch
                angle = _angle(rng)
                for _k in range(int(rng.integers(1, 6))):
                    art, ident, boxes, colour = _pick_art(rng, deck_pool, back_decks, 0.15 if back_share is None else back_share, back_colours)
                    quad = _card_quad(x + rng.normal(0, 0.06 * card_h), y + rng.normal(0, 0.06 * card_h), card_h,
                                      angle + rng.normal(0, 15), 0.015, rng)
                    scene.add_card(art, ident, quad, boxes, colour=colour)
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        add_hand(scene)
    img = scene.img
    # light: uneven illumination, colour cast, soft shadows, glare
    img *= (0.6 + 0.6 * _smooth_noise(rng, ch, cw, 2))[:, :, None]
    img *= rng.uniform(0.85, 1.1, 3)[None, None, :]
    if rng.random() < 0.4:
        sh = np.zeros((ch, cw), np.float32)
        pts = rng.uniform(0, 1, (5, 2)) * [cw, ch]
        cv2.fillPoly(sh, [pts.astype(np.int32)], 1.0)
        sh = cv2.GaussianBlur(sh, (0, 0), rng.uniform(5, 30))
        img *= (1 - rng.uniform(0.2, 0.5) * sh)[:, :, None]
    if rng.random() < 0.35:
        gl = np.zeros((ch, cw), np.float32)
        cv2.ellipse(gl, (int(rng.uniform(0, cw)), int(rng.uniform(0, ch))),
                    (int(rng.uniform(10, 120)), int(rng.uniform(10, 80))), rng.uniform(0, 180), 0, 360, 1.0, -1)
        gl = cv2.GaussianBlur(gl, (0, 0), rng.uniform(5, 25))
        img += (rng.uniform(60, 200) * gl)[:, :, None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    # camera: a global perspective tilt, then resize to OUT x OUT
    src = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
    j = 0.08 * min(cw, ch)
    dst = (src + rng.uniform(-j, j, (4, 2)).astype(np.float32)) * np.float32([OUT / cw, OUT / ch])
    H = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(img, H, (OUT, OUT), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
    owner = cv2.warpPerspective(scene.owner, H, (OUT, OUT), flags=cv2.INTER_NEAREST, borderValue=0)
    labels = _labels(scene, H, owner)
    img = _degrade(rng, img)
    return img, labels


def _labels(scene: Scene, H: np.ndarray, owner: np.ndarray) -> list[Label]:
    labels: list[Label] = []
    w, h = CARD_SIZE
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    for card in scene.cards:
        Hc = H @ cv2.getPerspectiveTransform(src, card.quad.astype(np.float32))
        full = cv2.perspectiveTransform(src[None], Hc)[0]
        fx0, fy0 = np.clip(np.floor(full.min(axis=0)).astype(int), 0, OUT)
        fx1, fy1 = np.clip(np.ceil(full.max(axis=0)).astype(int) + 1, 0, OUT)
        mine = np.zeros(owner.shape, bool)  # only the card's own bounding box is searched
        mine[fy0:fy1, fx0:fx1] = owner[fy0:fy1, fx0:fx1] == card.id
        if not mine[fy0:fy1, fx0:fx1].any():
            continue
        if card.identity == "BACK":
            ys, xs = np.nonzero(mine[fy0:fy1, fx0:fx1])
            xs, ys = xs + fx0, ys + fy0
            area = cv2.contourArea(full)
            if len(xs) > 0.35 * area and len(xs) > 150:
                labels.append(Label(BACK, "BACK", (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)),
                                    card.colour, len(xs) / max(area, 1.0)))
            continue
        for x0, y0, x1, y1 in card.boxes:
            quad = cv2.perspectiveTransform(np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]), Hc)[0]
            qx0, qy0 = np.floor(quad.min(axis=0)).astype(int)
            qx1, qy1 = np.ceil(quad.max(axis=0)).astype(int) + 1
            cx0, cy0, cx1, cy1 = max(qx0, 0), max(qy0, 0), min(qx1, OUT), min(qy1, OUT)
            if cx1 <= cx0 or cy1 <= cy0:
                continue
            poly = np.zeros((qy1 - qy0, qx1 - qx0), np.uint8)
            cv2.fillConvexPoly(poly, np.round(quad - [qx0, qy0]).astype(np.int32), 1)
            total = int(poly.sum())
            if total < 30:
                continue
            sub = poly[cy0 - qy0:cy1 - qy0, cx0 - qx0:cx1 - qx0] > 0
            visible = int((mine[cy0:cy1, cx0:cx1] & sub).sum())
            bx0, by0 = quad.min(axis=0)
            bx1, by1 = quad.max(axis=0)
            inside = max(0.0, min(bx1, OUT) - max(bx0, 0)) * max(0.0, min(by1, OUT) - max(by0, 0))
            if visible >= 0.7 * total and inside >= 0.7 * (bx1 - bx0) * (by1 - by0):
                labels.append(Label(INDEX, card.identity, (float(max(bx0, 0)), float(max(by0, 0)),
                                                            float(min(bx1, OUT)), float(min(by1, OUT)))))
    return labels


def _degrade(rng, img: np.ndarray) -> np.ndarray:
    """Blur, sensor noise, salt-and-pepper speckle, JPEG compression."""
    r = rng.random()
    if r < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.8))
    elif r < 0.45:
        k = int(rng.integers(3, 9))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, M, (k, k))
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    if rng.random() < 0.6:
        img = np.clip(img.astype(np.float32) + rng.normal(0, rng.uniform(2, 12), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.1:
        speck = rng.random(img.shape[:2]) < rng.uniform(0.002, 0.02)
        img[speck] = rng.integers(0, 256, (int(speck.sum()), 3))
    quality = int(rng.uniform(25, 95))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
