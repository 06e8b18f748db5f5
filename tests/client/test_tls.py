"""The client over TLS: band dev served with a self-signed certificate, trusted through
``SSL_CERT_FILE``; a push and a REST answer each larger than the loop's read buffer
(``band.client.reads``) arrive whole, on asyncio's loop and on uvloop."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from bandtest.agents import wait_for
from bandtest.platform import Live, no_delay, room_with, say, serve_in_thread

from band.client import RestClient
from band.client.phoenix import PhoenixClient
from band.client.reads import READ_BUFFER_SIZE
from band.devserver.app import create_app
from band.serving import guarded_config


def _self_signed(tmp: Path) -> Path:
    """A certificate for 127.0.0.1 and its key, in one PEM file."""
    pem = tmp / "server.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(pem), "-out", str(pem)),
        ],
        check=True,
        capture_output=True,
    )
    return pem


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Live, Path]]:
    """band dev on https/wss at a free port of 127.0.0.1, and its certificate."""
    pem = _self_signed(tmp_path_factory.mktemp("tls"))
    app = create_app(":memory:")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    no_delay(sock)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = guarded_config(
        app,
        log_level="warning",
        ws="websockets-sansio",
        lifespan="on",
        ssl_certfile=str(pem),
        ssl_keyfile=str(pem),
    )
    server, thread = serve_in_thread(config, sock, "band dev over TLS")
    with httpx.Client(timeout=10, verify=ssl.create_default_context(cafile=pem)) as client:
        yield (
            Live(
                f"https://127.0.0.1:{port}",
                f"wss://127.0.0.1:{port}/api/v1/socket/websocket",
                app.state.user_key,
                client,
                app,
            ),
            pem,
        )
    server.should_exit = True
    thread.join(10)
    sock.close()


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_push_and_an_answer_larger_than_the_read_buffer_arrive_whole(
    tls: tuple[Live, Path], loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, pem = tls
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    aid, _, key = live.register(f"Tls{loop}")
    rid = room_with(live, aid)
    text = "".join(f"{i:06d} " for i in range(READ_BUFFER_SIZE // 7 + 2000))  # ~78 KiB
    assert READ_BUFFER_SIZE < len(text) < 100_000  # (the platform's message limit)

    async def go() -> None:
        pushes: list[dict[str, Any]] = []
        phx = PhoenixClient(live.ws, api_key=key, params={"agent_id": aid})
        await phx.connect()
        try:
            await phx.join(
                f"chat_room:{rid}", lambda _e, p: pushes.append(p), events=("message_created",)
            )
            mid = await asyncio.to_thread(say, live, rid, text, aid)
            await wait_for(lambda: pushes)
            # the platform puts the mention in front of the text: the same content both ways
            content = f"@[[{aid}]] {text}"
            assert [(p["id"], p["content"]) for p in pushes] == [(mid, content)]
            async with RestClient(key, live.rest, max_retries=0) as rest:
                answer = await rest.request("GET", f"/agent/chats/{rid}/messages")
            assert [m["content"] for m in answer.data if m["id"] == mid] == [content]
        finally:
            await phx.close()

    if loop == "uvloop":
        pytest.importorskip("uvloop").run(go())
    else:
        asyncio.run(go())
