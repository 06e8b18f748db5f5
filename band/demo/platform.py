"""The local platform inside the demo's process: uvicorn on a free 127.0.0.1 port, in a thread."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import uvicorn

from band.devserver.app import create_app

__all__ = ["LocalPlatform"]


class LocalPlatform:
    """``band dev`` in a background thread; the demo's own event loop stays free for the agent.

    A thread (not a task on the demo's loop) also keeps uvicorn's signal handling out of the
    way: Ctrl-C reaches the demo, which then stops the server itself.
    """

    def __init__(self, db: str, host: str = "127.0.0.1") -> None:
        self.db = db
        self.host = host
        self.app = create_app(db)
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP
        # (an accepted socket inherits it); without it every response waited ~40 ms
        # (Nagle's algorithm against the client's delayed ACK)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_level="warning", ws="websockets-sansio", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    @property
    def rest_url(self) -> str:
        """``BAND_REST_URL`` of this platform."""
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        """``BAND_WS_URL`` of this platform."""
        return f"ws://{self.host}:{self.port}/api/v1/socket/websocket"

    @property
    def user_key(self) -> str:
        """The local person's key (never printed)."""
        return str(self.app.state.user_key)

    async def start(self) -> None:
        """Serve, and return once uvicorn accepts connections."""
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the local platform exited during start-up")
            await asyncio.sleep(0.01)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait (bounded) for the thread."""
        self._server.should_exit = True
        deadline = time.monotonic() + timeout
        if self._thread.is_alive():
            self._thread.join(max(0.0, deadline - time.monotonic()))
        self._sock.close()
