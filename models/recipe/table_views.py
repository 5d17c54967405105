"""Pipeline-domain detector data: the exact 416 px canvases ``DetectorSightings`` feeds the detector.

The detector was trained on photo-like scenes, but in the pipeline it sees something else: the
rectified common area warped at 1.2 px/mm from a 1280x720 overhead camera (so upsampled and
soft), only the spots that changed, packed into grey 416 px canvases, with cards in flight
(motion blur), hands over them and the seams of the packing. This module makes that view from
simulated clips (dev seeds only: the bench's final seeds 90211-90263 are refused) by running the
vision code itself:

- ``simulator`` plays a short game and renders chosen frames (``Renderer.frames``), with the
  table config it would write (``table_config``) giving the calibration (ArUco markers, as live);
- the look is planned the way the pipeline plans it (``plan_patches`` around what moves, or one
  piece of a full look, ``tile_region``) and warped by ``DetectorSightings._canvas``;
- labels come from the renderer's own geometry and id buffer (as ``YoloExporter.labels``): each
  corner index of a face-up card still mostly visible, each face-down card, mapped through the
  same homography into the canvas. An index smeared by motion blur longer than itself is left
  unlabelled (nobody can read it; the pipeline waits for the card to slow down).

Labels are YOLO rows in the detector's 2 classes (0 index, 1 back).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from simulator.render import LABEL_SCALE  # noqa: E402

FINAL_SEEDS = range(90211, 90264)  # bench/pipeline.py's report seeds: never trained or tuned on
INDEX, BACK = 0, 1
PX_PER_MM = 1.2  # DetectorSightings' default scale
CANVAS = 416
SIZES = ((1280, 720), (1280, 720), (1280, 720), (960, 540), (1920, 1080))


@dataclass
class ViewLabel:
    cls: int  # INDEX or BACK
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 canvas px
    identity: str  # card name or "BACK"
    blur_px: float = 0.0  # motion-blur length of the card in the canvas
    ignore: bool = False  # a real index or back not worth a label (mostly hidden, cut, smeared): not
    # written for training; a bench counts a read of it neither right nor wrong
    turn_deg: float = 0.0  # how far the printed index is turned clockwise in the canvas (indices)


@dataclass
class ClipSpec:
    """One simulated clip and how it is filmed (all drawn from ``seed``)."""

    seed: int
    deck: str  # "drawn:N" or a deck folder
    cloth: str
    size: tuple[int, int]
    tilt_deg: float
    noise: float
    players: int = 4
    seconds: float = 25.0

    @classmethod
    def draw(cls, seed: int, decks: list[str], seconds: float = 25.0) -> "ClipSpec":
        if seed in FINAL_SEEDS:
            raise ValueError(f"seed {seed} is one of the final bench seeds (90211-90263): never train on it")
        if not decks:
            raise ValueError("no deck designs to draw from")
        from simulator.render import CLOTHS

        rng = np.random.default_rng([seed, 77])
        return cls(seed=seed, deck=decks[int(rng.integers(len(decks)))], cloth=CLOTHS[int(rng.integers(len(CLOTHS)))],
                   size=SIZES[int(rng.integers(len(SIZES)))], tilt_deg=float(rng.uniform(0, 20)),
                   noise=float(rng.uniform(1.5, 5.0)), players=int(rng.choice([2, 3, 4, 4])), seconds=seconds)


@dataclass
class Clip:
    """A simulated clip ready to be rendered at any frame, with the pipeline's calibration."""

    spec: ClipSpec
    renderer: object
    vision_cfg: object
    region_mm: tuple[float, float, float, float]
    calibration: object = None
    sightings: object = field(default=None, repr=False)

    @classmethod
    def make(cls, spec: ClipSpec, shared: Path | None = None, region_margin_mm: float = 100.0) -> "Clip":
        from simulator.api import SimulationConfig, load_deck, make_renderer, table_config
        from simulator.game import play_game
        from vision.calibrate import region_around
        from vision.config import VisionConfig
        from vision.sources import DetectorSightings

        deck = spec.deck
        if not deck.startswith("drawn") and shared is not None:
            deck = str(shared / "cards" / deck)
        cfg = SimulationConfig(players=spec.players, seed=spec.seed, size=spec.size, tilt_deg=spec.tilt_deg,
                               deck_art=deck, max_seconds=spec.seconds, cloth=spec.cloth, noise=spec.noise,
                               video=False, poses=False, progress=False)
        cfg.validate()
        record = play_game(cfg.game_config())
        renderer = make_renderer(record, load_deck(cfg.deck_art), cfg)
        vcfg = VisionConfig.from_dict(table_config(record, cfg, renderer.cam))
        region = region_around(vcfg.zones.common, region_margin_mm, vcfg.zones.table_mm)
        # the pipeline's own canvas maker (a source without a detector only warps)
        return cls(spec, renderer, vcfg, region, sightings=DetectorSightings(None, px_per_mm=PX_PER_MM, canvas=CANVAS))

    def frame_times(self, n: int, rng: np.random.Generator, moving_share: float = 0.8) -> list[int]:
        """``n`` frame indices: most while a card is in flight into the region, the rest anywhere."""
        r = self.renderer
        fps = r.cfg.fps
        last = r.frame_count() - 1
        flights = [f for f in r.tl.flights if self._in_region(f.final[:2]) or self._in_region(f.contact[:2])]
        out = set()
        tries = 0
        while len(out) < min(n, last + 1) and tries < 20 * n:
            tries += 1
            if flights and rng.random() < moving_share:
                f = flights[int(rng.integers(len(flights)))]
                t = rng.uniform(f.t_grab + 0.3 * (f.t_contact - f.t_grab), f.t_settle + 0.25)
            else:
                t = rng.uniform(1.0, last / fps)
            out.add(int(min(max(round(t * fps), 1), last)))
        return sorted(out)

    def _in_region(self, xy) -> bool:
        x0, y0, x1, y1 = self.region_mm
        return x0 <= xy[0] <= x1 and y0 <= xy[1] <= y1

    def calibrate(self, frame) -> None:
        from vision.calibrate import CalibrationError, calibrate, from_corners

        try:
            self.calibration = calibrate(frame.image, self.vision_cfg)
        except CalibrationError:  # markers under a hand: the corners the config carries
            self.calibration = from_corners(self.vision_cfg.calibration.corners, self.vision_cfg.zones.table_mm)

    def views(self, frame, rng: np.random.Generator, full_share: float = 0.3, max_views: int = 2
              ) -> list[tuple[np.ndarray, list[ViewLabel]]]:
        """The canvases the pipeline would build from this frame, with their labels."""
        from vision.sources import plan_patches, tile_region

        if self.calibration is None:
            self.calibrate(frame)
        cal = self.calibration
        region = self.region_mm
        if rng.random() < full_share:
            tiles = tile_region(region, PX_PER_MM, CANVAS)
            plans = [plan_patches([tiles[int(rng.integers(len(tiles)))]], region, PX_PER_MM, CANVAS, 0.0)[0]]
        else:
            changed = self._changed_mm(frame, cal)
            if not changed:
                return []
            margin = float(rng.choice([45.0, 45.0, 22.5]))
            plans = plan_patches(changed, region, PX_PER_MM, CANVAS, margin)
            if len(plans) > max_views:
                plans = [plans[int(i)] for i in rng.choice(len(plans), max_views, replace=False)]
        cards = self._card_quads(frame)
        out = []
        for patches in plans:
            canvas = self.sightings._canvas(frame.image, cal, patches)
            out.append((canvas, self._labels(cards, patches, cal)))
        return out

    def _changed_mm(self, frame, cal) -> list[tuple[float, float, float, float]]:
        """What the motion gate would flag: moving cards and the hands (palm +- 70 mm), in mm."""
        boxes = []
        for d in frame.drawn:
            if d.moving:
                q = cal.to_table(d.quad)
                boxes.append((*q.min(0), *q.max(0)))
        for hx, hy in frame.hands:
            c = cal.to_table(np.array([[hx, hy]]))[0]
            boxes.append((c[0] - 70, c[1] - 70, c[0] + 70, c[1] + 70))
        x0, y0, x1, y1 = self.region_mm
        return [tuple(float(v) for v in b) for b in boxes if b[2] > x0 and b[0] < x1 and b[3] > y0 and b[1] < y1]

    def _card_quads(self, frame) -> list[tuple[int, str, np.ndarray, float, bool, float]]:
        """(class, identity, quad in image px, blur in mm, visible enough, turn in degrees) of every
        box at least partly visible in the frame."""
        r = self.renderer
        label = frame.label
        exposure = 0.5 / r.cfg.fps
        active = {f.uid: f for f in r.tl.flights if f.t_grab <= frame.t < f.t_settle}
        out = []
        for d, _ in frame.visible:
            info = r.tl.cards[d.uid]
            blur = 0.0
            fl = active.get(d.uid) if d.moving else None
            if fl is not None:
                a = r._flight_pose(fl, max(fl.t_grab, frame.t - exposure / 2))
                b = r._flight_pose(fl, min(fl.t_settle, frame.t + exposure / 2))
                blur = math.hypot(b[0] - a[0], b[1] - a[1])
            if d.face_up:
                quads, cls, need = r.index_boxes(d), INDEX, 0.7
                ident = info.name
                # the card's turn on the table; the lower corner's index is printed upside down
                tl, tr = self.calibration.to_table(np.asarray(d.quad[:2], np.float64))
                face_deg = math.degrees(math.atan2(tr[1] - tl[1], tr[0] - tl[0]))
                fh = r.deck.card_size[1]
                turns = [face_deg + (180.0 if (b[1] + b[3]) / 2 > fh / 2 else 0.0) for b in r.deck.index_boxes(info.name)]
            else:
                quads, cls, need = [d.quad], BACK, 0.35
                ident = "BACK"
                turns = [0.0]
            for q, turn in zip(quads, turns):
                vis = _visible_share(label, q, d.uid)
                if vis >= 0.2:
                    out.append((cls, ident, np.asarray(q, np.float64), blur, vis >= need, turn % 360.0))
        return out

    def _labels(self, cards, patches, cal) -> list[ViewLabel]:
        s = PX_PER_MM
        out = []
        for cls, ident, quad, blur_mm, visible, turn in cards:
            mm = cal.to_table(quad)
            c = mm.mean(0)
            for p in patches:
                rx0, ry0, rx1, ry1 = p.region_mm
                if not (rx0 <= c[0] < rx1 and ry0 <= c[1] < ry1):
                    continue
                px = (mm - np.array([rx0, ry0])) * s + np.array([p.ox, p.oy])
                x0, y0 = px.min(0)
                x1, y1 = px.max(0)
                cx0, cy0 = max(x0, p.ox), max(y0, p.oy)
                cx1, cy1 = min(x1, p.ox + p.w), min(y1, p.oy + p.h)
                if cx1 - cx0 < 3 or cy1 - cy0 < 3:
                    break
                kept = (cx1 - cx0) * (cy1 - cy0) / max((x1 - x0) * (y1 - y0), 1e-6)
                blur_px = blur_mm * s
                if cls == INDEX:  # cut by the patch edge or smeared past reading: no label
                    ignore = kept < 0.7 or blur_px > max(x1 - x0, y1 - y0)
                else:
                    ignore = kept < 0.5
                out.append(ViewLabel(cls, (float(cx0), float(cy0), float(cx1), float(cy1)), ident, blur_px,
                                     ignore or not visible, turn))
                break
        return out


def _visible_share(label: np.ndarray, quad: np.ndarray, uid: int) -> float:
    """Share of the quad's pixels in the renderer's id buffer that show card ``uid`` (on top)."""
    import cv2

    lh, lw = label.shape
    q = np.asarray(quad, np.float64) * LABEL_SCALE
    x0, y0 = np.floor(np.clip(q.min(0), 0, [lw, lh])).astype(int)
    x1, y1 = np.ceil(np.clip(q.max(0), 0, [lw, lh])).astype(int)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(q - [x0, y0]).astype(np.int32), 1)
    inside = int(mask.sum())
    if inside == 0:
        return 0.0
    patch = label[y0:y1, x0:x1]
    return float(((patch == uid + 1) & (mask == 1)).sum()) / inside


def default_decks(shared: Path | None, holdout: str = "jumbo-index") -> list[str]:
    """Designs to film: the drawn styles and the shared decks, never the held-out one."""
    from simulator.deck_art import DRAWN_STYLES, shared_designs

    decks = [f"drawn:{s}" for s in range(DRAWN_STYLES)]
    if shared is not None:
        decks += [n for n in shared_designs(shared / "cards") if n != holdout] * 3
    return decks


def _one_clip(job: tuple[int, int, list[str], str | None, str, float, int]) -> tuple[int, int]:
    """Render one clip's sampled frames into ``out/images`` and ``out/labels`` (YOLO rows)."""
    import cv2

    seed, frames, decks, shared, out, seconds, jpeg_low = job
    cv2.setNumThreads(1)
    spec = ClipSpec.draw(seed, decks, seconds)
    clip = Clip.make(spec, Path(shared) if shared else None)
    rng = np.random.default_rng([seed, 1])
    wanted = clip.frame_times(frames, rng)
    root = Path(out)
    n_img = n_lab = 0
    r = clip.renderer
    first = next(iter(r.frames(0, 1)))
    clip.calibrate(first)
    for i in wanted:
        fr = next(iter(r.frames(i, i + 1)))
        for k, (canvas, labels) in enumerate(clip.views(fr, rng)):
            if not any(not lab.ignore for lab in labels) and rng.random() < 0.7:
                continue  # a few empty views teach "nothing here"; most are wasted time
            stem = f"view{seed}_{i:05d}_{k}"
            quality = int(rng.integers(jpeg_low, 96))
            cv2.imwrite(str(root / "images" / f"{stem}.jpg"), canvas, [cv2.IMWRITE_JPEG_QUALITY, quality])
            (root / "labels" / f"{stem}.txt").write_text(yolo_rows(labels))
            n_img += 1
            n_lab += sum(not lab.ignore for lab in labels)
    return n_img, n_lab


def yolo_rows(labels: list[ViewLabel], size: int = CANVAS) -> str:
    return "".join(f"{lab.cls} {(lab.box[0] + lab.box[2]) / 2 / size:.6f} {(lab.box[1] + lab.box[3]) / 2 / size:.6f} "
                   f"{(lab.box[2] - lab.box[0]) / size:.6f} {(lab.box[3] - lab.box[1]) / size:.6f}\n"
                   for lab in labels if not lab.ignore)


def build_views(out: Path, seeds: list[int], frames_per_clip: int, shared: Path | None, holdout: str = "jumbo-index",
                workers: int = 2, seconds: float = 25.0, jpeg_low: int = 70, log=print) -> tuple[int, int]:
    """Canvases from one clip per seed into ``out/images`` + ``out/labels``; returns (images, boxes).
    Deterministic per seed, whatever the number of workers."""
    bad = [s for s in seeds if s in FINAL_SEEDS]
    if bad:
        raise ValueError(f"seeds {bad[:5]} are final bench seeds (90211-90263): never train on them")
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    decks = default_decks(shared, holdout)
    jobs = [(s, frames_per_clip, decks, str(shared) if shared else None, str(out), seconds, jpeg_low) for s in seeds]
    n_img = n_lab = 0
    if workers <= 1:
        results = map(_one_clip, jobs)
    else:
        pool = Pool(workers)
        results = pool.imap(_one_clip, jobs)
    for k, (a, b) in enumerate(results):
        n_img, n_lab = n_img + a, n_lab + b
        if (k + 1) % 10 == 0:
            log(f"  clips {k + 1}/{len(jobs)}: {n_img} views, {n_lab} boxes")
    if workers > 1:
        pool.close()
        pool.join()
    return n_img, n_lab


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seeds", default="6000-6079", help="dev seeds, e.g. 6000-6079 or 4242,4343")
    ap.add_argument("--frames", type=int, default=16, help="frames sampled per clip")
    ap.add_argument("--seconds", type=float, default=25.0)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    n_img, n_lab = build_views(args.out, parse_seeds(args.seeds), args.frames,
                               args.shared if args.shared.is_dir() else None, workers=args.workers,
                               seconds=args.seconds)
    print(f"{n_img} views, {n_lab} boxes in {args.out}")
    return 0


def parse_seeds(text: str) -> list[int]:
    """``6000-6009,4242`` -> [6000, ..., 6009, 4242]."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        a, _, b = part.partition("-")
        try:
            seeds += list(range(int(a), int(b) + 1)) if b else [int(a)]
        except ValueError:
            raise ValueError(f"seeds: {part!r} is not N or N-M") from None
    return seeds


if __name__ == "__main__":
    sys.exit(main())


def upright_crop(canvas: np.ndarray, lab: ViewLabel, size: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """The classifier's square crop of an index label (box jittered like a detector's when ``rng``
    is given), turned by quarter turns so the print is within 45 degrees of upright: the view
    ``Detector.classify_boxes`` gives an upright classifier."""
    from vision.detector import square_crop

    box = lab.box
    if rng is not None:
        w, h = box[2] - box[0], box[3] - box[1]
        dx, dy, sc = rng.normal(0, 0.1 * w), rng.normal(0, 0.1 * h), math.exp(rng.normal(0, 0.1))
        cx, cy = (box[0] + box[2]) / 2 + dx, (box[1] + box[3]) / 2 + dy
        box = (cx - w * sc / 2, cy - h * sc / 2, cx + w * sc / 2, cy + h * sc / 2)
    crop = square_crop(canvas, box, size)
    k = int(round(lab.turn_deg / 90.0)) % 4  # printed turned clockwise by k quarters: undo counter-clockwise
    return np.ascontiguousarray(np.rot90(crop, k))


def none_boxes(canvas: np.ndarray, labels: list[ViewLabel], n: int, rng: np.random.Generator
               ) -> list[tuple[float, float, float, float]]:
    """Up to ``n`` index-sized boxes on the warped table (not the grey fill) away from every index,
    labelled or not: card art, pips, edges, hands at the pipeline's scale (the detector's false
    alarms there, which the classifier must call ``_none``)."""
    out = []
    idx = [lab.box for lab in labels if lab.cls == INDEX]
    for _ in range(8 * n):
        if len(out) >= n:
            break
        h = rng.uniform(12, 34)
        w = h * rng.uniform(0.5, 1.0)
        x, y = rng.uniform(0, CANVAS - w), rng.uniform(0, CANVAS - h)
        b = (x, y, x + w, y + h)
        patch = canvas[int(y):int(y + h), int(x):int(x + w)]
        if (patch == 114).all(axis=2).mean() > 0.1 or patch.std() < 25:
            continue  # grey fill or plain cloth: nothing a detector would fire on
        if any(min(b[2], o[2]) - max(b[0], o[0]) > 0.25 * w and min(b[3], o[3]) - max(b[1], o[1]) > 0.25 * h for o in idx):
            continue
        out.append(b)
    return out


def _one_clip_crops(job: tuple[int, int, list[str], str | None, str, float, int]) -> int:
    """Classifier crops (``out/<identity>/*.png``, ``out/_none``) from one clip's pipeline views."""
    import cv2

    seed, frames, decks, shared, out, seconds, size = job
    cv2.setNumThreads(1)
    clip = Clip.make(ClipSpec.draw(seed, decks, seconds), Path(shared) if shared else None)
    rng = np.random.default_rng([seed, 3])
    r = clip.renderer
    clip.calibrate(next(iter(r.frames(0, 1))))
    root = Path(out)
    n = 0
    for i in clip.frame_times(frames, rng):
        for k, (canvas, labels) in enumerate(clip.views(next(iter(r.frames(i, i + 1))), rng)):
            if rng.random() < 0.5:  # the pipeline's JPEG-free view, or a recorded clip's
                canvas = cv2.imdecode(cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])[1],
                                      cv2.IMREAD_COLOR)
            good = [lab for lab in labels if lab.cls == INDEX and not lab.ignore]
            for j, lab in enumerate(good):
                ident = lab.identity
                (root / ident).mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(root / ident / f"v{seed}_{i:05d}_{k}_{j}.png"), upright_crop(canvas, lab, size, rng))
                n += 1
            for j, b in enumerate(none_boxes(canvas, labels, max(1, len(good) // 2), rng)):
                from vision.detector import square_crop

                (root / "_none").mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(root / "_none" / f"v{seed}_{i:05d}_{k}_n{j}.png"), square_crop(canvas, b, size))
                n += 1
    return n


def build_view_crops(out: Path, seeds: list[int], frames_per_clip: int, shared: Path | None,
                     holdout: str = "jumbo-index", workers: int = 1, seconds: float = 25.0, size: int = 64) -> int:
    """Classifier crops from the pipeline's views of one clip per (dev) seed; returns the count."""
    bad = [s for s in seeds if s in FINAL_SEEDS]
    if bad:
        raise ValueError(f"seeds {bad[:5]} are final bench seeds (90211-90263): never train on them")
    out.mkdir(parents=True, exist_ok=True)
    decks = default_decks(shared, holdout)
    jobs = [(s, frames_per_clip, decks, str(shared) if shared else None, str(out), seconds, size) for s in seeds]
    if workers <= 1:
        return sum(map(_one_clip_crops, jobs))
    with Pool(workers) as pool:
        return sum(pool.imap(_one_clip_crops, jobs))
