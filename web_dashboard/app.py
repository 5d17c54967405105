"""The Flask application factory.

>>> app = create_app("game.db", admin_pin="1234")      # doctest: +SKIP
>>> app.test_client().get("/live").status_code          # doctest: +SKIP
200
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from flask import Flask, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from web_dashboard import security
from web_dashboard.live import FrameHub
from web_dashboard.store import GameStore

MAX_BODY = 64 * 1024  # no legitimate admin request comes near this


# Spectators see the live view at 15 fps: at 50 of them an uncapped view cost the pipeline ~30% of
# its frame rate on 2 cores (bench/dashboard.py); the recorded footage keeps every frame for review.
DEFAULT_MJPEG_FPS = 15.0


@dataclass
class Dashboard:
    """What the views share: the game store, the live frames and the footage clock."""

    store: GameStore
    hub: FrameHub
    clock: Callable[[], float]
    footage_dir: Path
    throttle: security.LoginThrottle = field(default_factory=security.LoginThrottle)
    stream_timeout_s: float = 3600.0  # an SSE/MJPEG response ends after this; the browser reconnects
    keepalive_s: float = 5.0  # idle streams write this often, which is also how a closed one is noticed
    mjpeg_max_fps: float | None = DEFAULT_MJPEG_FPS  # per-spectator cap on the live view (None: every frame)
    mjpeg_part: tuple = (None, b"")  # the latest frame as a multipart part, shared by all viewers
    max_streams: int | None = None  # open SSE + MJPEG responses allowed (the server sets it from its threads)
    _streams: int = 0
    _streams_lock: threading.Lock = field(default_factory=threading.Lock)

    def open_stream(self) -> bool:
        """Count one more open stream, unless that would leave no thread for admin actions."""
        with self._streams_lock:
            if self.max_streams is not None and self._streams >= self.max_streams:
                return False
            self._streams += 1
            return True

    def close_stream(self) -> None:
        with self._streams_lock:
            self._streams -= 1


def dash() -> Dashboard:
    return current_app.extensions["nerts"]


def default_clock(store: GameStore, hub: FrameHub) -> Callable[[], float]:
    """The footage clock: the camera's while frames arrive, else continued from the log's last time.

    A "Nerts!" press must land on the same clock as the pipeline's observations (video seconds).
    With the camera running that is the latest frame's ``t`` plus the time since it was published;
    when only the dashboard runs it continues from the latest ``t`` in the log at start.
    """
    start = time.monotonic()
    times = [e["t"] for e in store.snapshot().events if isinstance(e.get("t"), (int, float))]
    origin = max(times) if times else 0.0

    def clock() -> float:
        live = hub.now()
        if live is not None:
            return live
        return origin + (time.monotonic() - start)

    return clock


def create_app(log_path: str | Path, hub: FrameHub | None = None, admin_pin: str | None = None,
               footage_dir: str | Path | None = None, clock: Callable[[], float] | None = None,
               *, secret_key: str | None = None, start_watcher: bool = True,
               poll_interval: float = 0.1, mjpeg_max_fps: float | None = DEFAULT_MJPEG_FPS) -> Flask:
    """Build the dashboard for the game logged at ``log_path`` (created if missing).

    ``hub`` receives the pipeline's annotated frames (a new one is made if omitted). ``admin_pin``
    is the table's PIN (a random 6-digit one is generated and available as
    ``app.config["ADMIN_PIN"]`` if omitted). ``footage_dir`` is where the recorded footage lives
    (default: the log's folder); only files the log registers (meta ``footage``) are served from it.
    ``clock`` returns the footage clock in seconds and stamps Nerts calls and round controls.
    ``mjpeg_max_fps`` caps the frames each live viewer is sent (the pipeline's CPU is shared with
    the server: at 50 spectators, 15 fps costs half of 30; ``bench/dashboard.py`` measured the
    pipeline slowed by 5.6% at 15 fps and 29.5% uncapped, hence the default). ``None`` sends every
    frame.
    """
    log_path = Path(log_path)
    if mjpeg_max_fps is not None and not 0 < mjpeg_max_fps <= 120:
        raise ValueError("mjpeg_max_fps must be in (0, 120]")
    if admin_pin is not None and (not isinstance(admin_pin, str) or len(admin_pin.strip()) < 4):
        raise ValueError("admin PIN must be at least 4 characters")
    hub = hub or FrameHub()
    store = GameStore(log_path, poll_interval=poll_interval)
    if start_watcher:
        store.start()

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_hex(32),
        ADMIN_PIN=(admin_pin or security.generate_pin()).strip(),
        PIN_EPOCH=secrets.token_hex(8),
        MAX_CONTENT_LENGTH=MAX_BODY,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        JSON_SORT_KEYS=False,
    )
    app.extensions["nerts"] = Dashboard(
        store=store, hub=hub, clock=clock or default_clock(store, hub),
        footage_dir=Path(footage_dir) if footage_dir else log_path.resolve().parent,
        mjpeg_max_fps=mjpeg_max_fps,
    )

    from web_dashboard.views import api, auth, game, live, review, setup

    for module in (auth, live, game, review, setup, api):
        app.register_blueprint(module.bp)

    @app.context_processor
    def inject() -> dict:
        return {"is_admin": security.is_admin(), "csrf_token": security.csrf_token,
                "game_name": log_path.stem}

    @app.after_request
    def headers(response):
        # Offline app with no third-party content: a strict policy costs nothing.
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
            "style-src 'self'; script-src 'self'; frame-ancestors 'none'")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        wants_json = request.path.startswith("/api/") or request.is_json or \
            request.accept_mimetypes.best == "application/json"
        if wants_json:
            return jsonify(error=exc.description, status=exc.code), exc.code
        return render_template("error.html", code=exc.code, message=exc.description), exc.code

    @app.template_filter("num")
    def num(value) -> str:
        try:
            value = float(value)
        except (TypeError, ValueError):
            return str(value)
        return str(int(value)) if value.is_integer() else f"{value:.2f}"

    return app
