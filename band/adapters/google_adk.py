"""``GoogleADKAdapter``: a Google Agent Development Kit agent (google-adk) in Band rooms.

Each room has its own ADK ``LlmAgent`` and ``Runner`` with an in-memory session service and
one ADK session, so a turn sees the room's earlier turns; on a session bootstrap the room's
history opens the session as a transcript. The Band tools are ADK function tools (their JSON
schemas as declared). Needs the ``[google-adk]`` extra (imported with this module); the Gemini
client reads ``GOOGLE_API_KEY``/``GEMINI_API_KEY`` and ``GOOGLE_GEMINI_BASE_URL``::

    adapter = GoogleADKAdapter(GoogleADKAdapterConfig(custom_section="You plan trips."))
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from pydantic import Field, PositiveInt

from band._extras import require

require("google-adk", "GoogleADKAdapter")  # an optional dependency: say how to get it

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models.google_llm import Gemini  # noqa: E402
from google.adk.runners import Runner  # noqa: E402
from google.adk.sessions import InMemorySessionService  # noqa: E402
from google.adk.tools import BaseTool, ToolContext  # noqa: E402
from google.genai import types  # noqa: E402

from band.converters.google_adk import GoogleADKHistoryConverter, GoogleADKMessages  # noqa: E402
from band.core.exceptions import ProviderRunError  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.simple_adapter import FeatureKwargs  # noqa: E402
from band.core.types import PlatformMessage  # noqa: E402
from band.runtime.tools.custom import CustomToolDef  # noqa: E402

from ._bandtools import BandToolSpec, FrameworkConfig  # noqa: E402
from ._base import FrameworkAdapterBase  # noqa: E402
from ._model import empty_usage  # noqa: E402

__all__ = ["GEMINI_MODEL", "GoogleADKAdapter", "GoogleADKAdapterConfig"]


#: The model a ``GoogleADKAdapterConfig`` names by default (band-sdk 6.0.1's Gemini default).
GEMINI_MODEL = "gemini-3.8-flash"
#: The most extra attempts ``max_retries`` may ask of a model request.
MAX_GENERATION_RETRIES = 5
_APP = "band"
#: Event error codes that are no provider failure: a normal finish (ADK <= 1.10 reports it),
#: and an empty final answer, which the turn-outcome rule judges (after work it is benign)
_NOT_FAILURES = frozenset({"STOP", "MODEL_RETURNED_NO_CONTENT"})


class GoogleADKAdapterConfig(FrameworkConfig):
    """Settings of :class:`GoogleADKAdapter`: the Gemini model, the prompt (``system_prompt``
    replaces the rendered one; ``custom_section`` is added to it), the model request's extra
    attempts, and how much of the room's history opens a session."""

    model: str = GEMINI_MODEL
    system_prompt: str | None = None
    custom_section: str | None = None
    max_retries: int = Field(default=2, ge=0, le=MAX_GENERATION_RETRIES)
    max_history_messages: PositiveInt = 50
    max_transcript_chars: PositiveInt = 100_000


class _BandTool(BaseTool):  # type: ignore[misc]  # google-adk is not in the dev venv (mypy sees Any)
    """One Band tool (platform or custom) as an ADK function tool of a room."""

    def __init__(self, adapter: GoogleADKAdapter, room: _Room, spec: BandToolSpec) -> None:
        super().__init__(name=spec.name, description=spec.description or spec.name)
        self._adapter = adapter
        self._room = room
        self._spec = spec

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self._spec.name,
            description=self._spec.description,
            parameters_json_schema=self._spec.parameters,
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the call on the room's current turn."""
        tools = self._room.tools
        if tools is None:
            return {"error": "Error: no Band turn"}
        call_id = tool_context.function_call_id or f"call_{uuid.uuid4().hex[:24]}"
        run = await self._adapter._run_band_tool(tools, self.name, args, call_id)
        return {"result": run.output} if run.ok else {"error": run.output}


@dataclass
class _Room:
    """One room's ADK agent, runner and session, and the turn they serve now."""

    runner: Runner
    session_id: str
    tools: AgentToolsProtocol | None = None


class GoogleADKAdapter(FrameworkAdapterBase[GoogleADKMessages]):
    """Runs each room's turns through its ADK runner and session."""

    PROVIDER = "google_adk"

    def __init__(
        self,
        config: GoogleADKAdapterConfig | None = None,
        *,
        history_converter: GoogleADKHistoryConverter | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        # kept typed: the session's opening transcript is the converter's rendering
        self._converter = history_converter or GoogleADKHistoryConverter()
        super().__init__(history_converter=self._converter, **features)
        self.config = config or GoogleADKAdapterConfig()
        self._take_custom_tools(additional_tools)
        self._rooms: dict[str, _Room] = {}
        self._system_prompt = ""

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Render the system prompt once the agent's name and description are known."""
        await super().on_started(agent_name, agent_description)
        self._system_prompt = self.config.system_prompt or self._band_prompt(
            self.config.custom_section
        )

    async def _room(self, room_id: str, tools: AgentToolsProtocol, fresh: bool) -> _Room:
        """The room's runner and session (new ones on a session bootstrap)."""
        room = self._rooms.get(room_id)
        if room is not None and not fresh:
            return room
        if room is not None:
            await _close(room)
        model = Gemini(
            model=self.config.model,
            retry_options=types.HttpRetryOptions(attempts=self.config.max_retries + 1),
        )
        agent = LlmAgent(
            name=_agent_name(self.agent_name), model=model, instruction=self._system_prompt
        )
        runner = Runner(agent=agent, app_name=_APP, session_service=InMemorySessionService())
        room = _Room(runner, str(uuid.uuid4()))
        agent.tools = [_BandTool(self, room, s) for s in self._band_specs(tools)]
        await runner.session_service.create_session(
            app_name=_APP, user_id=room_id, session_id=room.session_id
        )
        self._rooms[room_id] = room
        return room

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: GoogleADKMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: the message to the room's ADK session."""
        room = await self._room(room_id, tools, is_session_bootstrap)
        room.tools = tools
        parts = []
        if is_session_bootstrap and history:
            transcript = self._transcript(history)
            if transcript:
                parts.append(f"[Earlier in this room]\n{transcript}\n[End of the earlier messages]")
        parts.extend(f"[System]: {n}" for n in (participants_msg, contacts_msg) if n)
        parts.append(msg.format_for_llm())
        content = types.Content(role="user", parts=[types.Part.from_text(text="\n\n".join(parts))])
        usage = empty_usage()
        text = ""
        try:
            failure: ProviderRunError | None = None
            try:
                async for event in room.runner.run_async(
                    user_id=room_id, session_id=room.session_id, new_message=content
                ):
                    _add(usage, event)
                    if event.error_code and event.error_code not in _NOT_FAILURES:
                        failure = ProviderRunError(str(event.error_code), event.error_message)
                    if event.is_final_response() and event.content and event.content.parts:
                        text = "".join(p.text or "" for p in event.content.parts if not p.thought)
                if failure is not None:
                    raise failure
            except Exception as exc:
                code = exc.code if isinstance(exc, ProviderRunError) else None
                await self._run_failed(tools, room_id, exc, code)
                # a broken session: the next turn opens one
                if (broken := self._rooms.pop(room_id, None)) is not None:
                    await _close(broken)
                raise
            await self._close(tools, msg, text.strip())
        finally:
            await self._send_usage(tools, usage)

    def _transcript(self, history: GoogleADKMessages) -> str:
        """The room's earlier contents as the converter renders them, newest kept within the
        configured bounds."""
        text = self._converter.format_transcript(history[-self.config.max_history_messages :])
        return text[-self.config.max_transcript_chars :]

    async def on_cleanup(self, room_id: str) -> None:
        """Close the room's runner (its session goes with it)."""
        room = self._rooms.pop(room_id, None)
        if room is not None:
            await _close(room)

    async def cleanup_all(self) -> None:
        """The agent stops: every room's runner and model client are closed."""
        for room_id in list(self._rooms):
            await self.on_cleanup(room_id)


async def _close(room: _Room) -> None:
    """Close a room's runner and its model's HTTP client."""
    try:
        await room.runner.close()
    finally:
        model = getattr(room.runner.agent, "model", None)
        aclose = getattr(model, "aclose", None)
        if aclose is not None:
            await aclose()


def _agent_name(name: str) -> str:
    """An ADK agent name (an identifier) from the Band agent's name."""
    cleaned = re.sub(r"\W", "_", name or "band_agent")
    return cleaned if cleaned[:1].isalpha() or cleaned[:1] == "_" else f"agent_{cleaned}"


def _add(usage: dict[str, int], event: Any) -> None:
    """Add an event's token counts."""
    meta = getattr(event, "usage_metadata", None)
    if meta is None:
        return
    for key, name in (
        ("input_tokens", "prompt_token_count"),
        ("output_tokens", "candidates_token_count"),
        ("cache_read_tokens", "cached_content_token_count"),
    ):
        value = getattr(meta, name, None)
        usage[key] += value if isinstance(value, int) else 0
