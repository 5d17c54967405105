"""Logging in with the table's PIN and out again."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for

from web_dashboard import security
from web_dashboard.app import dash

bp = Blueprint("auth", __name__)


def _safe_next(target: str | None) -> str:
    """Only same-site relative paths (no open redirect to another host)."""
    if not target:
        return url_for("live.page")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return url_for("live.page")
    return target


@bp.get("/login")
def login_form():
    return render_template("login.html", next=_safe_next(request.args.get("next")), error=None)


@bp.post("/login")
def login():
    security.check_csrf()
    nxt = _safe_next(request.form.get("next"))
    throttle = dash().throttle
    if throttle.blocked():
        return render_template("login.html", next=nxt,
                               error="too many wrong PINs: wait a minute and try again"), 429
    if not security.pin_matches(request.form.get("pin")):
        throttle.failed()
        return render_template("login.html", next=nxt, error="wrong PIN"), 403
    session.clear()  # a fresh session (and CSRF token) on a change of privilege
    session["admin"] = True
    session["pin_epoch"] = current_app.config["PIN_EPOCH"]
    return redirect(nxt, code=303)


@bp.post("/logout")
def logout():
    security.check_csrf()
    session.pop("admin", None)
    return redirect(url_for("live.page"), code=303)


@bp.get("/api/whoami")
def whoami():
    return {"admin": security.is_admin(), "csrf_token": security.csrf_token()}
