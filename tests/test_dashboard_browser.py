"""The dashboard in a real browser: Playwright driving Debian's Chromium against the threaded server.

Skipped (with the reason) where ``/usr/bin/chromium`` is missing; ``.ci/run`` installs it.
Set ``NERTS_SCREENSHOTS=DIR`` to keep a screenshot of every page at desktop and phone width.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from referee.eventlog import EventLog
from web_dashboard import sample
from web_dashboard.app import create_app
from web_dashboard.live import FrameHub
from web_dashboard.serving import DashboardServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PIN = "8642"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} not installed (apt-get install chromium)"),
]


# Playwright's string predicates are evaluated with eval(); the app's CSP forbids that, so the
# test contexts bypass CSP (the app's own scripts never need it).
@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def site(game):
    db = game
    hub = FrameHub()
    hub.publish(_jpeg(), 120, 4.0)  # the camera's clock runs on from the recorded round
    app = create_app(db, hub=hub, admin_pin=PIN, poll_interval=0.05)
    server = DashboardServer(app, "127.0.0.1", 0, threads=24).start()
    yield server.url.rstrip("/"), db
    server.stop()


def _jpeg() -> bytes:
    import cv2
    import numpy as np

    img = np.full((180, 320, 3), (60, 110, 40), np.uint8)
    cv2.putText(img, "camera", (90, 100), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2)
    return cv2.imencode(".jpg", img)[1].tobytes()


def _shot(page, name: str) -> None:
    folder = os.environ.get("NERTS_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _login(page, base: str) -> None:
    page.goto(f"{base}/login?next=/live")
    page.fill("input[name=pin]", PIN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/live")
    assert page.locator(".badge", has_text="admin").count() == 1


def _total(page, player: str) -> str:
    return page.locator(f'#score-rows tr[data-player="{player}"] td.total').inner_text()


def test_scoreboard_updates_through_sse_as_events_are_appended(browser, site):
    base, db = site
    page = browser.new_page(bypass_csp=True)
    page.goto(f"{base}/live")
    page.wait_for_function("document.getElementById('feed-status').textContent === 'live'")
    assert _total(page, "ana") == "3" and _total(page, "ben") == "-10"
    # the camera's MJPEG frame is on screen (320 x 180, drawn by _jpeg)
    page.wait_for_function("document.getElementById('camera').naturalWidth === 320", timeout=5000)
    assert page.locator("#no-camera").is_hidden()
    log = EventLog.open(db)  # the pipeline's writer, not the dashboard
    log.append({"type": "card_touched", "t": 3.8, "card": "AD", "player": "ben", "pile": "p5"})
    start = time.monotonic()
    log.append({"type": "round_ended", "t": 3.9, "nerts_left": {"ana": 2, "ben": 0}})
    log.close()
    page.wait_for_function("document.body.dataset.seq === '12'", timeout=5000)
    latency = time.monotonic() - start
    assert _total(page, "ben") == "-9" and _total(page, "ana") == "-1"
    assert page.locator("#round-state").inner_text() == "finished"
    assert "ben AD on p5" in page.locator("#feed li").first.inner_text() or \
        "ben AD on p5" in page.locator("#feed").inner_text()
    assert latency < 3.0, f"scoreboard took {latency:.2f} s"  # the 1 s target: bench/dashboard.py
    _shot(page, "live-desktop")
    page.close()


def test_admin_controls_nerts_and_end_round(browser, site):
    base, db = site
    page = browser.new_page(bypass_csp=True)
    _login(page, base)
    page.select_option("#nerts-player", "ben")
    page.keyboard.press("n")  # the keyboard shortcut
    page.wait_for_function("document.body.dataset.seq === '11'")
    last = EventLog.open(db)
    assert last.events()[-1]["type"] == "nerts_called" and last.events()[-1]["player"] == "ben"
    page.fill('input[data-player="ana"]', "3")
    page.fill('input[data-player="ben"]', "0")
    page.click("#end-round button[type=submit]")
    # the Nerts flash may still be showing: wait for this action's own message
    page.wait_for_function("document.querySelector('#flash').innerText.trim() === 'round ended'", timeout=5000)
    page.wait_for_function("document.body.dataset.seq === '12'")
    assert last.events()[-1]["nerts_left"] == {"ana": 3, "ben": 0}
    page.click("#round-stuck")  # no round in play now: refused, and said so
    page.wait_for_selector("#flash.bad")
    assert "no round is in play" in page.locator("#flash").inner_text()
    assert last.last_seq() == 12
    last.close()
    page.close()


def test_dispute_footage_plays_and_steps_one_frame(browser, site):
    base, _ = site
    page = browser.new_page(bypass_csp=True)
    page.goto(f"{base}/review/{sample.DISPUTE_SEQ}")
    page.wait_for_function("document.getElementById('video').readyState >= 2", timeout=10000)
    page.wait_for_function("document.getElementById('video').dataset.frame !== undefined && "
                           "document.getElementById('video').dataset.frame !== ''")
    start = page.evaluate("document.getElementById('video').currentTime")
    assert abs(start - 0.95) < 0.05  # opened one second before the contact
    page.select_option("#speed", "1")
    page.click("#play")
    page.wait_for_function(f"document.getElementById('video').currentTime > {start + 0.2}", timeout=10000)
    page.click("#play")  # pause
    page.wait_for_function("document.getElementById('video').paused")
    page.click("#to-contact")
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 1.95) < 0.01")
    page.wait_for_function("document.getElementById('frame-readout').textContent === '58'")
    page.click("#frame-fwd")
    page.wait_for_function("document.getElementById('frame-readout').textContent === '59'")
    t59 = page.evaluate("document.getElementById('video').currentTime")
    assert 59 / 30 <= t59 < 60 / 30
    page.click("#frame-back")
    page.click("#frame-back")
    page.wait_for_function("document.getElementById('frame-readout').textContent === '57'")
    # slow motion is a playback rate; the overlay draws both contenders' outlines at the contact
    page.select_option("#speed", "0.25")
    assert page.evaluate("document.getElementById('video').playbackRate") == 0.25
    painted = page.evaluate("""() => {
        const c = document.getElementById('overlay');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const at = (x, y) => d[(y * c.width + x) * 4 + 3];
        return {w: c.width, caption: at(4, 4), ana: at(60, 130), ben: at(220, 120), inside: at(95, 130)};
    }""")
    assert painted["w"] == 320 and painted["caption"] > 0
    assert painted["ana"] > 0 and painted["ben"] > 0 and painted["inside"] == 0  # outlines, not fills
    assert "margin" in page.locator("#margin").inner_text() or page.locator("#margin").inner_text() == "50.0 ms"
    _shot(page, "review-desktop")
    page.close()


def test_overturn_rescores_the_game(browser, site):
    base, db = site
    page = browser.new_page(bypass_csp=True)
    _login(page, base)
    page.goto(f"{base}/review/{sample.DISPUTE_SEQ}")
    page.click("#correct button[value=overturn]")  # no reason: the browser refuses, nothing is sent
    assert EventLog.open(db).last_seq() == 10
    page.fill("#reason", "footage shows ben's card flat first")
    page.click("#correct button[value=overturn]")
    page.wait_for_selector("#flash:not(.bad)")
    page.wait_for_function("document.getElementById('ruling-kind').textContent.includes('overturned')",
                           timeout=5000)
    assert "footage shows ben's card flat first" in page.locator("#corrections").inner_text()
    page.goto(f"{base}/live")
    assert _total(page, "ana") == "2" and _total(page, "ben") == "-9"
    page.goto(f"{base}/game")
    assert page.locator('#stats tr[data-player="ana"] td').nth(2).inner_text() == "0"  # no dispute won now
    _shot(page, "game-desktop")
    page.close()


def test_a_spectators_overturn_is_refused(browser, site):
    base, db = site
    page = browser.new_page(bypass_csp=True)
    page.goto(f"{base}/review/{sample.DISPUTE_SEQ}")
    assert page.locator("#correct").count() == 0
    assert "Only the table's admin" in page.content()
    status, error = page.evaluate("""async (seq) => {
        const r = await fetch('/api/review/' + seq + '/correct', {method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': Nerts.csrf()},
            body: JSON.stringify({action: 'overturn', reason: 'I say so'})});
        return [r.status, (await r.json()).error];
    }""", sample.DISPUTE_SEQ)
    assert status == 403 and "admin only" in error
    log = EventLog.open(db)
    assert log.last_seq() == 10 and log.state().totals == {"ana": 3, "ben": -10}
    log.close()
    page.close()


def test_game_page_follows_the_log_without_a_reload(browser, site):
    base, db = site
    page = browser.new_page(bypass_csp=True)
    page.goto(f"{base}/game")
    page.wait_for_function("document.getElementById('feed-status').textContent === 'live'")
    page.evaluate("window.sameDocument = true")  # gone if the page reloads
    assert page.locator("#rounds tbody tr").count() == 1
    log = EventLog.open(db)  # the pipeline's writer, not the dashboard
    log.append({"type": "card_touched", "t": 3.8, "card": "AD", "player": "ben", "pile": "p5"})
    log.append({"type": "round_ended", "t": 3.9, "nerts_left": {"ana": 2, "ben": 0}})
    log.close()
    page.wait_for_function("document.body.dataset.seq === '12'", timeout=5000)
    assert page.evaluate("window.sameDocument") is True
    assert page.locator("#rounds tbody tr").count() == 2
    assert page.locator("#rounds tfoot").inner_text().split() == ["Total", "-1", "-9"]
    assert page.locator('#stats tr[data-player="ben"] td').nth(1).inner_text() == "1"  # ben's AD stayed
    assert page.locator(".chart-wrap polyline").count() == 2
    page.close()


def test_set_pile_from_the_review_page(browser, site):
    base, db = site
    page = browser.new_page(bypass_csp=True)
    _login(page, base)
    page.goto(f"{base}/review/7")  # ana's 3H, seen on p1
    assert page.locator("#ruling-pile").inner_text() == "p1"
    form = page.locator("#fix-pile")
    form.locator("input[name=pile]").fill("p1")
    form.locator("button[type=submit]").click()  # no reason: the browser refuses, nothing is sent
    assert EventLog.open(db).last_seq() == 10
    form.locator("input[name=reason]").fill("it is already there")
    form.locator("button[type=submit]").click()  # the same pile: the server refuses, nothing changes
    page.wait_for_selector("#flash.bad")
    assert "already on pile p1" in page.locator("#flash").inner_text()
    assert EventLog.open(db).last_seq() == 10
    form.locator("input[name=pile]").fill("p2")
    form.locator("input[name=reason]").fill("the camera put it on the wrong pile")
    form.locator("button[type=submit]").click()
    page.wait_for_function("document.getElementById('ruling-pile').textContent.includes('seen on p1')",
                           timeout=5000)  # the page reloaded with the re-derived ruling
    assert page.locator("#ruling-pile").inner_text() == "p2 (seen on p1)"
    assert "take it back" in page.locator("#ruling-stays").inner_text()  # a 3H cannot start p2
    assert "the camera put it on the wrong pile" in page.locator("#corrections").inner_text()
    log = EventLog.open(db)
    assert log.events()[-1] == {"seq": 11, "type": "correction", "target": 7, "action": "set_pile", "pile": "p2",
                                "reason": "the camera put it on the wrong pile"}
    assert log.state().totals == {"ana": 2, "ben": -10}
    log.close()
    page.close()


@pytest.mark.parametrize("path", ["/live", "/game", "/review", f"/review/{sample.DISPUTE_SEQ}", "/setup", "/login"])
def test_pages_fit_a_phone(browser, site, path):
    base, _ = site
    context = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=1, is_mobile=True,
                                  bypass_csp=True)
    page = context.new_page()
    if path in ("/live", "/setup"):
        _login(page, base)  # the admin's controls are the widest part
    page.goto(base + path)
    page.wait_for_load_state("load") if path != "/live" else page.wait_for_selector("#scoreboard")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{path} is {overflow}px wider than a phone"
    _shot(page, "phone" + path.replace("/", "-"))
    context.close()


def test_setup_form_starts_a_new_game(browser, tmp_path):
    db = tmp_path / "new.db"
    app = create_app(db, admin_pin=PIN, poll_interval=0.05)
    server = DashboardServer(app, "127.0.0.1", 0, threads=16).start()
    base = server.url.rstrip("/")
    try:
        page = browser.new_page(bypass_csp=True)
        _login(page, base)
        page.goto(f"{base}/setup")
        rows = page.locator("#players tbody tr")
        for i, (name, back) in enumerate([("ana", "red"), ("ben", "#2e86ab"), ("cy", "green")]):
            rows.nth(i).locator('input[name="name"]').fill(name)
            rows.nth(i).locator('input[name="back"]').fill(back)
        page.select_option('select[name="rule.tie_rule"]', "neither_stays")
        page.fill('input[name="rule.target_score"]', "150")
        page.click("#settings button[type=submit]")
        page.wait_for_selector("text=players and rules are fixed", timeout=5000)  # reloaded, now locked
        log = EventLog.open(db)
        [event] = log.events()
        log.close()
        assert [(p["name"], p["back"], p["seat"]) for p in event["players"]] == \
            [("ana", "red", 0), ("ben", "#2e86ab", 1), ("cy", "green", 2)]
        assert event["settings"]["tie_rule"] == "neither_stays" and event["settings"]["target_score"] == 150
        page.goto(f"{base}/live")
        assert page.locator("#target-label").inner_text() == "first to 150"
        page.close()
    finally:
        server.stop()
