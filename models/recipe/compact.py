"""Store an ONNX model's large float32 weights as float16 (half the file), computing in float32.

Each big initializer is kept as float16 and followed by a Cast to float32; onnxruntime folds those
casts into constants when the session is created, so inference speed is unchanged and results
differ only by float16 rounding of the weights (far below the models' own noise).
"""

from __future__ import annotations

import sys
from pathlib import Path


def compact(src: Path, dst: Path, min_elements: int = 256) -> tuple[int, int]:
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    casts = []
    for init in list(graph.initializer):
        if init.data_type != onnx.TensorProto.FLOAT:
            continue
        arr = numpy_helper.to_array(init)
        if arr.size < min_elements:
            continue
        name = init.name
        half = numpy_helper.from_array(arr.astype(np.float16), name + "__fp16")
        graph.initializer.remove(init)
        graph.initializer.append(half)
        casts.append(helper.make_node("Cast", [name + "__fp16"], [name], to=onnx.TensorProto.FLOAT,
                                      name=name + "__cast"))
    for node in reversed(casts):
        graph.node.insert(0, node)
    onnx.checker.check_model(model)
    onnx.save(model, str(dst))
    return src.stat().st_size, dst.stat().st_size


if __name__ == "__main__":
    before, after = compact(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{sys.argv[1]}: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
