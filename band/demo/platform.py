"""The local platform inside the demo's process: ``band dev`` on a free 127.0.0.1 port, in a
thread (:class:`band.devserver.thread.ServerThread`)."""

from __future__ import annotations

from band.devserver.app import create_app
from band.devserver.thread import ServerThread

__all__ = ["LocalPlatform"]


class LocalPlatform(ServerThread):
    """``band dev`` in a background thread; the demo's own event loop stays free for the agent."""

    def __init__(self, db: str, host: str = "127.0.0.1") -> None:
        super().__init__(create_app(db), host)
        self.db = db

    @property
    def user_key(self) -> str:
        """The local person's key (never printed)."""
        return str(self.app.state.user_key)
