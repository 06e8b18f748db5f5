"""``SimpleAdapter``: the base class most adapters extend; one ``on_message`` per turn."""

from __future__ import annotations

import enum
import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar, Generic, TypeVar, Unpack

from .exceptions import BandConfigError
from .protocols import AgentToolsProtocol
from .types import (
    AdapterFeatures,
    AgentInput,
    Capability,
    Emit,
    FeatureKwargs,
    HistoryConverter,
    PlatformMessage,
)

__all__ = ["FeatureKwargs", "SimpleAdapter"]

log = logging.getLogger("band.adapter")

H = TypeVar("H")
E = TypeVar("E", bound=enum.Enum)


def _flags(value: object, enum_cls: type[E]) -> frozenset[E] | None:
    """A single member or an iterable of members/values as a frozenset (None passes)."""
    if value is None:
        return None
    if isinstance(value, enum_cls):  # StrEnum members are strings: never iterate them
        return frozenset({value})
    if not isinstance(value, Iterable):
        raise TypeError(f"'{type(value).__name__}' object is not iterable")
    try:
        return frozenset(enum_cls(v) for v in value)
    except ValueError as exc:
        raise BandConfigError(f"invalid {enum_cls.__name__} value: {exc}") from exc


def _describe(values: Iterable[enum.Enum]) -> str:
    names = sorted(str(v.value) for v in values)
    return ", ".join(names) if names else "(none)"


class SimpleAdapter(ABC, Generic[H]):
    """Subclass and implement :meth:`on_message`; the runtime calls it once per delivered turn.

    ``H`` is the history type ``on_message`` receives: the raw ``HistoryProvider``, or what
    ``history_converter`` makes of it.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset()
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(
        self,
        *,
        history_converter: HistoryConverter[H] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        self.history_converter = history_converter
        self.agent_name = ""
        self.agent_description = ""
        self.features = self._resolve_features(**features)

    def _resolve_features(
        self,
        *,
        emit: Emit | Iterable[Emit] | None = None,
        capabilities: Capability | Iterable[Capability] | None = None,
        include_tools: Iterable[str] | None = None,
        exclude_tools: Iterable[str] | None = None,
        include_categories: Iterable[str] | None = None,
    ) -> AdapterFeatures:
        """Check the requested features against what this adapter supports."""
        name = type(self).__name__
        emits = _flags(emit, Emit)
        emits = self.SUPPORTED_EMIT if emits is None else emits
        unsupported = emits - self.SUPPORTED_EMIT
        if unsupported:
            raise BandConfigError(
                f"{name} does not support emit kind(s): {_describe(unsupported)}; "
                f"supported: {_describe(self.SUPPORTED_EMIT)}"
            )
        caps = _flags(capabilities, Capability) or frozenset()
        unsupported_caps = caps - self.SUPPORTED_CAPABILITIES
        if unsupported_caps:
            raise BandConfigError(
                f"{name} does not support capability/-ies: {_describe(unsupported_caps)}; "
                f"supported: {_describe(self.SUPPORTED_CAPABILITIES)}"
            )
        return AdapterFeatures(
            capabilities=caps,
            emit=emits,
            include_tools=AdapterFeatures.names(include_tools),
            exclude_tools=AdapterFeatures.names(exclude_tools),
            include_categories=AdapterFeatures.names(include_categories),
        )

    @property
    def capabilities(self) -> frozenset[Capability]:
        """The optional tool groups this adapter's model gets."""
        return self.features.capabilities

    @property
    def emit(self) -> frozenset[Emit]:
        """The telemetry kinds this adapter posts."""
        return self.features.emit

    @property
    def judges_turns(self) -> bool:
        """Whether the runtime judges each turn by the turn-outcome rule (False for bridges)."""
        return True

    async def startup(
        self, agent_name: str, agent_description: str, *, features: AdapterFeatures | None = None
    ) -> None:
        """Called once per agent start: apply negotiated features, then :meth:`on_started`."""
        if features is not None:
            self.features = features
        await self.on_started(agent_name, agent_description)

    async def preflight(self) -> None:
        """Check what the adapter needs before the agent connects (a model key, say); raise
        ``StartupError`` with the cause and the next step. Nothing to check by default."""

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Override for setup after the agent connected; keep calling ``super()``."""
        self.agent_name = agent_name
        self.agent_description = agent_description
        set_name = getattr(self.history_converter, "set_agent_name", None)
        if callable(set_name):
            set_name(agent_name)

    async def on_event(self, inp: AgentInput) -> None:
        """Run one turn: convert the history and call :meth:`on_message`."""
        # H is HistoryProvider when there is no converter: a link the type system cannot state
        # (typed Any rather than ``cast``, a call every turn)
        history: Any = inp.history
        if self.history_converter is not None:
            history = inp.history.convert(self.history_converter)
        # positional, as on_message declares them: overrides may rename them
        await self.on_message(
            inp.msg,
            inp.tools,
            history,
            inp.participants_msg,
            inp.contacts_msg,
            is_session_bootstrap=inp.is_session_bootstrap,
            room_id=inp.room_id,
        )

    @abstractmethod
    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: H,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """Handle one message addressed to the agent; answer through ``tools``."""

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        """Called when the platform interrupts or stops the room's current turn."""

    async def on_cleanup(self, room_id: str) -> None:
        """Called when the agent leaves a room (or stops): drop per-room state."""

    async def cleanup_all(self) -> None:
        """Called once when the agent stops."""
