"""band.integrations.pydantic_ai.tools (band-sdk 6.0.1's ``build_band_pydantic_ai_tools``): the
Band tools it builds, given to a real Pydantic AI agent of the caller's own, post a real
message on a real local platform; the model is band.testing's scripted model server."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import AdapterFeatures, Emit, PlatformMessage
from band.integrations.pydantic_ai.tools import build_band_pydantic_ai_tools
from band.runtime.capabilities import Capability
from band.testing import LocalBand, ScriptedModel, TextTurn, ToolTurn

from .framework_helpers import events, settled, start


def _llm(model: ScriptedModel) -> OpenAIChatModel:
    client = AsyncOpenAI(api_key=model.api_key, base_url=model.openai_base_url, max_retries=0)
    return OpenAIChatModel("scripted-model", provider=OpenAIProvider(openai_client=client))


class OwnAgentAdapter(SimpleAdapter[Any]):
    """A Pydantic AI agent of the caller's own with the built tools; deps are the turn's tools."""

    SUPPORTED_EMIT = frozenset({Emit.TOOL_CALLS})
    SUPPORTED_CAPABILITIES = frozenset({Capability.MEMORY})

    def __init__(self, model: ScriptedModel, **kw: Any) -> None:
        super().__init__(**kw)
        self.agent: Agent[AgentToolsProtocol, str] = Agent(
            _llm(model),
            deps_type=AgentToolsProtocol,
            tools=build_band_pydantic_ai_tools(self.features),
            instructions="You are in a Band room.",
        )
        self.outputs: list[str] = []

    async def on_message(
        self, msg: PlatformMessage, tools: AgentToolsProtocol, *_: Any, **__: Any
    ) -> None:
        result = await self.agent.run(msg.format_for_llm(), deps=tools)
        self.outputs.append(result.output)


def test_the_built_tools_post_a_real_message_from_a_real_agent(
    model: ScriptedModel, band: LocalBand
) -> None:
    model.script(
        ToolTurn("band_send_message", {"content": "hi from pydantic-ai", "mentions": ["@local"]}),
        TextTurn("sent it"),
    )
    adapter = OwnAgentAdapter(model, emit=Emit.TOOL_CALLS)
    bot, room = start(band, adapter)
    mid = room.say("say hi", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    assert reply.text == "hi from pydantic-ai"
    settled(room, mid, bot, "processed")  # the reply counted in the turn
    assert adapter.outputs == ["sent it"]
    first, second = model.requests[0], model.requests[1]
    assert "band_send_message" in first.tool_names and "band_store_memory" not in first.tool_names
    [(call_id, output)] = second.tool_results
    assert reply.id in output
    [call] = events(room, bot, "tool_call")
    [result] = events(room, bot, "tool_result")
    assert call["tool_call_id"] == call_id == result["tool_call_id"]
    assert call["args"] == {"content": "hi from pydantic-ai", "mentions": ["@local"]}


def test_a_failed_call_is_text_for_the_model(model: ScriptedModel, band: LocalBand) -> None:
    model.script(
        ToolTurn("band_get_memory", {"memory_id": "no-such-memory"}),
        ToolTurn("band_send_message", {"content": "could not find it", "mentions": ["@local"]}),
        TextTurn(""),
    )
    adapter = OwnAgentAdapter(model, capabilities=Capability.MEMORY)
    bot, room = start(band, adapter)
    mid = room.say("recall it", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "could not find it"
    [(_, error)] = model.requests[1].tool_results
    assert "rror" in error  # the platform's failure, given back to the model


def test_features_select_the_tools() -> None:
    names = lambda f: [t.name for t in build_band_pydantic_ai_tools(f)]  # noqa: E731
    plain = names(AdapterFeatures())
    assert "band_send_message" in plain and not any("memor" in n for n in plain)
    memory = names(AdapterFeatures(capabilities=frozenset({Capability.MEMORY})))
    assert "band_store_memory" in memory
    only = names(AdapterFeatures(include_tools=frozenset({"band_send_message", "band_no_reply"})))
    assert only == ["band_send_message", "band_no_reply"]
    [tool] = build_band_pydantic_ai_tools(
        AdapterFeatures(include_tools=frozenset({"band_send_message"}))
    )
    assert tool.takes_ctx and tool.tool_def.parameters_json_schema["required"] == [
        "content",
        "mentions",
    ]


def test_without_pydantic_ai_the_import_is_one_line() -> None:
    code = (
        "import sys; sys.modules['pydantic_ai'] = None\n"
        "for name in ('band.integrations.pydantic_ai', 'band.integrations.pydantic_ai.tools'):\n"
        "    try:\n        __import__(name)\n"
        "    except ImportError as exc:\n        print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    line = (
        "band.integrations.pydantic_ai needs the [pydantic-ai] extra: "
        "pip install 'band-open-sdk[pydantic-ai]'"
    )
    assert done.stdout.splitlines() == [line, line]
