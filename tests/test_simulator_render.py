"""The camera: frames show cards where the poses say, deterministically; outputs follow the contracts."""

from __future__ import annotations

import hashlib
import json
import tomllib
from fractions import Fraction

import cv2
import numpy as np
import pytest

from nerts_referee.cli import main as cli_main
from nerts_referee.errors import UsageError
from simulator.api import YOLO_CLASSES, SimulationConfig, load_deck, make_renderer, simulate
from simulator.game import play_game

SMALL = dict(players=4, seed=7, size=(480, 270), fps=10.0, max_seconds=12.0, disputes=[20], progress=False)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """A short clip rendered once for the module: 480x270 at 10 fps, ~10 s, YOLO every 25 frames."""
    out = tmp_path_factory.mktemp("clip")
    frames = []

    def keep(fr):
        if fr.index % 10 == 5:
            frames.append(fr)

    res = simulate(SimulationConfig(out=out, yolo_every=25, **SMALL), on_frame=keep)
    return res, out, frames


def _inner(quad: np.ndarray, shrink: float = 0.25) -> np.ndarray:
    c = quad.mean(0)
    return (c + (quad - c) * (1 - shrink)).astype(np.int32)


def test_frames_show_cards_where_the_poses_say(clip):
    res, _, frames = clip
    r = make_renderer(res.record, load_deck(None), res.config)
    lit_bg = r._light_apply(r.bg).astype(np.float32)
    checked = 0
    for fr in frames:
        img = fr.image.astype(np.float32)
        covered = np.zeros(img.shape[:2], np.uint8)
        for p in fr.poses():
            q = np.array(p["quad"], np.float32)
            cv2.fillConvexPoly(covered, np.round(q).astype(np.int32), 1)
            if p["occluded"] > 0.02 or p["moving"]:
                continue
            mask = np.zeros(img.shape[:2], np.uint8)
            cv2.fillConvexPoly(mask, _inner(q), 1)
            if mask.sum() < 30:
                continue
            diff = np.abs(img - lit_bg)[mask == 1].mean()
            assert diff > 25, (fr.index, p["card"], diff)  # something card-like is there, not the cloth
            if p["card"] != "BACK":  # faces are light card stock
                assert img[mask == 1].mean() > lit_bg[mask == 1].mean() + 20
            checked += 1
        # where no card and no hand is, the frame is the lit cloth plus noise and flicker
        from simulator.render import HAND_ID

        hands = cv2.resize((fr.label == HAND_ID).astype(np.uint8), (img.shape[1], img.shape[0]),
                           interpolation=cv2.INTER_NEAREST)
        free = (cv2.dilate(covered | hands, np.ones((9, 9), np.uint8)) == 0)
        assert np.abs(img - lit_bg)[free].mean() < 10
    assert checked > 100


def test_poses_list_every_visible_card_with_owner_and_pile(clip):
    res, out, _ = clip
    lines = (out / "poses.jsonl").read_text().splitlines()
    assert len(lines) == res.frames
    names = {p["name"] for p in res.record.players}
    centre_piles = {e["pile"] for e in res.record.truth if e["type"] == "card_touched"}
    last = json.loads(lines[-1])
    assert last["frame"] == res.frames - 1 and abs(last["t"] - (res.frames - 1) / res.fps) < 1e-6
    for line in lines[::7]:
        rec = json.loads(line)
        for c in rec["cards"]:
            assert c["owner"] in names
            assert 0.0 <= c["occluded"] < 1.0
            assert len(c["quad"]) == 4
            assert c["card"] == "BACK" or c["card"] in YOLO_CLASSES
            if c["pile"] and ":" not in c["pile"]:
                assert c["pile"] in centre_piles
    # the footage opens on the empty table; a moment later the deal shows every player's layout and
    # nothing in the centre
    assert json.loads(lines[0])["cards"] == []
    first = json.loads(lines[3])
    assert {c["owner"] for c in first["cards"]} == names
    assert all(c["pile"] and ":" in c["pile"] for c in first["cards"])


def test_video_has_exact_timestamps_and_all_frames(clip):
    import av

    res, out, _ = clip
    with av.open(str(out / "table.mp4")) as c:
        s = c.streams.video[0]
        assert (s.codec_context.width, s.codec_context.height) == (480, 270)
        assert s.codec_context.name == "h264"
        n = 0
        for i, f in enumerate(c.decode(video=0)):
            assert f.pts * f.time_base == Fraction(i, 10)
            n += 1
    assert n == res.frames


def test_same_seed_same_frames_and_other_seed_differs():
    def digest(seed: int) -> tuple[str, str]:
        cfg = SimulationConfig(**{**SMALL, "seed": seed, "max_seconds": 6.0})
        rec = play_game(cfg.game_config())
        r = make_renderer(rec, load_deck(None), cfg)
        h, hp = hashlib.sha256(), hashlib.sha256()
        for fr in r.frames(0, 25):
            h.update(fr.image.tobytes())
            hp.update(fr.poses_json().encode())
        return h.hexdigest(), hp.hexdigest()

    a, b, c = digest(3), digest(3), digest(4)
    assert a == b
    assert a[0] != c[0] and a[1] != c[1]


def test_frames_from_the_middle_equal_frames_from_the_start():
    cfg = SimulationConfig(**{**SMALL, "max_seconds": 6.0})
    rec = play_game(cfg.game_config())
    full = {fr.index: fr.image.copy() for fr in make_renderer(rec, load_deck(None), cfg).frames(0, 30)}
    part = {fr.index: fr.image.copy() for fr in make_renderer(rec, load_deck(None), cfg).frames(20, 30)}
    # the renderer steps through skipped frames, so the scene matches; only sensor noise differs
    for i, img in part.items():
        assert np.abs(img.astype(int) - full[i].astype(int)).mean() < 4


def test_truth_files_and_table_toml(clip):
    res, out, _ = clip
    truth = [json.loads(x) for x in (out / "truth.jsonl").read_text().splitlines()]
    assert truth == [dict(e) | ({"uncertainty_ms": 0.0, "confidence": 1.0,
                                 "evidence": {"frames": [int(e["t"] * 10), int(e["t"] * 10) + 1],
                                              "source": "simulator"}}
                                if e["type"] == "card_touched" else {}) for e in res.record.truth]
    summary = json.loads((out / "truth.json").read_text())
    assert [p["back"] for p in summary["players"]] == ["red", "blue", "green", "orange"]
    assert summary["totals"] == res.record.totals
    assert summary["disputes"] and summary["disputes"][0]["staged"]
    assert summary["disputes"][0]["gap_ms"] == pytest.approx(20.0, abs=1e-3)
    table = tomllib.loads((out / "table.toml").read_text())
    assert [p["name"] for p in table["players"]] == ["ana", "ben", "cleo", "dev"]
    assert table["camera"]["width"] == 480 and table["camera"]["fps"] == 10.0
    corners = np.array(table["calibration"]["corners"])
    assert corners.shape == (4, 2) and (corners[:, 0] >= 0).all() and (corners[:, 0] <= 480).all()
    from referee.settings import TableSettings

    settings = TableSettings.load(out / "table.toml")
    assert settings.rules.tie_window_ms == 0.0 and len(settings.players) == 4
    try:
        from vision.config import VisionConfig
    except ImportError:
        return
    vc = VisionConfig.from_dict(table)
    assert vc.zones.table_mm == tuple(table["zones"]["table_mm"])


def test_aruco_markers_are_found_where_table_toml_says():
    cfg = SimulationConfig(**{**SMALL, "size": (1280, 720), "max_seconds": 6.0, "tilt_deg": 20.0})
    rec = play_game(cfg.game_config())
    r = make_renderer(rec, load_deck(None), cfg)
    img = next(iter(r.frames(0, 1))).image
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    from simulator.render import marker_centres

    expected = r.cam.project(marker_centres(rec.layout.table_mm))
    for quad, mid in zip(corners, ids.ravel()):
        assert np.linalg.norm(quad.reshape(4, 2).mean(0) - expected[mid]) < 3.0


def test_yolo_export_follows_contract_4(clip, shared_dir):
    res, out, _ = clip
    import ast

    # classes.yaml is YAML; its `names:` line is a flow list that reads as a Python literal
    real = (shared_dir / "datasets" / "real-dev" / "classes.yaml").read_text()
    start = real.index("names:")
    listed = ast.literal_eval(real[start + 6: real.index("]", start) + 1])
    assert list(YOLO_CLASSES) == listed
    images = sorted((out / "yolo" / "images").glob("*.jpg"))
    labels = sorted((out / "yolo" / "labels").glob("*.txt"))
    assert len(images) == len(labels) == len(range(0, res.frames, 25))
    total = 0
    for lab in labels:
        for row in lab.read_text().splitlines():
            cls, cx, cy, w, h = row.split()
            assert 0 <= int(cls) < 55
            assert all(0.0 <= float(v) <= 1.0 for v in (cx, cy, w, h))
            total += 1
    assert total > 20
    yaml_text = (out / "yolo" / "classes.yaml").read_text()
    assert "nc: 55" in yaml_text and '"RED JOKER"' in yaml_text


def test_yolo_index_boxes_sit_on_their_card(clip):
    res, out, frames = clip
    from simulator.api import YoloExporter

    r = frames[0].renderer
    exp = YoloExporter.__new__(YoloExporter)
    exp.r, exp.index = r, {n: i for i, n in enumerate(YOLO_CLASSES)}
    fr = frames[-1]
    rows = exp.labels(fr)
    faces = [d for d, occ in fr.visible if d.face_up and occ < 0.05]
    assert faces
    for cls, cx, cy, w, h in rows:
        name = YOLO_CLASSES[cls]
        if name == "BACK":
            continue
        x, y = cx * r.W, cy * r.H
        owners = [d for d in faces if r.tl.cards[d.uid].name == name
                  and cv2.pointPolygonTest(d.quad.reshape(-1, 1, 2), (x, y), False) >= 0]
        hidden = [d for d, _ in fr.visible if r.tl.cards[d.uid].name == name]
        assert owners or hidden, (name, x, y)
        assert w * r.W < r.sprite_size[0] and h * r.H < r.sprite_size[1] / 2


def test_shared_deck_art_renders(shared_dir, tmp_path):
    deck_dir = shared_dir / "cards" / "jumbo-index"
    if not deck_dir.is_dir():
        pytest.skip("jumbo-index deck not in ../shared")
    res = simulate(SimulationConfig(**{**SMALL, "max_seconds": 6.0, "deck_art": deck_dir}), on_frame=lambda fr: None)
    assert res.frames > 0


@pytest.mark.parametrize("argv,message", [
    (["--players", "0"], "2 to 8"),
    (["--players", "9"], "2 to 8"),
    (["--deck-art", "/nonexistent/deck"], "deck folder not found"),
    (["--size", "100x50"], "--size"),
    (["--tilt", "45"], "--tilt"),
    (["--rule", "tie_rule=coin"], "tie_rule"),
    (["--yolo-every", "-1"], "--yolo-every"),
    (["--deck-art", "drawn:x"], "drawn:N"),
    (["--poses-every", "0"], "--poses-every"),
])
def test_bad_arguments_get_one_clear_error(argv, message, tmp_path, capsys):
    rc = cli_main(["simulate", "--out", str(tmp_path / "o"), "--quiet", *argv])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_missing_card_image_in_deck_folder(tmp_path, capsys):
    deck = tmp_path / "deck"
    deck.mkdir()
    img = np.full((70, 50, 3), 255, np.uint8)
    from referee.cards import CARD_NAMES

    for name in CARD_NAMES:
        if name != "QS":
            cv2.imwrite(str(deck / f"{name}.png"), img)
    rc = cli_main(["simulate", "--out", str(tmp_path / "o"), "--quiet", "--deck-art", str(deck)])
    err = capsys.readouterr().err
    assert rc == 2 and "QS.png" in err
    with pytest.raises(UsageError, match="QS.png"):
        simulate(SimulationConfig(deck_art=deck, max_seconds=6.0, video=False))


def test_cli_writes_every_output(tmp_path, capsys):
    out = tmp_path / "run"
    rc = cli_main(["simulate", "--players", "3", "--seed", "2", "--out", str(out), "--size", "320x180",
                   "--fps", "8", "--max-seconds", "6", "--yolo-every", "20", "--quiet"])
    assert rc == 0
    for name in ("table.mp4", "truth.jsonl", "truth.json", "poses.jsonl", "table.toml", "yolo/classes.yaml"):
        assert (out / name).is_file(), name
    printed = capsys.readouterr().out
    assert "round 1" in printed and "rendered" in printed


def test_no_video_writes_truth_and_table_only(tmp_path):
    out = tmp_path / "truth-only"
    rc = cli_main(["simulate", "--seed", "5", "--out", str(out), "--max-seconds", "10", "--no-video", "--quiet"])
    assert rc == 0
    assert sorted(p.name for p in out.iterdir()) == ["table.toml", "truth.json", "truth.jsonl"]
    table = tomllib.loads((out / "table.toml").read_text())
    assert len(table["calibration"]["corners"]) == 4


def test_every_truth_touch_shows_on_its_pile_in_the_footage(clip):
    """Truth and pixels agree: shortly after each contact the poses show that card, of that
    player's deck, lying on that pile."""
    res, out, _ = clip
    poses = [json.loads(x) for x in (out / "poses.jsonl").read_text().splitlines()]
    touches = [e for e in res.record.truth if e["type"] == "card_touched"]
    assert touches
    for e in touches:
        lo, hi = int(np.ceil((e["t"] + 0.12) * res.fps)), int((e["t"] + 1.0) * res.fps)
        seen = [c for p in poses[lo:hi + 1] for c in p["cards"]
                if c["card"] == e["card"] and c["owner"] == e["player"] and c["pile"] == e["pile"]]
        assert seen, e
        assert not any(c["moving"] for c in seen[-3:])
