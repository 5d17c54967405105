"""Scripted rounds shipped with the package (JSON Lines, see ``docs/events.md``).

>>> builtin_round("demo_round").name
'demo_round.jsonl'
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO_ROUND = HERE / "demo_round.jsonl"
"""A hand-written 4-player game of 2 rounds: a close dispute, a tie, an illegal play, a Nerts call
and a card in flight at the call."""


def builtin_round(name: str) -> Path | None:
    """The shipped round called ``name`` (with or without ``.jsonl``), or ``None``."""
    stem = name[:-6] if name.endswith(".jsonl") else name
    if "/" in stem or "\\" in stem or not stem:
        return None
    path = HERE / f"{stem}.jsonl"
    return path if path.is_file() else None


def builtin_rounds() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.jsonl"))
