"""CLI of the card detector: ``detect``, ``eval-detector``, ``decks register`` / ``decks classify``.

Heavy imports (OpenCV, onnxruntime) happen inside the handlers so ``nerts-referee --help`` is fast.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Iterable

from nerts_referee.errors import UsageError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("detect", help="find cards in images: identity, confidence, box",
                              description="Run the card detector on images and print every corner index "
                              "(card identity) and face-down card (BACK) found, with confidence and box.")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--weights", default=None, help="model folder (default: the shipped models/)")
    p.add_argument("--decks", default=None, help="back registry (from 'decks register'): name back owners")
    p.add_argument("--min-confidence", type=float, default=0.0, help="hide sightings below this")
    p.set_defaults(handler=_detect)

    p = subparsers.add_parser("eval-detector", help="score the detector on a labelled folder (real-dev format)",
                              description="Per-image card-identity precision and recall (the set of identities "
                              "found vs the labelled set), per group (file-name prefix before the first '-'), "
                              "top confusions and median latency. Images the shipped model was trained on "
                              "(listed in its detector.json) are left out unless --include-trained.")
    p.add_argument("folder", metavar="DIR", help="folder with images/, labels/ and classes.yaml")
    p.add_argument("--json", action="store_true")
    p.add_argument("--weights", default=None)
    p.add_argument("--include-trained", action="store_true", help="also score images used in training")
    p.set_defaults(handler=_eval)

    p = subparsers.add_parser("decks", help="register players' card backs; classify a back to its owner")
    sub = p.add_subparsers(dest="decks_command", metavar="ACTION")
    r = sub.add_parser("register", help="learn a player's back from a few frames or a photo",
                       description="Learn NAME's back colour from images: a photo of the back (whole image), "
                       "or frames where the detector finds the face-down card (largest BACK), or --box.")
    r.add_argument("name")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    r.add_argument("--decks", default="decks.json", help="back registry file to create or update (JSON)")
    r.add_argument("--box", default=None, help="x0,y0,x1,y1 of the back in every image")
    r.add_argument("--weights", default=None)
    r.set_defaults(handler=_decks_register)
    c = sub.add_parser("classify", help="name the owner of the back(s) in images, or 'unknown'")
    c.add_argument("images", nargs="+", metavar="IMAGE")
    c.add_argument("--decks", default="decks.json")
    c.add_argument("--box", default=None, help="x0,y0,x1,y1 of the back (else: detector, else whole image)")
    c.add_argument("--weights", default=None)
    c.add_argument("--json", action="store_true")
    c.set_defaults(handler=_decks_classify)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


# --- helpers --------------------------------------------------------------------------------------


def _load_detector(weights: str | None):
    from vision.detector import Detector, DetectorError

    try:
        return Detector.load(weights)
    except DetectorError as exc:
        raise UsageError(str(exc)) from exc


def _read(path: str):
    """(image, None) or (None, error message) — one bad file must not stop the others."""
    import cv2

    p = Path(path)
    if not p.exists():
        return None, f"{path}: no such file"
    if p.is_dir():
        return None, f"{path}: is a folder, not an image"
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None:
        return None, f"{path}: not a readable image"
    return image, None


def _readable(paths: Iterable[str], command: str, records: list[dict]):
    """``(path, image)`` for each image that can be read; each other one is reported on stderr and
    recorded in ``records`` as ``{"image", "error"}``, and the rest still run."""
    for path in paths:
        image, error = _read(path)
        if error:
            print(f"nerts-referee {command}: error: {error}", file=sys.stderr)
            records.append({"image": path, "error": error})
            continue
        yield path, image


def _failures(records: list[dict]) -> int:
    return 1 if any("error" in r for r in records) else 0


def _parse_box(text: str | None):
    if text is None:
        return None
    try:
        box = tuple(float(v) for v in text.split(","))
    except ValueError:
        box = ()
    if len(box) != 4 or box[2] <= box[0] or box[3] <= box[1]:
        raise UsageError(f"--box must be x0,y0,x1,y1 with x1 > x0 and y1 > y0, got {text!r}")
    return box


# --- detect ---------------------------------------------------------------------------------------


def _detect(args: argparse.Namespace) -> int:
    detector = _load_detector(args.weights)
    if args.decks:
        detector.backs = _load_registry(args.decks)
    results: list[dict] = []
    for path, image in _readable(args.images, "detect", results):
        t = time.perf_counter()
        found = [s for s in detector.detect(image) if s.confidence >= args.min_confidence]
        ms = (time.perf_counter() - t) * 1000
        results.append({"image": path, "width": image.shape[1], "height": image.shape[0],
                        "ms": round(ms, 1), "sightings": [s.to_dict() for s in found]})
        if not args.json:
            print(f"{path}: {len(found)} found ({ms:.0f} ms)")
            for s in found:
                x0, y0, x1, y1 = s.box
                owner = f"  owner {s.owner}" if s.owner else ""
                print(f"  {s.identity:8s} {s.confidence:.2f}  [{x0:.0f}, {y0:.0f}, {x1:.0f}, {y1:.0f}]{owner}")
    if args.json:
        print(json.dumps({"images": results}, indent=2))
    return _failures(results)


# --- eval -----------------------------------------------------------------------------------------


def score_images(detector, items: Iterable[tuple[str, object, set[str]]]) -> dict:
    """Score ``(name, image, true identities)`` items by the set of identities found per image.

    Returns ``precision``, ``recall``, ``groups`` ({prefix: {precision, recall, images}}),
    ``confusions`` ([truth, read as, count]; ``-`` = missed / nothing there), ``median_ms``.
    """
    totals: dict[str, Counter] = {}
    confusion: Counter = Counter()
    times = []
    per_image = []
    for name, image, truth in items:
        t = time.perf_counter()
        found = detector.detect(image)
        times.append((time.perf_counter() - t) * 1000)
        predicted = {s.identity for s in found if s.identity != "BACK"}
        truth = {t_ for t_ in truth if t_ != "BACK"}
        tp = predicted & truth
        missed, extra = sorted(truth - predicted), sorted(predicted - truth)
        for a, b in _pair_errors(missed, extra):
            confusion[(a, b)] += 1
        group = Path(name).name.split("-", 1)[0]
        for key in ("all", group):
            c = totals.setdefault(key, Counter())
            c["tp"] += len(tp)
            c["fp"] += len(predicted - truth)
            c["fn"] += len(truth - predicted)
            c["images"] += 1
        per_image.append({"image": Path(name).name, "missed": missed, "extra": extra})

    def pr(c: Counter) -> dict:
        return {"precision": c["tp"] / max(c["tp"] + c["fp"], 1) if c["tp"] + c["fp"] else 1.0,
                "recall": c["tp"] / max(c["tp"] + c["fn"], 1) if c["tp"] + c["fn"] else 1.0,
                "images": c["images"], "true_positives": c["tp"], "false_positives": c["fp"],
                "false_negatives": c["fn"]}

    overall = pr(totals.get("all", Counter()))
    return {
        "precision": overall["precision"],
        "recall": overall["recall"],
        "images": overall["images"],
        "groups": {g: pr(c) for g, c in sorted(totals.items()) if g != "all"},
        "confusions": [[a, b, k] for (a, b), k in confusion.most_common(10)],
        "median_ms": float(statistics.median(times)) if times else 0.0,
        "per_image": per_image,
    }


def _pair_errors(missed: list[str], extra: list[str]) -> list[tuple[str, str]]:
    """Pair a missed card with a wrongly read one (same rank or suit first): a misread."""
    pairs, extra = [], list(extra)
    for m in missed:
        best = None
        for e in extra:
            if e[:-1] == m[:-1] or e[-1] == m[-1]:
                best = e
                break
        if best is None and extra:
            best = extra[0]
        if best is not None:
            extra.remove(best)
        pairs.append((m, best or "-"))
    pairs += [("-", e) for e in extra]
    return pairs


def _eval(args: argparse.Namespace) -> int:
    from vision.detector import read_class_names, read_yolo_labels

    folder = Path(args.folder)
    if not (folder / "images").is_dir() or not (folder / "labels").is_dir():
        raise UsageError(f"{folder} is not a labelled folder: it needs images/, labels/ and classes.yaml")
    if not (folder / "classes.yaml").is_file():
        raise UsageError(f"{folder} has no classes.yaml (the class names of the labels)")
    try:
        names = read_class_names(folder / "classes.yaml")
    except (ValueError, SyntaxError) as exc:
        raise UsageError(f"{folder / 'classes.yaml'}: {exc}") from exc
    detector = _load_detector(args.weights)
    trained = set() if args.include_trained else set(detector.meta.get("trained_on", []))
    paths = sorted(p for p in (folder / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    skipped = [p.name for p in paths if p.name in trained]
    unreadable: list[str] = []

    def items():
        for p in paths:
            if p.name in trained:
                continue
            image, error = _read(str(p))
            if error:
                unreadable.append(error)
                print(f"nerts-referee eval-detector: error: {error}", file=sys.stderr)
                continue
            label = folder / "labels" / f"{p.stem}.txt"
            truth = set()
            if label.is_file():
                truth = {n for n, _ in read_yolo_labels(label, names, image.shape[1], image.shape[0])}
            yield p.name, image, truth

    result = score_images(detector, items())
    result["skipped_trained"] = len(skipped)
    result["unreadable"] = len(unreadable)
    if args.json:
        out = dict(result)
        out.pop("per_image")
        print(json.dumps(out, indent=2))
        return 0
    print(f"{folder}: {result['images']} images scored"
          + (f" ({len(skipped)} used in training left out)" if skipped else "")
          + (f", {len(unreadable)} unreadable" if unreadable else ""))
    print(f"  all       precision {result['precision']:.4f}  recall {result['recall']:.4f}")
    for g, r in result["groups"].items():
        print(f"  {g:9s} precision {r['precision']:.4f}  recall {r['recall']:.4f}  ({r['images']} images, "
              f"{r['true_positives']} found, {r['false_positives']} wrong, {r['false_negatives']} missed)")
    if result["confusions"]:
        print("  top confusions (truth -> read as; '-' = nothing):")
        for a, b, k in result["confusions"]:
            print(f"    {a:>5s} -> {b:<5s} {k}")
    print(f"  median latency {result['median_ms']:.1f} ms per image")
    return 0


# --- decks ----------------------------------------------------------------------------------------


def _load_registry(path: str):
    from vision.backs import BackError, BackRegistry

    try:
        return BackRegistry.load(path)
    except BackError as exc:
        raise UsageError(str(exc)) from exc


def _back_boxes(image, box, detector_holder: dict, weights: str | None, largest_only: bool):
    """Boxes of backs in ``image``: --box, else the detector's BACK sightings, else the whole image."""
    if box is not None:
        return [box], "box"
    if "det" not in detector_holder:
        try:
            detector_holder["det"] = _load_detector(weights)
        except UsageError:
            detector_holder["det"] = None  # no weights: photos of a back still work
    det = detector_holder["det"]
    if det is not None:
        backs = [s.box for s in det.detect(image) if s.identity == "BACK"]
        if backs:
            backs.sort(key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))
            return (backs[:1] if largest_only else backs), "detector"
    return [None], "whole image"


def _decks_register(args: argparse.Namespace) -> int:
    from vision.backs import BackError, BackRegistry

    box = _parse_box(args.box)
    path = Path(args.decks)
    registry = _load_registry(str(path)) if path.exists() else BackRegistry()
    images, boxes, holder = [], [], {}
    for p in args.images:
        image, error = _read(p)
        if error:
            print(f"nerts-referee decks register: error: {error}", file=sys.stderr)
            continue
        found, how = _back_boxes(image, box, holder, args.weights, largest_only=True)
        images.append(image)
        boxes.append(found[0])
        print(f"{p}: back from {how}")
    if not images:
        raise UsageError("no readable image: nothing registered")
    try:
        protos = registry.register(args.name, images, boxes)
    except BackError as exc:
        raise UsageError(str(exc)) from exc
    registry.save(path)
    lab = protos.mean(axis=0)
    print(f"registered {args.name!r} from {len(images)} image(s): Lab {lab[0]:.0f} {lab[1]:.0f} {lab[2]:.0f} "
          f"-> {path} ({len(registry.backs)} back(s))")
    for note in registry.check(args.name):
        print(f"nerts-referee decks register: warning: {note}", file=sys.stderr)
    return 0 if len(images) == len(args.images) else 1


def _decks_classify(args: argparse.Namespace) -> int:
    box = _parse_box(args.box)
    registry = _load_registry(args.decks)
    if not registry.backs:
        raise UsageError(f"{args.decks} has no registered backs: run 'decks register' first")
    out: list[dict] = []
    holder: dict = {}
    for p, image in _readable(args.images, "decks classify", out):
        boxes, how = _back_boxes(image, box, holder, args.weights, largest_only=False)
        matches = registry.classify_frame(image, boxes)  # one network call for the whole frame
        entries = []
        for b, m in zip(boxes, matches):
            entries.append({"owner": m.owner, "distance": round(m.distance, 1), "runner_up": m.runner_up,
                            "runner_up_distance": None if m.runner_up_distance is None else round(m.runner_up_distance, 1),
                            "colour_lab": m.colour, "box": None if b is None else [round(float(v), 1) for v in b]})
        out.append({"image": p, "source": how, "backs": entries})
        if not args.json:
            for e in entries:
                where = "" if e["box"] is None else f" at {e['box']}"
                if e["owner"] == "unknown":  # the runner-up is then the nearest owner it was not taken for
                    why = "no owner registered" if e["runner_up"] is None else f"nearest {e['runner_up']} at {e['distance']}"
                else:
                    why = f"{e['distance']} from its colour" + (
                        "" if e["runner_up"] is None else f", next {e['runner_up']} at {e['runner_up_distance']}")
                print(f"{p}: {e['owner']}{where} ({how}, Lab {why})")
    if args.json:
        print(json.dumps({"images": out}, indent=2))
    return _failures(out)
