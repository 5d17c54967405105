"""The Review page: each dispute and illegal-play ruling with its footage, and admin corrections."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Blueprint, abort, jsonify, render_template, send_file, url_for

from web_dashboard import summary
from web_dashboard.app import dash
from web_dashboard.security import admin_required
from web_dashboard.views import payload

bp = Blueprint("review", __name__)

WINDOW_S = 3.0  # footage shown around the contact, each side
MAX_REASON = 500
VIDEO_TYPES = {".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".mkv": "video/x-matroska"}


# -- footage: only files the log registers, only inside the footage folder -----------------------

def registered_footage(problems: list[str] | None = None) -> dict[str, Path]:
    """``{file name: resolved path}`` of the footage the log registers (meta ``footage``).

    A registered path is resolved against the footage folder and must stay inside it; anything
    else (``..``, absolute paths elsewhere, links out, missing files) is not served, and
    ``problems`` (if given) collects why, for the page to say.
    """
    d = dash()
    meta = d.store.get_meta("footage")
    entries = meta if isinstance(meta, list) else [meta] if meta else []
    base = d.footage_dir.resolve()
    out: dict[str, Path] = {}
    for entry in entries:
        if not isinstance(entry, str) or not entry or "\x00" in entry:
            continue
        path = (base / entry).resolve()
        if not path.is_relative_to(base):
            why = f"{entry} is outside the footage folder {base} (start serve with --footage-dir)"
        elif path.suffix.lower() not in VIDEO_TYPES:
            why = f"{entry} is not a video file ({', '.join(VIDEO_TYPES)})"
        elif not path.is_file():
            why = f"{entry} is missing from {base}"
        else:
            out[path.name] = path
            continue
        if problems is not None:
            problems.append(why)
    return out


@bp.get("/footage/<name>")
def footage(name: str):
    """The recorded video, with HTTP range requests (the browser seeks without downloading it all)."""
    files = registered_footage()
    path = files.get(name)
    if path is None or os.sep in name or name in (".", ".."):
        abort(404, description="no such footage for this game")
    return send_file(path, mimetype=VIDEO_TYPES[path.suffix.lower()], conditional=True, max_age=0)


# -- rulings --------------------------------------------------------------------------------------

def find_ruling(snap, seq: int) -> dict:
    for ruling in summary.reviewable(snap.state):
        if ruling.get("seq") == seq:
            return ruling
    abort(404, description=f"no dispute or illegal-play ruling #{seq}")


def _outline(evidence) -> list[list[float]] | None:
    """A card outline in video pixels from an observation's evidence, if the pipeline gave one."""
    if not isinstance(evidence, dict):
        return None
    for key in ("quad", "outline", "corners", "polygon"):
        pts = evidence.get(key)
        if isinstance(pts, list) and len(pts) >= 3 and all(
                isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(c, (int, float)) for c in p)
                for p in pts):
            return [[float(a), float(b)] for a, b in pts]
    for key in ("box", "bbox", "xyxy"):
        b = evidence.get(key)
        if isinstance(b, list) and len(b) == 4 and all(isinstance(c, (int, float)) for c in b):
            x1, y1, x2, y2 = map(float, b)
            return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]
    return None


def contenders(snap, ruling: dict) -> list[dict]:
    """The touches the ruling weighed (one for an illegal play), each with its contact time,
    uncertainty, and the card outline from its observation's evidence when vision gave one."""
    listed = ruling.get("contenders")
    if not isinstance(listed, list) or not listed:
        listed = [{"seq": ruling.get("seq"), "player": ruling.get("player"), "card": ruling.get("card"),
                   "t": ruling.get("t"), "uncertainty_ms": ruling.get("uncertainty_ms")}]
    wanted = {c.get("seq") for c in listed if isinstance(c, dict)}
    events = {e["seq"]: e for e in snap.events if e.get("seq") in wanted}
    out = []
    for c in listed:
        if not isinstance(c, dict):
            continue
        event = events.get(c.get("seq"), {})
        evidence = event.get("evidence")
        out.append({
            "seq": c.get("seq"), "player": c.get("player"), "card": c.get("card"),
            "t": c.get("t"), "uncertainty_ms": c.get("uncertainty_ms"),
            "outline": _outline(evidence),
            "frames": evidence.get("frames") if isinstance(evidence, dict) else None,
            "winner": c.get("seq") == ruling.get("winner_seq"),
        })
    out.sort(key=lambda c: (c["t"] is None, c["t"] or 0.0))
    return out


def markers(snap, ruling: dict) -> list[dict]:
    """Other moments that matter to the ruling: the Nerts call for a card played after it."""
    out = []
    number = ruling.get("round")
    for r in snap.state.get("rounds") or []:
        if r.get("number") == number and isinstance(r.get("call_t"), (int, float)):
            out.append({"t": r["call_t"], "label": f"Nerts! ({r.get('caller')})"})
    return out


def review_data(snap, seq: int) -> dict:
    ruling = find_ruling(snap, seq)
    rivals = contenders(snap, ruling)
    times = [c["t"] for c in rivals if isinstance(c["t"], (int, float))]
    centre = ruling.get("t") if isinstance(ruling.get("t"), (int, float)) else (times[0] if times else 0.0)
    t0, t1 = max(0.0, centre - WINDOW_S), centre + WINDOW_S
    frames = dash().store.frames(t0 - 0.5, t1 + 0.5)
    problems: list[str] = []
    files = registered_footage(problems)
    name = next(iter(files), None)
    return {
        "footage_problems": problems,
        "seq": seq, "ruling": ruling, "text": summary.ruling_text(ruling), "contenders": rivals,
        "markers": markers(snap, ruling),
        "window": [t0, t1], "centre": centre, "frames": frames,
        "footage": url_for("review.footage", name=name) if name else None,
        "corrections": summary.corrections(snap.events).get(seq, []),
    }


@bp.get("/review")
def index():
    snap = dash().store.snapshot()
    fixes = summary.corrections(snap.events)
    items = [{"ruling": r, "text": summary.ruling_text(r), "corrections": fixes.get(r.get("seq"), [])}
             for r in summary.reviewable(snap.state)]
    return render_template("review_index.html", items=items, error=snap.error)


@bp.get("/review/<int:seq>")
def detail(seq: int):
    data = review_data(dash().store.snapshot(), seq)
    return render_template("review.html", data=data)


@bp.get("/api/review/<int:seq>")
def detail_json(seq: int):
    return review_data(dash().store.snapshot(), seq)


@bp.post("/api/review/<int:seq>/correct")
@admin_required
def correct(seq: int):
    body = payload()
    action = body.get("action")
    reason = body.get("reason")
    if action not in ("uphold", "overturn"):
        abort(400, description="action must be 'uphold' or 'overturn'")
    if not isinstance(reason, str) or not reason.strip():
        abort(400, description="a reason is required for every correction")
    reason = reason.strip()
    if len(reason) > MAX_REASON:
        abort(400, description=f"reason is too long (at most {MAX_REASON} characters)")

    def build(snap):
        find_ruling(snap, seq)  # 404 unless it is a reviewable ruling now
        return {"type": "correction", "target": seq, "action": action, "reason": reason}

    try:
        new_seq, snap = dash().store.append_checked(build)
    except ValueError as exc:
        abort(400, description=str(exc))
    ruling = next((r for r in snap.state.get("rulings") or [] if r.get("seq") == seq), None)
    return jsonify(seq=new_seq, board=snap.board, ruling=ruling)
