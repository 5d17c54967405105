"""One blueprint per area of the dashboard: auth, live, game, review, setup and the admin API."""

from __future__ import annotations

from typing import Any

from flask import abort, request


def payload() -> dict[str, Any]:
    """The request body as a dict: JSON object or form fields; anything else is a 400."""
    if request.is_json:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            abort(400, description="request body must be a JSON object")
        return body
    return request.form.to_dict()
