"""One fault run: an echo agent process behind a fault proxy, mentions in several rooms, counted.

The agent (ours, or the official band-sdk under another interpreter: the same script) runs as a
child process whose REST calls go through a ``FaultProxy`` (its socket goes to the platform
directly). The person mentions it in every room, one mention at a time per room (rooms run
side by side), waiting up to ``wait`` seconds for each echo. A kill schedule SIGKILLs the agent
from inside the proxy; a watcher starts it again at once. At the end every room is read back:
``lost`` (no echo), ``duplicated`` (echoes beyond the first), ``unsettled`` (not ``processed``)
and the slowest answer (the echo's ``inserted_at`` minus the mention's).

Used by test_exactly_once.py (ours only, asserted) and bench/faults.py (ours and the official
SDK side by side).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from bandtest.agents import Human, plain
from bandtest.platform import Live, room_with, stop_process

from .faultproxy import Chaos, FaultProxy, Kill

AGENT = """
import asyncio, logging, os
from band import Agent
from band.core import SimpleAdapter

class Echo(SimpleAdapter):
    async def on_message(self, msg, tools, history, participants_msg, contacts_msg, *,
                         is_session_bootstrap, room_id):
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
asyncio.run(Agent.create(adapter=Echo(), agent_id=os.environ["AID"],
                         api_key=os.environ["AKEY"]).run())
"""


@dataclass
class Outcome:
    """What one run left in the rooms."""

    name: str
    sent: int = 0
    lost: int = 0
    duplicated: int = 0
    unsettled: int = 0
    slowest: float = 0.0
    late: list[str] = field(default_factory=list)  # mentions not answered within ``wait``
    injected: Counter[tuple[str, str]] = field(default_factory=Counter)
    kills: int = 0
    starts: int = 0

    def row(self) -> str:
        """lost / duplicated (slowest) as the side-by-side table prints it."""
        extra = f", {self.unsettled} unsettled" if self.unsettled else ""
        return f"{self.lost} / {self.duplicated} (slowest {self.slowest:.1f} s{extra})"


@dataclass
class AgentProcess:
    """The agent as a child process, started again whenever it dies."""

    python: str
    script: Path
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self) -> None:
        self.starts += 1
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [self.python, str(self.script)],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.script.parent,
            )

    def kill(self) -> None:
        """SIGKILL (called from the proxy at a kill point)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            stop_process(self.proc)

    async def watch(self) -> None:
        """Start the agent again each time it died (a kill), until cancelled."""
        while True:
            await asyncio.sleep(0.1)
            if self.proc is not None and self.proc.poll() is not None:
                self.start()


class Person(Human):
    """The local person; a read that meets a keep-alive connection the loaded platform closed
    just as it was reused is read again, and a send goes over a fresh connection (a send is
    never repeated: it could post twice)."""

    def __init__(self, live: Live) -> None:
        super().__init__(live)
        self.fresh = httpx.AsyncClient(
            base_url=live.rest,
            headers={"X-API-Key": live.user_key},
            timeout=30,
            limits=httpx.Limits(max_keepalive_connections=0),
        )

    async def aclose(self) -> None:
        await self.fresh.aclose()
        await super().aclose()

    async def send(self, rid: str, aid: str, text: str) -> str:
        body = {"message": {"content": text, "mentions": [{"id": aid}]}}
        r = await self.fresh.post(f"/api/v1/me/chats/{rid}/messages", json=body)
        assert r.status_code == 201, r.text
        return str(r.json()["data"]["id"])

    async def messages(self, rid: str) -> list[dict[str, Any]]:
        for attempt in range(4):
            try:
                return await super().messages(rid)
            except httpx.TransportError:
                if attempt == 3:
                    raise
                await asyncio.sleep(0.5)
        raise AssertionError("unreachable")


def _ts(row: dict[str, Any]) -> float:
    return datetime.fromisoformat(str(row["inserted_at"]).replace("Z", "+00:00")).timestamp()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHON"))}
    return {**env, **extra}


async def run(
    live: Live,
    workdir: Path,
    name: str,
    *,
    python: str,
    chaos: Chaos | None = None,
    kill_point: str | None = None,
    kills: int = 2,
    rooms: int = 4,
    mentions: int = 2,
    wait: float = 60.0,
    settle: float = 30.0,
) -> Outcome:
    """Run one scenario against ``live`` and count what the rooms hold afterwards."""
    workdir.mkdir(parents=True, exist_ok=True)
    aid, _, key = await asyncio.to_thread(live.register, f"Echo {name}")
    rids = [
        await asyncio.to_thread(room_with, live, aid, title=f"{name} {i}") for i in range(rooms)
    ]
    script = workdir / "echo_agent.py"
    script.write_text(AGENT)
    proxy = FaultProxy(live.rest, chaos=chaos)
    agent = AgentProcess(
        python,
        script,
        _env(AID=aid, AKEY=key, BAND_REST_URL=proxy.url, BAND_WS_URL=live.ws),
        workdir / "agent.log",
    )
    if kill_point is not None:
        proxy.kill = Kill(kill_point, agent.kill, times=kills)
    out = Outcome(name)
    human = Person(live)
    proxy.start()
    agent.start()
    watcher = asyncio.create_task(agent.watch())
    sent: dict[str, list[tuple[str, str]]] = {rid: [] for rid in rids}  # rid -> (mid, text)

    async def echoes(rid: str) -> dict[str, list[dict[str, Any]]]:
        by_text: dict[str, list[dict[str, Any]]] = {}
        for m in await human.replies(rid, aid):
            # the mention's text is the echo's last words (the official SDK hands the adapter
            # the text with the agent's @handle in front: it echoes that too)
            by_text.setdefault(" ".join(plain(m["content"]).split()[-5:]), []).append(m)
        return by_text

    async def converse(rid: str) -> None:
        for i in range(mentions):
            text = f"{name} room {rids.index(rid)} mention {i}"  # 5 words: see ``echoes``
            sent[rid].append((await human.send(rid, aid, text), text))
            deadline = asyncio.get_running_loop().time() + wait
            while text not in await echoes(rid):
                if asyncio.get_running_loop().time() > deadline:
                    out.late.append(text)
                    break
                await asyncio.sleep(0.25)

    async def settled() -> bool:
        for rid in rids:
            rows = {m["id"]: m for m in await human.messages(rid)}
            for mid, _ in sent[rid]:
                state = (rows[mid].get("metadata") or {}).get("delivery_status", {}).get(aid, {})
                if state.get("status") != "processed":
                    return False
        return True

    try:
        await asyncio.gather(*(converse(rid) for rid in rids))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settle
        while not await settled() and loop.time() < deadline:
            await asyncio.sleep(0.3)
        await asyncio.sleep(2.0)  # a late duplicate would land in this quiet moment
        for rid in rids:
            rows = {m["id"]: m for m in await human.messages(rid)}
            found = await echoes(rid)
            for mid, text in sent[rid]:
                out.sent += 1
                answers = found.get(text, [])
                if not answers:
                    out.lost += 1
                else:
                    out.duplicated += len(answers) - 1
                    out.slowest = max(out.slowest, _ts(answers[0]) - _ts(rows[mid]))
                state = (rows[mid].get("metadata") or {}).get("delivery_status", {}).get(aid, {})
                out.unsettled += state.get("status") != "processed"
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        agent.stop()
        proxy.close()
        await human.aclose()
    out.injected = chaos.injected if chaos is not None else Counter()
    out.kills = proxy.kill.kills if proxy.kill is not None else 0
    out.starts = agent.starts
    return out
