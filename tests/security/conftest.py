"""Security tests: processes started the way a user starts them, on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without Band settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHONPATH"))}
    env.update(extra)
    return env


def spawn(
    cmd: list[str], log: Path, env: dict[str, str], cwd: Path, stdout: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start ``cmd`` with stderr (and stdout, unless ``stdout`` is given) going to ``log``."""
    err = log.open("wb")
    out = stdout.open("wb") if stdout is not None else err
    return subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)


def wait_http(url: str, proc: subprocess.Popen[Any], log: Path, timeout: float = 20) -> None:
    """Wait until ``url`` answers (any status)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-2000:]
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise AssertionError(f"{url} did not answer: {log.read_text()[-2000:]}")


def listening_addresses(port: int) -> set[str]:
    """Local IPv4/IPv6 addresses with a listening TCP socket on ``port`` (from /proc/net)."""
    found: set[str] = set()
    for name in ("tcp", "tcp6"):
        table = Path(f"/proc/net/{name}")
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, _, hexport = local.partition(":")
            if state == "0A" and int(hexport, 16) == port:  # 0A: LISTEN
                found.add(_addr(addr))
    return found


def _addr(hexaddr: str) -> str:
    if len(hexaddr) == 8:
        return ".".join(str(int(hexaddr[i : i + 2], 16)) for i in (6, 4, 2, 0))
    return "ipv6:" + hexaddr
