"""The e2e bench's moving parts: a ``band dev`` subprocess, echo agent processes, a person.

The person drives the platform the way a user does: rooms, participants and messages through
the human API with the local user key, and a Phoenix socket joined to every room's
``chat_room`` topic, so each agent reply is seen the moment the platform pushes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

HERE = Path(__file__).resolve().parent
AGENT_SCRIPT = HERE / "echo_agent.py"
FLOOR_SCRIPT = HERE / "floor_agent.py"  # the protocol's floor: no SDK (variants floor, flooruv)
TOKEN = re.compile(r"e2e-[0-9a-f]+-\d+")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kib(pid: int) -> int:
    """Resident set size of ``pid`` in KiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def _stat_ticks(pid: int) -> tuple[int, int]:
    """``pid``'s user and system CPU time so far, in clock ticks (Linux /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


def tick_cpu_seconds(pid: int) -> float:
    """User plus system CPU time ``pid`` has used so far, in clock ticks (Linux /proc/PID/stat).

    Counts the threads that already exited too, but only to the tick (10 ms at 100 Hz): an
    agent answering 100 messages at 1 ms each spends 10 ticks, so one tick is 10% of a round.
    """
    return sum(_stat_ticks(pid)) / os.sysconf("SC_CLK_TCK")


def sys_cpu_seconds(pid: int) -> float:
    """The system (kernel) part of ``tick_cpu_seconds``: the process's system calls, to the tick."""
    return _stat_ticks(pid)[1] / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU time ``pid``'s live threads have run so far, to the nanosecond (Linux schedstat).

    The scheduler's own runtime of each thread (``/proc/PID/task/TID/schedstat``, first
    field), summed: the same time ``tick_cpu_seconds`` reads, without its 10 ms steps. A thread
    that exits between two reads takes its time with it; ``run.py`` checks the two against
    each other. Falls back to the ticks where schedstat is missing.
    """
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except FileNotFoundError:  # the thread exited while we listed them
                continue
    except (FileNotFoundError, ValueError, IndexError):
        return tick_cpu_seconds(pid)
    return total / 1e9


def stop(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    """SIGTERM ``proc``; SIGKILL it when it has not exited within ``timeout``."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class DevPlatform:
    """``band dev`` in a subprocess on 127.0.0.1 with a file DB in ``workdir``."""

    def __init__(
        self,
        workdir: Path,
        band: str | None = None,
        extra: tuple[str, ...] = (),
        profile: Path | None = None,
    ) -> None:
        self.workdir = workdir
        self.extra = list(extra)  # more ``band dev`` flags (e.g. --access-log)
        self.profile = profile  # cProfile stats here (profiled_dev.py: SIGUSR1/SIGUSR2)
        self.port = free_port()
        self.user_key = "band_u_" + secrets.token_hex(16)
        self.rest = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket"
        self.band = band or str(Path(sys.executable).with_name("band"))
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> None:
        """Start the platform and wait until it serves."""
        # appended: a restart on the same DB (bench/scale's storm) keeps the earlier lines
        log = (self.workdir / "platform.log").open("ab")
        cmd = [self.band, "dev", "--port", str(self.port), "--user-key", self.user_key]
        cmd += ["--db", str(self.workdir / "dev.sqlite3"), *self.extra]
        if self.profile is not None:
            wrapper = Path(__file__).with_name("profiled_dev.py")
            cmd = [sys.executable, str(wrapper), str(self.profile), *cmd[1:]]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("band dev exited: " + self.log_tail())
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.rest + "/openapi.json", timeout=1).status_code == 200:
                    return
            time.sleep(0.05)
        raise RuntimeError("band dev did not start: " + self.log_tail())

    def log_tail(self, size: int = 2000) -> str:
        """The end of the platform's log."""
        return (self.workdir / "platform.log").read_text(errors="replace")[-size:]

    def kill(self) -> None:
        """SIGKILL the platform (no shutdown at all); ``start`` brings it back on the same DB."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        """Stop the platform."""
        if self.proc is not None:
            stop(self.proc)


@dataclass
class AgentProc:
    """One echo agent process."""

    agent_id: str
    handle: str
    key: str
    proc: subprocess.Popen[bytes] | None = None
    rooms: list[str] = field(default_factory=list)


def start_agent(
    python: str,
    agent: AgentProc,
    platform: DevPlatform,
    workdir: Path,
    pure: bool,
    script: Path = AGENT_SCRIPT,
    profile: Path | None = None,
    uvloop: bool = False,
) -> None:
    """Start ``agent`` under ``python`` (ours or another SDK's interpreter).

    ``profile``: where the agent writes its cProfile stats (SIGUSR1 starts it, SIGUSR2 stops).
    ``uvloop``: let our SDK run the agent on uvloop when installed (else ``BAND_UVLOOP=0``).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHON"))}
    env.update(
        BAND_REST_URL=platform.rest,
        BAND_WS_URL=platform.ws,
        BAND_E2E_AGENT_ID=agent.agent_id,
        BAND_E2E_AGENT_KEY=agent.key,
        # Agent.run() logs at INFO (a line per turn) when a script set up no logging: the bench
        # measures the SDK's work, so both SDKs' agents log warnings only
        BAND_LOG_LEVEL="WARNING",
    )
    if pure:
        env["BAND_SDK_CORE_NO_EXTENSIONS"] = "1"
    if not uvloop:
        env["BAND_UVLOOP"] = "0"
    if profile is not None:
        env["BAND_E2E_PROFILE"] = str(profile)
    log = (workdir / f"agent-{agent.agent_id}.log").open("ab")
    # run from the work dir: a checkout on sys.path must not shadow the interpreter's own band
    agent.proc = subprocess.Popen(
        [python, str(script)], env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT
    )


class KeepAlive:
    """One HTTP/1.1 keep-alive connection for a room's messages, written and read by hand.

    The person's load-phase POSTs went through httpx, whose pool and layers spent about 2.5 ms
    of CPU a POST here (its pool checks every connection on each request): as much as ``band
    dev`` spends on a whole answered message. On 2 cores that measured the bench's person
    along with the SDKs, and the faster SDK most. One plain connection a room (the loop is
    closed: one request at a time) costs a few tens of microseconds instead.
    """

    def __init__(self, host: str, port: int, headers: dict[str, str]) -> None:
        self.host, self.port = host, port
        every = {"Host": f"{host}:{port}", **headers}
        self.head = "".join(f"{k}: {v}\r\n" for k, v in every.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: dict[str, Any]) -> bytes:
        """POST ``body`` as JSON; return the answer's body (an HTTP error raises)."""
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        data = json.dumps(body).encode()
        self.writer.write(
            f"POST {path} HTTP/1.1\r\n{self.head}Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        status_line, *lines = (await self.reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
        headers = dict(
            (k.strip().lower(), v.strip()) for k, _, v in (h.partition(":") for h in lines if h)
        )
        if "content-length" not in headers:  # band dev sizes every JSON answer
            raise RuntimeError(f"POST {path}: an answer without Content-Length: {headers}")
        answer = await self.reader.readexactly(int(headers["content-length"]))
        if headers.get("connection", "").lower() == "close":
            self.writer.close()
        status = int(status_line.split(" ", 2)[1])
        if status >= 400:
            raise RuntimeError(f"POST {path}: {status_line} {answer[:300]!r}")
        return answer

    async def close(self) -> None:
        """Close the connection."""
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()


class Person:
    """The local user: human API calls and a socket that sees every reply in their rooms."""

    def __init__(self, platform: DevPlatform) -> None:
        self.platform = platform
        self.http = httpx.AsyncClient(
            base_url=platform.rest, headers={"X-API-Key": platform.user_key}, timeout=30
        )
        self.sock: Any = None
        self.me = ""
        self.waiters: dict[str, asyncio.Future[float]] = {}
        self.replies: dict[str, int] = {}
        self._ref = 0
        self._joined: dict[str, asyncio.Future[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._lines: dict[str, KeepAlive] = {}  # a connection per room for ``ask``

    async def open(self) -> None:
        """Read the person's id and open the socket."""
        r = await self.http.get("/api/v1/me/profile")
        r.raise_for_status()
        self.me = r.json()["data"]["id"]
        url = f"{self.platform.ws}?vsn=2.0.0&api_key={self.platform.user_key}"
        self.sock = await websockets.connect(url, max_size=None)
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._beat())]

    async def close(self) -> None:
        """Close the socket and the HTTP client."""
        for task in self._tasks:
            task.cancel()
        if self.sock is not None:
            await self.sock.close()
        for line in self._lines.values():
            await line.close()
        await self.http.aclose()

    async def _send(self, topic: str, event: str, payload: dict[str, Any]) -> str:
        self._ref += 1
        ref = str(self._ref)
        await self.sock.send(json.dumps([ref, ref, topic, event, payload]))
        return ref

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(20)
            await self._send("phoenix", "heartbeat", {})

    async def _read(self) -> None:
        """Read every push; when the socket ends or a frame breaks this reader, every waiter
        fails with the reason (a reply nobody sees would otherwise be a silent timeout)."""
        try:
            await self._read_pushes()
        except websockets.ConnectionClosed as exc:
            self._fail_waiters(f"the person's socket ended: {exc}")
            return
        except Exception as exc:
            self._fail_waiters(f"the person's socket reader failed: {exc!r}")
            raise
        self._fail_waiters(
            f"the person's socket ended: code {self.sock.close_code}, {self.sock.close_reason!r}"
        )

    def _fail_waiters(self, why: str) -> None:
        print(why, file=sys.stderr, flush=True)
        waiters: list[asyncio.Future[Any]] = [*self.waiters.values(), *self._joined.values()]
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(RuntimeError(why))

    async def _read_pushes(self) -> None:
        async for raw in self.sock:
            _join_ref, ref, _topic, event, payload = json.loads(raw)
            if event == "phx_reply" and ref in self._joined:
                self._joined.pop(ref).set_result(None)
            elif event == "message_created" and payload.get("sender_id") != self.me:
                now = time.perf_counter()
                match = TOKEN.search(str(payload.get("content", "")))
                if match is None:
                    continue
                token = match.group(0)
                self.replies[token] = self.replies.get(token, 0) + 1
                waiter = self.waiters.get(token)
                if waiter is not None and not waiter.done():
                    waiter.set_result(now)

    async def register(self, name: str) -> AgentProc:
        """Register an agent owned by the person."""
        body = {"agent": {"name": name, "description": "e2e echo agent"}}
        r = await self.http.post("/api/v1/me/agents/register", json=body)
        r.raise_for_status()
        d = r.json()["data"]
        return AgentProc(d["agent"]["id"], d["agent"]["handle"], d["credentials"]["api_key"])

    async def room_with(self, agent: AgentProc) -> str:
        """Create a room with ``agent`` in it and join its topic."""
        r = await self.http.post("/api/v1/me/chats", json={"chat": {"title": "e2e"}})
        r.raise_for_status()
        rid = str(r.json()["data"]["id"])
        joined: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ref = await self._send(f"chat_room:{rid}", "phx_join", {})
        self._joined[ref] = joined
        await asyncio.wait_for(joined, 10)
        body = {"participant": {"participant_id": agent.agent_id}}
        r = await self.http.post(f"/api/v1/me/chats/{rid}/participants", json=body)
        r.raise_for_status()
        agent.rooms.append(rid)
        return rid

    async def ask(self, rid: str, agent: AgentProc, token: str, timeout: float) -> float:
        """Send ``token`` mentioning ``agent``; return seconds from send to its reply."""
        waiter: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiters[token] = waiter
        body = {"message": {"content": f"{token} ping", "mentions": [{"id": agent.agent_id}]}}
        line = self._lines.get(rid)
        if line is None:
            headers = {"X-API-Key": self.platform.user_key}
            line = self._lines[rid] = KeepAlive("127.0.0.1", self.platform.port, headers)
        t0 = time.perf_counter()
        try:
            await line.post(f"/api/v1/me/chats/{rid}/messages", body)
            return await asyncio.wait_for(waiter, timeout) - t0
        finally:
            self.waiters.pop(token, None)

    async def agent_replies(self, rid: str, agent_id: str) -> list[str]:
        """Texts the agent posted in ``rid`` (from the platform, not the socket)."""
        texts: list[str] = []
        cursor: int | None = None
        while True:
            params: dict[str, Any] = {"limit": 100}
            if cursor is not None:
                params["cursor"] = cursor
            r = await self.http.get(f"/api/v1/me/chats/{rid}/messages", params=params)
            r.raise_for_status()
            body = r.json()
            texts += [
                m["content"]
                for m in body["data"]
                if m["sender_id"] == agent_id and m["message_type"] == "text"
            ]
            cursor = body.get("metadata", {}).get("next_cursor")
            if not body.get("metadata", {}).get("has_more") or cursor is None:
                return texts
