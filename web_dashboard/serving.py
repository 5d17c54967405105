"""Serving the dashboard with a threaded production WSGI server, in this process.

The camera pipeline publishes frames into a :class:`~web_dashboard.live.FrameHub` held by the
app, so server and pipeline must share one process. Gunicorn always forks its workers from an
arbiter (an app object built before the fork loses the pipeline's threads), so the dashboard
uses Cheroot (CherryPy's pure-Python HTTP/1.1 server): a fixed pool of threads inside this
process, one per active request. Long-lived streams (MJPEG, Server-Sent Events) each hold one
thread, so the pool is sized for them (``threads``, default 160: 50 spectators with both streams
plus page loads). Idle keep-alive connections hold no thread.

>>> server = DashboardServer(app, "127.0.0.1", 0)   # doctest: +SKIP
>>> server.start(); server.url                      # doctest: +SKIP
'http://127.0.0.1:43117/'
>>> server.stop()                                   # doctest: +SKIP
"""

from __future__ import annotations

import threading

from flask import Flask

DEFAULT_THREADS = 160


class DashboardServer:
    """A Cheroot server around the Flask app; ``start()`` in a background thread or ``serve_forever()``."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 8000,
                 threads: int = DEFAULT_THREADS) -> None:
        from cheroot.wsgi import Server

        if threads < 4:
            raise ValueError("threads must be at least 4 (streams hold one thread each)")
        self.app = app
        self._server = Server((host, port), app, numthreads=threads, max=threads,
                              request_queue_size=128, timeout=30, shutdown_timeout=3,
                              server_name="nerts-referee")
        self._thread: threading.Thread | None = None
        dash = app.extensions.get("nerts")
        if dash is not None:  # streams may take all threads but a few kept for pages and admin actions
            dash.max_streams = threads - max(2, min(16, threads // 8))

    def prepare(self) -> None:
        """Bind the socket (raises ``OSError`` if the port is taken)."""
        self._server.prepare()

    @property
    def host(self) -> str:
        return self._server.bind_addr[0]

    @property
    def port(self) -> int:
        return int(self._server.bind_addr[1])

    @property
    def url(self) -> str:
        host = self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def start(self) -> "DashboardServer":
        """Bind and serve in a daemon thread; returns once the socket accepts connections."""
        self.prepare()
        self._thread = threading.Thread(target=self._server.serve, name="dashboard-http", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Bind and serve in this thread until ``stop()`` (another thread) or Ctrl-C."""
        self.prepare()
        try:
            self.serve_prepared()
        finally:
            self.stop()

    def serve_prepared(self) -> None:
        """Serve in this thread on the socket ``prepare()`` bound (until ``stop()`` or Ctrl-C)."""
        self._server.serve()

    def stop(self) -> None:
        """End streams (they wait on the hub and the log), then the server."""
        dash = self.app.extensions.get("nerts")
        if dash is not None:
            dash.hub.close()
            dash.store.close()
        self._server.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8000, threads: int = DEFAULT_THREADS) -> None:
    """Serve ``app`` until interrupted (blocking)."""
    DashboardServer(app, host, port, threads).serve_forever()


def launch(log_path, *, hub=None, clock=None, host: str = "127.0.0.1", port: int = 8000,
           pin: str | None = None, footage_dir=None, threads: int = DEFAULT_THREADS,
           mjpeg_max_fps: float | None = None, announce=print) -> DashboardServer:
    """Start the dashboard for ``log_path`` in a background thread of this process and announce
    its address and admin PIN (what ``nerts-referee run`` needs beside its camera pipeline).

    The pipeline keeps publishing into ``hub`` and appending to the log; call ``stop()`` on the
    returned server at the end. Raises ``OSError`` if the port is taken.
    """
    from web_dashboard.app import create_app

    app = create_app(log_path, hub=hub, admin_pin=pin, footage_dir=footage_dir, clock=clock,
                     mjpeg_max_fps=mjpeg_max_fps)
    server = DashboardServer(app, host, port, threads)
    try:
        server.start()
    except OSError:
        app.extensions["nerts"].store.close()
        raise
    announce(f"dashboard: {server.url}")
    announce(f"admin PIN: {app.config['ADMIN_PIN']}")
    return server
