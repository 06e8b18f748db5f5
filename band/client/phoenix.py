"""Phoenix Channels V2 client on ``websockets``: joins, pushes, heartbeats and reconnects.

Reconnecting is decided by band_sdk_core's ``Session`` (backoff with jitter, terminal close
codes and upgrade statuses, rapid-disconnect damping); a heartbeat watchdog force-closes a
socket whose heartbeats go unanswered for the policy's dead threshold. After a reconnect every
joined topic is rejoined with fresh refs before ``on_connected`` runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import itertools
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.frames import Frame, Opcode
from websockets.protocol import Event, State

from band.core.wire import (
    LAZY_FRAME_DECODER,
    TOO_DEEP,
    JsonObject,
    decode_error,
    decode_json,
    encode_frame,
)
from band_sdk_core import (
    Session,
    SessionOutcome,
    SessionPolicy,
    SessionState,
    classify_close,
    classify_upgrade,
)
from band_sdk_core._push import CONTROL, HAND_OVER, split_frames

from .errors import BandConnectionError
from .reads import BufferedReads

__all__ = [
    "JoinError",
    "PhoenixClient",
    "PhoenixError",
    "PushHandler",
    "SessionEndedError",
]

log = logging.getLogger("band.client.phoenix")

_decode_frame = LAZY_FRAME_DECODER.decode


def _payload(raw: msgspec.Raw) -> JsonObject | None:
    """A frame's payload parsed: ``{}`` when it is not a JSON object (what the V2 client does),
    None (logged) when it does not parse."""
    try:
        payload = decode_json(raw)
    except msgspec.DecodeError as exc:  # (nested too deeply included)
        log.warning("dropping a malformed frame: %s", exc)
        return None
    return payload if type(payload) is dict else {}


def _redact_key_header(record: logging.LogRecord) -> bool:
    """Hide the ``x-api-key`` value in websockets' DEBUG handshake lines (``> name: value``)."""
    args = record.args
    if isinstance(args, tuple) and len(args) == 2 and str(args[0]).lower() == "x-api-key":
        record.args = (args[0], "[redacted]")
    return True


# websockets logs every handshake header at DEBUG; our sockets log through this logger instead
_ws_log = logging.getLogger("band.client.websocket")
_ws_log.addFilter(_redact_key_header)


class _PushConnection(ClientConnection, BufferedReads):
    """A connection that hands each whole text frame to ``sink`` as it arrives.

    websockets queues a frame in its assembler and wakes a reader task to take it (a future,
    a task step and a loop round trip per push); a Phoenix frame is one unfragmented text frame,
    handled synchronously anyway. Once attached on a clean start (see :meth:`attach`), frames
    are read straight from the received bytes: a text frame is decoded and handed over, a whole
    ping, pong or close frame is given to websockets (which answers it, then waits at a frame
    boundary again), and anything else (a fragment, a binary frame, text that is not UTF-8, a
    frame after the closing handshake began) goes to websockets with every byte after it, for
    good: the reader task then takes every frame in order, as before, and an invalid frame
    still fails the connection.
    """

    sink: Callable[[str], None] | None = None
    #: frames are read by :meth:`_read_frames`; websockets' parser sits idle between frames
    _direct = False
    #: websockets' frame parser has had no byte since the handshake ended
    _clean = False
    #: the start of a frame whose rest has not arrived yet (direct reading only)
    _partial = b""

    def attach(self, sink: Callable[[str], None]) -> None:
        """Hand whole text frames to ``sink`` from now on (direct reading when still clean)."""
        self.sink = sink
        self._direct = self._clean

    def data_received(self, data: bytes) -> None:
        if self._direct:
            self._read_frames(data)
            return
        handshake = self.protocol.state is State.CONNECTING
        super().data_received(data)
        # direct reading may begin only where websockets' frame parser holds no byte: after a
        # handshake response that ended with its chunk (a 101 has no body), nothing since
        self._clean = handshake and self.protocol.state is State.OPEN and data.endswith(b"\r\n\r\n")

    def eof_received(self) -> None:
        if self._direct:  # websockets reads the end of the stream (and a frame cut short)
            self._direct, partial, self._partial = False, self._partial, b""
            if partial:
                super().data_received(partial)
        super().eof_received()

    def _read_frames(self, data: bytes) -> None:
        """Take every whole frame of the received bytes; keep an incomplete one for later."""
        sink = self.sink
        assert sink is not None  # attach() set it before _direct
        buf = self._partial + data if self._partial else data
        pos = 0
        is_open = self.protocol.state is State.OPEN
        while True:
            # the core splits the bytes up to the first frame that is not plain text
            texts, stop, at, after = split_frames(buf, pos, is_open)
            for text in texts:
                try:
                    sink(text)
                except Exception:  # never into the reader: the socket must read on
                    log.exception("handling a frame failed")
            if stop != CONTROL:
                break
            super().data_received(buf[at:after])  # a ping is answered, a close begins
            pos = after
            is_open = self.protocol.state is State.OPEN
        if stop == HAND_OVER:
            self._hand_over(buf[at:])
        else:
            self._partial = buf[at:]

    def _hand_over(self, rest: bytes) -> None:
        """From ``rest`` on, websockets parses every frame and the reader task takes them."""
        self._direct, self._partial, self.sink = False, b"", None
        super().data_received(rest)

    def process_event(self, event: Event) -> None:
        sink = self.sink
        if sink is not None and type(event) is Frame and event.opcode is Opcode.TEXT and event.fin:
            try:
                text = str(event.data, "utf-8")
            except UnicodeDecodeError:
                pass
            else:
                try:
                    sink(text)
                except Exception:  # never into websockets' parser: the socket must read on
                    log.exception("handling a frame failed")
                return
        if type(event) is Frame and event.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            self.sink = None  # from here on the reader task takes every frame
        super().process_event(event)


#: ``handler(event, payload)`` for pushes on one topic; called in the reader, keep it quick.
PushHandler = Callable[[str, JsonObject], None]
#: ``on_connected(reconnected, failed_topics)`` after every successful (re)connect.
ConnectedHook = Callable[[bool, list[str]], Awaitable[None]]
#: ``on_dead(reason)`` once the session will not reconnect any more.
DeadHook = Callable[[str], Awaitable[None] | None]

VSN = "2.0.0"
JOIN_TIMEOUT_S = 10.0
LEAVE_TIMEOUT_S = 5.0
#: First and longest pause between probes of a platform that refuses connections (a refused
#: connect costs both ends next to nothing; each pause is what a restart may cost on top).
PROBE_FIRST_S = 0.05
PROBE_MAX_S = 0.25
#: Longest wait for a listening platform before a reconnect attempt is made anyway (the default
#: policy's backoff ceiling).
PROBE_LIMIT_S = 30.0
#: Pause before rejoining a channel the server crashed (``phx_error``).
REJOIN_DELAY_S = 1.0
#: Replies due within this many seconds of each other share one timer (a thousand joins sent
#: at once need a handful of timers, not one each); a timeout may end this much late.
DEADLINE_BUCKET_S = 0.25


class PhoenixError(BandConnectionError):
    """The socket is not usable for this call (not connected, closed, timed out)."""


class JoinError(PhoenixError):
    """The server refused to join a topic; ``reason`` is its answer."""

    def __init__(self, topic: str, reason: str) -> None:
        self.topic = topic
        self.reason = reason
        super().__init__(f"join of {topic} refused: {reason}")


class SessionEndedError(PhoenixError):
    """The session is over (terminal close, refused upgrade, supersede or too many drops)."""


def socket_url(url: str, params: Mapping[str, str]) -> str:
    """``url`` with ``params`` merged into its query string (``params`` win)."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.update(params)
    return urlunsplit(parts._replace(query=urlencode(query)))


def _upgrade_refusal(exc: InvalidStatus) -> str:
    """``upgrade refused with HTTP <status>``, with the error envelope's code and message."""
    text = f"upgrade refused with HTTP {exc.response.status_code}"
    error = decode_error(exc.response.body)
    if error is not None and error.code:
        text += f" ({error.code}: {error.message})" if error.message else f" ({error.code})"
    return text


#: What a 401 refusal of the upgrade usually means, said after its warning.
_KEY_REFUSED_HINT = (
    ": the platform does not accept this agent's key now (a band dev serving another "
    "database? register the agent there again: band dev agent create); retrying"
)


def _upgrade_retry_after(exc: InvalidStatus) -> float | None:
    """Seconds a refused upgrade asked us to wait (``Retry-After`` or the error body)."""
    header = exc.response.headers.get("Retry-After")
    with contextlib.suppress(TypeError, ValueError):
        if header is not None:
            return max(0.0, float(header))
    error = decode_error(exc.response.body)
    if error is not None and error.retry_after is not None:
        return max(0.0, error.retry_after)
    return None


class PhoenixClient:
    """One logical Phoenix session that survives disconnects; topics are rejoined itself."""

    def __init__(
        self,
        url: str,
        *,
        api_key: str,
        params: Mapping[str, str] | None = None,
        initial_params: Mapping[str, str] | None = None,
        policy: SessionPolicy | None = None,
        on_connected: ConnectedHook | None = None,
        on_dead: DeadHook | None = None,
        open_timeout: float = 10.0,
        join_timeout: float = JOIN_TIMEOUT_S,
    ) -> None:
        self.url = socket_url(url, {**(params or {}), "vsn": VSN})
        # e.g. on_conflict=reject: only the first connection; reconnects always take over
        self._initial_url = socket_url(self.url, initial_params) if initial_params else self.url
        self._headers = {"x-api-key": api_key}
        self.policy = policy or SessionPolicy.default()
        self._session = Session(self.policy)
        self._on_connected = on_connected
        self._on_dead = on_dead
        self._open_timeout = open_timeout
        self._join_timeout = join_timeout
        self._refs = itertools.count(1)
        self._handlers: dict[str, PushHandler] = {}
        # the events a topic's handler takes, where it named them (others are never decoded)
        self._takes: dict[str, frozenset[str]] = {}
        self._join_refs: dict[str, str] = {}
        self._pending: dict[str, asyncio.Future[JsonObject]] = {}
        self._outbox: list[bytes] = []  # request frames to write at the end of this loop turn
        self._deadlines: dict[float, list[asyncio.Future[JsonObject]]] = {}
        self._ws: ClientConnection | None = None
        self._up = asyncio.Event()
        self._settled = asyncio.Event()  # first connect succeeded or the session died
        self._runner: asyncio.Task[None] | None = None
        self._hooks: set[asyncio.Future[None]] = set()
        self._closing = False
        self._supersede: SessionOutcome | None = None
        self.dead_reason: str | None = None
        #: the last refused upgrade (its status, headers and error body), for callers to read
        self.last_refusal: InvalidStatus | None = None
        self.connections = 0
        self.heartbeats_acked = 0
        self._last_ack = time.monotonic()

    def __repr__(self) -> str:  # the key is a header, never part of the URL or repr
        return f"PhoenixClient(url={self.url!r}, connected={self.connected})"

    @property
    def connected(self) -> bool:
        """True while a socket is open."""
        return self._up.is_set()

    @property
    def state(self) -> SessionState:
        """The reconnect session's state."""
        return self._session.state

    @property
    def topics(self) -> list[str]:
        """Topics currently joined on the open socket."""
        return list(self._join_refs)

    # --- lifecycle ----------------------------------------------------------------------------

    async def connect(self) -> None:
        """Start the session and wait for the first connection (raises if the session dies)."""
        if self._runner is None:
            self._runner = asyncio.create_task(self._run(), name="band-phoenix")
        await self._settled.wait()
        if not self.connected and self.dead_reason is not None:
            raise SessionEndedError(f"could not connect to {self.url}: {self.dead_reason}")

    async def close(self) -> None:
        """Leave nothing behind: stop reconnecting and close the socket."""
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ws.close(), 2.0)
        if self._runner is not None:
            self._runner.cancel()
            # wait() never raises the task's own CancelledError, only ours (if we are cancelled)
            await asyncio.wait({self._runner})
        for task in list(self._hooks):
            task.cancel()
        self._fail_pending()

    def abort(self) -> None:
        """Drop the socket without a close handshake (it reconnects like any failure)."""
        if self._ws is not None:
            self._ws.transport.abort()

    def supersede(self, *, retryable: bool = False, retry_after_s: float | None = None) -> None:
        """The platform handed this agent's session to a newer connection."""
        outcome = self._session.on_supersede(
            time.monotonic(), retryable, retry_after_s, random.random()
        )
        if outcome.stale_reason is None:
            self._supersede = outcome
            if outcome.state == SessionState.Dead:
                self.dead_reason = "superseded"
            log.warning("session superseded by a newer connection (retryable=%s)", retryable)
            self.abort()

    # --- topics -------------------------------------------------------------------------------

    async def join(
        self, topic: str, handler: PushHandler, *, events: Collection[str] | None = None
    ) -> None:
        """Join ``topic`` and route its pushes to ``handler``; it is rejoined after reconnects.

        With ``events``, only pushes of those events reach ``handler``; the others are dropped
        before their payload is decoded (as a push with no handler is).
        """
        self._handlers[topic] = handler
        if events is None:
            self._takes.pop(topic, None)
        else:
            self._takes[topic] = frozenset(events)
        try:
            await self._join(topic)
        except BaseException:
            self._handlers.pop(topic, None)
            self._takes.pop(topic, None)
            raise

    async def leave(self, topic: str) -> bool:
        """Leave ``topic``; True when the server confirmed it."""
        self._handlers.pop(topic, None)
        self._takes.pop(topic, None)
        join_ref = self._join_refs.pop(topic, None)
        if join_ref is None or not self.connected:
            return join_ref is None
        try:
            reply = await self._request(join_ref, topic, "phx_leave", LEAVE_TIMEOUT_S)
        except PhoenixError:
            return False
        return reply.get("status") == "ok"

    async def _join(self, topic: str) -> None:
        ref = self._next_ref()
        self._join_refs[topic] = ref  # pushes that follow the reply carry this join_ref
        try:
            reply = await self._request(ref, topic, "phx_join", self._join_timeout, ref=ref)
        except BaseException:
            if self._join_refs.get(topic) == ref:
                del self._join_refs[topic]
            raise
        if reply.get("status") != "ok":
            if self._join_refs.get(topic) == ref:
                del self._join_refs[topic]
            response = reply.get("response")
            reason = response.get("reason") if isinstance(response, dict) else None
            raise JoinError(topic, str(reason or "invalid topic"))

    # --- frames -------------------------------------------------------------------------------

    def _next_ref(self) -> str:
        return str(next(self._refs))

    async def _request(
        self,
        join_ref: str | None,
        topic: str,
        event: str,
        timeout: float,
        *,
        ref: str | None = None,
    ) -> JsonObject:
        """Send one frame and wait for its ``phx_reply`` payload."""
        ws = self._ws
        if ws is None or not self.connected:
            raise PhoenixError(f"cannot send {event} on {topic}: not connected")
        ref = ref or self._next_ref()
        fut: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
        self._pending[ref] = fut
        self._expire_after(fut, timeout)
        try:
            self._post(ws, encode_frame(join_ref, ref, topic, event, {}))
            return await fut
        except TimeoutError as exc:
            raise PhoenixError(f"no reply to {event} on {topic} within {timeout}s") from exc
        finally:
            self._pending.pop(ref, None)
            fut.cancel()  # no-op when answered; its shared timer must not fail it unseen

    def _post(self, ws: ClientConnection, frame: bytes) -> None:
        """Queue a request frame; the frames queued in one turn of the loop go out in one write.

        A thousand rooms joined at start were a thousand sends, each with its own syscall and
        drain (most of the agent's time to subscribe); queued, a page of joins is one write.
        """
        if not self._outbox:
            asyncio.get_running_loop().call_soon(self._flush, ws)
        self._outbox.append(frame)

    def _flush(self, ws: ClientConnection) -> None:
        """Write the queued frames, unless their socket is gone (its waiters are failed then)."""
        frames, self._outbox = self._outbox, []
        if ws is not self._ws or ws.protocol.state is not State.OPEN:
            return  # closing: the reader ends and ``_fail_pending`` fails every waiter
        for frame in frames:
            ws.protocol.send_text(frame)
        ws.transport.write(b"".join(ws.protocol.data_to_send()))

    def _expire_after(self, fut: asyncio.Future[JsonObject], timeout: float) -> None:
        """Fail ``fut`` with ``TimeoutError`` unless answered within ``timeout`` (shared timer)."""
        loop = asyncio.get_running_loop()
        due = math.ceil((loop.time() + timeout) / DEADLINE_BUCKET_S) * DEADLINE_BUCKET_S
        bucket = self._deadlines.get(due)
        if bucket is None:
            bucket = self._deadlines[due] = []
            loop.call_at(due, self._expire, due)
        bucket.append(fut)

    def _expire(self, due: float) -> None:
        """The shared deadline ``due`` passed: its unanswered requests time out."""
        for fut in self._deadlines.pop(due, []):
            if not fut.done():
                fut.set_exception(TimeoutError())

    def _dispatch(self, raw: str | bytes) -> None:
        """Route one server frame: a reply to its waiter, a push to its topic's handler."""
        try:
            frame = _decode_frame(raw)  # its slots; the payload is parsed only when taken
        except msgspec.DecodeError as exc:  # malformed JSON or not a V2 frame: counted, not fatal
            log.warning("dropping a malformed frame: %s", exc)
            return
        except RecursionError:  # nested too deeply for msgspec: just a bad frame
            log.warning("dropping a malformed frame: %s", TOO_DEEP)
            return
        event, topic = frame.event, frame.topic
        if event == "phx_reply":
            fut = self._pending.get(str(frame.ref)) if frame.ref is not None else None
            if fut is not None and not fut.done():
                reply = _payload(frame.payload)
                if reply is not None:
                    fut.set_result(reply)
            return
        current = self._join_refs.get(topic)
        join_ref = frame.join_ref
        if current is None or (join_ref is not None and str(join_ref) != current):
            log.debug("dropping %s on %s: stale or unknown join_ref", event, topic)
            return
        if event in ("phx_error", "phx_close"):
            log.warning("channel %s closed by the server (%s)", topic, event)
            self._join_refs.pop(topic, None)
            if event == "phx_error" and topic in self._handlers:
                self._spawn(self._rejoin_later(topic))
            return
        handler = self._handlers.get(topic)
        if handler is None:
            return
        takes = self._takes.get(topic)
        if takes is not None and event not in takes:
            return  # no handler for this event: never parsed nor validated (as in band-sdk)
        payload = _payload(frame.payload)
        if payload is None:
            return
        try:
            handler(event, payload)
        except Exception:
            log.exception("handler for %s on %s failed", event, topic)

    async def _rejoin_later(self, topic: str) -> None:
        """Rejoin a crashed channel after a short pause."""
        await asyncio.sleep(random.uniform(0.5, 1.0) * REJOIN_DELAY_S)
        if topic in self._handlers and topic not in self._join_refs and self.connected:
            with contextlib.suppress(PhoenixError):
                await self._join(topic)

    # --- the connection loop ------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self._closing:
                epoch = self._session.begin_attempt(time.monotonic())
                if epoch is None:
                    break
                outcome = await self._attempt(epoch)
                if self._closing:
                    break
                if outcome.state == SessionState.Dead:
                    reason = outcome.dead_reason.value if outcome.dead_reason else "ended"
                    self.dead_reason = self.dead_reason or reason
                    break
                delay = outcome.retry_after_s or 0.0
                log.info("reconnecting in %.2fs", delay)
                await asyncio.sleep(delay)
                if self.connections:
                    await self._until_listening()
        except asyncio.CancelledError:
            self._closing = True  # cancelled from outside: a shutdown, not a dead session
            raise
        finally:
            self._up.clear()
            if not self._closing:
                self.dead_reason = self.dead_reason or "ended"
                log.error("socket session ended: %s", self.dead_reason)
                if self._on_dead is not None:
                    result = self._on_dead(self.dead_reason)
                    if inspect.isawaitable(result):
                        await result
            self._settled.set()

    async def _until_listening(self) -> None:
        """Before a reconnect attempt, wait (jittered) until the platform accepts TCP again.

        A restarting platform refuses connections for a while; each refused attempt would count
        as a rapid disconnect in the ``Session`` (floors 1 s, 5 s, 10 s... and death after ten),
        so a restart of a few seconds would cost many more. Those attempts are not spent while
        nothing listens: the address is probed with a growing, jittered pause (agents restarting
        together do not come back in lockstep), and after ``PROBE_LIMIT_S`` the attempt is made
        anyway so a platform that stays away still reaches the Session's verdict.
        """
        parts = urlsplit(self.url)
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (443 if parts.scheme == "wss" else 80)
        deadline = time.monotonic() + PROBE_LIMIT_S
        pause = PROBE_FIRST_S
        while not self._closing and time.monotonic() < deadline:
            try:
                _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 2.0)
            except (OSError, TimeoutError):
                await asyncio.sleep(random.uniform(0.5, 1.0) * pause)
                pause = min(pause * 2, PROBE_MAX_S)
                continue
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
            return

    async def _attempt(self, epoch: int) -> SessionOutcome:
        """One connection attempt and, when it opens, its whole life."""
        try:
            ws = await connect(
                self.url if self.connections else self._initial_url,
                additional_headers=self._headers,
                open_timeout=self._open_timeout,
                ping_interval=None,  # liveness is Phoenix's heartbeat, not WebSocket pings
                # pushes are small JSON frames: deflating them costs both ends more CPU than
                # the bytes it saves
                compression=None,
                max_size=None,
                logger=_ws_log,
                create_connection=_PushConnection,
            )
        except InvalidStatus as exc:
            self.last_refusal = exc
            status = exc.response.status_code
            terminal, _ = classify_upgrade(status)
            refusal = _upgrade_refusal(exc)
            log.warning(
                "socket %s (terminal=%s)%s",
                refusal,
                terminal,
                _KEY_REFUSED_HINT if status == 401 else "",
            )
            if terminal:
                self.dead_reason = refusal
            return self._session.on_upgrade_rejected(
                epoch, time.monotonic(), status, _upgrade_retry_after(exc), random.random()
            )
        except (OSError, TimeoutError, InvalidHandshake) as exc:
            log.info("socket connect failed: %s", exc)
            return self._session.on_socket_close(epoch, time.monotonic(), None, random.random())
        return await self._serve(ws, epoch)

    async def _serve(self, ws: ClientConnection, epoch: int) -> SessionOutcome:
        self._session.on_connected(epoch, time.monotonic())
        self._ws = ws
        if isinstance(ws, _PushConnection):
            ws.attach(self._dispatch)
        self._join_refs.clear()
        self._supersede = None
        self._last_ack = time.monotonic()
        self._up.set()
        reconnected = self.connections > 0
        self.connections += 1
        log.info("socket connected (%s)", "reconnect" if reconnected else "first connect")
        reader = asyncio.create_task(self._read(ws), name="band-phoenix-read")
        heartbeat = asyncio.create_task(self._heartbeat(ws), name="band-phoenix-heartbeat")
        self._spawn(self._after_connect(reconnected))
        try:
            await reader
        finally:
            heartbeat.cancel()
            self._up.clear()
            self._ws = None
            self._join_refs.clear()
            self._fail_pending()
        code = ws.close_code if ws.close_code not in (None, 1005, 1006) else None
        terminal, _ = classify_close(code)
        log.info("socket closed (code %s, terminal=%s)", code, terminal)
        if terminal:  # 1008 alone: a key the platform stopped accepting, no reconnect helps
            said = f" ({ws.close_reason})" if ws.close_reason else ""
            self.dead_reason = (
                f"closed by the platform with code {code}{said}: "
                "it no longer accepts this agent's key (was the agent deleted, or its key revoked?)"
            )
        if self._supersede is not None:
            return self._supersede
        return self._session.on_socket_close(epoch, time.monotonic(), code, random.random())

    async def _read(self, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                self._dispatch(raw)

    async def _after_connect(self, reconnected: bool) -> None:
        """Rejoin every topic (in parallel), then tell the owner."""
        failed: list[str] = []
        if reconnected:
            topics = list(self._handlers)
            results = await asyncio.gather(*(self._join(t) for t in topics), return_exceptions=True)
            for topic, result in zip(topics, results, strict=True):
                if isinstance(result, BaseException):
                    log.warning("rejoin of %s failed: %s", topic, result)
                    self._handlers.pop(topic, None)
                    failed.append(topic)
        self._settled.set()
        if self._on_connected is not None:
            try:
                await self._on_connected(reconnected, failed)
            except Exception:
                log.exception("on_connected hook failed")

    async def _heartbeat(self, ws: ClientConnection) -> None:
        """Send heartbeats; force-close the socket when acks stop for the dead threshold."""
        interval = self.policy.heartbeat_interval_s
        while True:
            await asyncio.sleep(interval)
            silent = time.monotonic() - self._last_ack
            if silent > self.policy.dead_threshold_s:
                log.warning("no heartbeat ack for %.1fs: dropping the socket", silent)
                ws.transport.abort()
                return
            ref = self._next_ref()
            fut: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
            fut.add_done_callback(functools.partial(self._heartbeat_acked, ref))
            self._pending[ref] = fut
            try:
                await ws.send(encode_frame(None, ref, "phoenix", "heartbeat", {}), text=True)
            except ConnectionClosed:
                return

    def _heartbeat_acked(self, ref: str, fut: asyncio.Future[JsonObject]) -> None:
        self._pending.pop(ref, None)
        if not fut.cancelled() and fut.exception() is None:
            self._last_ack = time.monotonic()
            self.heartbeats_acked += 1

    def _fail_pending(self) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(PhoenixError("socket closed before the reply"))
        self._pending.clear()

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._hooks.add(task)
        task.add_done_callback(self._hooks.discard)
