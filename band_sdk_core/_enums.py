"""Closed enum-like classes shared by both implementations.

They live in a plain (never compiled) module so the pure-Python and the
compiled twins return the very same singleton members.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

__all__ = [
    "AgentTopicKind",
    "AgentTopicStatus",
    "ClaimOutcome",
    "DeadReason",
    "EventType",
    "LeaveOutcome",
    "MemoryListScope",
    "MemorySegment",
    "MemoryStatus",
    "MemoryStoreScope",
    "MemorySystem",
    "MemoryType",
    "ParkedReason",
    "RoomMembership",
    "RoomStatus",
    "RoomSubscribeResult",
    "SessionState",
    "StaleReason",
    "TurnEffect",
    "TurnVerdict",
]

_DEFINING = True  # flipped off once every class below exists


def not_instance_message(value: object, expected: str) -> str:
    """Return the reference wording of a wrong-argument-type error."""
    if value is None:
        return f"'None' is not an instance of '{expected}'"
    return f"'{type(value).__name__}' object is not an instance of '{expected}'"


class _Member:
    """Base of every closed enum: singletons, read-only, unhashable, unpicklable."""

    __slots__ = ("_index", "_label", "_name")
    __hash__ = None  # type: ignore[assignment]
    _members: ClassVar[tuple[Any, ...]] = ()
    _by_label: ClassVar[dict[str, Any]] = {}

    _name: str
    _label: str
    _index: int

    def __new__(cls, *args: object, **kwargs: object) -> Any:
        raise TypeError(f"cannot create 'band_sdk_core.{cls.__name__}' instances")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if not _DEFINING:
            base = cls.__mro__[1].__name__
            raise TypeError(f"type 'band_sdk_core.{base}' is not an acceptable base type")
        super().__init_subclass__(**kwargs)

    def __setattr__(self, name: str, value: object) -> None:
        cls = type(self).__name__
        if name in ("wire_name", "value"):
            raise AttributeError(
                f"attribute '{name}' of 'band_sdk_core.{cls}' objects is not writable"
            )
        raise AttributeError(f"'band_sdk_core.{cls}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        self.__setattr__(name, None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self._name}"

    def __str__(self) -> str:
        return self._label

    def __format__(self, spec: str) -> str:
        if spec:
            raise TypeError(
                "unsupported format string passed to "
                f"band_sdk_core.{type(self).__name__}.__format__"
            )
        return self._label

    def __int__(self) -> int:
        return self._index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __bool__(self) -> bool:
        return True

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise TypeError(f"cannot pickle 'band_sdk_core.{type(self).__name__}' object")

    def __copy__(self) -> NoReturn:
        self.__reduce_ex__(0)

    def __deepcopy__(self, memo: object) -> NoReturn:
        self.__reduce_ex__(0)


class _WireMember(_Member):
    """A closed enum whose members carry a ``wire_name``."""

    __slots__ = ()

    @property
    def wire_name(self) -> str:
        """The member's name on the wire."""
        return self._label

    @classmethod
    def _lookup(cls, name: object) -> Any:
        if not isinstance(name, str):
            raise TypeError(not_instance_message(name, "str"))
        return cls._by_label.get(name)


class _ValueMember(_Member):
    """A closed enum whose members carry a ``value`` string."""

    __slots__ = ()

    @property
    def value(self) -> str:
        """The member's string value."""
        return self._label


def _define(cls: Any, members: list[tuple[str, str]]) -> None:
    """Create the singleton members of ``cls`` in declaration order."""
    made = []
    for index, (name, label) in enumerate(members):
        member = object.__new__(cls)
        object.__setattr__(member, "_name", name)
        object.__setattr__(member, "_label", label)
        object.__setattr__(member, "_index", index)
        type.__setattr__(cls, name, member)
        made.append(member)
    cls._members = tuple(made)
    cls._by_label = {m._label: m for m in made}
    cls.__module__ = "band_sdk_core"


def _wire_lookup(cls: Any) -> Any:
    def from_wire_name(name: str) -> Any:
        if not isinstance(name, str):
            raise TypeError(not_instance_message(name, "str"))
        return cls._by_label.get(name)

    from_wire_name.__doc__ = f"Return the {cls.__name__} named ``name`` on the wire, or None."
    return staticmethod(from_wire_name)


class EventType(_WireMember):
    """The closed set of inbound event names."""

    __slots__ = ()
    MessageCreated: ClassVar[EventType]
    MessageUpdated: ClassVar[EventType]
    RoomAdded: ClassVar[EventType]
    RoomRemoved: ClassVar[EventType]
    RoomDeleted: ClassVar[EventType]
    ParticipantAdded: ClassVar[EventType]
    ParticipantRemoved: ClassVar[EventType]
    ContactRequestReceived: ClassVar[EventType]
    ContactRequestUpdated: ClassVar[EventType]
    ContactAdded: ClassVar[EventType]
    ContactRemoved: ClassVar[EventType]
    Supersede: ClassVar[EventType]
    AgentControl: ClassVar[EventType]
    EventCreated: ClassVar[EventType]

    @staticmethod
    def from_wire_name(name: str) -> EventType | None:  # replaced below
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class MemorySystem(_WireMember):
    """Memory systems."""

    __slots__ = ()
    Sensory: ClassVar[MemorySystem]
    Working: ClassVar[MemorySystem]
    LongTerm: ClassVar[MemorySystem]

    @staticmethod
    def from_wire_name(name: str) -> MemorySystem | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class MemoryType(_WireMember):
    """Memory types."""

    __slots__ = ()
    Iconic: ClassVar[MemoryType]
    Echoic: ClassVar[MemoryType]
    Haptic: ClassVar[MemoryType]
    Episodic: ClassVar[MemoryType]
    Semantic: ClassVar[MemoryType]
    Procedural: ClassVar[MemoryType]

    @staticmethod
    def from_wire_name(name: str) -> MemoryType | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class MemorySegment(_WireMember):
    """Memory segments."""

    __slots__ = ()
    User: ClassVar[MemorySegment]
    Agent: ClassVar[MemorySegment]
    Tool: ClassVar[MemorySegment]
    Guideline: ClassVar[MemorySegment]

    @staticmethod
    def from_wire_name(name: str) -> MemorySegment | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class MemoryStoreScope(_WireMember):
    """Scopes a memory can be stored in."""

    __slots__ = ()
    Subject: ClassVar[MemoryStoreScope]
    Organization: ClassVar[MemoryStoreScope]

    @staticmethod
    def from_wire_name(name: str) -> MemoryStoreScope | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class MemoryListScope(_WireMember):
    """Scopes memories can be listed from."""

    __slots__ = ()
    Subject: ClassVar[MemoryListScope]
    Organization: ClassVar[MemoryListScope]
    All: ClassVar[MemoryListScope]

    @staticmethod
    def from_wire_name(name: str) -> MemoryListScope | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class MemoryStatus(_WireMember):
    """Memory statuses."""

    __slots__ = ()
    Active: ClassVar[MemoryStatus]
    Superseded: ClassVar[MemoryStatus]
    Archived: ClassVar[MemoryStatus]
    All: ClassVar[MemoryStatus]

    @staticmethod
    def from_wire_name(name: str) -> MemoryStatus | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class ParkedReason(_WireMember):
    """Why a pending acknowledgement is parked."""

    __slots__ = ()
    NotFound: ClassVar[ParkedReason]
    Rejected: ClassVar[ParkedReason]

    @staticmethod
    def from_wire_name(name: str) -> ParkedReason | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class TurnEffect(_WireMember):
    """What a successful tool call did for the turn."""

    __slots__ = ()
    Observe: ClassVar[TurnEffect]
    Act: ClassVar[TurnEffect]
    Reply: ClassVar[TurnEffect]
    Decline: ClassVar[TurnEffect]

    @staticmethod
    def from_wire_name(name: str) -> TurnEffect | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class TurnVerdict(_WireMember):
    """The judgement of a finished turn."""

    __slots__ = ()
    Complete: ClassVar[TurnVerdict]
    MissingReply: ClassVar[TurnVerdict]

    @staticmethod
    def from_wire_name(name: str) -> TurnVerdict | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError


class AgentTopicKind(_WireMember):
    """The agent-scoped WebSocket topics."""

    __slots__ = ()
    Control: ClassVar[AgentTopicKind]
    Rooms: ClassVar[AgentTopicKind]
    Contacts: ClassVar[AgentTopicKind]

    @staticmethod
    def from_wire_name(name: str) -> AgentTopicKind | None:
        """Return the member with this wire name, or None."""
        raise NotImplementedError

    def topic(self, agent_id: str) -> str:
        """Return the topic name of this kind for ``agent_id``."""
        if not isinstance(agent_id, str):
            raise TypeError(not_instance_message(agent_id, "str"))
        agent_id.encode()  # lone surrogates raise UnicodeEncodeError, as the reference does
        return self._label + ":" + agent_id


class RoomSubscribeResult(_ValueMember):
    """Result of completing a two-topic room subscription."""

    __slots__ = ()
    Subscribed: ClassVar[RoomSubscribeResult]
    JoinFailed: ClassVar[RoomSubscribeResult]
    RolledBack: ClassVar[RoomSubscribeResult]
    RollbackFailed: ClassVar[RoomSubscribeResult]
    Stale: ClassVar[RoomSubscribeResult]


class RoomStatus(_ValueMember):
    """Subscription state of a room."""

    __slots__ = ()
    Absent: ClassVar[RoomStatus]
    Pending: ClassVar[RoomStatus]
    Subscribed: ClassVar[RoomStatus]
    Leaving: ClassVar[RoomStatus]
    NeedsReconciliation: ClassVar[RoomStatus]


class AgentTopicStatus(_ValueMember):
    """Subscription state of an agent topic."""

    __slots__ = ()
    Absent: ClassVar[AgentTopicStatus]
    Pending: ClassVar[AgentTopicStatus]
    Joined: ClassVar[AgentTopicStatus]
    Leaving: ClassVar[AgentTopicStatus]
    NeedsReconciliation: ClassVar[AgentTopicStatus]


class LeaveOutcome(_ValueMember):
    """How a topic leave ended."""

    __slots__ = ()
    Left: ClassVar[LeaveOutcome]
    Failed: ClassVar[LeaveOutcome]
    Unknown: ClassVar[LeaveOutcome]


class SessionState(_ValueMember):
    """State of the reconnect session."""

    __slots__ = ()
    Connecting: ClassVar[SessionState]
    Up: ClassVar[SessionState]
    Reconnecting: ClassVar[SessionState]
    Dead: ClassVar[SessionState]


class DeadReason(_ValueMember):
    """Why a session died."""

    __slots__ = ()
    Classified: ClassVar[DeadReason]
    RapidDisconnect: ClassVar[DeadReason]


class StaleReason(_ValueMember):
    """Why a session event was ignored."""

    __slots__ = ()
    WrongEpoch: ClassVar[StaleReason]
    ClockRegression: ClassVar[StaleReason]
    DuplicateConnected: ClassVar[StaleReason]
    SupersedePredatesEpoch: ClassVar[StaleReason]


class RoomMembership(_ValueMember):
    """Admission state of a room in a RoomRoster."""

    __slots__ = ()
    Unadmitted: ClassVar[RoomMembership]
    Admitting: ClassVar[RoomMembership]
    Admitted: ClassVar[RoomMembership]


class ClaimOutcome(_ValueMember):
    """Result of claiming a registered decision."""

    __slots__ = ()
    Claimed: ClassVar[ClaimOutcome]
    AlreadyClaimed: ClassVar[ClaimOutcome]
    Stale: ClassVar[ClaimOutcome]


_DEFINING = False

_WIRE: dict[Any, list[tuple[str, str]]] = {
    EventType: [
        ("MessageCreated", "message_created"),
        ("MessageUpdated", "message_updated"),
        ("RoomAdded", "room_added"),
        ("RoomRemoved", "room_removed"),
        ("RoomDeleted", "room_deleted"),
        ("ParticipantAdded", "participant_added"),
        ("ParticipantRemoved", "participant_removed"),
        ("ContactRequestReceived", "contact_request_received"),
        ("ContactRequestUpdated", "contact_request_updated"),
        ("ContactAdded", "contact_added"),
        ("ContactRemoved", "contact_removed"),
        ("Supersede", "supersede"),
        ("AgentControl", "agent.control"),
        ("EventCreated", "event_created"),
    ],
    MemorySystem: [("Sensory", "sensory"), ("Working", "working"), ("LongTerm", "long_term")],
    MemoryType: [
        ("Iconic", "iconic"),
        ("Echoic", "echoic"),
        ("Haptic", "haptic"),
        ("Episodic", "episodic"),
        ("Semantic", "semantic"),
        ("Procedural", "procedural"),
    ],
    MemorySegment: [
        ("User", "user"),
        ("Agent", "agent"),
        ("Tool", "tool"),
        ("Guideline", "guideline"),
    ],
    MemoryStoreScope: [("Subject", "subject"), ("Organization", "organization")],
    MemoryListScope: [("Subject", "subject"), ("Organization", "organization"), ("All", "all")],
    MemoryStatus: [
        ("Active", "active"),
        ("Superseded", "superseded"),
        ("Archived", "archived"),
        ("All", "all"),
    ],
    ParkedReason: [("NotFound", "not_found"), ("Rejected", "rejected")],
    TurnEffect: [
        ("Observe", "observe"),
        ("Act", "act"),
        ("Reply", "reply"),
        ("Decline", "decline"),
    ],
    TurnVerdict: [("Complete", "complete"), ("MissingReply", "missing_reply")],
    AgentTopicKind: [
        ("Control", "agent_control"),
        ("Rooms", "agent_rooms"),
        ("Contacts", "agent_contacts"),
    ],
}

_VALUES: dict[Any, list[str]] = {
    RoomSubscribeResult: ["Subscribed", "JoinFailed", "RolledBack", "RollbackFailed", "Stale"],
    RoomStatus: ["Absent", "Pending", "Subscribed", "Leaving", "NeedsReconciliation"],
    AgentTopicStatus: ["Absent", "Pending", "Joined", "Leaving", "NeedsReconciliation"],
    LeaveOutcome: ["Left", "Failed", "Unknown"],
    SessionState: ["Connecting", "Up", "Reconnecting", "Dead"],
    DeadReason: ["Classified", "RapidDisconnect"],
    StaleReason: ["WrongEpoch", "ClockRegression", "DuplicateConnected", "SupersedePredatesEpoch"],
    RoomMembership: ["Unadmitted", "Admitting", "Admitted"],
    ClaimOutcome: ["Claimed", "AlreadyClaimed", "Stale"],
}


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


for _cls, _pairs in _WIRE.items():
    _define(_cls, _pairs)
    type.__setattr__(_cls, "from_wire_name", _wire_lookup(_cls))
for _cls, _names in _VALUES.items():
    _define(_cls, [(n, _snake(n)) for n in _names])
del _cls, _pairs, _names
