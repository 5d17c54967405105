"""Int8 weights and activations for both ONNX models (static, calibrated), for the 2-core latency target.

The float models spend ~45 ms (detector, 416 px) + ~25 ms (classifier, ~40 crops) per 640 px
frame on 2 cores; int8 QDQ with per-channel weights runs on the int8 kernels of onnxruntime's CPU
provider. Activation ranges are calibrated on inputs prepared exactly as ``vision.detector``
prepares them: rendered scenes and the real-dev photos already trained on.

Weights use 7 of their 8 bits (``reduce_range``). On x86 CPUs without VNNI (AVX2 only: many
laptops, most AMD EPYC/Ryzen before Zen 4) onnxruntime multiplies uint8 activations by int8
weights with an instruction that adds two products into a 16-bit sum, which saturates once
|weight| > 64 (255 * 127 * 2 > 32767): full-range int8 weights read real webcam photos at recall
0.64 instead of 0.83 there, and the pipeline missed most plays. :func:`reduce_weight_range` brings
already-quantized models into that range.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def expand_fp16(src: Path, dst: Path) -> None:
    """Undo ``compact``: float16 initializers + Cast back to plain float32 initializers."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    halves = {i.name: i for i in graph.initializer if i.data_type == onnx.TensorProto.FLOAT16}
    for node in [n for n in graph.node if n.op_type == "Cast" and n.input and n.input[0] in halves]:
        init = halves[node.input[0]]
        graph.initializer.remove(init)
        graph.initializer.append(numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float32), node.output[0]))
        graph.node.remove(node)
    onnx.save(model, str(dst))


WEIGHT_MAX = 63  # 7-bit weights: no 16-bit saturation in the AVX2 u8 x s8 kernels (see above)
WEIGHTS_NOTE = "int8 QDQ, 7-bit weights (models/recipe/quantize.py)"  # detector.json "weights"


def dq_axis(node, ndim: int) -> int:
    """The channel axis of a DequantizeLinear node's per-channel scale (ONNX default 1)."""
    return next((a.i for a in node.attribute if a.name == "axis"), 1) % ndim


def along(values: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """Per-channel ``values`` shaped to broadcast along ``axis`` of an ``ndim`` tensor."""
    shape = [1] * ndim
    shape[axis] = -1
    return values.reshape(shape)


def dequantize(node, init: dict[str, np.ndarray]) -> np.ndarray:
    """The float tensor a DequantizeLinear node makes of its initializer (weights, biases)."""
    q, scale = init[node.input[0]].astype(np.float32), init[node.input[1]].astype(np.float32)
    zero = init[node.input[2]].astype(np.float32) if len(node.input) > 2 and node.input[2] in init else np.zeros_like(scale)
    if scale.size > 1:
        axis = dq_axis(node, q.ndim)
        scale, zero = along(scale, axis, q.ndim), along(zero, axis, q.ndim)
    return (q - zero) * scale


def float_initializers(model) -> dict[str, np.ndarray]:
    """Every initializer of an ONNX model as an array, plus, for an int8 (QDQ) export, the float
    weights and biases its DequantizeLinear nodes make (under those nodes' output names)."""
    from onnx import numpy_helper

    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "DequantizeLinear" and n.input[0] in init:
            init[n.output[0]] = dequantize(n, init)
    return init


def reduce_weight_range(src: Path, dst: Path, limit: int = WEIGHT_MAX) -> int:
    """Requantize a QDQ model's int8 weights into [-limit, limit], per output channel, and its
    int32 biases to match (a fused QLinearConv reads the bias at scale input x weight scale, so
    each bias channel's scale moves with its weight channel's). Activations are untouched.
    Returns the number of weight tensors changed."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    init = {i.name: i for i in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}

    def array(name: str) -> np.ndarray:
        return numpy_helper.to_array(init[name])

    def put(name: str, value: np.ndarray) -> None:
        graph.initializer.remove(init[name])
        init[name] = numpy_helper.from_array(value, name)
        graph.initializer.append(init[name])

    factor: dict[str, np.ndarray] = {}  # weight DQ output -> per-channel (or one) scale factor
    changed = 0
    for node in graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in init:
            continue
        q = array(node.input[0])
        if q.dtype != np.int8:
            continue
        scale = array(node.input[1])
        axis = dq_axis(node, q.ndim)
        mag = np.abs(np.moveaxis(q.astype(np.int32), axis, 0)).reshape(q.shape[axis], -1).max(1)
        if scale.size == 1:  # one scale for the tensor
            mag = np.full(1, mag.max())
        grow = np.maximum(mag / limit, 1.0)  # channels already in range stay as they are
        if (grow > 1).any():
            new_q = np.round(q / (along(grow, axis, q.ndim) if scale.size > 1 else grow[0]))
            put(node.input[0], np.clip(new_q, -limit, limit).astype(np.int8))
            put(node.input[1], (scale * grow).reshape(scale.shape).astype(scale.dtype))
            changed += 1
        factor[node.output[0]] = grow
    for node in graph.node:  # the bias of each op whose weight was rescaled
        if node.op_type not in ("Conv", "Gemm") or len(node.input) < 3 or node.input[1] not in factor:
            continue
        grow = factor[node.input[1]]
        bias_dq = producer.get(node.input[2])
        if bias_dq is None or bias_dq.op_type != "DequantizeLinear" or bias_dq.input[0] not in init:
            continue
        b, b_scale = array(bias_dq.input[0]), array(bias_dq.input[1])
        if b.dtype != np.int32:
            continue
        put(bias_dq.input[0], np.round(b / grow).astype(np.int32))
        put(bias_dq.input[1], (b_scale * grow).reshape(b_scale.shape).astype(b_scale.dtype))
    onnx.save(model, str(dst))
    return changed


class _Reader:
    """onnxruntime CalibrationDataReader over a list of ready input blobs."""

    def __init__(self, name: str, blobs: list[np.ndarray]):
        self.name, self.blobs = name, iter(blobs)

    def get_next(self):
        blob = next(self.blobs, None)
        return None if blob is None else {self.name: blob}

    def rewind(self):  # some onnxruntime versions call it between passes
        pass


def calibration_images(n_scenes: int, seed: int, shared: Path | None, holdout: str,
                       real_dev: Path | None, trained_on: list[str]) -> list[np.ndarray]:
    """BGR images: rendered training-design scenes + the real-dev photos the models trained on."""
    import cv2

    from models.recipe.build_data import _decks
    from models.recipe.scenes import render_scene

    faces, backs = _decks(shared, holdout)
    rng = np.random.default_rng(seed)
    images = [render_scene(rng, faces, backs)[0] for _ in range(n_scenes)]
    if real_dev is not None:
        for name in trained_on:
            img = cv2.imread(str(real_dev / "images" / name))
            if img is not None:
                images.append(img)
    return images


def _head_tail(model_path: Path) -> list[str]:
    """Nodes of the YOLO detect head other than its convolutions (box decoding, class sigmoid,
    concat): they mix pixel coordinates and probabilities in one tensor, which one int8 scale
    cannot hold, so they stay float."""
    import onnx

    nodes = onnx.load(str(model_path)).graph.node
    layers = [int(n.name.split("/")[1].split(".")[1]) for n in nodes if n.name.startswith("/model.")]
    head = f"/model.{max(layers)}/"
    return [n.name for n in nodes if n.name.startswith(head) and n.op_type != "Conv"]


def quantize(model_dir: Path, out_dir: Path, images: list[np.ndarray], log=print,
             names: tuple[str, ...] = ("cards_det.onnx", "cards_cls.onnx")) -> None:
    """Write int8 ``cards_det.onnx`` / ``cards_cls.onnx`` for the float models in ``model_dir``
    (QDQ, per-channel 7-bit weights, uint8 activations, min/max ranges over ``images``); only
    ``names`` are quantized, the others are copied as they are (already int8: a new classifier
    beside a shipped detector)."""
    import shutil

    import cv2
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.detector import Detector, letterbox, square_crop

    det = Detector.load(model_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    det_blobs, crops = [], []
    for img in images:
        inp = letterbox(img, det.imgsz)[0]
        det_blobs.append(cv2.cvtColor(inp, cv2.COLOR_BGR2RGB).astype(np.float32).transpose(2, 0, 1)[None] / 255.0)
        boxes, _, cls_id = det._boxes(img)
        crops += [square_crop(img, b, det.cls_size) for b, c in zip(boxes[:16], cls_id[:16])
                  if det.det_classes[c] == "index"]
    cls_blobs = [np.ascontiguousarray(np.stack(crops[i:i + 32])[..., ::-1].astype(np.float32).transpose(0, 3, 1, 2) / 255.0)
                 for i in range(0, len(crops), 32)]
    for name, blobs in (("cards_det.onnx", det_blobs), ("cards_cls.onnx", cls_blobs)):
        if name not in names:
            shutil.copy(model_dir / name, out_dir / name)
            continue
        f32, pre = out_dir / (name + ".f32"), out_dir / (name + ".pre")
        expand_fp16(model_dir / name, f32)
        quant_pre_process(str(f32), str(pre), skip_symbolic_shape=True)
        keep_float = _head_tail(pre) if name == "cards_det.onnx" else []
        quantize_static(str(pre), str(out_dir / name), _Reader("images", blobs), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=keep_float, reduce_range=True)
        f32.unlink()
        pre.unlink()
        log(f"int8 {name}: {len(blobs)} calibration inputs, {len(keep_float)} head nodes kept float, "
            f"{(out_dir / name).stat().st_size / 1e6:.1f} MB")


def quantize_folder(float_dir: Path, out: Path, shared: Path | None, seed: int = 20261130, n_scenes: int = 48,
                    log=print, extra: list[Path] | None = None,
                    names: tuple[str, ...] = ("cards_det.onnx", "cards_cls.onnx")) -> None:
    """A model folder (float weights + detector.json) -> the same folder in int8 at ``out``.
    ``extra``: more calibration images (the pipeline's canvases, whose grey fill and upsampled
    cards the scenes do not show)."""
    import json

    meta = json.loads((float_dir / "detector.json").read_text())
    real_dev = shared / "datasets" / "real-dev" if shared is not None else None
    images = calibration_images(n_scenes, seed, shared if shared and (shared / "cards").is_dir() else None,
                                meta.get("recipe", {}).get("holdout", "jumbo-index"),
                                real_dev if real_dev is not None and real_dev.is_dir() else None,
                                meta.get("trained_on", []))
    if extra:
        import cv2

        images += [img for img in (cv2.imread(str(p)) for p in extra) if img is not None]
    quantize(float_dir, out, images, log=log, names=names)
    meta["weights"] = WEIGHTS_NOTE
    (out / "detector.json").write_text(json.dumps(meta, indent=2) + "\n")


def reduce_folder(src: Path, out: Path) -> None:
    """An int8 model folder with full-range weights -> the same folder with 7-bit weights at ``out``
    (how v6.1 was made from v6's files; the command line then tunes the thresholds again)."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    meta = json.loads((src / "detector.json").read_text())
    for key in ("detector", "classifier"):
        name = meta[key]["file"]
        n = reduce_weight_range(src / name, out / name)
        print(f"{name}: {n} weight tensors brought into +-{WEIGHT_MAX}", flush=True)
    meta["weights"] = WEIGHTS_NOTE
    (out / "detector.json").write_text(json.dumps(meta, indent=2) + "\n")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="int8-quantize a model folder (float weights + detector.json)")
    ap.add_argument("float_dir", type=Path, help="float model folder (with --reduce-range: an int8 one)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--only", nargs="+", choices=["cards_det.onnx", "cards_cls.onnx"],
                    default=["cards_det.onnx", "cards_cls.onnx"],
                    help="quantize only these; copy the others (already int8) as they are")
    ap.add_argument("--reduce-range", action="store_true",
                    help="float_dir holds int8 models with full-range weights: requantize them to 7 bits")
    args = ap.parse_args()
    if args.reduce_range:
        reduce_folder(args.float_dir, args.out)
    else:
        quantize_folder(args.float_dir, args.out, args.shared if args.shared.is_dir() else None, names=tuple(args.only))
    if args.shared.is_dir():  # the models changed: so may the thresholds (the recipe's rule)
        from models.recipe.train import tune_thresholds

        tune_thresholds(args.out, args.shared)
