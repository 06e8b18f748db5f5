"""Shared test support for real agents on the local platform: fast agents, the person, polling."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from band import Agent
from band.runtime.agentconfig import AgentConfig
from band.runtime.sessionconfig import SessionConfig
from band_sdk_core import SessionPolicy

from .platform import Live


def echo_agent_script(log_level: str) -> str:
    """A standalone agent program answering each message with ``echo: <content>``, logging at
    ``log_level``; its id and key come from ``AID`` and ``AKEY``."""
    return f"""
import asyncio, logging, os
from band import Agent
from band.core import SimpleAdapter

class Echo(SimpleAdapter):
    async def on_message(self, msg, tools, history, participants_msg, contacts_msg, *,
                         is_session_bootstrap, room_id):
        await tools.send_message(f"echo: {{msg.content}}", mentions=[msg.sender_id])

logging.basicConfig(level=logging.{log_level})
asyncio.run(Agent.create(adapter=Echo(), agent_id=os.environ["AID"],
                         api_key=os.environ["AKEY"]).run())
"""


_MENTION_TOKEN = re.compile(r"@\[\[[^\]]+\]\]\s*")

#: Reconnects and heartbeats in tenths of a second, so disconnect tests stay fast.
FAST_POLICY = {
    "base_delay_s": 0.05,
    "factor": 2.0,
    "max_delay_s": 0.4,
    "stable_reset_s": 60.0,
    "rapid_disconnect_uptime_s": 0.5,
    "rapid_window_s": 300.0,
    "rapid_first_min_delay_s": 0.05,
    "rapid_second_min_delay_s": 0.1,
    "rapid_cooldown_base_s": 0.2,
    "rapid_cooldown_step_s": 0.1,
    "rapid_cooldown_max_s": 0.4,
    "rapid_threshold": 200,
    "heartbeat_interval_s": 0.5,
    "dead_threshold_s": 2.0,
}


def plain(content: str) -> str:
    """Message text without the ``@[[id]]`` tokens the platform puts in for mentions."""
    return _MENTION_TOKEN.sub("", content).strip()


def agent_process_env(live: Live, agent_id: str, agent_key: str, **extra: str) -> dict[str, str]:
    """The environment of an agent script run as a child process against ``live``: its id and
    key, the platform's URLs, PATH, and ``extra`` (nothing else of the test's environment)."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "AGENT_ID": agent_id,
        "AGENT_KEY": agent_key,
        "BAND_REST_URL": live.rest,
        "BAND_WS_URL": live.ws,
        **extra,
    }


def fast_agent(
    live: Live,
    adapter: Any,
    aid: str,
    key: str,
    agent_kw: dict[str, Any] | None = None,
    *,
    rest: str | None = None,
    policy: dict[str, float] | None = None,
    **session: Any,
) -> Agent:
    """An agent on ``live`` (REST through ``rest`` when given) with fast reconnects and a short
    idle resync (``policy``: entries of ``FAST_POLICY`` to change)."""
    session.setdefault("idle_resync_seconds", 0.3)
    session.setdefault("idle_resync_max_seconds", 0.6)
    return Agent.create(
        adapter=adapter,
        agent_id=aid,
        api_key=key,
        rest_url=rest or live.rest,
        ws_url=live.ws,
        config=AgentConfig(session_policy=SessionPolicy({**FAST_POLICY, **(policy or {})})),
        session_config=SessionConfig(**session),
        **(agent_kw or {}),
    )


class Human:
    """The local person, over the human API, without blocking the agent's event loop."""

    def __init__(self, live: Live) -> None:
        self.live = live
        self.http = httpx.AsyncClient(
            base_url=live.rest, headers={"X-API-Key": live.user_key}, timeout=10
        )

    async def aclose(self) -> None:
        await self.http.aclose()

    async def send(self, rid: str, aid: str, text: str) -> str:
        """Post ``text`` mentioning ``aid``; return the message id."""
        body = {"message": {"content": text, "mentions": [{"id": aid}]}}
        r = await self.http.post(f"/api/v1/me/chats/{rid}/messages", json=body)
        assert r.status_code == 201, r.text
        return str(r.json()["data"]["id"])

    async def messages(self, rid: str) -> list[dict[str, Any]]:
        """Every message of the room, oldest first."""
        r = await self.http.get(f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
        assert r.status_code == 200, r.text
        return list(reversed(r.json()["data"]))  # the platform lists them newest first

    async def replies(self, rid: str, aid: str, kind: str = "text") -> list[dict[str, Any]]:
        """Messages of type ``kind`` the agent posted in the room."""
        rows = await self.messages(rid)
        return [m for m in rows if m["sender_id"] == aid and m["message_type"] == kind]

    async def status(self, rid: str, mid: str, aid: str) -> str | None:
        """The agent's delivery status of message ``mid``."""
        for m in await self.messages(rid):
            if m["id"] == mid:
                return (
                    (m.get("metadata") or {}).get("delivery_status", {}).get(aid, {}).get("status")
                )
        return None

    async def status_is(self, rid: str, mid: str, aid: str, status: str) -> bool:
        """Whether the agent's delivery status of ``mid`` is ``status`` (a ``wait_for`` check)."""
        return await self.status(rid, mid, aid) == status

    async def control(self, rid: str, aid: str, mode: str) -> None:
        """Stop or play ``aid`` in the room, as the person's room controls do."""
        r = await self.http.post(
            f"/api/v1/me/chats/{rid}/control", json={"mode": mode, "agent_id": aid}
        )
        assert r.status_code == 200, r.text


async def wait_for(
    check: Callable[[], Awaitable[Any] | Any], *, timeout: float = 10.0, interval: float = 0.05
) -> Any:
    """Poll ``check`` (sync or async) until it returns something truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s (last: {result!r})")
        await asyncio.sleep(interval)
