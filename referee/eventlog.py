"""The event log: an append-only SQLite file, the single source of truth (Contract 3).

Every observation and correction is validated, then stored with a monotonically increasing
``seq`` in its own durable transaction (WAL, ``synchronous=FULL``): when ``append`` returns, the event
survives a crash of the process or the machine. Rulings are never stored: they are derived, so a
correction re-derives everything after it. ``state()`` is the replay of the whole log.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "game.db")
>>> log = EventLog.open(path)
>>> log.append({"type": "round_started", "t": 0.0})
1
>>> log.append({"type": "card_touched", "t": 1.0, "card": "AS", "player": "ana", "pile": "p1"})
2
>>> [e["seq"] for e in log.events(after_seq=1)]
[2]
>>> log.state().rulings[-1]["kind"]
'accepted'
>>> log.close()

One writer thread and any number of reader threads may share an ``EventLog`` (each thread gets
its own SQLite connection); other processes may open the same file (SQLite locks the writes).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, TextIO

from referee.engine import Engine, GameResult
from referee.observations import EventError, parse_jsonl_line
from referee.settings import TableSettings

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq  INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    t    REAL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS frames (
    idx INTEGER PRIMARY KEY,
    t   REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS frames_t ON frames (t);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class EventLog:
    """An open game log. Use :meth:`open`; close with :meth:`close` (or a ``with`` block)."""

    def __init__(self, path: str | Path, settings: TableSettings | None = None):
        self.path = str(path)
        self._local = threading.local()
        self._lock = threading.RLock()  # one writer at a time, and the cached engine
        self._conns: list[sqlite3.Connection] = []
        conn = self._conn()
        with self._lock:
            conn.executescript(SCHEMA)
        if settings is not None:
            self.set_meta("settings", json.dumps(settings.to_dict()))
            self._settings = settings
        else:
            raw = self.get_meta("settings")
            self._settings = TableSettings.from_dict(json.loads(raw)) if raw else TableSettings()
        self._engine: Engine | None = None
        self._result: tuple[Engine, int, GameResult] | None = None

    @classmethod
    def open(cls, path: str | Path, settings: TableSettings | None = None) -> "EventLog":
        """Create or open the log at ``path``. ``settings`` (players, rules) are stored in the log's
        meta table and used as the base of every replay; a ``game_started`` event overrides them."""
        return cls(path, settings)

    # --- connections ---
    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            for c in self._conns:
                try:
                    c.close()
                except sqlite3.ProgrammingError:  # pragma: no cover - closed from another thread
                    pass
            self._conns.clear()
            self._local = threading.local()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def settings(self) -> TableSettings:
        return self._settings

    # --- the engine cache (kept in step with the file, also across processes) ---
    def _catch_up(self, conn: sqlite3.Connection) -> Engine:
        eng = self._engine
        if eng is None:
            eng = self._engine = Engine(self._settings)
        rows = conn.execute("SELECT seq, body FROM events WHERE seq > ? ORDER BY seq", (eng.last_seq,)).fetchall()
        for seq, body in rows:
            eng.feed(json.loads(body), seq)
        return eng

    # --- writing ---
    def append(self, event: Mapping[str, Any]) -> int:
        """Validate and store one event; return its seq. Durable when it returns.

        Raises :class:`referee.observations.EventError` (naming the field) and stores nothing if
        the event is malformed or cannot apply (e.g. a correction of a seq that does not exist).
        """
        return self.append_many([event])[0]

    def append_many(self, events: Iterable[Mapping[str, Any]]) -> list[int]:
        """Store several events in one durable transaction: all of them, or (on error) none."""
        conn = self._conn()
        with self._lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                eng = self._catch_up(conn)
                seqs = []
                for i, ev in enumerate(events):
                    try:
                        if not isinstance(ev, Mapping):
                            raise EventError(f"expected a JSON object, got {type(ev).__name__}")
                        # what is stored is exactly what a replay will read back
                        text = json.dumps({k: v for k, v in ev.items() if k != "seq"}, separators=(",", ":"),
                                          default=_jsonable, allow_nan=False)
                        parsed = eng.check(json.loads(text))
                    except (TypeError, ValueError) as exc:
                        if not isinstance(exc, EventError):
                            exc = EventError(f"not storable as JSON: {exc}")
                        if i:
                            raise EventError(f"event {i + 1} of the batch: {exc.message}", exc.field) from None
                        raise exc from None
                    seq = eng.last_seq + 1
                    conn.execute("INSERT INTO events (seq, type, t, body) VALUES (?, ?, ?, ?)",
                                 (seq, parsed.type, getattr(parsed, "t", None), text))
                    eng.feed(parsed, seq)
                    seqs.append(seq)
                conn.execute("COMMIT")
                return seqs
            except BaseException:
                conn.execute("ROLLBACK")
                self._engine = None  # it may have seen events that were rolled back
                raise

    def import_jsonl(self, source: str | Path | TextIO | Iterable[str]) -> list[int]:
        """Append every event of a JSON Lines file (one transaction, durable when it returns).

        On a bad line, the events before it stay committed and :class:`EventError` names the line
        and the field. ``seq`` fields in the file (an export) are replaced by new seqs, and the
        ``target`` of a correction is renumbered to match.
        """
        if isinstance(source, (str, Path)):
            with open(source, encoding="utf-8") as fh:
                return self.import_jsonl(fh)
        conn = self._conn()
        seqs: list[int] = []
        renumber: dict[int, int] = {}
        with self._lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                eng = self._catch_up(conn)
                for lineno, text in enumerate(source, 1):
                    parsed_line = parse_jsonl_line(text, lineno)
                    if parsed_line is None:
                        continue
                    raw, _ = parsed_line
                    old = raw.pop("seq", None)
                    if raw.get("type") == "correction" and isinstance(raw.get("target"), int):
                        raw["target"] = renumber.get(raw["target"], raw["target"])
                    try:
                        parsed = eng.check(raw)
                    except EventError as exc:
                        raise exc.at_line(lineno) from None
                    seq = eng.last_seq + 1
                    conn.execute("INSERT INTO events (seq, type, t, body) VALUES (?, ?, ?, ?)",
                                 (seq, parsed.type, getattr(parsed, "t", None), json.dumps(raw, separators=(",", ":"))))
                    eng.feed(parsed, seq)
                    seqs.append(seq)
                    if isinstance(old, int):
                        renumber[old] = seq
            except EventError:
                conn.execute("COMMIT")  # keep every good line before the bad one
                raise
            except BaseException:
                conn.execute("ROLLBACK")
                self._engine = None
                raise
            conn.execute("COMMIT")
        return seqs

    def export_jsonl(self, dest: str | Path | TextIO) -> int:
        """Write every event, with its seq, one JSON object per line; return the count."""
        if isinstance(dest, (str, Path)):
            with open(dest, "w", encoding="utf-8") as fh:
                return self.export_jsonl(fh)
        n = 0
        for ev in self.iter_events():
            dest.write(json.dumps(ev, separators=(",", ":")) + "\n")
            n += 1
        return n

    # --- reading ---
    def iter_events(self, after_seq: int = 0) -> Iterator[dict[str, Any]]:
        conn = self._conn()
        for seq, body in conn.execute("SELECT seq, body FROM events WHERE seq > ? ORDER BY seq", (after_seq,)):
            yield {"seq": seq, **json.loads(body)}

    def events(self, after_seq: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        """Events with seq > ``after_seq`` in seq order, each a dict with ``seq`` first."""
        conn = self._conn()
        sql = "SELECT seq, body FROM events WHERE seq > ? ORDER BY seq"
        args: tuple = (after_seq,)
        if limit is not None:
            sql += " LIMIT ?"
            args = (after_seq, int(limit))
        return [{"seq": seq, **json.loads(body)} for seq, body in conn.execute(sql, args)]

    def event(self, seq: int) -> dict[str, Any] | None:
        row = self._conn().execute("SELECT body FROM events WHERE seq = ?", (seq,)).fetchone()
        return {"seq": seq, **json.loads(row[0])} if row else None

    def last_seq(self) -> int:
        return self._conn().execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]

    def state(self) -> GameResult:
        """The replay of the whole log (incremental: only new events are fed to a cached engine).

        Between appends the same :class:`GameResult` is returned again: treat it as read-only."""
        conn = self._conn()
        with self._lock:
            conn.execute("BEGIN")  # one consistent snapshot
            try:
                eng = self._catch_up(conn)
                cached = self._result
                if cached is not None and cached[0] is eng and cached[1] == len(eng.order):
                    return cached[2]
                result = eng.result()
                self._result = (eng, len(eng.order), result)
                return result
            finally:
                conn.execute("COMMIT")

    def ruling(self, seq: int) -> dict[str, Any] | None:
        """The current ruling on the card touch ``seq`` (cheap: for a pipeline that asks after
        every append; ``state()`` derives the whole game)."""
        conn = self._conn()
        with self._lock:
            conn.execute("BEGIN")
            try:
                return self._catch_up(conn).ruling(seq)
            finally:
                conn.execute("COMMIT")

    def legal_next(self) -> dict[str, str]:
        """What each open pile of the current round needs next (published state for vision)."""
        conn = self._conn()
        with self._lock:
            conn.execute("BEGIN")
            try:
                return self._catch_up(conn).legal_next()
            finally:
                conn.execute("COMMIT")

    def engine(self) -> Engine:
        """A fresh engine holding the whole log (e.g. for ``legal_next()``)."""
        eng = Engine(self._settings)
        eng.feed_all(self.iter_events())
        return eng

    # --- frames: footage index -> timestamp ---
    def add_frames(self, frames: Iterable[tuple[int, float]]) -> int:
        """Record ``(frame index, t)`` pairs (one durable transaction); re-adding an index replaces it."""
        rows = [(int(i), float(t)) for i, t in frames]
        conn = self._conn()
        with self._lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("INSERT OR REPLACE INTO frames (idx, t) VALUES (?, ?)", rows)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        return len(rows)

    def frame_time(self, index: int) -> float | None:
        row = self._conn().execute("SELECT t FROM frames WHERE idx = ?", (index,)).fetchone()
        return row[0] if row else None

    def frame_at(self, t: float) -> int | None:
        """The index of the frame nearest to time ``t`` (``None`` without frames)."""
        conn = self._conn()
        before = conn.execute("SELECT idx, t FROM frames WHERE t <= ? ORDER BY t DESC LIMIT 1", (t,)).fetchone()
        after = conn.execute("SELECT idx, t FROM frames WHERE t >= ? ORDER BY t LIMIT 1", (t,)).fetchone()
        cands = [r for r in (before, after) if r]
        return min(cands, key=lambda r: (abs(r[1] - t), r[0]))[0] if cands else None

    def frames(self, start_t: float | None = None, end_t: float | None = None) -> list[tuple[int, float]]:
        """``(index, t)`` of the frames with start_t <= t <= end_t, in time order."""
        lo = float("-inf") if start_t is None else start_t
        hi = float("inf") if end_t is None else end_t
        return [(i, t) for i, t in self._conn().execute(
            "SELECT idx, t FROM frames WHERE t >= ? AND t <= ? ORDER BY t, idx", (lo, hi))]

    # --- meta ---
    def set_meta(self, key: str, value: Any) -> None:
        """Store a small fact about the game (strings as they are, anything else as JSON)."""
        text = value if isinstance(value, str) else json.dumps(value)
        conn = self._conn()
        with self._lock:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, text))

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self._conn().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def meta(self) -> dict[str, str]:
        return dict(self._conn().execute("SELECT key, value FROM meta"))


def _jsonable(value: Any) -> Any:
    """numpy scalars and arrays (from vision) become plain numbers and lists."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def read_jsonl(source: str | Path | TextIO | Iterable[str]) -> list[dict[str, Any]]:
    """Parse a JSON Lines file of events (no log); raise :class:`EventError` with the line number."""
    if isinstance(source, (str, Path)):
        with open(source, encoding="utf-8") as fh:
            return read_jsonl(fh)
    out = []
    for lineno, text in enumerate(source, 1):
        parsed = parse_jsonl_line(text, lineno)
        if parsed is not None:
            out.append(parsed[0])
    return out


__all__ = ["EventLog", "read_jsonl"]
