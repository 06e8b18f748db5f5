"""band dev's socket fan-out with many sockets open: what one push and one presence check cost.

For each N, N agent sockets are registered (stand-ins for the transport, which writes
nothing), each joined to its own ``agent_rooms`` topic and, two by two, to a room's
``chat_room`` topic; then one room's ``message_created`` is pushed (two sockets take it) and
one agent's presence is asked (``online``, asked per participant of every listing). Before
this script's commit both walked every open socket; the figures are per call, ratios to the
smallest N.

    python bench/scale/fanout.py --sizes 10 1000 10000
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from band.devserver.socket.fanout import Connection, Fanout
from band.devserver.store.principal import Principal


class _Socket:
    """What a Connection reads of its WebSocket: a scope offering the direct send."""

    def __init__(self) -> None:
        self.scope = {"extensions": {"band.websocket.direct_send": {"protocol": _Transport()}}}


class _Transport:
    """A transport that takes every frame at once."""

    write_paused = False

    def write_text(self, data: bytes) -> bool:
        return True


def _fanout(n: int) -> Fanout:
    fanout = Fanout()
    for i in range(n):
        conn = Connection(Principal("agent", f"a{i}", f"agent {i}"), _Socket())  # type: ignore[arg-type]
        fanout.add(conn)
        for topic in (f"agent_rooms:a{i}", f"chat_room:r{i // 2}"):
            if hasattr(fanout, "join"):
                fanout.join(conn, topic, "1")
            else:  # before the topic index (run against an older checkout)
                conn.topics[topic] = "1"
    return fanout


async def _per_call(fanout: Fanout, calls: int) -> tuple[float, float]:
    payload: dict[str, Any] = {"id": "m1", "content": "hello", "sender_id": "u1"}
    start = time.perf_counter()
    for _ in range(calls):
        await fanout.push("chat_room:r0", "message_created", payload)
    push = (time.perf_counter() - start) / calls
    start = time.perf_counter()
    for _ in range(calls):
        fanout.online("a1")
    return push, (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 1000, 10000])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    print(f"{'sockets':>8} {'push us':>9} {'ratio':>6} {'online us':>10} {'ratio':>6}")
    first: tuple[float, float] | None = None
    for n in args.sizes:
        push, online = asyncio.run(_per_call(_fanout(n), args.calls))
        first = first or (push, online)
        print(
            f"{n:>8} {push * 1e6:>9.2f} {push / first[0]:>6.2f} "
            f"{online * 1e6:>10.2f} {online / first[1]:>6.2f}"
        )


if __name__ == "__main__":
    main()
