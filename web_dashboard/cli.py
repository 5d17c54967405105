"""``nerts-referee serve``: the dashboard for a game log (live, or a recorded game for review)."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path
from typing import Any

from nerts_referee.errors import UsageError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "serve",
        help="serve the web dashboard for a game log (scoreboard, event feed, dispute review)",
        description=(
            "Serve the dashboard for GAME.db (created if missing): live scoreboard and event feed, "
            "the game's rounds and statistics, dispute review with the recorded footage, setup. "
            "Spectators are read-only; the table's admin logs in with the PIN printed here."
        ),
    )
    p.add_argument("game", metavar="GAME.db", nargs="?", default="game.db",
                   help="the game's event log (SQLite; default: game.db)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0 picks a free one)")
    p.add_argument("--pin", help="the table's admin PIN, at least 4 characters (default: a random 6-digit PIN)")
    p.add_argument("--footage-dir", metavar="DIR",
                   help="folder of the recorded footage the log registers (default: the log's folder)")
    p.add_argument("--settings", metavar="TABLE.toml",
                   help="players and rules for a new game (only for a log with no events yet)")
    p.add_argument("--mjpeg-fps", type=float, metavar="FPS", default=15.0,
                   help="cap the live view each spectator is sent (default: %(default)g)")
    p.add_argument("--threads", type=int, default=160,
                   help="server threads; each open live view holds two (default 160)")
    p.set_defaults(handler=serve_command)


def _check_args(args: argparse.Namespace) -> Path:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0..65535")
    if args.pin is not None and len(args.pin.strip()) < 4:
        raise UsageError("--pin: the PIN must be at least 4 characters")
    if args.mjpeg_fps is not None and not 0 < args.mjpeg_fps <= 120:
        raise UsageError(f"--mjpeg-fps {args.mjpeg_fps:g}: expected a rate above 0 and at most 120")
    if args.threads < 8 or args.threads > 2000:
        raise UsageError(f"--threads {args.threads}: expected 8..2000")
    try:
        ipaddress.ip_address(args.host)
    except ValueError:
        if args.host != "localhost":
            raise UsageError(f"--host {args.host!r}: expected an IP address such as 127.0.0.1 or 0.0.0.0") from None
    game = Path(args.game)
    if game.is_dir():
        raise UsageError(f"{game}: is a folder; expected a game log file such as game.db")
    if not game.parent.resolve().is_dir():
        raise UsageError(f"{game}: folder {game.parent} does not exist")
    if args.footage_dir and not Path(args.footage_dir).is_dir():
        raise UsageError(f"--footage-dir {args.footage_dir}: no such folder")
    return game


def open_log(game: Path, settings_path: str | None) -> None:
    """Check the file is a usable event log (creating it if new) and apply ``--settings``."""
    import sqlite3

    from referee.eventlog import EventLog
    from referee.settings import SettingsError, TableSettings

    settings = None
    if settings_path:
        try:
            settings = TableSettings.load(settings_path)
        except SettingsError as exc:
            raise UsageError(str(exc)) from None
    try:
        log = EventLog.open(game)
        try:
            if settings is not None:
                if log.last_seq() > 0:
                    raise UsageError(f"{game}: already holds a game; --settings only applies to a new log")
                log.close()
                log = EventLog.open(game, settings)
        finally:
            log.close()
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"{game}: not a game log ({exc})") from None
    except (ValueError, OSError) as exc:
        raise UsageError(f"{game}: cannot open the game log ({exc})") from None


def serve_command(args: argparse.Namespace) -> int:
    game = _check_args(args)
    new = not game.exists()
    open_log(game, args.settings)

    from web_dashboard.app import create_app
    from web_dashboard.serving import DashboardServer

    app = create_app(game, admin_pin=args.pin, footage_dir=args.footage_dir, mjpeg_max_fps=args.mjpeg_fps)
    server = DashboardServer(app, args.host, args.port, threads=args.threads)
    try:
        server.prepare()
    except OSError as exc:
        app.extensions["nerts"].store.close()
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
    print(f"{'new game' if new else 'game'}: {game}")
    print(f"dashboard: {server.url}")
    print(f"admin PIN: {app.config['ADMIN_PIN']}")
    if args.host not in ("127.0.0.1", "::1", "localhost"):
        print("note: plain HTTP on the network; anyone on it can watch, and the PIN crosses it unencrypted",
              file=sys.stderr)
    sys.stdout.flush()
    import signal

    def terminate(signum, frame):  # a service manager's stop: end cleanly, like Ctrl-C
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        server.serve_prepared()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
    return 0
