"""Stage 2: a small CNN that names an index crop, trained with a plain PyTorch loop, exported to ONNX.

Why not ultralytics' classifier: on 64 px crops and a CPU budget of a few thousand steps it barely
left chance level here (4% top-1 after 200 steps on upright synthetic glyphs), while this
network of ~0.1 GFLOPs per crop learns the glyphs in minutes; a frame holds ~15 crops, so the
per-crop cost also sets the latency. Input: N x 3 x 64 x 64 RGB in [0, 1]; output: N x classes
probabilities (softmax inside the graph).

Two kinds of data: crops rendered from deck art (``<data>/{train,val}/<class>/*.png``, upright
within ~50 degrees, many with neighbouring cards of a fan around them) and, when present, the
real-dev train-split index boxes (``<data>/real``: wide patches, see
``build_data.real_index_patches``). Real boxes carry no "up": after two epochs (and again every epoch)
the network itself, given the true label, picks the turn (in 15-degree steps) under which it reads
each real index best (:func:`orient_real`); from then on every batch also holds real indices cut
afresh each time: turned within +-30 degrees of that upright, window shifted and scaled like a
detector box, light, blur and JPEG varied.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.detector import index_turns

REAL_SPREAD = 30.0  # degrees around the found upright that real crops are turned by in training
ORIENT_STEP = 15  # degrees between the turns tried by orient_real


def _load_split(folder: Path, classes: list[str]) -> tuple[np.ndarray, np.ndarray]:
    images, labels = [], []
    for k, name in enumerate(classes):
        for f in sorted((folder / name).glob("*.png")):
            img = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if img is not None:
                images.append(img[:, :, ::-1])  # RGB, as at inference
                labels.append(k)
    return np.stack(images), np.array(labels, np.int64)


REAL_HOLDOUT = 0.25
"""Share of the real-dev train-half photos the classifier keeps out (epoch choice, threshold tuning)."""


def real_holdout_photo(photo: str, fraction: float) -> bool:
    """Photos of the real-dev *train* half kept out of training to measure on (development only);
    fixed by the second byte of the name's SHA-1, independent of the train/eval split's first."""
    return hashlib.sha1(Path(photo).stem.encode()).digest()[1] < fraction * 256


class RealSet:
    """Real index patches (RGB) with labels, box sizes and the upright turn once it is known."""

    def __init__(self, folder: Path, classes: list[str], holdout: float = 0.0, train: bool = True):
        meta = json.loads((folder / "index.json").read_text())
        self.margin = float(meta["margin"])
        keep = [it for it in meta["items"] if it["class"] in classes
                and real_holdout_photo(it["photo"], holdout) != train]
        self.patches = [cv2.imread(str(folder / it["file"]), cv2.IMREAD_COLOR)[:, :, ::-1] for it in keep]
        self.labels = np.array([classes.index(it["class"]) for it in keep], np.int64)
        self.box_wh = np.array([it["box_wh"] for it in keep], np.float32).reshape(-1, 2)
        self.photos = [it["photo"] for it in keep]
        self.angle = np.zeros(len(keep), np.float32)  # turn that makes each index upright

    def __len__(self) -> int:
        return len(self.patches)

    def window(self, i: int, angle: float, size: int = 64, rng: np.random.Generator | None = None) -> np.ndarray:
        """The classifier's square window (1.25x the box's longer side) over patch ``i``, turned by
        ``angle`` degrees; with ``rng`` also shifted, scaled and degraded as augmentation."""
        patch = self.patches[i]
        p = patch.shape[0]
        side = p / self.margin * 1.25
        cx = cy = p / 2
        if rng is not None:
            side *= float(np.exp(rng.normal(0, 0.1)))
            w, h = self.box_wh[i] * p / self.margin / max(self.box_wh[i].max(), 1e-6)
            cx += rng.normal(0, 0.08 * w)
            cy += rng.normal(0, 0.08 * h)
        M = cv2.getRotationMatrix2D((cx, cy), angle, size / side)
        M[:, 2] += (size / 2 - cx, size / 2 - cy)
        out = cv2.warpAffine(np.ascontiguousarray(patch), M, (size, size), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
        return out if rng is None else _degrade_real(rng, out)


def _degrade_real(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Lighter than the rendered crops' camera (these already come from one): light, white
    balance and saturation (never hue: red stays red), blur, noise, JPEG."""
    x = img.astype(np.float32) * rng.uniform(0.7, 1.25) * rng.uniform(0.92, 1.08, 3)
    if rng.random() < 0.3:
        x += rng.uniform(0, 0.4) * (x.mean(axis=2, keepdims=True) - x)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.4))
    if rng.random() < 0.3:  # fewer pixels: a card further from the camera
        k = rng.uniform(0.4, 0.8)
        n = max(int(64 * k), 12)
        x = cv2.resize(cv2.resize(x, (n, n), interpolation=cv2.INTER_AREA), (64, 64), interpolation=cv2.INTER_LINEAR)
    x = np.clip(x + rng.normal(0, rng.uniform(0, 6), x.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        bgr = np.ascontiguousarray(x[:, :, ::-1])  # the encoder expects BGR
        x = cv2.imdecode(cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(35, 95))])[1], cv2.IMREAD_COLOR)[:, :, ::-1]
    return x


def build_net(n_classes: int, widths: tuple[int, ...] = (32, 48, 80, 80, 144, 192)):
    """7 convolutions with batch norm, 64 px in; ``widths`` of the conv blocks."""
    import torch.nn as nn

    def block(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    a, b, c, d, e, f = widths
    return nn.Sequential(
        *block(3, a, 2),                               # 32x32
        *block(a, b), nn.MaxPool2d(2),                 # 16x16
        *block(b, c), *block(c, d), nn.MaxPool2d(2),   # 8x8
        *block(d, e), nn.MaxPool2d(2),                 # 4x4
        *block(e, f),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(f, n_classes),
    )


def _to_tensor(x: np.ndarray):
    import torch

    # plain NCHW: on these small maps it trains faster here than channels_last
    return torch.from_numpy(np.ascontiguousarray(x)).permute(0, 3, 1, 2).float().div_(255.0).contiguous()


def _predict(net, x: np.ndarray, batch: int = 256) -> np.ndarray:
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append(torch.softmax(net(_to_tensor(x[i:i + batch])), dim=1).numpy())
    return np.concatenate(out) if out else np.zeros((0, 0), np.float32)


def orient_real(net, real: RealSet, step: int = ORIENT_STEP) -> np.ndarray:
    """For each real patch, the turn (degrees) under which ``net`` gives its true class the highest
    probability: the label makes this far surer than reading the crop blind."""
    angles = np.arange(0, 360, step, dtype=np.float32)
    if len(real) == 0:
        return np.zeros(0, np.float32)
    net.eval()
    windows = np.stack([real.window(i, float(a)) for i in range(len(real)) for a in angles])
    probs = _predict(net, windows).reshape(len(real), len(angles), -1)
    true = probs[np.arange(len(real)), :, real.labels]  # (n, angles)
    # a little smoothing over neighbouring turns: prefer the middle of the readable range
    smooth = true + 0.5 * (np.roll(true, 1, axis=1) + np.roll(true, -1, axis=1))
    return angles[smooth.argmax(axis=1)]


def accuracy_like_inference(net, real: RealSet) -> tuple[float, np.ndarray]:
    """Top-1 on real patches the way ``Detector.classify_boxes`` reads a box: the plain window,
    tried at the quarter turns the box shape allows, the surest turn wins."""
    if len(real) == 0:
        return float("nan"), np.zeros(0, np.int64)
    net.eval()
    crops, owner = [], []
    for i in range(len(real)):
        base = real.window(i, 0.0)
        for k in index_turns(*real.box_wh[i]):
            crops.append(np.rot90(base, k))
            owner.append(i)
    probs = _predict(net, np.stack(crops))
    best = np.full(len(real), -1.0)
    guess = np.zeros(len(real), np.int64)
    for row, i in enumerate(owner):
        if probs[row].max() > best[i]:
            best[i], guess[i] = probs[row].max(), probs[row].argmax()
    return float((guess == real.labels).mean()), guess


def load_onnx_weights(net, onnx_path: Path) -> None:
    """Put an exported classifier's weights back into :func:`build_net`'s layout (a float export,
    or the shipped int8 one, dequantized). The export folded each batch norm into its convolution,
    so each conv takes the folded kernel and its batch norm becomes the identity plus the folded
    bias (keep those norms in eval mode when training)."""
    import onnx
    import torch
    import torch.nn as nn

    from models.recipe.quantize import float_initializers

    model = onnx.load(str(onnx_path))
    init = float_initializers(model)
    convs = [(init[n.input[1]], init[n.input[2]] if len(n.input) > 2 else None)
             for n in model.graph.node if n.op_type == "Conv"]
    gemm = [(init[n.input[1]], init[n.input[2]]) for n in model.graph.node if n.op_type == "Gemm"]
    mods = list(net.modules())
    pairs = [(m, mods[k + 1]) for k, m in enumerate(mods) if isinstance(m, nn.Conv2d)]
    linear = [m for m in mods if isinstance(m, nn.Linear)]
    if len(pairs) != len(convs) or len(linear) != len(gemm) != 1:
        raise ValueError(f"{onnx_path}: {len(convs)} convolutions / {len(gemm)} dense layers, the network has "
                         f"{len(pairs)} / {len(linear)}")
    with torch.no_grad():
        for (conv, bn), (w, b) in zip(pairs, convs):
            if tuple(conv.weight.shape) != w.shape:
                raise ValueError(f"{onnx_path}: kernel {w.shape} where the network has {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w.astype(np.float32)))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b.astype(np.float32)) if b is not None else torch.zeros_like(bn.bias))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        w, b = gemm[0]
        transposed = w.shape != tuple(linear[0].weight.shape)
        linear[0].weight.copy_(torch.from_numpy((w.T if transposed else w).astype(np.float32)))
        linear[0].bias.copy_(torch.from_numpy(b.astype(np.float32)))


def _freeze_norms(net) -> None:
    import torch.nn as nn

    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def train_classifier(data: Path, out_onnx: Path, epochs: int, seed: int = 0, batch: int = 128,
                     lr: float = 3e-3, upright: bool = True, log=print, real_holdout: float = REAL_HOLDOUT,
                     real_share: float = 0.2, init_onnx: Path | None = None, extra: list[Path] | None = None,
                     extra_val: Path | None = None, extra_repeat: int = 1) -> dict:
    """Train on ``data/{train,val}/<class>/*.png`` (+ ``data/real`` when present); write the best
    epoch's ONNX; return its stats.

    ``upright``: the crops hold indices within ~50 degrees of upright (inference tries the crop
    turned by multiples of 90 degrees); otherwise batches are turned at random by 90-degree steps.
    ``real_holdout``: share of the real-dev train-half photos kept out of training: the epoch whose
    reading of them (as ``Detector`` reads, :func:`accuracy_like_inference`) is best is kept (0: all
    photos trained on, the best synthetic-val epoch kept). ``real_share``: share of each batch that
    is real crops once they are oriented (after 2 epochs).

    Fine-tuning: ``init_onnx`` starts from an exported classifier (its batch norms stay frozen, see
    :func:`load_onnx_weights`; real crops join from the first epoch); ``extra`` folders of
    ``<class>/*.png`` crops (the pipeline's views, ``table_views.build_view_crops``) are added to
    the training crops ``extra_repeat`` times; ``extra_val`` is scored each epoch (logged only).
    """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    classes = sorted(p.name for p in (data / "train").iterdir() if p.is_dir() and any(p.iterdir()))
    xtr, ytr = _load_split(data / "train", classes)
    xva, yva = _load_split(data / "val", classes)
    for folder in extra or []:
        xe, ye = _load_split(folder, classes)
        xtr, ytr = np.concatenate([xtr] + [xe] * extra_repeat), np.concatenate([ytr] + [ye] * extra_repeat)
        log(f"classifier data: {len(xe)} crops x{extra_repeat} from {folder}")
    xev, yev = _load_split(extra_val, classes) if extra_val is not None else (np.zeros((0, 64, 64, 3), np.uint8), np.zeros(0, np.int64))
    have_real = (data / "real" / "index.json").is_file()
    real = RealSet(data / "real", classes, real_holdout, train=True) if have_real else None
    real_val = RealSet(data / "real", classes, real_holdout, train=False) if have_real and real_holdout > 0 else None
    if real_val is not None and len(real_val) == 0:
        real_val = None  # no photo fell in the held-out share: pick the epoch on synthetic val
    log(f"classifier data: {len(xtr)} train / {len(xva)} val crops, {len(classes)} classes; real: "
        f"{len(real) if real else 0} train / {len(real_val) if real_val else 0} held-out index boxes")
    net = build_net(len(classes))
    if init_onnx is not None:
        load_onnx_weights(net, init_onnx)
    n_real = int(round(batch * real_share)) if real is not None and len(real) and upright else 0
    n_syn = batch - n_real
    orient_at = min(2, epochs - 1) if n_real else epochs  # epochs of art crops before real ones join
    if init_onnx is not None and n_real:
        orient_at = 0  # a trained network can orient the real boxes at once
    steps = orient_at * int(np.ceil(len(xtr) / batch)) + (epochs - orient_at) * int(np.ceil(len(xtr) / n_syn))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    # class weights: the "_none" and real-photo classes are not balanced with the card classes
    counts = np.bincount(ytr, minlength=len(classes)).astype(np.float32)
    weight = torch.tensor((counts.mean() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)

    best = {"val_acc": -1.0}
    best_state = None
    started = time.time()
    for epoch in range(epochs):
        use_real = n_real > 0 and epoch >= orient_at
        if use_real:  # found afresh each epoch: the network reads better as it trains
            before = real.angle.copy()
            real.angle = orient_real(net, real)
            changed = float(np.mean(np.abs((real.angle - before + 180) % 360 - 180) > 45)) if epoch > orient_at else 1.0
            log(f"real index boxes oriented: turns {np.bincount(((real.angle + 45) % 360 // 90).astype(int), minlength=4).tolist()} "
                f"(near 0/90/180/270), {changed:.2f} changed by more than 45 degrees")
        net.train()
        if init_onnx is not None:
            _freeze_norms(net)
        per = n_syn if use_real else batch
        order = rng.permutation(len(xtr))
        total_loss, seen = 0.0, 0
        for i in range(0, len(order), per):
            idx = order[i:i + per]
            xb, yb = xtr[idx], ytr[idx]
            if use_real:
                pick = rng.integers(0, len(real), n_real)
                xr = np.stack([real.window(int(j), float(real.angle[j] + rng.uniform(-REAL_SPREAD, REAL_SPREAD)), rng=rng)
                               for j in pick])
                xb, yb = np.concatenate([xb, xr]), np.concatenate([yb, real.labels[pick]])
            x = _to_tensor(xb)
            if not upright:
                x = torch.rot90(x, int(rng.integers(4)), dims=(2, 3))
            # photometric jitter per image: gain, a slight per-channel offset; and a shift of up to 3 px
            gain = torch.from_numpy(rng.uniform(0.75, 1.25, (len(xb), 1, 1, 1)).astype(np.float32))
            off = torch.from_numpy((rng.uniform(-0.08, 0.08, (len(xb), 1, 1, 1))
                                    + rng.uniform(-0.03, 0.03, (len(xb), 3, 1, 1))).astype(np.float32))
            x = (x * gain + off).clamp_(0, 1)
            dx, dy = (int(v) for v in rng.integers(-3, 4, 2))
            x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
            y = torch.from_numpy(yb)
            loss = F.cross_entropy(net(x), y, weight=weight, label_smoothing=0.05)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total_loss += float(loss.detach()) * len(yb)
            seen += len(yb)
        net.eval()
        acc = float((_predict(net, xva).argmax(1) == yva).mean()) if len(xva) else 0.0
        msg = f"classifier epoch {epoch + 1}/{epochs}: loss {total_loss / max(seen, 1):.3f}  val top-1 {acc:.4f}"
        if len(xev):
            msg += f"  views val {float((_predict(net, xev).argmax(1) == yev).mean()):.4f} ({len(xev)})"
        score = acc
        if real_val is not None:
            real_acc, _ = accuracy_like_inference(net, real_val)
            msg += f"  held-out real {real_acc:.4f} ({len(real_val)})"
            score = real_acc
        log(msg + f"  ({time.time() - started:.0f} s)")
        if score >= best["val_acc"]:
            best = {"val_acc": score, "synthetic_val_acc": acc, "epoch": epoch + 1}
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    net.load_state_dict(best_state)
    net.eval()

    class WithSoftmax(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return torch.softmax(self.inner(x), dim=1)

    out_onnx.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(WithSoftmax(net), torch.zeros(1, 3, 64, 64), str(out_onnx), input_names=["images"],
                      output_names=["output0"], dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
                      opset_version=17, dynamo=False)
    if real is not None and len(real):
        np.save(out_onnx.with_suffix(".real_angles.npy"), real.angle)
    (out_onnx.with_suffix(".json")).write_text(json.dumps({"classes": classes, "upright": upright, **best}, indent=2) + "\n")
    return {"classes": classes, "upright": upright, **best}
