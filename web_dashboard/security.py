"""Who may change the game: the table's PIN, session cookies, admin tokens and CSRF tokens.

Everyone who opens the dashboard is a read-only spectator. The table's admin logs in with the PIN
printed in the console (a signed session cookie then marks the browser as admin) or sends
``Authorization: Bearer <PIN>`` / ``X-Nerts-Token: <PIN>`` from a script. Every state-changing
request from a browser must also carry the session's CSRF token (form field ``csrf_token`` or
header ``X-CSRF-Token``); header-token requests are not exposed to CSRF because a browser never
adds that header on its own.
"""

from __future__ import annotations

import functools
import hmac
import secrets
import threading
import time
from collections import deque
from typing import Callable

from flask import abort, current_app, g, request, session

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
TOKEN_HEADER = "X-Nerts-Token"


def generate_pin(digits: int = 6) -> str:
    """A random numeric PIN that is easy to type on a phone."""
    return "".join(secrets.choice("0123456789") for _ in range(digits))


class LoginThrottle:
    """Refuse PIN attempts after too many failures in a sliding window (stops guessing a 6-digit PIN)."""

    def __init__(self, max_failures: int = 10, window_s: float = 60.0) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self._failures: deque[float] = deque()
        self._lock = threading.Lock()

    def _trim(self, now: float) -> None:
        while self._failures and now - self._failures[0] > self.window_s:
            self._failures.popleft()

    def blocked(self) -> bool:
        with self._lock:
            self._trim(time.monotonic())
            return len(self._failures) >= self.max_failures

    def failed(self) -> None:
        with self._lock:
            now = time.monotonic()
            self._trim(now)
            self._failures.append(now)


def pin_matches(candidate: str | None) -> bool:
    pin = current_app.config["ADMIN_PIN"]
    if not candidate or not isinstance(candidate, str):
        return False
    return hmac.compare_digest(candidate.strip().encode(), pin.encode())


def _header_token() -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.headers.get(TOKEN_HEADER)


def is_admin() -> bool:
    """True for a logged-in admin session or a request carrying the PIN as a token header."""
    if "is_admin" not in g:
        token = _header_token()
        if token is not None:
            g.is_admin = pin_matches(token)
            g.via_token = g.is_admin
        else:
            g.is_admin = bool(session.get("admin")) and session.get("pin_epoch") == current_app.config["PIN_EPOCH"]
            g.via_token = False
    return g.is_admin


def csrf_token() -> str:
    """The session's CSRF token (created on first use)."""
    token = session.get(CSRF_FIELD)
    if not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
    return token


def check_csrf() -> None:
    """Abort 400 unless the request carries this session's CSRF token (token-header calls are exempt)."""
    if is_admin() and g.get("via_token"):
        return
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    if sent is None and request.is_json:
        body = request.get_json(silent=True)
        if isinstance(body, dict):
            sent = body.get(CSRF_FIELD)
    expected = session.get(CSRF_FIELD)
    if not sent or not expected or not hmac.compare_digest(str(sent), str(expected)):
        abort(400, description="missing or wrong CSRF token: reload the page and try again")


def admin_required(view: Callable) -> Callable:
    """Decorator for state-changing admin views: CSRF first (so a forged request learns nothing), then admin."""

    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        if _header_token() is not None:  # scripts: the same guessing limit as the login form
            throttle = current_app.extensions["nerts"].throttle
            if throttle.blocked():
                abort(429, description="too many wrong PINs: wait a minute and try again")
            if not is_admin():
                throttle.failed()
                abort(403, description="wrong admin token")
        check_csrf()
        if not is_admin():
            abort(403, description="admin only: log in with the table's PIN")
        return view(*args, **kwargs)

    return wrapped
