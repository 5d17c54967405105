"""The back network: from one back's patch to the Lab colour its print would have under white light.

Why a network: a back's print colour must be read against the white of the card it is printed
on, and on a small, blurred, glared or half-covered back the hand-made estimate of that white
(``vision.backs.normalised_lab``) was off often enough to swap blue/navy, red/maroon (0.924 right
on the bench). The network sees the whole patch (border, pattern, the paper around it) and learns
the white from rendered scenes of random print colours (``back_data.py``); an owner is then the
registered colour nearest its estimate (``vision.backs.BackRegistry``).

Input N x 3 x 48 x 48 RGB in 0..1 (``vision.backs.back_patch``); output N x 3 (L, a, b). A plain
PyTorch loop: AdamW, one-cycle lr, Huber loss in Lab units, seed fixed; flips and quarter turns
(a back's print does not depend on which way it lies) and light-level changes of the whole patch
(they leave its colour relative to the paper as it was) as augmentation.

    .venv-train/bin/python models/recipe/train_backs.py PATCHES.npz [MORE.npz ...] OUT.onnx [--epochs 24]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from vision.backs import PATCH_SIDE  # noqa: E402

LAB_SCALE = 100.0  # the network predicts Lab / LAB_SCALE; the exported graph multiplies back
VAL_SHARE = 0.04


def build_net(widths: tuple[int, ...] = (32, 48, 64, 96, 128)):
    import torch
    import torch.nn as nn

    class Views(nn.Module):
        """The patch three ways: as it is, divided by its brightest neutral level (a first guess at
        the paper's white), and in logs (where a print's ratio to its paper is a difference)."""

        def forward(self, x):
            white = torch.amax(torch.amin(x, dim=1, keepdim=True), dim=(2, 3), keepdim=True)
            return torch.cat([x, torch.clamp(x / (white + 0.02), max=1.5), torch.log(x + 1.0 / 255)], dim=1)

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    a, b, c, d, e = widths
    return nn.Sequential(
        Views(),
        *block(9, a), nn.MaxPool2d(2),            # 24x24
        *block(a, b), nn.MaxPool2d(2),            # 12x12
        *block(b, c), *block(c, c), nn.MaxPool2d(2),  # 6x6
        *block(c, d), nn.MaxPool2d(2),            # 3x3
        *block(d, e),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(e, 64), nn.ReLU(inplace=True), nn.Linear(64, 3),
    )


def _augment(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """Quarter turns, flips, and a light level / small cast change of each whole patch."""
    x = np.rot90(x, int(rng.integers(4)), axes=(1, 2))
    if rng.random() < 0.5:
        x = x[:, :, ::-1]
    x = x.astype(np.float32)
    gain = rng.uniform(0.75, 1.15, (len(x), 1, 1, 1)) * rng.uniform(0.96, 1.04, (len(x), 1, 1, 3))
    return np.clip(x * gain, 0, 255)


def _tensor(x: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(x, np.float32)).permute(0, 3, 1, 2).div_(255.0).contiguous()


def predict(net, patches: np.ndarray, batch: int = 512) -> np.ndarray:
    import torch

    net.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(patches), batch):
            out.append(net(_tensor(patches[i:i + batch])).numpy() * LAB_SCALE)
    return np.concatenate(out)


def load_patches(data: Path | Sequence[Path]) -> tuple[np.ndarray, np.ndarray]:
    """Patches and Lab labels of one or more files of ``back_data.py``, in the order given."""
    files = [data] if isinstance(data, (str, Path)) else list(data)
    parts = [np.load(f) for f in files]
    return np.concatenate([p["patches"] for p in parts]), np.concatenate([p["lab"] for p in parts]).astype(np.float32)


def train(data: Path | Sequence[Path], out_onnx: Path, epochs: int = 24, seed: int = 0, batch: int = 256, lr: float = 3e-3,
          threads: int = 2, log=print, checkpoint: Path | None = None) -> dict:
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    patches, lab = load_patches(data)
    assert patches.shape[1:] == (PATCH_SIDE, PATCH_SIDE, 3), patches.shape
    order = rng.permutation(len(patches))
    n_val = max(1, int(VAL_SHARE * len(patches)))
    val, tr = order[:n_val], order[n_val:]
    batch = min(batch, len(tr))  # a tiny set (``train --quick``) is one batch an epoch
    net = build_net()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    n_batches = len(tr) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * n_batches, pct_start=0.15)
    loss_fn = torch.nn.HuberLoss(delta=2.0 / LAB_SCALE)
    t0 = time.perf_counter()
    for epoch in range(epochs):
        net.train()
        perm = rng.permutation(tr)
        total = 0.0
        for i in range(n_batches):
            idx = perm[i * batch:(i + 1) * batch]
            x = _tensor(_augment(rng, patches[idx]))
            y = torch.from_numpy(lab[idx] / LAB_SCALE)
            loss = loss_fn(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss)
        err = np.linalg.norm(predict(net, patches[val]) - lab[val], axis=1)
        log(f"backs epoch {epoch + 1}/{epochs}: loss {total / n_batches:.5f}, val Lab error median "
            f"{np.median(err):.2f} p90 {np.quantile(err, 0.9):.2f} ({time.perf_counter() - t0:.0f} s)")
    export(net, out_onnx)
    if checkpoint is not None:  # the PyTorch weights, to continue training from
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        torch.save(net.state_dict(), checkpoint)
    return {"val_median": float(np.median(err)), "val_p90": float(np.quantile(err, 0.9)), "patches": len(patches)}


def export(net, out_onnx: Path) -> None:
    """ONNX (opset 17) with the Lab scale folded in: input ``patch`` N x 3 x 48 x 48, output ``lab``."""
    import torch

    class Scaled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x) * LAB_SCALE

    net.eval()
    out_onnx.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(Scaled(net), torch.zeros(1, 3, PATCH_SIDE, PATCH_SIDE), str(out_onnx), opset_version=17,
                      input_names=["patch"], output_names=["lab"], dynamic_axes={"patch": {0: "n"}, "lab": {0: "n"}},
                      dynamo=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path, nargs="+", help="patch files of back_data.py")
    ap.add_argument("out", type=Path)
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--checkpoint", type=Path, default=None, help="also save the PyTorch weights here")
    args = ap.parse_args(argv)
    print(train(args.data, args.out, args.epochs, args.seed, threads=args.threads, checkpoint=args.checkpoint))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
