"""``nerts-referee train``: reproduce the shipped detector with the recipe in ``models/recipe``.

Training needs torch + ultralytics, which the runtime never imports: they live in a separate
environment (``.venv-train``, made by ``make -C models train-env``). This command only starts the
recipe in that environment.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from nerts_referee.errors import UsageError

REPO = Path(__file__).resolve().parents[1]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        help="retrain the card detector (rendered scenes -> YOLO -> ONNX in models/)",
        description="Render training scenes from the deck art, train the index/back detector and the "
        "index classifier from yaml (offline, fixed seed), export both to ONNX in models/.",
    )
    p.add_argument("--python", default=None,
                   help="python of the training environment (default: .venv-train/bin/python)")
    p.add_argument("--out", default=None, help="write the .onnx files here instead of models/")
    p.add_argument("--quick", action="store_true", help="a tiny run (minutes) to check the recipe end to end")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="further options for models/recipe/train.py")
    p.set_defaults(handler=_train)


def _train(args: argparse.Namespace) -> int:
    python = Path(args.python) if args.python else REPO / ".venv-train" / "bin" / "python"
    if not python.exists():
        raise UsageError(f"training environment not found ({python}): run 'make -C models train-env' first")
    cmd = [str(python), str(REPO / "models" / "recipe" / "train.py")]
    if args.out:
        cmd += ["--out", args.out]
    if args.quick:
        cmd += ["--scenes", "40", "--val-scenes", "10", "--det-epochs", "1", "--cls-epochs", "1", "--real-copies", "1",
                "--ft-epochs", "1", "--ft-seeds", "6000-6001", "--ft-frames", "4", "--ft-closeups", "8",
                "--ft-old-scenes", "20", "--cls-ft-epochs", "1", "--cls-ft-seeds", "6200", "--cls-ft-val-seeds", "6240",
                "--back-scenes", "60", "--back-epochs", "1"]
    cmd += [a for a in args.extra if a != "--"]
    env = dict(os.environ, YOLO_OFFLINE="1")
    print("+", " ".join(cmd), file=sys.stderr)
    return subprocess.call(cmd, cwd=REPO, env=env)
