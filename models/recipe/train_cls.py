"""Stage 2: a small CNN that names an index crop, trained with a plain PyTorch loop, exported to ONNX.

Why not ultralytics' classifier: on 64 px crops and a CPU budget of a few thousand steps it barely
left chance level here (4% top-1 after 200 steps on upright synthetic glyphs), while this
network of ~0.06 GFLOPs per crop learns the glyphs in minutes; a frame holds ~15 crops, so the
per-crop cost also sets the latency. Input: N x 3 x 64 x 64 RGB in [0, 1]; output: N x classes
probabilities (softmax inside the graph). Indices lie at any angle on the table, so every batch
is also turned by a random multiple of 90 degrees.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np


def _load_split(folder: Path, classes: list[str]) -> tuple[np.ndarray, np.ndarray]:
    images, labels = [], []
    for k, name in enumerate(classes):
        for f in sorted((folder / name).glob("*.png")):
            img = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if img is not None:
                images.append(img[:, :, ::-1])  # RGB, as at inference
                labels.append(k)
    return np.stack(images), np.array(labels, np.int64)


def build_net(n_classes: int):
    import torch.nn as nn

    def block(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *block(3, 24, 2),                                  # 32x32
        *block(24, 32), nn.MaxPool2d(2),                   # 16x16
        *block(32, 64), *block(64, 64), nn.MaxPool2d(2),   # 8x8
        *block(64, 128), nn.MaxPool2d(2),                  # 4x4
        *block(128, 160),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(160, n_classes),
    )


def train_classifier(data: Path, out_onnx: Path, epochs: int, seed: int = 0, batch: int = 128,
                     lr: float = 3e-3, upright: bool = True, log=print) -> dict:
    """Train on ``data/{train,val}/<class>/*.png``; write the best epoch's ONNX; return its stats.

    ``upright``: the crops hold indices within ~45 degrees of upright (inference tries the crop
    turned by multiples of 90 degrees); otherwise batches are turned at random by 90-degree steps."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    classes = sorted(p.name for p in (data / "train").iterdir() if p.is_dir() and any(p.iterdir()))
    xtr, ytr = _load_split(data / "train", classes)
    xva, yva = _load_split(data / "val", classes)
    log(f"classifier data: {len(xtr)} train / {len(xva)} val crops, {len(classes)} classes")
    net = build_net(len(classes)).to(memory_format=torch.channels_last)
    steps = epochs * int(np.ceil(len(xtr) / batch))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    # class weights: the "_none" and real-photo classes are not balanced with the card classes
    counts = np.bincount(ytr, minlength=len(classes)).astype(np.float32)
    weight = torch.tensor((counts.mean() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)

    def to_tensor(x: np.ndarray) -> "torch.Tensor":
        return torch.from_numpy(x).permute(0, 3, 1, 2).float().div_(255.0).contiguous(memory_format=torch.channels_last)

    best = {"val_acc": -1.0}
    best_state = None
    started = time.time()
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(len(xtr))
        total_loss = 0.0
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            x = to_tensor(xtr[idx])
            if not upright:
                x = torch.rot90(x, int(rng.integers(4)), dims=(2, 3))
            # photometric jitter per image: gain, offset; and a shift of up to 3 px
            gain = torch.from_numpy(rng.uniform(0.7, 1.3, (len(idx), 1, 1, 1)).astype(np.float32))
            off = torch.from_numpy(rng.uniform(-0.1, 0.1, (len(idx), 3, 1, 1)).astype(np.float32))
            x = (x * gain + off).clamp_(0, 1)
            dx, dy = (int(v) for v in rng.integers(-3, 4, 2))
            x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
            y = torch.from_numpy(ytr[idx])
            loss = F.cross_entropy(net(x), y, weight=weight, label_smoothing=0.05)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total_loss += float(loss.detach()) * len(idx)
        net.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(xva), 256):
                correct += int((net(to_tensor(xva[i:i + 256])).argmax(1).numpy() == yva[i:i + 256]).sum())
        acc = correct / max(len(xva), 1)
        log(f"classifier epoch {epoch + 1}/{epochs}: loss {total_loss / len(xtr):.3f}  val top-1 {acc:.4f}  "
            f"({time.time() - started:.0f} s)")
        if acc >= best["val_acc"]:
            best = {"val_acc": acc, "epoch": epoch + 1}
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
    (out_onnx.with_suffix(".json")).write_text(json.dumps({"classes": classes, "upright": upright, **best}, indent=2) + "\n")
    return {"classes": classes, "upright": upright, **best}
