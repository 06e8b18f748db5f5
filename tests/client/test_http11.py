"""The lean HTTP/1.1 client under RestClient, against raw scripted servers on 127.0.0.1.

Each server here reads real requests off a real socket and writes the exact bytes a test wants
(chunked bodies, bodies ended by the close, truncation, garbage, silence), so every framing and
failure path of band.client.http11 runs over TCP, and through RestClient's error mapping.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from bandtest.agents import wait_for

from band.client import BandConnectionError, BandTimeoutError, RestClient, http11
from band.client.errors import BandAPIError
from band.client.http11 import Http11Pool

#: One scripted answer: raw bytes, or a coroutine given (request head, writer) that answers.
Script = Callable[[bytes, asyncio.StreamWriter], Awaitable[None]]


def raw(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> bytes:
    """A complete keep-alive response with a Content-Length."""
    lines = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


JSON = {"Content-Type": "application/json"}


class RawServer:
    """Answers the n-th request with ``answers[n]``; records connections and request bytes."""

    def __init__(self, answers: list[bytes | Script]) -> None:
        self.answers = answers
        self.requests: list[bytes] = []
        self.connections = 0
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                answer = self.answers.pop(0)
                if isinstance(answer, bytes):
                    writer.write(answer)
                    await writer.drain()
                else:
                    await answer(request, writer)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_keep_alive_json_round_trip() -> None:
    """Requests share one connection; the JSON body, key and target arrive as sent."""

    async def go() -> None:
        answers: list[bytes | Script] = [raw(200, b'{"data": {"n": 1}}', JSON)] * 3
        async with RawServer(answers) as srv, RestClient("band_a_k", srv.url) as rest:
            first = await rest.request("POST", "/agent/chats/r%201/messages", json={"x": "é"})
            await rest.request("GET", "agent/me", params={"page": 2, "ok": True, "q": "a b&c"})
            await rest.request("DELETE", "/agent/x")
            assert first.data == {"n": 1} and first.status_code == 200
            assert srv.connections == 1
            post, get, delete = srv.requests
            assert post.startswith(b"POST /api/v1/agent/chats/r%201/messages HTTP/1.1\r\n")
            head, _, body = post.partition(b"\r\n\r\n")
            assert json.loads(body) == {"x": "é"}
            assert b"\r\nContent-Type: application/json\r\n" in head
            assert b"\r\nX-API-Key: band_a_k\r\n" in head and b"\r\nHost: 127.0.0.1:" in head
            target = get.split(b" ")[1].decode()
            assert urlsplit(target).path == "/api/v1/agent/me"
            query = dict(parse_qsl(urlsplit(target).query))
            assert query == {"page": "2", "ok": "true", "q": "a b&c"}
            assert delete.startswith(b"DELETE /api/v1/agent/x HTTP/1.1\r\n")
            assert b"content-length" not in delete.lower()  # no body, no length on DELETE

    run(go())


def test_targets_match_httpx() -> None:
    """The request target is the one httpx would build from the same base URL and params."""
    pool = Http11Pool("http://h:1/api/v1", {}, timeout=1, connect_timeout=1)
    client = httpx.Client(base_url="http://h:1/api/v1")
    cases: list[tuple[str, dict[str, Any] | None]] = [
        ("/agent/me", None),
        ("agent/me", None),
        ("/agent/chats/a%2Fb/messages", {"page": 1, "page_size": 5}),
        ("/me/chats", {"tags": ["a", "b"], "flag": False, "text": "x y/z"}),
        ("/x?cursor=5", {"limit": 3}),
    ]
    for url, params in cases:
        ours = pool.target(url, params)
        theirs = client.build_request("GET", url, params=params).url
        assert urlsplit(ours).path == theirs.raw_path.decode().partition("?")[0], url
        assert parse_qsl(urlsplit(ours).query) == parse_qsl(theirs.query.decode()), url


def test_chunked_gzip_and_repeated_headers() -> None:
    """A chunked, gzip-encoded answer is reassembled and decoded; repeated headers join."""
    body = gzip.compress(b'{"data": [1, 2, 3]}')
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:5], body[5:])) + b"0\r\n\r\n"
    answer = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n"
        b"Content-Type: application/json\r\nX-Tag: a\r\nX-Tag: b\r\n\r\n" + chunks
    )

    async def go() -> None:
        async with RawServer([answer, raw(204)]) as srv, RestClient("k", srv.url) as rest:
            resp = await rest.request("GET", "/x")
            assert resp.data == [1, 2, 3] and resp.headers["x-tag"] == "a, b"
            empty = await rest.request("POST", "/y")
            assert empty.status_code == 204 and empty.body is None
            assert srv.connections == 1  # both framed: the connection was kept
            assert b"\r\nContent-Length: 0\r\n" in srv.requests[1]  # a POST always says its size

    run(go())


def test_body_ended_by_close_and_connection_close() -> None:
    """An unframed body ends with the stream; neither it nor ``Connection: close`` is reused."""
    unframed = b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{"data": "old"}'

    async def close_after(_: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(unframed)
        await writer.drain()
        writer.close()

    async def go() -> None:
        answers: list[bytes | Script] = [
            close_after,
            raw(200, b'{"data": 2}', {**JSON, "Connection": "close"}),
            raw(200, b'{"data": 3}', JSON),
        ]
        async with RawServer(answers) as srv, RestClient("k", srv.url) as rest:
            assert (await rest.request("GET", "/1")).data == "old"
            assert (await rest.request("GET", "/2")).data == 2
            assert (await rest.request("GET", "/3")).data == 3
            assert srv.connections == 3

    run(go())


def test_idle_connection_closed_by_the_server_is_not_reused() -> None:
    """The server closing a kept connection between calls costs nothing: a new one is opened."""

    async def answer_then_close(_: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(raw(200, b"{}", JSON))
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.close()  # the keep-alive timeout of a real server, after the answer

    async def go() -> None:
        answers: list[bytes | Script] = [answer_then_close, raw(200, b'{"data": 1}', JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url, max_retries=0) as rest:
            await rest.request("POST", "/a")
            await asyncio.sleep(0.3)
            assert (await rest.request("POST", "/b")).data == 1  # POSTs are never retried
            assert srv.connections == 2

    run(go())


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}", "without a full response"),
        (b"NOT HTTP AT ALL\r\n\r\n", "malformed response"),
        (raw(200, b"not gzip", {"Content-Encoding": "gzip"}), "bad gzip body"),
    ],
)
def test_truncated_garbled_or_undecodable_answers_are_connection_errors(
    answer: bytes, needle: str
) -> None:
    """A short body or a garbled head raises BandConnectionError; the next call is clean."""

    async def send_and_close(_: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(answer)
        await writer.drain()
        writer.close()

    async def go() -> None:
        answers: list[bytes | Script] = [send_and_close, raw(200, b'{"data": 1}', JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url, max_retries=0) as rest:
            with pytest.raises(BandConnectionError, match=needle):
                await rest.request("GET", "/bad")
            assert (await rest.request("GET", "/good")).data == 1

    run(go())


def test_silence_times_out_and_the_connection_is_dropped() -> None:
    """No answer within the timeout: BandTimeoutError; a late answer never reaches a later call."""

    async def late(_: bytes, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.5)
        writer.write(raw(200, b'{"data": "late"}', JSON))

    async def go() -> None:
        answers: list[bytes | Script] = [late, raw(200, b'{"data": "fresh"}', JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url, max_retries=0) as rest:
            rest.timeout = 0.2
            with pytest.raises(BandTimeoutError, match="POST /slow timed out"):
                await rest.request("POST", "/slow")
            rest.timeout = 10.0  # the short timeout was for the silent call; a loaded host is slow
            assert (await rest.request("GET", "/next")).data == "fresh"
            assert srv.connections == 2

    run(go())


def test_deadlines_of_calls_in_flight_each_hold_on_the_shared_timer() -> None:
    """A call with a shorter timeout, sent while a longer one waits, times out first; the
    longer one still times out at its own deadline; an answered call is not failed."""
    hold = asyncio.Event()

    async def silent(_: bytes, writer: asyncio.StreamWriter) -> None:
        await hold.wait()

    async def go() -> None:
        answers: list[bytes | Script] = [silent, silent, raw(200, b'{"data": "ok"}', JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url, max_retries=0) as rest:
            rest.timeout = 3.0
            slow = asyncio.create_task(rest.request("POST", "/slow"))
            await wait_for(lambda: len(srv.requests) == 1)  # sent: its deadline is armed
            rest.timeout = 0.2
            with pytest.raises(BandTimeoutError, match="POST /quick timed out"):
                await rest.request("POST", "/quick")
            rest.timeout = 10.0
            assert (await rest.request("GET", "/ok")).data == "ok"
            assert not slow.done()  # its deadline is later
            with pytest.raises(BandTimeoutError, match="POST /slow timed out"):
                await slow
            assert srv.connections == 3
            hold.set()

    run(go())


def test_idempotent_calls_retry_after_a_drop() -> None:
    """A GET whose connection drops is retried (on a new connection) and succeeds."""

    async def drop(_: bytes, writer: asyncio.StreamWriter) -> None:
        writer.close()

    async def go() -> None:
        answers: list[bytes | Script] = [drop, raw(200, b'{"data": "ok"}', JSON)]
        async with RawServer(answers) as srv:
            async with RestClient("k", srv.url, backoff_base_s=0.01, backoff_max_s=0.02) as rest:
                assert (await rest.request("GET", "/x")).data == "ok"
            assert len(srv.requests) == 2

    run(go())


def test_cancel_mid_request_discards_the_connection() -> None:
    """A call cancelled while waiting leaves no half-read connection in the pool."""
    hold = asyncio.Event()

    async def stall(_: bytes, writer: asyncio.StreamWriter) -> None:
        await hold.wait()
        writer.write(raw(200, b'{"data": "stale"}', JSON))

    async def go() -> None:
        answers: list[bytes | Script] = [stall, raw(200, b'{"data": "fresh"}', JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url) as rest:
            call = asyncio.create_task(rest.request("GET", "/stall"))
            await asyncio.sleep(0.1)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            hold.set()
            assert (await rest.request("GET", "/next")).data == "fresh"
            assert srv.connections == 2

    run(go())


def test_unreachable_platform() -> None:
    """Nothing listening: BandConnectionError after the retries of an idempotent call."""

    async def go() -> None:
        async with RestClient("k", "http://127.0.0.1:9", backoff_base_s=0.001) as rest:
            with pytest.raises(BandConnectionError, match="GET /agent/me failed"):
                await rest.request("GET", "/agent/me")

    run(go())


def test_header_injection_is_refused() -> None:
    """A CR or LF in a header (the key, or a call's headers) never reaches the wire."""
    with pytest.raises(ValueError, match="invalid header"):
        RestClient("band_a_k\r\nX-Evil: 1", "http://127.0.0.1:9")

    async def go() -> None:
        async with RawServer([]) as srv, RestClient("k", srv.url) as rest:
            with pytest.raises(ValueError, match="invalid header"):
                await rest.request("GET", "/x", headers={"X-A": "1\r\nX-B: 2"})
            assert srv.requests == []

    run(go())


def test_httpx_carries_proxies_uploads_and_the_opt_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lean client steps aside for an environment proxy and BAND_REST_HTTPX=1; multipart
    uploads go through httpx on the same client."""
    assert RestClient("k", "http://127.0.0.1:9")._lean is not None
    monkeypatch.setenv("BAND_REST_HTTPX", "1")
    assert RestClient("k", "http://127.0.0.1:9")._lean is None
    monkeypatch.delenv("BAND_REST_HTTPX")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:3128")
    monkeypatch.setenv("no_proxy", "")
    assert RestClient("k", "http://example.test")._lean is None
    monkeypatch.delenv("http_proxy")
    monkeypatch.setattr(http11, "httptools", None)  # a platform without the C parser
    assert RestClient("k", "http://127.0.0.1:9")._lean is None
    monkeypatch.undo()

    async def go() -> None:
        async with RawServer([raw(201, b'{"data": "f1"}', JSON)]) as srv:
            async with RestClient("k", srv.url) as rest:
                up = await rest.request("POST", "/files", files={"file": ("a.txt", b"hi")})
            assert up.data == "f1"
            assert b"multipart/form-data" in srv.requests[0] and b"hi" in srv.requests[0]

    run(go())


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_https_verifies_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over TLS the certificate is checked with httpx's trust (SSL_CERT_FILE honoured)."""
    cert, key = _self_signed(tmp_path)
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)

    async def go(trusted: bool) -> None:
        srv = RawServer([raw(200, b'{"data": "tls"}', JSON)])
        srv.server = await asyncio.start_server(srv._serve, "127.0.0.1", 0, ssl=server_ctx)
        url = srv.url.replace("http://", "https://")
        try:
            async with RestClient("k", url, max_retries=0) as rest:
                if trusted:
                    assert (await rest.request("GET", "/x")).data == "tls"
                else:
                    with pytest.raises(BandConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
                        await rest.request("GET", "/x")
        finally:
            srv.server.close()

    run(go(False))
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    run(go(True))


def test_bare_204_keeps_the_connection() -> None:
    """A 204 without Content-Length (as uvicorn sends it for an empty ``/next``) ends at its
    headers: the connection is reused, not closed and reopened for every empty drain."""

    async def go() -> None:
        bare = b"HTTP/1.1 204 No Content\r\ndate: x\r\n\r\n"
        answers: list[bytes | Script] = [bare, bare, raw(200, b'{"data": 1}', JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url) as rest:
            for _ in range(2):
                empty = await rest.request("GET", "/agent/chats/r/messages/next")
                assert empty.status_code == 204 and empty.body is None
            assert (await rest.request("GET", "/agent/me")).data == 1
            assert srv.connections == 1

    run(go())


def test_json_too_deep_to_decode_is_kept_as_text_not_a_crash() -> None:
    """A body nested past the decoder's recursion limit is an undecodable body (kept as text),
    in a success and in an error answer alike; it never escapes as a RecursionError."""
    deep = b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"

    async def go() -> None:
        answers: list[bytes | Script] = [raw(200, deep, JSON), raw(500, deep, JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url, max_retries=0) as rest:
            ok = await rest.request("GET", "/agent/me")
            assert ok.status_code == 200 and ok.body == deep.decode()
            with pytest.raises(BandAPIError) as failed:
                await rest.request("GET", "/agent/me")
            assert failed.value.status_code == 500

    run(go())


def test_interim_answers_and_a_head_cut_between_reads() -> None:
    """An interim answer (103) before the final one is skipped, its headers too; a final head
    arriving in pieces is read whole; the connection stays in step for the next call."""

    async def in_pieces(_: bytes, writer: asyncio.StreamWriter) -> None:
        answer = (
            b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
            b"HTTP/1.1 429 Too Many\r\nRetry-After:  0\r\nContent-Type: application/json\r\n"
            b"X-Tag: a\r\nX-Tag: b\r\nContent-Length: 11\r\n\r\n" + b'{"data": 1}'
        )
        for start in range(0, len(answer), 7):  # each piece its own read
            writer.write(answer[start : start + 7])
            await writer.drain()
            await asyncio.sleep(0.001)

    async def go() -> None:
        answers: list[bytes | Script] = [in_pieces, raw(200, b'{"data": 2}', JSON)]
        async with RawServer(answers) as srv, RestClient("k", srv.url, max_retries=0) as rest:
            with pytest.raises(BandAPIError) as refused:
                await rest.request("GET", "/x")
            error = refused.value
            assert error.status_code == 429 and error.body == {"data": 1}
            assert error.headers["retry-after"] == "0" and error.headers["x-tag"] == "a, b"
            assert "link" not in error.headers
            assert (await rest.request("GET", "/y")).data == 2
            assert srv.connections == 1

    run(go())


def test_calls_beyond_the_connection_limit_wait_their_turn() -> None:
    """With every connection slot busy, further calls wait in line (a cancelled one gives its
    place up) and go out on the connections the first ones free."""
    hold = asyncio.Event()

    async def held(_: bytes, writer: asyncio.StreamWriter) -> None:
        await hold.wait()
        writer.write(raw(200, b'{"data": "held"}', JSON))

    async def go() -> None:
        answers: list[bytes | Script] = [held, held] + [raw(200, b'{"data": 3}', JSON)] * 3
        async with RawServer(answers) as srv:
            url = f"{srv.url}/api/v1"
            pool = Http11Pool(url, {}, timeout=10, connect_timeout=5, max_connections=2)
            first = [asyncio.ensure_future(pool.send("GET", f"/h{n}")) for n in range(2)]
            await wait_for(lambda: len(srv.requests) == 2)
            waiting = [asyncio.ensure_future(pool.send("GET", f"/w{n}")) for n in range(4)]
            await asyncio.sleep(0.05)
            assert len(srv.requests) == 2  # no slot: nothing more went out
            waiting[0].cancel()
            hold.set()
            assert [r.status_code for r in await asyncio.gather(*first)] == [200, 200]
            done = await asyncio.gather(*waiting[1:])
            assert [r.content for r in done] == [b'{"data": 3}'] * 3
            assert waiting[0].cancelled() and srv.connections == 2
            assert pool._free == 2 and not pool._waiting  # every slot came back
            await pool.aclose()

    run(go())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_reads_go_into_the_connections_buffer_across_many_reads(loop: str) -> None:
    """On asyncio's loop the connection is read into its own buffer (asyncio's transport would
    allocate 256 KiB per read for a plain Protocol): an answer several buffers long arrives
    whole in many reads, and the next call on the same connection still works. uvloop reads
    a class that is also an ``asyncio.Protocol`` through ``data_received`` (its rule), from a
    buffer of its own: the same answers arrive whole there, without the buffer."""
    from band.client.reads import READ_BUFFER_SIZE, BufferedReads

    body = json.dumps({"data": {"blob": "x" * (3 * READ_BUFFER_SIZE + 123)}}).encode()
    reads: list[int] = []

    async def go() -> None:
        answers: list[bytes | Script] = [raw(200, body, JSON), raw(200, b'{"data": 2}', JSON)]
        async with RawServer(answers) as srv, RestClient("band_a_k", srv.url) as rest:
            original = BufferedReads.buffer_updated

            def counting(self: BufferedReads, nbytes: int) -> None:
                reads.append(nbytes)
                original(self, nbytes)

            BufferedReads.buffer_updated = counting  # type: ignore[method-assign]
            try:
                first = await rest.request("GET", "/agent/me")
                second = await rest.request("GET", "/agent/me")
            finally:
                BufferedReads.buffer_updated = original  # type: ignore[method-assign]
            assert first.data == {"blob": "x" * (3 * READ_BUFFER_SIZE + 123)}
            assert second.data == 2 and srv.connections == 1
        if loop == "uvloop":
            assert reads == []
            return
        assert len(reads) >= 4 and max(reads) <= READ_BUFFER_SIZE  # several reads, none larger
        assert sum(reads) == len(raw(200, body, JSON)) + len(raw(200, b'{"data": 2}', JSON))

    if loop == "uvloop":
        uvloop = pytest.importorskip("uvloop")
        uvloop.run(go())
    else:
        run(go())
