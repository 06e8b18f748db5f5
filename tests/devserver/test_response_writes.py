"""band dev writes a response of known length head and body at once (``HeadWithBody``): one
segment, one wake-up of the client; every other response as uvicorn writes it."""

from __future__ import annotations

import select
import socket
from types import SimpleNamespace
from typing import Any

import pytest

from band.serving.protocol import HeadWithBody

from .conftest import Live

#: bound on how long a read may wait for the server (not a timing assertion)
READ_S = 60.0


class Recorded:
    """A transport that keeps what is written to it (the server's side of one connection)."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str) -> Any:
        return ("127.0.0.1", 1) if name == "peername" else None


def _cycle(method: str = "GET") -> SimpleNamespace:
    """What ``HeadWithBody`` reads of uvicorn's response cycle, before the response starts."""
    return SimpleNamespace(
        response_started=False,
        chunked_encoding=None,
        expected_content_length=0,
        scope={"method": method},
    )


def _start(cycle: SimpleNamespace, length: int | None) -> None:
    """The cycle's state once it has read the response's headers."""
    cycle.response_started = True
    cycle.chunked_encoding = length is None
    cycle.expected_content_length = length or 0


def test_a_head_waits_for_its_body() -> None:
    sent = Recorded()
    cycle = _cycle()
    out = HeadWithBody(sent, cycle)  # type: ignore[arg-type]
    out.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # before the response: at once
    _start(cycle, 5)
    out.write(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n")
    assert sent.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]
    out.write(b"hello")
    assert sent.writes[1:] == [b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello"]
    assert out.get_extra_info("peername") == ("127.0.0.1", 1)


@pytest.mark.parametrize(
    ("method", "length"),
    [("GET", None), ("HEAD", 5), ("GET", 0)],
    ids=["chunked", "head", "empty"],
)
def test_other_heads_are_written_at_once(method: str, length: int | None) -> None:
    sent = Recorded()
    cycle = _cycle(method)
    out = HeadWithBody(sent, cycle)  # type: ignore[arg-type]
    _start(cycle, length)
    out.write(b"head")
    assert sent.writes == [b"head"]  # a stream's first event may come much later
    out.write(b"body")
    assert sent.writes == [b"head", b"body"]


def test_a_closing_connection_sends_the_head_first() -> None:
    sent = Recorded()
    cycle = _cycle()
    out = HeadWithBody(sent, cycle)  # type: ignore[arg-type]
    _start(cycle, 5)
    out.write(b"head")
    out.close()  # the app failed after starting its response
    assert sent.writes == [b"head"] and sent.closed


def _response(sock: socket.socket) -> tuple[bytes, bytes]:
    """The first read's bytes once the server answers, and the body its head promises."""
    ready, _, _ = select.select([sock], [], [], READ_S)
    assert ready, "no answer"
    first = sock.recv(65536)
    head, _, body = first.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return first, body[:length]


def test_band_dev_answers_in_one_piece(live: Live) -> None:
    host, port = live.rest.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=READ_S) as sock:
        for _ in range(3):  # one keep-alive connection, each answer whole in the first read
            request = (
                f"GET /api/v1/me/profile HTTP/1.1\r\nhost: {host}\r\n"
                f"x-api-key: {live.user_key}\r\n\r\n"
            )
            sock.sendall(request.encode())
            first, body = _response(sock)
            assert first.startswith(b"HTTP/1.1 200 ")
            assert first.endswith(body) and body.startswith(b'{"data":')
