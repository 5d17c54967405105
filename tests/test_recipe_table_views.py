"""The detector's pipeline-domain training data (models/recipe/table_views.py, finetune_data.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.recipe.finetune_data import write_finetune_yaml
from models.recipe.table_views import (BACK, CANVAS, INDEX, Clip, ClipSpec, ViewLabel, build_views, parse_seeds,
                                       yolo_rows)

TINY = ClipSpec(seed=6001, deck="drawn:0", cloth="wood", size=(640, 360), tilt_deg=5.0, noise=2.0, players=2,
                seconds=8.0)


@pytest.fixture(scope="module")
def clip() -> Clip:
    return Clip.make(TINY)


def _views(clip: Clip, seed: int = 3, n: int = 4):
    rng = np.random.default_rng(seed)
    r = clip.renderer
    clip.calibrate(next(iter(r.frames(0, 1))))
    out = []
    for i in clip.frame_times(n, rng):
        out += clip.views(next(iter(r.frames(i, i + 1))), rng, full_share=0.5)
    return out


def test_final_bench_seeds_are_refused():
    with pytest.raises(ValueError, match="final bench seeds"):
        ClipSpec.draw(90223, ["drawn:0"])
    with pytest.raises(ValueError, match="final bench seeds"):
        build_views(Path("/nonexistent"), [6000, 90250], 1, None)


def test_parse_seeds():
    assert parse_seeds("6000-6002,4242") == [6000, 6001, 6002, 4242]
    with pytest.raises(ValueError, match="not N or N-M"):
        parse_seeds("60a0")


def test_views_are_pipeline_canvases_with_labels_inside(clip):
    views = _views(clip)
    assert views, "a clip with cards in play gives views"
    labels = [lab for _, labs in views for lab in labs]
    assert any(lab.cls == INDEX and not lab.ignore for lab in labels)
    for canvas, labs in views:
        assert canvas.shape == (CANVAS, CANVAS, 3) and canvas.dtype == np.uint8
        # the packing leaves the pipeline's grey (114) around the patches
        assert (canvas == 114).all(axis=2).any()
        for lab in labs:
            x0, y0, x1, y1 = lab.box
            assert 0 <= x0 < x1 <= CANVAS and 0 <= y0 < y1 <= CANVAS
            assert lab.cls in (INDEX, BACK) and (lab.identity == "BACK") == (lab.cls == BACK)
            # every box lies on the warped table, never on the grey between patches
            patch = canvas[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))]
            assert not (patch == 114).all(axis=2).all()


def test_views_are_deterministic():
    # a fresh clip each: the renderer's sensor noise moves on with every frame it draws
    a, b = _views(Clip.make(TINY), seed=9, n=2), _views(Clip.make(TINY), seed=9, n=2)
    assert len(a) == len(b)
    for (ca, la), (cb, lb) in zip(a, b):
        assert np.array_equal(ca, cb) and la == lb


def test_index_labels_sit_on_card_indices(clip):
    """A labelled index is dark ink on white card: its box is far darker at its darkest than the
    table's grey and holds bright card pixels (a mis-mapped box would land on felt or grey)."""
    checked = 0
    for canvas, labs in _views(clip):
        gray = canvas.mean(axis=2)
        for lab in labs:
            if lab.cls != INDEX or lab.ignore or lab.blur_px > 2:
                continue
            x0, y0, x1, y1 = (int(round(v)) for v in lab.box)
            box = gray[y0:y1, x0:x1]
            assert box.max() - box.min() > 60
            checked += 1
    assert checked > 0


def test_yolo_rows_skip_ignored_and_normalise():
    rows = yolo_rows([ViewLabel(INDEX, (10, 20, 30, 60), "AS"), ViewLabel(BACK, (0, 0, 416, 208), "BACK"),
                      ViewLabel(INDEX, (50, 50, 60, 70), "2H", ignore=True)])
    lines = rows.strip().splitlines()
    assert len(lines) == 2
    cls, cx, cy, w, h = lines[0].split()
    assert cls == "0" and float(cx) == pytest.approx(20 / 416, abs=1e-6) and float(h) == pytest.approx(40 / 416, abs=1e-6)
    assert lines[1].split() == ["1", "0.500000", "0.250000", "1.000000", "0.500000"]


def test_finetune_yaml_lists_every_part(tmp_path):
    def touch(folder: Path, names: list[str]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for n in names:
            (folder / n).write_bytes(b"")

    touch(tmp_path / "views" / "images", ["view1.jpg", "view2.jpg"])
    touch(tmp_path / "close" / "images", ["close1.jpg"])
    touch(tmp_path / "det" / "images" / "train", ["scene000001.jpg", "scene000002.jpg", "scene000003.jpg",
                                                  "real_a_0.jpg"])
    touch(tmp_path / "det" / "images" / "val", ["scene000009.jpg"])
    counts = write_finetune_yaml(tmp_path / "ft", tmp_path / "views", tmp_path / "close", tmp_path / "det", 2)
    assert counts == {"views": 2, "closeups": 1, "scenes": 2, "real": 2}
    listed = (tmp_path / "ft" / "train.txt").read_text().split()
    assert len(listed) == 7 and listed.count(str(tmp_path / "det" / "images" / "train" / "real_a_0.jpg")) == 2
    assert "/images/" in listed[0]  # ultralytics finds labels by swapping images -> labels
    yaml = (tmp_path / "ft" / "data.yaml").read_text()
    assert "0: index" in yaml and "1: back" in yaml
    with pytest.raises(ValueError, match="no pipeline views"):
        write_finetune_yaml(tmp_path / "ft2", tmp_path / "none", tmp_path / "close", tmp_path / "det", 2)
    # det-fonts: the same mix plus the font-deck scenes
    touch(tmp_path / "fonts" / "images", ["font00000.jpg", "font00001.jpg"])
    counts = write_finetune_yaml(tmp_path / "ff", tmp_path / "views", tmp_path / "close", tmp_path / "det", 2,
                                 extra=tmp_path / "fonts")
    assert counts == {"views": 2, "closeups": 1, "scenes": 2, "real": 2, "extra": 2}
    assert (tmp_path / "ff" / "train.txt").read_text().split()[-1].endswith("fonts/images/font00001.jpg")


def test_render_scene_layout_is_checked():
    from models.recipe.scenes import render_scene
    from simulator.deck_art import DeckArt

    deck = DeckArt.drawn()
    with pytest.raises(ValueError, match="layout"):
        render_scene(np.random.default_rng(0), [deck], [deck], layout="pyramid")
    img, labels = render_scene(np.random.default_rng(1), [deck], [deck], back_share=0.0, layout="close",
                               close_size=(1.2, 1.4))
    tall = [lab.box[3] - lab.box[1] for lab in labels if lab.cls == INDEX]
    assert img.shape == (640, 640, 3)
    assert all(h > 50 for h in tall)  # a card larger than the view: big indices


def test_upright_crop_undoes_the_index_turn():
    """An index printed turned a quarter clockwise (dark half on the right) comes out upright
    (dark half on top), the view an upright classifier is trained on."""
    from models.recipe.table_views import upright_crop

    canvas = np.full((CANVAS, CANVAS, 3), 114, np.uint8)
    canvas[100:140, 100:140] = 255
    canvas[100:140, 120:140] = 0  # right half dark
    crop = upright_crop(canvas, ViewLabel(INDEX, (100, 100, 140, 140), "AS", turn_deg=88.0), 64)
    gray = crop.mean(axis=2)
    assert gray[:24].mean() < 80 and gray[40:].mean() > 150
    same = upright_crop(canvas, ViewLabel(INDEX, (100, 100, 140, 140), "AS", turn_deg=3.0), 64).mean(axis=2)
    assert same[:, 40:].mean() < 80 and same[:, :24].mean() > 150


def test_none_boxes_avoid_indices_and_the_grey_fill():
    from models.recipe.table_views import none_boxes

    rng = np.random.default_rng(0)
    canvas = np.full((CANVAS, CANVAS, 3), 114, np.uint8)
    canvas[:200, :200] = rng.integers(0, 255, (200, 200, 3), dtype=np.uint8)  # a busy patch of table
    index = ViewLabel(INDEX, (50, 50, 80, 90), "7C", ignore=True)  # even unlabelled indices are avoided
    boxes = none_boxes(canvas, [index], 20, rng)
    assert boxes
    for x0, y0, x1, y1 in boxes:
        patch = canvas[int(y0):int(y1), int(x0):int(x1)]
        assert (patch == 114).all(axis=2).mean() <= 0.1  # (almost) all on the table
        assert not (min(x1, 80) - max(x0, 50) > 0.25 * (x1 - x0) and min(y1, 90) - max(y0, 50) > 0.25 * (y1 - y0))


def _with_random_norms(net, mean: float):
    """``net`` in eval mode with non-trivial batch norms, so that folding them matters."""
    import torch

    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-mean, mean)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
    return net.eval()


def test_classifier_weights_load_back_from_onnx(tmp_path):
    """The fine-tune starts from the shipped classifier: its exported (batch-norm folded) weights
    go back into the network and read exactly as the ONNX file does."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    from models.recipe.train_cls import build_net, load_onnx_weights, _predict

    torch.manual_seed(0)
    net = _with_random_norms(build_net(5, widths=(8, 8, 8, 8, 8, 8)), 0.2)
    path = tmp_path / "cls.onnx"
    torch.onnx.export(net, torch.zeros(1, 3, 64, 64), str(path), input_names=["images"], opset_version=17,
                      dynamic_axes={"images": {0: "batch"}}, dynamo=False)
    x = np.random.default_rng(1).integers(0, 255, (4, 64, 64, 3), dtype=np.uint8)
    want = ort.InferenceSession(str(path)).run(None, {"images": (x.transpose(0, 3, 1, 2) / 255.0).astype(np.float32)})[0]
    fresh = build_net(5, widths=(8, 8, 8, 8, 8, 8))
    load_onnx_weights(fresh, path)
    fresh.eval()
    got = _predict(fresh, x)
    want = np.exp(want - want.max(1, keepdims=True))
    assert np.allclose(got, want / want.sum(1, keepdims=True), atol=1e-5)
    with pytest.raises(ValueError, match="convolutions"):
        load_onnx_weights(build_net(5, widths=(8, 8, 8, 8, 8, 8))[:6], path)


def test_detector_weights_load_back_from_onnx(tmp_path):
    """Stage 1 can be fine-tuned from what ships: the exported (norm-folded) detector comes back
    into the ultralytics layout computing the same outputs, and its rebuilt norms hold the
    calibration batch's statistics, so that training (batch statistics) starts from that function."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("ultralytics")
    import copy

    import onnxruntime as ort

    from models.recipe.det_from_onnx import DEFAULT_LAYOUT, load_onnx_detector
    from ultralytics.nn.tasks import DetectionModel

    torch.manual_seed(0)
    net = _with_random_norms(DetectionModel(str(DEFAULT_LAYOUT), verbose=False), 0.5)
    fused = copy.deepcopy(net).fuse(verbose=False)
    path = tmp_path / "det.onnx"
    torch.onnx.export(fused, torch.zeros(1, 3, 64, 64), str(path), input_names=["images"], opset_version=17,
                      dynamo=False)
    rng = np.random.default_rng(1)
    calib = torch.from_numpy(rng.random((4, 3, 64, 64), dtype=np.float32))
    back = load_onnx_detector(path, calib)
    back.eval()
    x = rng.random((1, 3, 64, 64), dtype=np.float32)
    want = ort.InferenceSession(str(path)).run(None, {"images": x})[0]
    with torch.no_grad():
        got = back(torch.from_numpy(x))[0].numpy()
    assert np.allclose(got, want, atol=1e-3)
    with torch.no_grad():  # training normalises by batch statistics: on the calibration batch they are the norms'
        want = back(calib)[0]
        for m in back.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.train()
                m.momentum = 0.0
        got = back(calib)[0]
    assert torch.allclose(got, want, atol=1e-3)
    first = back.model[0]  # its norm saw the calibration batch's conv outputs
    with torch.no_grad():
        raw = first.conv(calib)
    assert np.allclose(first.bn.running_mean.numpy(), raw.mean(dim=(0, 2, 3)).numpy(), atol=1e-4)
    assert np.allclose(first.bn.running_var.numpy(), raw.var(dim=(0, 2, 3), unbiased=False).numpy(), rtol=1e-3)
