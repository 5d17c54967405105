"""The dashboard's one door to the event log: a cached replay, a watcher thread and appends.

The log may be written by this process (admin actions), by the vision pipeline's thread, or by
another process entirely (``nerts-referee run`` while a second ``serve`` shows the same file).
One watcher thread polls the log for new events, replays the state once per change and wakes
every Server-Sent-Events client; 50 spectators therefore cost one replay, not fifty.
"""

from __future__ import annotations

import bisect
import json
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from web_dashboard import summary


@dataclass(frozen=True)
class Snapshot:
    """Everything the pages show, computed once per change of the log."""

    seq: int  # highest seq seen (0 for an empty log)
    events: tuple[dict, ...]
    state: dict  # GameResult.to_dict()
    board: dict  # scoreboard payload (see summary.scoreboard)
    error: str | None = None  # the engine's complaint when the log could not be replayed
    taken_at: float = field(default_factory=time.monotonic)
    _messages: dict = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def rulings_index(self) -> dict[int, list[dict]]:
        return summary.rulings_by_seq(self.state)

    @cached_property
    def _seqs(self) -> list[int]:
        return [e["seq"] for e in self.events]

    def events_after(self, after_seq: int) -> tuple[dict, ...]:
        return self.events[bisect.bisect_right(self._seqs, after_seq):]

    def update_message(self, after_seq: int, build: Callable[["Snapshot", int], str]) -> str:
        """``build(self, after_seq)``, memoised: fifty spectators one change behind share one message."""
        message = self._messages.get(after_seq)
        if message is None:
            message = build(self, after_seq)
            if len(self._messages) < 8:
                self._messages[after_seq] = message
        return message


class GameStore:
    """Thread-safe access to one game's event log."""

    def __init__(self, log_path: str | Path, poll_interval: float = 0.1) -> None:
        from referee.eventlog import EventLog  # the contract's API (Contract 3)

        self.path = Path(log_path)
        self.poll_interval = poll_interval
        self._log = EventLog.open(self.path)  # thread-safe: a SQLite connection per thread inside
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self._events: list[dict] = []
        self._snapshot = self._build([], None)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.refresh()

    def log(self):
        """The shared ``EventLog`` (it gives each thread its own SQLite connection)."""
        return self._log

    # -- reading
    def snapshot(self) -> Snapshot:
        return self._snapshot

    def refresh(self) -> Snapshot:
        """Pull new events from the log; replay and wake waiters if there were any."""
        with self._cond:
            after = self._events[-1]["seq"] if self._events else 0
            new = self.log().events(after_seq=after)
            if new:
                self._events.extend(new)
                self._snapshot = self._build(self._events, self._snapshot)
                self._cond.notify_all()
            return self._snapshot

    def _build(self, events: list[dict], previous: Snapshot | None) -> Snapshot:
        seq = events[-1]["seq"] if events else 0
        if not events:
            state: dict = {"rulings": [], "totals": {}}
            return Snapshot(0, (), state, summary.scoreboard(state, [], seq=0))
        try:
            state = self.log().state().to_dict()
            error = None
        except Exception as exc:  # a log the engine cannot replay must still be viewable
            state = previous.state if previous else {"rulings": [], "totals": {}}
            error = f"{type(exc).__name__}: {exc}"
        board = summary.scoreboard(state, events, seq=seq)
        return Snapshot(seq, tuple(events), state, board, error)

    def wait(self, after_seq: int, timeout: float) -> Snapshot:
        """Return as soon as the log holds an event after ``after_seq`` (or at ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._snapshot.seq <= after_seq and not self._stop.is_set():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            return self._snapshot

    # -- writing (the dashboard changes the game only by appending events)
    def append(self, event: dict[str, Any]) -> int:
        """Append one event (validated by the log); the snapshot includes it when this returns."""
        with self._write_lock:
            seq = self.log().append(event)
        self.refresh()
        return seq

    def append_checked(self, build: Callable[[Snapshot], dict[str, Any]]) -> tuple[int, Snapshot]:
        """Append ``build(snapshot)`` with no other dashboard append in between.

        ``build`` sees the log as it is now and may raise to refuse the request; then nothing is
        appended. Returns the new event's seq and the snapshot that includes it.
        """
        with self._write_lock:
            event = build(self.refresh())
            seq = self.log().append(event)
        return seq, self.refresh()

    def frames(self, start_t: float | None = None, end_t: float | None = None) -> list[tuple[int, float]]:
        """The footage's ``(frame index, t)`` table between two times, in time order."""
        return [(int(i), float(t)) for i, t in self.log().frames(start_t, end_t)]

    def get_meta(self, key: str, default: Any = None) -> Any:
        """A meta value; JSON lists/objects (``set_meta`` stores non-strings as JSON) are decoded."""
        value = self.log().get_meta(key, default)
        if isinstance(value, str) and value[:1] in "[{":
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value

    # -- the watcher thread
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="eventlog-watcher", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_interval):
            try:
                self.refresh()
            except Exception:  # a transient lock or I/O error; try again on the next tick
                time.sleep(self.poll_interval)

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._log.close()
