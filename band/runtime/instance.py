"""One process per agent on a host: an advisory file lock keyed by the agent id."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from band.core.exceptions import AgentAlreadyRunningError

try:
    import fcntl
except ImportError:  # Windows: no advisory flock; the in-process guard still applies
    fcntl = None  # type: ignore[assignment]

__all__ = ["SingleInstanceLock"]


class SingleInstanceLock:
    """Held while an agent runs; a second holder on the same host is refused."""

    def __init__(self, agent_id: str, directory: str | Path | None = None) -> None:
        self.agent_id = agent_id
        # the name is a digest: an agent id never becomes a path component
        digest = hashlib.sha256(agent_id.encode()).hexdigest()[:32]
        self.path = Path(directory or tempfile.gettempdir()) / f"band-agent-{digest}.lock"
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock or raise AgentAlreadyRunningError."""
        if self._fd is not None or fcntl is None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise AgentAlreadyRunningError(
                f"Agent {self.agent_id} is already running on this host (lock {self.path})"
            ) from None
        self._fd = fd

    def release(self) -> None:
        """Give the lock up (the file stays; it is reused)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None
