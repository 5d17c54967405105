"""Motion gating: find where the rectified common area changed, so the detector runs only there.

A still table costs one downscaled grayscale difference per frame (well under a millisecond). The
reference is the table as it last settled after a change, so a slow change (a card sliding a few
millimetres per frame) accumulates until it is noticed instead of hiding under the per-frame
threshold; flicker of the light is absorbed by comparing after removing the median brightness
change. The arm watcher's mask adds what changed in colour alone (a sleeve of the cloth's
brightness), against a chroma reference of its own.

>>> import numpy as np
>>> gate = MotionGate(scale=0.25)
>>> still = np.zeros((200, 200, 3), np.uint8)
>>> gate.update(still)                     # the first frame is "everything changed"
[(0, 0, 200, 200)]
>>> gate.update(still)
[]
>>> moved = still.copy(); moved[80:120, 40:100] = 255
>>> gate.update(moved)
[(28, 68, 112, 132)]
"""

from __future__ import annotations

import math

import numpy as np

Box = tuple[int, int, int, int]


class MotionGate:
    """``update(image) -> [changed boxes in image px]``; empty when nothing moved.

    Besides the change against the settled table, the gate keeps the table *as last looked at*
    (:meth:`mark_looked`): :meth:`fresh` is what changed since the detector last looked there, so
    a hand resting still on the table is not looked at again and again, while anything that
    moved between two looks (a card landing on a frame the detector skipped) is. ``last_mask``
    (the changed pixels of the last frame, at ``scale``) is what the detector is sent to look at;
    ``arm_mask`` adds what changed in colour only, and is what :class:`vision.attribution.ArmWatcher`
    follows arms in.
    """

    def __init__(self, scale: float = 0.25, threshold: int = 18, min_area_px: int = 6,
                 pad_px: int = 4, settle_frames: int = 2, chroma_threshold: int | None = 30) -> None:
        self.scale = scale
        self.threshold = threshold
        # A sleeve of the cloth's brightness (purple on green felt: 12 grey levels apart, Cr 62 and
        # Cb 43) is hardly a change in grey: the arm reaching across the table was missing from
        # the arm watcher's blobs, and its player's copy of a contest with it was lost (fresh clip
        # 5760: dev's arm, three contests on ben's side). For the arms only, colour images are
        # also compared in chroma (Cr, Cb) against a reference of their own, with this threshold
        # (the detector is still sent where grey levels changed: in colour too, on 38 older
        # clips, three plays were lost and five rounds went wrong).
        self.chroma_threshold = chroma_threshold
        self._chroma_reference: np.ndarray | None = None
        self._chroma_previous: np.ndarray | None = None
        self._chroma_still: np.ndarray | None = None
        self.arm_mask: np.ndarray | None = None  # last_mask, plus what changed in colour only
        self.min_area_px = min_area_px  # in downscaled pixels
        self.pad_px = pad_px
        self.settle_frames = settle_frames
        self._reference: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        self._still: np.ndarray | None = None  # per pixel: frames since it last changed
        self._looked: np.ndarray | None = None  # the table as the detector last saw it, pixel by pixel
        self._small_now: np.ndarray | None = None
        self._shape: tuple[int, int] = (0, 0)  # full-size image (h, w)
        self.last_mask: np.ndarray | None = None  # changed pixels of the last frame (downscaled)
        self.frames = 0
        self.active_frames = 0

    def _small(self, image: np.ndarray) -> np.ndarray:
        import cv2

        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(gray, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def reset(self) -> None:
        """Forget the reference (after a camera loss or a new calibration)."""
        self._reference = None
        self._previous = None
        self._still = None
        self._looked = None
        self.last_mask = None
        self._chroma_reference = None
        self.arm_mask = None

    def update(self, image: np.ndarray) -> list[Box]:
        self.frames += 1
        small = self._small(image)
        h, w = image.shape[:2]
        self._shape = (h, w)
        if self._reference is None or self._reference.shape != small.shape:
            self._reference = small.copy()
            self._previous = small
            self._still = np.zeros(small.shape, np.uint8)
            self._looked = None  # nothing looked at yet: everything is fresh
            self._small_now = small
            self.last_mask = np.ones(small.shape, bool)
            self._chroma_reference = None
            self._update_arm_mask(image)
            self.active_frames += 1
            return [(0, 0, w, h)]
        changed, self._still = self._settle(small, self._reference, self._previous, self._still, self.threshold)
        self._previous = small
        self._small_now = small
        self.last_mask = changed
        self._update_arm_mask(image)
        boxes = self._boxes(changed)
        if not boxes:
            return []
        self.active_frames += 1
        return self._to_image(boxes)

    def _update_arm_mask(self, image: np.ndarray) -> None:
        """``arm_mask``: ``last_mask``, plus where the chroma changed against its own reference,
        which settles like the grey one (spot by spot, once still)."""
        self.arm_mask = self.last_mask
        if image.ndim == 2 or self.chroma_threshold is None:
            return
        import cv2

        h, w = self.last_mask.shape
        # (chroma only needs to tell a sleeve from the cloth: a cheap resize will do)
        small = cv2.resize(image, (w, h), interpolation=cv2.INTER_LINEAR)
        chroma = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb), (3, 3), 0)
        chroma = np.ascontiguousarray(chroma.transpose(2, 0, 1)[1:])
        if self._chroma_reference is None or self._chroma_reference.shape != chroma.shape:
            self._chroma_reference = chroma.copy()
            self._chroma_previous = chroma
            self._chroma_still = np.zeros((h, w), np.uint8)
            return
        changed, self._chroma_still = self._settle(chroma, self._chroma_reference, self._chroma_previous,
                                                   self._chroma_still, self.chroma_threshold)
        self._chroma_previous = chroma
        self.arm_mask = self.last_mask | changed

    def _settle(self, now: np.ndarray, reference: np.ndarray, previous: np.ndarray, still: np.ndarray,
                threshold: int) -> tuple[np.ndarray, np.ndarray]:
        """What changed in ``now`` against ``reference`` (updated in place), and the frames each
        pixel has been still, after ``still``. The reference moves on only where a change has
        finished (still for a few frames), spot by spot: a hand busy at one side of the table does
        not keep a card that landed at the other side "changed", while a slow slide never matches
        the reference, so it adds up until it crosses the threshold."""
        changed = self._mask(now, reference, threshold)
        moving = self._mask(now, previous, threshold)
        still = np.where(moving, 0, np.minimum(still.astype(np.int16) + 1, 255)).astype(np.uint8)
        settled = changed & (still >= self.settle_frames)
        if settled.any():
            reference[..., settled] = now[..., settled]
        return changed, still

    def _to_image(self, boxes: list[tuple[int, int, int, int]]) -> list[Box]:
        h, w = self._shape
        inv = 1.0 / self.scale
        out: list[Box] = []
        for x, y, bw, bh in boxes:
            x0 = max(int(x * inv) - self.pad_px, 0)
            y0 = max(int(y * inv) - self.pad_px, 0)
            x1 = min(int((x + bw) * inv) + self.pad_px, w)
            y1 = min(int((y + bh) * inv) + self.pad_px, h)
            out.append((x0, y0, x1, y1))
        return out

    def fresh(self) -> list[Box]:
        """Boxes (image px) of what differs, in the last frame, from the table as last looked at
        (everything before the first :meth:`mark_looked`)."""
        if self._small_now is None:
            return []
        if self._looked is None:
            h, w = self._shape
            return [(0, 0, w, h)]
        return self._to_image(self._boxes(self._mask(self._small_now, self._looked)))

    def mark_looked(self, boxes: list[Box] | None = None) -> None:
        """The detector looked at ``boxes`` (image px; ``None``: everywhere) in the last frame."""
        if self._small_now is None:
            return
        if boxes is None or self._looked is None:
            if boxes is None:
                self._looked = self._small_now.copy()
                return
            self._looked = self._reference.copy()  # parts not looked at yet: as the table settled
        H, W = self._small_now.shape
        for x0, y0, x1, y1 in boxes:
            a, b = max(int(x0 * self.scale), 0), max(int(y0 * self.scale), 0)
            c, d = min(int(math.ceil(x1 * self.scale)), W), min(int(math.ceil(y1 * self.scale)), H)
            if c > a and d > b:
                self._looked[b:d, a:c] = self._small_now[b:d, a:c]

    def _mask(self, a: np.ndarray, b: np.ndarray, threshold: int | None = None) -> np.ndarray:
        """Where ``a`` differs from ``b`` by more than ``threshold`` (the grey one unless given) in
        any plane (a global brightness change, flickering light, removed)."""
        import cv2

        threshold = self.threshold if threshold is None else threshold
        planes = zip(a, b) if a.ndim == 3 else [(a, b)]
        mask = np.bitwise_or.reduce([_changed(pa, pb, threshold) for pa, pb in planes])
        if mask.any():
            mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        return mask.astype(bool)

    def _boxes(self, mask: np.ndarray) -> list[tuple[int, int, int, int]]:
        import cv2

        if not mask.any():
            return []
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
        return [tuple(int(v) for v in stats[i, :4]) for i in range(1, n) if stats[i, 4] >= self.min_area_px]

    @property
    def active_fraction(self) -> float:
        return self.active_frames / self.frames if self.frames else 0.0


def _changed(a: np.ndarray, b: np.ndarray, threshold: int) -> np.ndarray:
    """uint8 1 where the plane ``a`` differs from ``b`` by more than ``threshold``, once the median
    change (the light turned up or down, or warmer) is taken off."""
    import cv2

    shift = int(_median(a)) - int(_median(b))
    diff = cv2.absdiff(a, cv2.add(b, shift) if shift >= 0 else cv2.subtract(b, -shift))
    return (diff > threshold).astype(np.uint8)


def _median(image: np.ndarray) -> float:
    """``np.median`` of a uint8 image from its histogram: the same value, without sorting (the
    gate takes four medians a frame; sorting them cost ~3 ms a frame, a tenth of the budget).

    >>> a = np.array([[3, 9], [1, 250]], np.uint8)
    >>> _median(a), float(np.median(a)), _median(a[:, :1]), _median(a[:1, :1])
    (6.0, 6.0, 2.0, 3.0)
    """
    if image.dtype != np.uint8 or image.size == 0:
        return float(np.median(image))
    counts = np.cumsum(np.bincount(image.ravel(), minlength=256))
    n = image.size
    lo = int(np.searchsorted(counts, (n - 1) // 2 + 1))  # the sorted values at (n-1)//2 and n//2
    hi = int(np.searchsorted(counts, n // 2 + 1))
    return (lo + hi) / 2.0
