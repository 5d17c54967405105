"""Stage 1 back in PyTorch from its ONNX file, so the detector can be fine-tuned from what ships.

No PyTorch weights outlive a session (``build/`` is not kept), and the recipe that makes them
takes ~3.5 h on 2 cores; the shipped ``cards_det.onnx`` holds the same weights. Its export folded
each batch norm into the convolution before it (and the int8 file stores those kernels as QDQ
int8), so each ultralytics ``Conv`` gets the folded kernel back, and its batch norm is rebuilt to
compute ``x + folded bias`` *with statistics that match the data*: running mean and variance are
measured on calibration images and the norm's scale/shift undo them. Training then starts from
the shipped function (a norm set to the identity with mean 0 / variance 1 would, in train mode,
renormalise every channel by its batch statistics and wreck the network on the first step).

    python models/recipe/det_from_onnx.py models/cards_det.onnx build/train/runs/shipped.pt \\
        --calib build/train/data/det/images/train build/train/data/views/images

The checkpoint loads with ``YOLO(path)`` and trains like any other (``train.py --det-onnx``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DEFAULT_LAYOUT = Path(__file__).with_name("cards-det.yaml")


def conv_kernels(onnx_path: Path) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """``{torch module name: (kernel, bias)}`` of every convolution of an ultralytics ONNX export
    (float or QDQ int8: the int8 kernels come back dequantized)."""
    import onnx

    from models.recipe.quantize import float_initializers

    model = onnx.load(str(onnx_path))
    init = float_initializers(model)
    producer = {o: n for n in model.graph.node for o in n.output}

    def value(name: str) -> np.ndarray:  # the exporter shares equal tensors through Identity nodes
        while name not in init and name in producer and producer[name].op_type == "Identity":
            name = producer[name].input[0]
        return init[name]

    kernels = {}
    for node in model.graph.node:
        if node.op_type != "Conv":
            continue
        source = producer.get(node.input[1])
        dq = source is not None and source.op_type == "DequantizeLinear"  # an int8 export's weight
        name = source.input[0].removesuffix("_quantized") if dq else node.input[1]
        bias = value(node.input[2]) if len(node.input) > 2 else None
        kernels[name.removesuffix(".weight")] = (value(node.input[1]), bias)
    return kernels


def calibration_batch(folders: Path | list[Path], n: int, imgsz: int, seed: int = 0):
    """``n`` images drawn from ``folders`` (those that exist), letterboxed as ultralytics and
    ``vision.detector`` feed them. Draw them from what the fine-tune trains on: a norm's batch
    statistics then start where its rebuilt running statistics are."""
    import cv2
    import torch

    from vision.detector import letterbox

    folders = [folders] if isinstance(folders, Path) else folders
    files = sorted(p for f in folders if f.is_dir() for p in f.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not files:
        raise SystemExit(f"{', '.join(map(str, folders))}: no images to calibrate the batch norms on")
    pick = np.random.default_rng(seed).choice(len(files), size=min(n, len(files)), replace=False)
    batch = [letterbox(cv2.imread(str(files[k]))[:, :, ::-1], imgsz)[0] for k in sorted(pick)]
    return torch.from_numpy(np.stack(batch).transpose(0, 3, 1, 2).copy()).float() / 255.0


def load_onnx_detector(onnx_path: Path, calib, layout: Path = DEFAULT_LAYOUT):
    """An ultralytics ``DetectionModel`` of ``layout`` computing what ``onnx_path`` computes (up to
    int8 rounding), its batch norms set from the calibration batch ``calib`` (N x 3 x S x S)."""
    import torch
    import torch.nn as nn
    from ultralytics.nn.tasks import DetectionModel

    kernels = conv_kernels(onnx_path)
    model = DetectionModel(str(layout), verbose=False)
    modules = dict(model.named_modules())
    convs = {name for name, m in modules.items() if isinstance(m, nn.Conv2d)}
    missing, shape = convs - set(kernels), []
    if missing:
        raise ValueError(f"{onnx_path} lacks {len(missing)} convolutions of {layout.name}, e.g. {sorted(missing)[:3]}")
    norms = {}  # conv name -> its batch norm (ultralytics Conv: .conv then .bn)
    with torch.no_grad():
        for name in sorted(convs):
            conv, (w, b) = modules[name], kernels[name]
            if tuple(conv.weight.shape) != w.shape:
                shape.append(f"{name} {w.shape} vs {tuple(conv.weight.shape)}")
                continue
            conv.weight.copy_(torch.from_numpy(w.astype(np.float32)))
            bn = modules.get(name.removesuffix(".conv") + ".bn") if name.endswith(".conv") else None
            if isinstance(bn, nn.BatchNorm2d):
                norms[name] = (bn, torch.from_numpy(b.astype(np.float32)) if b is not None else torch.zeros(w.shape[0]))
                bn.weight.fill_(1.0)
                bn.bias.copy_(norms[name][1])
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)  # x / sqrt(var + eps) + bias = x + bias
            elif b is not None:
                conv.bias.copy_(torch.from_numpy(b.astype(np.float32)))
        if shape:
            raise ValueError(f"{onnx_path}: kernel shapes differ from {layout.name}: {shape[:3]}")
        # every norm adds its bias now (the exported function), so one pass gives each conv's
        # output statistics as the network computes them
        stats = {}

        def hook(name):
            def keep(_module, inputs, _output):
                x = inputs[0].double()
                stats[name] = (x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), unbiased=False))  # as training normalises
            return keep

        handles = [bn.register_forward_hook(hook(name)) for name, (bn, _) in norms.items()]
        model.eval()
        model(calib)
        for h in handles:
            h.remove()
        for name, (bn, bias) in norms.items():
            # out = (x - mean) / sqrt(var + eps) * scale + shift  ==  x + bias
            mean, var = (t.float() for t in stats[name])
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.copy_(bias + mean)
    return model


def save_checkpoint(model, out: Path, source: Path) -> None:
    """Write ``model`` as an ultralytics checkpoint that ``YOLO(out)`` loads and trains from. Kept
    in float32: ultralytics' own ``save`` halves the weights, and a rebuilt norm's shift (folded
    bias + channel mean) loses the bias to float16 rounding where the mean is large."""
    import torch
    from ultralytics import __version__

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "train_args": {}, "version": __version__, "source": str(source)}, out)
    print(f"{source} -> {out}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("onnx", type=Path, help="an exported detector (float or int8), e.g. models/cards_det.onnx")
    ap.add_argument("out", type=Path, help="the ultralytics checkpoint to write (.pt)")
    ap.add_argument("--calib", type=Path, nargs="+", required=True, help="folders of training images for the norms")
    ap.add_argument("--calib-images", type=int, default=48)
    ap.add_argument("--imgsz", type=int, default=416)
    ap.add_argument("--layout", type=Path, default=DEFAULT_LAYOUT, help="the model yaml the ONNX was exported from")
    args = ap.parse_args(argv)
    from models.recipe import tv_shim
    from models.recipe.train import _offline_env

    _offline_env()
    tv_shim.install()
    model = load_onnx_detector(args.onnx, calibration_batch(args.calib, args.calib_images, args.imgsz), args.layout)
    save_checkpoint(model, args.out, args.onnx)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
