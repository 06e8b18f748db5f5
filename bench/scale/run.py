"""Scale bench: one agent in R rooms through ``band dev``: subscribe, throughput, reconnect storm.

Each run starts a fresh ``band dev --access-log`` (file DB, 127.0.0.1; it then logs every HTTP
request and every socket join, which this bench tails), registers the agents and has the local
person drive them (bench/e2e's harness: the same echo agent, the same person):

1. idle: the agent in one warm-up room; its RSS once it answered there (then it is stopped);
2. subscribe: R more rooms with every agent in them, then the agent starts again: seconds from
   ``Agent.run()`` until the platform has logged its join of every room's ``chat_room`` topic,
   and the HTTP requests and joins it made to get there; RSS after the join, per room;
3. steady state: K messages per room, rooms in shuffled order, ``--concurrency`` in flight:
   answered msgs/s, p50/p99 send-to-reply latency, agent CPU per answered message;
4. reconnect storm: messages keep arriving (``--storm-rate``/s over all rooms) while band dev is
   killed with SIGKILL and restarted on the same DB; seconds from the restart until every room is
   joined again, until every storm message is answered; RSS after the storm.

Finally every room is read back through the human API: each of the person's messages must have
exactly one answer from each agent (``lost`` and ``duplicated`` count the misses; either fails the
run, exit 1). Variants ``c`` (ours, compiled core), ``py`` (ours, pure core) and ``ref``
(``--against PYTHON``, the same script under the official band-sdk) alternate in one run.

    python bench/scale/run.py --rooms 1000 --against /tmp/band-refsdk-venv/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import platform as pyplatform
import random
import re
import secrets
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import websockets

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "e2e"), str(HERE.parent)]

import runinfo  # noqa: E402  (bench/runinfo.py)
from harness import (  # noqa: E402
    TOKEN,
    AgentProc,
    DevPlatform,
    Person,
    cpu_seconds,
    rss_kib,
    start_agent,
    stop,
)

# bench/e2e/run.py under another name (this file is run.py too): its helpers, not a copy
_spec = importlib.util.spec_from_file_location("e2e_run", HERE.parent / "e2e" / "run.py")
assert _spec is not None and _spec.loader is not None
e2e_run = importlib.util.module_from_spec(_spec)
sys.modules["e2e_run"] = e2e_run  # dataclasses look their module up
_spec.loader.exec_module(e2e_run)
percentile = e2e_run.percentile

AGENT_SCRIPT = HERE / "scale_agent.py"
JOIN_LINE = re.compile(r"joined (agent|user) (\S+) (\S+)")
ACCESS_LINE = re.compile(r'"(GET|POST|PUT|PATCH|DELETE) ')
LABELS = {"c": "ours, compiled core", "py": "ours, pure core", "ref": "official band-sdk 6.0.1"}


class PlatformLog:
    """Tails ``platform.log`` in a thread, stamping each join and request line on arrival."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.joins: list[tuple[float, str, str]] = []  # (time, principal id, topic)
        self.requests: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tail, daemon=True)
        self._thread.start()

    def _tail(self) -> None:
        while not self.path.exists():
            time.sleep(0.01)
        with self.path.open("rb") as f:
            rest = b""
            while not self._stop.is_set():
                chunk = f.read()
                if not chunk:
                    time.sleep(0.01)
                    continue
                now = time.time()
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()
                for raw in lines:
                    line = raw.decode(errors="replace")
                    if m := JOIN_LINE.search(line):
                        self.joins.append((now, m.group(2), m.group(3)))
                    elif ACCESS_LINE.search(line):
                        self.requests.append(now)

    def close(self) -> None:
        """Stop tailing."""
        self._stop.set()
        self._thread.join(2)

    async def all_joined(self, pid: str, rooms: list[str], since: float, timeout: float) -> float:
        """Unix time by which ``pid`` joined every room's ``chat_room`` topic after ``since``."""
        wanted = {f"chat_room:{r}" for r in rooms}
        deadline = time.monotonic() + timeout
        seen = 0
        last = since
        while time.monotonic() < deadline:
            joins = self.joins[seen:]
            seen += len(joins)
            for at, who, topic in joins:
                if who == pid and at >= since and topic in wanted:
                    wanted.discard(topic)
                    last = at
            if not wanted:
                return last
            await asyncio.sleep(0.02)
        raise TimeoutError(f"{len(wanted)} of {len(rooms)} rooms not joined in {timeout:.0f}s")

    def first_join(self, pid: str, since: float) -> float | None:
        """Unix time of ``pid``'s first room join after ``since``."""
        return next(
            (
                t
                for t, who, topic in self.joins
                if who == pid and t >= since and topic.startswith("chat_room:")
            ),
            None,
        )

    def count(self, pid: str, start: float, end: float) -> tuple[int, int]:
        """(HTTP requests, socket joins by ``pid``) logged in [start, end]."""
        http = sum(1 for t in self.requests if start <= t <= end)
        joins = sum(1 for t, who, _ in self.joins if who == pid and start <= t <= end)
        return http, joins


class ScalePerson(Person):
    """The harness's person, with many agents per room and a socket that survives a restart."""

    def __init__(self, platform: DevPlatform, agents: int) -> None:
        super().__init__(platform)
        self.expect = agents  # answers per message (every agent is mentioned)
        self.answers: dict[str, set[str]] = {}  # token -> agents that answered (socket view)
        self.rooms: list[str] = []

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.sock:
                _join_ref, ref, _topic, event, payload = json.loads(raw)
                if event == "phx_reply" and ref in self._joined:
                    self._joined.pop(ref).set_result(None)
                elif event == "message_created" and payload.get("sender_id") != self.me:
                    match = TOKEN.search(str(payload.get("content", "")))
                    if match is None:
                        continue
                    token = match.group(0)
                    self.answers.setdefault(token, set()).add(str(payload.get("sender_id")))
                    waiter = self.waiters.get(token)
                    if waiter and not waiter.done() and len(self.answers[token]) >= self.expect:
                        waiter.set_result(time.perf_counter())

    async def join_topic(self, rid: str) -> None:
        """Join a room's ``chat_room`` topic and wait for the reply."""
        joined: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ref = await self._send(f"chat_room:{rid}", "phx_join", {})
        self._joined[ref] = joined
        await asyncio.wait_for(joined, 30)

    async def reopen(self) -> None:
        """A new socket after a restart, joined to every room again (pipelined)."""
        for task in self._tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await self.sock.close()
        self._joined.clear()
        url = f"{self.platform.ws}?vsn=2.0.0&api_key={self.platform.user_key}"
        self.sock = await websockets.connect(url, max_size=None)
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._beat())]
        await asyncio.gather(*(self.join_topic(r) for r in self.rooms))

    async def make_room(self, agents: list[AgentProc]) -> str:
        """A room with every agent in it, its topic joined."""
        r = await self.http.post("/api/v1/me/chats", json={"chat": {"title": "scale"}})
        r.raise_for_status()
        rid = str(r.json()["data"]["id"])
        await self.join_topic(rid)
        for agent in agents:
            body = {"participant": {"participant_id": agent.agent_id}}
            r = await self.http.post(f"/api/v1/me/chats/{rid}/participants", json=body)
            r.raise_for_status()
            agent.rooms.append(rid)
        self.rooms.append(rid)
        return rid

    async def post(self, rid: str, agents: list[AgentProc], token: str) -> None:
        """Send ``token`` mentioning every agent (raises when the platform does not take it)."""
        body = {
            "message": {
                "content": f"{token} ping",
                "mentions": [{"id": a.agent_id} for a in agents],
            }
        }
        r = await self.http.post(f"/api/v1/me/chats/{rid}/messages", json=body, timeout=5)
        r.raise_for_status()

    async def ask(self, rid: str, agents: list[AgentProc], token: str, timeout: float) -> float:  # type: ignore[override]
        """Send ``token``; seconds until every agent answered it."""
        waiter: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiters[token] = waiter
        t0 = time.perf_counter()
        try:
            await self.post(rid, agents, token)
            return await asyncio.wait_for(waiter, timeout) - t0
        finally:
            self.waiters.pop(token, None)

    async def readback(self, rid: str) -> tuple[list[str], dict[str, list[str]]]:
        """The person's tokens in ``rid`` and, per token, the senders of its answers."""
        asked: list[str] = []
        answers: dict[str, list[str]] = {}
        cursor: int | None = None
        while True:
            params: dict[str, Any] = {"limit": 100}
            if cursor is not None:
                params["cursor"] = cursor
            r = await self.http.get(f"/api/v1/me/chats/{rid}/messages", params=params)
            r.raise_for_status()
            body = r.json()
            for m in body["data"]:
                match = TOKEN.search(str(m.get("content", "")))
                if match is None or m.get("message_type") != "text":
                    continue
                if m["sender_id"] == self.me:
                    asked.append(match.group(0))
                else:
                    answers.setdefault(match.group(0), []).append(m["sender_id"])
            cursor = body.get("metadata", {}).get("next_cursor")
            if not body.get("metadata", {}).get("has_more") or cursor is None:
                return asked, answers


@dataclass
class Result:
    """One variant's figures for one run."""

    variant: str
    rooms: int
    subscribe_s: float | None = None
    first_room_join_s: float | None = None  # from Agent.run() to its first room topic joined
    subscribe_http_calls: int | None = None
    subscribe_joins: int | None = None
    msgs_per_s: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    agent_cpu_ms: float | None = None  # agent CPU per answered message (steady state)
    resubscribe_s: float | None = None  # from the restarted platform serving to every room joined
    resubscribe_http_calls: int | None = None
    storm_sent: int | None = None
    storm_answered_s: float | None = None  # from the restart until every storm message answered
    rss_idle_kib: float | None = None
    rss_joined_kib: float | None = None
    rss_after_storm_kib: float | None = None
    rss_per_room_kib: float | None = None
    lost: int | None = None
    duplicated: int | None = None
    failed: str | None = None  # what went wrong when the run could not finish
    notes: list[str] = field(default_factory=list)


class Run:
    """One variant on a fresh platform."""

    def __init__(
        self, variant: str, python: str, pure: bool, args: argparse.Namespace, workdir: Path
    ) -> None:
        self.variant, self.python, self.pure, self.args = variant, python, pure, args
        self.workdir = workdir
        self.plat = DevPlatform(workdir, extra=("--access-log",))
        self.log = PlatformLog(workdir / "platform.log")
        self.person = ScalePerson(self.plat, args.agents)
        self.agents: list[AgentProc] = []
        self.result = Result(variant, args.rooms)
        self.tag = secrets.token_hex(3)
        self._seq = 0

    def token(self) -> str:
        """A fresh message token (the harness's TOKEN pattern)."""
        self._seq += 1
        return f"e2e-{self.tag}-{self._seq}"

    @property
    def agent(self) -> AgentProc:
        """The measured agent (the others only add load)."""
        return self.agents[0]

    def start_agents(self) -> float:
        """Start every agent; the measured agent's ``RUN`` time (unix seconds)."""
        log = self.workdir / f"agent-{self.agent.agent_id}.log"
        size = log.stat().st_size if log.exists() else 0
        for agent in self.agents:
            start_agent(self.python, agent, self.plat, self.workdir, self.pure, AGENT_SCRIPT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = log.read_bytes()[size:].decode(errors="replace") if log.exists() else ""
            if m := re.search(r"^RUN (\S+)$", text, re.M):
                return float(m.group(1))
            time.sleep(0.01)
        raise RuntimeError("the agent never reached Agent.run()")

    def stop_agents(self) -> None:
        """Stop every agent process."""
        for agent in self.agents:
            if agent.proc is not None:
                stop(agent.proc)
                agent.proc = None

    async def main(self) -> Result:
        """Every phase in order; a phase that fails records why and ends the run."""
        args, person, res = self.args, self.person, self.result
        self.plat.start()
        try:
            await person.open()
            for i in range(args.agents):
                self.agents.append(await person.register(f"Scale{i}"))
            warm = await person.make_room(self.agents)
            self.start_agents()
            await person.ask(warm, self.agents, self.token(), args.timeout)
            await asyncio.sleep(args.settle)
            res.rss_idle_kib = rss_kib(self.agent.proc.pid)  # type: ignore[union-attr]
            self.stop_agents()
            await self._make_rooms()
            await self._subscribe()
            await self._steady()
            await self._storm()
        except Exception as exc:  # the figures so far stand; the failure is part of the result
            res.failed = f"{type(exc).__name__}: {exc}"[:300]
            print(f"{self.variant}: FAILED: {res.failed}", file=sys.stderr, flush=True)
            self._tails()
        finally:
            with contextlib.suppress(Exception):
                await self._count()
            self.stop_agents()
            self.log.close()
            await person.close()
            self.plat.close()
        return res

    async def _make_rooms(self) -> None:
        gate = asyncio.Semaphore(8)

        async def one() -> None:
            async with gate:
                await self.person.make_room(self.agents)

        await asyncio.gather(*(one() for _ in range(self.args.rooms)))

    async def _subscribe(self) -> None:
        res = self.result
        t0 = self.start_agents()
        done = await self.log.all_joined(
            self.agent.agent_id, self.agent.rooms, t0, self.args.timeout
        )
        res.subscribe_s = done - t0
        first = self.log.first_join(self.agent.agent_id, t0)
        res.first_room_join_s = first - t0 if first is not None else None
        res.subscribe_http_calls, res.subscribe_joins = self.log.count(
            self.agent.agent_id, t0, done
        )
        await asyncio.sleep(self.args.settle)
        res.rss_joined_kib = rss_kib(self.agent.proc.pid)  # type: ignore[union-attr]
        assert res.rss_idle_kib is not None
        res.rss_per_room_kib = (res.rss_joined_kib - res.rss_idle_kib) / self.args.rooms
        print(
            f"{self.variant}: subscribed to {self.args.rooms} rooms in {res.subscribe_s:.2f}s "
            f"(first room at {res.first_room_join_s or 0:.2f}s) "
            f"({res.subscribe_http_calls} HTTP, {res.subscribe_joins} joins), "
            f"{res.rss_per_room_kib:.1f} KiB/room",
            file=sys.stderr,
            flush=True,
        )

    async def _steady(self) -> None:
        args, res = self.args, self.result
        rooms = self.agent.rooms[1:]
        work = [rid for rid in rooms for _ in range(args.messages_per_room)]
        random.shuffle(work)
        latencies: list[float] = []
        busy: set[str] = set()  # one message in flight per room: answers stay in order

        async def worker() -> None:
            while work:
                rid = next((r for r in work if r not in busy), None)
                if rid is None:
                    await asyncio.sleep(0.005)
                    continue
                work.remove(rid)
                busy.add(rid)
                try:
                    latencies.append(
                        await self.person.ask(rid, self.agents, self.token(), args.timeout)
                    )
                finally:
                    busy.discard(rid)

        pids = [a.proc.pid for a in self.agents if a.proc]
        cpu0 = cpu_seconds(pids[0])
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(min(args.concurrency, len(work)))))
        elapsed = time.perf_counter() - start
        res.agent_cpu_ms = 1000 * (cpu_seconds(pids[0]) - cpu0) / len(latencies)
        res.msgs_per_s = len(latencies) / elapsed
        res.p50_ms = 1000 * percentile(latencies, 0.5)
        res.p99_ms = 1000 * percentile(latencies, 0.99)
        print(
            f"{self.variant}: {res.msgs_per_s:.1f} msgs/s, p50 {res.p50_ms:.0f} ms, "
            f"p99 {res.p99_ms:.0f} ms, {res.agent_cpu_ms:.2f} CPU ms/msg",
            file=sys.stderr,
            flush=True,
        )

    async def _storm(self) -> None:
        args, res, person = self.args, self.result, self.person
        rooms = self.agent.rooms[1:]
        sent = 0
        sending = True

        async def sender() -> None:
            nonlocal sent
            i = 0
            while sending:
                rid = rooms[i % len(rooms)]
                i += 1
                # a post cut by the kill may or may not be stored: the next try is a new token,
                # and the read-back counts whatever the platform holds
                with contextlib.suppress(httpx.HTTPError):
                    await person.post(rid, self.agents, self.token())
                    sent += 1
                await asyncio.sleep(1 / args.storm_rate)

        task = asyncio.create_task(sender())
        await asyncio.sleep(1.0)
        self.plat.kill()
        killed = time.time()
        await asyncio.sleep(args.outage)
        await asyncio.to_thread(self.plat.start, 30.0)
        back = time.time()
        reopened = asyncio.create_task(person.reopen())
        try:
            # joins count from the kill: an agent that probes the port can be back in every room
            # before the harness's own readiness check returns (then the figure is 0)
            done = await self.log.all_joined(self.agent.agent_id, self.agent.rooms, killed, 120)
            res.resubscribe_s = max(0.0, done - back)
            res.resubscribe_http_calls, _ = self.log.count(self.agent.agent_id, killed, done)
            await asyncio.sleep(1.0)  # messages keep coming after the rooms are back
        finally:
            sending = False
            await task
            await reopened
        res.storm_sent = sent
        await self._wait_answered(back)
        res.storm_answered_s = time.time() - back
        await asyncio.sleep(args.settle)
        res.rss_after_storm_kib = rss_kib(self.agent.proc.pid)  # type: ignore[union-attr]
        print(
            f"{self.variant}: storm: resubscribed in {res.resubscribe_s:.2f}s, "
            f"{sent} messages answered {res.storm_answered_s:.2f}s after the restart",
            file=sys.stderr,
            flush=True,
        )

    async def _wait_answered(self, since: float) -> None:
        """Until every message the platform holds is answered by every agent (read back)."""
        deadline = time.monotonic() + self.args.timeout
        pending = list(self.agent.rooms)
        while pending and time.monotonic() < deadline:
            still = []
            for rid in pending:
                asked, answers = await self.person.readback(rid)
                if any(len(set(answers.get(t, ()))) < len(self.agents) for t in asked):
                    still.append(rid)
            pending = still
            if pending:
                await asyncio.sleep(0.5)
        if pending:
            self.result.notes.append(f"{len(pending)} rooms still unanswered after the storm")

    async def _count(self) -> None:
        """Lost and duplicated answers over every room (human API read-back)."""
        if self.result.msgs_per_s is None:
            return  # nothing was measured: no read-back verdict either
        lost = dup = 0
        gate = asyncio.Semaphore(8)

        async def room(rid: str) -> tuple[int, int]:
            async with gate:
                asked, answers = await self.person.readback(rid)
            lo = du = 0
            for token in asked:
                by = answers.get(token, [])
                for agent in self.agents:
                    n = by.count(agent.agent_id)
                    lo += n == 0
                    du += max(0, n - 1)
            return lo, du

        for lo, du in await asyncio.gather(*(room(r) for r in self.agent.rooms)):
            lost += lo
            dup += du
        self.result.lost, self.result.duplicated = lost, dup

    def _tails(self) -> None:
        for agent in self.agents[:1]:
            log = self.workdir / f"agent-{agent.agent_id}.log"
            if log.exists():
                print(f"--- {self.variant} agent log tail ---", file=sys.stderr)
                print(log.read_text(errors="replace")[-2000:], file=sys.stderr)


def ratio(ours: float | None, ref: float | None) -> str:
    """``ours / ref`` as ``0.42x``, or ``-`` when either is missing."""
    if ours is None or ref is None or ref == 0:
        return "-"
    return f"{ours / ref:.2f}x"


def _fmt(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table(results: list[Result]) -> str:
    """A markdown table, with ratios against ``ref`` when it ran."""
    ref = next((r for r in results if r.variant == "ref"), None)
    head = (
        "| SDK | rooms | subscribe s | HTTP/joins | resubscribe s | storm answered s | msgs/s "
        "| p50 ms | p99 ms | CPU ms/msg | RSS idle MiB | RSS/room KiB | lost | dup |"
    )
    if ref:
        head += " subscribe vs ref | resubscribe vs ref | msgs/s vs ref | RSS/room vs ref |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for r in results:
        line = (
            f"| {LABELS.get(r.variant, r.variant)} | {r.rooms} | {_fmt(r.subscribe_s, '.2f')} "
            f"| {_fmt(r.subscribe_http_calls, 'd')}/{_fmt(r.subscribe_joins, 'd')} "
            f"| {_fmt(r.resubscribe_s, '.2f')} | {_fmt(r.storm_answered_s, '.2f')} "
            f"| {_fmt(r.msgs_per_s, '.1f')} | {_fmt(r.p50_ms, '.0f')} | {_fmt(r.p99_ms, '.0f')} "
            f"| {_fmt(r.agent_cpu_ms, '.2f')} "
            f"| {_fmt(r.rss_idle_kib and r.rss_idle_kib / 1024, '.1f')} "
            f"| {_fmt(r.rss_per_room_kib, '.1f')} | {_fmt(r.lost, 'd')} "
            f"| {_fmt(r.duplicated, 'd')} |"
        )
        if ref:
            line += (
                f" {ratio(r.subscribe_s, ref.subscribe_s)} "
                f"| {ratio(r.resubscribe_s, ref.resubscribe_s)} "
                f"| {ratio(r.msgs_per_s, ref.msgs_per_s)} "
                f"| {ratio(r.rss_per_room_kib, ref.rss_per_room_kib)} |"
            )
        lines.append(line)
        if r.failed:
            lines.append(f"|  | {LABELS.get(r.variant, r.variant)} failed: {r.failed} |")
    return "\n".join(lines)


def bad(result: Result) -> bool:
    """A run fails on any lost or duplicated answer, or on not finishing (ours)."""
    if result.lost or result.duplicated:
        return True
    return result.variant != "ref" and (result.failed is not None or result.lost is None)


DEFAULT_TMP = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rooms", "-r", type=int, default=1000, help="rooms of the agent (R)")
    p.add_argument("--agents", "-n", type=int, default=1, help="agents in every room")
    p.add_argument("--messages-per-room", "-k", type=int, default=2, help="steady-state K")
    p.add_argument("--concurrency", type=int, default=32, help="steady-state messages in flight")
    p.add_argument("--storm-rate", type=float, default=20.0, help="messages/s during the storm")
    p.add_argument("--outage", type=float, default=1.0, help="seconds band dev stays dead")
    p.add_argument("--against", metavar="PYTHON", help="interpreter with the official band-sdk")
    p.add_argument("--only", default="c,ref", help="variants to run (c, py, ref)")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds for one phase to finish")
    p.add_argument("--settle", type=float, default=1.0, help="seconds of quiet before RSS reads")
    p.add_argument("--tmpdir", default=DEFAULT_TMP, help="where each run's DB lives")
    p.add_argument("--json", metavar="PATH", help="write every figure here")
    return p


def run_variants(args: argparse.Namespace) -> list[Result]:
    """Each wanted variant once, in order, each on its own fresh platform."""
    wanted = args.only.split(",")
    variants = [(v, sys.executable, v == "py") for v in ("c", "py") if v in wanted]
    if args.against and "ref" in wanted:
        variants.append(("ref", args.against, False))
    results = []
    for variant, python, pure in variants:
        with tempfile.TemporaryDirectory(prefix="band-scale-", dir=args.tmpdir) as tmp:
            run = Run(variant, python, pure, args, Path(tmp))
            results.append(asyncio.run(run.main()))
    return results


def main(argv: list[str] | None = None) -> int:
    """Run the variants, print the table, write the JSON; 1 on any lost or duplicated answer."""
    args = parser().parse_args(argv)
    results = run_variants(args)
    print(
        f"R={args.rooms} rooms x {args.agents} agent(s), K={args.messages_per_room} msgs/room, "
        f"storm {args.storm_rate:g} msgs/s with a {args.outage:g}s outage, "
        f"Python {pyplatform.python_version()}, {os.cpu_count()} CPUs"
    )
    print(table(results))
    if args.json:
        record = {
            "kind": "band-bench-scale",
            "commit": runinfo.commit(),
            "machine": runinfo.machine(),
            "datetime": datetime.now(UTC).isoformat(timespec="seconds"),
            "params": vars(args),
            "python": pyplatform.python_version(),
            "against_sdk": e2e_run._interpreter_sdk(args.against) if args.against else None,
            "results": {r.variant: asdict(r) for r in results},
        }
        Path(args.json).write_text(json.dumps(record, indent=2))
    return 1 if any(bad(r) for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
