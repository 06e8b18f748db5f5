"""band.integrations.crewai (band-sdk 6.0.1's CrewAI helpers) in the venv ``make test-crewai``
builds: the Band tools ``build_band_crewai_tools`` hands out, in a real crew of the caller's
own, post a real message on band dev (CrewAI's OpenAI LLM is band.testing's ScriptedModel);
the reporters, the reply tracker, the sync-to-async bridge and the result texts."""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from typing import Any

import pytest
from adapters.framework_helpers import events, settled, start
from crewai import LLM, Crew, Task
from crewai import Agent as CrewAIAgent
from crewai.agents.step_executor import StepExecutor
from pydantic import BaseModel

from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import AdapterFeatures, Emit, PlatformMessage
from band.integrations.crewai import (
    CrewAIToolContext,
    CrewAIToolReporter,
    EmitToolCallsReporter,
    NoopReporter,
    ReplyTracker,
    build_band_crewai_tools,
    run_async,
    serialize_success_result,
)
from band.integrations.crewai.tools import vision_sentinel
from band.runtime.capabilities import Capability
from band.testing import LocalBand, ScriptedModel, TextTurn, ToolTurn

ROOM: contextvars.ContextVar[CrewAIToolContext | None] = contextvars.ContextVar(
    "room", default=None
)


@pytest.fixture(autouse=True)
def _no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWAI_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")


class OwnCrewAdapter(SimpleAdapter[Any]):
    """A crew of the caller's own with the built tools, the room in a ContextVar."""

    SUPPORTED_EMIT = frozenset({Emit.TOOL_CALLS})
    SUPPORTED_CAPABILITIES = frozenset({Capability.MEMORY})

    def __init__(self, reporter: CrewAIToolReporter | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.reporter = reporter
        self.trackers: list[ReplyTracker] = []

    async def on_message(
        self, msg: PlatformMessage, tools: AgentToolsProtocol, *_: Any, **__: Any
    ) -> None:
        tracker = ReplyTracker()
        self.trackers.append(tracker)
        ROOM.set(CrewAIToolContext(msg.room_id, tools, reply_tracker=tracker))
        crew_tools = build_band_crewai_tools(
            get_context=ROOM.get,
            reporter=self.reporter or EmitToolCallsReporter(self.features),
            features=self.features,
            fallback_loop=asyncio.get_running_loop(),
        )
        agent = CrewAIAgent(
            role="Helper",
            goal="Answer the room",
            backstory="You answer with band_send_message.",
            llm=LLM(model="openai/gpt-5-mini"),
            tools=crew_tools,
            max_iter=3,
        )
        task = Task(description=msg.format_for_llm(), expected_output="a reply", agent=agent)
        # CrewAI runs its tools in this worker thread; the ContextVar goes with it
        await asyncio.to_thread(Crew(agents=[agent], tasks=[task]).kickoff)


def test_the_built_tools_post_a_real_message_from_a_real_crew(
    model: ScriptedModel, band_platform: LocalBand
) -> None:
    model.script(
        ToolTurn("band_send_message", {"content": "hi from the crew", "mentions": ["@local"]}),
        TextTurn("done"),
    )
    adapter = OwnCrewAdapter(emit=Emit.TOOL_CALLS)
    bot, room = start(band_platform, adapter)
    mid = room.say("greet me", mention=bot)
    reply = room.wait_for_reply(bot, after=mid, timeout=60)
    assert reply.text == "hi from the crew"
    settled(room, mid, bot, "processed", timeout=60)  # the reply counted in the turn
    first = model.requests[0]
    assert "band_send_message" in first.tool_names and "band_store_memory" not in first.tool_names
    [(_, output)] = model.requests[1].tool_results
    assert reply.id in output  # the platform's answer went back to the model
    [call] = events(room, bot, "tool_call")
    [result] = events(room, bot, "tool_result")
    assert call["name"] == "band_send_message" and call["tool_call_id"] == result["tool_call_id"]
    assert not result["is_error"] and reply.id in result["output"]
    [tracker] = adapter.trackers
    assert tracker.any_tool_ran and tracker.posts == ["(to @local) hi from the crew"]


class Recorder:
    """A reporter of the caller's own (no call ids)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, Any]] = []

    async def report_call(
        self, tools: AgentToolsProtocol, tool_name: str, input_data: dict[str, Any]
    ) -> None:
        self.seen.append(("call", tool_name, input_data))

    async def report_result(
        self, tools: AgentToolsProtocol, tool_name: str, result: Any, is_error: bool = False
    ) -> None:
        self.seen.append(("result", tool_name, is_error))


@pytest.mark.parametrize("kind", ["noop", "own"])
def test_the_reporter_decides_the_events(
    kind: str, model: ScriptedModel, band_platform: LocalBand
) -> None:
    model.script(
        ToolTurn("band_get_memory", {"memory_id": "nope"}),
        ToolTurn("band_send_message", {"content": "no such memory", "mentions": ["@local"]}),
        TextTurn("done"),
    )
    reporter: CrewAIToolReporter = NoopReporter() if kind == "noop" else Recorder()
    assert isinstance(reporter, CrewAIToolReporter)
    adapter = OwnCrewAdapter(reporter, emit=Emit.TOOL_CALLS, capabilities=Capability.MEMORY)
    bot, room = start(band_platform, adapter)
    mid = room.say("recall it", mention=bot)
    assert room.wait_for_reply(bot, after=mid, timeout=60).text == "no such memory"
    settled(room, mid, bot, "processed", timeout=60)
    assert events(room, bot, "tool_call") == [] and events(room, bot, "tool_result") == []
    if isinstance(reporter, Recorder):
        assert [(s[0], s[1]) for s in reporter.seen] == [
            ("call", "band_get_memory"),
            ("result", "band_get_memory"),
            ("call", "band_send_message"),
            ("result", "band_send_message"),
        ]
        assert reporter.seen[1][2] is True and reporter.seen[3][2] is False  # is_error
    [tracker] = adapter.trackers
    assert tracker.posts == ["(to @local) no such memory"]  # the failed call posted nothing


def test_without_a_room_context_a_tool_says_so() -> None:
    [tool] = build_band_crewai_tools(
        get_context=lambda: None,
        reporter=NoopReporter(),
        features=AdapterFeatures(include_tools=frozenset({"band_send_message"})),
    )
    answer = json.loads(tool.run(content="hi", mentions=["@x"]))
    assert answer["status"] == "error" and "outside a Band turn" in answer["message"]


def test_capabilities_features_and_custom_tools_select_the_tools() -> None:
    class FileTicket(BaseModel):
        """File a ticket."""

        title: str

    def names(**kw: Any) -> list[str]:
        return [
            t.name
            for t in build_band_crewai_tools(get_context=ROOM.get, reporter=NoopReporter(), **kw)
        ]

    plain = names()
    assert "band_send_message" in plain and not any("memor" in n for n in plain)
    assert "band_store_memory" in names(capabilities=frozenset({Capability.MEMORY}))
    only = names(features=AdapterFeatures(include_tools=frozenset({"band_no_reply"})))
    assert only == ["band_no_reply"]
    custom = names(custom_tools=[(FileTicket, lambda a: f"filed {a.title}")])
    assert custom[-1] == "fileticket" and custom[:-1] == plain


def test_run_async_from_a_worker_thread_plain_code_and_a_running_loop() -> None:
    async def where() -> int:
        await asyncio.sleep(0)
        return threading.get_ident()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        on_loop = threading.get_ident()
        # a worker thread: on the fallback loop
        assert await asyncio.to_thread(run_async, where(), loop) == on_loop
        # called on the running loop's own thread: a helper thread runs it
        assert run_async(where(), loop) != on_loop

    asyncio.run(main())
    assert run_async(where()) == threading.get_ident()  # no loop: a new one, here
    with pytest.raises(ZeroDivisionError):
        run_async(_fails())


async def _fails() -> None:
    raise ZeroDivisionError


def test_serialize_success_result_keeps_a_results_own_status() -> None:
    class Item(BaseModel):
        id: str

    assert json.loads(serialize_success_result({"id": "t1", "status": "open"})) == {
        "status": "success",
        "id": "t1",
        "result_status": "open",
    }
    assert json.loads(serialize_success_result(["a"])) == {"status": "success", "result": ["a"]}
    assert json.loads(serialize_success_result(Item(id="x"))) == {"status": "success", "id": "x"}
    assert json.loads(serialize_success_result("sent")) == {"status": "success", "result": "sent"}


def test_vision_sentinel_is_an_image_to_crewai() -> None:
    result = {"content": [{"type": "image", "mimeType": "image/png", "data": "aGVsbG8="}]}
    sentinel = vision_sentinel(result)
    assert StepExecutor._parse_vision_sentinel(sentinel) == ("image/png", "aGVsbG8=")
    message = StepExecutor._build_observation_message(sentinel)
    url = message["content"][1]["image_url"]["url"]
    assert url == "data:image/png;base64,aGVsbG8="
