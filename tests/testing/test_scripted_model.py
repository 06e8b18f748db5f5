"""``band.testing.ScriptedModel`` driven by the providers' real SDKs: ``openai`` (Chat
Completions and Responses), ``anthropic`` (Messages, count_tokens) and ``google-genai``
(generateContent, streamGenerateContent, countTokens), streamed and not, with tool-call
round trips, a 429 the SDK retries after Retry-After, a 401 and a 5xx in each provider's
error shape, and what the model records of every call."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator

import anthropic
import httpx
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as gtypes

from band.testing import (
    ErrorTurn,
    ModelRequest,
    ScriptedModel,
    TextTurn,
    ToolTurn,
)

WEATHER = {
    "type": "function",
    "function": {
        "name": "weather",
        "description": "The weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
#: Retry-After of the scripted 429s: long enough that an SDK's own backoff (well under a
#: second for a first retry) could not explain the gap
RETRY_AFTER = 2.0


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as served:
        yield served


def oai(model: ScriptedModel, **options: object) -> openai.OpenAI:
    return openai.OpenAI(base_url=model.openai_base_url, api_key=model.api_key, **options)


def claude(model: ScriptedModel, **options: object) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=model.anthropic_base_url,
        api_key=model.api_key,
        **options,
    )


def gem(model: ScriptedModel, key: str | None = None) -> genai.Client:
    return genai.Client(
        api_key=key or model.api_key,
        http_options=gtypes.HttpOptions(base_url=model.gemini_base_url),
    )


# -- OpenAI Chat Completions --


def test_openai_chat_text_and_what_it_records(model: ScriptedModel) -> None:
    model.script(TextTurn("Hello there"))
    reply = oai(model).chat.completions.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ],
        tools=[WEATHER],
    )
    assert reply.choices[0].message.content == "Hello there"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None and reply.usage.prompt_tokens > 0
    [call] = model.requests
    assert call.provider == "openai-chat" and call.path == "/v1/chat/completions"
    assert call.model == "gpt-test" and call.stream is False and call.status == 200
    assert call.system == "Be brief."
    assert call.messages == [("user", "Hi")] and call.prompt == "Hi"
    assert call.tool_names == ["weather"]


def test_openai_chat_streamed(model: ScriptedModel) -> None:
    model.script(TextTurn("Streamed words"))
    chunks = list(
        oai(model).chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "Hi"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Streamed words"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    assert model.requests[0].stream is True


def test_openai_chat_parallel_tool_calls_round_trip(model: ScriptedModel) -> None:
    model.script(
        [ToolTurn("weather", {"city": "Oslo"}), ToolTurn("weather", {"city": "Rome"}, id="c2")],
        TextTurn("Cold in Oslo, warm in Rome"),
    )
    client = oai(model)
    messages: list[dict[str, object]] = [{"role": "user", "content": "Weather?"}]
    first = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER])
    calls = first.choices[0].message.tool_calls or []
    assert first.choices[0].finish_reason == "tool_calls"
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("weather", {"city": "Oslo"}),
        ("weather", {"city": "Rome"}),
    ]
    assert calls[1].id == "c2"
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    for call in calls:
        city = json.loads(call.function.arguments)["city"]
        messages.append({"role": "tool", "tool_call_id": call.id, "content": f"{city}: ok"})
    second = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER])
    assert second.choices[0].message.content == "Cold in Oslo, warm in Rome"
    sent = model.requests[1]
    assert sent.tool_results == [(calls[0].id, "Oslo: ok"), ("c2", "Rome: ok")]
    assert [role for role, _ in sent.messages] == ["user", "assistant", "tool", "tool"]


def test_openai_chat_streamed_tool_call(model: ScriptedModel) -> None:
    model.script(ToolTurn("weather", {"city": "Oslo"}, text="Checking."))
    stream = oai(model).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "Weather?"}],
        tools=[WEATHER],
        stream=True,
    )
    text, args, names, reasons = "", "", [], []
    for chunk in stream:
        delta = chunk.choices[0].delta
        text += delta.content or ""
        for call in delta.tool_calls or []:
            names.append(call.function.name if call.function else None)
            args += (call.function.arguments or "") if call.function else ""
        reasons.append(chunk.choices[0].finish_reason)
    assert text == "Checking." and names == ["weather"] and json.loads(args) == {"city": "Oslo"}
    assert reasons[-1] == "tool_calls"


def test_openai_429_is_retried_after_retry_after(model: ScriptedModel) -> None:
    model.script(ErrorTurn(status=429, retry_after=RETRY_AFTER), TextTurn("After the wait"))
    reply = oai(model, max_retries=2).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "Hi"}]
    )
    assert reply.choices[0].message.content == "After the wait"
    limited, answered = model.requests
    assert (limited.status, answered.status) == (429, 200)
    assert answered.received_at - limited.received_at >= RETRY_AFTER


def test_openai_401_and_5xx(model: ScriptedModel) -> None:
    with pytest.raises(openai.AuthenticationError) as denied:
        openai.OpenAI(base_url=model.openai_base_url, api_key="wrong").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Hi"}]
        )
    assert denied.value.status_code == 401 and denied.value.code == "invalid_api_key"
    assert model.requests[0].status == 401 and model.remaining == 0
    model.script(ErrorTurn(status=503, message="overloaded right now"))
    with pytest.raises(openai.InternalServerError) as broken:
        oai(model, max_retries=0).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Hi"}]
        )
    assert broken.value.status_code == 503 and "overloaded right now" in str(broken.value)


# -- OpenAI Responses --

RESPONSES_TOOL = {
    "type": "function",
    "name": "weather",
    "description": "The weather in a city",
    "parameters": WEATHER["function"]["parameters"],
    "strict": False,
}


def test_openai_responses_text_and_stream(model: ScriptedModel) -> None:
    model.script(TextTurn("Plain answer"), TextTurn("Streamed answer", thinking="Let me think"))
    client = oai(model)
    first = client.responses.create(model="m", instructions="Be kind.", input="Hello")
    assert first.output_text == "Plain answer" and first.status == "completed"
    assert first.usage is not None and first.usage.output_tokens > 0
    with client.responses.stream(model="m", input="Again") as stream:
        deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == "Streamed answer" and final.output_text == "Streamed answer"
    assert [item.type for item in final.output] == ["reasoning", "message"]
    one, two = model.requests
    assert (one.provider, one.system, one.messages) == (
        "openai-responses",
        "Be kind.",
        [("user", "Hello")],
    )
    assert two.stream is True and two.prompt == "Again"


def test_openai_responses_tool_call_round_trip(model: ScriptedModel) -> None:
    model.script(ToolTurn("weather", {"city": "Oslo"}), TextTurn("Oslo is cold"))
    client = oai(model)
    first = client.responses.create(model="m", input="Weather?", tools=[RESPONSES_TOOL])
    [call] = [item for item in first.output if item.type == "function_call"]
    assert (call.name, json.loads(call.arguments)) == ("weather", {"city": "Oslo"})
    second = client.responses.create(
        model="m",
        input=[
            {"role": "user", "content": "Weather?"},
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            },
            {"type": "function_call_output", "call_id": call.call_id, "output": "-5C"},
        ],
        tools=[RESPONSES_TOOL],
    )
    assert second.output_text == "Oslo is cold"
    assert model.requests[0].tool_names == ["weather"]
    assert model.requests[1].tool_results == [(call.call_id, "-5C")]


def test_openai_responses_streamed_tool_call(model: ScriptedModel) -> None:
    model.script(ToolTurn("weather", {"city": "Rome"}))
    with oai(model).responses.stream(model="m", input="Weather?", tools=[RESPONSES_TOOL]) as stream:
        done = [e for e in stream if e.type == "response.function_call_arguments.done"]
        final = stream.get_final_response()
    assert json.loads(done[0].arguments) == {"city": "Rome"}
    [call] = [item for item in final.output if item.type == "function_call"]
    assert call.name == "weather"


# -- Anthropic Messages --

ANTHROPIC_TOOL = {
    "name": "weather",
    "description": "The weather in a city",
    "input_schema": WEATHER["function"]["parameters"],
}


def test_anthropic_text_stream_and_count_tokens(model: ScriptedModel) -> None:
    model.script(TextTurn("Hi from Claude"), TextTurn("Streamed", thinking="Hmm"))
    client = claude(model)
    message = client.messages.create(
        model="claude-test",
        max_tokens=100,
        system="You are terse.",
        messages=[{"role": "user", "content": "Hello"}],
        tools=[ANTHROPIC_TOOL],
    )
    assert [b.text for b in message.content if b.type == "text"] == ["Hi from Claude"]
    assert message.stop_reason == "end_turn" and message.usage.input_tokens > 0
    with client.messages.stream(
        model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "More"}]
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Streamed"
    assert [b.type for b in final.content] == ["thinking", "text"]
    counted = client.messages.count_tokens(
        model="claude-test", messages=[{"role": "user", "content": "Hello"}]
    )
    assert counted.input_tokens > 0
    one, two = model.requests  # count_tokens is not a model call
    assert (one.provider, one.system, one.tool_names) == (
        "anthropic",
        "You are terse.",
        ["weather"],
    )
    assert two.stream is True and two.messages == [("user", "More")]
    assert [r.path for r in model.other_requests] == ["POST /v1/messages/count_tokens"]


def test_anthropic_parallel_tool_calls_round_trip(model: ScriptedModel) -> None:
    model.script(
        [ToolTurn("weather", {"city": "Oslo"}), ToolTurn("weather", {"city": "Rome"})],
        TextTurn("Both done"),
    )
    client = claude(model)
    history: list[dict[str, object]] = [{"role": "user", "content": "Weather?"}]
    first = client.messages.create(
        model="c",
        max_tokens=100,
        messages=history,
        tools=[ANTHROPIC_TOOL],
    )
    uses = [b for b in first.content if b.type == "tool_use"]
    assert first.stop_reason == "tool_use"
    assert [(u.name, u.input) for u in uses] == [
        ("weather", {"city": "Oslo"}),
        ("weather", {"city": "Rome"}),
    ]
    history.append({"role": "assistant", "content": [u.model_dump() for u in uses]})
    history.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": u.id, "content": f"result {i}"}
                for i, u in enumerate(uses)
            ],
        }
    )
    second = client.messages.create(
        model="c",
        max_tokens=100,
        messages=history,
        tools=[ANTHROPIC_TOOL],
    )
    assert second.content[0].type == "text" and second.content[0].text == "Both done"
    assert model.requests[1].tool_results == [(uses[0].id, "result 0"), (uses[1].id, "result 1")]


def test_anthropic_streamed_tool_call(model: ScriptedModel) -> None:
    model.script(ToolTurn("weather", {"city": "Oslo"}, text="Let me check."))
    with claude(model).messages.stream(
        model="c",
        max_tokens=100,
        messages=[{"role": "user", "content": "Weather?"}],
        tools=[ANTHROPIC_TOOL],
    ) as stream:
        final = stream.get_final_message()
    assert [b.type for b in final.content] == ["text", "tool_use"]
    assert final.content[1].input == {"city": "Oslo"}


def test_anthropic_429_retry_401_and_5xx(model: ScriptedModel) -> None:
    model.script(ErrorTurn(status=429, retry_after=RETRY_AFTER), TextTurn("Now"))
    message = claude(model, max_retries=2).messages.create(
        model="c", max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
    )
    assert message.content[0].type == "text" and message.content[0].text == "Now"
    limited, answered = model.requests
    assert answered.received_at - limited.received_at >= RETRY_AFTER
    with pytest.raises(anthropic.AuthenticationError) as denied:
        anthropic.Anthropic(base_url=model.anthropic_base_url, api_key="wrong").messages.create(
            model="c", max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
        )
    assert denied.value.status_code == 401
    assert denied.value.body["error"]["type"] == "authentication_error"
    model.script(ErrorTurn(status=529, message="Overloaded"))
    with pytest.raises(anthropic.APIStatusError) as broken:
        claude(model, max_retries=0).messages.create(
            model="c", max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
        )
    assert broken.value.status_code == 529 and "Overloaded" in str(broken.value)


# -- Gemini --

GEMINI_TOOL = gtypes.Tool(
    function_declarations=[
        gtypes.FunctionDeclaration(
            name="weather",
            description="The weather in a city",
            parameters_json_schema=WEATHER["function"]["parameters"],
        )
    ]
)


def test_gemini_text_stream_and_count_tokens(model: ScriptedModel) -> None:
    model.script(TextTurn("Hi from Gemini"), TextTurn("Streamed Gemini", thinking="pondering"))
    client = gem(model)
    config = gtypes.GenerateContentConfig(system_instruction="Be helpful.", tools=[GEMINI_TOOL])
    reply = client.models.generate_content(model="gemini-test", contents="Hello", config=config)
    assert reply.text == "Hi from Gemini"
    assert reply.usage_metadata is not None and reply.usage_metadata.prompt_token_count
    chunks = list(client.models.generate_content_stream(model="gemini-test", contents="More"))
    texts = [p.text for c in chunks for p in c.candidates[0].content.parts if not p.thought]
    assert "".join(t or "" for t in texts) == "Streamed Gemini"
    counted = client.models.count_tokens(model="gemini-test", contents="Hello")
    assert counted.total_tokens and counted.total_tokens > 0
    one, two = model.requests
    assert (one.provider, one.model, one.system) == ("gemini", "gemini-test", "Be helpful.")
    assert one.tool_names == ["weather"] and one.messages == [("user", "Hello")]
    assert two.stream is True and two.path.endswith(":streamGenerateContent")


def test_gemini_tool_call_round_trip(model: ScriptedModel) -> None:
    model.script(
        [ToolTurn("weather", {"city": "Oslo"}), ToolTurn("weather", {"city": "Rome"})],
        TextTurn("Gemini says both"),
    )
    client = gem(model)
    config = gtypes.GenerateContentConfig(tools=[GEMINI_TOOL])
    history: list[gtypes.Content] = [
        gtypes.Content(role="user", parts=[gtypes.Part(text="Weather?")])
    ]
    first = client.models.generate_content(model="g", contents=history, config=config)
    calls = first.function_calls or []
    assert [(c.name, c.args) for c in calls] == [
        ("weather", {"city": "Oslo"}),
        ("weather", {"city": "Rome"}),
    ]
    history.append(first.candidates[0].content)
    history.append(
        gtypes.Content(
            role="user",
            parts=[
                gtypes.Part.from_function_response(name="weather", response={"temp": t})
                for t in (-5, 20)
            ],
        )
    )
    second = client.models.generate_content(model="g", contents=history, config=config)
    assert second.text == "Gemini says both"
    assert model.requests[1].tool_results == [
        ("weather", '{"temp": -5}'),
        ("weather", '{"temp": 20}'),
    ]


def test_gemini_401_429_and_5xx(model: ScriptedModel) -> None:
    # (a client is kept in a name: a dropped google-genai client closes its connection pool)
    stranger, client = gem(model, key="wrong"), gem(model)
    with pytest.raises(genai_errors.ClientError) as denied:
        stranger.models.generate_content(model="g", contents="Hi")
    assert denied.value.code == 401 and denied.value.status == "UNAUTHENTICATED"
    model.script(ErrorTurn(status=429, retry_after=1), ErrorTurn(status=500, message="boom"))
    with pytest.raises(genai_errors.ClientError) as limited:
        client.models.generate_content(model="g", contents="Hi")
    assert limited.value.code == 429 and limited.value.status == "RESOURCE_EXHAUSTED"
    with pytest.raises(genai_errors.ServerError) as broken:
        client.models.generate_content(model="g", contents="Hi")
    assert broken.value.code == 500 and broken.value.message == "boom"
    assert [r.status for r in model.requests] == [401, 429, 500]


def test_gemini_429_retried_by_the_sdk_when_asked(model: ScriptedModel) -> None:
    model.script(ErrorTurn(status=429), TextTurn("Retried"))
    client = genai.Client(
        api_key=model.api_key,
        http_options=gtypes.HttpOptions(
            base_url=model.gemini_base_url,
            retry_options=gtypes.HttpRetryOptions(attempts=2, initial_delay=0.1),
        ),
    )
    assert client.models.generate_content(model="g", contents="Hi").text == "Retried"
    assert [r.status for r in model.requests] == [429, 200]


# -- the script itself --


def test_exhausted_script_answers_and_records(model: ScriptedModel) -> None:
    reply = oai(model).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "?"}]
    )
    assert reply.choices[0].message.content == model.when_exhausted
    assert len(model.requests) == 1


def test_a_tool_name_resolves_to_the_offered_tool_it_ends() -> None:
    offered = {**ANTHROPIC_TOOL, "name": "mcp__band__band_send_message"}
    with ScriptedModel([ToolTurn("band_send_message", {"content": "x"})]) as model:
        message = claude(model).messages.create(
            model="c",
            max_tokens=10,
            messages=[{"role": "user", "content": "Hi"}],
            tools=[offered],
        )
    assert message.content[0].name == "mcp__band__band_send_message"


def test_a_responder_answers_before_the_script() -> None:
    def respond(request: ModelRequest) -> TextTurn | None:
        return TextTurn("side answer") if not request.tool_names else None

    with ScriptedModel([TextTurn("scripted")], respond=respond) as model:
        client = claude(model)
        side = client.messages.create(
            model="c", max_tokens=10, messages=[{"role": "user", "content": "title?"}]
        )
        main = client.messages.create(
            model="c",
            max_tokens=10,
            messages=[{"role": "user", "content": "Hi"}],
            tools=[ANTHROPIC_TOOL],
        )
    assert side.content[0].text == "side answer"
    assert main.content[0].text == "scripted"


def test_a_list_in_the_script_must_hold_tool_turns() -> None:
    with pytest.raises(TypeError, match="ToolTurns only"):
        ScriptedModel([[TextTurn("no")]])


def test_a_held_stream_is_cut_when_the_client_goes_away(model: ScriptedModel) -> None:
    """A ``hold`` keeps the stream open after its text; the client closing it ends the call
    (an interrupted agent) and the model answers the next call at once."""
    model.script(TextTurn("partial", hold=60), TextTurn("next"))
    client = claude(model)
    with client.messages.stream(
        model="c", max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
    ) as stream:
        for text in stream.text_stream:
            assert text == "partial"
            break  # leaving the block closes the connection mid-stream
    reply = client.messages.create(
        model="c", max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
    )
    assert reply.content[0].text == "next"


def test_wait_for_requests_sync_and_async(model: ScriptedModel) -> None:
    model.script(TextTurn("slow", delay=0.2))
    done = threading.Event()

    def call() -> None:
        oai(model).chat.completions.create(model="m", messages=[{"role": "user", "content": "Hi"}])
        done.set()

    worker = threading.Thread(target=call)
    worker.start()
    [seen] = model.wait_for_requests_sync(1, timeout=30)
    assert seen.prompt == "Hi"
    assert len(asyncio.run(model.wait_for_requests(1, timeout=30))) == 1
    worker.join(30)
    assert done.is_set()
    with pytest.raises(TimeoutError, match="1 of 2 model calls"):
        asyncio.run(model.wait_for_requests(2, timeout=0.05))


def test_env_points_the_sdks_here(model: ScriptedModel) -> None:
    env = model.env()
    assert env["OPENAI_BASE_URL"] == model.openai_base_url.rstrip("/")
    assert env["ANTHROPIC_API_KEY"] == env["GEMINI_API_KEY"] == model.api_key
    response = httpx.get(f"{model.openai_base_url}/models")
    assert response.json()["data"][0]["id"] == "scripted"


def test_async_clients_and_context() -> None:
    asyncio.run(async_clients())


async def async_clients() -> None:
    async with ScriptedModel([TextTurn("async openai"), TextTurn("async claude")]) as served:
        got = await openai.AsyncOpenAI(
            base_url=served.openai_base_url, api_key=served.api_key
        ).chat.completions.create(model="m", messages=[{"role": "user", "content": "Hi"}])
        assert got.choices[0].message.content == "async openai"
        msg = await anthropic.AsyncAnthropic(
            base_url=served.base_url, api_key=served.api_key
        ).messages.create(model="c", max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
        assert msg.content[0].text == "async claude"
        assert len(await served.wait_for_requests(2, timeout=30)) == 2


def test_the_pytest_fixture_hands_out_a_started_model(scripted_model: ScriptedModel) -> None:
    scripted_model.script(TextTurn("from the fixture"))
    reply = oai(scripted_model).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "Hi"}]
    )
    assert reply.choices[0].message.content == "from the fixture"
