"""The ACP adapter's MCP server stops cleanly with a tool call still open: the call's request is
answered (503, or its stream ended) within the shutdown, and nothing is logged at ERROR (no
``Exception in ASGI application``, no ``timeout graceful shutdown exceeded``)."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from band.integrations.mcp.local_server import LocalMCPServer, MCPToolRegistration
from band.runtime.tools.registry import SEND_MESSAGE

JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _rpc(method: str, params: dict[str, object], ident: int | None = None) -> dict[str, object]:
    out: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        out["id"] = ident
    return out


def test_stop_with_an_open_tool_call_logs_no_error(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    entered = asyncio.Event()

    async def hang(args: object) -> object:
        entered.set()
        await asyncio.Event().wait()  # a tool call that never finishes on its own
        raise AssertionError("unreachable")

    async def body() -> int | None:
        tool = MCPToolRegistration(
            SEND_MESSAGE.name, SEND_MESSAGE.description, SEND_MESSAGE.input_model, hang, True
        )
        server = LocalMCPServer("band", [tool], port_min=0, port_max=0, room_bound=True)
        await server.start()
        url = server.room_http_url("room-1")
        async with httpx.AsyncClient(timeout=60) as client:
            init = _rpc(
                "initialize",
                {
                    "protocolVersion": "2025-03-26",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
                1,
            )
            r = await client.post(url, json=init, headers=JSON)
            assert r.status_code == 200, r.text
            sid = r.headers.get("mcp-session-id")  # none: the server is stateless
            session = {**JSON, **({"mcp-session-id": sid} if sid else {})}
            await client.post(url, json=_rpc("notifications/initialized", {}), headers=session)
            call = _rpc("tools/call", {"name": SEND_MESSAGE.name, "arguments": {}}, 2)
            pending = asyncio.create_task(client.post(url, json=call, headers=session))
            await entered.wait()
            await server.stop()
            try:
                answer = await pending
            except httpx.HTTPError:
                return None  # the stream was ended
            return answer.status_code

    with caplog.at_level(logging.INFO):
        status = asyncio.run(body())
    assert status in (None, 200, 503)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    err = capfd.readouterr().err  # uvicorn's own loggers write to stderr, not to caplog
    assert "ERROR" not in err and "Traceback" not in err, err
