"""The socket push path of one answered message: its time, and its calls in an e2e profile.

An answered message brings an agent 4 pushes on its room's topic (the person's
``message_created``, a ``message_updated`` per delivery mark, the agent's own reply coming
back). Each goes frame bytes -> ``_PushConnection._read_frames`` -> ``PhoenixClient._dispatch``
(the Phoenix envelope) -> the runtime's room handler (the core's validation and delivery
decision) -> the room's ``submit``. Timed here without a socket, loop or platform (min of
repeats, per answered message), under whichever band this interpreter imports, so another
commit's venv (``commits.python_at``) times its own path:

    python bench/e2e/pushpath.py                                 # compiled core
    BAND_SDK_CORE_NO_EXTENSIONS=1 python bench/e2e/pushpath.py   # pure core
    python bench/e2e/pushpath.py --calls agent.prof --messages 100   # run.py --profile stats

``--calls`` counts, per answered message, the Python calls of that path in an agent's profile
(band's functions on it and the builtins they call; then the pure core's, which the compiled
core's functions hide from cProfile).
"""

from __future__ import annotations

import argparse
import json
import pstats
import timeit
import types
from collections import defaultdict

AGENT = "a1b2c3d4-1d5e-4a0e-9a6b-3f5f7d1e2a11"
ROOM = "c0a8f6de-1d5e-4a0e-9a6b-3f5f7d1e2a11"
TOPIC = f"chat_room:{ROOM}"

#: band's functions on the path (file, function)
BAND_STEPS = {
    ("band/client/phoenix.py", "data_received"),
    ("band/client/phoenix.py", "_read_frames"),
    ("band/client/phoenix.py", "_dispatch"),
    ("band/core/wire.py", "decode_frame"),
    ("band/core/wire.py", "body"),
    ("band/runtime/pushes.py", "on_push"),
    ("band/runtime/pushes.py", "validated"),
    ("band/runtime/runtime.py", "on_push"),
    ("band/runtime/runtime.py", "submit"),
}
#: the core's modules on the path (the delivery module's evaluation only)
CORE_FILES = ("band_sdk_core/_push_py", "band_sdk_core/_payload_py", "band_sdk_core/_json_py")
CORE_DELIVERY = ("evaluate_delivery_event", "_resolve_room", "_plain")


def message(sender_type: str, sender_id: str, status: str) -> dict[str, object]:
    """A room message as band dev pushes it (MessageRow's field order)."""
    return {
        "id": "8e3c1f8e-1f5e-4e0e-9a6b-3f5f7d1e2a11",
        "chat_room_id": ROOM,
        "content": "hello there number 12 from the bench person",
        "message_type": "text",
        "sender_id": sender_id,
        "sender_type": sender_type,
        "sender_name": "Bench Person",
        "inserted_at": "2026-12-06T23:00:00.123456Z",
        "updated_at": "2026-12-06T23:00:00.123456Z",
        "metadata": {"mentions": [{"id": AGENT, "handle": "bench/agent-0", "name": "agent-0"}]},
        "attachments": [],
        "status": status,
    }


def ws_frame(event: str, payload: object) -> bytes:
    """One unmasked text frame carrying a Phoenix V2 push on TOPIC."""
    data = json.dumps(["3", None, TOPIC, event, payload], separators=(",", ":")).encode()
    if len(data) < 126:
        return bytes([0x81, len(data)]) + data
    return bytes([0x81, 126]) + len(data).to_bytes(2, "big") + data


FRAMES = [
    ws_frame("message_created", message("User", "u1", "sent")),
    ws_frame("message_updated", message("User", "u1", "processing")),
    ws_frame("message_created", message("Agent", AGENT, "sent")),
    ws_frame("message_updated", message("User", "u1", "processed")),
]


def timed(repeat: int, number: int) -> float:
    """Microseconds per answered message (its 4 pushes), min of ``repeat`` runs."""
    from websockets.protocol import State

    from band.client.phoenix import PhoenixClient, _PushConnection
    from band.runtime.runtime import AgentRuntime

    client = PhoenixClient("ws://127.0.0.1:1/socket", api_key="k")
    submitted: list[object] = []
    runtime = types.SimpleNamespace(
        agent_id=AGENT, rooms={ROOM: types.SimpleNamespace(submit=submitted.append)}
    )
    client._join_refs[TOPIC] = "3"
    client._handlers[TOPIC] = AgentRuntime._room_handler(runtime, ROOM)  # type: ignore[arg-type]
    conn = types.SimpleNamespace(
        sink=client._dispatch, _partial=b"", protocol=types.SimpleNamespace(state=State.OPEN)
    )
    read = _PushConnection._read_frames

    def one_message() -> None:
        for data in FRAMES:
            read(conn, data)  # type: ignore[arg-type]

    one_message()
    assert len(submitted) == 1, submitted  # the person's message only: the echo is skipped
    return min(timeit.repeat(one_message, number=number, repeat=repeat)) / number * 1e6


def calls(path: str, messages: int) -> None:
    """Print the path's calls per answered message in a run.py --profile stats file."""

    def kind(file: str, name: str) -> str | None:
        if any(file.endswith(f) and name == n for f, n in BAND_STEPS):
            return "band"
        if any(m in file for m in CORE_FILES):
            return "core"
        if "band_sdk_core/_delivery_py" in file and name in CORE_DELIVERY:
            return "core"
        return None

    totals: dict[str, float] = defaultdict(float)
    rows: dict[str, float] = defaultdict(float)
    raw = pstats.Stats(path).stats  # type: ignore[attr-defined]
    for (file, _line, name), (_cc, count, _own, _cum, callers) in raw.items():
        if file == "~":  # a builtin: counted where its caller is
            for (cfile, _cline, cname), c in callers.items():
                caller = kind(cfile, cname)
                if caller is not None:
                    totals[caller] += c[1]
                    rows[f"{name} (from {cname})"] += c[1]
        elif (where := kind(file, name)) is not None:
            totals[where] += count
            rows[f"{file.split('site-packages/')[-1]}:{name}"] += count
    print(f"band's calls on the push path: {totals['band'] / messages:.1f} per answered message")
    print(f"the pure core's calls on it: {totals['core'] / messages:.1f} per answered message")
    for where, count in sorted(rows.items(), key=lambda kv: -kv[1]):
        if count / messages >= 0.5:
            print(f"  {count / messages:7.2f}  {where}")


def main(argv: list[str] | None = None) -> int:
    """Time the path, or count its calls in a profile."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--calls", metavar="PROF", help="count the path's calls in these stats")
    p.add_argument("--messages", type=int, default=100, help="answered messages in PROF")
    p.add_argument("--repeat", type=int, default=7, help="timed runs (the minimum is kept)")
    p.add_argument("--number", type=int, default=3000, help="answered messages per run")
    args = p.parse_args(argv)
    if args.calls:
        calls(args.calls, args.messages)
        return 0
    import band_sdk_core

    core = "compiled" if band_sdk_core.USING_EXTENSIONS else "pure"
    print(f"{core} core: {timed(args.repeat, args.number):.1f} us per answered message")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
