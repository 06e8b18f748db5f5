"""One process per agent on a host (an advisory file lock keyed by the agent id), and the
lock it is made of (one ``band dev`` per database)."""

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

__all__ = ["HostLock", "SingleInstanceLock"]


class HostLock:
    """An advisory lock on the file ``path``: one process of this host holds it at a time."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock: False when another process holds it (True without ``fcntl``)."""
        if self._fd is not None or fcntl is None:
            return True
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return False
            # the holder before us may have unlinked the file between our open and our flock:
            # a lock on an unlinked inode guards nothing, so open the path afresh
            if self._is_current(fd):
                self._fd = fd
                return True
            os.close(fd)

    def release(self) -> None:
        """Give the lock up and remove its file (a process killed first leaves the file, never
        the lock: the kernel drops a dead process's flock)."""
        if self._fd is not None:
            # unlink while still holding the flock: whoever opened the old file meanwhile sees
            # it is no longer at the path (``_is_current``) and retries on a fresh one
            try:
                if self._is_current(self._fd):
                    self.path.unlink()
            except OSError:
                pass  # already gone or not ours to remove: the lock itself is released below
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None

    def _is_current(self, fd: int) -> bool:
        """True when ``fd`` is still the file at ``self.path``."""
        try:
            on_disk = os.stat(self.path)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)


class SingleInstanceLock(HostLock):
    """Held while an agent runs; a second holder on the same host is refused."""

    def __init__(self, agent_id: str, directory: str | Path | None = None) -> None:
        self.agent_id = agent_id
        # the name is a digest: an agent id never becomes a path component
        digest = hashlib.sha256(agent_id.encode()).hexdigest()[:32]
        super().__init__(Path(directory or tempfile.gettempdir()) / f"band-agent-{digest}.lock")

    def acquire(self) -> None:
        """Take the lock or raise AgentAlreadyRunningError."""
        if not self.try_acquire():
            raise AgentAlreadyRunningError(
                f"Agent {self.agent_id} is already running on this host (lock {self.path}).\n"
                "Stop the other process first, or run this one on another host (it then "
                "takes the agent over)."
            )
