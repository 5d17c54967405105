"""Training patches for the back network: face-down cards of any colour in rendered scenes.

Every face-down card of a scene from :func:`models.recipe.scenes.render_scene` (tables, light
level and colour cast, shadows, glare, hands, overlapping cards, perspective, blur, noise, JPEG)
becomes one patch as :func:`vision.backs.back_patch` cuts it at run time, its box jittered the way a
detector box is off, labelled with the Lab of the colour the back was printed in. The colours are
drawn at random (uniform RGB, plus greys: black, gray, silver lie on that axis) and printed by
recolouring the french-pattern back or on the drawn back; the 17 french-pattern back *images*
are never rendered, so ``bench/detector.py`` measures the network on art it has not seen.

    python models/recipe/back_data.py OUT.npz --scenes 8000 --seed 20261202
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from models.recipe.scenes import BACK, render_scene  # noqa: E402
from simulator.deck_art import DeckArt  # noqa: E402
from vision.backs import back_patch, nominal_lab  # noqa: E402

BOX_JITTER = 0.03  # sigma of each box side's error, as a share of the box's size
GREY_SHARE = 0.15  # colours drawn on the grey axis (black, gray, silver and between)


def random_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A print colour (BGR): uniform over the RGB cube, or a grey."""
    if rng.random() < GREY_SHARE:
        v = rng.uniform(0, 255)
        return tuple(int(np.clip(v + d, 0, 255)) for d in rng.normal(0, 6, 3))
    return tuple(int(v) for v in rng.integers(0, 256, 3))


@functools.lru_cache(maxsize=2)
def _decks(shared: Path) -> tuple[list[DeckArt], list[DeckArt]]:
    """Face and back designs, loaded once per process (each DeckArt caches the art it has read)."""
    french = DeckArt.load(shared / "cards" / "french-pattern")
    faces = [DeckArt.drawn(), french, DeckArt.load(shared / "cards" / "byron-knoll")]
    return faces, [french, french, DeckArt.drawn()]  # two thirds french-pattern prints


def _jitter(rng: np.random.Generator, box, shape) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    d = rng.normal(0, BOX_JITTER, 4) * [w, h, w, h]
    x0, y0, x1, y1 = x0 + d[0], y0 + d[1], x1 + d[2], y1 + d[3]
    return (max(0.0, x0), max(0.0, y0), min(float(shape[1]), max(x1, x0 + 4)), min(float(shape[0]), max(y1, y0 + 4)))


def scene_patches(seed: int, shared: Path) -> tuple[list[np.ndarray], list[np.ndarray], list[float]]:
    """Patches (uint8 RGB), Lab targets and visible shares of one scene's face-down cards."""
    rng = np.random.default_rng(seed)
    faces, backs = _decks(shared)
    colours = {"#%02x%02x%02x" % c[::-1]: c for c in (random_colour(rng) for _ in range(6))}
    img, labels = render_scene(rng, faces, backs, back_share=0.85, back_colours=list(colours))
    patches, targets, visible = [], [], []
    for lab in labels:
        if lab.cls != BACK:
            continue
        patches.append(np.round(back_patch(img, _jitter(rng, lab.box, img.shape)) * 255).astype(np.uint8))
        targets.append(nominal_lab(colours[lab.colour]))
        visible.append(float(lab.visible))
    return patches, targets, visible


def _chunk(args) -> tuple[list, list, list]:
    seeds, shared = args
    out: tuple[list, list, list] = ([], [], [])
    for s in seeds:
        for acc, part in zip(out, scene_patches(s, shared)):
            acc.extend(part)
    return out


def build(out: Path, n_scenes: int, seed: int, shared: Path, processes: int = 2, log=print) -> int:
    """Render ``n_scenes`` scenes (per-scene seeds ``seed + i``: the result does not depend on
    ``processes``) and save their patches to ``out`` (npz: patches, lab, visible)."""
    seeds = [seed + i for i in range(n_scenes)]
    chunks = [(seeds[i:i + 50], shared) for i in range(0, len(seeds), 50)]
    t0 = time.perf_counter()
    parts = []
    with Pool(processes) as pool:
        for k, part in enumerate(pool.imap(_chunk, chunks)):
            parts.append(part)
            if k % 20 == 0:
                log(f"back patches: {min(n_scenes, (k + 1) * 50)}/{n_scenes} scenes, {time.perf_counter() - t0:.0f} s")
    patches = np.stack([p for part in parts for p in part[0]])
    lab = np.array([t for part in parts for t in part[1]], np.float32)
    visible = np.array([v for part in parts for v in part[2]], np.float32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, patches=patches, lab=lab, visible=visible)
    log(f"back patches: {len(patches)} from {n_scenes} scenes -> {out} ({time.perf_counter() - t0:.0f} s)")
    return len(patches)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--scenes", type=int, default=8000)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = ap.parse_args(argv)
    build(args.out, args.scenes, args.seed, args.shared, args.processes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
