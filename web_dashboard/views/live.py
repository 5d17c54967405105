"""The Live page: camera (MJPEG), scoreboard and the event feed (Server-Sent Events)."""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, abort, redirect, render_template, request, stream_with_context, url_for

from web_dashboard import summary
from web_dashboard.app import dash

bp = Blueprint("live", __name__)

BOUNDARY = "nertsframe"
FEED_TAIL = 50


@bp.get("/")
def index():
    return redirect(url_for("live.page"))


@bp.get("/live")
def page():
    d = dash()
    snap = d.store.snapshot()
    return render_template("live.html", board=snap.board, feed=feed_tail(snap),
                           players=snap.board["players"], camera=d.hub.latest() is not None,
                           error=snap.error)


def feed_tail(snap, after_seq: int | None = None) -> list[dict]:
    """Feed lines, newest last: those after ``after_seq``, or the last ``FEED_TAIL``."""
    index = snap.rulings_index
    events = snap.events_after(after_seq) if after_seq is not None else snap.events[-FEED_TAIL:]
    return [summary.feed_line(e, index) for e in events]


def _sse(kind: str, data: dict, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _counted(d, response: Response) -> Response:
    """Hold one of the server's stream slots for the life of ``response``; 503 when none is free,
    so spectators can never take the threads that pages and admin actions need."""
    if not d.open_stream():
        abort(503, description="too many live viewers right now: try again in a minute")
    response.call_on_close(d.close_stream)
    return response


@bp.get("/api/stream")
def stream():
    """Server-Sent Events: ``reset`` (scoreboard + feed tail) first, then ``update`` per change.

    ``Last-Event-ID`` (sent by the browser on reconnect) resumes after the last event it saw.
    """
    d = dash()
    store = d.store
    raw = request.headers.get("Last-Event-ID") or request.args.get("after")
    after: int | None = None
    if raw is not None:
        try:
            after = int(raw)
        except ValueError:
            abort(400, description="Last-Event-ID / after must be an event number")
        if after < 0:
            abort(400, description="Last-Event-ID / after must be an event number")
    timeout = d.stream_timeout_s

    def generate():
        snap = store.snapshot()
        yield "retry: 1000\n\n"
        if after is None or after > snap.seq:
            yield _sse("reset", {"board": snap.board, "feed": feed_tail(snap), "error": snap.error}, snap.seq)
        elif after < snap.seq:
            yield _sse("update", {"board": snap.board, "feed": feed_tail(snap, after), "error": snap.error},
                       snap.seq)
        current = snap.seq
        end = time.monotonic() + timeout
        while time.monotonic() < end and not store.closed:
            snap = store.wait(current, timeout=d.keepalive_s)
            if snap.seq > current:
                yield snap.update_message(current, lambda s, a: _sse(
                    "update", {"board": s.board, "feed": feed_tail(s, a), "error": s.error}, s.seq))
                current = snap.seq
            else:
                yield ": keepalive\n\n"

    return _counted(d, Response(stream_with_context(generate()), mimetype="text/event-stream",
                                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}))


@bp.get("/api/state")
def state():
    """The scoreboard and feed tail as JSON (for scripts and for clients without SSE)."""
    snap = dash().store.snapshot()
    return {"board": snap.board, "feed": feed_tail(snap), "error": snap.error,
            "camera": dash().hub.latest() is not None}


@bp.get("/live/stream.mjpg")
def mjpeg():
    """The annotated camera view as ``multipart/x-mixed-replace``; each client gets the latest frame."""
    d = dash()
    hub = d.hub
    timeout = d.stream_timeout_s

    # A browser shows a part only once it has read the next part's headers, so every frame is
    # followed at once by the next boundary and headers (no Content-Length: the boundary ends it).
    head = b"--" + BOUNDARY.encode() + b"\r\nContent-Type: image/jpeg\r\n\r\n"
    gap = 1.0 / d.mjpeg_max_fps if d.mjpeg_max_fps else 0.0

    def generate():
        yield head
        last = None
        sent_at = 0.0
        end = time.monotonic() + timeout
        while time.monotonic() < end and not hub.closed:
            if gap:
                wait = sent_at + gap - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                sent_at = time.monotonic()
            frame = hub.wait(last, timeout=d.keepalive_s)
            if frame is None:
                frame = hub.latest()  # nothing new: repeat the last frame so proxies keep the line open
                if frame is None:
                    continue
            last = frame.index
            cached = d.mjpeg_part  # (frame, bytes): one copy per frame, not one per spectator
            if cached[0] is not frame:
                cached = (frame, frame.jpeg + b"\r\n" + head)
                d.mjpeg_part = cached
            yield cached[1]

    return _counted(d, Response(generate(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                                headers={"Cache-Control": "no-cache, no-store"}))


@bp.get("/live/frame.jpg")
def frame():
    latest = dash().hub.latest()
    if latest is None:
        abort(404, description="no camera frame yet")
    return Response(latest.jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store",
                                                                  "X-Frame-Index": str(latest.index)})


@bp.get("/live/calibration.jpg")
def calibration():
    still = dash().hub.still("calibration")
    if still is None:
        abort(404, description="the pipeline has not published a calibration preview")
    return Response(still, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/live/back/<player>.jpg")
def back(player: str):
    """A player's deck back as the camera registered it (the pipeline's still ``back:<player>``)."""
    still = dash().hub.still(f"back:{player}")
    if still is None:
        abort(404, description=f"no registered back for {player!r}")
    return Response(still, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
