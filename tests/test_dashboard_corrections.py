"""Every correction the engine supports, from the Review pages' admin API (Flask test client), and
the Game page's live content (/game/body)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.eventlog import EventLog
from web_dashboard import sample
from web_dashboard.app import create_app

PIN = "1357"
CALL_SEQ, END_SEQ = 8, 9  # the sample's Nerts call by ana and round 1's end (ana 0, ben 5 left)


@pytest.fixture
def client(game):
    app = create_app(game, admin_pin=PIN, clock=lambda: 10.0, poll_interval=0.02)
    yield app.test_client()
    app.extensions["nerts"].store.close()


def csrf_of(client) -> str:
    return re.search(r'name="csrf-token" content="([^"]+)"', client.get("/live").get_data(as_text=True)).group(1)


@pytest.fixture
def admin(client):
    r = client.post("/login", data={"pin": PIN, "csrf_token": csrf_of(client), "next": "/live"})
    assert r.status_code == 303
    client.csrf = csrf_of(client)
    return client


def fix(client, seq, csrf=True, **body):
    headers = {"X-CSRF-Token": client.csrf} if csrf else {}
    return client.post(f"/api/review/{seq}/correct", json=body, headers=headers)


def events_of(game: Path) -> list[dict]:
    log = EventLog.open(game)
    try:
        return log.events()
    finally:
        log.close()


def totals(reply) -> dict:
    return {p["name"]: p["total"] for p in reply.get_json()["board"]["players"]}


def test_set_owner_set_card_and_set_pile_rescore_the_game(admin, game):
    # ana's 3H (seq 7) was ben's card
    r = fix(admin, 7, action="set_owner", player="ben", reason="blue back on the video")
    assert r.status_code == 200 and r.get_json()["ruling"]["player"] == "ben"
    assert totals(r) == {"ana": 2, "ben": -9}
    assert events_of(game)[-1] == {"seq": 11, "type": "correction", "target": 7, "action": "set_owner",
                                   "player": "ben", "reason": "blue back on the video"}
    # ben's illegal 5S (seq 6) was really an Ace: it starts its pile
    r = fix(admin, sample.ILLEGAL_SEQ, action="set_card", card="as", reason="the 5 was a glare")
    assert r.status_code == 200 and r.get_json()["ruling"]["kind"] == "accepted"
    assert events_of(game)[-1]["card"] == "AS" and totals(r) == {"ana": 2, "ben": -8}
    # the 3H was put on p2 by vision; moved there it no longer fits (p2 holds the AS)
    r = fix(admin, 7, action="set_pile", pile="p2", reason="wrong pile")
    ruling = r.get_json()["ruling"]
    assert r.status_code == 200 and (ruling["pile"], ruling["observed_pile"], ruling["stays"]) == ("p2", "p1", False)
    assert totals(r) == {"ana": 2, "ben": -9}
    html = admin.get("/review/7").get_data(as_text=True)
    assert "set_pile" in html and "pile p2" in html and "(seen on p1)" in html


def test_set_nerts_left_and_voiding_the_call(admin, game):
    r = fix(admin, END_SEQ, action="set_nerts_left", player="ben", count="2", reason="recounted")
    assert r.status_code == 200 and totals(r) == {"ana": 3, "ben": -4}
    html = admin.get("/review").get_data(as_text=True)
    assert 'data-unit="ben">ben 2<' in html and "ben → 2" in html
    r = fix(admin, CALL_SEQ, action="overturn", reason="nobody called")
    assert r.status_code == 200 and r.get_json()["ruling"]["reason"] == "overturned"
    r = fix(admin, CALL_SEQ, action="uphold", reason="it was called after all")
    assert r.status_code == 200


@pytest.mark.parametrize("seq, body, status, message", [
    (7, {"action": "set_owner", "player": "ben"}, 400, "a reason is required"),
    (7, {"action": "set_owner", "player": "zed", "reason": "x"}, 400, "player must be one of: ana, ben"),
    (7, {"action": "set_owner", "player": "ana", "reason": "x"}, 400, "already ana's card"),
    (7, {"action": "set_card", "card": "11H", "reason": "x"}, 400, "unknown card '11H'"),
    (7, {"action": "set_card", "reason": "x"}, 400, "card is required"),
    (7, {"action": "set_pile", "pile": "p1", "reason": "x"}, 400, "already on pile p1"),
    (7, {"action": "set_pile", "pile": "  ", "reason": "x"}, 400, "pile is required"),
    (7, {"action": "set_pile", "pile": "p" * 41, "reason": "x"}, 400, "too long"),
    (7, {"action": "set_nerts_left", "player": "ben", "count": 1, "reason": "x"}, 404, "no ended round #7"),
    (END_SEQ, {"action": "set_nerts_left", "player": "ben", "count": 53, "reason": "x"}, 400, "from 0 to 52"),
    (END_SEQ, {"action": "set_nerts_left", "player": "zed", "count": 1, "reason": "x"}, 400, "player must be"),
    (END_SEQ, {"action": "set_pile", "pile": "p2", "reason": "x"}, 404, "no card ruling #9"),
    (CALL_SEQ, {"action": "set_card", "card": "2H", "reason": "x"}, 404, "no card ruling #8"),
])
def test_rejected_corrections_change_nothing(admin, game, seq, body, status, message):
    before = events_of(game)
    r = fix(admin, seq, **body)
    assert r.status_code == status and message in r.get_json()["error"]
    assert events_of(game) == before


def test_corrections_need_the_admin_and_the_csrf_token(client, admin, game):
    before = events_of(game)
    r = fix(admin, 7, csrf=False, action="set_pile", pile="p2", reason="x")
    assert r.status_code == 400 and "CSRF" in r.get_json()["error"]
    spectator = client.application.test_client()
    r = spectator.post("/api/review/7/correct", json={"action": "set_pile", "pile": "p2", "reason": "x"},
                       headers={"X-CSRF-Token": "nope"})
    assert r.status_code in (400, 403)
    r = spectator.post("/api/review/7/correct", json={"action": "set_pile", "pile": "p2", "reason": "x"},
                       headers={"X-Nerts-Token": "0000"})
    assert r.status_code == 403
    assert events_of(game) == before
    r = spectator.post("/api/review/7/correct", json={"action": "set_pile", "pile": "p2", "reason": "script"},
                       headers={"X-Nerts-Token": PIN})
    assert r.status_code == 200 and events_of(game)[-1]["pile"] == "p2"


def test_review_pages_offer_every_correction_to_the_admin_only(client, admin):
    spectator = client.application.test_client()
    page = spectator.get("/review/7").get_data(as_text=True)
    assert 'class="stack correction"' not in page and "Only the table's admin" in page
    page = admin.get("/review/7").get_data(as_text=True)
    for form in ('id="correct"', 'id="fix-owner"', 'id="fix-card"', 'id="fix-pile"'):
        assert form in page
    assert 'value="set_owner"' in page and 'value="set_card"' in page and 'value="set_pile"' in page
    assert page.count("Reason (required)") == 4 and "corrections.js" in page
    index = admin.get("/review").get_data(as_text=True)
    assert 'id="fix-left-1"' in index and 'value="set_nerts_left"' in index
    assert f'data-url="/api/review/{END_SEQ}/correct"' in index and f'data-url="/api/review/{CALL_SEQ}/correct"' in index
    assert 'fix-left-2' not in index  # round 2 is still in play: nothing to count yet
    assert "fix-left" not in spectator.get("/review").get_data(as_text=True)


def test_returned_cards_are_listed_for_review_and_counted_apart(admin, game):
    r = admin.post("/api/nerts", json={"player": "ana"}, headers={"X-CSRF-Token": admin.csrf})
    assert r.status_code == 200  # round 2 called at t = 10.0 (the test clock)
    log = EventLog.open(game)
    try:
        seq = log.append({"type": "card_touched", "t": 10.2, "card": "AD", "player": "ben", "pile": "q1"})
    finally:
        log.close()
    admin.application.extensions["nerts"].store.refresh()  # what the watcher thread does every 0.1 s
    index = admin.get("/review").get_data(as_text=True)
    assert f'<li class="returned">\n      <a href="/review/{seq}">' in index
    stats = {s["name"]: s for s in admin.get("/api/game").get_json()["stats"]}
    assert stats["ben"]["returned"] == 1 and stats["ben"]["illegal"] == 1
    assert "in flight at the Nerts call" in admin.get(f"/review/{seq}").get_data(as_text=True)


def test_a_card_of_unknown_owner_is_listed_for_review_and_the_table_names_its_owner(admin, game):
    log = EventLog.open(game)
    try:  # vision found a 4H on the pile over ana's 3H, nobody seen playing it
        seq = log.append({"type": "card_touched", "t": 3.0, "card": "4H", "player": None, "pile": "p1"})
    finally:
        log.close()
    admin.application.extensions["nerts"].store.refresh()
    before = totals(admin.get("/api/game"))
    index = admin.get("/review").get_data(as_text=True)
    assert f'<a href="/review/{seq}">' in index and "owner unknown" in index
    page = admin.get(f"/review/{seq}").get_data(as_text=True)
    assert "nobody was seen playing it" in page and "None" not in re.sub(r"<script.*?</script>", "", page, flags=re.S)
    r = fix(admin, seq, action="set_owner", player="ben", reason="blue back when the piles were counted")
    assert r.status_code == 200 and r.get_json()["ruling"]["player"] == "ben"
    assert totals(r)["ben"] == before["ben"] + 1 and totals(r)["ana"] == before["ana"]


def test_game_body_follows_the_log(client, game):
    page = client.get("/game").get_data(as_text=True)
    assert 'id="game-body" data-seq="10"' in page and "game.js" in page
    body = client.get("/game/body")
    assert body.headers["Cache-Control"] == "no-store" and "<html" not in body.get_data(as_text=True)
    assert '<td class="num">-10</td>' in body.get_data(as_text=True)
    log = EventLog.open(game)
    try:
        log.append({"type": "correction", "target": END_SEQ, "action": "set_nerts_left", "player": "ben",
                    "count": 0, "reason": "recounted"})
    finally:
        log.close()
    client.application.extensions["nerts"].store.refresh()
    html = client.get("/game/body").get_data(as_text=True)
    assert '<td class="num">-10</td>' not in html and '<td class="num">0</td>' in html
