"""Dashboard routes through Flask's test client: pages, SSE, MJPEG, footage, auth, CSRF, validation."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest

from referee.eventlog import EventLog
from web_dashboard import sample, summary
from web_dashboard.app import create_app
from web_dashboard.live import FrameHub

PIN = "2468"


@pytest.fixture
def app(game):
    app = create_app(game, admin_pin=PIN, clock=lambda: 10.0, poll_interval=0.02)
    yield app
    app.extensions["nerts"].store.close()


@pytest.fixture
def client(app):
    return app.test_client()


def csrf_of(client) -> str:
    html = client.get("/live").get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)


@pytest.fixture
def admin(client):
    token = csrf_of(client)
    r = client.post("/login", data={"pin": PIN, "csrf_token": token, "next": "/live"})
    assert r.status_code == 303
    client.csrf = csrf_of(client)  # login rotates the session
    return client


def post(client, url, body, csrf=True):
    headers = {"X-CSRF-Token": client.csrf} if csrf else {}
    return client.post(url, json=body, headers=headers)


def events_of(game: Path) -> list[dict]:
    log = EventLog.open(game)
    try:
        return log.events()
    finally:
        log.close()


# -- pages ---------------------------------------------------------------------------------------

def test_every_page_renders_for_a_spectator(client):
    for url, expect in [("/live", "Round"), ("/game", "<svg"), ("/review", "2H on p1"),
                        (f"/review/{sample.DISPUTE_SEQ}", "<video"), ("/setup", "tie_window_ms"),
                        ("/login", "PIN")]:
        r = client.get(url)
        assert r.status_code == 200, url
        assert expect in r.get_data(as_text=True), url
    assert client.get("/").status_code == 302
    assert "admin log in" in client.get("/live").get_data(as_text=True)
    assert 'id="nerts-button"' not in client.get("/live").get_data(as_text=True)  # spectators get no controls


def test_live_scoreboard_and_feed(client):
    state = client.get("/api/state").get_json()
    board = state["board"]
    assert board["round"] == 2 and board["round_active"] is True
    assert {p["name"]: p["total"] for p in board["players"]} == {"ana": 3, "ben": -10}
    assert board["target"]["label"] == "first to 100"
    assert [p["progress"] for p in board["players"]] == [0.03, 0.0]
    texts = [line["text"] for line in state["feed"]]
    assert "ben 2H on p1: touched after ana: take it back (margin 50 ms ± 11 ms)" in texts
    assert "NERTS! ana" in texts
    html = client.get("/live").get_data(as_text=True)
    assert 'value="0.03"' in html and "NERTS! ana" in html


def test_game_page_chart_and_stats(client):
    data = client.get("/api/game").get_json()
    assert data["series"] == [{"ana": 0.0, "ben": 0.0}, {"ana": 3.0, "ben": -10.0}]
    stats = {s["name"]: s for s in data["stats"]}
    assert stats["ana"] == {"name": "ana", "centre": 3, "disputes_won": 1, "disputes_lost": 0, "ties": 0,
                            "illegal": 0, "returned": 0, "nerts_calls": 1}
    assert stats["ben"]["disputes_lost"] == 1 and stats["ben"]["illegal"] == 1 and stats["ben"]["centre"] == 0
    html = client.get("/game").get_data(as_text=True)
    assert html.count("<polyline") == 2 and 'stroke="red"' in html and "target 100" in html


def test_review_lists_disputes_and_illegal_plays(client):
    html = client.get("/review").get_data(as_text=True)
    for seq in (sample.LOSER_SEQ, sample.DISPUTE_SEQ, sample.ILLEGAL_SEQ):
        assert f'href="/review/{seq}"' in html
    listed = html[html.index('id="to-review"'):html.index("</ul>", html.index('id="to-review"'))]
    assert 'href="/review/3"' not in listed  # an accepted Ace is not contested...
    assert 'href="/review/3"' in html  # ...but every card play can be opened (to fix its pile, card, owner)
    assert client.get("/review/3").status_code == 200
    assert client.get("/review/2").status_code == 404  # a round start is no card
    data = client.get(f"/api/review/{sample.DISPUTE_SEQ}").get_json()
    assert [c["player"] for c in data["contenders"]] == ["ana", "ben"]
    assert data["contenders"][0]["outline"] == [[60.0, 80.0], [130.0, 80.0], [130.0, 180.0], [60.0, 180.0]]
    assert data["ruling"]["margin_ms"] == 50.0 and data["footage"] == "/footage/table.mp4"
    assert data["frames"][0] == [0, 0.0] and len(data["frames"]) == 120  # window 0..4.95 s of a 4 s clip
    illegal = client.get(f"/api/review/{sample.ILLEGAL_SEQ}").get_json()
    assert illegal["contenders"][0]["outline"] == [[150.0, 70.0], [220.0, 70.0], [220.0, 170.0], [150.0, 170.0]]
    assert illegal["markers"] == [{"t": 3.2, "label": "Nerts! (ana)"}]


# -- footage ---------------------------------------------------------------------------------------

def test_footage_supports_range_requests(client, game):
    size = (game.parent / "table.mp4").stat().st_size
    r = client.get("/footage/table.mp4", headers={"Range": "bytes=100-199"})
    assert r.status_code == 206
    assert r.headers["Content-Range"] == f"bytes 100-199/{size}"
    assert r.data == (game.parent / "table.mp4").read_bytes()[100:200]
    assert r.headers["Content-Type"] == "video/mp4" and r.headers["Accept-Ranges"] == "bytes"


@pytest.mark.parametrize("url", ["/footage/game.db", "/footage/..%2Fgame.db", "/footage/%2Fetc%2Fpasswd",
                                 "/footage/../game.db", "/footage/..", "/footage/table.mp4%00.db",
                                 "/footage/TABLE.MP4", "/footage/"])
def test_footage_refuses_anything_not_registered(client, url):
    r = client.get(url)
    assert r.status_code in (404, 308) and b"sqlite" not in r.data.lower()


def test_footage_meta_pointing_outside_the_folder_is_not_served(tmp_path):
    outside = tmp_path / "secret.mp4"
    outside.write_bytes(b"not for you")
    inner = tmp_path / "games"
    inner.mkdir()
    db = inner / "game.db"
    log = EventLog.open(db)
    log.set_meta("footage", ["../secret.mp4", str(outside), "game.db"])
    log.close()
    app = create_app(db, admin_pin=PIN, start_watcher=False)
    c = app.test_client()
    assert c.get("/footage/secret.mp4").status_code == 404
    assert c.get("/footage/game.db").status_code == 404
    log = EventLog.open(db)
    log.append({"type": "card_touched", "t": 1.0, "card": "5H", "player": "ana", "pile": "p1"})  # illegal
    log.close()
    app.extensions["nerts"].store.refresh()  # what the watcher thread does
    html = c.get("/review/1").get_data(as_text=True)
    assert "../secret.mp4 is outside the footage folder" in html and "--footage-dir" in html
    assert "<video" not in html
    app.extensions["nerts"].store.close()


# -- live streams -----------------------------------------------------------------------------------

def read_sse(response, want: int, timeout: float = 5.0) -> list[tuple[str, dict, str | None]]:
    """Read ``want`` SSE messages (event, data, id) from a streaming test response."""
    out, buf = [], ""
    deadline = time.monotonic() + timeout
    it = iter(response.response)
    while len(out) < want and time.monotonic() < deadline:
        chunk = next(it)
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
            if "data" in fields:
                out.append((fields.get("event"), json.loads(fields["data"]), fields.get("id")))
    return out


def test_sse_delivers_events_appended_by_another_writer(client, game):
    r = client.get("/api/stream", buffered=False)
    assert r.mimetype == "text/event-stream"
    [(kind, data, seq)] = read_sse(r, 1)
    assert kind == "reset" and seq == "10" and data["board"]["round"] == 2

    appended = {}

    def writer():  # another connection, as the pipeline (or another process) would write
        time.sleep(0.2)
        log = EventLog.open(game)
        appended["at"] = time.monotonic()
        log.append({"type": "card_touched", "t": 4.0, "card": "AS", "player": "ben", "pile": "p9"})
        log.close()

    threading.Thread(target=writer).start()
    [(kind, data, seq)] = read_sse(r, 1)
    latency = time.monotonic() - appended["at"]
    r.close()
    assert kind == "update" and seq == "11"
    assert [line["text"] for line in data["feed"]] == ["ben AS on p9"]
    assert latency < 3.0  # pushed, not polled by the client; the 1 s target is measured in bench/dashboard.py


def test_sse_resumes_after_last_event_id(client):
    r = client.get("/api/stream", headers={"Last-Event-ID": "8"}, buffered=False)
    [(kind, data, seq)] = read_sse(r, 1)
    r.close()
    assert kind == "update" and [line["seq"] for line in data["feed"]] == [9, 10]
    assert client.get("/api/stream", headers={"Last-Event-ID": "x"}).status_code == 400


def test_mjpeg_streams_the_latest_published_frame(game):
    hub = FrameHub()
    app = create_app(game, hub=hub, admin_pin=PIN, start_watcher=False)
    c = app.test_client()
    assert c.get("/live/frame.jpg").status_code == 404
    hub.publish(b"\xff\xd8first\xff\xd9", 1, 0.033)
    r = c.get("/live/stream.mjpg", buffered=False)
    assert r.mimetype == "multipart/x-mixed-replace"
    it = iter(r.response)
    head = b"--nertsframe\r\nContent-Type: image/jpeg\r\n\r\n"
    assert next(it) == head
    assert next(it) == b"\xff\xd8first\xff\xd9\r\n" + head
    threading.Timer(0.1, hub.publish, args=(b"\xff\xd8second\xff\xd9", 2, 0.066)).start()
    part = next(it)
    assert part == b"\xff\xd8second\xff\xd9\r\n" + head
    r.close()
    assert c.get("/live/frame.jpg").data == b"\xff\xd8second\xff\xd9"
    assert c.get("/live/calibration.jpg").status_code == 404
    hub.set_still("calibration", b"\xff\xd8cal\xff\xd9")
    assert c.get("/live/calibration.jpg").data == b"\xff\xd8cal\xff\xd9"
    assert "calibration.jpg" in c.get("/setup").get_data(as_text=True)
    assert c.get("/live/back/ana.jpg").status_code == 404
    hub.set_still("back:ana", b"\xff\xd8red\xff\xd9")  # vision registered ana's back from the camera
    assert c.get("/live/back/ana.jpg").data == b"\xff\xd8red\xff\xd9"
    assert 'src="/live/back/ana.jpg"' in c.get("/setup").get_data(as_text=True)
    app.extensions["nerts"].store.close()


# -- auth and CSRF ----------------------------------------------------------------------------------

def test_login_with_wrong_pin_is_refused_and_throttled(client):
    token = csrf_of(client)
    r = client.post("/login", data={"pin": "0000", "csrf_token": token})
    assert r.status_code == 403 and b"wrong PIN" in r.data
    assert client.post("/login", data={"pin": PIN}).status_code == 400  # no CSRF token
    for _ in range(9):
        client.post("/login", data={"pin": "0000", "csrf_token": token})
    r = client.post("/login", data={"pin": PIN, "csrf_token": token})
    assert r.status_code == 429  # even the right PIN waits once guessing started
    assert client.get("/api/whoami").get_json()["admin"] is False


def test_login_redirect_stays_on_this_site(client):
    token = csrf_of(client)
    r = client.post("/login", data={"pin": PIN, "csrf_token": token, "next": "https://evil.example/"})
    assert r.status_code == 303 and r.headers["Location"] == "/live"


def test_spectator_cannot_change_anything(client, game):
    before = events_of(game)
    client.csrf = csrf_of(client)
    for url, body in [("/api/nerts", {"player": "ana"}), ("/api/round/stuck", {}),
                      ("/api/round/end", {"nerts_left": {"ana": 0, "ben": 1}}),
                      (f"/api/review/{sample.DISPUTE_SEQ}/correct", {"action": "overturn", "reason": "no"})]:
        r = post(client, url, body)
        assert r.status_code == 403, url
        assert "admin only" in r.get_json()["error"]
    assert events_of(game) == before


def test_admin_session_needs_the_csrf_token(admin, game):
    before = events_of(game)
    r = post(admin, "/api/round/stuck", {}, csrf=False)
    assert r.status_code == 400 and "CSRF" in r.get_json()["error"]
    r = admin.post("/api/round/stuck", json={}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 400
    assert events_of(game) == before
    r = post(admin, "/api/round/stuck", {})
    assert r.status_code == 200 and r.get_json()["seq"] == 11
    assert events_of(game)[-1] == {"seq": 11, "type": "everyone_stuck", "t": 10.0}


def test_token_header_authorises_scripts_and_a_wrong_token_is_refused(client, game):
    r = client.post("/api/round/stuck", json={}, headers={"Authorization": f"Bearer {PIN}"})
    assert r.status_code == 200
    r = client.post("/api/round/stuck", json={}, headers={"X-Nerts-Token": "9999"})
    assert r.status_code == 403 and r.get_json()["error"] == "wrong admin token"
    assert [e["type"] for e in events_of(game)[-2:]] == ["round_started", "everyone_stuck"]
    for _ in range(9):
        client.post("/api/round/stuck", json={}, headers={"X-Nerts-Token": "0000"})
    r = client.post("/api/round/stuck", json={}, headers={"Authorization": f"Bearer {PIN}"})
    assert r.status_code == 429  # guessing the PIN through the header is throttled too
    assert len(events_of(game)) == 11  # the sample game (10) and the one good stuck


def test_logout_ends_admin(admin):
    assert admin.get("/api/whoami").get_json()["admin"] is True
    assert admin.post("/logout", data={"csrf_token": admin.csrf}).status_code == 303
    assert admin.get("/api/whoami").get_json()["admin"] is False


def test_a_session_from_another_server_run_is_not_admin(game, admin):
    other = create_app(game, admin_pin=PIN, secret_key=admin.application.config["SECRET_KEY"], start_watcher=False)
    c = other.test_client()
    c.set_cookie("session", admin.get_cookie("session").value)
    assert c.get("/api/whoami").get_json()["admin"] is False  # new PIN epoch per start
    other.extensions["nerts"].store.close()


# -- admin actions ------------------------------------------------------------------------------------

def test_nerts_button_records_the_moment_it_was_pressed(admin, game):
    r = post(admin, "/api/nerts", {"player": "ben", "pressed_ms_ago": 250})
    assert r.status_code == 200
    assert events_of(game)[-1] == {"seq": 11, "type": "nerts_called", "t": 9.75, "player": "ben"}
    assert r.get_json()["board"]["nerts_by"] == "ben"
    assert "Nerts! by ben: enter the cards left" in admin.get("/live").get_data(as_text=True)


@pytest.mark.parametrize("body, status, message", [
    ({"player": "zed"}, 400, "player must be one of: ana, ben"),
    ({}, 400, "player must be one of"),
    ({"player": "ana", "pressed_ms_ago": -5}, 400, "pressed_ms_ago"),
    ({"player": "ana", "pressed_ms_ago": 60000}, 400, "pressed_ms_ago"),
    ({"player": "ana", "pressed_ms_ago": "soon"}, 400, "pressed_ms_ago"),
])
def test_nerts_input_is_validated(admin, game, body, status, message):
    before = events_of(game)
    r = post(admin, "/api/nerts", body)
    assert r.status_code == status and message in r.get_json()["error"]
    assert events_of(game) == before


def test_round_controls_follow_the_round(admin, game):
    before = events_of(game)
    r = post(admin, "/api/round/start", {})
    assert r.status_code == 409 and "still in play" in r.get_json()["error"]
    for body, message in [({"nerts_left": {"ana": 0}}, "enter the Nerts cards left for ben"),
                          ({"nerts_left": {"ana": 0, "ben": -1}}, "not a whole number from 0 to 52"),
                          ({"nerts_left": {"ana": 0, "ben": 53}}, "not a whole number from 0 to 52"),
                          ({"nerts_left": {"ana": 0, "ben": 2, "zed": 1}}, "unknown player 'zed'"),
                          ({"nerts_left": [1, 2]}, "must be an object")]:
        r = post(admin, "/api/round/end", body)
        assert r.status_code == 400 and message in r.get_json()["error"], body
    assert events_of(game) == before
    r = post(admin, "/api/round/end", {"nerts_left": {"ana": "0", "ben": 4}})
    assert r.status_code == 200
    board = r.get_json()["board"]
    assert board["round_active"] is False and board["rounds_finished"] == 2
    assert events_of(game)[-1]["nerts_left"] == {"ana": 0, "ben": 4}
    assert post(admin, "/api/round/stuck", {}).status_code == 409
    assert post(admin, "/api/nerts", {"player": "ana"}).status_code == 409
    r = post(admin, "/api/round/start", {})
    assert r.status_code == 200 and r.get_json()["board"]["round"] == 3


def test_overturn_rescores_the_game(admin, game):
    assert admin.get("/api/state").get_json()["board"]["players"][0]["total"] == 3
    r = post(admin, f"/api/review/{sample.DISPUTE_SEQ}/correct", {"action": "overturn", "reason": "ben was first"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["ruling"]["stays"] is False and body["ruling"]["overturned"] is True
    assert {p["name"]: p["total"] for p in body["board"]["players"]} == {"ana": 2, "ben": -9}
    assert events_of(game)[-1] == {"seq": 11, "type": "correction", "target": sample.DISPUTE_SEQ,
                                   "action": "overturn", "reason": "ben was first"}
    html = admin.get(f"/review/{sample.DISPUTE_SEQ}").get_data(as_text=True)
    assert "ben was first" in html and "(overturned)" in html
    r = post(admin, f"/api/review/{sample.ILLEGAL_SEQ}/correct", {"action": "uphold", "reason": "clearly illegal"})
    assert r.status_code == 200 and r.get_json()["ruling"]["upheld"] == "clearly illegal"


@pytest.mark.parametrize("seq, body, status, message", [
    (sample.DISPUTE_SEQ, {"action": "overturn"}, 400, "a reason is required"),
    (sample.DISPUTE_SEQ, {"action": "overturn", "reason": "   "}, 400, "a reason is required"),
    (sample.DISPUTE_SEQ, {"action": "delete", "reason": "x"}, 400, "action must be"),
    (sample.DISPUTE_SEQ, {"action": "uphold", "reason": "x" * 501}, 400, "too long"),
    (2, {"action": "overturn", "reason": "x"}, 404, "no card ruling #2"),
    (999, {"action": "overturn", "reason": "x"}, 404, "#999"),
])
def test_corrections_are_validated(admin, game, seq, body, status, message):
    before = events_of(game)
    r = post(admin, f"/api/review/{seq}/correct", body)
    assert r.status_code == status and message in r.get_json()["error"]
    assert events_of(game) == before


def test_non_json_body_is_rejected(admin, game):
    r = admin.post("/api/nerts", data="[1]", headers={"X-CSRF-Token": admin.csrf, "Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    r = admin.post("/api/nerts", data="x" * 70000, headers={"X-CSRF-Token": admin.csrf})
    assert r.status_code == 413


# -- setup -------------------------------------------------------------------------------------------

def test_settings_are_set_on_a_new_game_and_fixed_after(tmp_path):
    db = tmp_path / "new.db"
    app = create_app(db, admin_pin=PIN, clock=lambda: 0.0)
    c = app.test_client()
    token = csrf_of(c)
    c.post("/login", data={"pin": PIN, "csrf_token": token})
    c.csrf = csrf_of(c)
    players = [{"name": "ana", "back": "red", "seat": "0", "team": ""}, {"name": "ben", "back": "blue", "seat": 1}]
    r = post(c, "/api/settings", {"players": players, "rules": {"tie_rule": "coin"}})
    assert r.status_code == 400 and "rules.tie_rule: 'coin' is not allowed" in r.get_json()["error"]
    r = post(c, "/api/settings", {"players": players, "rules": {"target_score": "abc"}})
    assert r.status_code == 400 and "not a number" in r.get_json()["error"]
    r = post(c, "/api/settings", {"players": players[:1], "rules": {}})
    assert r.status_code == 400 and "2 to 8 players" in r.get_json()["error"]
    assert events_of(db) == []
    r = post(c, "/api/settings", {"players": players, "rules": {"target_score": "150", "tie_window_ms": "50"}})
    assert r.status_code == 200
    [event] = events_of(db)
    assert event["type"] == "game_started" and event["settings"]["target_score"] == 150
    assert event["settings"]["tie_window_ms"] == 50.0 and [p["name"] for p in event["players"]] == ["ana", "ben"]
    assert c.get("/api/state").get_json()["board"]["target"]["label"] == "first to 150"
    html = c.get("/setup").get_data(as_text=True)
    assert "fixed for this game" in html and 'value="150"' in html
    r = post(c, "/api/settings", {"players": players, "rules": {}})
    assert r.status_code == 409
    app.extensions["nerts"].store.close()


def test_every_rule_of_rules_md_is_on_the_setup_page(client):
    from dataclasses import fields

    from referee.settings import Rules

    html = client.get("/setup").get_data(as_text=True)
    for f in fields(Rules):
        assert f'name="rule.{f.name}"' in html


# -- security headers, errors ----------------------------------------------------------------------

def test_pages_forbid_third_party_content(client):
    r = client.get("/live")
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    html = r.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html  # nothing fetched from elsewhere
    assert client.get("/nope").status_code == 404
    assert client.get("/api/nope").get_json()["status"] == 404


def test_summary_of_an_empty_log(tmp_path):
    app = create_app(tmp_path / "empty.db", admin_pin=PIN, start_watcher=False)
    c = app.test_client()
    for url in ("/live", "/game", "/review", "/setup"):
        assert c.get(url).status_code == 200
    board = c.get("/api/state").get_json()["board"]
    assert board["round"] == 0 and board["players"] == [] and board["round_active"] is False
    assert summary.progression({}, ["a"]) == [{"a": 0.0}]
    app.extensions["nerts"].store.close()


def test_create_app_rejects_a_short_pin(tmp_path):
    with pytest.raises(ValueError, match="at least 4"):
        create_app(tmp_path / "g.db", admin_pin="12")


def test_generated_pin_is_six_digits(tmp_path):
    app = create_app(tmp_path / "g.db", start_watcher=False)
    assert re.fullmatch(r"\d{6}", app.config["ADMIN_PIN"])
    app.extensions["nerts"].store.close()


# -- the footage clock ----------------------------------------------------------------------------

def login(app):
    c = app.test_client()
    c.post("/login", data={"pin": PIN, "csrf_token": csrf_of(c)})
    c.csrf = csrf_of(c)
    return c


def test_controls_never_fall_before_the_round_in_play(game):
    app = create_app(game, admin_pin=PIN, clock=lambda: 1.0, start_watcher=False)  # a clock behind the log
    c = login(app)
    assert post(c, "/api/round/stuck", {}).status_code == 200
    assert events_of(game)[-1]["t"] == 3.6  # round 2 started at 3.6: the press belongs to round 2
    assert post(c, "/api/round/end", {"nerts_left": {"ana": 1, "ben": 1}}).status_code == 200
    assert post(c, "/api/round/start", {}).status_code == 200
    assert events_of(game)[-1] == {"seq": 13, "type": "round_started", "t": 3.6}
    app.extensions["nerts"].store.close()


def test_default_clock_follows_the_camera_else_runs_on_from_the_log(game):
    hub = FrameHub()
    app = create_app(game, hub=hub, admin_pin=PIN, start_watcher=False)
    clock = app.extensions["nerts"].clock
    assert 3.6 <= clock() < 9.6  # no camera: continues from the log's latest time (3.6)
    hub.publish(b"\xff\xd8", 3000, 100.0)
    assert 100.0 <= clock() < 105.0
    c = login(app)
    assert post(c, "/api/nerts", {"player": "ana", "pressed_ms_ago": 100}).status_code == 200
    assert 99.9 <= events_of(game)[-1]["t"] < 105.0
    app.extensions["nerts"].store.close()


def test_mjpeg_rate_cap(game):
    hub = FrameHub()
    app = create_app(game, hub=hub, admin_pin=PIN, start_watcher=False, mjpeg_max_fps=10)
    r = app.test_client().get("/live/stream.mjpg", buffered=False)
    it = iter(r.response)
    next(it)
    stop = threading.Event()

    def camera():  # 100 fps
        i = 0
        while not stop.is_set():
            i += 1
            hub.publish(b"\xff\xd8%d" % i, i, i / 100)
            time.sleep(0.01)

    threading.Thread(target=camera, daemon=True).start()
    start = time.monotonic()
    parts = [next(it) for _ in range(6)]
    elapsed = time.monotonic() - start
    stop.set()
    r.close()
    assert elapsed >= 0.45  # 6 frames at <= 10 fps
    assert len(set(parts)) == 6  # each one newer than the last
    with pytest.raises(ValueError):
        create_app(game, mjpeg_max_fps=0)
    app.extensions["nerts"].store.close()


def test_teams_enter_nerts_cards_left_per_team(tmp_path):
    db = tmp_path / "teams.db"
    log = EventLog.open(db)
    log.append({"type": "game_started", "settings": {"teams": "pairs"}, "players": [
        {"name": "ana", "back": "red", "seat": 0, "team": "reds"}, {"name": "bo", "back": "red", "seat": 2, "team": "reds"},
        {"name": "cy", "back": "blue", "seat": 1, "team": "blues"}, {"name": "di", "back": "blue", "seat": 3, "team": "blues"}]})
    log.append({"type": "round_started", "t": 0.0})
    log.append({"type": "card_touched", "t": 1.0, "card": "AS", "player": "bo", "pile": "p1"})
    log.close()
    app = create_app(db, admin_pin=PIN, clock=lambda: 5.0, start_watcher=False)
    c = login(app)
    assert 'name="nerts_left.reds"' in c.get("/live").get_data(as_text=True)
    r = post(c, "/api/round/end", {"nerts_left": {"ana": 0, "cy": 1}})
    assert r.status_code == 400 and "unknown player 'ana'; players: reds, blues" in r.get_json()["error"]
    r = post(c, "/api/round/end", {"nerts_left": {"reds": 0, "blues": 3}})
    assert r.status_code == 200
    board = r.get_json()["board"]
    assert {p["name"]: p["total"] for p in board["players"]} == {"ana": 1, "bo": 1, "cy": -6, "di": -6}
    assert [p["team"] for p in board["players"]] == ["reds", "blues", "reds", "blues"]
    app.extensions["nerts"].store.close()


def test_game_over_names_the_winner(tmp_path):
    db = tmp_path / "short.db"
    log = EventLog.open(db)
    log.append({"type": "game_started", "settings": {"target_score": 2},
                "players": [{"name": "ana", "back": "red"}, {"name": "ben", "back": "blue"}]})
    log.append({"type": "round_started", "t": 0.0})
    for i, card in enumerate(("AH", "2H", "3H")):
        log.append({"type": "card_touched", "t": 1.0 + i, "card": card, "player": "ana", "pile": "p1"})
    log.append({"type": "round_ended", "t": 5.0, "nerts_left": {"ana": 0, "ben": 3}})
    log.close()
    app = create_app(db, admin_pin=PIN, clock=lambda: 6.0, start_watcher=False)
    c = login(app)
    board = c.get("/api/state").get_json()["board"]
    assert board["game_over"] is True and board["winners"] == ["ana"]
    assert "game over: ana wins" in c.get("/live").get_data(as_text=True)
    assert [p["progress"] for p in board["players"]] == [1.0, 0.0]
    r = post(c, "/api/round/start", {})
    assert r.status_code == 409 and r.get_json()["error"] == "the game is over"
    app.extensions["nerts"].store.close()


def test_a_provisional_ruling_says_so_until_it_is_revised_or_final():
    from referee.engine import Engine

    eng = Engine()
    for ev in ({"type": "round_started", "t": 0.0},
               {"type": "card_touched", "t": 1.0, "card": "AH", "player": "ana", "pile": "p1"},
               {"type": "card_touched", "t": 2.0, "card": "2H", "player": "ben", "pile": "p1",
                "evidence": {"provisional": "a second arm at the pile: another copy may lie hidden"}}):
        eng.feed(ev)

    def line(seq):
        return summary.ruling_text(next(r for r in eng.result().rulings if r.get("seq") == seq))

    assert line(3) == "ben 2H on p1 (provisional: another copy may lie under it)" and line(2) == "ana AH on p1"
    eng.feed({"type": "correction", "target": 3, "action": "set_time", "t": 2.05, "reason": "vision: re-timed"})
    assert line(3) == "ben 2H on p1"  # revised: as ruled now
    eng = Engine()
    eng.feed_all([{"type": "round_started", "t": 0.0},
                  {"type": "card_touched", "t": 2.0, "card": "AH", "player": "ben", "pile": "p1",
                   "evidence": {"provisional": "x"}},
                  {"type": "card_touched", "t": 3.5, "card": "AS", "player": "ana", "pile": "p2"}])
    assert line(2) == "ben AH on p1"  # the stream has moved on past the engine's latency: final
