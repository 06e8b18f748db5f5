"""The fan-out's indexes: a push looks only at the sockets joined to its topic, a presence
check only at its principal's, and joins, leaves and removals keep both right."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from band.devserver.socket.fanout import Connection, Fanout
from band.devserver.store.principal import Principal


class _Transport:
    """A direct send that records the frames it takes."""

    write_paused = False

    def __init__(self) -> None:
        self.frames: list[Any] = []

    def write_text(self, data: bytes) -> bool:
        self.frames.append(msgspec.json.decode(data))
        return True


class _Socket:
    def __init__(self) -> None:
        self.transport = _Transport()
        self.scope = {"extensions": {"band.websocket.direct_send": {"protocol": self.transport}}}


class _Untouchable(dict[str, Any]):
    """The topics of a socket that a push to another topic must not look at."""

    def __contains__(self, key: object) -> bool:
        raise AssertionError(f"a push looked at an unrelated socket ({key!r})")

    __getitem__ = __contains__


class _CountedPrincipal(Principal):
    """A principal that counts how often its id is read."""

    reads = 0

    def __getattribute__(self, name: str) -> Any:
        if name == "id":
            type(self).reads += 1
        return super().__getattribute__(name)


def _connection(fanout: Fanout, principal: Principal) -> tuple[Connection, _Transport]:
    socket = _Socket()
    conn = Connection(principal, socket)  # type: ignore[arg-type]
    fanout.add(conn)
    return conn, socket.transport


def _push(fanout: Fanout, topic: str, **kw: Any) -> None:
    asyncio.run(fanout.push(topic, "message_created", {"n": 1}, **kw))


def test_a_push_and_a_presence_check_look_at_no_unrelated_socket() -> None:
    fanout = Fanout()
    a, to_a = _connection(fanout, Principal("agent", "a", "A"))
    u, to_u = _connection(fanout, Principal("user", "u", "U"))
    fanout.join(a, "chat_room:r", "1")
    fanout.join(u, "chat_room:r", "7")
    for i in range(1000):
        other, _ = _connection(fanout, _CountedPrincipal("agent", f"x{i}", "X"))
        other.topics = _Untouchable()
    _CountedPrincipal.reads = 0
    _push(fanout, "chat_room:r")
    assert [f[0] for f in to_a.frames] == ["1"] and [f[0] for f in to_u.frames] == ["7"]
    assert fanout.online("a") and not fanout.online("nobody")
    assert _CountedPrincipal.reads == 0


def test_agent_ids_filter_agents_only() -> None:
    fanout = Fanout()
    a, to_a = _connection(fanout, Principal("agent", "a", "A"))
    b, to_b = _connection(fanout, Principal("agent", "b", "B"))
    u, to_u = _connection(fanout, Principal("user", "u", "U"))
    for conn in (a, b, u):
        fanout.join(conn, "chat_room:r", "1")
    _push(fanout, "chat_room:r", agent_ids=frozenset({"b"}))
    assert (len(to_a.frames), len(to_b.frames), len(to_u.frames)) == (0, 1, 1)


def test_joins_leaves_and_removals_keep_the_index() -> None:
    fanout = Fanout()
    a, to_a = _connection(fanout, Principal("agent", "a", "A"))
    a2, to_a2 = _connection(fanout, Principal("user", "a", "A"))
    b, to_b = _connection(fanout, Principal("agent", "b", "B"))
    fanout.join(a, "chat_room:r", "1")
    fanout.join(a, "chat_room:r", "5")  # a rejoin: the new join_ref
    fanout.join(a2, "chat_room:r", "2")
    fanout.join(b, "room_participants:r", "3")
    fanout.join(b, "chat_room:r", "4")
    _push(fanout, "chat_room:r")
    assert to_a.frames[-1][0] == "5" and len(to_a.frames) == 1
    assert fanout.sockets_of("a") == 2

    left = fanout.leave_room("r", "b")
    assert sorted((t, ref) for _, t, ref in left) == [
        ("chat_room:r", "4"),
        ("room_participants:r", "3"),
    ]
    assert fanout.leave(a2, "chat_room:r") == "2" and fanout.leave(a2, "chat_room:r") is None
    _push(fanout, "chat_room:r")
    assert (len(to_a.frames), len(to_a2.frames), len(to_b.frames)) == (2, 1, 1)

    fanout.remove(a)
    fanout.remove(a)  # again: nothing more to forget
    _push(fanout, "chat_room:r")
    assert len(to_a.frames) == 2 and fanout.sockets_of("a") == 1 and fanout.online("a")
    fanout.join(a, "chat_room:r", "9")  # a removed socket's late join is not indexed
    _push(fanout, "chat_room:r")
    assert len(to_a.frames) == 2
    fanout.remove(a2)
    assert fanout.sockets_of("a") == 0 and not fanout.online("a")
    assert fanout.connections == {b}
