"""A tiny scripted HTTP server on 127.0.0.1, for answers the local platform never gives."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: One answer: (status, extra headers, JSON body).
Answer = tuple[int, dict[str, str], Any]


class ScriptedServer(ThreadingHTTPServer):
    """Answers each request with the next of ``script``; once it is used up, 200 with ``answer``.

    ``answer`` is a JSON body, or a function of the request path returning one. Every request's
    (method, path) is kept in ``seen``.
    """

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[Answer] = []
        self.answer: Any | Callable[[str], Any] = {"data": None}
        self.seen: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def respond(self, method: str, path: str) -> Answer:
        """Record the request and pick its answer."""
        self.seen.append((method, path))
        if self.script:
            return self.script.pop(0)
        body = self.answer(path) if callable(self.answer) else self.answer
        return 200, {}, body


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        status, headers, body = self.server.respond(self.command, self.path)
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


def scripted_server() -> Iterator[ScriptedServer]:
    """Serve a ``ScriptedServer`` in a background thread until the caller is done."""
    server = ScriptedServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
