"""bench/pipeline.py's --json / --compare: how a change to the reader is judged clip by clip."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("bench_pipeline", Path(__file__).parent.parent / "bench" / "pipeline.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def _scored(found, phantoms, attributed, exact, disputes, detail):
    """What ``score`` returns for one clip of 20 plays in one round (the fields --json keeps)."""
    return {"plays": 20, "found": found, "phantoms": phantoms, "attributed": attributed, "rounds": 1,
            "rounds_exact": exact, "disputes": [{"gap": g, "found": True, "correct": ok, "tie": False,
                                                  "tie_justified": None} for g, ok in disputes],
            "detail": detail, "timing_ms": [], "waits": []}


def _write(path: Path, clips: dict) -> str:
    path.write_text(json.dumps({"source": "detector",
                                "clips": [bench.clip_record(seed, s) for seed, s in clips.items()]}))
    return str(path)


def test_compare_prints_both_runs_figures_and_only_the_clips_that_read_differently(tmp_path, capsys):
    same = _scored(20, 0, 20, 1, [(20, True), (10, True)], ["  dispute 2C on p1 at 10.00s, gap 20 ms"])
    old = _write(tmp_path / "old.json", {
        5001: same,
        5002: _scored(19, 1, 18, 0, [(33, False)], ["  phantom 3C ana t=29.42", "  missed  3D ben t=30.07 on p3"]),
        5003: same})
    new = _write(tmp_path / "new.json", {
        5001: same,
        5002: _scored(20, 0, 20, 1, [(33, True)], []),
        5004: same})
    assert bench.compare(old, new) == 0
    out = capsys.readouterr().out.splitlines()
    # figures over the two clips both ran (5001, 5002), old then new
    assert out[0] == ("old: 2 clips: plays 39/40 (97.50%), phantoms 1 in 2 rounds, attributed 38/39 (97.44%), "
                      "first touch >= 20 ms 1/2 (ties 0), 10 ms 1/1, rounds exact 1/2")
    assert out[1] == ("new: 2 clips: plays 40/40 (100.00%), phantoms 0 in 2 rounds, attributed 40/40 (100.00%), "
                      "first touch >= 20 ms 2/2 (ties 0), 10 ms 1/1, rounds exact 2/2")
    assert out[2] == "seed 5002: found 19 -> 20/20, phantoms 1 -> 0, attributed 18 -> 20, rounds exact 0 -> 1"
    assert out[3:5] == ["  - phantom 3C ana t=29.42", "  - missed  3D ben t=30.07 on p3"]
    assert out[5] == "1 of 2 clips read differently; only in old: [5003]; only in new: [5004]"
    assert len(out) == 6


def test_compare_shows_a_changed_line_in_place_even_where_its_text_appears_elsewhere(tmp_path, capsys):
    """Two disputes ruled alike: the first one's ruling changed to read as the second's. A diff by
    set would show the removal only; in order, it shows what the first dispute now reads."""
    first, second = "  dispute 7D on p1 at 20.00s, gap 50 ms", "  dispute 8D on p1 at 30.00s, gap 33 ms"
    won, lost = "      ruled winner ana tie False", "      ruled winner dev tie False"
    old = _write(tmp_path / "old.json", {5001: _scored(20, 0, 20, 1, [], [first, lost, second, won])})
    new = _write(tmp_path / "new.json", {5001: _scored(20, 0, 20, 1, [], [first, won, second, won])})
    assert bench.compare(old, new) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[3:5] == [f"  - {lost.strip()}", f"  + {won.strip()}"]
    assert out[5] == "1 of 1 clips read differently"


def test_compare_refuses_a_file_that_is_not_a_bench_record(tmp_path, capsys):
    good = _write(tmp_path / "good.json", {5001: _scored(20, 0, 20, 1, [], [])})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert bench.compare(good, str(bad)) == 2
    assert "bad.json: not a bench --json file" in capsys.readouterr().err
    other = _write(tmp_path / "other.json", {5009: _scored(20, 0, 20, 1, [], [])})
    assert bench.compare(good, other) == 2
    assert "share no clip" in capsys.readouterr().err


@pytest.mark.parametrize("seeds", ["5001,x", "90211"])
def test_bench_seeds_are_checked_before_anything_runs(seeds, capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["pipeline.py", "--seeds", seeds])
    with pytest.raises(SystemExit) as exc:
        bench.main()
    assert exc.value.code == 2
    assert "--seeds" in capsys.readouterr().err
