"""Detector benchmark: held-out deck design, back-colour owners, latency on 2 cores.

    .venv/bin/python bench/detector.py [--scenes 150] [--json]

1. Held-out design: scenes rendered only with the design kept out of training (``jumbo-index``),
   scored like ``eval-detector`` (per-image card-identity precision / recall).
2. Backs: 8 players register their back from 3 rendered frames each (french-pattern backs, incl.
   the close pairs blue/navy, red/maroon, green/teal); then every face-down card in fresh
   rendered scenes is classified: correct / wrong / unknown among registered backs, and how the 9
   unregistered colours are treated (ideally ``unknown``); for all backs (labelled from 35%
   visible) and per visible share (< 0.6, 0.6-0.8, >= 0.8). Two registrations are scored:
   ``sightings`` (the first 3 in-play sightings, some only 36% visible: the old protocol) and
   ``clear`` (the first 3 sightings at least 80% visible, what ``decks register`` asks a player
   for: frames where the back lies clear). Develop with ``--back-seed`` other than 2027 and
   ``--back-scenes 400`` (120 scenes hold only ~145 registered backs).
3. Latency: median ``Detector.detect`` time per 640x640 input (2 onnxruntime threads), split into
   the detector stage and the classifier stage.
4. Pipeline canvases (``table``): the 416 px views ``DetectorSightings`` builds, from simulated clips
   of dev seeds the fine-tune never filmed (``--table-seeds``, ``models/recipe/table_views.py``):
   stage-1 index-box recall (IoU 0.3) and per-box reads (identity right) for cards at rest and in
   flight, read precision. The holdout section also gives stage 1 alone on real-dev.
Needs ``../shared/cards`` (skips what it cannot do without it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from models.recipe.scenes import BACK, render_scene  # noqa: E402
from simulator.deck_art import DeckArt  # noqa: E402
from vision.backs import UNKNOWN, BackRegistry  # noqa: E402

REGISTERED = ["blue", "navy", "red", "maroon", "green", "teal", "yellow", "black"]
UNREGISTERED = ["0062ff", "aqua", "default", "fuchsia", "gray", "lime", "olive", "purple", "silver"]
KEPT_READ = 0.3  # DetectorSightings' min_confidence: reads below it never reach the pipeline
CLEAR_VISIBLE = 0.8  # a clear sighting for registration: at least this share of the back visible


def back_crops(french: DeckArt, faces: list[DeckArt], colours: list[str], n_scenes: int, seed: int):
    """(colour, image, box) of every face-down card in rendered scenes (labels hold the colour)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_scenes):
        img, labels = render_scene(rng, faces, [french], back_share=0.6, back_colours=colours)
        out += [(lab.colour, img, lab.box, lab.visible) for lab in labels if lab.cls == BACK]
    return out


def clear_sightings(french: DeckArt, faces: list[DeckArt], colour: str, seed: int, n: int = 3,
                    min_visible: float = CLEAR_VISIBLE, max_scenes: int = 60) -> list:
    """The first ``n`` sightings of ``colour``'s back at least ``min_visible`` visible (what a
    player registering a deck is asked for), from up to ``max_scenes`` rendered scenes."""
    rng = np.random.default_rng(seed)
    out: list = []
    for _ in range(max_scenes):
        img, labels = render_scene(rng, faces, [french], back_share=0.6, back_colours=[colour])
        out += [(lab.colour, img, lab.box, lab.visible) for lab in labels if lab.cls == BACK and lab.visible >= min_visible]
        if len(out) >= n:
            return out[:n]
    raise RuntimeError(f"fewer than {n} clear sightings of {colour} in {max_scenes} scenes")


def bench_backs(shared: Path, n_scenes: int, seed: int = 2027) -> dict:
    """Registries from 3 sightings per player (in play, and clear ones) and, as the pipeline does,
    from the nominal colour names of the table settings, scored on every face-down card of
    ``n_scenes`` fresh scenes."""
    french = DeckArt.load(shared / "cards" / "french-pattern")
    faces = [DeckArt.drawn()]
    reg, clear, nominal = BackRegistry(), BackRegistry(), BackRegistry()
    t0 = time.perf_counter()
    for i, colour in enumerate(REGISTERED):  # "a few frames": 3 sightings of this back in play
        seen = back_crops(french, faces, [colour], 6, seed=100 + i)[:3]
        reg.register(colour, [s[1] for s in seen], [s[2] for s in seen])
        seen = clear_sightings(french, faces, colour, seed=100 + i)
        clear.register(colour, [s[1] for s in seen], [s[2] for s in seen])
        nominal.register_colour(colour, colour)
    test = back_crops(french, faces, REGISTERED + UNREGISTERED, n_scenes, seed=seed)  # 2027: never tuned on
    confusion: Counter = Counter()
    outcomes: dict[str, list] = {"sightings": [], "clear": [], "nominal": []}  # (visible share, colour, outcome)
    ms = []

    def score(colour: str, visible: float, owner: str, name: str) -> None:
        if colour in REGISTERED:
            outcome = "correct" if owner == colour else "unknown" if owner == UNKNOWN else "wrong"
        else:
            outcome = "rejected" if owner == UNKNOWN else "wrong"
        if outcome == "wrong" and name in ("sightings", "clear"):
            confusion[(name, colour, owner)] += 1
        outcomes[name].append((visible, colour, outcome))

    frames: dict[int, list] = {}  # all backs of a frame are classified together, as the detector finds them
    for colour, img, box, visible in test:
        frames.setdefault(id(img), []).append((colour, img, box, visible))
    for backs in frames.values():
        img, boxes = backs[0][1], [b[2] for b in backs]
        for name, registry in (("sightings", reg), ("clear", clear), ("nominal", nominal)):
            t = time.perf_counter()
            matches = registry.classify_frame(img, boxes)
            if name == "sightings":
                ms.append(1000 * (time.perf_counter() - t) / len(boxes))
            for (colour, _, _, visible), match in zip(backs, matches):
                score(colour, visible, match.owner, name)

    def rates(name: str, min_visible: float, max_visible: float = 1.01) -> dict:
        mine = [o for v, c, o in outcomes[name] if c in REGISTERED and min_visible <= v < max_visible]
        foreign = [o for v, c, o in outcomes[name] if c not in REGISTERED and min_visible <= v < max_visible]
        n = max(len(mine), 1)
        return {"backs": len(mine), "correct": mine.count("correct") / n, "wrong": mine.count("wrong") / n,
                "unknown": mine.count("unknown") / n, "unregistered_backs": len(foreign),
                "unregistered_rejected": foreign.count("rejected") / max(len(foreign), 1)}

    def rejected(name: str) -> dict:
        """Per unregistered colour, the share of its backs the registry called unknown."""
        return {c: round(sum(o == "rejected" for _, cc, o in outcomes[name] if cc == c)
                         / max(1, sum(cc == c for _, cc, _ in outcomes[name])), 3) for c in UNREGISTERED}

    return {
        "seed": seed,
        "all": rates("sightings", 0.0),
        "mostly_visible": rates("sightings", 0.6),
        # backs are labelled from 35% visible; the figure "all" covers 0.35-1.0
        "by_visibility": {span: rates("sightings", lo, hi)
                          for span, lo, hi in (("< 0.6", 0.0, 0.6), ("0.6-0.8", 0.6, 0.8), (">= 0.8", 0.8, 1.01))},
        "clear_registration": rates("clear", 0.0),
        "clear_by_visibility": {span: rates("clear", lo, hi)
                                for span, lo, hi in (("< 0.6", 0.0, 0.6), ("0.6-0.8", 0.6, 0.8), (">= 0.8", 0.8, 1.01))},
        "nominal_colours": rates("nominal", 0.0),
        "rejected_per_colour": rejected("sightings"),
        "clear_rejected_per_colour": rejected("clear"),
        "top_confusions": [[a, b, k] for (r, a, b), k in confusion.most_common() if r == "sightings"][:6],
        "clear_top_confusions": [[a, b, k] for (r, a, b), k in confusion.most_common() if r == "clear"][:6],
        "median_ms_per_back": round(float(np.median(ms)), 2) if ms else None,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def bench_holdout(detector, shared: Path, design: str, n_scenes: int) -> dict:
    from vision.detect_cli import score_images

    deck = DeckArt.load(shared / "cards" / design)
    backs = [deck] if deck.back_colours else [DeckArt.drawn()]
    rng = np.random.default_rng(2026)
    items = []
    for k in range(n_scenes):
        img, labels = render_scene(rng, [deck], backs)
        truth = {lab.identity for lab in labels if lab.cls != BACK}
        items.append((f"{design}-{k:04d}", img, truth))
    return score_images(detector, items)


def bench_classifier_real(detector, real_dev: Path) -> dict:
    """Stage 2 alone on the labelled index boxes of the real-dev photos not trained on."""
    import cv2

    from vision.detector import read_class_names, read_yolo_labels

    names = read_class_names(real_dev / "classes.yaml")
    trained = set(detector.meta.get("trained_on", []))
    right = total = 0
    wrong: Counter = Counter()
    for p in sorted((real_dev / "images").glob("*.jpg")):
        if p.name in trained:
            continue
        img = cv2.imread(str(p))
        labels = [(n, b) for n, b in read_yolo_labels(real_dev / "labels" / f"{p.stem}.txt", names,
                                                      img.shape[1], img.shape[0]) if n != "BACK"]
        if not labels:
            continue
        probs = detector.classify_boxes(img, np.array([b for _, b in labels], np.float32))
        for (truth, _), pr in zip(labels, probs):
            guess = detector.cls_classes[int(pr.argmax())]
            total += 1
            right += guess == truth
            if guess != truth:
                wrong[(truth, guess)] += 1
    return {"crops": total, "accuracy": right / max(total, 1), "top_errors": [[a, b, k] for (a, b), k in wrong.most_common(5)]}


def bench_stage1_real(detector, real_dev: Path, iou: float = 0.3) -> dict:
    """Stage 1 alone on the real-dev photos not trained on: share of labelled index boxes that a
    detector ``index`` box overlaps at IoU >= ``iou``, per group (file-name prefix)."""
    import cv2

    from vision.detector import read_class_names, read_yolo_labels

    names = read_class_names(real_dev / "classes.yaml")
    trained = set(detector.meta.get("trained_on", []))
    found: Counter = Counter()
    total: Counter = Counter()
    for p in sorted((real_dev / "images").glob("*.jpg")):
        if p.name in trained:
            continue
        img = cv2.imread(str(p))
        truth = [b for n, b in read_yolo_labels(real_dev / "labels" / f"{p.stem}.txt", names, img.shape[1],
                                                img.shape[0]) if n != "BACK"]
        boxes, _, cls_id = detector._boxes(img)
        mine = [b for b, k in zip(boxes, cls_id) if detector.det_classes[k] == "index"]
        group = p.name.split("-", 1)[0]
        for t in truth:
            total[group] += 1
            found[group] += any(_iou(t, b) >= iou for b in mine)
    return {g: {"boxes": total[g], "recall": round(found[g] / total[g], 4)} for g in sorted(total)}


def bench_latency(detector, n: int = 40) -> dict:
    rng = np.random.default_rng(5)
    faces = [DeckArt.drawn()]
    imgs = [render_scene(rng, faces, faces)[0] for _ in range(8)]
    for img in imgs[:3]:
        detector.detect(img)
    total, stage1 = [], []
    for k in range(n):
        img = imgs[k % len(imgs)]
        t = time.perf_counter()
        detector._boxes(img)
        stage1.append(time.perf_counter() - t)
        t = time.perf_counter()
        detector.detect(img)
        total.append(time.perf_counter() - t)
    return {"median_ms": round(1000 * float(np.median(total)), 1),
            "detector_stage_ms": round(1000 * float(np.median(stage1)), 1),
            "p90_ms": round(1000 * float(np.percentile(total, 90)), 1), "runs": n}


def _iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / max((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter, 1e-9)


def table_views(shared: Path | None, seeds: list[int], frames: int) -> list[tuple[np.ndarray, list]]:
    """The pipeline's 416 px canvases (``models/recipe/table_views.py``) from clips of ``seeds``
    (dev seeds the fine-tune never filmed), with their labels."""
    from models.recipe.table_views import Clip, ClipSpec, default_decks

    decks = default_decks(shared)
    out = []
    for seed in seeds:
        clip = Clip.make(ClipSpec.draw(seed, decks), shared)
        rng = np.random.default_rng([seed, 2])
        r = clip.renderer
        clip.calibrate(next(iter(r.frames(0, 1))))
        for i in clip.frame_times(frames, rng):
            out += [v for v in clip.views(next(iter(r.frames(i, i + 1))), rng) if any(not lab.ignore for lab in v[1])]
    return out


def bench_table(detector, views: list[tuple[np.ndarray, list]], iou: float = 0.3) -> dict:
    """Stage-1 box recall and card-identity precision / recall per box on pipeline canvases, the
    cards in flight (motion blur over 2 px) apart from those at rest."""
    from models.recipe.table_views import BACK as V_BACK, INDEX as V_INDEX

    c: Counter = Counter()
    for canvas, labels in views:
        boxes, conf, cls_id = detector._boxes(canvas)
        found = detector.detect(canvas)
        kinds = [detector.det_classes[k] for k in cls_id]
        reads = [s for s in found if s.identity != "BACK"]
        matched_reads = set()
        for lab in labels:
            if lab.ignore:
                continue
            state = "flight" if lab.blur_px > 2.0 else "rest"
            want = "index" if lab.cls == V_INDEX else "back" if lab.cls == V_BACK else None
            hit = any(k == want and _iou(lab.box, b) >= iou for b, k in zip(boxes, kinds))
            c[f"{want}_{state}"] += 1
            c[f"{want}_{state}_found"] += hit
            if want == "index":
                good = [j for j, s in enumerate(reads) if s.identity == lab.identity and _iou(lab.box, s.box) >= iou]
                c[f"read_{state}"] += bool(good)
                matched_reads.update(good)
        for j, s in enumerate(reads):
            if j in matched_reads:
                c["reads"] += 1
                c["reads_right"] += 1
                continue
            near = [lab for lab in labels if lab.cls == V_INDEX and _iou(lab.box, s.box) >= 0.2]
            if any(lab.ignore and lab.identity == s.identity for lab in near):
                continue  # a right read of a half-hidden or cut index: neither right nor wrong
            c["reads"] += 1
            c["reads_nothing"] += not near  # a read where no index is
            c["reads_nothing_kept"] += not near and s.confidence >= KEPT_READ  # one the pipeline would use
    def rate(a: str, b: str) -> float:
        return round(c[a] / c[b], 4) if c[b] else float("nan")

    return {
        "canvases": len(views),
        "index_boxes": c["index_rest"] + c["index_flight"], "in_flight": c["index_flight"],
        "box_recall_rest": rate("index_rest_found", "index_rest"),
        "box_recall_flight": rate("index_flight_found", "index_flight"),
        "back_recall": round((c["back_rest_found"] + c["back_flight_found"]) / max(c["back_rest"] + c["back_flight"], 1), 4),
        "read_recall_rest": rate("read_rest", "index_rest"), "read_recall_flight": rate("read_flight", "index_flight"),
        "read_precision": rate("reads_right", "reads"), "reads_on_nothing": c["reads_nothing"],
        "reads_on_nothing_kept": c["reads_nothing_kept"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--design", default=None, help="held-out design (default: the one in detector.json)")
    ap.add_argument("--scenes", type=int, default=150)
    ap.add_argument("--back-scenes", type=int, default=120)
    ap.add_argument("--back-seed", type=int, default=2027,
                    help="seed of the back test scenes (2027 = the reported figure; develop on another)")
    ap.add_argument("--weights", default=None, help="model folder (default: models/)")
    ap.add_argument("--table-seeds", default="7000-7011",
                    help="dev seeds of the clips whose pipeline canvases are scored (not trained on)")
    ap.add_argument("--table-frames", type=int, default=20, help="frames per clip for the table section")
    ap.add_argument("--skip", nargs="*", default=[], choices=["holdout", "backs", "latency", "table"])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    results: dict = {}
    detector = None
    if "holdout" not in args.skip or "latency" not in args.skip or "table" not in args.skip:
        from vision.detector import Detector, DetectorError

        try:
            detector = Detector.load(args.weights)
        except DetectorError as exc:
            print(f"no detector: {exc}", file=sys.stderr)
    have_shared = (args.shared / "cards").is_dir()
    if detector is not None and "holdout" not in args.skip and have_shared:
        design = args.design or detector.meta.get("recipe", {}).get("holdout", "jumbo-index")
        r = bench_holdout(detector, args.shared, design, args.scenes)
        results["holdout"] = {"design": design, **r}
        if not args.json:
            print(f"held-out design {design}: {r['images']} rendered scenes  precision {r['precision']:.4f}  "
                  f"recall {r['recall']:.4f}  median {r['median_ms']:.1f} ms")
            for a, b, k in r["confusions"][:5]:
                print(f"    {a} read as {b}: {k}")
    real_dev = args.shared / "datasets" / "real-dev"
    if detector is not None and "holdout" not in args.skip and real_dev.is_dir():
        r = bench_classifier_real(detector, real_dev)
        results["classifier_real_dev"] = r
        if not args.json:
            print(f"classifier alone on real-dev labelled index boxes (photos not trained on): "
                  f"{r['crops']} crops, accuracy {r['accuracy']:.4f}  errors {r['top_errors']}")
        r = bench_stage1_real(detector, real_dev)
        results["stage1_real_dev"] = r
        if not args.json:
            print("stage 1 alone on real-dev (photos not trained on), index boxes found at IoU 0.3: "
                  + "  ".join(f"{g} {v['recall']:.3f} of {v['boxes']}" for g, v in r.items()))
    if "backs" not in args.skip and have_shared:
        r = bench_backs(args.shared, args.back_scenes, args.back_seed)
        results["backs"] = r
        if not args.json:
            for key, what in (("all", "all face-down cards"), ("mostly_visible", ">= 60% visible"),
                              ("clear_registration", "all, registered from 3 clear sightings"),
                              ("nominal_colours", "registered from colour names only")):
                q = r[key]
                print(f"backs ({what}): {q['backs']} of 8 registered colours: correct {q['correct']:.4f}  "
                      f"wrong {q['wrong']:.4f}  unknown {q['unknown']:.4f}; {q['unregistered_backs']} of 9 "
                      f"unregistered colours: rejected {q['unregistered_rejected']:.3f}")
            for span, q in r["by_visibility"].items():
                print(f"    visible {span}: {q['backs']} registered: correct {q['correct']:.4f}  wrong {q['wrong']:.4f}  "
                      f"unknown {q['unknown']:.4f}; unregistered rejected {q['unregistered_rejected']:.3f}")
            print("    unregistered rejected: " + "  ".join(f"{c} {v:.2f}" for c, v in r["rejected_per_colour"].items()))
            print(f"    seed {r['seed']}, median {r['median_ms_per_back']} ms per back")
            for a, b, k in r["top_confusions"]:
                print(f"    {a} -> {b}: {k}")
            print("  registered from 3 clear sightings (>= 80% visible, as 'decks register' asks):")
            for span, q in r["clear_by_visibility"].items():
                print(f"    visible {span}: {q['backs']} registered: correct {q['correct']:.4f}  wrong {q['wrong']:.4f}  "
                      f"unknown {q['unknown']:.4f}; unregistered rejected {q['unregistered_rejected']:.3f}")
            print("    unregistered rejected: " + "  ".join(f"{c} {v:.2f}" for c, v in r["clear_rejected_per_colour"].items()))
            for a, b, k in r["clear_top_confusions"]:
                print(f"    {a} -> {b}: {k}")
    if detector is not None and "table" not in args.skip:
        from models.recipe.table_views import parse_seeds
        from vision.detector import Detector

        # as the pipeline loads it (DetectorSightings.load): the classifier's floor at 0.3
        table_det = Detector.load(args.weights, cls_conf=0.3)
        views = table_views(args.shared if have_shared else None, parse_seeds(args.table_seeds), args.table_frames)
        r = bench_table(table_det, views)
        results["table"] = r
        if not args.json:
            print(f"pipeline canvases (seeds {args.table_seeds}): {r['canvases']} canvases, {r['index_boxes']} "
                  f"index boxes ({r['in_flight']} in flight); stage-1 box recall at rest {r['box_recall_rest']}, "
                  f"in flight {r['box_recall_flight']}, backs {r['back_recall']}; read right at rest "
                  f"{r['read_recall_rest']}, in flight {r['read_recall_flight']}; read precision "
                  f"{r['read_precision']} ({r['reads_on_nothing']} reads on no index, {r['reads_on_nothing_kept']} of them "
                  f"with det x cls >= {KEPT_READ}, as the pipeline keeps reads)")
    if detector is not None and "latency" not in args.skip:
        r = bench_latency(detector)
        results["latency"] = r
        if not args.json:
            print(f"latency per 640x640 input (2 threads): median {r['median_ms']} ms "
                  f"(detector stage {r['detector_stage_ms']} ms), p90 {r['p90_ms']} ms")
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
