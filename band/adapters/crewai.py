"""``CrewAIAdapter``: a CrewAI agent (crewai) in Band rooms, one crew run per turn.

Each turn kicks off a one-agent, one-task crew whose task is the room's message (with the
room's earlier turns as context); the Band tools are CrewAI tools, run on the turn's loop.
Needs the ``[crewai]`` extra (imported with this module); CrewAI's ``LLM`` reads the provider's
key and base URL from the environment (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``)::

    adapter = CrewAIAdapter(CrewAIAdapterConfig(model="gpt-5-mini", role="Researcher"))
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, ClassVar, TypeVar, Unpack

from pydantic import PositiveInt

from band._extras import require

require("crewai", "CrewAIAdapter")  # an optional dependency: say how to get it

from crewai import LLM, Crew, Task  # noqa: E402
from crewai import Agent as CrewAIAgent  # noqa: E402

from band.converters.crewai import CrewAIHistoryConverter, CrewAIMessages  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.simple_adapter import FeatureKwargs  # noqa: E402
from band.core.types import Emit, PlatformMessage  # noqa: E402
from band.integrations.crewai.tools import (  # noqa: E402
    CrewAIToolContext,
    EmitToolCallsReporter,
    crewai_tools,
)
from band.runtime.tools.custom import CustomToolDef  # noqa: E402

from ._bandtools import FrameworkConfig  # noqa: E402
from ._base import FrameworkAdapterBase  # noqa: E402

__all__ = ["OPENAI_MODEL", "CrewAIAdapter", "CrewAIAdapterConfig"]


#: The model a ``CrewAIAdapterConfig`` names by default (band-sdk 6.0.1's OpenAI default).
OPENAI_MODEL = "gpt-6-luna"

R = TypeVar("R")


class CrewAIAdapterConfig(FrameworkConfig):
    """Settings of :class:`CrewAIAdapter`: the model CrewAI's ``LLM`` runs, the agent's
    role/goal/backstory (None: the Band agent's name, description; the Band instructions
    follow the backstory), CrewAI's verbosity and limits."""

    model: str = OPENAI_MODEL
    role: str | None = None
    goal: str | None = None
    backstory: str | None = None
    custom_section: str | None = None
    verbose: bool = False
    max_iter: PositiveInt = 20
    max_rpm: PositiveInt | None = None
    allow_delegation: bool = False


class _Turn:
    """What the crew's tools act on (the turn's guard): their calls run until the turn ends."""

    def __init__(self) -> None:
        self.active = True

    async def run_tool(self, operation: Callable[[], Coroutine[Any, Any, R]]) -> R:
        """Run the call, unless the turn is over (interrupted: its crew does nothing more)."""
        if not self.active:
            raise RuntimeError("the turn was interrupted")
        return await operation()


class CrewAIAdapter(FrameworkAdapterBase[CrewAIMessages]):
    """Runs each turn as a crew of the configured agent and one task."""

    PROVIDER = "crewai"
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS})

    def __init__(
        self,
        config: CrewAIAdapterConfig | None = None,
        *,
        history_converter: CrewAIHistoryConverter | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            history_converter=history_converter or CrewAIHistoryConverter(), **features
        )
        self.config = config or CrewAIAdapterConfig()
        self._take_custom_tools(additional_tools)
        self._history: dict[str, list[str]] = {}
        self._backstory = ""

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """The backstory: the configured one, then the Band instructions."""
        await super().on_started(agent_name, agent_description)
        prompt = self._band_prompt(self.config.custom_section)
        self._backstory = (
            f"{self.config.backstory}\n\n{prompt}" if self.config.backstory else prompt
        )

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: CrewAIMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: a crew run of one task, the message."""
        if is_session_bootstrap or room_id not in self._history:
            self._history[room_id] = (
                [str(m["content"]) for m in history if isinstance(m.get("content"), str)]
                if is_session_bootstrap
                else []
            )
        earlier = self._history[room_id]
        sections = []
        if earlier:
            joined = "\n".join(earlier[-50:])
            sections.append(f"[Earlier in this room, already handled; context only:]\n{joined}")
        sections.extend(f"[System]: {n}" for n in (participants_msg, contacts_msg) if n)
        sections.append(f"[New message, act on it now:]\n{msg.format_for_llm()}")
        turn = _Turn()
        context = CrewAIToolContext(room_id, tools, tool_turn=turn)
        crew_tools = crewai_tools(
            self._band_specs(tools),
            get_context=lambda: context,
            reporter=EmitToolCallsReporter(self.features),
            features=self.features,
            custom_tools=self._custom,
            fallback_loop=asyncio.get_running_loop(),
        )
        agent = CrewAIAgent(
            role=self.config.role or self.agent_name,
            goal=self.config.goal or self.agent_description or "Help the room",
            backstory=self._backstory,
            llm=LLM(model=self.config.model),
            tools=crew_tools,
            verbose=self.config.verbose,
            max_iter=self.config.max_iter,
            max_rpm=self.config.max_rpm,
            allow_delegation=self.config.allow_delegation,
        )
        task = Task(
            description="\n\n".join(sections),
            expected_output="Your answer to the new message (sent with band_send_message).",
            agent=agent,
        )
        crew = Crew(agents=[agent], tasks=[task], verbose=self.config.verbose)
        done = threading.Event()
        try:
            result = await asyncio.to_thread(_kickoff, crew, done)
        except asyncio.CancelledError:
            turn.active = False  # the crew's thread runs on; its tools do nothing more
            raise
        except Exception as exc:
            turn.active = False
            await self._run_failed(tools, room_id, exc)
            raise
        turn.active = False
        text = str(getattr(result, "raw", "") or "").strip()
        earlier.append(msg.format_for_llm())
        if text:
            earlier.append(f"[you answered]: {text}")
        await self._close(tools, msg, text)

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's earlier turns."""
        self._history.pop(room_id, None)


def _kickoff(crew: Crew, done: threading.Event) -> Any:
    """Run the crew (in a worker thread: CrewAI's tools are synchronous)."""
    try:
        return crew.kickoff()
    finally:
        done.set()
