"""The event log: durable, append-only, replayable; survives SIGKILL at any moment."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import threading
import time

import pytest

from referee.engine import replay
from referee.eventlog import EventLog
from referee.observations import EventError
from referee.settings import TableSettings

SETTINGS = TableSettings.from_dict({"players": [{"name": "ana", "back": "red"}, {"name": "ben", "back": "blue"}]})


def scripted_event(i: int) -> dict:
    """Event number i (1-based) of an endless deterministic game: rounds of 30 events."""
    rnd, k = divmod(i - 1, 30)
    base = rnd * 100.0
    if k == 0:
        return {"type": "round_started", "t": base}
    if k == 29:
        return {"type": "round_ended", "t": base + 50, "nerts_left": {"ana": rnd % 3, "ben": 2}}
    suit = "CDHS"[(k - 1) % 4]
    rank = (k - 1) // 4 + 1
    card = ({1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))) + suit
    # every fifth card is reported 0.3 s late (out of arrival order)
    t = base + k * 0.5 - (0.3 if k % 5 == 0 else 0.0)
    return {"type": "card_touched", "t": t, "card": card, "player": "ana" if k % 3 else "ben",
            "pile": f"r{rnd}{suit}", "uncertainty_ms": 5.0}


def test_append_returns_increasing_seqs_and_events_round_trip(tmp_path):
    log = EventLog.open(tmp_path / "g.db", SETTINGS)
    seqs = [log.append(scripted_event(i)) for i in range(1, 11)]
    assert seqs == list(range(1, 11))
    evs = log.events()
    assert [e["seq"] for e in evs] == seqs
    assert {k: v for k, v in evs[3].items() if k != "seq"} == scripted_event(4)
    assert log.events(after_seq=8) == evs[8:] and log.events(after_seq=2, limit=2) == evs[2:4]
    assert log.state().to_dict() == replay([scripted_event(i) for i in range(1, 11)], SETTINGS).to_dict()
    log.close()


def test_wal_and_synchronous_full(tmp_path):
    log = EventLog.open(tmp_path / "g.db")
    conn = log._conn()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    log.close()


def test_a_rejected_event_changes_nothing(tmp_path):
    log = EventLog.open(tmp_path / "g.db", SETTINGS)
    log.append(scripted_event(1))
    log.append(scripted_event(2))
    before = (log.events(), log.state().to_dict())
    for bad, field in [({"type": "card_touched", "t": 1, "card": "11H", "player": "ana", "pile": "p"}, "card"),
                       ({"type": "bogus"}, "type"),
                       ({"type": "correction", "target": 42, "action": "overturn", "reason": "x"}, "target"),
                       ({"type": "correction", "target": 2, "action": "overturn"}, "reason")]:
        with pytest.raises(EventError) as exc:
            log.append(bad)
        assert exc.value.field == field
    with pytest.raises(EventError):  # a batch is all or nothing
        log.append_many([scripted_event(3), {"type": "bogus"}])
    assert (log.events(), log.state().to_dict()) == before
    assert log.append(scripted_event(3)) == 3
    log.close()


def test_reopen_resumes_exactly(tmp_path):
    path = tmp_path / "g.db"
    with EventLog.open(path, SETTINGS) as log:
        log.append_many([scripted_event(i) for i in range(1, 40)])
        state = log.state().to_dict()
    with EventLog.open(path) as log:  # settings come back from the log's meta table
        assert log.state().to_dict() == state
        assert log.append(scripted_event(40)) == 40


def test_corrections_in_the_log_re_derive(tmp_path):
    with EventLog.open(tmp_path / "g.db", SETTINGS) as log:
        log.append_many([scripted_event(i) for i in range(1, 31)])
        before = log.state()
        r = before.ruling(2)
        assert r["kind"] == "accepted"
        log.append({"type": "correction", "target": 2, "action": "overturn", "reason": "false detection"})
        after = log.state()
        assert after.ruling(2)["reason"] == "overturned"
        assert after.ruling(6)["reason"] == "no_such_pile"  # 2C no longer has an Ace under it
        assert after.totals != before.totals


def test_export_import_round_trip_renumbers_correction_targets(tmp_path):
    with EventLog.open(tmp_path / "a.db", SETTINGS) as a:
        a.append_many([scripted_event(i) for i in range(1, 31)])
        a.append({"type": "correction", "target": 6, "action": "set_owner", "player": "ben", "reason": "back colour"})
        buf = io.StringIO()
        assert a.export_jsonl(buf) == 31
        state = a.state().to_dict()
    lines = buf.getvalue().splitlines()
    with EventLog.open(tmp_path / "b.db", SETTINGS) as b:
        b.append(scripted_event(1))  # b already holds one event: every seq shifts by one
        b.import_jsonl(lines[1:])
        assert b.events()[-1]["target"] == 6
        assert b.state().to_dict()["totals"] == state["totals"]


def test_import_keeps_the_lines_before_a_bad_one(tmp_path):
    lines = [json.dumps(scripted_event(i)) for i in range(1, 6)] + ['{"type": "card_touched", "t": 3}'] + \
        [json.dumps(scripted_event(7))]
    with EventLog.open(tmp_path / "g.db") as log:
        with pytest.raises(EventError) as exc:
            log.import_jsonl(lines)
        assert exc.value.line == 6 and exc.value.field == "card"
        assert len(log.events()) == 5
    with EventLog.open(tmp_path / "g.db") as log:
        assert len(log.events()) == 5


def test_legal_next_from_the_log(tmp_path):
    with EventLog.open(tmp_path / "g.db", SETTINGS) as log:
        log.append_many([scripted_event(i) for i in range(1, 8)])
        assert log.legal_next() == {"r0C": "3C", "r0D": "3D", "r0H": "2H", "r0S": "2S"}  # AC..AS, 2C, 2D


def test_frames_and_meta(tmp_path):
    with EventLog.open(tmp_path / "g.db") as log:
        log.add_frames([(i, i / 30.0) for i in range(300)])
        assert log.frame_time(30) == pytest.approx(1.0)
        assert log.frame_at(1.01) == 30 and log.frame_at(99) == 299 and log.frame_time(1000) is None
        assert [i for i, _ in log.frames(1.0, 1.1)] == [30, 31, 32, 33]
        log.set_meta("footage", "table.mp4")
        log.set_meta("fps", 30)
        assert log.get_meta("footage") == "table.mp4" and json.loads(log.get_meta("fps")) == 30
        assert log.get_meta("missing", "x") == "x"


def test_one_writer_thread_and_reader_threads(tmp_path):
    log = EventLog.open(tmp_path / "g.db", SETTINGS)
    errors: list[BaseException] = []
    done = threading.Event()

    def writer():
        try:
            for i in range(1, 61):
                log.append(scripted_event(i))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            done.set()

    def reader():
        try:
            last = 0
            while not done.is_set() or last < 60:
                evs = log.events(after_seq=last)
                assert [e["seq"] for e in evs] == list(range(last + 1, last + 1 + len(evs)))
                last += len(evs)
                st = log.state()
                assert st.last_seq >= last
                time.sleep(0.002)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert not errors
    assert log.state().to_dict() == replay([scripted_event(i) for i in range(1, 61)], SETTINGS).to_dict()
    log.close()


# --- the crash test -------------------------------------------------------------------------------

def _child(path: str, conn) -> None:  # runs in a forked process
    log = EventLog.open(path, SETTINGS)
    i = log.last_seq()
    while True:
        i += 1
        seq = log.append(scripted_event(i))
        conn.send(seq)  # reported only once append has returned (committed)


def test_sigkill_at_50_random_moments_loses_no_committed_event(tmp_path):
    ctx = multiprocessing.get_context("fork")
    path = str(tmp_path / "crash.db")
    rng = random.Random(20261129)
    committed = 0
    EventLog.open(path, SETTINGS).close()  # the table is set up once; children reopen it
    for _ in range(50):
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(path, child), daemon=True)
        proc.start()
        child.close()
        if rng.random() < 0.3:  # any moment, start-up included
            time.sleep(rng.uniform(0.0, 0.03))
        else:  # mid-stream: after a random number of commits, plus a random fraction of one
            for _ in range(rng.randint(1, 6)):
                if not parent.poll(2.0):
                    break
                committed = max(committed, parent.recv())
            time.sleep(rng.uniform(0.0, 0.004))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        while parent.poll():
            try:
                committed = max(committed, parent.recv())
            except EOFError:
                break
        parent.close()
        # reopen: every committed event is there, in order, intact, and the state is their replay
        with EventLog.open(path) as log:
            evs = log.events()
            assert len(evs) >= committed
            assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1))
            for e in evs:
                assert {k: v for k, v in e.items() if k != "seq"} == scripted_event(e["seq"])
            assert log.state().to_dict() == replay([scripted_event(i) for i in range(1, len(evs) + 1)],
                                                   SETTINGS).to_dict()
            committed = len(evs)
    assert committed > 50  # the children really wrote
    # the file is a healthy SQLite database
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_what_is_stored_is_what_replays(tmp_path):
    np = pytest.importorskip("numpy")
    with EventLog.open(tmp_path / "g.db") as log:
        log.append({"type": "card_touched", "t": np.float64(1.5), "card": "AS", "player": "ana", "pile": "p1",
                    "evidence": {"frames": np.array([44, 46]), "box": (1, 2)}})
        live = log.state().to_dict()
        assert log.events()[0]["evidence"] == {"frames": [44, 46], "box": [1, 2]}
    with EventLog.open(tmp_path / "g.db") as log:
        assert log.state().to_dict() == live
        with pytest.raises(EventError, match="not storable as JSON"):
            log.append({"type": "round_started", "t": 3.0, "note": object()})
        assert log.last_seq() == 1


def test_cheap_ruling_lookup_matches_the_full_state(tmp_path):
    with EventLog.open(tmp_path / "g.db", SETTINGS) as log:
        for i in range(1, 31):
            seq = log.append(scripted_event(i))
            if scripted_event(i)["type"] == "card_touched":
                assert log.ruling(seq) == log.state().ruling(seq)
        assert log.state() is log.state()  # unchanged log: the same result, not derived again
        assert log.ruling(1) is None  # a round_started is not a card ruling
