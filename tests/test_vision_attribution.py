"""Attribution cues: the arm that reached a spot (motion blobs touching the watched area's edge)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.attribution import ArmWatcher

MM_PER_PX = 4.0
ORIGIN = np.array([100.0, 100.0])


def _to_mm(p):
    return np.asarray(p, dtype=np.float64) * MM_PER_PX + ORIGIN


def _mask():
    return np.zeros((60, 100), bool)  # 400 x 240 mm seen at 4 mm per pixel


def test_the_arm_reaching_a_spot_enters_from_its_players_side():
    arms = ArmWatcher()
    m = _mask()
    m[28:33, 0:50] = True  # an arm from the left edge to (50, 30) px
    m[29:31, 22:25] = False  # a gap in the blob (the sleeve as bright as the cloth): still one arm
    arms.update(1.0, m, _to_mm)
    x, y = arms.entry((300.0, 220.0), 0.9, 1.1)  # the spot at the hand: (50, 30) px
    assert x < 120 and abs(y - 222) < 10  # entered at the left edge, at the arm's height
    assert arms.entry((300.0, 220.0), 1.2, 1.5) is None  # no frame in that window
    assert arms.entry((300.0, 300.0), 0.9, 1.1) is None  # nothing there: a card alone says nothing


def test_two_arms_in_one_blob_or_a_blob_off_the_edge_say_nothing():
    arms = ArmWatcher()
    m = _mask()
    m[28:33, 0:50] = True  # from the left...
    m[0:30, 46:51] = True  # ...and from the top, meeting at the spot
    arms.update(1.0, m, _to_mm)
    assert arms.entry((300.0, 220.0), 0.9, 1.1) is None
    alone = _mask()
    alone[20:40, 40:60] = True  # a card that moved, no arm attached
    arms.update(2.0, alone, _to_mm)
    assert arms.entry((300.0, 220.0), 1.9, 2.1) is None


def test_old_frames_are_forgotten():
    arms = ArmWatcher(keep_s=1.0)
    m = _mask()
    m[28:33, 0:50] = True
    arms.update(1.0, m, _to_mm)
    arms.update(2.5, _mask(), _to_mm)
    assert arms.entry((300.0, 220.0), 0.0, 3.0) is None


def test_the_arm_arrival_is_the_first_of_consecutive_frames_it_covers_the_spot():
    arms = ArmWatcher()
    for k in range(12):
        m = _mask()
        reach = min(10 + 8 * k, 50)  # the arm grows from the left edge towards the spot at x=50 px
        m[28:33, 0:reach] = True
        if k == 2:
            m[29:31, 45:50] = True  # one stray frame does not count as arriving
        arms.update(1.0 + k / 30, m, _to_mm)
    t = arms.arrival((300.0, 220.0), 0.5, 2.0)
    assert t == 1.0 + 5 / 30  # reach = 50 px from the sixth frame on
    assert arms.arrival((300.0, 220.0), 0.5, 1.1) is None


def test_an_arm_that_came_before_a_given_moment_is_passed_over_and_a_later_one_found():
    """``since``: the arm of the card underneath (there from 1.0 s, withdrawing till 1.5 s) is not
    the one that brought the card on it; the later arm from the same side is, once the first left
    (across its edge: an arm that lay still at the spot would be the first one moving again)."""
    arms = ArmWatcher()
    spot = (300.0, 220.0)  # (50, 30) px
    for k in range(40):
        t = 1.0 + k / 30
        m = _mask()
        if k < 15 or 24 <= k < 34:
            m[28:33, 0:50] = True  # the left arm: a first reach, gone, a second reach at 1.8 s
        elif k < 18:
            m[28:33, 0:30 - 8 * (k - 15)] = True  # (going out)
        if 18 <= k < 30:
            m[0:20, 70:75] = True  # an arm from the top elsewhere (not at the spot)
        arms.update(t, m, _to_mm)
    # without: the arm already there (since the first frame kept: when it came is unknown)
    assert arms.arrival(spot, 1.2, 2.3) == 1.2
    assert arms.arrival(spot, 1.2, 2.3, since=1.1) == 1.8
    assert [round(t, 3) for t, _ in arms.reaches(spot, 1.2, 2.3)] == [1.2]
    assert [round(t, 3) for t, _ in arms.reaches(spot, 1.2, 2.3, since=1.1)] == [1.8]
    assert arms.reaches(spot, 1.2, 1.7, since=1.1) == []  # only the first arm was there by then


def test_a_hand_whose_still_forearm_left_the_changed_pixels_is_followed_to_where_the_arm_came_in():
    def reach(watcher):
        watcher.update(0.95, _mask(), _to_mm)  # nothing there yet
        for k in range(6):  # the arm comes in from the left edge to the spot...
            m = _mask()
            m[28:33, 0:50] = True
            watcher.update(1.0 + k / 30, m, _to_mm)
        for k in range(6, 12):  # ...then rests: only the hand at the spot still changes
            m = _mask()
            m[27:34, 38:54] = True
            watcher.update(1.0 + k / 30, m, _to_mm)

    arms = ArmWatcher()
    reach(arms)
    x, y = arms.entry((300.0, 220.0), 1.19, 1.4)  # only the hand's frames
    assert x < 120 and abs(y - 222) < 10
    assert [round(t, 3) for t, _ in arms.reaches((300.0, 220.0), 0.9, 1.4)] == [1.0]
    # without the trail the hand alone reaches no edge: nothing to say
    bare = ArmWatcher(trail_s=0.0)
    reach(bare)
    assert bare.entry((300.0, 220.0), 1.19, 1.4) is None
    # a blob that never touched an edge, before or now (a card moved), still says nothing
    lone = ArmWatcher()
    for k in range(12):
        m = _mask()
        m[27:34, 38:54] = True
        lone.update(1.0 + k / 30, m, _to_mm)
    assert lone.entry((300.0, 220.0), 0.9, 1.5) is None


def test_each_arm_leaves_the_spot_when_its_blob_last_crossed_its_side():
    arms = ArmWatcher()
    spot = (300.0, 220.0)  # (50, 30) px
    for k in range(24):
        t = 1.0 + k / 30
        m = _mask()
        if k < 6:
            m[28:33, 0:50] = True  # the left arm puts its card down, then leaves
        if 3 <= k < 6 or 15 <= k < 18:
            m[0:30, 46:51] = True  # the top arm arrives, holds still (not changed), then goes
        arms.update(t, m, _to_mm)
    left = arms.departures(spot, 0.9, 2.0)
    assert set(left) == {"left", "top"}
    assert left["left"][0] == 1.0 + 5 / 30 and left["top"][0] == 1.0 + 17 / 30
    assert left["top"][1][1] < 120  # where the top arm crossed the top edge, in mm
    assert arms.departures(spot, 2.0, 3.0) == {}


def test_a_contests_arms_can_still_be_read_when_a_later_card_confirms_it():
    # a contest copy flagged for a weak read is confirmed by the next card on its pile, seconds
    # later: the arms that came and left then are still there to say who took a copy back
    arms = ArmWatcher()
    spot = (300.0, 220.0)
    for k in range(30 * 12):
        m = _mask()
        if k < 6:
            m[28:33, 0:50] = True  # the left arm puts its card down and leaves
        if 3 <= k < 6 or 15 <= k < 18:
            m[0:30, 46:51] = True  # the top arm comes, rests, lifts its copy and goes
        arms.update(1.0 + k / 30, m, _to_mm)
    assert set(arms.departures(spot, 0.9, 2.0)) == {"left", "top"}


def test_a_hand_that_rests_then_moves_again_is_a_lift_one_that_keeps_moving_is_not():
    spot = (300.0, 220.0)  # (50, 30) px

    def clip(rest_frames):
        arms = ArmWatcher()
        for k in range(20):
            m = _mask()
            if k < 5 or k >= 5 + rest_frames:
                m[0:34, 44:56] = True  # the top arm at the spot (moving), or still: no change
            if k >= 5 + rest_frames + 4:
                m[:] = False  # gone
            arms.update(1.0 + k / 30, m, _to_mm)
        return arms

    start, end, where = clip(rest_frames=4).last_move(spot, 0.9, 2.0)
    assert (start, end) == (1.0 + 9 / 30, 1.0 + 12 / 30) and where[1] < 120  # towards the top edge
    assert clip(rest_frames=0).last_move(spot, 0.9, 2.0) is None  # one continuous movement
    assert clip(rest_frames=4).last_move((600.0, 300.0), 0.9, 2.0) is None  # nothing at that spot


def test_a_hand_that_rests_a_single_frame_before_lifting_is_a_lift():
    # a hand waiting on a pile to take its copy back shifts its grip: the spot goes quiet for one
    # frame only, between the other arm leaving and the lift
    spot = (300.0, 220.0)
    arms = ArmWatcher()
    for k in range(20):
        m = _mask()
        if k < 5 or 6 <= k < 10:
            m[0:34, 44:56] = True  # at the spot and moving, still for frame 5, then lifting
        arms.update(1.0 + k / 30, m, _to_mm)
    start, end, where = arms.last_move(spot, 0.9, 2.0)
    assert (start, end) == (1.0 + 6 / 30, 1.0 + 9 / 30) and where[1] < 120
    assert arms.last_move(spot, 0.9, 2.0, quiet_frames=2) is None  # the stricter reading sees no rest


def _four_seats():
    from vision.config import VisionConfig

    return VisionConfig.from_dict({"zones": {"table_mm": [1200, 900]},
                                   "players": [{"name": n, "seat": k} for k, n in enumerate(["ana", "ben", "cy", "dee"])]})


def _indices_of_a_card_put_down_by(attributor, player, centre=(600.0, 450.0), turn_deg=0.0):
    """The two corner indices (table mm) of a card its player put down facing them (its top towards
    the table centre, turned a little by ``turn_deg``), as the detector finds them."""
    import math

    from vision.sources import INDEX_TO_CENTRE_MM, IndexSeen

    ax, ay = attributor.anchors[player]
    up = math.atan2(450.0 - ay, 600.0 - ax) + math.radians(turn_deg)  # the card's top points this way
    right = up + math.pi / 2  # y points down the table: a quarter turn clockwise
    dx, dy = INDEX_TO_CENTRE_MM  # from the top-left index to the centre, in the card's own axes
    off = (dx * math.cos(right) - dy * math.cos(up), dx * math.sin(right) - dy * math.sin(up))
    return [IndexSeen("5H", 0.9, centre[0] - off[0], centre[1] - off[1], 10, 16, None),
            IndexSeen("5H", 0.9, centre[0] + off[0], centre[1] + off[1], 10, 16, None)]


def test_the_way_a_card_lies_names_the_seats_it_can_have_come_from():
    from vision.attribution import Attributor
    from vision.sources import pair_indices

    att = Attributor(_four_seats())
    for player, across, beside in (("ana", "cy", "ben"), ("ben", "dee", "cy"), ("cy", "ana", "dee")):
        for turn in (-15.0, 0.0, 20.0):  # nobody puts a card down exactly square
            (sighting, members), = pair_indices(_indices_of_a_card_put_down_by(att, player, turn_deg=turn))
            assert len(members) == 2
            assert att.fits_axis(player, sighting.axis_deg)
            assert att.fits_axis(across, sighting.axis_deg)  # the seat opposite: the same line
            assert not att.fits_axis(beside, sighting.axis_deg)
    assert att.tells_apart("ana", "ben") and not att.tells_apart("ana", "cy")
    assert att.fits_axis("ana", None)  # unknown: no veto


def test_a_path_between_two_seats_is_settled_by_the_way_the_card_lies():
    from vision.attribution import Attributor

    att = Attributor(_four_seats())
    # came in along the diagonal between ana (bottom) and ben (left): the path alone hesitates
    origin, rest = (350.0, 700.0), (600.0, 450.0)
    assert att.from_path(origin, rest)[1] < 0.2
    assert att.attribute(origin, rest, axis=att.axes["ben"])[0] == "ben"
    assert att.attribute(origin, rest, axis=att.axes["ana"])[0] == "ana"


def test_an_arm_whose_root_settled_is_still_found_beside_the_other_arm_in_its_blob():
    """A long reach from the left whose forearm by the edge went still (the motion reference took
    it) joins, at the pile, the blob of an arm crossing the bottom edge: both arms reached the
    pile. A hand-sized blob beside the spot is no second arm."""
    spot = (700.0, 340.0)  # (150, 60) px of an 800 x 480 mm area

    def watcher(second_arm):
        arms = ArmWatcher()
        for k in range(6):
            m = np.zeros((120, 200), bool)
            m[60:120, 148:153] = True  # from the bottom edge up to the spot
            if second_arm:
                m[58:63, 40:150] = True  # from 160 mm inside the left edge to the spot
            else:
                m[55:66, 125:150] = True  # a hand and card beside the spot, no arm to it
            arms.update(1.0 + k / 30, m, _to_mm)
        return arms

    both = watcher(True)
    assert sorted(side for side in both.departures(spot, 0.9, 1.5)) == ["bottom", "left"]
    reached = both.reaches(spot, 0.9, 1.5)
    assert [t for t, _ in reached] == [1.0, 1.0]
    (left,) = [where for _, where in reached if where[1] < 400]  # the line towards the left side's middle
    assert left[0] < 500 and abs(left[1] - spot[1]) < 40
    assert any(where[1] > 450 for _, where in reached)  # where the other crosses the bottom edge
    assert both.entry(spot, 0.9, 1.5)[1] > 450  # the entry is still the crossing arm's (unchanged)
    one = watcher(False)
    assert [where[1] > 500 for _, where in one.reaches(spot, 0.9, 1.5)] == [True]


@pytest.mark.parametrize("ben", ["crossed her way", "reached the pile"])
def test_an_arm_that_only_crossed_the_trail_of_the_arm_at_the_spot_did_not_reach_it(ben):
    """Fresh 5617: ben's arm went out to another pile across the way cleo's arm then came in,
    and was drawn back; cleo's forearm went still, and her hand at the pile, followed through
    the changed pixels of the moment before, met ben's trail 220 mm from the spot and crossed
    the left edge too: a phantom second copy, ben's. One arm leaves the hand (the blob crosses
    a ring around the spot in one piece): only the side it runs to reached the spot. Had ben's
    arm come to the pile too, two arms leave the hands, and both reached it."""
    spot = (600.0, 500.0)  # (125, 100) px of a 1000 x 640 mm area: 240 mm or more from every side
    arms = ArmWatcher()
    ben_y = 45 if ben == "crossed her way" else 100
    for k in range(12):
        m = np.zeros((160, 250), bool)
        if k < 3:  # ben's arm out to (160, 45) px, or to the pile
            m[ben_y - 2:ben_y + 3, 0:160 if ben_y == 45 else 120] = True
        elif k < 6:  # ben's arm drawn back; cleo's comes in from the top edge
            m[ben_y - 2:ben_y + 3, 0:60] = True
            m[0:100, 123:128] = True
        else:  # cleo's forearm went still: her hand at the pile; ben's hand back at his edge
            m[95:106, 119:132] = True
            m[ben_y - 5:ben_y + 6, 0:12] = True
        arms.update(1.0 + k / 30, m, _to_mm)
    sides = sorted("left" if where[0] < 300 else "top" for _, where in arms.reaches(spot, 0.9, 1.5))
    assert sides == (["top"] if ben == "crossed her way" else ["left", "top"])


@pytest.mark.parametrize("devs_arm", [True, False])
def test_two_arms_joined_all_the_way_out_from_their_hands_both_reached_the_spot(devs_arm):
    """Dev clip 5576: an 8S contest, cleo's hand from the top and dev's from the right lying
    together on the pile, their arms one blob well out from it (the ring around the spot crossed
    in one piece, running between the two sides). Followed through the trail once the forearms
    went still, the hands still show both arms, so no one arm's entry names the card, as when
    cleo's arm came alone."""
    spot = (600.0, 500.0)  # (125, 100) px
    arms = ArmWatcher()
    for k in range(10):
        m = np.zeros((160, 250), bool)
        if k < 4:  # the arms come in, joined from the hands to 250 mm out
            m[0:100, 122:130] = True  # cleo's, from the top edge
            if devs_arm:
                m[95:103, 125:250] = True  # dev's, from the right edge
                m[40:100, 125:185] = True  # their hands and forearms together
        else:  # the forearms went still: the hands at the pile
            m[88:106, 118:140] = True
        arms.update(1.0 + k / 30, m, _to_mm)
    entry = arms.entry(spot, 1.12, 1.35)  # the frames of the hands alone
    if devs_arm:
        assert entry is None
    else:
        assert entry is not None and entry[1] < 120  # cleo's, at the top edge


@pytest.mark.parametrize("came_in", ["along its line", "elsewhere"])
def test_an_arm_whose_root_went_still_is_followed_through_where_it_came_in(came_in):
    """dev's arm crossed the left edge on its way in (0.1 s), then its root there went still while
    its hand met the other player's at the pile: the spot's blob crosses only the bottom edge,
    and runs most of the way towards the left one at a slant (no straight forearm towards the
    side's middle). Followed through where it moved just before, it crosses the left edge: a
    second arm (fresh clip 5580, a 3H contest whose dev copy was lost). An arm that came in
    across that edge somewhere else, not along the blob, is no root of it."""
    import cv2

    spot = (700.0, 340.0)  # (150, 60) px of an 800 x 480 mm area
    arms = ArmWatcher()
    for k in range(8):
        m = np.zeros((120, 200), np.uint8)
        m[60:120, 148:153] = 1  # ana's arm from the bottom edge up to the spot, all along
        if k < 3:  # dev's arm on its way in, short of the spot
            start, end = ((0, 10), (90, 40)) if came_in == "along its line" else ((0, 110), (40, 100))
        else:  # at the spot; its root by the edge out of the changed pixels
            start, end = (40, 23), (150, 60)
        cv2.line(m, start, end, 1, 5)
        arms.update(1.0 + k / 30, m.astype(bool), _to_mm)
    reached = arms.reaches(spot, 0.9, 1.3)
    sides = sorted("left" if where[0] < 200 else "bottom" for _, where in reached)
    assert sides == (["bottom", "left"] if came_in == "along its line" else ["bottom"])
    if came_in == "along its line":
        (t_left,) = [t for t, where in reached if where[0] < 200]
        assert t_left == pytest.approx(1.1)  # when it joined the spot's blob


def test_an_arm_turned_down_is_passed_over_and_a_later_one_from_its_side_found():
    """``keep``: the forearm of an arm reaching past from the bottom, read as an arm from the left
    (its point a ``Forearm``), is turned down; the real left arm, coming once that left, is found.
    Arms crossing the edge are no forearms."""
    from vision.attribution import Forearm

    spot = (700.0, 340.0)  # (150, 60) px of an 800 x 480 mm area
    arms = ArmWatcher()
    for k in range(40):
        m = np.zeros((120, 200), bool)
        if k < 12:
            m[60:120, 148:153] = True  # from the bottom edge up to the spot...
            m[58:63, 40:150] = True  # ...and on to the left, ending 160 mm inside the edge
        elif k >= 24:
            m[58:63, 0:150] = True  # an arm from the left edge to the spot
        arms.update(1.0 + k / 30, m, _to_mm)
    everything = arms.reaches(spot, 0.9, 2.4)
    assert sorted((round(t, 3), isinstance(w, Forearm)) for t, w in everything) == [(1.0, False), (1.0, True)]
    kept = arms.reaches(spot, 0.9, 2.4, keep=lambda t, where: not isinstance(where, Forearm))
    assert sorted((round(t, 3), isinstance(w, Forearm), w[0] < 150) for t, w in kept) == [(1.0, False, False), (1.8, False, True)]


@pytest.mark.parametrize("left_arm", ["resting", "coming", "back later"])
def test_a_hand_that_rested_at_the_spot_and_moves_again_is_no_arm_arriving(left_arm):
    """ben's arm put a card on the pile at 1.0 s and his hand rested there, still (out of the
    changed pixels), until 2.7 s; then it moved at the spot and his arm left across the left edge,
    as dev's arm came in from the right (fresh dev clip 5412: ben's withdrawal taken for his arm
    bringing dev's 4H, a contest). Looked for since ben's card, only dev's arm arrived. Had ben's
    arm come in across the left edge instead, beside another hand moving at the spot, or come
    back after his resting hand had left at 1.7 s, it arrived."""
    arms = ArmWatcher()
    spot = (300.0, 220.0)  # (50, 30) px
    for k in range(61):
        t = 1.0 + k / 30
        m = _mask()
        if k < 6 or k >= 54:
            m[28:33, 0:50] = True  # ben's arm: bringing his card, then leaving (or coming back)
        elif k < 9:
            m[27:34, 38:54] = True  # his hand letting go
        if 51 <= k < 54 or (left_arm == "back later" and 20 <= k < 23):
            m[24:36, 47:53] = True  # a hand moving at the spot, no arm crossing an edge
        if left_arm == "back later" and 23 <= k < 29:
            m[28:33, 0:50] = True  # (his resting hand leaving)
        if left_arm != "resting" and 46 <= k < 54:
            m[28:33, 0:min(5 * (k - 45), 40)] = True  # an arm coming in from the left edge
        if k >= 52:
            m[28:33, max(100 - 10 * (k - 51), 50):100] = True  # dev's arm coming from the right
        arms.update(t, m, _to_mm)
    found = [(round(t, 3), x < 200) for t, (x, _) in arms.reaches(spot, 2.3, 3.2, since=1.1)]
    if left_arm == "resting":
        assert found == [(2.867, False)]
    else:
        assert found == [(2.8, True), (2.867, False)]


@pytest.mark.parametrize("left_arm", ["resting", "coming"])
def test_a_hand_still_at_the_spot_since_before_it_was_looked_for_moves_again_without_coming(left_arm):
    """ben's arm put a card beside the spot at 1.0 s and his hand rested there, still (out of the
    changed pixels), until 3.0 s; meanwhile ana's arm came up from the bottom at 2.0 s and left.
    Moving again at 3.0 s, ben's hand and forearm showed at the spot, his edge still: it lay there,
    and came before the spot was looked for (fresh clip 6140: taken for his arm bringing ana's AC,
    first seen under it then). An arm that comes in shows at its edge first."""
    arms = ArmWatcher()
    spot = (700.0, 340.0)  # (150, 60) px of an 800 x 480 mm area, 600 mm from the left edge
    for k in range(66):
        t = 1.0 + k / 30
        m = np.zeros((120, 200), bool)
        if k < 6 or k >= 62:
            m[58:63, 0:150] = True  # ben's arm at the spot: bringing his card, later leaving
        elif k >= 60:
            # his hand and forearm lifting (resting), or his arm on its way in across his edge
            m[58:63, 60:150] = True if left_arm == "resting" else False
        if left_arm == "coming" and 54 <= k < 62:
            m[58:63, 0:min(20 * (k - 53), 150)] = True
        if 30 <= k < 36:
            m[60:120, 148:153] = True  # ana's arm from the bottom edge
        arms.update(t, m, _to_mm)
    found = [(round(t, 2), "ben" if x < 500 else "ana") for t, (x, _) in arms.reaches(spot, 2.2, 3.2)]
    if left_arm == "resting":
        assert len(found) == 1 and found[0][1] == "ben" and found[0][0] < 1.3  # (the first frame looked at)
    else:
        assert found == [(3.03, "ben")]
    assert [("ben" if x < 500 else "ana") for _, (x, _) in arms.reaches(spot, 1.3, 2.3)] == ["ana"]


@pytest.mark.parametrize("case", ["left", "rested", "flickered in"])
def test_the_way_out_of_an_arm_that_left_is_no_arm_for_the_next_hand_at_the_spot(case):
    # The left player's arm puts a card at the spot and draws back across its edge; a moment later
    # another hand comes to the spot (its own arm not yet joined to it in the changed pixels).
    # Joined to the left arm's trail, that hand seemed to cross the left edge: the left arm
    # "arriving" again, its next card timed from then (fresh clip 5649, 0.66 s early).
    arms = ArmWatcher()
    spot = (300.0, 220.0)  # (50, 30) px
    t = 1.0
    for _ in range(1 if case == "flickered in" else 6):  # the left arm at the spot
        m = _mask()
        m[28:33, 0:50] = True
        arms.update(t, m, _to_mm)
        t += 1 / 30
    for k in range(4):  # the spot empty...
        m = _mask()
        if case != "rested":  # ...the arm moving at the left edge (drawn back, or still coming:
            m[28:33, 0:30 - 6 * k] = True  # fresh 5501, ben's arm touched the spot a frame early)
        # (else the hand rests still at the spot, out of the changed pixels: it never left)
        arms.update(t, m, _to_mm)
        t += 1 / 30
    came = t
    for _ in range(4):  # another hand at the spot, within the trail of the left arm
        m = _mask()
        m[26:35, 44:56] = True
        arms.update(t, m, _to_mm)
        t += 1 / 30
    found = [round(tr, 3) for tr, _ in arms.reaches(spot, came, t, since=1.05)]
    # an arm that stayed and left is not back; one that rested there and moves again, or touched
    # the spot a frame on its way in, is (as before)
    assert found == ([] if case == "left" else [round(came, 3)])


@pytest.mark.parametrize("joined_frames", [2, 3])
def test_an_arm_seen_only_through_a_trail_shared_with_another_needs_a_frame_more(joined_frames):
    # The right player's arm came in and its root went still as its hand reached the spot; a
    # moment before, another arm moved in from the left edge and stopped short of the spot. The
    # hand's blob crosses no edge; through the trail it leads to both edges. The right arm stays in
    # the trail; the left one only for as long as its frames stay in it: two frames are the trail of
    # an arm that went elsewhere (fresh clip 5660: a phantom second copy of dev's 2C), three are
    # taken for a second arm whose root went still.
    arms = ArmWatcher()
    spot = (700.0, 340.0)  # (150, 60) px of an 800 x 480 mm area
    for t in (1.01, 1.04):  # the left arm, short of the spot
        m = np.zeros((120, 200), bool)
        m[57:63, 0:129] = True
        arms.update(t, m, _to_mm)
    first = 1.4 - (joined_frames - 2) / 30
    for k in (3, 2, 1):  # the right arm coming in, its hand not yet at the spot
        m = np.zeros((120, 200), bool)
        m[56:64, 171:200] = True
        arms.update(first - k / 30, m, _to_mm)
    for k in range(8):  # the hand at the spot, crossing no edge (the arm's root still)
        m = np.zeros((120, 200), bool)
        m[52:68, 132:168] = True
        arms.update(first + k / 30, m, _to_mm)
    found = sorted((round(t, 3), "left" if where[0] < 400 else "right") for t, where in arms.reaches(spot, 1.3, 1.7))
    right = (round(first, 3), "right")
    assert found == ([right] if joined_frames == 2 else [(round(first, 3), "left"), right])


@pytest.mark.parametrize("away_frames, visits", [(0, 1), (2, 1), (4, 2), (20, 2)])
def test_a_hand_that_left_the_spot_and_came_back_is_a_second_visit(away_frames, visits):
    """Between two plays a hand leaves the pile to fetch its next card: the spot empty for
    VISIT_GAP_FRAMES frames or more parts two visits; an arm flickering out a frame or two (or a
    hand resting on) is one. None where the kept frames do not reach back that far."""
    arms = ArmWatcher(trail_s=0.0)
    t = 1.0
    for k in range(8 + away_frames + 8 + 5):
        m = _mask()
        if k < 8 or 8 + away_frames <= k < 16 + away_frames:
            m[28:33, 0:50] = True  # an arm from the left edge, its hand at the spot (50, 30) px
        arms.update(t + k / 30, m, _to_mm)
    assert arms.visits((300.0, 220.0), 1.0, 9.0) == visits
    assert arms.visits((300.0, 220.0), 1.0 + 4 / 30, 9.0) == visits  # already there: counted
    assert arms.visits((300.0, 300.0), 1.0, 9.0) == 0  # no arm came there
    assert arms.visits((300.0, 220.0), 0.5, 9.0) is None  # from before the first frame kept


@pytest.mark.parametrize("own_frame", [None, 1])
def test_an_arm_seen_only_through_a_shared_trail_says_so(own_frame):
    """The arm found through a trail shared with another side is reported as a ``SharedTrail``
    (what it may bring is weighed more strictly), unless it was also seen crossing its own edge in
    the frames it was found by."""
    from vision.attribution import SharedTrail

    arms = ArmWatcher()
    spot = (700.0, 340.0)
    for t in (1.01, 1.04):  # the left arm, short of the spot
        m = np.zeros((120, 200), bool)
        m[57:63, 0:129] = True
        arms.update(t, m, _to_mm)
    for k in (3, 2, 1):  # the right arm coming in
        m = np.zeros((120, 200), bool)
        m[56:64, 171:200] = True
        arms.update(1.1 - k / 30, m, _to_mm)
    for k in range(8):  # the hand at the spot, crossing no edge; in one frame the left arm reaches it
        m = np.zeros((120, 200), bool)
        m[52:68, 132:168] = True
        if k == own_frame:
            m[57:63, 0:140] = True
        arms.update(1.1 + k / 30, m, _to_mm)
    (left,) = [where for _, where in arms.reaches(spot, 1.0, 1.5) if where[0] < 400]
    assert isinstance(left, SharedTrail) is (own_frame is None)


@pytest.mark.parametrize("between", ["rested", "went out and came back"])
def test_an_arm_resting_still_over_the_spot_and_moving_again_came_when_it_first_did(between):
    """dev's arm (from the right) reached over the pile at 1.0 s and lay there still, out of the
    changed pixels, for 0.8 s; moving back at 2.0 s it crossed its edge at once. It came at 1.0 s,
    before the card under it was looked for (fresh clip 5774: its withdrawal was taken for an arm
    bringing cleo's 6C, and the card was given to dev). An arm that went out across its edge and
    came back is a second arrival."""
    arms = ArmWatcher()
    spot = (300.0, 220.0)  # (50, 30) px
    for k in range(-6, 40):
        t = 1.0 + k / 30
        m = _mask()
        if 0 <= k < 6 or k >= 30:
            m[25:35, 45:100] = True  # the right arm over the spot: coming, then moving back
        elif between != "rested" and (k < 12 or k >= 24):
            m[25:35, 100 - 4 * (k - 5 if k < 12 else 30 - k):100] = True  # out of the spot, at its edge
        arms.update(t, m, _to_mm)
    found = [round(t, 3) for t, _ in arms.reaches(spot, 1.7, 2.3)]
    came_back = [round(t, 3) for t, _ in arms.reaches(spot, 1.7, 2.3, since=1.5)]
    if between == "rested":
        assert found == [1.0] and came_back == []
    else:
        assert found == [2.0] and came_back == [2.0]


@pytest.mark.parametrize("first_seen", ["drawing back", "reaching on", "had lain there"])
def test_an_arm_first_seen_with_its_hand_beyond_the_spot_came_back_from_beyond(first_seen):
    """dev's arm crossed a pile on its way back from one beyond, its hand on the far side: the blob
    crossed the right edge and ran on as a forearm towards the left seat, both at once in its first
    frame at the spot (fresh clips 5774, 5681: read as two arms, a phantom contest). No arm came
    there: his came back from beyond, his hand is no arm from the left. An arm reaching on past the
    spot comes to it with its hand there first, and its far part is still read as a forearm from
    the left (that reach is told by where cards land, PlayReader._passing_over). An arm that had
    lain still over the spot before drawing back is still the arm that came then."""
    arms = ArmWatcher()
    spot = (700.0, 340.0)  # (150, 60) px of an 800 x 480 mm area
    for k in range(-6, 30):
        m = np.zeros((120, 200), bool)
        tip = None
        if first_seen == "reaching on" and k >= 18:
            tip = max(150 - 12 * (k - 18), 60)
        elif k >= 18:
            tip = 60 + 8 * (k - 18)
        elif first_seen == "had lain there" and 0 <= k < 6:
            tip = max(150 - 12 * k, 90)  # (then still, out of the changed pixels)
        if tip is not None:
            m[55:66, tip:200] = True  # from the right edge over the spot to the hand
        arms.update(1.0 + k / 30, m, _to_mm)
    found = sorted((round(t, 3), "left" if where[0] < spot[0] else "right")
                   for t, where in arms.reaches(spot, 1.5, 2.0))
    if first_seen == "drawing back":
        assert found == []
    elif first_seen == "had lain there":
        assert found == [(1.0, "right")]
    else:
        assert [side for _, side in found] == ["right", "left"] and found[0][0] == 1.6
