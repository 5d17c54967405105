"""Build the two training sets: detector scenes (index/back) and classifier crops (card identity).

Deterministic: scene k uses seed (seed, k), so the same command gives the same files whatever the
number of worker processes. The held-out design (default ``jumbo-index``) is never used here.

Real-dev photos (``--real-dev``) are split by a hash of the file name (:func:`real_dev_split`);
only the ``train`` half is added, the ``eval`` half is what the model card reports on.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from models.recipe.scenes import BACK, IDENTITIES, INDEX, render_scene  # noqa: E402
from simulator.deck_art import DRAWN_STYLES, DeckArt, shared_designs  # noqa: E402
from vision.detector import read_class_names, read_yolo_labels, square_crop  # noqa: E402

CLS_SIZE = 64
NONE_CLASS = "_none"  # crops that are not a corner index: lets the classifier reject detector mistakes


def real_dev_split(name: str) -> str:
    """``train`` or ``eval`` for a real-dev image file name; fixed by its SHA-1 (about half each)."""
    return "train" if hashlib.sha1(Path(name).stem.encode()).digest()[0] % 2 == 0 else "eval"


def _decks(shared: Path | None, holdout: str) -> tuple[list[DeckArt], list[DeckArt]]:
    faces = [DeckArt.drawn(s) for s in range(DRAWN_STYLES)]
    backs = [DeckArt.drawn()]
    if shared is not None:
        for name in shared_designs(shared / "cards"):
            if name == holdout:
                continue
            deck = DeckArt.load(shared / "cards" / name)
            faces += [deck] * 3  # real artwork weighs more than the drawn styles
            if deck.back_colours:
                backs.append(deck)
    return faces, backs


_STATE: dict = {}


def _init(shared: str | None, holdout: str) -> None:
    cv2.setNumThreads(1)
    _STATE["decks"] = _decks(Path(shared) if shared else None, holdout)


def _jitter_box(rng, box, amount: float = 0.12):
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    dx, dy = rng.normal(0, amount * w), rng.normal(0, amount * h)
    s = np.exp(rng.normal(0, amount))
    cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
    return (cx - w * s / 2, cy - h * s / 2, cx + w * s / 2, cy + h * s / 2)


def _overlaps(box, boxes) -> bool:
    for b in boxes:
        ix = min(box[2], b[2]) - max(box[0], b[0])
        iy = min(box[3], b[3]) - max(box[1], b[1])
        if ix > 0 and iy > 0 and ix * iy > 0.15 * (b[2] - b[0]) * (b[3] - b[1]):
            return True
    return False


def _one_scene(job: tuple[int, int, str, str]) -> tuple[int, int]:
    seed, k, split, out = job
    rng = np.random.default_rng([seed, k])
    faces, backs = _STATE["decks"]
    img, labels = render_scene(rng, faces, backs)
    root = Path(out)
    stem = f"scene{k:06d}"
    cv2.imwrite(str(root / "det" / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    lines = []
    for lab in labels:
        x0, y0, x1, y1 = lab.box
        lines.append(f"{lab.cls} {(x0 + x1) / 1280:.6f} {(y0 + y1) / 1280:.6f} {(x1 - x0) / 640:.6f} {(y1 - y0) / 640:.6f}")
    (root / "det" / "labels" / split / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    # classifier crops: every labelled index (jittered like a detector box would be) + non-index crops
    index_boxes = [lab.box for lab in labels if lab.cls == INDEX]
    n_crops = 0
    for j, lab in enumerate(labels):
        if lab.cls != INDEX or rng.random() < 0.35:  # most: keeps the classifier epoch short
            continue
        if max(lab.box[2] - lab.box[0], lab.box[3] - lab.box[1]) < 14:  # unreadable: label noise
            continue
        crop = square_crop(img, _jitter_box(rng, lab.box), CLS_SIZE)
        cv2.imwrite(str(root / "cls" / split / lab.identity / f"{stem}_{j}.png"), crop)
        n_crops += 1
    for j in range(max(1, len(index_boxes) // 4)):
        side = rng.uniform(12, 90)
        x, y = rng.uniform(0, 640 - side), rng.uniform(0, 640 - side)
        box = (x, y, x + side * rng.uniform(0.4, 1.0), y + side)
        if not _overlaps(box, index_boxes):
            cv2.imwrite(str(root / "cls" / split / NONE_CLASS / f"{stem}_n{j}.png"), square_crop(img, box, CLS_SIZE))
    return len(labels), n_crops


def add_real_dev(real_dev: Path, out: Path, copies: int, seed: int) -> int:
    """Add the ``train`` half of real-dev: images to the detector set (``copies`` times, the later
    copies photometrically varied), index crops to the classifier set (jittered several times)."""
    names = read_class_names(real_dev / "classes.yaml")
    rng = np.random.default_rng([seed, 999])
    added = 0
    for image_path in sorted((real_dev / "images").glob("*.jpg")):
        if real_dev_split(image_path.name) != "train":
            continue
        img = cv2.imread(str(image_path))
        if img is None:
            continue
        h, w = img.shape[:2]
        labels = read_yolo_labels(real_dev / "labels" / f"{image_path.stem}.txt", names, w, h)
        lines = []
        for name, (x0, y0, x1, y1) in labels:
            cls = BACK if name == "BACK" else INDEX
            lines.append(f"{cls} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
        for c in range(copies):
            variant = img if c == 0 else np.clip(img.astype(np.float32) * rng.uniform(0.7, 1.2, 3) + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
            stem = f"real_{image_path.stem[:40]}_{c}"
            cv2.imwrite(str(out / "det" / "images" / "train" / f"{stem}.jpg"), variant)
            (out / "det" / "labels" / "train" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
            for j, (name, box) in enumerate(labels):
                if name == "BACK" or name not in IDENTITIES:
                    continue
                for r in range(2):
                    crop = square_crop(variant, _jitter_box(rng, box), CLS_SIZE)
                    if rng.random() < 0.5:  # the overhead camera sees indices at any angle
                        crop = cv2.rotate(crop, [cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE][int(rng.integers(3))])
                    cv2.imwrite(str(out / "cls" / "train" / name / f"{stem}_{j}_{r}.png"), crop)
        added += 1
    return added


REAL_MARGIN = 2.5
"""Real index patches keep 2.5x the box's longer side around it (twice the classifier's window), so
training can turn and shift the window anywhere without running out of picture."""
REAL_PATCH = 128


def real_index_patches(real: Path, root: Path) -> int:
    """Real-dev ``train``-split index boxes as wide patches for the classifier's online augmentation:
    ``root/<class>/<photo>_<j>.png`` (``REAL_PATCH`` px, ``REAL_MARGIN`` x the box's longer side)
    plus ``root/index.json`` (class, photo, box size). Which way is up is not labelled; the
    classifier recipe finds it with its own first epochs (``train_cls.orient_real``)."""
    import json

    names = read_class_names(real / "classes.yaml")
    items = []
    for p in sorted((real / "images").glob("*.jpg")):
        if real_dev_split(p.name) != "train":
            continue
        img = cv2.imread(str(p))
        if img is None:
            continue
        for j, (name, box) in enumerate(read_yolo_labels(real / "labels" / f"{p.stem}.txt", names, img.shape[1], img.shape[0])):
            if name not in IDENTITIES:
                continue
            folder = root / name
            folder.mkdir(parents=True, exist_ok=True)
            file = folder / f"{p.stem[:40]}_{j}.png"
            cv2.imwrite(str(file), square_crop(img, box, REAL_PATCH, margin=REAL_MARGIN))
            items.append({"file": str(file.relative_to(root)), "class": name, "photo": p.name,
                          "box_wh": [round(box[2] - box[0], 2), round(box[3] - box[1], 2)]})
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.json").write_text(json.dumps({"margin": REAL_MARGIN, "patch": REAL_PATCH, "items": items}, indent=1) + "\n")
    return len(items)


FONT_DECKS = 48
"""Default number of TrueType-font decks in the classifier set (``--font-decks``; 0: none). Measured in
session 5 (the cls-ft fine-tune, same start and seed, with and without them): held-out real boxes read
right 0.865 -> 0.968, held-out design jumbo-index P/R 0.71/0.60 -> 0.77/0.70. Needs the Debian
packages fonts-dejavu and fonts-liberation (``models/recipe/font_decks.py``)."""
FONT_PER_CLASS = 150
"""Font-deck crops per class, on top of the ``per_class`` crops of the designs."""


def _render_upright_crops(root: Path, seed: int, tag: int, decks_for, sizes: tuple[int, int], none_decks: list,
                          none_art: int, names: tuple[str, str], upright: float, context: float) -> int:
    """Write index crops of every identity to ``root/{train,val}/<class>`` (``sizes``: crops per class
    in each split; crop k drawn from ``decks_for(class number, identity)[k % n]``) and, per split,
    ``none_art`` x its share of ``sizes[0]`` ``_none`` crops over ``none_decks``' card art (crop k
    from deck k % n). Random streams ``[seed, tag, class, split]`` and ``[seed, tag + 1, split]``;
    file names ``names`` (index, none) formatted with k."""
    from models.recipe.index_crops import render_index_crop, render_nonindex_crop

    n = 0
    for split, per, stream in (("train", sizes[0], 1), ("val", sizes[1], 2)):
        for c, identity in enumerate(IDENTITIES):
            folder = root / split / identity
            folder.mkdir(parents=True, exist_ok=True)
            rng = np.random.default_rng([seed, tag, c, stream])
            decks = decks_for(c, identity)
            for k in range(per if decks else 0):
                crop = render_index_crop(rng, decks[k % len(decks)], identity, CLS_SIZE, upright=upright, context=context)
                cv2.imwrite(str(folder / names[0].format(k)), crop)
                n += 1
        rng = np.random.default_rng([seed, tag + 1, stream])
        (root / split / NONE_CLASS).mkdir(parents=True, exist_ok=True)
        for k in range(none_art * per // max(sizes[0], 1)):
            crop = render_nonindex_crop(rng, none_decks[k % len(none_decks)], str(rng.choice(IDENTITIES)), CLS_SIZE)
            cv2.imwrite(str(root / split / NONE_CLASS / names[1].format(k)), crop)
            n += 1
    return n


def add_font_crops(root: Path, seed: int, n_decks: int, per_class: int = FONT_PER_CLASS, val_per_class: int = 5,
                   upright: float = 50.0, context: float = 0.75, none_art: int = 300) -> int:
    """Add index crops of ``n_decks`` :mod:`~models.recipe.font_decks` decks (many typefaces) to an
    upright classifier set ``root/{train,val}/<class>`` (``f<k>.png``), plus ``none_art`` ``_none``
    crops over their card art; the decks cycle from a different one for each class, so every class
    sees every deck alike. Separate random streams: the design crops already there are unchanged."""
    from models.recipe.font_decks import font_decks

    if n_decks <= 0:
        return 0
    cv2.setNumThreads(1)
    decks = font_decks(n_decks, seed)

    def staggered(c: int, identity: str) -> list:
        start = c % len(decks)
        return decks[start:] + decks[:start]

    return _render_upright_crops(root, seed, 8890, staggered, (per_class, val_per_class), decks, none_art,
                                 ("f{}.png", "fart{}.png"), upright, context)


def build_upright_set(root: Path, seed: int, shared: Path | None, holdout: str, per_class: int = 300,
                      val_per_class: int = 10, upright: float = 50.0, context: float = 0.75,
                      none_art: int = 1200, font_decks: int = FONT_DECKS) -> int:
    """The classifier's set (``root/{train,val}/<class>``): indices within ``upright`` degrees of upright.

    - crops rendered straight from the training designs' art (``index_crops.py``), most of them
      (``context``) with neighbouring cards of fans, columns and piles around the index;
    - the ``_none`` crops cut from the scenes (``root/../cls/<split>/_none``) and ``none_art`` more
      rendered over card art away from the indices (:func:`render_nonindex_crop`);
    - ``root/real``: the real-dev train-split index boxes as wide patches (:func:`real_index_patches`),
      augmented and turned upright while the classifier trains.
    - with ``font_decks`` > 0, crops of that many TrueType-font decks (:func:`add_font_crops`).
    Inference tries each crop turned by multiples of 90 degrees (``Detector.classify_boxes``).
    """
    if root.exists():
        shutil.rmtree(root)
    cv2.setNumThreads(1)
    faces, _ = _decks(shared, holdout)
    designs = list({id(d): d for d in faces}.values())  # unique, in order
    for split in ("train", "val"):
        shutil.copytree(root.parent / "cls" / split / NONE_CLASS, root / split / NONE_CLASS)
    # the designs' indices, plus false alarms on their card art (pips, court figures, joker lettering)
    n = _render_upright_crops(root, seed, 8888, lambda c, identity: [d for d in designs if d.index_boxes(identity)],
                              (per_class, val_per_class), designs, none_art, ("a{}.png", "art{}.png"), upright, context)
    real = shared / "datasets" / "real-dev" if shared is not None else None
    if real is not None and real.is_dir():
        n += real_index_patches(real, root / "real")
    return n + add_font_crops(root, seed, font_decks, upright=upright, context=context)


def build(out: Path, n_train: int, n_val: int, seed: int, shared: Path | None, holdout: str,
          real_copies: int, workers: int, font_decks: int = FONT_DECKS) -> None:
    if out.exists():
        shutil.rmtree(out)
    for split in ("train", "val"):
        (out / "det" / "images" / split).mkdir(parents=True)
        (out / "det" / "labels" / split).mkdir(parents=True)
        for name in [*IDENTITIES, NONE_CLASS]:
            (out / "cls" / split / name).mkdir(parents=True)
    jobs = [(seed, k, "train" if k < n_train else "val", str(out)) for k in range(n_train + n_val)]
    totals = [0, 0]
    with Pool(workers, initializer=_init, initargs=(str(shared) if shared else None, holdout)) as pool:
        for i, (n_labels, n_crops) in enumerate(pool.imap(_one_scene, jobs, chunksize=8)):
            totals[0] += n_labels
            totals[1] += n_crops
            if (i + 1) % 200 == 0:
                print(f"  scenes {i + 1}/{len(jobs)}", flush=True)
    print(f"scenes: {n_train} train + {n_val} val, {totals[0]} boxes, {totals[1]} index crops", flush=True)
    if shared is not None and real_copies > 0 and (shared / "datasets" / "real-dev").is_dir():
        n = add_real_dev(shared / "datasets" / "real-dev", out, real_copies, seed)
        print(f"real-dev: {n} train-split photos added x{real_copies}", flush=True)
    n = build_upright_set(out / "cls_upright", seed, shared, holdout, font_decks=font_decks)
    print(f"classifier set (upright indices): {n} crops", flush=True)
    (out / "det" / "data.yaml").write_text(
        f"path: {out / 'det'}\ntrain: images/train\nval: images/val\nnames:\n  0: index\n  1: back\n"
    )
    # ultralytics wants every class folder non-empty in both splits: keep one empty-free copy
    for name in [*IDENTITIES, NONE_CLASS]:
        val_dir, train_dir = out / "cls" / "val" / name, out / "cls" / "train" / name
        if not any(val_dir.iterdir()) and any(train_dir.iterdir()):
            shutil.copy(next(train_dir.iterdir()), val_dir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--train", type=int, default=2000)
    ap.add_argument("--val", type=int, default=150)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--holdout", default="jumbo-index")
    ap.add_argument("--real-copies", type=int, default=3)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--font-decks", type=int, default=FONT_DECKS,
                    help="TrueType-font decks added to the classifier set (needs fonts-dejavu / fonts-liberation)")
    ap.add_argument("--font-crops-into", type=Path, default=None,
                    help="only add the font-deck crops to this existing classifier set (a copy of cls_upright)")
    args = ap.parse_args(argv)
    shared = args.shared if args.shared.is_dir() else None
    if args.font_crops_into is not None:
        if not (args.font_crops_into / "train").is_dir():
            ap.error(f"--font-crops-into {args.font_crops_into}: no train/ folder (expected a copy of cls_upright)")
        if args.font_decks <= 0:
            ap.error("--font-crops-into needs --font-decks N (N > 0)")
        n = add_font_crops(args.font_crops_into, args.seed, args.font_decks)
        print(f"font-deck crops added: {n}", flush=True)
        return 0
    if args.out is None:
        ap.error("--out is required (unless --font-crops-into)")
    build(args.out, args.train, args.val, args.seed, shared, args.holdout, args.real_copies, args.workers,
          args.font_decks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
