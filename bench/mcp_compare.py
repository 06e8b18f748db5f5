"""band-mcp over stdio: startup and per-call latency, ours against another band-mcp.

A local platform runs in-process on 127.0.0.1; each server is launched by the official ``mcp``
client exactly as an MCP client would launch it. Rounds alternate between servers to cancel
machine drift; the median of the rounds counts.

    python bench/mcp_compare.py                                   # ours only
    python bench/mcp_compare.py --against /venv/bin/band-mcp      # and the official band-mcp
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import threading
import time
from typing import Any

import httpx
import uvicorn
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

from band.devserver.app import create_app


def start_platform() -> tuple[str, str]:
    """A throwaway local platform; its REST URL and the local person's key."""
    app = create_app(":memory:")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", app.state.user_key


def setup(rest: str, user_key: str) -> tuple[str, str]:
    """Register an agent in a room with the local person; its key and the room id."""
    h = {"X-API-Key": user_key}
    body = {"agent": {"name": "Bench", "description": "bench"}}
    reg = httpx.post(f"{rest}/api/v1/me/agents/register", json=body, headers=h).json()["data"]
    room = httpx.post(f"{rest}/api/v1/me/chats", json={"chat": {}}, headers=h).json()["data"]
    part = {"participant": {"participant_id": reg["agent"]["id"]}}
    httpx.post(f"{rest}/api/v1/me/chats/{room['id']}/participants", json=part, headers=h)
    return reg["credentials"]["api_key"], room["id"]


async def one_round(cmd: list[str], env: dict[str, str], room: str, calls: int) -> dict[str, float]:
    """Seconds to a listed tool surface, and milliseconds per call of two tools."""
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=os.getcwd())
    t0 = time.perf_counter()
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            await s.list_tools()
            out = {"startup + list_tools (s)": time.perf_counter() - t0}
            for name, args in (
                ("band_no_reply", {}),
                ("band_get_participants", {"chat_id": room}),
            ):
                t = time.perf_counter()
                for _ in range(calls):
                    res = await s.call_tool(name, args)
                    assert not res.isError, res
                out[f"{name} (ms/call)"] = (time.perf_counter() - t) * 1000 / calls
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", help="another band-mcp executable (e.g. the official 2.2.7)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--calls", type=int, default=50)
    a = p.parse_args()
    rest, user_key = start_platform()
    key, room = setup(rest, user_key)
    base = {**get_default_environment(), "BAND_BASE_URL": rest, "BAND_LOG_LEVEL": "WARNING"}
    ours_env = {**base, "PYTHONPATH": os.pathsep.join(sys.path)}
    servers: dict[str, tuple[list[str], dict[str, str]]] = {
        "ours": ([sys.executable, "-m", "band.mcp", "--agent-key", key], ours_env)
    }
    if a.against:
        servers["other"] = ([a.against, "--agent-key", key], base)
    results: dict[str, list[dict[str, float]]] = {k: [] for k in servers}
    for _ in range(a.rounds):
        for name, (cmd, env) in servers.items():
            results[name].append(asyncio.run(one_round(cmd, env, room, a.calls)))
    metrics = list(results["ours"][0])
    header = ["metric", *servers] + (["ours/other"] if a.against else [])
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for m in metrics:
        med = {k: statistics.median(r[m] for r in v) for k, v in results.items()}
        row: list[Any] = [m, *(f"{med[k]:.3f}" for k in servers)]
        if a.against:
            row.append(f"{med['ours'] / med['other']:.2f}x")
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
