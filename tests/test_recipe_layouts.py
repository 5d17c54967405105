"""The detector layouts of the recipe: det-relu moves the SiLU detector's weights into the ReLU
layout, which only works while both files describe the same layers with the same shapes."""

from __future__ import annotations

from pathlib import Path

RECIPE = Path(__file__).resolve().parents[1] / "models" / "recipe"


def _lines(name: str) -> list[str]:
    """The yaml's lines without comments (whole-line or trailing) and blank lines."""
    lines = (line.split("#", 1)[0].rstrip() for line in (RECIPE / name).read_text().splitlines())
    return [line for line in lines if line]


def test_relu_layout_is_the_silu_layout_with_relu_activations():
    silu, relu = _lines("cards-det.yaml"), _lines("cards-det-relu.yaml")
    assert "activation: nn.ReLU()" in relu
    assert not any(line.startswith("activation:") for line in silu)  # ultralytics' default, SiLU
    assert [line for line in relu if line != "activation: nn.ReLU()"] == silu
    assert any("Detect" in line for line in silu)
