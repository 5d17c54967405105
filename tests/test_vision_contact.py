"""Contact time: sub-frame estimates that hold their stated uncertainty; occlusion as a second cue."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from vision.contact import (ContactEstimate, estimate_for_track, estimate_placement, fit_placement, last_pause, min_jerk,
                            order_with_occlusion)


def _reach(seed, noise_mm=0.7, fps=30.0, slide_mm=3.0, warp=1.0):
    rng = random.Random(seed)
    tc = 2.0 + rng.uniform(0, 1 / fps)  # contact anywhere between frames
    dur = rng.uniform(0.35, 0.8)
    start = np.array([rng.uniform(-400, 400), 450.0])
    end = np.array([0.0, 0.0])
    final = end + slide_mm * np.array([math.cos(seed), math.sin(seed)])
    times = np.arange(0, 3.0, 1 / fps)
    pos = []
    for t in times:
        if t < tc - dur:
            p = start
        elif t < tc:
            p = start + (end - start) * min_jerk(((t - tc + dur) / dur) ** warp)
        else:
            p = end + (final - end) * min_jerk((t - tc) / 0.15)
        pos.append(p + np.array([rng.gauss(0, noise_mm), rng.gauss(0, noise_mm)]))
    pos = np.array(pos)
    keep = np.abs(pos[:, 1]) < 250  # the camera's region sees only the end of the reach
    times, pos = times[keep], pos[keep]
    d = np.linalg.norm(pos - final, axis=1)
    rest = next(i for i in range(len(d)) if all(d[i:i + 3] < 4))
    return tc, times, pos, rest


def test_contact_is_timed_well_inside_the_frame_interval():
    errors, sigmas = [], []
    for seed in range(40):
        tc, times, pos, rest = _reach(seed)
        est = estimate_for_track(times, pos, rest, 30.0)
        errors.append(abs(est.t - tc) * 1000)
        sigmas.append(est.uncertainty_ms)
    assert np.median(errors) < 6.0  # the frame interval is 33 ms
    assert np.percentile(errors, 90) < 15.0
    # the stated 1-sigma is honest: errors beyond 3 sigma are rare
    assert np.mean(np.array(errors) > 3 * np.array(sigmas)) <= 0.05


def test_first_still_frame_would_be_a_poor_clock():
    tc, times, pos, rest = _reach(3)
    est = estimate_for_track(times, pos, rest, 30.0)
    assert abs(est.t - tc) < abs(times[rest] - tc)


def _order_confidence(first: ContactEstimate, second: ContactEstimate) -> float:
    z = (second.t - first.t) * 1000 / math.hypot(first.uncertainty_ms, second.uncertainty_ms)
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def test_occlusion_cue_sharpens_an_unsure_order_and_ties_against_a_clear_clock():
    a, b = ContactEstimate(1.000, 10.0, 1.0), ContactEstimate(1.002, 10.0, 1.0)
    a2, b2 = order_with_occlusion(a, b, reliability=0.99)
    assert b2.t > a2.t and _order_confidence(a2, b2) > 0.98
    assert (a2.t + b2.t) / 2 == pytest.approx(1.001)
    # a clock that agrees with a sure cue keeps (and firms up) its order
    a, b = ContactEstimate(1.000, 5.0, 1.0), ContactEstimate(1.030, 5.0, 1.0)
    a2, b2 = order_with_occlusion(a, b, reliability=0.99)
    assert _order_confidence(a2, b2) > 0.99
    # timing says clearly that b came first, the cue says a: contest clocks have heavy tails and
    # the cue is rarely wrong, so neither wins: the order is left near even, a tie for the
    # referee (under its 2-sigma line, 0.977), not a ruling either way
    a, b = ContactEstimate(1.100, 5.0, 1.0), ContactEstimate(1.000, 5.0, 1.0)
    a2, b2 = order_with_occlusion(a, b, reliability=0.99)
    assert 0.5 <= _order_confidence(a2, b2) < 0.977
    assert (a2.t + b2.t) / 2 == pytest.approx(1.05)
    # ... unless the clock is known to be near a coin toss (arm-timed copies of a contest whose
    # loser took a copy back: 69 right, 71 wrong, 59 level on 48 dev clips): then the cue
    # stands, over the referee's line, while a weaker cue (0.9) still makes a tie
    a2, b2 = order_with_occlusion(a, b, reliability=0.99, clock_outlier=0.8)
    assert b2.t > a2.t and 0.977 < _order_confidence(a2, b2) < 0.99
    a2, b2 = order_with_occlusion(a, b, reliability=0.9, clock_outlier=0.8)
    assert b2.t > a2.t and 0.5 <= _order_confidence(a2, b2) < 0.977
    # a weak cue against a clear clock keeps the clock as measured
    assert order_with_occlusion(a, b, reliability=0.6) == (a, b)


def test_an_occluded_contact_states_an_uncertainty_that_covers_its_error():
    """Hands hide the last frames of the reach: the contact is extrapolated, and the stated sigma
    must say so (|error| <= 2 sigma for nearly all plays) while a clean reach stays tight."""
    hidden_errors, hidden_sigmas, clean_sigmas = [], [], []
    for seed in range(30):
        tc, times, pos, rest = _reach(seed)
        clean_sigmas.append(estimate_for_track(times, pos, rest, 30.0).uncertainty_ms)
        # a real reach is not exactly minimum-jerk (here: a warped profile), and hands hide the
        # last ~3 frames before contact, so the contact is extrapolated with a mismatched model
        tc, times, pos, rest = _reach(seed, warp=0.8)
        seen = (times < tc - 0.09) | (times > tc + 0.2)
        times_h, pos_h = times[seen], pos[seen]
        rest_h = int(np.searchsorted(times_h, times[rest]))
        est = estimate_for_track(times_h, pos_h, rest_h, 30.0)
        hidden_errors.append(abs(est.t - tc) * 1000)
        hidden_sigmas.append(est.uncertainty_ms)
    covered = np.mean(np.array(hidden_errors) <= 2 * np.array(hidden_sigmas))
    assert covered >= 0.9, (covered, hidden_errors, hidden_sigmas)
    assert np.median(clean_sigmas) < 1000 / 30.0 / 2  # well-observed contacts keep sub-frame sigmas
    assert np.median(hidden_sigmas) > np.median(clean_sigmas)


def _hover_then_place(seed, hidden=(), fps=30.0, noise_mm=1.0):
    """A reach to a point ~30 mm short of the pile, then a 0.12 s final move onto it (a hand
    waiting its turn), a small slide after contact; ``hidden``: (t0, t1) spans no frame shows."""
    rng = random.Random(seed)
    tc = 2.0 + rng.uniform(0, 1 / fps)
    start, pile = np.array([rng.uniform(-400, 400), 450.0]), np.array([0.0, 0.0])
    near = pile + (start - pile) / np.linalg.norm(start - pile) * rng.uniform(25, 40)
    final = pile + np.array([rng.gauss(0, 3), rng.gauss(0, 3)])
    t_near, dur = tc - 0.12, rng.uniform(0.4, 0.7)
    times, pos = [], []
    for t in np.arange(1.0, 2.6, 1 / fps):
        if any(a <= t <= b for a, b in hidden):
            continue
        if t < t_near:
            p = start + (near - start) * min_jerk((t - t_near + dur) / dur)
        elif t < tc:
            p = near + (pile - near) * min_jerk((t - t_near) / 0.12)
        else:
            p = pile + (final - pile) * min_jerk((t - tc) / 0.1)
        times.append(t)
        pos.append(p + np.array([rng.gauss(0, noise_mm), rng.gauss(0, noise_mm)]))
    times, pos = np.array(times), np.array(pos)
    rest = int(np.searchsorted(times, tc))
    return tc, times, pos, min(rest, len(times) - 1), pile


def test_a_hand_that_waits_beside_the_pile_is_timed_at_its_final_move():
    """Fitting one reach would time such a play ~0.12 s early (at the end of the reach); the
    placement fit finds the final move and times the contact well inside the frame interval."""
    errors, sigmas = [], []
    for seed in range(12):
        tc, times, pos, rest, pile = _hover_then_place(seed)
        est = estimate_placement(times, pos, rest, 30.0, target=(float(pile[0]), float(pile[1])))
        errors.append(abs(est.t - tc) * 1000)
        sigmas.append(est.uncertainty_ms)
    assert np.median(errors) < 10 and max(errors) < 40, errors
    assert np.mean(np.array(errors) <= 2 * np.array(sigmas)) >= 0.9, (errors, sigmas)


def test_a_final_move_hidden_under_a_hand_is_stated_as_unsure():
    """The final move is not seen at all (the card vanishes at the waiting point and shows on the
    pile later): the contact lies somewhere in between, and the sigma says so."""
    covered, sigmas = 0, []
    for seed in range(12):
        tc, times, pos, rest, pile = _hover_then_place(seed, hidden=[(0, 0)])
        t_near = tc - 0.12
        _, times_h, pos_h, _, _ = _hover_then_place(seed, hidden=[(t_near - 0.01, tc + 0.15)])
        rest_h = int(np.searchsorted(times_h, tc))
        est = estimate_placement(times_h, pos_h, min(rest_h, len(times_h) - 1), 30.0,
                                 target=(float(pile[0]), float(pile[1])))
        covered += abs(est.t - tc) * 1000 <= 2 * est.uncertainty_ms
        sigmas.append(est.uncertainty_ms)
    assert covered >= 10, (covered, sigmas)
    assert np.median(sigmas) > 15  # not a confident sub-frame time


def test_a_one_reach_play_is_not_mistaken_for_two_moves():
    for seed in range(10):
        tc, times, pos, rest = _reach(seed)
        fit = fit_placement(times[max(rest - 30, 0):rest + 6], pos[max(rest - 30, 0):rest + 6], float(times[rest]))
        assert not fit.two_moves and abs(fit.t - tc) * 1000 < 10


def test_placement_and_pause_refuse_bad_input():
    with pytest.raises(ValueError, match="at least 5 samples"):
        fit_placement(np.arange(3) / 30, np.zeros((3, 2)), 0.1)
    with pytest.raises(ValueError, match="rest index"):
        last_pause(np.arange(5) / 30, np.zeros((5, 2)), 7, np.zeros(2))


def test_a_weak_occlusion_cue_against_the_clock_makes_no_confident_order():
    """The cue says a was first but timing leans to b: a weak cue must not make a sure order
    either way (the referee calls it a tie), nor move the pair's midpoint."""
    a, b = ContactEstimate(1.012, 20.0, 1.0), ContactEstimate(1.000, 20.0, 1.0)
    a2, b2 = order_with_occlusion(a, b, reliability=0.6)
    assert max(_order_confidence(a2, b2), _order_confidence(b2, a2)) < 0.977  # the referee ties
    assert (a2.t + b2.t) / 2 == pytest.approx(1.006)


def test_a_card_that_lay_still_elsewhere_and_was_seen_once_on_its_way_is_timed_before_it_rests():
    # read every 0.3-0.7 s while it lay still 180 mm from the pile (the motion gate looks at a
    # still spot rarely), once on its way, then on the pile: a reach fitted to those reads ran past
    # the first still read (dev clip 5381's AC, 0.85 s late); the card touched before it was seen there
    times = np.array([7.23, 7.53, 8.53, 9.03, 9.83, 10.33, 10.63, 10.93, 11.23, 11.93, 12.53, 12.63, 12.73])
    still = [[748.1, 181.7], [747.7, 181.2], [748.3, 181.9], [747.4, 180.6], [749.3, 181.4], [749.0, 181.0],
             [748.9, 181.2], [749.1, 180.9], [748.9, 181.2], [748.2, 180.9]]
    positions = np.array(still + [[609.3, 288.2], [616.2, 299.1], [615.6, 299.1]])
    est = estimate_for_track(times, positions, 11, 30.0)
    assert 11.93 < est.t <= 12.63 + 0.2
    assert est.uncertainty_ms > 0
