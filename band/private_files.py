"""Files that hold keys: created owner-only whatever the umask, never loosened when rewritten."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

#: owner read and write; a key file never needs more
PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def private_dir(path: str | Path, *, ours: bool = False) -> None:
    """Create ``path`` (and parents) owner-only; tighten it too when it is ``ours`` to manage.

    A directory the user made (the working directory, a temp directory) keeps its mode unless
    ``ours``: ``.band/`` is the platform's own and holds only its keys and data.
    """
    path = Path(path)
    created = not path.exists()
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    if created or ours:
        tighten(path, PRIVATE_DIR)


def private_file(path: str | Path) -> None:
    """Create ``path`` empty and owner-only if missing; else drop its group and other bits."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE))
        os.chmod(path, PRIVATE_FILE)  # the umask may have removed owner bits, never added
        return
    tighten(path, PRIVATE_FILE)


def tighten(path: str | Path, allowed: int) -> None:
    """Remove every permission bit of ``path`` outside ``allowed`` (never adds one)."""
    with contextlib.suppress(FileNotFoundError):
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & ~allowed:
            os.chmod(path, mode & allowed)


def write_private(path: str | Path, text: str) -> None:
    """Replace ``path`` atomically with ``text``: owner-only when new, an existing file's mode
    kept or tightened to owner-only bits (a temp file plus ``os.replace`` would take the
    umask's mode instead)."""
    path = Path(path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode) & PRIVATE_FILE
    except FileNotFoundError:
        mode = PRIVATE_FILE
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
