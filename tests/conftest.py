"""Shared test fixtures: ``../shared``, and the recorded sample game the dashboard tests open."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("NERTS_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` (card art, real-dev photos); tests that need it skip when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} not found")
    return SHARED


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """One sample game with footage (``web_dashboard.sample``), built once per test module."""
    from web_dashboard import sample

    return sample.make_sample_game(tmp_path_factory.mktemp("recorded"))


@pytest.fixture
def game(recorded, tmp_path) -> Path:
    """A private copy of the sample game's folder; returns its ``game.db``."""
    for f in recorded.parent.iterdir():
        shutil.copy(f, tmp_path / f.name)
    return tmp_path / "game.db"
