"""What the model adapters (Anthropic, OpenAI) share: the config base, the system prompt,
one tool call with its telemetry, the closing text and the usage event.

A model adapter's turn: the room's history and the new message go to the model with the
platform tools' schemas; each tool call the model makes runs through
``tools.execute_tool_call_structured`` (or a custom tool), its result goes back to the model,
and the loop ends when the model stops calling tools or after a successful
``band_no_reply``. The turn-outcome rule then judges the turn from what the tools recorded.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import json
import logging
import os
from abc import abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar, Unpack

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from band._extras import require
from band.core.exceptions import StartupError
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import FeatureKwargs, SimpleAdapter
from band.core.turn import AgentFailure
from band.core.types import AdapterFeatures, Emit, HistoryConverter, PlatformMessage
from band.core.wire import JsonObject, JsonValue
from band.runtime.capabilities import Capability
from band.runtime.prompts import render_system_prompt
from band.runtime.tools.custom import (
    CustomToolDef,
    custom_tools_to_schemas,
    execute_custom_tool,
    find_custom_tool,
    get_custom_tool_name,
    is_failed_tool_output,
    reject_conflicting_tool_names,
)

__all__ = [
    "GENERIC_PROVIDER_FAILURE_MESSAGE",
    "MAX_TOOL_ROUNDS",
    "USAGE_METADATA_KEY",
    "BaseAdapterConfig",
    "EventPoster",
    "PromptConfig",
    "ModelReply",
    "ToolRequest",
    "ToolRun",
    "ALL_CAPABILITIES",
    "post_tool_event",
    "relay_closing_text",
    "ModelAdapter",
    "RoomTranscripts",
    "run_tool_call",
    "send_usage",
]

log = logging.getLogger("band.adapters.model")

#: The failure text of a turn that broke without a provider status to report.
GENERIC_PROVIDER_FAILURE_MESSAGE = "Internal error while processing message; see agent logs."
#: The metadata key of the per-turn token usage on a ``task`` event (``Emit.USAGE``).
USAGE_METADATA_KEY = "band_usage"
#: Model calls one turn may make before the adapter stops asking (a model that never stops
#: calling tools would otherwise hold the room forever); the turn is then judged as it is.
MAX_TOOL_ROUNDS = 50
#: The text given back for a tool call the model made with arguments that are not an object.
BAD_ARGUMENTS = "Error: the tool arguments must be a JSON object"
#: The capabilities every model and framework adapter supports (its ``SUPPORTED_CAPABILITIES``).
ALL_CAPABILITIES = frozenset(
    {Capability.MEMORY, Capability.CONTACTS, Capability.TASKS, Capability.FILES}
)


T = TypeVar("T")


class RoomTranscripts(dict[str, list[T]]):
    """The transcript an adapter keeps of each room between turns (room id -> messages)."""

    def for_turn(self, room_id: str, history: Iterable[T], bootstrap: bool) -> list[T]:
        """The room's transcript for this turn: the converted room history on a session
        bootstrap, else what was kept of earlier turns (empty in a room new to the adapter)."""
        if bootstrap or room_id not in self:
            self[room_id] = list(history) if bootstrap else []
        return self[room_id]


class PromptConfig(BaseModel):
    """The settings every model adapter config starts with, in the order of band-sdk
    6.0.1's configs (a subclass gives ``model`` its default, which keeps its place);
    frozen, and an unknown field is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    provider_key: str | None = Field(default=None, repr=False)
    system_prompt: str | None = None
    custom_section: str = ""
    include_base_instructions: bool = True

    def render(self, features: AdapterFeatures, agent_name: str, agent_description: str) -> str:
        """The system prompt: ``system_prompt`` as it is, else Band's rendered one."""
        return self.system_prompt or render_system_prompt(
            agent_name=agent_name,
            agent_description=agent_description,
            custom_section=self.custom_section,
            include_base_instructions=self.include_base_instructions,
            features=features,
        )


class BaseAdapterConfig(PromptConfig):
    """The settings of the Anthropic and OpenAI adapter configs (band-sdk 6.0.1's
    ``AnthropicAdapterConfig``): the prompt settings and ``max_tokens``."""

    max_tokens: PositiveInt = 4096


#: A model adapter's history type: the converter's output, the provider's message dicts.
H = TypeVar("H", bound=list[JsonObject])
#: A model adapter's config type.
C = TypeVar("C", bound=PromptConfig)
#: A provider SDK's response (duck-typed: ``adapter.client`` may be any compatible client).
ProviderResponse = Any


@dataclass(frozen=True)
class ToolRequest:
    """One tool call a model asked for: the tool's name, its arguments and the call's id."""

    name: str
    arguments: JsonValue  # as the model wrote them: not always an object
    call_id: str


@dataclass(frozen=True)
class ModelReply:
    """What one model response says: its text, and the tool calls it asks for with the
    assistant message that carries them (no calls: the turn ends)."""

    text: str
    calls: list[ToolRequest] = field(default_factory=list)
    message: JsonObject = field(default_factory=dict)


class ModelAdapter(SimpleAdapter[H], Generic[H, C]):
    """What both model adapters keep per agent (the config, the provider's client, the
    custom tools, the system prompt rendered once the agent's name is known, each room's
    model history) and the turn loop they share; a subclass speaks its provider's API
    through the hooks below."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = ALL_CAPABILITIES
    #: the provider named in failures and custom tool schemas ("anthropic", "openai")
    PROVIDER: ClassVar[str]
    #: the API's name in the log line of a failed request (``{API_NAME}Adapter`` names the
    #: adapter in the missing-package error)
    API_NAME: ClassVar[str]
    #: the provider SDK's package and its async client class, imported when an adapter is
    #: built (an optional dependency)
    CLIENT: ClassVar[tuple[str, str]]
    #: the environment variable the client reads its key from, and where to get a key (""
    #: for an adapter whose key preflight does not check)
    KEY_ENV: ClassVar[str] = ""
    KEY_URL: ClassVar[str] = ""

    def __init__(
        self,
        config: C | None = None,
        *,
        history_converter: HistoryConverter[H] | None = None,
        additional_tools: list[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        default_config, default_converter = self._defaults()
        super().__init__(history_converter=history_converter or default_converter, **features)
        self.config: C = config or default_config
        self._custom_tools = check_custom_tools(additional_tools)
        self._history: RoomTranscripts[JsonObject] = RoomTranscripts()
        self._system_prompt = ""
        require(self._extra(), f"{self.API_NAME}Adapter")  # optional: say how to get it
        #: the provider's async client the turns use (replace it to point elsewhere);
        #: Any: an optional dependency, and any compatible client may replace it
        self.client: Any = None
        try:
            self.client = self._make_client()
        except Exception as exc:  # e.g. OpenAI's client refuses to exist without a key
            if self._has_key():
                raise
            log.debug("no %s client yet: %s", self.API_NAME, exc)  # preflight says why

    def _has_key(self) -> bool:
        """Whether a key is configured (``provider_key`` or the provider's variable; an
        adapter that names no variable builds its client its own way)."""
        return not self.KEY_ENV or bool(self.config.provider_key or os.environ.get(self.KEY_ENV))

    async def preflight(self) -> None:
        """Before the agent connects: a missing key, or one the provider refuses, is a
        ``StartupError`` naming the variable and where to get a key. A provider that cannot
        be reached is only a warning (its turns then report it). An adapter that names no
        key variable (``KEY_ENV``) is not checked."""
        if not self.KEY_ENV:
            return
        key = getattr(self.client, "api_key", None) if self.client is not None else None
        if not key and not getattr(self.client, "auth_token", None):
            raise StartupError(
                f"no {self.API_NAME} API key: {type(self).__name__} reads {self.KEY_ENV} "
                "(or AdapterConfig provider_key=), and it is not set.\n"
                f"Get a key at {self.KEY_URL}, then export {self.KEY_ENV}=..."
            )
        try:
            await self._check_key()
        except Exception as exc:
            status = getattr(exc, "status_code", None)
            if status in (401, 403):
                said = provider_message(exc)
                raise StartupError(
                    f"the {self.API_NAME} API refused the key in {self.KEY_ENV} "
                    f"(HTTP {status}: {said}).\n"
                    f"Check the key, or get a new one at {self.KEY_URL}"
                ) from exc
            log.warning("could not check the %s API key: %s", self.API_NAME, exc)

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Render the system prompt once the agent's name and description are known."""
        await super().on_started(agent_name, agent_description)
        self._system_prompt = self.config.render(self.features, agent_name, agent_description)

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
        """One turn: the message (and any room changes) to the model, then its tool calls."""
        messages = self._history.for_turn(room_id, history, is_session_bootstrap)
        notes = [f"[System]: {note}" for note in (participants_msg, contacts_msg) if note]
        messages.extend(self._user_messages([*notes, msg.format_for_llm()]))
        schemas = self._tool_schemas(tools)
        usage = empty_usage()
        try:
            for _ in range(self._max_rounds()):
                try:
                    response = await self._complete(messages, schemas)
                except Exception as exc:
                    # the card says what the provider said; the runtime logs the one line
                    # "turn ... failed: <it>" and does not run the message again
                    failure = self._failure(exc)
                    log.debug("room %s: %s request failed", room_id, self.API_NAME, exc_info=True)
                    await tools.send_failure(failure)
                    if not tools.turn.reported:
                        raise  # the card did not land: the runtime reports the turn
                    tools.turn.fail(failure.message)
                    return
                add_usage(usage, **self._usage(response))
                reply = self._read(response)
                if not reply.calls:
                    if reply.text:
                        messages.append(reply.message or self._assistant_message(reply.text))
                    await relay_closing_text(tools, msg, reply.text)
                    return
                runs, declined = await self._run_tools(tools, reply.calls)
                # the calls join the history with their results only: a turn interrupted
                # mid-call leaves none behind (a provider refuses a call without a result)
                messages.append(reply.message)
                messages.extend(self._tool_results(runs))
                if declined:  # a successful band_no_reply settled the turn: no follow-up
                    return
            log.warning("room %s: stopped after %d model calls", room_id, self._max_rounds())
        finally:
            await send_usage(tools, self.features, usage)

    async def _run_tools(
        self, tools: AgentToolsProtocol, calls: list[ToolRequest]
    ) -> tuple[list[tuple[ToolRequest, ToolRun]], bool]:
        """Run the calls in order; each with its run, and whether a successful
        ``band_no_reply`` (with every sibling call succeeding) ended the turn."""
        runs: list[tuple[ToolRequest, ToolRun]] = []
        declined = failed = False
        for call in calls:
            run = await run_tool_call(
                tools, self._custom_tools, self.features, call.name, call.arguments, call.call_id
            )
            declined = declined or (run.ok and call.name == "band_no_reply")
            failed = failed or not run.ok
            runs.append((call, run))
        return runs, declined and not failed

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's conversation."""
        self._history.pop(room_id, None)

    def _user_messages(self, texts: list[str]) -> list[JsonObject]:
        """The user-side messages of a turn (room notes, then the message), one per text."""
        return [{"role": "user", "content": text} for text in texts]

    def _assistant_message(self, text: str) -> JsonObject:
        """The model's closing text as a history message."""
        return {"role": "assistant", "content": text}

    def _tool_schemas(self, tools: AgentToolsProtocol) -> list[Mapping[str, object]]:
        """The platform tools' schemas, then the custom tools', in the provider's format."""
        schemas = list(self._platform_schemas(tools))
        schemas.extend(custom_tools_to_schemas(self._custom_tools, self.PROVIDER))
        return schemas

    def _failure(self, exc: Exception) -> AgentFailure:
        """The failure reported when a model call raised ``exc``."""
        return provider_failure(self.PROVIDER, exc, self.API_NAME, self.KEY_ENV)

    def _max_rounds(self) -> int:
        """Model calls one turn may make."""
        return MAX_TOOL_ROUNDS

    @abstractmethod
    def _defaults(self) -> tuple[C, HistoryConverter[H]]:
        """The config and history converter an adapter built without them uses."""

    def _extra(self) -> str:
        """The extra that installs the provider's SDK (its package's name)."""
        return self.CLIENT[0]

    def _make_client(self) -> Any:
        """The provider's async client, built from the config."""
        package, client_class = self.CLIENT
        return getattr(importlib.import_module(package), client_class)(**self._client_options())

    def _client_options(self) -> dict[str, object]:
        """The client's keyword arguments from the config (``provider_key`` None: the client
        reads the provider's environment variable)."""
        return {"api_key": self.config.provider_key}

    async def _check_key(self) -> None:
        """One cheap authenticated call (no tokens spent): raises the SDK's error on a bad key."""

    @abstractmethod
    def _platform_schemas(self, tools: AgentToolsProtocol) -> Sequence[Mapping[str, object]]:
        """The platform tools' schemas in the provider's format."""

    @abstractmethod
    async def _complete(
        self, messages: list[JsonObject], schemas: list[Mapping[str, object]]
    ) -> ProviderResponse:
        """One model call over the room's messages with the tool schemas."""

    @abstractmethod
    def _usage(self, response: ProviderResponse) -> dict[str, object]:
        """The response's token counts, by the keys of :func:`empty_usage`."""

    @abstractmethod
    def _read(self, response: ProviderResponse) -> ModelReply:
        """The response's text and tool calls."""

    @abstractmethod
    def _tool_results(self, runs: list[tuple[ToolRequest, ToolRun]]) -> list[JsonObject]:
        """The messages that give the tool calls' results back to the model."""


def provider_failure(
    provider: str, exc: Exception, api: str = "", key_env: str = ""
) -> AgentFailure:
    """The provider failure to report for ``exc``: the API's status and its own message, with
    what to do for a refused key (401/403), a rate limit (429) or a server error (5xx)."""
    api = api or provider
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        said = provider_message(exc)
        hint = ""
        if status in (401, 403):
            hint = f" (the API key was refused: check {key_env or 'the provider key'})"
        elif status == 429:
            hint = " (rate limited: try again later)"
        elif status >= 500:
            hint = " (the provider failed: try again later)"
        message = f"{api} API error {status}: {said}{hint}"
        return AgentFailure(provider, message, str(status), getattr(exc, "body", None))
    if type(exc).__name__ in ("APIConnectionError", "APITimeoutError"):
        return AgentFailure(provider, f"{api} API unreachable: {exc}", "connection")
    return AgentFailure(provider, GENERIC_PROVIDER_FAILURE_MESSAGE)


def provider_message(exc: Exception) -> str:
    """The provider's own error message from an SDK's status error (its body, else its text)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        found = inner.get("message") if isinstance(inner, dict) else body.get("message")
        if isinstance(found, str) and found:
            return found
    return str(getattr(exc, "message", None) or exc)


def check_custom_tools(tools: Sequence[CustomToolDef] | None) -> list[CustomToolDef]:
    """The custom tools as a list, refusing duplicate names and platform tool names."""
    listed = list(tools or [])
    reject_conflicting_tool_names(get_custom_tool_name(model) for model, _ in listed)
    return listed


#: Posts one ``tool_call`` / ``tool_result`` event body (kind, body).
EventPoster = Callable[[str, JsonObject], Awaitable[None]]


@dataclass(frozen=True)
class ToolRun:
    """One executed tool call: the text the model gets back and how it went."""

    output: str
    ok: bool
    is_error: bool


async def post_tool_event(
    tools: AgentToolsProtocol, features: AdapterFeatures, kind: str, body: JsonObject
) -> None:
    """With ``Emit.TOOL_CALLS``, post a ``tool_call`` / ``tool_result`` event; telemetry
    never breaks the turn."""
    if Emit.TOOL_CALLS not in features.emit:
        return
    try:
        await tools.send_event(json.dumps(body, default=str), kind, body)
    except Exception as exc:
        log.warning("could not post the %s event: %s", kind, exc)


async def run_tool_call(
    tools: AgentToolsProtocol,
    custom_tools: Sequence[CustomToolDef],
    features: AdapterFeatures,
    name: str,
    arguments: JsonValue,
    call_id: str,
    *,
    post: EventPoster | None = None,
) -> ToolRun:
    """Run one tool call the model made (a custom tool first, else a platform tool).

    With ``Emit.TOOL_CALLS`` the call and its result are posted as ``tool_call`` /
    ``tool_result`` events (``post``, given, posts them instead, ungated: a reporter of the
    caller's own). Failures become error text for the model, never exceptions.
    """
    if post is None:
        post = functools.partial(post_tool_event, tools, features)
    await post("tool_call", {"name": name, "args": arguments, "tool_call_id": call_id})
    try:
        if not isinstance(arguments, Mapping):
            value: JsonValue = BAD_ARGUMENTS
            ok = False
        elif (custom := find_custom_tool(custom_tools, name)) is not None:
            value = await execute_custom_tool(custom, arguments, turn=tools.turn)
            ok = not is_failed_tool_output(value)
        else:
            outcome = await tools.execute_tool_call_structured(name, arguments)
            value, ok = outcome.value, outcome.ok
        output = value if isinstance(value, str) else json.dumps(value, default=str)
        run = ToolRun(output, ok, is_error=not ok)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the model sees the failure and may try something else
        log.warning("tool %s failed: %s", name, exc)
        run = ToolRun(f"Error: {exc}", ok=False, is_error=True)
    await post(
        "tool_result",
        {"name": name, "output": run.output, "tool_call_id": call_id, "is_error": run.is_error},
    )
    return run


async def relay_closing_text(tools: AgentToolsProtocol, msg: PlatformMessage, text: str) -> None:
    """Post the model's closing text to the room when no tool replied or declined this turn.

    A successful reply or decline already answered, so the text is then not relayed (it
    would be a second message). The relay mentions the sender, as every message must.
    """
    if not text.strip() or tools.turn.replied:
        return
    try:
        await tools.send_message(text, [msg.sender_id])
    except Exception as exc:  # the turn-outcome rule reports the missing reply instead
        log.warning("could not relay the model's closing text to room %s: %s", msg.room_id, exc)


async def send_usage(
    tools: AgentToolsProtocol, features: AdapterFeatures, usage: Mapping[str, int]
) -> None:
    """With ``Emit.USAGE``, post the turn's token usage as a ``task`` event (not when empty)."""
    if Emit.USAGE not in features.emit or not any(usage.values()):
        return
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        return  # a turn being cancelled does no more network I/O
    content = f"Token usage: input={usage['input_tokens']} output={usage['output_tokens']}"
    try:
        await tools.send_event(content, "task", {USAGE_METADATA_KEY: dict(usage)})
    except Exception as exc:
        log.warning("could not post the usage event: %s", exc)


def add_usage(total: dict[str, int], **counts: object) -> None:
    """Add one model call's token counts (None counts as 0) to ``total``."""
    for key, value in counts.items():
        total[key] = total.get(key, 0) + (int(value) if isinstance(value, int) else 0)


def empty_usage() -> dict[str, int]:
    """A zero per-turn usage."""
    return {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0}
