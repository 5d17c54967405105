"""The detector fine-tune set (stage ``det-ft`` of ``train.py``): pipeline views, close-ups, old
scenes and the real-dev train half, listed in one ``data.yaml``.

- ``views/``: the 416 px canvases the pipeline feeds the detector (``table_views.py``, dev seeds);
- ``closeups/``: one or two cards filling or overflowing the view (indices ~60-200 px tall, the
  real-dev single-card photos' scale, which the first scenes barely covered);
- a subset of the first stage's rendered scenes and every real-dev train-half copy (twice), so the
  fine-tune keeps what the detector could already do on photos.

Deterministic: close-up k uses seed (seed, k); the subset of old scenes is the first N by name.
"""

from __future__ import annotations

import sys
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from models.recipe.scenes import OUT, render_scene  # noqa: E402

CLOSE_SIZE = (0.7, 1.8)  # card height / view: indices ~60-200 px at 640


def _one_closeup(job: tuple[int, int, str | None, str, str]) -> int:
    from models.recipe.build_data import _init, _STATE

    seed, k, shared, holdout, out = job
    if "decks" not in _STATE:
        _init(shared, holdout)
    rng = np.random.default_rng([seed, k])
    faces, backs = _STATE["decks"]
    img, labels = _closeup(rng, faces, backs)
    _write(Path(out), f"close{k:05d}", img, labels)
    return len(labels)


def _closeup(rng: np.random.Generator, faces: list, backs: list) -> tuple[np.ndarray, list]:
    """One or two cards filling or overflowing the view, few of them face down."""
    return render_scene(rng, faces, backs, back_share=0.05, layout="close", close_size=CLOSE_SIZE)


def _write(root: Path, stem: str, img: np.ndarray, labels: list) -> None:
    """One scene as ``root/images/<stem>.jpg`` + YOLO rows in ``root/labels/<stem>.txt``."""
    cv2.imwrite(str(root / "images" / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    rows = [f"{lab.cls} {(lab.box[0] + lab.box[2]) / 2 / OUT:.6f} {(lab.box[1] + lab.box[3]) / 2 / OUT:.6f} "
            f"{(lab.box[2] - lab.box[0]) / OUT:.6f} {(lab.box[3] - lab.box[1]) / OUT:.6f}\n" for lab in labels]
    (root / "labels" / f"{stem}.txt").write_text("".join(rows))


def build_closeups(out: Path, n: int, seed: int, shared: Path | None, holdout: str = "jumbo-index",
                   workers: int = 2) -> int:
    """``n`` close-up scenes into ``out/images`` + ``out/labels``; returns the number of boxes."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    jobs = [(seed, k, str(shared) if shared else None, holdout, str(out)) for k in range(n)]
    if workers <= 1:
        return sum(map(_one_closeup, jobs))
    with Pool(workers) as pool:
        return sum(pool.imap(_one_closeup, jobs, chunksize=4))


def write_finetune_yaml(out: Path, views: Path, closeups: Path, scenes: Path, old_scenes: int,
                        real_repeat: int = 2, extra: Path | None = None) -> dict[str, int]:
    """``out/data.yaml`` + ``out/train.txt`` listing the fine-tune images (ultralytics finds each
    label by swapping ``images`` for ``labels`` in the path), plus ``extra``'s images (the font-deck
    scenes of det-fonts). Returns the counts per part."""
    def jpgs(folder: Path) -> list[str]:
        return sorted(str(p) for p in (folder / "images").glob("*.jpg")) if (folder / "images").is_dir() else []

    old = sorted(str(p) for p in (scenes / "images" / "train").glob("scene*.jpg"))[:old_scenes]
    real = sorted(str(p) for p in (scenes / "images" / "train").glob("real_*.jpg"))
    parts = {"views": jpgs(views), "closeups": jpgs(closeups), "scenes": old, "real": real * real_repeat}
    if extra is not None:
        parts["extra"] = jpgs(extra)
    if not parts["views"]:
        raise ValueError(f"no pipeline views in {views}: build them first (table_views.py)")
    out.mkdir(parents=True, exist_ok=True)
    lines = [p for v in parts.values() for p in v]
    (out / "train.txt").write_text("\n".join(lines) + "\n")
    val = sorted(str(p) for p in (scenes / "images" / "val").glob("*.jpg"))[:20] or lines[:20]
    (out / "val.txt").write_text("\n".join(val) + "\n")
    (out / "data.yaml").write_text(f"path: {out}\ntrain: {out / 'train.txt'}\nval: {out / 'val.txt'}\n"
                                   "names:\n  0: index\n  1: back\n")
    return {k: len(v) for k, v in parts.items()}


FONT_SCENE_CLOSE = 0.4  # share of font-deck scenes that are close-ups (the single-card photos' scale)
_FONT_STATE: dict = {}


def _one_font_scene(job: tuple[int, int, int, str | None, str, str]) -> int:
    from models.recipe.build_data import _decks
    from models.recipe.font_decks import font_decks

    seed, k, n_decks, shared, holdout, out = job
    key = (seed, n_decks, shared, holdout)
    if key not in _FONT_STATE:  # once per worker process and set of decks
        cv2.setNumThreads(1)
        _FONT_STATE[key] = (font_decks(n_decks, seed), _decks(Path(shared) if shared else None, holdout)[1])
    faces, backs = _FONT_STATE[key]
    rng = np.random.default_rng([seed, 9931, k])
    img, labels = _closeup(rng, faces, backs) if rng.random() < FONT_SCENE_CLOSE else render_scene(rng, faces, backs)
    _write(Path(out), f"font{k:05d}", img, labels)
    return len(labels)


def build_font_scenes(out: Path, n: int, seed: int, n_decks: int, shared: Path | None, holdout: str = "jumbo-index",
                      workers: int = 2) -> int:
    """``n`` scenes whose faces are ``n_decks`` TrueType-font decks (``font_decks.py``: many ways of
    drawing a rank, so stage 1 learns "a corner index" rather than three designs' glyphs), a
    ``FONT_SCENE_CLOSE`` share of them close-ups; into ``out/images`` + ``out/labels``. Scene k uses
    seed ``(seed, 9931, k)`` and deck styles from ``seed``; returns the number of boxes."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    jobs = [(seed, k, n_decks, str(shared) if shared else None, holdout, str(out)) for k in range(n)]
    if workers <= 1:
        return sum(map(_one_font_scene, jobs))
    with Pool(workers) as pool:
        return sum(pool.imap(_one_font_scene, jobs, chunksize=4))
