"""``band dev`` serving from a daemon thread on a free loopback port (the demo, ``band.testing``).

A thread, not a task on the caller's loop: the caller's event loop stays free for its agents
and tests, and uvicorn's signal handling stays out of the way (it installs none off the main
thread), so Ctrl-C reaches the caller, which then stops the server itself.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

from band.serving import GracefulServer, guarded_config
from band.serving.ws import DirectSendProtocol

__all__ = ["ServerThread"]


class ServerThread:
    """Serves ``app`` on a free port of ``host`` once started; :attr:`loop` runs the app."""

    def __init__(self, app: Any, host: str = "127.0.0.1") -> None:
        self.app = app
        self.host = host
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP
        # (an accepted socket inherits it); without it every response waited ~40 ms
        # (Nagle's algorithm against the client's delayed ACK)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self.port: int = self._sock.getsockname()[1]
        config = guarded_config(app, log_level="warning", ws=DirectSendProtocol, lifespan="on")
        self._server = GracefulServer(config)
        #: the event loop serving the app (set once the thread runs)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name="band-dev", daemon=True)

    @property
    def rest_url(self) -> str:
        """``BAND_REST_URL`` of this platform."""
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        """``BAND_WS_URL`` of this platform."""
        return f"ws://{self.host}:{self.port}/api/v1/socket/websocket"

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self._server.serve(sockets=[self._sock])

    def start(self) -> None:
        """Start serving (:meth:`ready` says when connections are accepted)."""
        self._thread.start()

    def ready(self) -> bool:
        """Whether the server accepts connections; RuntimeError when it exited instead."""
        if self._server.started:
            return True
        if not self._thread.is_alive():
            raise RuntimeError("the local platform exited during start-up")
        return False

    def wait_ready(self, timeout: float) -> None:
        """Block until :meth:`ready` (RuntimeError after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while not self.ready():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the local platform did not start in {timeout}s")
            time.sleep(0.01)

    async def until_ready(self) -> None:
        """:meth:`wait_ready` without blocking the caller's event loop (and without a limit)."""
        while not self.ready():
            await asyncio.sleep(0.01)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait (bounded) for the thread."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._sock.close()
