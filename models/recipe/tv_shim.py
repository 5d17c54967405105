"""Let torchvision import on a CPU-only torch when its compiled ops do not load.

The torchvision wheels on the package index are built against the CUDA torch, so with the local
CPU-only torch wheel their ``_C.so`` cannot load and ``import torchvision`` fails while it
registers fake kernels for ``torchvision::nms`` / ``qnms``. Defining those two operators here
(plain greedy NMS) before torchvision is imported is all ultralytics needs: it uses torchvision
for NMS and image transforms only. Nothing is done when the real ops are present.
"""

from __future__ import annotations

_LIB = None


def _has_real_ops() -> bool:
    try:
        import importlib.util
        import torch

        spec = importlib.util.find_spec("torchvision")
        if spec is None or not spec.submodule_search_locations:
            return False
        from pathlib import Path

        for lib in Path(list(spec.submodule_search_locations)[0]).glob("_C*.so"):
            try:
                torch.ops.load_library(str(lib))
                return True
            except OSError:
                return False
        return False
    except Exception:  # noqa: BLE001 - any failure means: use the shim
        return False


def _nms(dets, scores, iou_threshold: float):
    import numpy as np
    import torch

    boxes = dets.detach().cpu().double().numpy()
    order = scores.detach().cpu().double().numpy().argsort()[::-1]
    x0, y0, x1, y1 = boxes.T
    areas = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        iw = np.clip(np.minimum(x1[i], x1[rest]) - np.maximum(x0[i], x0[rest]), 0, None)
        ih = np.clip(np.minimum(y1[i], y1[rest]) - np.maximum(y0[i], y0[rest]), 0, None)
        inter = iw * ih
        iou = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-12)
        order = rest[iou <= iou_threshold]
    return torch.as_tensor(np.array(keep, dtype=np.int64), device=dets.device)


def install() -> None:
    """Define ``torchvision::nms`` and ``torchvision::qnms`` if torchvision's own ops cannot load."""
    global _LIB
    if _LIB is not None or _has_real_ops():
        return
    import torch

    _LIB = torch.library.Library("torchvision", "DEF")
    for name in ("nms", "qnms"):
        _LIB.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _LIB.impl(name, _nms, "CPU")
    import torchvision.extension

    # torchvision checks a flag set when its _C.so loaded; NMS is now served by the ops above.
    import torchvision.ops.boxes

    torchvision.extension._assert_has_ops = lambda: None
    torchvision.ops.boxes._assert_has_ops = lambda: None  # imported there by name
