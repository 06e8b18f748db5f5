"""Phoenix Channels V2 WebSocket endpoint at ``/api/v1/socket/websocket``."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from band.core.wire import ReplyPayload, decode_frame

from ..access import authz
from ..contract.errors import error_response
from ..store.aio import AsyncStore
from ..store.principal import Principal
from .fanout import Connection, Fanout, Frame

join_log = logging.getLogger("band.devserver.joins")
log = logging.getLogger(__name__)

#: Seconds a key at its socket cap is told to wait before it retries.
RETRY_AFTER_S = 5.0
#: Longest pause between checks of a socket's idle deadline (``idle_timeout`` may change live).
IDLE_CHECK_MAX_S = 1.0


def same_origin(ws: WebSocket) -> bool:
    """Whether a browser's ``Origin`` (if any) names the host the socket was opened on.

    Browsers let any page open a WebSocket to any address and only say where the page came
    from; SDK clients send no ``Origin``. A page from elsewhere is refused before its key is
    read (a DNS-rebinding page has a matching Origin but no key: ``/dev/session`` checks Host).
    """
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    netloc = urlsplit(origin).netloc.lower()
    return bool(netloc) and netloc == ws.headers.get("host", "").lower()


async def authorize_topic(principal: Principal, topic: str, directory: AsyncStore) -> str | None:
    """Return None when ``principal`` may join ``topic``, else a rejection reason (authz)."""
    return await authz.topic_refusal(principal, topic, directory)


async def _supersede(old: Connection) -> None:
    """Tell the old socket it was superseded, then close it."""
    topic = f"agent_control:{old.principal.id}"
    if topic in old.topics:
        payload = {
            "reason": "superseded",
            "message": "a newer connection for this agent took over",
            "correlation_id": None,
            "retryable": False,
        }
        old.send((old.topics[topic], None, topic, "supersede", payload))
    await old.close(1000)


async def websocket_endpoint(ws: WebSocket) -> None:
    """Authenticate, enforce the connection policy, then serve Phoenix frames."""
    directory: AsyncStore = ws.app.state.directory
    fanout: Fanout = ws.app.state.fanout
    if not same_origin(ws):
        refusal = "cross-origin WebSocket refused: Origin does not match Host"
        await ws.send_denial_response(error_response(403, "forbidden", refusal))
        return
    key = ws.headers.get("x-api-key") or ws.query_params.get("api_key")
    principal = await directory.authenticate(key) if key else None
    if principal is None:
        await ws.send_denial_response(
            error_response(401, "unauthorized", "invalid or missing API key")
        )
        return
    if principal.kind == "agent":
        old = fanout.agent_connected(principal.id)
        if old is not None:
            if ws.query_params.get("on_conflict") == "reject":
                await ws.send_denial_response(
                    error_response(
                        409,
                        "connection_conflict",
                        "an active connection already exists; use supersede or omit on_conflict",
                    )
                )
                return
            await _supersede(old)
            fanout.remove(old)
    cap: int = ws.app.state.sockets_per_key
    if fanout.sockets_of(principal.id) >= cap:
        await ws.send_denial_response(
            error_response(
                429,
                "too_many_connections",
                f"this key already holds {cap} open sockets; close one or retry later",
                retry_after=RETRY_AFTER_S,
            )
        )
        return
    # register before accepting: once the client sees the upgrade succeed, the fanout knows it
    # (no pushes can reach it early, since it has joined no topic yet)
    conn = Connection(principal, ws)
    fanout.add(conn)
    idle = _IdleDeadline(ws)
    try:
        await ws.accept()
        log.info("socket connected: %s %s", principal.kind, principal.id)
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
            idle.touch()
            text = message.get("text")
            if text is None:  # Phoenix frames are text; a binary one is dropped, not fatal
                log.warning("dropping binary frame (%d bytes)", len(message.get("bytes") or b""))
                continue
            await _handle(conn, text, directory, fanout)
    except WebSocketDisconnect:
        pass
    except asyncio.CancelledError:
        if not idle.expired:
            raise
        log.info("closing idle socket (no frames, no heartbeat): %s", principal.id)
        await conn.close(1000)
    except Exception:
        log.exception("socket loop failed")
    finally:
        idle.cancel()
        fanout.remove(conn)  # also when closed on its own (a failed send, idle, fell behind)
        log.info("socket closed: %s %s", principal.kind, principal.id)


class _IdleDeadline:
    """One re-armed timer per socket (not one per frame): cancels its loop once it goes idle."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.last = self.loop.time()
        self.expired = False
        self._timer = self.loop.call_later(self._wait(), self._check)

    def _wait(self) -> float:
        """Seconds to the next check: the deadline, or sooner (the timeout may shrink)."""
        deadline = self.last + self._timeout()
        return max(0.0, min(deadline - self.loop.time(), IDLE_CHECK_MAX_S))

    def _timeout(self) -> float:
        """The app's idle timeout now (tests change it while sockets are open)."""
        return float(self.ws.app.state.idle_timeout)

    def touch(self) -> None:
        """A frame arrived."""
        self.last = self.loop.time()

    def _check(self) -> None:
        if self.loop.time() - self.last >= self._timeout():
            self.expired = True
            if self.task is not None:
                self.task.cancel()
            return
        self._timer = self.loop.call_later(self._wait(), self._check)

    def cancel(self) -> None:
        """The socket is done."""
        self._timer.cancel()


class JoinLines:
    """``--access-log``'s join lines: one per topic, written as one record per burst of joins.

    A client joining a thousand topics at once would otherwise cost a log record, a format and
    a write per topic (as much as serving the join itself); the lines of joins served in one
    turn of the event loop are written together right after it, each after its reply was sent.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, principal: Principal, topic: str) -> None:
        """Note a served join; it is written once this turn of the loop is over."""
        if not self.lines:
            asyncio.get_running_loop().call_soon(self.flush)
        self.lines.append(f"joined {principal.kind} {principal.id} {topic}")

    def flush(self) -> None:
        """Write the noted lines (a record's first line carries the logger's prefix)."""
        lines, self.lines = self.lines, []
        if lines:
            join_log.info("%s", "\n".join(lines))


def _reply(
    join_ref: str | None, ref: str | None, topic: str, status: str, response: dict[str, Any]
) -> Frame:
    return (join_ref, ref, topic, "phx_reply", ReplyPayload(status=status, response=response))


async def _handle(conn: Connection, text: str, directory: AsyncStore, fanout: Fanout) -> None:
    """Dispatch one client frame."""
    try:
        frame = decode_frame(text)
    except msgspec.DecodeError as exc:  # bad JSON, a wrong slot type, too deep: the frame only
        log.warning("dropping malformed frame: %s", exc)
        return
    join_ref, ref, topic, event = frame.join_ref_str, frame.ref_str, frame.topic, frame.event
    if topic == "phoenix" and event == "heartbeat":
        conn.send(_reply(None, ref, "phoenix", "ok", {}))
    elif event == "phx_join":
        reason = await authorize_topic(conn.principal, str(topic), directory)
        if reason is not None:
            conn.send(_reply(join_ref, ref, topic, "error", {"reason": reason}))
            return
        fanout.join(conn, topic, join_ref if join_ref is not None else ref)
        conn.send(_reply(join_ref, ref, topic, "ok", {}))
        if getattr(conn.ws.app.state, "log_joins", False):  # --access-log: joins too
            conn.ws.app.state.join_lines.add(conn.principal, str(topic))
    elif event == "phx_leave":
        fanout.leave(conn, topic)
        conn.send(_reply(join_ref, ref, topic, "ok", {}))
    else:
        conn.send(_reply(join_ref, ref, topic, "error", {"reason": "unmatched topic"}))
