"""Decks whose corner indices are set in the system's TrueType fonts: more ways of drawing a rank.

The classifier trained on two shared designs and the drawn deck (three Hershey typefaces) reads
real decks and the held-out ``jumbo-index`` design poorly: it has seen too few typefaces. A
:class:`FontDeck` is a :class:`~simulator.deck_art.DeckArt` whose faces are drawn here: rank glyph(s)
in one of the installed TTF fonts over a suit pip, as on real cards, with the weight, rank height,
rank:pip ratio, rank-pip gap, corner margins, paper and red/black ink drawn at random per deck;
"10" is set either as two glyphs with varied spacing or squeezed into one condensed block.
The same corner, turned 180 degrees, is printed bottom-right. Index boxes are the drawn ink's
bounds, so no detection is needed. Decks plug into ``index_crops.render_index_crop`` unchanged.

Training-recipe only (Pillow draws the glyphs; the runtime never imports this). Fonts are found on
the system at recipe time; on Debian/Ubuntu install ``fonts-dejavu`` (``fonts-dejavu-core`` +
``fonts-dejavu-extra``) and ``fonts-liberation``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from referee.cards import Card, rank_text
from simulator.deck_art import CARD_SIZE, PIP_LAYOUT, Box, DeckArt, DeckArtError, card_alpha, card_key, draw_pip

FONT_DIRS: tuple[Path, ...] = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/truetype/liberation"),
    Path("/usr/share/fonts/truetype/liberation2"),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/share/fonts/liberation"),
)
SKIP_FONTS = ("MathTeXGyre",)  # a maths font: its digits are not what cards print
FONT_PACKAGES = "fonts-dejavu (fonts-dejavu-core, fonts-dejavu-extra) and fonts-liberation"
SUIT_CHARS = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}
_CORNER = (90, 150)  # (width, height) of the corner patch an index is drawn in


class FontDeckError(DeckArtError):
    """No usable TrueType font (or Pillow) for the font decks."""


def find_fonts(dirs: tuple[Path, ...] | list[Path] = FONT_DIRS) -> list[Path]:
    """The installed ``.ttf`` fonts under ``dirs`` (sorted; maths fonts left out); raises
    :class:`FontDeckError` naming the Debian packages when there is none."""
    fonts = sorted({p for d in dirs if Path(d).is_dir() for p in Path(d).rglob("*.ttf")
                    if not any(s in p.name for s in SKIP_FONTS)})
    if not fonts:
        raise FontDeckError(f"no TrueType fonts found in {', '.join(str(d) for d in dirs)}: the font decks "
                            f"need them (Debian/Ubuntu: apt-get install {FONT_PACKAGES})")
    return fonts


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # only the training venv has Pillow
        raise FontDeckError("the font decks need Pillow (it is in .venv-train: run the recipe there)") from exc
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=512)
def _glyph_mask(font: str, text: str, stroke: int) -> np.ndarray | None:
    """``text`` in ``font`` at 120 px, cropped to its ink: float32 coverage in [0, 1]; None when the
    font has no glyph for it (it would print the .notdef box)."""
    Image, ImageDraw, ImageFont = _pil()
    f = ImageFont.truetype(font, 120)
    notdef = f.getmask("\ue000")  # a private-use code point: what the font prints for a missing glyph
    if any(f.getmask(ch).size == notdef.size and bytes(f.getmask(ch)) == bytes(notdef) for ch in text):
        return None
    x0, y0, x1, y1 = f.getbbox(text, stroke_width=stroke)
    img = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
    ImageDraw.Draw(img).text((2 - x0, 2 - y0), text, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
    a = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(a > 0.05)
    if len(xs) == 0:
        return None
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _scaled(mask: np.ndarray, height: float, x_scale: float = 1.0) -> np.ndarray:
    h = max(int(round(height)), 4)
    w = max(int(round(mask.shape[1] * h / mask.shape[0] * x_scale)), 2)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)


def _paste(canvas: np.ndarray, mask: np.ndarray, x: int, y: int) -> None:
    h, w = mask.shape
    region = canvas[y:y + h, x:x + w]
    np.maximum(region, mask[:region.shape[0], :region.shape[1]], out=region)


@dataclass(frozen=True)
class FontStyle:
    """How one deck prints its indices (drawn at random by :meth:`FontStyle.sample`)."""

    font: str
    stroke: int            # extra stroke width at 120 px: a bolder face of the same font
    rank_h: float          # rank glyph height, face pixels (the face is 250 x 350; 8% of it is a standard index)
    pip_ratio: float       # pip height / rank height
    gap: float             # rank-to-pip gap / rank height
    margin: tuple[int, int]
    ten: str               # "two": "1" and "0" set apart; "condensed": squeezed to one block
    ten_spacing: float     # gap between "1" and "0" / rank height (for "two")
    x_scale: float         # horizontal squeeze of every rank (narrow / wide faces)
    pip_font: bool         # the font's own suit glyph rather than the drawn deck's pip shape
    pip_align: str         # "centre" under the rank, or "left"
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    paper: tuple[int, int, int]

    @classmethod
    def sample(cls, rng: np.random.Generator, fonts: list[Path]) -> "FontStyle":
        font = str(fonts[int(rng.integers(len(fonts)))])
        dark = int(rng.integers(0, 55))
        return cls(
            font=font,
            stroke=int(rng.choice([0, 0, 0, 2, 4])),
            rank_h=float(rng.uniform(22, 48)),  # standard to jumbo indices
            pip_ratio=float(rng.uniform(0.55, 1.0)),
            gap=float(rng.uniform(0.05, 0.35)),
            margin=(int(rng.integers(5, 15)), int(rng.integers(7, 17))),
            ten="two" if rng.random() < 0.6 else "condensed",
            ten_spacing=float(rng.uniform(-0.02, 0.15)),
            x_scale=float(np.exp(rng.normal(0, 0.12))),
            pip_font=bool(rng.random() < 0.5),
            pip_align="centre" if rng.random() < 0.75 else "left",
            red=(int(rng.integers(0, 70)), int(rng.integers(0, 60)), int(rng.integers(150, 235))),
            black=(min(dark + int(rng.integers(0, 40)), 90), dark, dark),
            paper=tuple(int(v) for v in rng.integers(232, 256, 3)),
        )


@dataclass
class FontDeck(DeckArt):
    """A deck drawn in one :class:`FontStyle`; faces and boxes cached like :class:`DeckArt`."""

    font_style: FontStyle | None = None
    _index_cache: dict[str, tuple[np.ndarray, Box]] = field(default_factory=dict, repr=False)

    def _rank_mask(self, label: str) -> np.ndarray:
        s = self.font_style
        if label == "10" and s.ten == "two":
            one, zero = _glyph_mask(s.font, "1", s.stroke), _glyph_mask(s.font, "0", s.stroke)
            one, zero = _scaled(one, s.rank_h, s.x_scale), _scaled(zero, s.rank_h, s.x_scale)
            gap = int(round(s.ten_spacing * s.rank_h))
            out = np.zeros((int(s.rank_h) + 1, one.shape[1] + max(gap, 0) + zero.shape[1]), np.float32)
            _paste(out, one, 0, 0)
            _paste(out, zero, one.shape[1] + max(gap, 0), 0)
            mask = out
        else:
            # "10" condensed: the pair squeezed so it is no wider than ~1.2 single digits
            squeeze = 0.62 if label == "10" else 1.0
            mask = _scaled(_glyph_mask(s.font, label, s.stroke), s.rank_h, s.x_scale * squeeze)
        if mask.shape[1] > 56:  # keep clear of the face's centre pips
            mask = cv2.resize(mask, (56, mask.shape[0]), interpolation=cv2.INTER_AREA)
        return mask

    def _pip_mask(self, suit: str, height: float) -> np.ndarray:
        s = self.font_style
        if s.pip_font and suit in SUIT_CHARS:
            glyph = _glyph_mask(s.font, SUIT_CHARS[suit], 0)
            if glyph is not None:
                return _scaled(glyph, height)
        side = int(np.ceil(height * 1.2)) + 4
        pad = np.zeros((side, side), np.uint8)
        draw_pip(pad, suit if suit in SUIT_CHARS else "*", side / 2, side / 2, height, 255)
        ys, xs = np.nonzero(pad > 12)
        return pad[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255.0

    def _corner(self, key: str) -> tuple[np.ndarray, tuple[int, int, int], Box]:
        """Coverage of the top-left index on a corner patch, its ink colour and its box."""
        if key in self._index_cache:
            return self._index_cache[key]
        s = self.font_style
        cw, ch = _CORNER
        canvas = np.zeros((ch, cw), np.float32)
        mx, my = s.margin
        if key.startswith("JOKER"):  # the word stacked letter by letter, as jokers print it
            colour = s.red if key == "JOKER-R" else s.black
            y = my
            for letter in "JOKER":
                m = _scaled(_glyph_mask(s.font, letter, s.stroke), s.rank_h * 0.5, s.x_scale)
                _paste(canvas, m, mx + max(0, (int(s.rank_h * 0.45) - m.shape[1]) // 2), y)
                y += m.shape[0] + max(2, int(s.rank_h * 0.1))
        else:
            card = Card.parse(key)
            colour = s.red if card.colour == "red" else s.black
            rank = self._rank_mask(rank_text(card.rank))
            _paste(canvas, rank, mx, my)
            pip = self._pip_mask(card.suit, s.rank_h * s.pip_ratio)
            px = mx + (rank.shape[1] - pip.shape[1]) // 2 if s.pip_align == "centre" else mx
            _paste(canvas, pip, max(px, 2), my + rank.shape[0] + int(round(s.gap * s.rank_h)))
        ys, xs = np.nonzero(canvas > 0.15)
        pad = 2
        box = (int(max(xs.min() - pad, 0)), int(max(ys.min() - pad, 0)), int(xs.max() + 1 + pad), int(ys.max() + 1 + pad))
        self._index_cache[key] = (canvas, colour, box)
        return self._index_cache[key]

    def face(self, card: Card | str) -> np.ndarray:
        key = card_key(card)
        if key not in self._faces:
            image = self._draw(key)
            image.setflags(write=False)
            self._faces[key] = image
        return self._faces[key]

    def index_boxes(self, card: Card | str) -> list[Box]:
        key = card_key(card)
        if key not in self._boxes:
            x0, y0, x1, y1 = self._corner(key)[2]
            w, h = self.card_size
            self._boxes[key] = [(x0, y0, x1, y1), (w - x1, h - y1, w - x0, h - y0)]
        return list(self._boxes[key])

    def _draw(self, key: str) -> np.ndarray:
        s = self.font_style
        w, h = self.card_size
        cov = np.zeros((h, w), np.float32)  # ink coverage; one colour per card
        corner, colour, _ = self._corner(key)
        cw, ch = _CORNER
        cov[:ch, :cw] = corner
        cov[h - ch:, w - cw:] = np.maximum(cov[h - ch:, w - cw:], corner[::-1, ::-1])
        # the centre: pips for 2..10, a framed letter for courts, one big pip for aces and jokers
        centre = np.zeros((h, w), np.uint8)
        suit = "*" if key.startswith("JOKER") else Card.parse(key).suit
        rank = 0 if key.startswith("JOKER") else Card.parse(key).rank
        if 2 <= rank <= 10:
            for fx, fy in PIP_LAYOUT[rank]:
                draw_pip(centre, suit, 92 + fx * (w - 184), 85 + fy * (h - 170), 34, 255, flip=fy > 0.5)
        elif rank in (11, 12, 13):
            cv2.rectangle(centre, (66, 66), (w - 67, h - 67), 255, 2, cv2.LINE_AA)
            letter = _scaled(_glyph_mask(s.font, rank_text(rank), s.stroke), 70)
            x = (w - letter.shape[1]) // 2
            cov[100:100 + letter.shape[0], x:x + letter.shape[1]] = np.maximum(
                cov[100:100 + letter.shape[0], x:x + letter.shape[1]], letter[:, : w - x])
            draw_pip(centre, suit, w / 2, h / 2 + 55, 60, 255)
        else:
            draw_pip(centre, suit, w / 2, h / 2, 100, 255)
        cov = np.maximum(cov, centre.astype(np.float32) / 255.0)[:, :, None]
        paper = np.array(s.paper, np.float32)
        img = paper * (1 - cov) + np.array(colour, np.float32) * cov
        img = np.clip(img, 0, 255).astype(np.uint8)
        cv2.rectangle(img, (3, 3), (w - 4, h - 4), (200, 200, 200), 1, cv2.LINE_AA)
        return np.dstack([img, card_alpha()])


def font_decks(n: int, seed: int, fonts: list[Path] | None = None) -> list[FontDeck]:
    """``n`` decks, deck k styled from ``(seed, k)`` (fonts cycle so each is used about equally)."""
    if n <= 0:
        return []
    fonts = list(fonts) if fonts is not None else find_fonts()
    if not fonts:
        raise FontDeckError(f"no fonts given for the font decks (Debian/Ubuntu: apt-get install {FONT_PACKAGES})")
    _pil()
    order = np.random.default_rng([seed, 7771]).permutation(len(fonts))
    decks = []
    for k in range(n):
        rng = np.random.default_rng([seed, 7772, k])
        style = FontStyle.sample(rng, [fonts[order[k % len(fonts)]]])
        decks.append(FontDeck(name=f"font-{k}-{Path(style.font).stem}", card_size=CARD_SIZE, font_style=style))
    return decks
