"""The `nerts-referee` command.

Each area owns its subcommands in its own ``cli`` module, exposing ``register(subparsers)``; this
module only assembles them. Those modules import heavy dependencies (OpenCV, onnxruntime, Flask)
inside their handlers so that ``nerts-referee --help`` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from nerts_referee import __version__
from nerts_referee.errors import UsageError

# Order is the order shown in --help: the data flow, camera to dashboard.
AREAS = (
    "simulator.cli",
    "vision.detect_cli",
    "vision.pipeline_cli",
    "models.cli",
    "referee.cli",
    "web_dashboard.cli",
    "nerts_referee.demo",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nerts-referee",
        description="Overhead-camera referee for Nerts: vision, rules engine, event log, dashboard.",
    )
    parser.add_argument("--version", action="version", version=f"nerts-referee {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in AREAS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # an area not built yet must not break the others
            if exc.name and name.startswith(exc.name):
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except UsageError as exc:
        print(f"nerts-referee {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
