"""End to end: footage → pipeline → event log, observations, rulings; the CLI's error paths."""

from __future__ import annotations

import json
import sqlite3

import pytest

from nerts_referee.cli import main
from vision.synthetic import SyntheticScene

PLAYERS = ["ana", "ben", "cy", "dee"]


def _scene(seed=21):
    scene = SyntheticScene(PLAYERS, seed=seed)
    scene.play("AH", "ana", 0, 0.8)
    scene.play("AS", "cy", 1, 1.2)
    scene.play("2H", "ben", 0, 1.7)
    scene.play("3H", "dee", 0, 2.4)
    scene.play("3H", "cy", 0, 2.43, t_leave=3.3)  # a first-touch contest: dee by 30 ms
    scene.play("2S", "ana", 1, 3.0)
    return scene


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return _scene().render_clip(tmp_path_factory.mktemp("clip"), 5.5, size=(640, 360))


def test_analyze_writes_log_observations_and_result(clip, tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["analyze", str(clip["video"]), "--config", str(clip["config"]), "--out", str(out),
               "--poses", str(clip["poses"]), "--no-progress"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "dispute" in printed and "totals" in printed
    result = json.loads((out / "result.json").read_text())
    # in contact-time order (a contest is reported once its arms have left, after later plays)
    plays = [(r["card"], r["player"], r["kind"]) for r in sorted(result["rulings"], key=lambda r: r["t"]) if r.get("card")]
    assert plays == [("AH", "ana", "accepted"), ("AS", "cy", "accepted"), ("2H", "ben", "accepted"),
                     ("3H", "dee", "dispute"), ("3H", "cy", "dispute"), ("2S", "ana", "accepted")]
    dispute = [r for r in result["rulings"] if r["kind"] == "dispute"][0]
    assert dispute["winner"] == "dee" and not dispute["tie"]
    # observations.jsonl is the replay input: replaying it gives result.json
    capsys.readouterr()
    assert main(["replay", str(out / "observations.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rulings"] == result["rulings"]
    # the log has every frame's timestamp, so each ruling can be shown in its footage
    with sqlite3.connect(out / "game.db") as db:
        assert db.execute("SELECT COUNT(*) FROM frames").fetchone()[0] == 165
        assert db.execute("SELECT value FROM meta WHERE key='footage'").fetchone()[0].endswith("table.mp4")
    stats = json.loads((out / "stats.json").read_text())
    assert stats["detector_frames"] < stats["frames"]  # the motion gate skipped still frames
    assert (out / "review.jsonl").read_text() == ""


def test_analyze_with_recording_keeps_the_footage(clip, tmp_path):
    out = tmp_path / "rec"
    assert main(["analyze", str(clip["video"]), "--config", str(clip["config"]), "--out", str(out),
                 "--poses", str(clip["poses"]), "--no-progress", "--record"]) == 0
    from vision.capture import VideoFileSource

    assert sum(1 for _ in VideoFileSource(out / "footage.mp4")) == 165


def test_markers_missing_and_no_manual_corners_is_a_clear_error(clip, tmp_path, capsys):
    cfg = clip["config"].read_text()
    cfg = "\n".join(line for line in cfg.splitlines() if not line.startswith("corners"))
    cfg = cfg.replace("marker_mm = [[70, 70], [1130, 70], [1130, 830], [70, 830]]", "")
    bad = tmp_path / "nocorners.toml"
    bad.write_text(cfg)
    scene = _scene()
    plain = scene.render_clip(tmp_path / "plain", 1.0, size=(640, 360), markers=False)
    rc = main(["analyze", str(plain["video"]), "--config", str(bad), "--out", str(tmp_path / "o"),
               "--poses", str(plain["poses"]), "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "markers" in err and "corners" in err and err.count("\n") == 1


def test_a_config_for_another_table_is_refused(clip, tmp_path, capsys):
    cfg = clip["config"].read_text().replace("table_mm = [1200, 900]", "table_mm = [4000, 3000]") \
        .replace("common = [[300, 225], [900, 225], [900, 675], [300, 675]]",
                 "common = [[1000, 800], [3000, 800], [3000, 2200], [1000, 2200]]")
    bad = tmp_path / "other.toml"
    bad.write_text(cfg.replace("marker_mm = [[70, 70], [1130, 70], [1130, 830], [70, 830]]",
                               "marker_mm = [[0, 0], [400, 0], [400, 300], [0, 300]]"))
    rc = main(["analyze", str(clip["video"]), "--config", str(bad), "--out", str(tmp_path / "o"),
               "--poses", str(clip["poses"]), "--no-progress"])
    assert rc == 2
    assert "does not match this video" in capsys.readouterr().err


def test_damaged_footage_keeps_what_was_refereed(clip, tmp_path, capsys):
    data = bytearray(clip["video"].read_bytes())
    for k in range(int(len(data) * 0.7), len(data), 5):
        data[k] = (data[k] * 13 + 1) % 256
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    out = tmp_path / "o"
    rc = main(["analyze", str(bad), "--config", str(clip["config"]), "--out", str(out),
               "--poses", str(clip["poses"]), "--no-progress"])
    assert rc in (0, 1)
    result = json.loads((out / "result.json").read_text())
    assert ("AH", "ana") in [(r.get("card"), r.get("player")) for r in result["rulings"]]
    with sqlite3.connect(out / "game.db") as db:
        assert db.execute("SELECT COUNT(*) FROM events WHERE type='card_touched'").fetchone()[0] >= 2


@pytest.mark.parametrize("argv, message", [
    (["analyze", "missing.mp4", "--config", "x.toml", "--out", "o"], "no such video file"),
    (["markers", "--out", "sheet.txt"], "expected an image file name"),
    (["markers", "--out", "s.png", "--size-mm", "500"], "--size-mm"),
])
def test_usage_errors(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_markers_command_writes_the_sheet(tmp_path, capsys):
    assert main(["markers", "--out", str(tmp_path / "sheet.png")]) == 0
    assert (tmp_path / "sheet.png").stat().st_size > 10_000


def test_frames_go_to_a_hub_with_a_publish_method(clip, tmp_path):
    from vision.session import analyze_video
    from vision.sources import PoseSightings

    class Hub:
        def __init__(self):
            self.frames = []

        def publish(self, jpeg, index, t):
            self.frames.append((jpeg[:2], index, t))

    import cv2

    hub = Hub()
    cv2.setNumThreads(2)
    analyze_video(clip["video"], clip["config"], tmp_path / "h", PoseSightings(clip["poses"]), progress=False, hub=hub)
    assert len(hub.frames) == 165 and hub.frames[0][0] == b"\xff\xd8"  # JPEG
    assert cv2.getNumThreads() == 1  # the analysis leaves the cores to the detector and the encoder


def test_a_short_simulated_clip_end_to_end(tmp_path):
    """The simulator's footage through the whole pipeline (cards from its truth poses)."""
    api = pytest.importorskip("simulator.api")
    from vision.pipeline import read_table_events
    from vision.session import analyze_video
    from vision.sources import PoseSightings

    clip = tmp_path / "sim"
    api.simulate(api.SimulationConfig(players=2, seed=3, out=clip, size=(640, 360), max_seconds=14, skill=1.0,
                                      progress=False, preset="ultrafast"))
    res = analyze_video(clip / "table.mp4", clip / "table.toml", tmp_path / "out", PoseSightings(clip / "poses.jsonl"),
                        table_events=read_table_events(clip / "truth.jsonl"), progress=False)
    truth = [json.loads(line) for line in (clip / "truth.jsonl").read_text().splitlines()]
    true_plays = [(e["card"], e["player"], e["t"]) for e in truth if e["type"] == "card_touched"]
    seen = [(r["card"], r["player"], r["t"]) for r in res.result["rulings"] if r.get("card")]
    assert true_plays and len(seen) == len(true_plays)
    for (card, player, t), (card2, player2, t2) in zip(sorted(true_plays, key=lambda p: p[2]), sorted(seen, key=lambda p: p[2])):
        assert (card, player) == (card2, player2) and abs(t - t2) < 0.03
    assert res.result["totals"] == json.loads((clip / "truth.json").read_text())["totals"]


def test_camera_loss_mid_game_keeps_refereeing_and_flags_the_blind_interval(clip, tmp_path):
    """A live source that drops out for 0.6 s: the loop goes on, the blind interval is logged and
    flagged, plays before and after it are still ruled."""
    from referee.eventlog import EventLog
    from referee.settings import TableSettings
    from vision.capture import Backoff, LiveSource, VideoFileSource
    from vision.config import VisionConfig
    from vision.pipeline import Pipeline
    from vision.sources import PoseSightings

    frames = [f.image for f in VideoFileSource(clip["video"])]

    class Clock:
        now = 0.0

        def __call__(self):
            return self.now

        def sleep(self, s):
            self.now += s

    clock = Clock()

    class Replay:  # a camera showing the clip at 30 fps, unplugged between 2.6 s and 3.2 s
        def __init__(self):
            self.ok = not (2.6 <= clock.now < 3.2)

        def isOpened(self):
            return self.ok

        def read(self):
            clock.now += 1 / 30
            k = int(round(clock.now * 30))
            if not self.ok or 2.6 <= clock.now < 3.2 or k >= len(frames):
                self.ok = False
                return False, None
            return True, frames[k]

        def release(self):
            self.ok = False

    src = LiveSource(Replay, "camera 0", fps=30, clock=clock, sleep=clock.sleep, backoff=Backoff(0.05, 0.2),
                     give_up_after=1.5)
    cfg = VisionConfig.load(clip["config"])
    log = EventLog.open(tmp_path / "game.db", TableSettings.load(clip["config"]))
    pipe = Pipeline(cfg, PoseSightings(clip["poses"]), fps=30, log=log)
    try:
        for frame in src:
            pipe.process(frame)
            pipe.handle_gaps(src.take_gaps())
    except Exception as exc:  # the clip ends: the "camera" never comes back
        assert "not back" in str(exc)
    pipe.finish()
    lost = [g for g in pipe.stats.gaps if g.reason == "camera_lost"]
    assert lost and lost[0].start_t == pytest.approx(2.6, abs=0.1) and lost[0].end_t >= 3.2
    assert any("camera lost" in f["reason"] for f in pipe.flags)
    assert [f["card"] for f in pipe.flags if "while the camera was blind" in f["reason"]] == ["2S"]
    cards = [r.get("card") for r in log.state().to_dict()["rulings"] if r.get("card")]
    assert "AH" in cards and "3H" in cards  # refereeing goes on before and after the blind interval
    # 2S arrived unseen: no path, no arm and no back says whose it was, so it is reviewed, not
    # ruled with a guessed owner
    assert "2S" not in cards
    assert any(f["card"] == "2S" and f["reason"].startswith("owner") for f in pipe.flags)
    log.close()


def test_the_source_is_told_what_changed_near_the_common_area_and_where_cards_wait(clip, tmp_path):
    """A detector-like source hears of changes since it last looked (clipped to the common area
    plus the focus margin) and of landed cards waiting for reads; it says where it looked."""
    from vision.config import VisionConfig
    from vision.session import analyze_video
    from vision.sources import PoseSightings

    class Watching(PoseSightings):
        def __init__(self, path):
            super().__init__(path)
            self.changed, self.watched, self.looked_mm = [], [], []

        def sightings(self, index, t, image, calibration, rectifier, changed_mm=None, watch_mm=None):
            self.changed += changed_mm or []
            self.watched += watch_mm or []
            self.looked_mm = list(changed_mm or []) + list(watch_mm or []) or [rectifier.region_mm]
            return super().sightings(index, t, image, calibration, rectifier, changed_mm, watch_mm)

    src = Watching(clip["poses"])
    res = analyze_video(clip["video"], clip["config"], tmp_path / "w", src, progress=False)
    assert [r["card"] for r in res.result["rulings"] if r.get("card")][:3] == ["AH", "AS", "2H"]
    common = VisionConfig.load(clip["config"]).zones.common
    x0, y0 = min(p[0] for p in common) - 30.0, min(p[1] for p in common) - 30.0
    x1, y1 = max(p[0] for p in common) + 30.0, max(p[1] for p in common) + 30.0
    assert src.changed and all(x0 - 1e-6 <= b[0] and y0 - 1e-6 <= b[1] and b[2] <= x1 + 1e-6 and b[3] <= y1 + 1e-6
                               for b in src.changed)
    assert src.watched  # landed cards were watched while they waited to be ruled


def _relabel(poses, card, label=None, occluded=None, before=None):
    """Rewrite ``poses.jsonl``: ``card``'s sightings (before ``before`` s) read as ``label`` and/or
    seen through a hand (``occluded``: a weaker read)."""
    lines = []
    for line in poses.read_text().splitlines():
        rec = json.loads(line)
        for c in rec["cards"]:
            if c["card"] == card and (before is None or rec["t"] < before) and c["occluded"] < 1.0:
                c["card"] = label or c["card"]
                c["occluded"] = c["occluded"] if occluded is None else occluded
        lines.append(json.dumps(rec))
    poses.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("ace_weak", [True, False])
def test_a_misread_ace_is_corrected_when_the_two_of_its_true_suit_lands_on_it(tmp_path, capsys, ace_weak):
    """ana's AC is read AS (weakly, through a hand) until ben's 2C covers it. The 2C, read surer
    than the Ace was, fits only an AC: vision sends the referee a correction of the Ace's play,
    and the 2C and the 3C are accepted on it. An Ace read as surely as the 2 is kept, while nothing
    more is built on them: then the 2C is the doubtful read, and no correction is sent (see the
    next test for the 3C that settles it)."""
    scene = SyntheticScene(PLAYERS, seed=33)
    scene.play("AC", "ana", 0, 0.8)
    scene.play("2C", "ben", 0, 2.0)
    if ace_weak:
        scene.play("3C", "cy", 0, 3.0)
    clip = scene.render_clip(tmp_path / "clip", 4.5, size=(640, 360))
    _relabel(clip["poses"], "AC", label="AS", occluded=0.6 if ace_weak else 0.0, before=1.95)
    if not ace_weak:
        _relabel(clip["poses"], "2C", occluded=0.6)
    out = tmp_path / "out"
    assert main(["analyze", str(clip["video"]), "--config", str(clip["config"]), "--out", str(out),
                 "--poses", str(clip["poses"]), "--no-progress"]) in (0, 1)
    events = [json.loads(line) for line in (out / "observations.jsonl").read_text().splitlines()]
    corrections = [e for e in events if e["type"] == "correction"]
    rulings = {r["card"]: r["kind"] for r in json.loads((out / "result.json").read_text())["rulings"]
               if r.get("card") and r["kind"] != "correction"}
    if ace_weak:
        assert [(c["action"], c["card"], events[c["target"] - 1]["card"]) for c in corrections] == [("set_card", "AC", "AS")]
        assert rulings == {"AC": "accepted", "2C": "accepted", "3C": "accepted"}
    else:
        assert corrections == [] and rulings["AS"] == "accepted" and rulings.get("2C") != "accepted"
    # observations.jsonl, corrections and all, replays to result.json
    capsys.readouterr()
    assert main(["replay", str(out / "observations.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rulings"] == json.loads((out / "result.json").read_text())["rulings"]


def test_a_pile_renamed_by_a_misread_two_is_renamed_back_by_the_three(tmp_path):
    """ana's AC is read weakly; ben's 2C is misread 2S, surer than the Ace, so the Ace is renamed
    AS (a correction). cy's 3C, read surely, then outweighs the 2S with the Ace's own read: the
    pile is clubs after all, both earlier plays are corrected back, and every club is accepted."""
    scene = SyntheticScene(PLAYERS, seed=33)
    scene.play("AC", "ana", 0, 0.8)
    scene.play("2C", "ben", 0, 2.0)
    scene.play("3C", "cy", 0, 3.0)
    clip = scene.render_clip(tmp_path / "clip", 4.5, size=(640, 360))
    _relabel(clip["poses"], "AC", occluded=0.6, before=1.95)
    _relabel(clip["poses"], "2C", label="2S", before=2.95)
    out = tmp_path / "out"
    assert main(["analyze", str(clip["video"]), "--config", str(clip["config"]), "--out", str(out),
                 "--poses", str(clip["poses"]), "--no-progress"]) in (0, 1)
    events = [json.loads(line) for line in (out / "observations.jsonl").read_text().splitlines()]
    corrections = [(c["card"], events[c["target"] - 1]["card"]) for c in events if c["type"] == "correction"]
    assert corrections == [("AS", "AC"), ("AC", "AC"), ("2C", "2S")]
    rulings = {r["card"]: r["kind"] for r in json.loads((out / "result.json").read_text())["rulings"]
               if r.get("card") and r["kind"] != "correction"}
    assert rulings == {"AC": "accepted", "2C": "accepted", "3C": "accepted"}


def test_a_surely_misread_ace_is_corrected_by_the_run_of_its_true_suit_built_on_it(tmp_path):
    """ana's AC is read AS, surely; ben's 2C, read weakly, is no surer than the Ace, so it is flagged
    as fitting no play there. cy's 3C lands on it, read surely: the 2C and the 3C together outweigh
    the Ace's read, so the pile is clubs after all: the Ace is corrected, the flagged 2C reported
    (confirmed by the 3C), and every club accepted, the 4C after them too. Without it one misread
    Ace loses its whole pile (each next card looks illegal on it)."""
    scene = SyntheticScene(PLAYERS, seed=33)
    scene.play("AC", "ana", 0, 0.8)
    scene.play("2C", "ben", 0, 2.0)
    scene.play("3C", "cy", 0, 3.0)
    scene.play("4C", "ana", 0, 4.0)
    clip = scene.render_clip(tmp_path / "clip", 5.5, size=(640, 360))
    _relabel(clip["poses"], "AC", label="AS", before=1.95)
    _relabel(clip["poses"], "2C", occluded=0.6)
    out = tmp_path / "out"
    assert main(["analyze", str(clip["video"]), "--config", str(clip["config"]), "--out", str(out),
                 "--poses", str(clip["poses"]), "--no-progress"]) in (0, 1)
    events = [json.loads(line) for line in (out / "observations.jsonl").read_text().splitlines()]
    corrections = [(c["action"], c["card"], events[c["target"] - 1]["card"]) for c in events if c["type"] == "correction"]
    assert corrections == [("set_card", "AC", "AS")]
    plays = [(e["card"], e["player"]) for e in events if e["type"] == "card_touched"]
    assert plays == [("AS", "ana"), ("2C", "ben"), ("3C", "cy"), ("4C", "ana")]
    rulings = {r["card"]: r["kind"] for r in json.loads((out / "result.json").read_text())["rulings"]
               if r.get("card") and r["kind"] != "correction"}
    assert rulings == {"AC": "accepted", "2C": "accepted", "3C": "accepted", "4C": "accepted"}
    review = [json.loads(line) for line in (out / "review.jsonl").read_text().splitlines()] \
        if (out / "review.jsonl").exists() else []
    assert not any(f["card"] == "2C" for f in review)  # (its flag withdrawn: it was played)


@pytest.mark.parametrize("revised_t, seen_stays", [(2.10, False), (2.00, True)])
def test_a_provisional_play_revised_by_the_reader_becomes_corrections_and_its_delay_counts_from_its_last_change(
        clip, tmp_path, revised_t, seen_stays):
    """A contest's seen copy goes out at once; when the arms have left, the reader revises its clock
    (``play_revised``) and sends the hidden copy. The log gets a ``set_time`` correction of the
    seen copy's play; the delay of a ruling that changed counts until it changed, of one that
    stood from the start only until it was first given."""
    from referee.eventlog import EventLog
    from referee.settings import TableSettings
    from vision.config import VisionConfig
    from vision.pipeline import Pipeline
    from vision.sources import PoseSightings

    log = EventLog.open(tmp_path / "game.db", TableSettings.load(clip["config"]))
    pipe = Pipeline(VisionConfig.load(clip["config"]), PoseSightings(clip["poses"]), fps=30, log=log)
    try:
        def play(t, card, player, u=20.0, **evidence):
            return {"type": "card_touched", "t": t, "card": card, "player": player, "pile": "p1",
                    "uncertainty_ms": u, "confidence": 0.9, "evidence": evidence}

        pipe._observe(play(1.0, "AH", "ana"), 1.3)
        seen = play(2.0, "2H", "ben", provisional="a second arm at the pile")
        pipe._observe(seen, 2.3)
        assert log.ruling(3)["stays"]  # ruled at once, provisionally
        revision = {"type": "play_revised", "of": seen, "t": revised_t, "uncertainty_ms": 10.0,
                    "reason": "vision: ordered against the other copy (cy took a copy back)", "evidence": {}}
        pipe._observe(revision, 3.1)
        pipe._observe(play(2.05, "2H", "cy", 10.0, inferred="second arm at the pile"), 3.1)
        fix = pipe.events[-2]
        assert (fix["type"], fix["action"], fix["target"], fix["t"], fix["uncertainty_ms"]) == \
            ("correction", "set_time", 3, revised_t, 10.0)
        ben, cy = log.ruling(3), log.ruling(5)
        assert (ben["kind"], ben["t"], ben["stays"], cy["stays"]) == ("dispute", revised_t, seen_stays, not seen_stays)
        # ben's ruling: given at 2.3 s and, when it changed, changed at 3.1 s
        assert pipe.stats.ruled[3] == (pytest.approx(3.1 if not seen_stays else 2.3), revised_t)
        assert pipe.stats.ruled[5] == (pytest.approx(3.1), 2.05)
        delays = sorted(round(at - contact, 2) for at, contact in pipe.stats.ruled.values())
        assert pipe.stats.to_dict()["median_report_delay_ms"] == pytest.approx(1000 * delays[1])
        # a revision of a play the log never took changes nothing
        before = len(pipe.events)
        pipe._observe({**revision, "of": play(2.5, "3H", "dee")}, 3.2)
        assert len(pipe.events) == before
    finally:
        log.close()
