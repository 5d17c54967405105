"""Contact time: when a card touched its pile, to better than the frame interval.

A played card is carried by a hand in a reach that speeds up and slows down smoothly and ends,
at rest, where the card touches the pile; the card may then slide or rotate a little as it is
let go. Human reaching is well described by the minimum-jerk profile (Flash & Hogan, 1985):
``p(t) = p_end + (p_start - p_end) * (1 - e(s))`` with ``e(s) = 10s³ - 15s⁴ + 6s⁵`` and
``s = (t - t_start) / T``. The reach ends at zero speed, so "the first frame where the card is
still" is a poor clock (the last 30 ms of a reach move it by about a millimetre); the fast middle
of the reach, on the other hand, pins down when it ends. :func:`estimate_contact` fits the profile
to the samples of the approach (a grid search over duration and end time, then a Gauss-Newton
refinement) and returns the end time with its 1-sigma uncertainty from the fit's covariance.

Occlusion order is the second cue: the card underneath was on the pile first.
:func:`order_with_occlusion` combines it with the two timing estimates and returns times and
uncertainties whose order confidence is the combined probability.

>>> import numpy as np
>>> ts = np.arange(0, 15) / 30.0                  # the approach: samples before contact
>>> tc, T = 0.5712, 0.45
>>> xs = [300 * (1 - min_jerk((t - tc + T) / T)) for t in ts]
>>> est = estimate_contact(ts, np.c_[xs, np.zeros(15)], end_guess=0.6)
>>> abs(est.t - tc) < 0.001   # the last sample is 105 ms before contact: extrapolated, so ...
True
>>> 25 < est.uncertainty_ms < 50   # ... the stated sigma includes the model error of that
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

MIN_UNCERTAINTY_MS = 2.0
# The fit covariance assumes the reach is exactly minimum-jerk; real (and simulated) reaches are
# not, and the error that model mismatch leaves grows with how much of the reach's end went unseen.
# Calibrated on simulated clips (seeds 500-502, 7): |error| <= 2 sigma for ~95 % of plays.
MODEL_FLOOR_MS = 3.0  # model error of a reach seen up to its contact
UNSEEN_SHARE = 0.3  # 1-sigma model error per unit of unseen time between the last fitted sample and contact


def honest_sigma_ms(fit_sigma_ms: float, unseen_s: float, dof: int = 100) -> float:
    """1-sigma contact uncertainty: the fit's own (widened by Student's t for few samples) and the
    model error, which grows with the extrapolation from the last sample to the contact.

    >>> round(honest_sigma_ms(2.0, 0.0), 1), round(honest_sigma_ms(2.0, 0.060), 1)
    (3.6, 18.4)
    """
    from scipy.stats import t as student_t

    widen = float(student_t.ppf(0.975, max(dof, 1)) / 1.959964)
    unseen_ms = max(unseen_s, 0.0) * 1000.0
    return math.sqrt((fit_sigma_ms * widen) ** 2 + MODEL_FLOOR_MS**2 + (UNSEEN_SHARE * unseen_ms) ** 2)


@dataclass(frozen=True)
class ContactEstimate:
    t: float  # seconds, footage clock
    uncertainty_ms: float  # 1 sigma
    rms_mm: float  # fit residual (position noise) in mm
    end: tuple[float, float] | None = None  # where the reach ended (the contact point), mm
    start: tuple[float, float] | None = None  # where the fitted reach began, mm
    duration: float | None = None  # fitted reach duration, s

    def shifted(self, t: float, uncertainty_ms: float) -> "ContactEstimate":
        return ContactEstimate(t, uncertainty_ms, self.rms_mm, self.end, self.start, self.duration)

    def position(self, t: np.ndarray) -> np.ndarray | None:
        """The fitted reach's position at times ``t`` (held at the end after contact)."""
        if self.end is None or self.start is None or not self.duration:
            return None
        e = min_jerk((np.asarray(t, dtype=np.float64) - (self.t - self.duration)) / self.duration)
        return np.asarray(self.start)[None, :] * (1 - e)[:, None] + np.asarray(self.end)[None, :] * e[:, None]


def min_jerk(s: float | np.ndarray) -> float | np.ndarray:
    """The minimum-jerk position profile from 0 to 1 (clipped outside 0..1)."""
    s = np.clip(s, 0.0, 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


def _fit_ends(t: np.ndarray, xy: np.ndarray, tc: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every (tc, T) pair: best start/end points (linear least squares) and the residual."""
    # e has shape (k, n): the profile at each sample for each candidate.
    e = min_jerk((t[None, :] - (tc - T)[:, None]) / T[:, None])
    a = 1.0 - e  # weight of the start point; e weights the end point
    saa, sae, see = (a * a).sum(1), (a * e).sum(1), (e * e).sum(1)
    det = saa * see - sae * sae
    ok = det > 1e-9
    det = np.where(ok, det, 1.0)
    sax = a @ xy  # (k, 2)
    sex = e @ xy
    p_start = (see[:, None] * sax - sae[:, None] * sex) / det[:, None]
    p_end = (saa[:, None] * sex - sae[:, None] * sax) / det[:, None]
    pred = a[:, :, None] * p_start[:, None, :] + e[:, :, None] * p_end[:, None, :]
    rss = ((pred - xy[None, :, :]) ** 2).sum(axis=(1, 2))
    rss = np.where(ok, rss, np.inf)
    return rss, p_end


def estimate_contact(t: np.ndarray, xy: np.ndarray, end_guess: float, window: float = 0.15,
                     durations: tuple[float, float] = (0.15, 1.6), noise_floor_mm: float = 0.7,
                     seen: np.ndarray | None = None) -> ContactEstimate:
    """End time of a minimum-jerk reach fitted to samples ``t`` (s), ``xy`` (mm, (n, 2)).

    ``end_guess`` is where to look (the end is searched within ``± window`` s of it). The samples
    should cover the approach only (not the slide after contact). ``seen``: times of every frame
    the card was seen in (samples left out of the fit included); the reach's end after the last of
    them before contact was not observed, and the stated uncertainty grows with it.
    """
    t = np.asarray(t, dtype=np.float64)
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    if len(t) < 4:
        raise ValueError(f"need at least 4 approach samples to fit a reach, got {len(t)}")
    t0 = t[0]
    tt = t - t0
    guess = end_guess - t0
    tcs = np.arange(max(guess - window, tt[-1] - 0.02), guess + window, 0.004)
    if len(tcs) == 0:
        tcs = np.array([max(guess, tt[-1])])
    Ts = np.geomspace(durations[0], durations[1], 48)
    TC, TT = np.meshgrid(tcs, Ts, indexing="ij")
    rss, _ = _fit_ends(tt, xy, TC.ravel(), TT.ravel())
    k = int(np.argmin(rss))
    x0 = np.array([TC.ravel()[k], TT.ravel()[k]])
    from scipy.optimize import least_squares

    def residuals(p: np.ndarray) -> np.ndarray:
        # variable projection: the end points are solved linearly for every (tc, T)
        tc_, T_ = p[0], max(p[1], 0.05)
        _, p_end = _fit_ends(tt, xy, np.array([tc_]), np.array([T_]))
        e = min_jerk((tt - (tc_ - T_)) / T_)
        a = 1.0 - e
        saa, sae, see = (a * a).sum(), (a * e).sum(), (e * e).sum()
        det = saa * see - sae * sae
        if det <= 1e-9:
            return np.full(2 * len(tt), 1e3)
        p_start = (see * (a @ xy) - sae * (e @ xy)) / det
        return (a[:, None] * p_start + e[:, None] * p_end[0] - xy).ravel()

    fit = least_squares(residuals, x0, x_scale=[0.01, 0.05], diff_step=1e-5, method="lm")
    tc = float(fit.x[0])
    n = len(tt)
    dof = max(2 * n - 6, 1)
    var = max(float((fit.fun**2).sum()) / dof, noise_floor_mm**2)
    try:
        cov = np.linalg.inv(fit.jac.T @ fit.jac) * var
        sigma = math.sqrt(max(cov[0, 0], 0.0))
    except np.linalg.LinAlgError:
        sigma = window
    if not math.isfinite(sigma):
        sigma = window
    # the end of the reach after the last sample was not seen: extrapolated, so model error counts
    seen_t = tt if seen is None else np.asarray(seen, dtype=np.float64) - t0
    before = seen_t[seen_t <= tc]
    last_seen = max(float(before.max()) if len(before) else float(tt[-1]), float(tt[-1]))
    # seen in the frame just before contact: nothing was missed (contact always falls between
    # frames); the frame interval counts only when frames were hidden
    gap = (tc - last_seen) - (float(np.median(np.diff(seen_t))) if seen is not None and len(seen_t) > 1 else 0.0)
    sigma_ms = min(max(honest_sigma_ms(sigma * 1000.0, gap, dof), MIN_UNCERTAINTY_MS), window * 1000)
    T = max(float(fit.x[1]), 0.05)
    _, p_end = _fit_ends(tt, xy, np.array([tc]), np.array([T]))
    e = min_jerk((tt - (tc - T)) / T)
    a = 1.0 - e
    det = (a * a).sum() * (e * e).sum() - (a * e).sum() ** 2
    p_start = ((e * e).sum() * (a @ xy) - (a * e).sum() * (e @ xy)) / det if det > 1e-9 else xy[0]
    return ContactEstimate(t=float(tc + t0), uncertainty_ms=float(sigma_ms), rms_mm=math.sqrt(var),
                           end=(float(p_end[0, 0]), float(p_end[0, 1])),
                           start=(float(p_start[0]), float(p_start[1])), duration=T)


def last_pause(times: np.ndarray, positions: np.ndarray, rest_index: int, rest_pos: np.ndarray,
               rest_mm: float = 8.0, ratio: float = 0.35, min_peak_mm_s: float = 250.0) -> int | None:
    """Index where the final move began if the hand slowed almost to a stop before it (hovering
    over the pile before putting the card down), or ``None`` for one continuous reach.

    Walking back from the rest through the final move, the speed first rises to the move's peak;
    a later (earlier in time) drop below ``ratio`` of that peak is the pause between two moves.
    """
    p, t = positions, times
    j = rest_index - 1
    while j > 0 and np.linalg.norm(p[j] - rest_pos) <= rest_mm:
        j -= 1
    def speed(k: int) -> float:
        dt = t[k] - t[k - 1]
        return float(np.linalg.norm(p[k] - p[k - 1]) / dt) if dt > 0 else 0.0

    peak = 0.0
    for k in range(min(j + 1, len(t) - 1), 0, -1):
        v = speed(k)
        if peak >= min_peak_mm_s and v < ratio * peak:
            if k >= rest_index:
                return None
            # a pause only if the hand was moving before it (a first reach); the slow start of a
            # single reach is not a pause
            if any(speed(m) > max(2 * v, min_peak_mm_s) for m in range(k - 1, 0, -1)):
                return k
            return None
        peak = max(peak, v)
    return None


def slide_start(times: np.ndarray, positions: np.ndarray, rest_index: int, min_slide_mm: float = 3.0,
                max_slide_mm: float = 30.0, lookback: int = 10) -> int | None:
    """Index of the contact when the card slid a little after touching (the reach ends at rest on
    the pile, then the let-go card slides): the speed minimum between the reach and the slide,
    a few millimetres short of where the card finally rests; ``None`` when there was no slide."""
    p, t = positions, times
    rest = p[rest_index]

    def speed(k: int) -> float:
        dt = t[k] - t[k - 1]
        return float(np.linalg.norm(p[k] - p[k - 1]) / dt) if dt > 0 else 0.0

    lo = max(rest_index - lookback, 2)
    best = None
    for k in range(rest_index - 1, lo - 1, -1):
        gap = float(np.linalg.norm(p[k] - rest))
        if gap > max_slide_mm:
            break
        if gap < min_slide_mm:
            continue
        v = speed(k)
        after = max((speed(m) for m in range(k + 1, rest_index + 1)), default=0.0)
        before = speed(k - 1)
        # a dip: slower than the slide after it and than the reach before it
        if after > 1.8 * v + 20.0 and before > v and (best is None or v < best[1]):
            best = (k, v)
    return best[0] if best else None


def _fit_fixed_ends(t: np.ndarray, xy: np.ndarray, p0: np.ndarray, p1: np.ndarray, lo: float, hi: float,
                    noise_floor_mm: float = 0.7) -> ContactEstimate:
    """A minimum-jerk move from ``p0`` (at rest) to ``p1`` fitted for its end time and duration only:
    enough for a short final move seen in two or three frames."""
    tcs = np.arange(lo, hi, 0.001)
    Ts = np.geomspace(0.04, 0.8, 60)
    TC, TT = np.meshgrid(tcs, Ts, indexing="ij")
    e = min_jerk((t[None, None, :] - (TC - TT)[:, :, None]) / TT[:, :, None])
    pred = p0[None, None, None, :] + (p1 - p0)[None, None, None, :] * e[..., None]
    rss = ((pred - xy[None, None, :, :]) ** 2).sum(axis=(2, 3))
    best = np.unravel_index(int(np.argmin(rss)), rss.shape)
    rss_min = float(rss[best])
    dof = max(2 * len(t) - 2, 1)
    var = max(rss_min / dof, noise_floor_mm**2)
    profile = rss.min(axis=1)  # best duration for each end time
    inside = tcs[profile <= rss_min + var]
    sigma = (inside.max() - inside.min()) / 2 if len(inside) else 0.001
    tc = float(tcs[best[0]])
    # a move seen in two or three frames: the contact is only bracketed by the frames around it
    period = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    sigma_ms = math.hypot(honest_sigma_ms(sigma * 1000.0, 0.0, dof), period * 1000.0 / math.sqrt(12))
    return ContactEstimate(tc, max(sigma_ms, MIN_UNCERTAINTY_MS), math.sqrt(var), (float(p1[0]), float(p1[1])),
                           (float(p0[0]), float(p0[1])), float(Ts[best[1]]))


def estimate_for_track(times: np.ndarray, positions: np.ndarray, rest_index: int, fps: float,
                       rest_mm: float = 8.0, max_samples: int = 24,
                       rest_pos: np.ndarray | None = None) -> ContactEstimate:
    """Contact of a track that came to rest at sample ``rest_index`` (its first sample at rest).

    The approach samples are those before the rest that lie farther than ``rest_mm`` from the
    resting position (nearer samples may already be the slide after contact; in a contest, where
    two copies converge and a tracker may swap them at the end, pass a larger ``rest_mm`` to fit
    only the unambiguous part of each reach). If the hand paused before the final move, only that
    move is fitted (with its known start, the pause, when it is seen in too few frames for a free
    fit). Tracks too short for any fit fall back to the midpoint of the last interval before the
    rest, with the uncertainty of a uniform interval.
    """
    if rest_pos is None:
        rest_pos = np.median(positions[rest_index : rest_index + 3], axis=0)
    rest_pos = np.asarray(rest_pos, dtype=np.float64)
    slide = slide_start(times, positions, rest_index)
    if slide is not None:
        # the reach ended (contact) where the slide began: fit the reach up to there, slow end included
        a = max(slide - max_samples, 0)
        pause = last_pause(times, positions, slide, positions[slide], rest_mm)
        if pause is not None and pause >= a:
            a = pause
        sel = np.arange(a, slide + 1)
        if len(sel) >= 5:
            try:
                return estimate_contact(times[sel], positions[sel], end_guess=float(times[slide]), seen=times)
            except ValueError:
                pass
    a = max(rest_index - max_samples, 0)
    pause = last_pause(times, positions, rest_index, rest_pos, rest_mm)
    if pause is not None and pause >= a:
        a = pause
    d = np.linalg.norm(positions[a:rest_index] - rest_pos, axis=1)
    idx = np.nonzero(d > rest_mm)[0] + a
    period = 1.0 / fps
    if len(idx) >= 4:
        try:
            return estimate_contact(times[idx], positions[idx], end_guess=float(times[rest_index]), seen=times)
        except ValueError:
            pass
    if pause is not None:
        p0 = np.median(positions[max(pause - 1, 0) : pause + 1], axis=0)
        sel = np.arange(pause, min(rest_index + 2, len(times)))
        return _fit_fixed_ends(times[sel], positions[sel], p0, rest_pos, lo=float(times[pause]),
                               hi=float(times[rest_index]) + 0.5 * period)
    prev = times[rest_index - 1] if rest_index > 0 else times[rest_index] - period
    mid = (prev + times[rest_index]) / 2
    return ContactEstimate(mid, max((times[rest_index] - prev) / math.sqrt(12) * 1000, MIN_UNCERTAINTY_MS), 0.0,
                           (float(rest_pos[0]), float(rest_pos[1])))


def _norm_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def order_with_occlusion(first: ContactEstimate, second: ContactEstimate,
                         reliability: float = 0.97) -> tuple[ContactEstimate, ContactEstimate]:
    """Fold in "``first`` lies underneath ``second``" (so it touched first, with ``reliability``).

    The gap ``g = t_second - t_first`` has the timing estimate ``N(ĝ, s²)``; the occlusion cue says
    ``g > 0`` with probability ``reliability``. The posterior probability that ``first`` really was
    first, ``P``, is what the referee should see: its order confidence is ``Φ(gap / sigma)``, so
    the returned estimates keep their midpoint, put the gap at the posterior's typical size (at
    least the timing estimate's), and state uncertainties with ``Φ(gap / combined) = P``. A cue that
    contradicts decisive timing leaves the timing as it is.

    >>> a, b = ContactEstimate(1.000, 8.0, 1.0), ContactEstimate(1.004, 8.0, 1.0)
    >>> a2, b2 = order_with_occlusion(a, b, reliability=0.995)
    >>> b2.t > a2.t, round(_norm_cdf((b2.t - a2.t) * 1000 / math.hypot(a2.uncertainty_ms, b2.uncertainty_ms)), 3)
    (True, 0.997)
    """
    s = math.hypot(first.uncertainty_ms, second.uncertainty_ms) / 1000.0
    g = second.t - first.t
    if s <= 0:
        return first, second
    p_timing = _norm_cdf(g / s)  # timing alone: P(first was first)
    if p_timing < 0.02:
        return first, second  # decisive timing against the cue: trust the clock, keep as measured
    w_pos = reliability * p_timing
    w_neg = (1 - reliability) * (1 - p_timing)
    p_first = w_pos / (w_pos + w_neg)
    p_first = min(max(p_first, 0.5 + 1e-6), 1 - 1e-9)
    z = NormalDist().inv_cdf(p_first)
    # typical gap under the posterior: the timing gap if positive, else the mean of N(0, s) given > 0
    gap = max(g, s * math.sqrt(2 / math.pi) * 0.5, 0.0005)
    u = gap / z / math.sqrt(2) * 1000.0
    # a weak cue leaves the order near even (z -> 0): "can't tell" is what the timing alone said
    u = min(u, max(first.uncertainty_ms, second.uncertainty_ms, gap * 1000.0))
    mid = (first.t + second.t) / 2
    return first.shifted(mid - gap / 2, u), second.shifted(mid + gap / 2, u)
