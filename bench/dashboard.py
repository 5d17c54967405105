"""Dashboard under load: 50 spectators (SSE + MJPEG each) while the pipeline works and publishes.

One process holds what ``nerts-referee run`` holds: the dashboard server (Cheroot threads), a
busy "pipeline" thread that processes frames as fast as it can (OpenCV work on a 960x540 frame
plus Python bookkeeping, as the vision pipeline does) and publishes an annotated JPEG to the
frame hub at 30 fps of wall time, and a referee thread appending observations to the event log.
The spectators run in a separate process (asyncio sockets on loopback) so their own cost does
not land on the server's process.

Figures:
  - pipeline frame rate alone vs. with the spectators connected: the drop (target <= 10%),
  - event delivery latency, append returned -> SSE message read by a spectator (target <= 1 s),
  - MJPEG frames each spectator received per second.

    .venv/bin/python bench/dashboard.py [--clients 50] [--seconds 4] [--cycles 3] [--mjpeg-fps N]

Bounded in time (2 x cycles x (seconds + ~1.5) s, about 35 s by default), loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# -- spectators (child process) -------------------------------------------------------------------

async def _sse_client(port: int, seen: dict[int, float], stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /api/stream HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    buf = b""
    try:
        while not stop.is_set():
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 0.5)
            except asyncio.TimeoutError:
                continue
            if not chunk:
                break
            now = time.time()
            buf += chunk
            # feed lines carry "seq": N; record the first arrival of each seq at this client
            while b'"seq":' in buf:
                i = buf.index(b'"seq":') + 6
                j = i
                while j < len(buf) and buf[j:j + 1].isdigit():
                    j += 1
                if j == len(buf):
                    break
                seq = int(buf[i:j]) if j > i else None
                buf = buf[j:]
                if seq is not None and seq not in seen:
                    seen[seq] = now
            buf = buf[-64:]
    finally:
        writer.close()


async def _mjpeg_client(port: int, counts: list[int], k: int, stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /live/stream.mjpg HTTP/1.1\r\nHost: bench\r\n\r\n")
    await writer.drain()
    tail = b""
    try:
        while not stop.is_set():
            try:
                chunk = await asyncio.wait_for(reader.read(1 << 20), 0.5)
            except asyncio.TimeoutError:
                continue
            if not chunk:
                break
            data = tail + chunk
            counts[k] += data.count(b"--nertsframe\r\n")
            tail = data[-20:]
            counts[k] -= tail.count(b"--nertsframe\r\n")  # counted again with the next chunk
    finally:
        writer.close()


def spectators(port: int, clients: int, cmd: "mp.Queue", out: "mp.Queue") -> None:
    """On each "connect" command: open ``clients`` SSE + MJPEG pairs, report "ready" once they
    stream; on "disconnect": close them and report what they received. "quit" ends."""

    async def session() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        seen = [dict() for _ in range(clients)]
        counts = [0] * clients
        tasks = [asyncio.create_task(_sse_client(port, seen[k], stop)) for k in range(clients)]
        tasks += [asyncio.create_task(_mjpeg_client(port, counts, k, stop)) for k in range(clients)]
        await asyncio.sleep(1.0)  # all connected and past their first frame
        start_counts = list(counts)
        t0, cpu0 = time.time(), time.process_time()
        out.put({"ready": t0})
        await loop.run_in_executor(None, cmd.get)  # "disconnect"
        t1, cpu1 = time.time(), time.process_time()
        fps = [(c - s) / (t1 - t0) for c, s in zip(counts, start_counts)]
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        out.put({"window": [t0, t1], "cpu": (cpu1 - cpu0) / (t1 - t0), "seen": [{str(k): v for k, v in s.items()} for s in seen], "fps": fps})

    while cmd.get() == "connect":
        asyncio.run(session())


# -- the dashboard process ---------------------------------------------------------------------------

class Pipeline(threading.Thread):
    """Busy loop standing in for the vision pipeline: process frames as fast as possible and
    publish an annotated JPEG every 1/30 s of wall time."""

    def __init__(self, hub, fps: float = 30.0):
        super().__init__(daemon=True, name="pipeline")
        import cv2
        import numpy as np

        cv2.setNumThreads(1)  # one pipeline thread; the other core is the server's (and the clients')
        self.cv2, self.np = cv2, np
        # a table as the camera sees it: baize with sensor noise and a dozen cards (a noise-only
        # frame would make 290 KB JPEGs, ten times a real one)
        rng = np.random.default_rng(0)
        img = np.full((540, 960, 3), (40, 110, 60), np.uint8)
        img = cv2.add(img, rng.integers(0, 16, (540, 960, 3), np.uint8))
        for i in range(12):
            x, y = 80 + i * 70, 150 + (i % 3) * 90
            cv2.rectangle(img, (x, y), (x + 55, y + 80), (245, 245, 245), -1)
            cv2.putText(img, "7H", (x + 5, y + 25), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 200), 2)
        self.frame = img
        self.hub = hub
        self.period = 1.0 / fps
        self.processed = 0
        self.published = 0
        self.cpu = 0.0  # this thread's CPU seconds
        self.stop = threading.Event()

    def run(self) -> None:
        cv2, np = self.cv2, self.np
        next_pub = time.monotonic()
        start = time.monotonic()
        while not self.stop.is_set():
            # detection-like work: a blur and a difference (OpenCV releases the GIL) ...
            small = cv2.resize(self.frame, (480, 270))
            blurred = cv2.GaussianBlur(small, (9, 9), 0)
            moving = cv2.absdiff(small, blurred)
            # ... and tracking-like bookkeeping in Python (holds the GIL)
            boxes = [(i * 7 % 480, i * 13 % 270, 40, 60) for i in range(40)]
            _ = sorted(boxes, key=lambda b: (b[0] - 240) ** 2 + (b[1] - 135) ** 2)
            _ = float(np.mean(moving))
            self.processed += 1
            self.cpu = time.thread_time()
            now = time.monotonic()
            if now >= next_pub:
                annotated = self.frame.copy()
                cv2.rectangle(annotated, (100, 100), (300, 400), (0, 0, 255), 3)
                jpeg = cv2.imencode(".jpg", annotated, [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
                self.published += 1
                self.hub.publish(jpeg, self.published, now - start)
                next_pub += self.period
                if next_pub < now:
                    next_pub = now + self.period

    def rate(self, seconds: float) -> tuple[float, float]:
        """Frames per second over ``seconds``, and the CPU share (of one core) the rest of this
        process used meanwhile (the server's threads, the watcher, the referee)."""
        before, cpu0, proc0 = self.processed, self.cpu, time.process_time()
        time.sleep(seconds)
        others = (time.process_time() - proc0) - (self.cpu - cpu0)
        return (self.processed - before) / seconds, others / seconds


class Referee(threading.Thread):
    """Appends observations to the log (as the pipeline's referee step does), ``rate`` per second."""

    def __init__(self, db: Path, rate: float = 5.0):
        super().__init__(daemon=True, name="referee")
        from referee.eventlog import EventLog

        self.log = EventLog.open(db)
        self.period = 1.0 / rate
        self.sent: dict[int, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        t = 10.0
        suits = "CDHS"
        i = 0
        while not self.stop.wait(self.period):
            i += 1
            t += self.period
            card = f"{'A23456789'[i % 9]}{suits[(i // 9) % 4]}"
            seq = self.log.append({"type": "card_touched", "t": round(t, 3), "card": card,
                                   "player": "ana" if i % 2 else "ben", "pile": f"b{i % 7}",
                                   "uncertainty_ms": 8.0})
            self.sent[seq] = time.time()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each measuring window")
    parser.add_argument("--cycles", type=int, default=3, help="pairs of windows (alone, with spectators)")
    parser.add_argument("--mjpeg-fps", type=float, default=15.0,
                        help="cap each spectator's live view (create_app(mjpeg_max_fps=...)); default: the product's 15")
    args = parser.parse_args()

    from web_dashboard import sample
    from web_dashboard.app import create_app
    from web_dashboard.live import FrameHub
    from web_dashboard.serving import DashboardServer

    tmp = Path(tempfile.mkdtemp(prefix="nerts-bench-"))
    db = sample.make_sample_game(tmp, footage=False)
    hub = FrameHub()
    app = create_app(db, hub=hub, admin_pin="0000", mjpeg_max_fps=args.mjpeg_fps)
    server = DashboardServer(app, "127.0.0.1", 0, threads=2 * args.clients + 32).start()
    pipeline = Pipeline(hub)
    referee = Referee(db)
    pipeline.start()
    referee.start()
    time.sleep(1.0)  # warm up

    # Alternate windows without and with the spectators, so load from other programs on the
    # machine falls on both sides alike; the drop compares the medians.
    ctx = mp.get_context("spawn")
    cmd, out = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=spectators, args=(server.port, args.clients, cmd, out), daemon=True)
    proc.start()
    alone, together, reports, cpu_alone, cpu_together = [], [], [], [], []
    for _ in range(args.cycles):
        fps_, cpu = pipeline.rate(args.seconds)
        alone.append(fps_)
        cpu_alone.append(cpu)
        cmd.put("connect")
        out.get(timeout=60)  # ready
        fps_, cpu = pipeline.rate(args.seconds)
        together.append(fps_)
        cpu_together.append(cpu)
        cmd.put("disconnect")
        reports.append(out.get(timeout=60))
        time.sleep(0.5)  # let the server notice the closed streams
    cmd.put("quit")
    proc.join(timeout=10)

    pipeline.stop.set()
    referee.stop.set()
    referee.join()
    server.stop()

    # latency of every event appended while the spectators listened, at every spectator
    latencies = []
    missed = 0
    fps = []
    for report in reports:
        t0, t1 = report["window"]
        fps += report["fps"]
        for seq, sent in referee.sent.items():
            if not t0 <= sent <= t1 - 1.0:
                continue
            for seen in report["seen"]:
                got = seen.get(str(seq))
                if got is None:
                    missed += 1
                else:
                    latencies.append(got - sent)
    latencies.sort()
    baseline, loaded = statistics.median(alone), statistics.median(together)
    drop = 1.0 - loaded / baseline if baseline else float("nan")
    result = {
        "clients": args.clients,
        "windows_alone_fps": [round(x) for x in alone],
        "windows_with_spectators_fps": [round(x) for x in together],
        "pipeline_fps_alone": round(baseline, 1),
        "pipeline_fps_with_spectators": round(loaded, 1),
        "pipeline_drop_pct": round(100 * drop, 1),
        "server_cpu_pct_of_a_core_alone": round(100 * statistics.median(cpu_alone), 1),
        "server_cpu_pct_of_a_core_with_spectators": round(100 * statistics.median(cpu_together), 1),
        "spectator_process_cpu_pct_of_a_core": round(100 * statistics.median(r["cpu"] for r in reports), 1),
        "events_measured": len(latencies),
        "events_missed": missed,
        "latency_median_ms": round(1000 * statistics.median(latencies), 1) if latencies else None,
        "latency_p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1) if latencies else None,
        "latency_max_ms": round(1000 * latencies[-1], 1) if latencies else None,
        "mjpeg_fps_per_client_median": round(statistics.median(fps), 1) if fps else None,
        "mjpeg_fps_per_client_min": round(min(fps), 1) if fps else None,
        "published_fps": 30,
        "jpeg_kb": round(len(hub.latest().jpeg) / 1024, 1),
    }
    print(json.dumps(result, indent=2))
    ok_latency = bool(latencies) and latencies[-1] <= 1.0 and missed == 0
    ok_drop = drop <= 0.10
    print(f"event delivery: max {result['latency_max_ms']} ms (target <= 1000 ms) "
          f"{'OK' if ok_latency else 'MISSED'}")
    print(f"pipeline frame rate drop: {result['pipeline_drop_pct']}% (target <= 10%) {'OK' if ok_drop else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
