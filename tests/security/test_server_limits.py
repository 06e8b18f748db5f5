"""Bounded requests and connections on ``band dev``: bodies (declared and chunked), header size,
header-read and body-read time, a descriptor limit under a flood of stalled connections, message
length."""

from __future__ import annotations

import json
import select
import shlex
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from bandtest.platform import stop_process

from band.devserver.contract.bodies import MAX_EVENT_CHARS, MAX_MESSAGE_CHARS
from band.serving import Limits

from .conftest import VENV_BIN, clean_env, free_port, spawn, wait_http

LIMITS = Limits()
#: stalled connections opened against a server limited to 256 descriptors
FLOOD = 300
#: generous bound on how long a blocking read may wait for the server (not a timing assertion)
READ_S = 60.0


class Dev:
    """``band dev`` in a subprocess on 127.0.0.1 (optionally under ``ulimit -n``)."""

    def __init__(self, tmp: Path, nofile: int | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"dev-{self.port}.log"
        cmd = [str(VENV_BIN / "band"), "dev", "--port", str(self.port), "--db", ":memory:"]
        if nofile is not None:
            cmd = ["bash", "-c", f"ulimit -n {nofile} && exec {shlex.join(cmd)}"]
        banner = tmp / f"banner-{self.port}.txt"
        self.proc = spawn(cmd, self.log, clean_env(), tmp, stdout=banner)
        wait_http(self.url + "/openapi.json", self.proc, self.log, timeout=60)
        lines = dict(line.split("=", 1) for line in banner.read_text().splitlines() if "=" in line)
        self.key = lines["BAND_USER_KEY"]

    def person(self) -> httpx.Client:
        """An HTTP client with the local person's key."""
        return httpx.Client(base_url=self.url, headers={"X-API-Key": self.key}, timeout=READ_S)

    def stop(self) -> str:
        """Stop the server; its log."""
        stop_process(self.proc)
        return self.log.read_text()


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dev]:
    server = Dev(tmp_path_factory.mktemp("limits"))
    yield server
    log = server.stop()
    # refused and malformed requests are answered, never a traceback
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=READ_S)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _status_and_body(raw: bytes) -> tuple[int, dict[str, object]]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def _timed_out(raw: bytes) -> dict[str, Any]:
    """The error of ``raw``, a 408 request_timeout answer."""
    status, body = _status_and_body(raw)
    assert status == 408
    error: Any = body["error"]
    assert error["code"] == "request_timeout"
    return error


def _post_head(dev: Dev, path: str, extra: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{dev.port}\r\nX-API-Key: {dev.key}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n"
    ).encode()


def test_declared_body_over_the_limit_is_refused_unread(dev: Dev) -> None:
    with dev.person() as person:
        before = person.get("/api/v1/me/chats").json()["data"]
    sock = _connect(dev.port)
    with sock:
        # only the head: the declared length alone gets the answer, no byte of the body is read
        sock.sendall(_post_head(dev, "/api/v1/me/chats", f"Content-Length: {50 * 1024 * 1024}\r\n"))
        raw = _read_all(sock)
    status, body = _status_and_body(raw)
    assert status == 413
    error = body["error"]
    assert isinstance(error, dict) and error["code"] == "payload_too_large" and error["request_id"]
    assert str(LIMITS.max_body) in str(error["message"])
    assert b"connection: close" in raw.lower()
    with dev.person() as person:
        assert person.get("/api/v1/me/chats").json()["data"] == before  # nothing written


def test_chunked_body_over_the_limit_is_refused_while_reading(dev: Dev) -> None:
    sock = _connect(dev.port)
    sent = 0
    chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"  # 64 KiB chunks
    with sock:
        sock.sendall(_post_head(dev, "/api/v1/me/chats", "Transfer-Encoding: chunked\r\n"))
        # offer up to 200 MiB; stop as soon as the server answers
        for _ in range(3200):
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += 0x10000
        raw = _read_all(sock)
    status, body = _status_and_body(raw)
    assert status == 413
    assert body["error"]["code"] == "payload_too_large"  # type: ignore[index]
    assert sent < 200 * 1024 * 1024  # answered long before the whole body was offered


def test_a_body_within_the_limit_still_works(dev: Dev) -> None:
    with dev.person() as person:
        room = person.post("/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
        path = f"/api/v1/me/chats/{room}/messages"
        content = "t" * MAX_MESSAGE_CHARS  # the longest message: a body far over 64 KiB
        r = person.post(path, json={"message": {"content": content}})
        assert r.status_code == 201, r.text
        assert [m["content"] for m in person.get(path).json()["data"]] == [content]


def test_message_content_limit(dev: Dev) -> None:
    with dev.person() as person:
        room = person.post("/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
        path = f"/api/v1/me/chats/{room}/messages"
        r = person.post(path, json={"message": {"content": "y" * (MAX_MESSAGE_CHARS + 1)}})
        assert r.status_code == 422, r.text
        assert r.json()["error"]["code"] == "validation_error"
        # the limit in characters, as a person reads it (not pydantic's generic "items")
        assert r.json()["error"]["message"] == (
            f"content: String should have at most {MAX_MESSAGE_CHARS} characters"
        )
        rows = person.get(path).json()["data"]
        assert all(len(m["content"]) <= MAX_MESSAGE_CHARS for m in rows)
        # an agent's event: its limit reads the same way
        body = {"agent": {"name": "Thinker", "description": "d"}}
        reg = person.post("/api/v1/me/agents/register", json=body).json()["data"]
        aid, key = reg["agent"]["id"], reg["credentials"]["api_key"]
        added = {"participant": {"participant_id": aid}}
        assert person.post(f"/api/v1/me/chats/{room}/participants", json=added).is_success
        event = {"event": {"content": "z" * (MAX_EVENT_CHARS + 1), "message_type": "thought"}}
        r = httpx.post(
            f"{dev.url}/api/v1/agent/chats/{room}/events", json=event, headers={"X-API-Key": key}
        )
        assert r.status_code == 422, r.text
        assert r.json()["error"]["message"] == (
            f"content: String should have at most {MAX_EVENT_CHARS} characters"
        )


def test_headers_over_the_limit_get_431(dev: Dev) -> None:
    sock = _connect(dev.port)
    with sock:
        sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        line = b"X-Filler: " + b"a" * 1000 + b"\r\n"
        try:  # 32 MiB offered; the server answers and closes long before
            for _ in range(32 * 1024):
                sock.sendall(line)
        except (BrokenPipeError, ConnectionResetError):
            pass
        status, body = _status_and_body(_read_all(sock))
    assert status == 431
    assert body["error"]["code"] == "headers_too_large"  # type: ignore[index]


@pytest.mark.parametrize("answered_first", [False, True], ids=["first-request", "later-request"])
def test_slow_header_client_is_closed_with_408(dev: Dev, answered_first: bool) -> None:
    """One header line per second keeps uvicorn's keep-alive timer from firing; the header
    deadline still closes the connection (bounded loop: at most 10 x the timeout), on a
    connection's first request as on a later one (whose timer starts only when its headers
    span reads)."""
    sock = _connect(dev.port)
    with sock:
        if answered_first:  # one whole request answered on the connection first
            sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(1)
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            while length:
                length -= len(sock.recv(length))
        sock.settimeout(1.0)
        sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer = b""
        for i in range(int(LIMITS.header_timeout) * 10):
            try:
                sock.sendall(f"X-Slow-{i}: 1\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                break
            try:
                answer = sock.recv(65536)
            except TimeoutError:
                continue
            break
        else:
            raise AssertionError("the slow client was never closed")
        sock.settimeout(READ_S)
        answer += _read_all(sock)
    _timed_out(answer)


def test_a_trickled_body_is_answered_408(dev: Dev) -> None:
    """A client that declares 1 MiB and sends a byte a second: answered 408 once the body
    deadline passes, the connection closed (bounded loop: at most 10 x the timeout), while
    another client is served meanwhile."""
    sock = _connect(dev.port)
    with sock:
        sock.settimeout(1.0)
        sock.sendall(_post_head(dev, "/api/v1/me/chats", "Content-Length: 1048576\r\n"))
        answer = b""
        for i in range(int(LIMITS.body_timeout) * 10):
            try:
                sock.sendall(b"{" if i == 0 else b" ")
            except (BrokenPipeError, ConnectionResetError):
                break
            try:
                answer = sock.recv(65536)
            except TimeoutError:
                if i == 2:  # the trickle holds no one else up
                    with dev.person() as other:
                        assert other.get("/api/v1/me/profile").status_code == 200
                continue
            break
        else:
            raise AssertionError("the trickled body was never answered")
        sock.settimeout(READ_S)
        answer += _read_all(sock)
    assert "request body not received" in _timed_out(answer)["message"]


def test_descriptor_limit_under_a_flood_of_stalled_connections(tmp_path: Path) -> None:
    """300 connections that never finish their headers against ``ulimit -n 256``: normal
    requests are still served, and the log says so once instead of once per accept."""
    server = Dev(tmp_path, nofile=256)
    stalled: list[socket.socket] = []
    try:
        for _ in range(FLOOD):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=READ_S)
            sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            stalled.append(sock)
        with server.person() as person:
            for _ in range(5):
                r = person.get("/api/v1/me/profile")
                assert r.status_code == 200, r.text
    finally:
        for sock in stalled:
            sock.close()
        log = server.stop()
    assert "connection limit reached" in log
    assert log.count("connection limit reached") <= 2, log[-3000:]
    assert log.count("out of system resource") <= 1, log[-3000:]
    assert "Traceback" not in log
    assert len(log) < 20_000, f"{len(log)} bytes of log"
