"""Closed enum-like classes shared by both implementations.

They live in a plain (never compiled) module so the pure-Python and the
compiled twins return the very same singleton members.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn, Self

_DEFINING = True  # flipped off once every class below exists


def not_instance_message(value: object, expected: str) -> str:
    """Return the reference wording of a wrong-argument-type error."""
    if value is None:
        return f"'None' is not an instance of '{expected}'"
    return f"'{type(value).__name__}' object is not an instance of '{expected}'"


class _Declared:
    """A member written in a class body; the class turns it into its singleton on creation."""

    __slots__ = ("label",)

    def __init__(self, label: str) -> None:
        self.label = label


def wire(name: str) -> Any:
    """Declare a member whose ``wire_name`` is ``name``."""
    return _Declared(name)


def declared() -> Any:
    """Declare a member whose ``value`` is its own name in snake_case."""
    return _Declared("")


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


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
        members = [(k, v.label or _snake(k)) for k, v in vars(cls).items() if type(v) is _Declared]
        if members:
            _define(cls, members)

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
    def from_wire_name(cls, name: str) -> Self | None:
        """Return the member with this wire name, or None."""
        if not isinstance(name, str):
            raise TypeError(not_instance_message(name, "str"))
        member: Self | None = cls._by_label.get(name)
        return member


class _ValueMember(_Member):
    """A closed enum whose members carry a ``value`` string."""

    __slots__ = ()

    @property
    def value(self) -> str:
        """The member's string value."""
        return self._label


class EventType(_WireMember):
    """The closed set of inbound event names."""

    __slots__ = ()
    MessageCreated: ClassVar[EventType] = wire("message_created")
    MessageUpdated: ClassVar[EventType] = wire("message_updated")
    RoomAdded: ClassVar[EventType] = wire("room_added")
    RoomRemoved: ClassVar[EventType] = wire("room_removed")
    RoomDeleted: ClassVar[EventType] = wire("room_deleted")
    ParticipantAdded: ClassVar[EventType] = wire("participant_added")
    ParticipantRemoved: ClassVar[EventType] = wire("participant_removed")
    ContactRequestReceived: ClassVar[EventType] = wire("contact_request_received")
    ContactRequestUpdated: ClassVar[EventType] = wire("contact_request_updated")
    ContactAdded: ClassVar[EventType] = wire("contact_added")
    ContactRemoved: ClassVar[EventType] = wire("contact_removed")
    Supersede: ClassVar[EventType] = wire("supersede")
    AgentControl: ClassVar[EventType] = wire("agent.control")
    EventCreated: ClassVar[EventType] = wire("event_created")


class MemorySystem(_WireMember):
    """Memory systems."""

    __slots__ = ()
    Sensory: ClassVar[MemorySystem] = wire("sensory")
    Working: ClassVar[MemorySystem] = wire("working")
    LongTerm: ClassVar[MemorySystem] = wire("long_term")


class MemoryType(_WireMember):
    """Memory types."""

    __slots__ = ()
    Iconic: ClassVar[MemoryType] = wire("iconic")
    Echoic: ClassVar[MemoryType] = wire("echoic")
    Haptic: ClassVar[MemoryType] = wire("haptic")
    Episodic: ClassVar[MemoryType] = wire("episodic")
    Semantic: ClassVar[MemoryType] = wire("semantic")
    Procedural: ClassVar[MemoryType] = wire("procedural")


class MemorySegment(_WireMember):
    """Memory segments."""

    __slots__ = ()
    User: ClassVar[MemorySegment] = wire("user")
    Agent: ClassVar[MemorySegment] = wire("agent")
    Tool: ClassVar[MemorySegment] = wire("tool")
    Guideline: ClassVar[MemorySegment] = wire("guideline")


class MemoryStoreScope(_WireMember):
    """Scopes a memory can be stored in."""

    __slots__ = ()
    Subject: ClassVar[MemoryStoreScope] = wire("subject")
    Organization: ClassVar[MemoryStoreScope] = wire("organization")


class MemoryListScope(_WireMember):
    """Scopes memories can be listed from."""

    __slots__ = ()
    Subject: ClassVar[MemoryListScope] = wire("subject")
    Organization: ClassVar[MemoryListScope] = wire("organization")
    All: ClassVar[MemoryListScope] = wire("all")


class MemoryStatus(_WireMember):
    """Memory statuses."""

    __slots__ = ()
    Active: ClassVar[MemoryStatus] = wire("active")
    Superseded: ClassVar[MemoryStatus] = wire("superseded")
    Archived: ClassVar[MemoryStatus] = wire("archived")
    All: ClassVar[MemoryStatus] = wire("all")


class ParkedReason(_WireMember):
    """Why a pending acknowledgement is parked."""

    __slots__ = ()
    NotFound: ClassVar[ParkedReason] = wire("not_found")
    Rejected: ClassVar[ParkedReason] = wire("rejected")


class TurnEffect(_WireMember):
    """What a successful tool call did for the turn."""

    __slots__ = ()
    Observe: ClassVar[TurnEffect] = wire("observe")
    Act: ClassVar[TurnEffect] = wire("act")
    Reply: ClassVar[TurnEffect] = wire("reply")
    Decline: ClassVar[TurnEffect] = wire("decline")


class TurnVerdict(_WireMember):
    """The judgement of a finished turn."""

    __slots__ = ()
    Complete: ClassVar[TurnVerdict] = wire("complete")
    MissingReply: ClassVar[TurnVerdict] = wire("missing_reply")


class AgentTopicKind(_WireMember):
    """The agent-scoped WebSocket topics."""

    __slots__ = ()
    Control: ClassVar[AgentTopicKind] = wire("agent_control")
    Rooms: ClassVar[AgentTopicKind] = wire("agent_rooms")
    Contacts: ClassVar[AgentTopicKind] = wire("agent_contacts")

    def topic(self, agent_id: str) -> str:
        """Return the topic name of this kind for ``agent_id``."""
        if not isinstance(agent_id, str):
            raise TypeError(not_instance_message(agent_id, "str"))
        agent_id.encode()  # lone surrogates raise UnicodeEncodeError, as the reference does
        return self._label + ":" + agent_id


class RoomSubscribeResult(_ValueMember):
    """Result of completing a two-topic room subscription."""

    __slots__ = ()
    Subscribed: ClassVar[RoomSubscribeResult] = declared()
    JoinFailed: ClassVar[RoomSubscribeResult] = declared()
    RolledBack: ClassVar[RoomSubscribeResult] = declared()
    RollbackFailed: ClassVar[RoomSubscribeResult] = declared()
    Stale: ClassVar[RoomSubscribeResult] = declared()


class RoomStatus(_ValueMember):
    """Subscription state of a room."""

    __slots__ = ()
    Absent: ClassVar[RoomStatus] = declared()
    Pending: ClassVar[RoomStatus] = declared()
    Subscribed: ClassVar[RoomStatus] = declared()
    Leaving: ClassVar[RoomStatus] = declared()
    NeedsReconciliation: ClassVar[RoomStatus] = declared()


class AgentTopicStatus(_ValueMember):
    """Subscription state of an agent topic."""

    __slots__ = ()
    Absent: ClassVar[AgentTopicStatus] = declared()
    Pending: ClassVar[AgentTopicStatus] = declared()
    Joined: ClassVar[AgentTopicStatus] = declared()
    Leaving: ClassVar[AgentTopicStatus] = declared()
    NeedsReconciliation: ClassVar[AgentTopicStatus] = declared()


class LeaveOutcome(_ValueMember):
    """How a topic leave ended."""

    __slots__ = ()
    Left: ClassVar[LeaveOutcome] = declared()
    Failed: ClassVar[LeaveOutcome] = declared()
    Unknown: ClassVar[LeaveOutcome] = declared()


class SessionState(_ValueMember):
    """State of the reconnect session."""

    __slots__ = ()
    Connecting: ClassVar[SessionState] = declared()
    Up: ClassVar[SessionState] = declared()
    Reconnecting: ClassVar[SessionState] = declared()
    Dead: ClassVar[SessionState] = declared()


class DeadReason(_ValueMember):
    """Why a session died."""

    __slots__ = ()
    Classified: ClassVar[DeadReason] = declared()
    RapidDisconnect: ClassVar[DeadReason] = declared()


class StaleReason(_ValueMember):
    """Why a session event was ignored."""

    __slots__ = ()
    WrongEpoch: ClassVar[StaleReason] = declared()
    ClockRegression: ClassVar[StaleReason] = declared()
    DuplicateConnected: ClassVar[StaleReason] = declared()
    SupersedePredatesEpoch: ClassVar[StaleReason] = declared()


class RoomMembership(_ValueMember):
    """Admission state of a room in a RoomRoster."""

    __slots__ = ()
    Unadmitted: ClassVar[RoomMembership] = declared()
    Admitting: ClassVar[RoomMembership] = declared()
    Admitted: ClassVar[RoomMembership] = declared()


class ClaimOutcome(_ValueMember):
    """Result of claiming a registered decision."""

    __slots__ = ()
    Claimed: ClassVar[ClaimOutcome] = declared()
    AlreadyClaimed: ClassVar[ClaimOutcome] = declared()
    Stale: ClassVar[ClaimOutcome] = declared()


_DEFINING = False
