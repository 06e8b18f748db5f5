"""API keys never reach a log: band dev, an agent and band-mcp, all at DEBUG, doing real work."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import httpx
from bandtest.agents import echo_agent_script
from bandtest.platform import stop_process
from mcp import ClientSession
from mcp.client.sse import sse_client

from .conftest import VENV_BIN, clean_env, free_port, spawn, wait_http

MCP_TOKEN = "mcp-token-" + "q" * 32
AGENT = echo_agent_script("DEBUG")


def test_keys_absent_from_every_log(tmp_path: Path) -> None:
    port = free_port()
    rest, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/api/v1/socket/websocket"
    user_key = "band_u_" + "k" * 32
    procs = []
    logs = {name: tmp_path / f"{name}.log" for name in ("platform", "agent", "mcp")}
    try:
        cmd = [str(VENV_BIN / "band"), "dev", "--port", str(port), "--user-key", user_key]
        cmd.append("--access-log")  # every request line, query strings included
        # band dev prints the local key once on stdout (its banner, for the person); its
        # other output is logs (uvicorn's access log goes to stdout too)
        banner = tmp_path / "banner.txt"
        platform = spawn(
            [*cmd, "--db", str(tmp_path / "dev.sqlite3")],
            logs["platform"],
            clean_env(),
            tmp_path,
            stdout=banner,
        )
        procs.append(platform)
        wait_http(rest + "/openapi.json", platform, logs["platform"])
        person = httpx.Client(base_url=rest, headers={"X-API-Key": user_key}, timeout=10)
        body = {"agent": {"name": "Echo", "description": "echo"}}
        reg = person.post("/api/v1/me/agents/register", json=body).json()["data"]
        aid, agent_key = reg["agent"]["id"], reg["credentials"]["api_key"]
        rid = person.post("/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
        person.post(
            f"/api/v1/me/chats/{rid}/participants", json={"participant": {"participant_id": aid}}
        )
        # the web view's socket carries the key in its URL: the platform must redact it
        httpx.get(f"{rest}/api/v1/socket/websocket?api_key={user_key}", timeout=5)

        (tmp_path / "agent.py").write_text(AGENT)
        env = clean_env(AID=aid, AKEY=agent_key, BAND_REST_URL=rest, BAND_WS_URL=ws)
        agent = spawn(
            [str(VENV_BIN / "python"), str(tmp_path / "agent.py")], logs["agent"], env, tmp_path
        )
        procs.append(agent)
        msg = {"message": {"content": "hello", "mentions": [{"id": aid}]}}
        person.post(f"/api/v1/me/chats/{rid}/messages", json=msg)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            rows = person.get(f"/api/v1/me/chats/{rid}/messages").json()["data"]
            if any(m["sender_id"] == aid for m in rows):
                break
            time.sleep(0.1)
        else:
            raise AssertionError(logs["agent"].read_text()[-3000:])

        mcp_port = free_port()
        env = clean_env(
            BAND_AGENT_KEY=agent_key,
            BAND_USER_KEY=user_key,
            BAND_MCP_SCOPE="agent,human",
            BAND_BASE_URL=rest,
            BAND_LOG_LEVEL="DEBUG",
            ALLOWED_HOSTS='["127.0.0.1:*"]',
            BAND_MCP_TOKEN=MCP_TOKEN,
        )
        mcp = spawn(
            [str(VENV_BIN / "band-mcp"), "-t", "sse", "-p", str(mcp_port)],
            logs["mcp"],
            env,
            tmp_path,
        )
        procs.append(mcp)
        wait_http(f"http://127.0.0.1:{mcp_port}/messages/", mcp, logs["mcp"])
        texts = asyncio.run(_mcp_calls(f"http://127.0.0.1:{mcp_port}/sse", rid))
        assert any("OK" in t for t in texts), texts
        person.close()
    finally:
        for proc in procs:
            stop_process(proc)
    text = {name: path.read_text(errors="replace") for name, path in logs.items()}
    stdout = banner.read_text(errors="replace").splitlines()
    assert [ln for ln in stdout if user_key in ln] == [f"BAND_USER_KEY={user_key}"]
    text["platform"] += "\n".join(ln for ln in stdout if not ln.startswith("BAND_USER_KEY="))
    # the logs are real: each process did its work and said so
    assert "/messages/" in text["platform"] and "processed" in text["platform"]
    assert "Agent started" in text["agent"] and "DEBUG" in text["agent"]
    assert "DEBUG" in text["mcp"] or "INFO" in text["mcp"], text["mcp"][-1000:]
    for name, body in text.items():
        for key in (user_key, agent_key):
            assert key not in body, f"{name} log leaks a key"
            # nor a recognisable part of it
            assert key[8:24] not in body, f"{name} log leaks part of a key"
        assert not re.search(r"band_[ua]_[A-Za-z0-9_-]{8,}", body), name


async def _mcp_calls(url: str, rid: str) -> list[str]:
    """health_check and one tool per scope through band-mcp over SSE."""
    auth = {"Authorization": f"Bearer {MCP_TOKEN}"}
    async with (
        sse_client(url, headers=auth) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        texts = []
        for name, args in (
            ("health_check", {}),
            ("band_get_participants", {"chat_id": rid}),
            ("band_list_my_chats", {}),
        ):
            result = await session.call_tool(name, args)
            texts += [c.text for c in result.content if hasattr(c, "text")]
        return texts
