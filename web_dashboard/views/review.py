"""The Review page: each dispute, illegal play and returned card with its footage, every card play,
the rounds' Nerts counts and calls, and the admin's corrections of all of them."""

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
    """The ruling on card touch ``seq`` (any kind: an accepted card may sit on the wrong pile)."""
    for ruling in summary.card_rulings(snap.state):
        if ruling.get("seq") == seq:
            return ruling
    abort(404, description=f"no card ruling #{seq}")


def _find_target(snap, seq: int, action: str) -> dict:
    """What ``action`` may correct at ``seq``; 404 (naming what it needs) when ``seq`` is not that."""
    if action == "set_nerts_left":
        for rd in snap.state.get("rounds") or []:
            if rd.get("end_seq") == seq:
                return rd
        abort(404, description=f"no ended round #{seq}: set_nerts_left corrects a round_ended event")
    if action in ("uphold", "overturn"):
        for ruling in (snap.rulings_index.get(seq) or []):
            if ruling.get("kind") in ("nerts_call", "stuck"):
                return ruling
    return find_ruling(snap, seq)


def _text_field(body: dict, key: str, what: str, limit: int = 40) -> str:
    value = body.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        abort(400, description=f"{key} is required: {what}")
    value = value.strip()
    if len(value) > limit:
        abort(400, description=f"{key} is too long (at most {limit} characters)")
    return value


def correction_event(snap, seq: int, body: dict) -> dict:
    """Validate an admin correction of ``seq`` against the game as it is now; the event to append.

    Aborts (400 invalid, 404 no such target) before anything is written."""
    from referee.observations import CORRECTION_ACTIONS, EventError, parse_card

    action = body.get("action")
    if action not in CORRECTION_ACTIONS:
        abort(400, description=f"action must be one of: {', '.join(CORRECTION_ACTIONS)}")
    reason = body.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        abort(400, description="a reason is required for every correction")
    reason = reason.strip()
    if len(reason) > MAX_REASON:
        abort(400, description=f"reason is too long (at most {MAX_REASON} characters)")
    target = _find_target(snap, seq, action)
    event = {"type": "correction", "target": seq, "action": action, "reason": reason}
    names = [p["name"] for p in snap.board["players"]]
    if action == "set_owner":
        player = _text_field(body, "player", "whose card it was", 64)
        if names and player not in names:
            abort(400, description=f"player must be one of: {', '.join(names)}")
        if player == target.get("player"):
            abort(400, description=f"#{seq} is already {player}'s card")
        event["player"] = player
    elif action == "set_card":
        card = _text_field(body, "card", "the card it really was, e.g. 6H, QS, JOKER=5H", 16)
        try:
            ident, joker = parse_card(card)
            if joker and body.get("declared"):
                ident = parse_card(body["declared"], "declared")[0]
        except EventError as exc:
            abort(400, description=f"card: {exc.message}")
        event["card"] = f"JOKER={ident}" if joker and ident else ("JOKER" if joker else str(ident))
    elif action == "set_pile":
        pile = _text_field(body, "pile", "the id of the pile the card really touched")
        if pile == target.get("pile"):
            abort(400, description=f"#{seq} is already on pile {pile}")
        event["pile"] = pile
    elif action == "set_nerts_left":
        units = list(snap.board["units"])
        player = _text_field(body, "player", "whose Nerts pile", 64)
        if units and player not in units and player not in names:
            abort(400, description=f"player must be one of: {', '.join(units)}")
        count = body.get("count")
        if isinstance(count, str) and count.strip().isdigit():
            count = int(count.strip())
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 52:
            abort(400, description=f"count: {count!r} is not a whole number from 0 to 52")
        event.update(player=player, count=count)
    return event


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
    piles = sorted({r.get("pile") for r in summary.card_rulings(snap.state)
                    if r.get("round") == ruling.get("round") and isinstance(r.get("pile"), str)})
    return {
        "players": [p["name"] for p in snap.board["players"]], "piles": piles,
        "footage_problems": problems,
        "seq": seq, "ruling": ruling, "text": summary.ruling_text(ruling), "contenders": rivals,
        "markers": markers(snap, ruling),
        "window": [t0, t1], "centre": centre, "frames": frames,
        "footage": url_for("review.footage", name=name) if name else None,
        "corrections": summary.corrections(snap.events).get(seq, []),
    }


def rounds_to_review(snap, fixes: dict[int, list[dict]]) -> list[dict]:
    """Each round with its Nerts counts (correctable once it ended), its Nerts calls and its
    everyone-stuck declarations (each may be upheld or overturned)."""
    index = snap.rulings_index
    out = []
    for rd in snap.state.get("rounds") or []:
        number = rd.get("number")
        calls = [r for rulings in index.values() for r in rulings
                 if r.get("kind") in ("nerts_call", "stuck") and r.get("round") == number]
        calls.sort(key=lambda r: r["seq"])
        end_seq = rd.get("end_seq")
        out.append({
            "number": number, "end_seq": end_seq, "complete": rd.get("complete"), "void": rd.get("void"),
            "nerts_left": rd.get("nerts_left") or {}, "scores": rd.get("scores") or {},
            "corrections": fixes.get(end_seq, []) if end_seq else [],
            "calls": [{"ruling": r, "text": summary.ruling_text(r), "corrections": fixes.get(r["seq"], [])}
                      for r in calls],
        })
    return out


@bp.get("/review")
def index():
    snap = dash().store.snapshot()
    fixes = summary.corrections(snap.events)
    items = [{"ruling": r, "text": summary.ruling_text(r), "corrections": fixes.get(r.get("seq"), [])}
             for r in summary.reviewable(snap.state)]
    plays = [{"ruling": r, "text": summary.ruling_text(r)} for r in summary.card_rulings(snap.state)]
    return render_template("review_index.html", items=items, plays=plays, rounds=rounds_to_review(snap, fixes),
                           units=list(snap.board["units"]), error=snap.error)


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
    """Any correction the engine supports; the whole request is checked before the log is touched,
    and the log checks again (a refused request appends nothing)."""
    body = payload()

    try:
        new_seq, snap = dash().store.append_checked(lambda snap: correction_event(snap, seq, body))
    except ValueError as exc:
        abort(400, description=str(exc))
    ruling = next((r for r in snap.state.get("rulings") or [] if r.get("seq") == seq), None)
    return jsonify(seq=new_seq, board=snap.board, ruling=ruling)
