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
    from scipy.special import stdtrit  # Student's t quantile (lighter to import than scipy.stats)

    widen = float(stdtrit(max(dof, 1), 0.975) / 1.959964)
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
    if not 0 <= rest_index < len(t):
        raise ValueError(f"rest index {rest_index} outside the {len(t)} samples")
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

    This is the quick first estimate made when a card comes to rest; :func:`estimate_placement`
    (reach or reach + final move, with the pile as target) re-times the play when it is reported.
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
            est = estimate_contact(times[idx], positions[idx], end_guess=float(times[rest_index]), seen=times)
            # a card seen lying still was down by then (give or take the last slow millimetres of
            # the reach, which the rest test takes for rest): a reach fitted well past that is no
            # reach (a card that lay elsewhere for seconds, seen once on its way: dev clip 5381's
            # AC, timed 0.85 s after it was seen on the pile)
            if est.t <= times[rest_index] + 0.2:
                return est
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


CONTEST_CLOCK_OUTLIER = 0.5


def order_with_occlusion(first: ContactEstimate, second: ContactEstimate, reliability: float = 0.97,
                         clock_outlier: float = CONTEST_CLOCK_OUTLIER) -> tuple[ContactEstimate, ContactEstimate]:
    """Fold in "``first`` lies underneath ``second``" (so it touched first, with ``reliability``).

    The gap ``g = t_second - t_first`` has the timing estimate ``N(ĝ, s²)``; the occlusion cue says
    ``g > 0`` with probability ``reliability``. The posterior probability that ``first`` really was
    first, ``P``, is what the referee should see: its order confidence is ``Φ(gap / sigma)``, so
    the returned estimates keep their midpoint, put the gap at the posterior's typical size (at
    least the timing estimate's), and state uncertainties with ``Φ(gap / combined) = P``. The
    timing is taken as an outlier (no evidence) with ``clock_outlier``, so a cue against
    confident timing leaves the order near even (a tie), and a cue too weak to turn the order
    keeps the timing as it is.

    >>> a, b = ContactEstimate(1.000, 8.0, 1.0), ContactEstimate(1.004, 8.0, 1.0)
    >>> a2, b2 = order_with_occlusion(a, b, reliability=0.995)
    >>> b2.t > a2.t, round(_norm_cdf((b2.t - a2.t) * 1000 / math.hypot(a2.uncertainty_ms, b2.uncertainty_ms)), 3)
    (True, 0.996)
    """
    s = math.hypot(first.uncertainty_ms, second.uncertainty_ms) / 1000.0
    g = second.t - first.t
    if s <= 0:
        return first, second
    # timing alone: P(first was first). Contest copies' clocks have heavy tails (the copy under the
    # other is seen late, arms merge into one blob, staged hands wait beside the pile): on the 60 s
    # dev clips 29 of 72 contest copies (0.4) were timed more than 3 sigma off, so the gap of two
    # copies is off with ~0.64. A clock is trusted with 1 - CONTEST_CLOCK_OUTLIER (0.5: on the
    # cautious side of that) and otherwise says nothing: a clock against a cue of 0.99 makes a tie,
    # never a ruling against the cue; against a cue two ways confirmed (0.995), it is outweighed.
    p_timing = (1 - clock_outlier) * _norm_cdf(g / s) + clock_outlier / 2
    w_pos = reliability * p_timing
    w_neg = (1 - reliability) * (1 - p_timing)
    p_first = w_pos / (w_pos + w_neg)
    if p_first < 0.5:
        return first, second  # a weak cue that does not overturn the clock: keep it as measured
    p_first = min(max(p_first, 0.5 + 1e-6), 1 - 1e-9)
    z = NormalDist().inv_cdf(p_first)
    # typical gap under the posterior: the timing gap if positive, else the mean of N(0, s) given > 0
    gap = max(g, s * math.sqrt(2 / math.pi) * 0.5, 0.0005)
    u = gap / z / math.sqrt(2) * 1000.0
    # a weak cue leaves the order near even (z -> 0): "can't tell" is what the timing alone said
    u = min(u, max(first.uncertainty_ms, second.uncertainty_ms, gap * 1000.0))
    mid = (first.t + second.t) / 2
    return first.shifted(mid - gap / 2, u), second.shifted(mid + gap / 2, u)


# --- placement: reach, optional final move, slide -------------------------------------------------
# A card is often not put down in one reach: the hand brings it near the pile, then places it with
# a short final move (a hover, a wait for a gap between other hands, a correction), and a let-go
# card may slide a few millimetres. Fitted as one reach only, such a play is timed at the end of
# the reach, ~0.1 s before the real contact. :func:`fit_placement` fits both shapes, and the
# contact time's uncertainty comes from the profile of the fit over the contact time across both,
# so a path that cannot tell "one reach" from "reach + final move" says so in its sigma.

SLIDE_S = 0.10  # a let-go card's slide settles within about this long
SLIDE_MM = 3.0  # ... and moves it a few millimetres (1 sigma per axis); a longer move is a hand's
FINAL_MOVE_S, FINAL_MOVE_LOG_SD = 0.13, 0.35  # prior on a final placing move's duration
FINAL_MOVE_MIN_MM = 10.0  # ... and its length
MODEL_PENALTY = 20.0  # extra parameters of the two-move shape, in units of noise variance (BIC-like)


@dataclass(frozen=True)
class PlacementFit:
    t: float  # contact, s (posterior mean over the contact-time profile)
    sigma_ms: float  # 1 sigma from the profile (before model-error terms)
    two_moves: bool  # the best fit has a separate final move
    rss: float
    noise_mm: float
    end: tuple[float, float]
    start: tuple[float, float]
    duration: float  # of the final move (two moves) or the reach
    components: tuple = ()  # (t, sigma_ms, weight, two_moves) of each shape


def _design(t: np.ndarray, tc: np.ndarray, T1: np.ndarray, T2: np.ndarray, gap: np.ndarray,
            reach_end: np.ndarray | None = None) -> np.ndarray:
    """Columns [1, reach, final move, slide] at times ``t`` for every candidate; (k, n, 4).
    ``T2 == 0``: one reach ending at contact (its final-move column is dropped to zeros). The
    reach ends ``gap`` before the final move starts, or at ``reach_end`` when given."""
    one = T2 <= 0
    t2 = tc - T2  # final move starts
    t1 = np.where(one, tc, t2 - gap if reach_end is None else reach_end)  # reach ends
    e1 = min_jerk((t[None, :] - (t1 - T1)[:, None]) / T1[:, None])
    e2 = np.where(one[:, None], 0.0, min_jerk((t[None, :] - t2[:, None]) / np.maximum(T2, 1e-3)[:, None]))
    e3 = min_jerk((t[None, :] - tc[:, None]) / SLIDE_S)
    return np.stack([np.ones_like(e1), e1, e2, e3], axis=2)


SLIDE_PRIOR = 1.0 / SLIDE_MM**2  # ridge on the slide column (noise variance ~1 mm^2)


def _solve(X: np.ndarray, xy: np.ndarray, w: np.ndarray, ridge: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares for every candidate design, the slide (last column) held to a few
    millimetres by a Gaussian prior: (penalised rss (k,), coefficients (k, m, 2))."""
    m = X.shape[2]
    prior = np.full(m, ridge)
    prior[-1] = SLIDE_PRIOR
    XwT = (X * w[None, :, None]).transpose(0, 2, 1)
    A = XwT @ X + np.diag(prior)[None]
    b = XwT @ xy
    coef = np.linalg.solve(A, b)
    pred = X @ coef
    rss = (((pred - xy[None]) ** 2).sum(axis=2) * w[None, :]).sum(axis=1) + SLIDE_PRIOR * (coef[:, -1, :] ** 2).sum(axis=1)
    return rss, coef


def _shape_residuals(tt: np.ndarray, xy: np.ndarray, sw: np.ndarray, two: bool, gap: float):
    """Weighted residuals of one shape for the free times: (tc, T1) or (tc, T1, T2)."""
    def fun(p: np.ndarray) -> np.ndarray:
        tc, T1 = p[0], max(p[1], 0.05)
        T2 = max(p[2], 0.03) if two else 0.0
        X = _design(tt, np.array([tc]), np.array([T1]), np.array([T2]), np.array([gap if two else 0.0]))
        if not two:
            X = X[:, :, [0, 1, 3]]
        _, coef = _solve(X, xy, sw**2)
        res = X[0] @ coef[0] - xy
        return np.concatenate([(res * sw[:, None]).ravel(), math.sqrt(SLIDE_PRIOR) * coef[0, -1]])
    return fun


def fit_placement(t: np.ndarray, xy: np.ndarray, t_rest: float, weights: np.ndarray | None = None,
                  before_s: float = 0.40, noise_floor_mm: float = 0.7,
                  target: tuple[float, float] | None = None, target_mm: float = 8.0,
                  latest: float | None = None) -> PlacementFit:
    """Contact time of a card path ``t`` (s), ``xy`` (mm) that comes to rest at ``t_rest``.

    The samples should cover the approach and a few frames at rest. Two shapes are fitted: one
    minimum-jerk reach ending at contact, and a reach followed (after an optional pause) by a
    short final move ending at contact; both with a slide after contact. Each is refined by
    Levenberg-Marquardt from the best grid point; the contact time is the mixture of both shapes'
    Laplace approximations weighted by their evidence (a BIC-like penalty for the extra move), so
    a path that cannot tell the shapes apart states the spread between them as its uncertainty.
    ``weights``: per-sample inverse variance (relative), e.g. lower for samples under a hand.
    ``target``: where the pile lies, when known: the contact is on the pile (within ``target_mm``),
    so a reach that ends beside it (a hand waiting) is not the contact. ``latest``: the latest
    possible contact when the card was lost from view before it reached the pile.
    """
    from scipy.optimize import least_squares

    t = np.asarray(t, dtype=np.float64)
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    if len(t) < 5:
        raise ValueError(f"need at least 5 samples to fit a placement, got {len(t)}")
    w = np.ones(len(t)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / w.mean()
    sw = np.sqrt(w)
    t0 = t[0]
    tt = t - t0
    rest = t_rest - t0
    hi = max(min(rest + 0.10, tt[-1]), rest + 0.005)
    if latest is not None:
        hi = max(hi, latest - t0)
    tcs = np.arange(max(rest - before_s, tt[0] + 0.05), hi, 0.005)
    T1s = np.geomspace(0.15, 1.2, 9)
    T2s = np.array([0.0, 0.06, 0.09, 0.12, 0.16, 0.22])
    gaps = np.array([0.0, 0.15, 0.35])
    TC, A1, A2, G = (a.ravel() for a in np.meshgrid(tcs, T1s, T2s, gaps, indexing="ij"))
    keep = (A2 > 0) | (G == 0)  # the pause only exists between two moves
    TC, A1, A2, G = TC[keep], A1[keep], A2[keep], G[keep]
    rss, ccoef = _solve(_design(tt, TC, A1, A2, G), xy, w)
    n = len(tt)
    var0 = max(float(rss.min()) / max(2 * n - 9, 1), noise_floor_mm**2)  # noise level, for the priors
    # one reach: Levenberg-Marquardt from the best grid point, Laplace approximation for its sigma
    sel = np.nonzero(A2 == 0)[0]
    k = sel[int(np.argmin(rss[sel]))]
    x0 = np.array([TC[k], A1[k]])
    fun = _shape_residuals(tt, xy, sw, False, 0.0)
    x, r, J = x0, float(rss[k]), None
    try:
        fit = least_squares(fun, x0, x_scale=[0.01, 0.05], diff_step=1e-4, method="lm")
        if float((fit.fun**2).sum()) <= r:
            x, r, J = fit.x, float((fit.fun**2).sum()), fit.jac
    except (ValueError, np.linalg.LinAlgError):
        pass
    # two moves: the clipped profile of a short final move is too flat for Gauss-Newton, so a fine
    # grid around the best coarse point, marginalised over the final move's and reach's durations
    sel = np.nonzero(A2 > 0)[0]
    k2 = sel[int(np.argmin(rss[sel]))]
    tgt = None if target is None else np.asarray(target, dtype=np.float64)
    centre, T1c = float(TC[k2]), float(A1[k2])
    t1c = float(TC[k2] - A2[k2] - G[k2])  # where the coarse fit's reach ended
    fT2 = np.arange(0.04, 0.27, 0.015)

    def two_penalised(FC, F1, F2, FE):
        frss, fcoef = _solve(_design(tt, FC, F1, F2, np.zeros(len(FC)), reach_end=FE), xy, w)
        if tgt is not None:
            miss = fcoef[:, 0] + fcoef[:, 1] + fcoef[:, 2] - tgt[None]
            frss = frss + var0 * (miss**2).sum(axis=1) / target_mm**2
        # a final placing move lasts about a tenth of a second or two (log-normal prior) and
        # covers more than position noise and a slide: a few-millimetre "move" is not one
        frss = frss + var0 * (np.log(F2 / FINAL_MOVE_S) / FINAL_MOVE_LOG_SD) ** 2
        amp = np.linalg.norm(fcoef[:, 2], axis=1)
        return frss + var0 * (np.maximum(FINAL_MOVE_MIN_MM - amp, 0.0) / 2.0) ** 2

    for _ in range(3):
        ftc = np.arange(centre - 0.03, centre + 0.0301, 0.003)
        fT1 = T1c * np.array([0.75, 0.87, 1.0, 1.15, 1.33])
        fE = t1c + np.array([-0.05, -0.025, 0.0, 0.025, 0.05])
        FC, F1, F2, FE = (a.ravel() for a in np.meshgrid(ftc, fT1, fT2, fE, indexing="ij"))
        ok = FE <= FC - 0.02  # the reach ends before contact
        FC, F1, F2, FE = FC[ok], F1[ok], F2[ok], FE[ok]
        frss = two_penalised(FC, F1, F2, FE)
        kb2 = int(np.argmin(frss))
        if abs(FC[kb2] - centre) < 0.024 and F1[kb2] == T1c and FE[kb2] == t1c:
            break
        centre, T1c, t1c = float(FC[kb2]), float(F1[kb2]), float(FE[kb2])  # at the grid's edge: look again

    # the reach's duration matters to a few percent over a fast reach: refine all four times
    # continuously (as for the one-reach shape), then profile the contact time around the result
    def fun2(p: np.ndarray) -> np.ndarray:
        """Residuals whose sum of squares is ``two_penalised``: samples, slide, priors, target."""
        tc_, T1_, T2_ = p[0], max(p[1], 0.05), min(max(p[2], 0.03), 0.4)
        X = _design(tt, np.array([tc_]), np.array([T1_]), np.array([T2_]), np.zeros(1),
                    reach_end=np.array([min(p[3], tc_ - 0.02)]))
        _, coef = _solve(X, xy, w)
        c = coef[0]
        res = [((X[0] @ c - xy) * sw[:, None]).ravel(), math.sqrt(SLIDE_PRIOR) * c[-1],
               [math.sqrt(var0) * math.log(T2_ / FINAL_MOVE_S) / FINAL_MOVE_LOG_SD,
                math.sqrt(var0) * max(FINAL_MOVE_MIN_MM - float(np.linalg.norm(c[2])), 0.0) / 2.0]]
        if tgt is not None:
            res.append(math.sqrt(var0) * (c[0] + c[1] + c[2] - tgt) / target_mm)
        return np.concatenate(res)

    try:
        # two starts: the grid's best, and a final move of typical length ending as the card stops
        starts = [np.array([FC[kb2], F1[kb2], F2[kb2], FE[kb2]]),
                  np.array([rest, max(float(x[1]), 0.15), FINAL_MOVE_S, rest - FINAL_MOVE_S])]
        p2, best_v = None, float(frss[kb2])
        for p0 in starts:
            fit2 = least_squares(fun2, p0, x_scale=[0.01, 0.05, 0.02, 0.02], diff_step=1e-4, method="lm",
                                 max_nfev=25)
            v = float((fit2.fun**2).sum())
            if v < best_v:
                p2, best_v = fit2.x, v
        if p2 is not None:
            ftc = np.arange(p2[0] - 0.04, p2[0] + 0.0401, 0.002)
            FC, F2 = (a.ravel() for a in np.meshgrid(ftc, fT2, indexing="ij"))
            F1 = np.full(len(FC), max(p2[1], 0.05))
            FE = np.minimum(np.full(len(FC), p2[3]), FC - 0.02)
            frss = two_penalised(FC, F1, F2, FE)
            kb2 = int(np.argmin(frss))
    except (ValueError, np.linalg.LinAlgError):
        pass
    r2 = float(frss.min())
    var = max(min(r, r2) / max(2 * n - 9, 1), noise_floor_mm**2)
    sd1 = 0.05
    if J is not None:
        try:
            sd1 = math.sqrt(max(float(np.linalg.inv(J.T @ J)[0, 0] * var), 0.0))
        except np.linalg.LinAlgError:
            pass
    sd1 = min(sd1, 0.1) if math.isfinite(sd1) else 0.05
    if tgt is not None:
        X1 = _design(tt, np.array([x[0]]), np.array([max(x[1], 0.05)]), np.array([0.0]), np.array([0.0]))[:, :, [0, 1, 3]]
        _, c1 = _solve(X1, xy, w)
        r = r + var0 * float(((c1[0, 0] + c1[0, 1] - tgt) ** 2).sum()) / target_mm**2
    pw = np.exp(-(frss - r2) / (2 * var))
    pw /= pw.sum()
    mu2 = float((pw * FC).sum())
    sd2 = math.sqrt(max(float((pw * (FC - mu2) ** 2).sum()), 1e-8))
    # the fine grid spans +-30 ms; a final move hidden from view may lie anywhere in a longer
    # interval: the coarse grid's profile over the contact time (same priors) says how long
    two_c = A2 > 0
    crss = rss[two_c] + var0 * (np.log(A2[two_c] / FINAL_MOVE_S) / FINAL_MOVE_LOG_SD) ** 2
    crss = crss + var0 * (np.maximum(FINAL_MOVE_MIN_MM - np.linalg.norm(ccoef[two_c, 2], axis=1), 0.0) / 2.0) ** 2
    if tgt is not None:
        cm = ccoef[two_c, 0] + ccoef[two_c, 1] + ccoef[two_c, 2] - tgt[None]
        crss = crss + var0 * (cm**2).sum(axis=1) / target_mm**2
    ctc = TC[two_c]
    order = np.argsort(ctc)
    u_tc, first = np.unique(ctc[order], return_index=True)
    prof = np.minimum.reduceat(crss[order], first)
    pc = np.exp(-(prof - prof.min()) / (2 * var))
    pc /= pc.sum()
    mc = float((pc * u_tc).sum())
    sdc = math.sqrt(max(float((pc * (u_tc - mc) ** 2).sum()), 0.0))
    if sdc > sd2:  # the wide view is the honest one: its mean and spread
        mu2, sd2 = mc, sdc
    comps = [(r, float(x[0]), sd1, False, np.array([x[0], x[1]]), 0.0),
             (r2 + MODEL_PENALTY * var, mu2, sd2, True, np.array([FC[kb2], F1[kb2], F2[kb2]]), float(FE[kb2]))]
    s_min = min(c[0] for c in comps)
    wts = np.array([math.exp(-(c[0] - s_min) / (2 * var)) for c in comps])
    wts /= wts.sum()
    mus = np.array([c[1] for c in comps])
    sds = np.array([c[2] for c in comps])
    mean = float((wts * mus).sum())
    sd = math.sqrt(float((wts * (sds**2 + (mus - mean) ** 2)).sum()))
    best = comps[int(np.argmax(wts))]
    _, tc, _, two, x, gap = best
    T1 = max(float(x[1]), 0.05)
    T2 = max(float(x[2]), 0.03) if two else 0.0
    X = _design(tt, np.array([float(x[0])]), np.array([T1]), np.array([T2]), np.zeros(1),
                reach_end=np.array([gap]) if two else None)[0]
    _, coef = _solve(X[None], xy, w)
    coef = coef[0]
    end = coef[0] + coef[1] + coef[2]  # where the reach and final move ended: the contact point
    return PlacementFit(t=mean + t0, sigma_ms=sd * 1000.0, two_moves=two, rss=float(best[0]),
                        noise_mm=math.sqrt(var), end=(float(end[0]), float(end[1])),
                        start=(float(coef[0][0]), float(coef[0][1])), duration=T2 if two else T1,
                        components=tuple((float(c[1] + t0), float(c[2] * 1000), float(wt), c[3])
                                         for c, wt in zip(comps, wts)))


def estimate_placement(times: np.ndarray, positions: np.ndarray, rest_index: int, fps: float,
                       occluded: np.ndarray | None = None, target: tuple[float, float] | None = None,
                       window_s: float = 1.0, after: int = 6, latest: float | None = None) -> ContactEstimate | None:
    """:func:`fit_placement` on the samples from ``window_s`` before the rest to ``after`` samples
    into it, with an honest uncertainty (model floor, few samples, contact hidden from view);
    ``None`` when the path is too short to fit (the caller falls back to simpler cues)."""
    times = np.asarray(times, dtype=np.float64)
    positions = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
    if not 0 <= rest_index < len(times):
        raise ValueError(f"rest index {rest_index} outside the {len(times)} samples")
    t_rest = float(times[rest_index])
    idx = np.nonzero((times >= t_rest - window_s) & (np.arange(len(times)) <= rest_index + after))[0]
    if len(idx) < 6:
        return None
    moving = np.linalg.norm(positions[idx] - positions[rest_index], axis=1) > 8.0
    if moving.sum() < 3:
        return None  # never seen arriving: nothing to fit
    occ = np.zeros(len(idx)) if occluded is None else np.clip(np.asarray(occluded, dtype=np.float64)[idx], 0, 1)
    try:
        fit = fit_placement(times[idx], positions[idx], t_rest, weights=1.0 / (1.0 + 2.0 * occ) ** 2, target=target,
                            latest=latest)
    except (ValueError, np.linalg.LinAlgError):
        return None
    before = times[times <= fit.t]
    last_seen = float(before.max()) if len(before) else float(times[0])
    unseen = fit.t - last_seen - 1.0 / fps  # contact falls between frames: one interval is not "missed"
    sigma = max(honest_sigma_ms(fit.sigma_ms, unseen, max(2 * len(idx) - 9, 1)), MIN_UNCERTAINTY_MS)
    start = fit.start if not fit.two_moves else None
    return ContactEstimate(fit.t, float(sigma), fit.noise_mm, fit.end, start or fit.end, fit.duration)
