"""The web dashboard: live table, scoreboard, event feed, dispute review, setup and admin.

``create_app`` builds the Flask app for one game log; ``DashboardServer``/``serve`` run it with a
threaded server in this process; ``FrameHub`` is where the vision pipeline publishes frames.
Flask is imported only when one of these is used (``nerts-referee --help`` stays fast).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve", "launch", "DashboardServer", "FrameHub"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from web_dashboard.app import create_app
        return create_app
    if name in ("serve", "launch", "DashboardServer"):
        from web_dashboard import serving
        return getattr(serving, name)
    if name == "FrameHub":
        from web_dashboard.live import FrameHub
        return FrameHub
    raise AttributeError(name)
