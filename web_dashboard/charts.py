"""Inline SVG charts drawn on the server (no chart library, nothing fetched by the browser)."""

from __future__ import annotations

import re
from html import escape

from markupsafe import Markup

PALETTE = ("#d1495b", "#2e86ab", "#3b9c3b", "#edae49", "#8d6cab", "#00798c", "#b56576", "#6b705c")
CSS_COLOURS = frozenset({
    "red", "blue", "green", "yellow", "orange", "purple", "black", "white", "grey", "gray", "pink",
    "brown", "teal", "navy", "maroon", "olive", "cyan", "magenta", "gold", "silver", "lime", "violet",
})
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def colour_for(back: str | None, index: int) -> str:
    """A player's line colour: their deck back if it is a plain colour, else a palette entry."""
    if back and (_HEX.match(back) or back.lower() in CSS_COLOURS) and back.lower() not in ("white", "silver"):
        return back.lower()
    return PALETTE[index % len(PALETTE)]


def _nice_step(span: float) -> float:
    raw = span / 5 if span > 0 else 1
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def score_chart(series: list[dict[str, float]], names: list[str], colours: dict[str, str],
                target: float | None = None, width: int = 640, height: int = 260) -> Markup:
    """Running totals per round as a line chart; ``target`` draws the winning line if given."""
    pad_l, pad_r, pad_t, pad_b = 44, 12, 12, 30
    values = [v for point in series for v in point.values()] + [0.0]
    if target:
        values.append(float(target))
    lo, hi = min(values), max(values)
    if hi == lo:
        hi = lo + 10
    step = _nice_step(hi - lo)
    lo = step * (lo // step)
    hi = step * -(-hi // step)
    n = max(1, len(series) - 1)
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(i: int) -> float:
        return pad_l + plot_w * i / n

    def y(v: float) -> float:
        return pad_t + plot_h * (1 - (v - lo) / (hi - lo))

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="score after each round" xmlns="http://www.w3.org/2000/svg">']
    tick = lo
    while tick <= hi + 1e-9:
        parts.append(f'<line class="grid" x1="{pad_l}" x2="{width - pad_r}" y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>'
                     f'<text class="tick" x="{pad_l - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
        tick += step
    for i in range(len(series)):
        parts.append(f'<text class="tick" x="{x(i):.1f}" y="{height - 10}" text-anchor="middle">{i}</text>')
    if target:
        parts.append(f'<line class="target" x1="{pad_l}" x2="{width - pad_r}" y1="{y(target):.1f}" '
                     f'y2="{y(target):.1f}"/><text class="tick" x="{width - pad_r}" y="{y(target) - 4:.1f}" '
                     f'text-anchor="end">target {target:g}</text>')
    for name in names:
        colour = escape(colours.get(name, PALETTE[0]))
        pts = " ".join(f"{x(i):.1f},{y(point.get(name, 0.0)):.1f}" for i, point in enumerate(series))
        parts.append(f'<polyline class="series" fill="none" stroke="{colour}" stroke-width="2.5" points="{pts}">'
                     f'<title>{escape(name)}</title></polyline>')
        last = series[-1].get(name, 0.0)
        parts.append(f'<circle cx="{x(len(series) - 1):.1f}" cy="{y(last):.1f}" r="4" fill="{colour}"/>')
    parts.append("</svg>")
    return Markup("".join(parts))
