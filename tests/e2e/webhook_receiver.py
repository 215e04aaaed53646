"""A webhook receiver for the end-to-end tests: a real HTTP server (``http.server`` in a thread of the test process)
that records every request."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """Records every POST as ``{mode, player, headers, body, at}`` and answers by the path's mode:
    ``/ok/<player>`` 200; ``/flaky/<player>`` 500 to the first two requests of each event id, then 200;
    ``/fail/<player>`` always 500; ``/hold/<player>`` holds the first request of each event id for 20 s (the
    notifier is killed meanwhile), then 200."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                _, mode, player = self.path.split("/", 2)
                event_id = self.headers.get("Benthic-Event-Id", "")
                with receiver.lock:
                    earlier = sum(r["headers"].get("benthic-event-id") == event_id for r in receiver.requests)
                    receiver.requests.append({"mode": mode, "player": player, "body": body, "at": time.monotonic(),
                                              "wall_ms": time.time() * 1000,
                                              "headers": {k.lower(): v for k, v in self.headers.items()}})
                status = 200
                if mode == "fail" or (mode == "flaky" and earlier < 2):
                    status = 500
                if mode == "hold" and earlier == 0:
                    time.sleep(20)
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the notifier is gone

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of(self, player: str) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.requests if r["player"] == player]
