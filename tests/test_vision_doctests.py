"""The examples in the vision modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["vision.capture", "vision.config", "vision.motion", "vision.tracking", "vision.contact",
           "vision.foundations", "vision.attribution", "vision.synthetic", "vision.backs"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
