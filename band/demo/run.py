"""The steps of ``band demo``: platform, agent, room, mention, reply; each printed as it happens."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shutil
import sqlite3
import sys
import tempfile
from typing import Any, TextIO

from band._extras import MissingExtraError, require
from band.agent import Agent
from band.client import RestClient, path
from band.core import SimpleAdapter
from band.core.exceptions import BandError
from band.core.wire import ChatParticipantDetails, MessageRow

from .adapter import DemoAdapter, SilentAdapter
from .platform import LocalPlatform
from .watch import Clock, RoomWatcher, render

__all__ = ["Demo", "DemoFailed", "main"]

STEPS = 6
POLL_S = 0.1
KEEP_POLL_S = 0.5
DRAIN_S = 0.5


class DemoFailed(Exception):
    """The demo could not reach the agent's reply; the message says why."""


class Demo:
    """One run of the demo, printing each step on its own line to ``out``."""

    def __init__(self, args: argparse.Namespace, out: TextIO = sys.stdout) -> None:
        self.args = args
        self.out = out
        self.clock = Clock()
        self.doing = "starting"
        self.names: dict[str, str] = {}
        self.agent_id = ""
        self.room_id = ""

    # --- output -------------------------------------------------------------------------------

    def line(self, text: str) -> None:
        print(f"{self.clock.stamp()} {text}", file=self.out, flush=True)

    def step(self, n: int, text: str) -> None:
        self.line(f"step {n}/{STEPS}: {text}")

    def note(self, text: str) -> None:
        print(f"{' ' * 10} {text}", file=self.out, flush=True)

    def show(self, row: MessageRow) -> None:
        self.line(f"  room | {render(row, self.names)}")

    # --- the steps ----------------------------------------------------------------------------

    async def run(self) -> int:
        """Run every step; 0 once the agent replied, 1 with the reason on stderr otherwise."""
        workdir = tempfile.mkdtemp(prefix="band-demo-")
        db = self.args.db or os.path.join(workdir, "demo.sqlite3")
        platform: LocalPlatform | None = None
        agent: Agent | None = None
        rest: RestClient | None = None
        try:
            async with asyncio.timeout(self.args.timeout):
                self.doing = "starting the local platform"
                platform = LocalPlatform(db)
                platform.start()
                await platform.until_ready()
                where = "temporary" if self.args.db is None else db
                self.step(1, f"local Band platform up at {platform.rest_url} (database: {where})")
                rest = RestClient(platform.user_key, platform.rest_url, timeout=10)
                agent = await self._agent(platform, rest, workdir)
                watcher = await self._room(platform, rest)
                await self._exchange(watcher)
        except TimeoutError:
            print(
                f"error: no reply within {self.args.timeout:g} s (--timeout); "
                f"stopped while {self.doing}",
                file=sys.stderr,
            )
            return 1
        except DemoFailed as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        except (OSError, RuntimeError, BandError, sqlite3.Error) as exc:
            print(f"error: {self.doing} failed: {exc}", file=sys.stderr)
            return 1
        else:
            if self.args.keep:
                assert platform is not None
                await self._keep(platform, watcher)
            else:
                self._next_steps()
            return 0
        finally:
            await self._shutdown(agent, rest, platform)
            shutil.rmtree(workdir, ignore_errors=True)

    async def _agent(self, platform: LocalPlatform, rest: RestClient, workdir: str) -> Agent:
        """Register the example agent through the human API and start it with the SDK."""
        self.doing = "registering the agent"
        name = "Demo ACP Agent" if self.args.acp else "Demo Agent"
        body = {"agent": {"name": name, "description": "The band demo's example agent"}}
        data = (await rest.request("POST", "/me/agents/register", json=body)).data
        assert isinstance(data, dict)
        self.agent_id = data["agent"]["id"]
        self.names[self.agent_id] = name
        self.step(2, f'registered agent "{name}" (@{data["agent"]["handle"]}, id {self.agent_id})')

        self.doing = "starting the agent"
        adapter, how = self._adapter(workdir)
        agent = Agent.create(
            adapter=adapter,
            agent_id=self.agent_id,
            api_key=data["credentials"]["api_key"],
            rest_url=platform.rest_url,
            ws_url=platform.ws_url,
        )
        await agent.start()
        self.step(3, f"agent connected over WebSocket: band.Agent + {how}")
        return agent

    def _adapter(self, workdir: str) -> tuple[SimpleAdapter[Any], str]:
        if self.args.silent_agent:
            return SilentAdapter(), "SilentAdapter (test aid: never replies)"
        if not self.args.acp:
            return DemoAdapter(), "DemoAdapter (band/demo/adapter.py, a SimpleAdapter)"
        from band.adapters import ACPClientAdapter, ACPClientAdapterConfig

        command = (sys.executable, "-m", "band.demo.acp_agent")
        workspace = os.path.join(workdir, "workspace")
        os.makedirs(workspace, exist_ok=True)
        config = ACPClientAdapterConfig(command=command, cwd=workspace, turn_timeout_s=30.0)
        return ACPClientAdapter(config), "ACPClientAdapter running `python -m band.demo.acp_agent`"

    async def _room(self, platform: LocalPlatform, rest: RestClient) -> RoomWatcher:
        """Create a room as the local person and add the agent."""
        self.doing = "creating the room"
        room = (await rest.request("POST", "/me/chats", json={"chat": {"title": "Band demo"}})).data
        assert isinstance(room, dict)
        self.room_id = str(room["id"])
        members = path("/me/chats/{}/participants", self.room_id)
        body = {"participant": {"participant_id": self.agent_id}}
        await rest.request("POST", members, json=body)
        for p in (await rest.request("GET", members)).rows_as(ChatParticipantDetails):
            if p.id is not None:
                self.names.setdefault(p.id, p.name or p.handle or p.id)
        self.step(4, f'created room "Band demo" ({self.room_id}) and added the agent')
        self.note(f"web room view: {platform.rest_url}/#/rooms/{self.room_id}")
        return RoomWatcher(rest, self.room_id, self.names, self.show)

    async def _exchange(self, watcher: RoomWatcher) -> None:
        """Mention the agent, then print the room until its reply (or its error) arrives."""
        self.doing = "sending the message"
        name = self.names[self.agent_id]
        body = {"message": {"content": self.args.message, "mentions": [{"id": self.agent_id}]}}
        await watcher.rest.request("POST", path("/me/chats/{}/messages", self.room_id), json=body)
        self.step(5, f"sent a message mentioning {name}; waiting for the reply")
        self.doing = f"waiting for {name}'s reply"
        while True:
            for row in await watcher.poll():
                if row.sender_id != self.agent_id:
                    continue
                if row.message_type == "error":
                    raise DemoFailed(f"the agent reported an error: {row.content}")
                if row.message_type == "text":
                    # the events that follow a reply (e.g. its tool result) are part of the turn
                    await asyncio.sleep(DRAIN_S)
                    await watcher.poll()
                    self.step(6, f"{name} replied: the demo worked")
                    return
            await asyncio.sleep(POLL_S)

    def _next_steps(self) -> None:
        self.note("next: `band demo --keep` (or `make demo DEMO_ARGS=--keep`) keeps the platform")
        self.note("running to chat with the agent in the browser; `band dev` runs a lasting one.")

    async def _keep(self, platform: LocalPlatform, watcher: RoomWatcher) -> None:
        """Keep serving until Ctrl-C, printing what happens in the demo room."""
        self.doing = "keeping"
        self.note("the platform keeps running; point more agents at it with")
        self.note(f"BAND_REST_URL={platform.rest_url}")
        self.note(f"BAND_WS_URL={platform.ws_url}")
        self.note(f"open {platform.rest_url}/#/rooms/{self.room_id}")
        self.note(f"and mention {self.names[self.agent_id]} there. Ctrl-C stops.")
        while True:
            await asyncio.sleep(KEEP_POLL_S)
            with contextlib.suppress(BandError):
                await watcher.poll()

    async def _shutdown(
        self,
        agent: Agent | None,
        rest: RestClient | None,
        platform: LocalPlatform | None,
    ) -> None:
        # the agent first: it closes its socket while the platform still listens
        if agent is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(agent.stop(timeout=2.0), 10)
        if rest is not None:
            await rest.aclose()
        if platform is not None:
            await asyncio.to_thread(platform.stop)


def main(args: argparse.Namespace) -> int:
    """Run ``band demo``; Ctrl-C stops it (exit 0 with ``--keep`` after the reply, else 130)."""
    # the room is the demo's output: the SDK's and server's own logs only when they matter
    for name in ("band", "uvicorn", "httpx", "mcp"):
        logging.getLogger(name).setLevel(logging.WARNING)
    if args.acp:
        try:
            require("acp", "band demo --acp")
        except MissingExtraError as exc:  # one line, never a traceback
            print(exc, file=sys.stderr)
            return 1
    demo = Demo(args)
    print(
        "Band demo: a local platform, an agent built with the Band SDK, and a room.",
        flush=True,
    )
    try:
        return asyncio.run(demo.run())
    except KeyboardInterrupt:
        print("\nstopped.", flush=True)
        return 0 if args.keep and demo.doing == "keeping" else 130
