"""Deck artwork: the shared card folders and the project's own drawn deck, at one size.

A deck folder (``../shared/cards/<deck>``) holds ``<RANK><SUIT>.png`` (RANK in A 2-10 J Q K, SUIT in
C D H S), optional ``BACK-<colour>.png`` and ``JOKER-R.png`` / ``JOKER-B.png``. Every face is
normalised to :data:`CARD_SIZE` (width, height) BGRA so the renderer and the detector recipe can mix
designs freely. :meth:`DeckArt.drawn` draws a deck with OpenCV alone (Hershey fonts, polygons), so
the simulator and demo work without ``../shared``.

``index_boxes(card)`` finds each printed corner index (rank + suit pip) from the ink in the corner
regions of the face itself, so a new design needs no hand-made table; these boxes are the labels of
Contract 4 (docs/architecture.md).

>>> deck = DeckArt.drawn()
>>> deck.face("10H").shape
(350, 250, 4)
>>> len(deck.index_boxes("QS"))
2
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from nerts_referee.errors import UsageError
from referee.cards import FULL_DECK, Card, UnknownCard, rank_text

CARD_SIZE: tuple[int, int] = (250, 350)
"""(width, height) of every face and back, in pixels: the 63x88 mm poker card aspect."""

JOKERS: tuple[str, str] = ("JOKER-B", "JOKER-R")
"""Joker keys; ``"BLACK JOKER"`` / ``"RED JOKER"`` (the real-dev class names) are accepted too."""

Box = tuple[int, int, int, int]

# Named back colours (BGR). The 16 HTML basic colours are the names of the french-pattern backs;
# a few everyday names are added so a table file can say "orange" or "pink".
COLOURS_BGR: dict[str, tuple[int, int, int]] = {
    "black": (0, 0, 0), "silver": (192, 192, 192), "gray": (128, 128, 128), "grey": (128, 128, 128),
    "white": (255, 255, 255), "maroon": (0, 0, 128), "red": (0, 0, 255), "purple": (128, 0, 128),
    "fuchsia": (255, 0, 255), "magenta": (255, 0, 255), "green": (0, 128, 0), "lime": (0, 255, 0),
    "olive": (0, 128, 128), "yellow": (0, 255, 255), "navy": (128, 0, 0), "blue": (255, 0, 0),
    "teal": (128, 128, 0), "aqua": (255, 255, 0), "cyan": (255, 255, 0), "orange": (0, 165, 255),
    "pink": (203, 192, 255), "brown": (42, 42, 165), "gold": (0, 215, 255),
    "darkgreen": (0, 100, 0), "darkred": (0, 0, 139), "darkblue": (139, 0, 0),
    "default": (255, 98, 0),  # the french-pattern "default" back is #0062ff
}
_HEX_RE = re.compile(r"^#?([0-9a-fA-F]{6})$")
_FACE_RE = re.compile(r"^(10|[2-9AJQK])([CDHS])$")


class DeckArtError(UsageError, ValueError):
    """A deck folder or image that cannot be used (unknown folder, missing or unreadable file)."""


def colour_bgr(colour: str) -> tuple[int, int, int]:
    """``"red"``, ``"Navy"``, ``"#0062ff"`` or ``"0062ff"`` -> BGR tuple."""
    if not isinstance(colour, str):
        raise DeckArtError(f"back colour must be a name or '#rrggbb', got {colour!r}")
    text = colour.strip().lower()
    if text in COLOURS_BGR:
        return COLOURS_BGR[text]
    match = _HEX_RE.match(text)
    if match:
        value = int(match.group(1), 16)
        return (value & 255, (value >> 8) & 255, (value >> 16) & 255)
    raise DeckArtError(
        f"unknown back colour {colour!r}: use '#rrggbb' or one of {', '.join(sorted(COLOURS_BGR))}"
    )


def card_key(card: Card | str) -> str:
    """Normalise a card to its file stem: ``"10H"``, ``"QS"``, ``"JOKER-R"``."""
    if isinstance(card, Card):
        return str(card)
    if not isinstance(card, str):
        raise UnknownCard(f"card must be a Card or a name like '10H', got {card!r}")
    text = card.strip().upper()
    aliases = {"BLACK JOKER": "JOKER-B", "RED JOKER": "JOKER-R", "JOKER-B": "JOKER-B", "JOKER-R": "JOKER-R"}
    if text in aliases:
        return aliases[text]
    return str(Card.parse(text))


def _fit(image: np.ndarray) -> np.ndarray:
    """Resize any card image to CARD_SIZE, BGRA (opaque if it had no alpha)."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    if image.dtype != np.uint8:  # 16-bit PNGs
        image = (image / 257).astype(np.uint8)
    return cv2.resize(image, CARD_SIZE, interpolation=cv2.INTER_AREA)


def _corner_index_box(face: np.ndarray, tall: bool = False) -> Box | None:
    """Box around the printed index in the top-left corner of a normalised BGRA face.

    Ink = pixels far from the paper colour. Connected ink blobs in the corner region that do not
    run into the region's far edges (court-card frames, big pips) are candidates; the blob nearest
    the corner seeds the index. Ink is then narrowed to the seed's own colour (indices are one
    colour; the court art beside them is not) and blobs stacked under it / beside it (the suit pip,
    the "0" of "10", the letters of "JOKER") are merged while they stay close. ``tall`` widens the
    search for the long vertical "Joker" indices.
    """
    h, w = face.shape[:2]
    bgr = face[:, :, :3].astype(np.int16)
    inside = cv2.erode((face[:, :, 3] > 200).astype(np.uint8), np.ones((7, 7), np.uint8))
    ring = inside.astype(bool) & ~cv2.erode(inside, np.ones((15, 15), np.uint8)).astype(bool)
    paper = np.median(bgr[ring], axis=0) if ring.any() else np.array([255, 255, 255])
    ink = (np.abs(bgr - paper).max(axis=2) > 70) & inside.astype(bool)
    margin = max(2, w // 60) + 3  # skip the printed card outline
    ink[:margin, :] = False
    ink[:, :margin] = False
    rw, rh = int(w * 0.40), int(h * (0.75 if tall else 0.45))
    max_h = 0.7 * h if tall else 0.3 * h

    def blobs_of(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask[:rh, :rw].astype(np.uint8), connectivity=8)
        out = []
        for x, y, bw, bh, area in stats[1:]:
            if area < 6 or x + bw >= rw - 1 or y + bh >= rh - 1:  # reaches the far edge: art, not index
                continue
            if bw > 0.25 * w or bh > max_h:
                continue
            out.append((int(x), int(y), int(x + bw), int(y + bh)))
        return out

    blobs = blobs_of(ink)
    if not blobs:
        return None
    seed = min(blobs, key=lambda b: b[0] + b[1])
    # Indices are printed red or black: keep only ink of the seed's class.
    red = (bgr[:, :, 2] - np.maximum(bgr[:, :, 0], bgr[:, :, 1])) > 50
    dark = bgr.max(axis=2) < 110
    seed_ink = ink[seed[1]:seed[3], seed[0]:seed[2]]
    seed_red = red[seed[1]:seed[3], seed[0]:seed[2]][seed_ink].sum()
    seed_dark = dark[seed[1]:seed[3], seed[0]:seed[2]][seed_ink].sum()
    same = ink & (red if seed_red >= seed_dark else dark)
    blobs = blobs_of(same) or blobs
    seed = min(blobs, key=lambda b: b[0] + b[1])
    box = list(seed)
    rest = [b for b in blobs if b != seed]

    def grow(b: tuple[int, int, int, int]) -> None:
        box[:] = [min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3])]
        rest.remove(b)

    # Same text line as the seed ("1" + "0", "J O K E R"): tops and bottoms agree, small gap.
    line_tol = 0.2 * (seed[3] - seed[1])
    changed = True
    while changed:
        changed = False
        for b in list(rest):
            if (abs(b[1] - seed[1]) <= line_tol and abs(b[3] - seed[3]) <= line_tol
                    and -0.01 * w <= b[0] - box[2] <= 0.04 * w):
                grow(b)
                changed = True
    # Then what is stacked under it (the suit pip, vertical "Joker" letters): centred under the
    # index, no wider than it by much, close below.
    changed = True
    while changed:
        changed = False
        for b in list(rest):
            bw, width = b[2] - b[0], box[2] - box[0]
            centre = (b[0] + b[2]) / 2
            if (box[0] - 0.8 * width <= centre <= box[2] + 0.8 * width and bw <= 3.2 * width
                    and b[3] - b[1] <= 1.6 * (seed[3] - seed[1]) and b[0] < box[2]
                    and b[1] >= box[1] + 0.4 * (box[3] - box[1]) and b[1] - box[3] <= 0.05 * h):
                grow(b)
                changed = True
    pad = 2
    return (max(0, box[0] - pad), max(0, box[1] - pad), min(w, box[2] + pad), min(h, box[3] + pad))


# --- the drawn deck -------------------------------------------------------------------------------

_RED = (30, 30, 200)
_BLACK = (25, 25, 25)


def draw_pip(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour, flip: bool = False) -> None:
    """Draw a suit symbol of height ``size`` centred on (cx, cy); ``flip`` turns it upside down."""
    s = size / 2.0
    sign = -1.0 if flip else 1.0

    def pt(dx: float, dy: float) -> tuple[int, int]:
        return (int(round((cx + dx * s) * 16)), int(round((cy + sign * dy * s) * 16)))

    def circle(dx: float, dy: float, r: float) -> None:
        cv2.circle(img, pt(dx, dy), int(round(r * s * 16)), colour, -1, cv2.LINE_AA, shift=4)

    def poly(points) -> None:
        cv2.fillPoly(img, [np.array([pt(*p) for p in points], np.int32)], colour, cv2.LINE_AA, shift=4)

    if suit == "D":
        poly([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])
    elif suit == "H":
        circle(-0.42, -0.42, 0.46)
        circle(0.42, -0.42, 0.46)
        poly([(-0.86, -0.3), (0.86, -0.3), (0, 0.95)])
    elif suit == "S":
        circle(-0.42, 0.22, 0.44)
        circle(0.42, 0.22, 0.44)
        poly([(-0.84, 0.1), (0.84, 0.1), (0, -1.0)])
        poly([(0, 0.25), (0.35, 1.0), (-0.35, 1.0)])
    elif suit == "C":
        circle(0, -0.5, 0.38)
        circle(-0.45, 0.12, 0.38)
        circle(0.45, 0.12, 0.38)
        circle(0, 0.05, 0.25)
        poly([(0, 0.0), (0.32, 1.0), (-0.32, 1.0)])
    else:  # joker star
        pts = []
        for k in range(10):
            r = 1.0 if k % 2 == 0 else 0.45
            a = -np.pi / 2 + k * np.pi / 5
            pts.append((r * np.cos(a), r * np.sin(a) * sign))
        poly(pts)


# (font, rank thickness) per drawn style; style 0 is the deck the demo shows. OpenCV 5 renders the
# duplex/complex/triplex faces alike, so these give three distinct typefaces there (six on 4.x).
_STYLES = (
    (cv2.FONT_HERSHEY_DUPLEX, 3),
    (cv2.FONT_HERSHEY_COMPLEX, 2),
    (cv2.FONT_HERSHEY_TRIPLEX, 2),
    (cv2.FONT_HERSHEY_SIMPLEX, 3),
    (cv2.FONT_HERSHEY_COMPLEX, 3),
    (cv2.FONT_HERSHEY_PLAIN, 2),
)
DRAWN_STYLES = len(_STYLES)


def _put_text_fit(img: np.ndarray, text: str, x0: int, y0: int, width: int, height: int, colour, thick: int,
                  font: int = cv2.FONT_HERSHEY_DUPLEX) -> None:
    """Hershey text scaled to fit the box (x0, y0, width, height), top-left anchored."""
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = min(width / tw, height / th)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (x0 + (width - tw) // 2, y0 + th), font, scale, colour, thick, cv2.LINE_AA)


def card_alpha() -> np.ndarray:
    """The rounded-corner alpha mask every drawn card shares."""
    w, h = CARD_SIZE
    mask = np.zeros((h, w), np.uint8)
    r = 14
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _with_alpha(bgr: np.ndarray) -> np.ndarray:
    # Drawing happens on 3 channels: OpenCV's anti-aliasing would blend a 4th channel too.
    return np.dstack([bgr, card_alpha()])


# Pip layouts for 2..10 as (x, y) fractions of the pip field.
PIP_LAYOUT: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _draw_face(key: str, style: int = 0) -> np.ndarray:
    w, h = CARD_SIZE
    font, thick = _STYLES[style]
    img = np.full((h, w, 3), (252, 252, 250), np.uint8)
    cv2.rectangle(img, (3, 3), (w - 4, h - 4), (200, 200, 200), 1, cv2.LINE_AA)
    if key.startswith("JOKER"):
        colour = _RED if key == "JOKER-R" else _BLACK
        label, suit = "JK", "*"
        centre_text = "JOKER"
    else:
        card = Card.parse(key)
        colour = _RED if card.colour == "red" else _BLACK
        label, suit = rank_text(card.rank), card.suit
        centre_text = label if card.rank in (1, 11, 12, 13) else ""
    # The top-left index, then the same corner turned 180 degrees to the bottom-right.
    _put_text_fit(img, label, 9, 12, 38 if len(label) > 1 else 28, 32, colour, thick, font)
    draw_pip(img, suit, 28, 66, 28, colour)
    rot = cv2.rotate(img, cv2.ROTATE_180)
    rot_img = img.copy()
    rot_img[h - 90:, w - 55:] = rot[h - 90:, w - 55:]
    img = rot_img
    # Centre: pips for 2..10, a framed panel with a big letter and pip for A, courts and jokers.
    if centre_text:
        if centre_text != "A":
            cv2.rectangle(img, (62, 62), (w - 63, h - 63), colour, 2, cv2.LINE_AA)
            _put_text_fit(img, centre_text, 78, 90, w - 156, 60, colour, thick + 1, font)
            draw_pip(img, suit, w / 2, h / 2 + 50, 70, colour)
        else:
            draw_pip(img, suit, w / 2, h / 2, 110, colour)
    else:
        n = Card.parse(key).rank
        for fx, fy in PIP_LAYOUT[n]:
            x = 82 + fx * (w - 164)
            y = 80 + fy * (h - 160)
            draw_pip(img, suit, x, y, 40, colour, flip=fy > 0.5)
    return _with_alpha(img)


def _draw_back(bgr: tuple[int, int, int]) -> np.ndarray:
    """A generated back: white border, coloured field with a lattice of white diamonds."""
    w, h = CARD_SIZE
    img = np.full((h, w, 3), 255, np.uint8)
    field = np.zeros((h, w, 3), np.uint8)
    field[:] = bgr
    for k in range(-h, w + h, 18):
        cv2.line(field, (k, 0), (k + h, h), (255, 255, 255), 2, cv2.LINE_AA)
        cv2.line(field, (k, 0), (k - h, h), (255, 255, 255), 2, cv2.LINE_AA)
    cv2.ellipse(field, (w // 2, h // 2), (50, 70), 0, 0, 360, bgr, -1, cv2.LINE_AA)
    cv2.ellipse(field, (w // 2, h // 2), (50, 70), 0, 0, 360, (255, 255, 255), 3, cv2.LINE_AA)
    img[12:h - 12, 12:w - 12] = field[12:h - 12, 12:w - 12]
    return _with_alpha(img)


def _recolour(template: np.ndarray, bgr: tuple[int, int, int]) -> np.ndarray:
    """Recolour a one-colour-on-white back: lightness 1 keeps white, the darkest ink gets ``bgr``."""
    lab = cv2.cvtColor(template[:, :, :3], cv2.COLOR_BGR2LAB)[:, :, 0].astype(np.float32)
    opaque = template[:, :, 3] > 128
    lo, hi = np.percentile(lab[opaque], 5), np.percentile(lab[opaque], 99)
    t = np.clip((lab - lo) / max(hi - lo, 1.0), 0, 1)[:, :, None]
    out = template.copy()
    out[:, :, :3] = (255.0 * t + np.array(bgr, np.float32) * (1 - t)).astype(np.uint8)
    return out


# --- the deck -------------------------------------------------------------------------------------


@dataclass
class DeckArt:
    """One deck design: faces, backs and index boxes, all at :data:`CARD_SIZE`, cached."""

    name: str
    folder: Path | None = None
    card_size: tuple[int, int] = CARD_SIZE
    _faces: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _backs: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _boxes: dict[str, list[Box]] = field(default_factory=dict, repr=False)
    _back_files: dict[str, Path] = field(default_factory=dict, repr=False)
    style: int = 0

    @classmethod
    def load(cls, folder: str | Path) -> "DeckArt":
        """A deck folder in the ``../shared/cards/<deck>`` format; checks all 52 faces exist."""
        path = Path(folder)
        if not path.is_dir():
            raise DeckArtError(f"deck folder not found: {path}")
        missing = [f"{c}.png" for c in FULL_DECK if not (path / f"{c}.png").is_file()]
        if missing:
            raise DeckArtError(
                f"deck folder {path} is missing {len(missing)} card image(s): {', '.join(missing[:6])}"
                + (" ..." if len(missing) > 6 else "")
            )
        deck = cls(name=path.name, folder=path)
        for back in sorted(path.glob("BACK-*.png")):
            deck._back_files[back.stem[5:].lower()] = back
        return deck

    @classmethod
    def drawn(cls, style: int = 0) -> "DeckArt":
        """The project's own deck, drawn with OpenCV (no files needed). ``style`` 1.. picks other
        Hershey typefaces (the detector recipe trains on all of them)."""
        if not 0 <= style < DRAWN_STYLES:
            raise DeckArtError(f"drawn deck style must be 0..{DRAWN_STYLES - 1}, got {style}")
        return cls(name="drawn" if style == 0 else f"drawn-{style}", style=style)

    @property
    def back_colours(self) -> list[str]:
        """Back colours this design ships as images (others are recoloured or generated)."""
        return sorted(self._back_files)

    def _read(self, file: Path) -> np.ndarray:
        if not file.is_file():
            raise DeckArtError(f"card image missing: {file}")
        image = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
        if image is None:
            raise DeckArtError(f"card image unreadable (not a PNG/JPEG?): {file}")
        return _fit(image)

    def face(self, card: Card | str) -> np.ndarray:
        """The face of ``card`` (``Card``, ``"10H"``, ``"JOKER-R"``, ``"RED JOKER"``): BGRA uint8, read-only."""
        key = card_key(card)
        if key not in self._faces:
            image = _draw_face(key, self.style) if self.folder is None else self._read(self.folder / f"{key}.png")
            image.setflags(write=False)
            self._faces[key] = image
        return self._faces[key]

    def back(self, colour: str = "blue") -> np.ndarray:
        """A back of ``colour`` (name or ``#rrggbb``): the folder's own image when it has one,
        else the folder's back recoloured, else a generated back. BGRA uint8, read-only."""
        bgr = colour_bgr(colour)
        text = colour.strip().lower()
        key = text if text in COLOURS_BGR else "#%02x%02x%02x" % bgr[::-1]
        if key in self._backs:
            return self._backs[key]
        file = self._back_files.get(text) or self._back_files.get(key.lstrip("#"))
        if file is not None:
            image = self._read(file)
        elif self._back_files:
            template_name = "blue" if "blue" in self._back_files else sorted(self._back_files)[0]
            image = _recolour(self._read(self._back_files[template_name]), bgr)
        else:
            image = _draw_back(bgr)
        image.setflags(write=False)
        self._backs[key] = image
        return image

    def index_boxes(self, card: Card | str) -> list[Box]:
        """Boxes (x0, y0, x1, y1) in face pixels around each printed corner index of ``card``."""
        key = card_key(card)
        if key not in self._boxes:
            face = self.face(key)
            w, h = self.card_size
            boxes: list[Box] = []
            tall = key.startswith("JOKER")
            top = _corner_index_box(face, tall)
            if top is not None:
                boxes.append(top)
            bottom = _corner_index_box(np.ascontiguousarray(face[::-1, ::-1]), tall)
            if bottom is not None:
                x0, y0, x1, y1 = bottom
                boxes.append((w - x1, h - y1, w - x0, h - y0))
            self._boxes[key] = boxes
        return list(self._boxes[key])


def shared_designs(cards_dir: str | Path) -> list[str]:
    """Names of the deck folders under ``cards_dir`` (e.g. ``../shared/cards``)."""
    root = Path(cards_dir)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / "AS.png").is_file())
