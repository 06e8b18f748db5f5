"""examples/anthropic_agent.py and examples/openai_agent.py, run as their README says against
band dev, their provider SDK pointed at band.testing.ScriptedModel: the agent answers a
mention with the model's text, and a scripted ``band_send_message`` call is the reply (the
model's closing text is not posted a second time); and examples/test_my_agent.py, the test
users copy, passes under pytest as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from bandtest.platform import stop_process
from bandtest.process import run_ok

from band.testing import LocalBand, ScriptedModel, TextTurn, ToolTurn

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: how long one example may take to answer (a child process importing the SDKs on 2 busy cores)
ANSWER_S = 60.0


@pytest.fixture
def example_agent(
    request: pytest.FixtureRequest,
    band_platform: LocalBand,
    scripted_model: ScriptedModel,
    tmp_path: Path,
) -> Iterator[str]:
    """The example named by the test's parameter, running as a child process against
    ``band_platform`` and ``scripted_model``; yields the agent's id."""
    handle = band_platform.register_agent("Helper")
    creds = {"my_agent": {"agent_id": handle.id, "api_key": handle.api_key}}
    (tmp_path / "agent_config.yaml").write_text(yaml.safe_dump(creds))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("BAND_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))
    }
    env.update(BAND_REST_URL=band_platform.rest_url, BAND_WS_URL=band_platform.ws_url)
    env.update(scripted_model.env())
    with open(tmp_path / "stderr.log", "w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-I", str(EXAMPLES / request.param)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        yield handle.id
    finally:
        stop_process(proc)
    assert proc.returncode == 0, (tmp_path / "stderr.log").read_text()  # SIGTERM: a clean stop


EXAMPLE_SCRIPTS = pytest.mark.parametrize(
    "example_agent",
    ["anthropic_agent.py", "openai_agent.py", "openai_agents_agent.py"],
    indirect=True,
)


@EXAMPLE_SCRIPTS
def test_the_example_answers_with_the_model_text(
    example_agent: str, band_platform: LocalBand, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(TextTurn("Sunny all week"))
    room = band_platform.room(example_agent)
    assert room.ask(example_agent, "Weather?", timeout=ANSWER_S).text == "Sunny all week"
    [call] = scripted_model.requests
    assert "Weather?" in call.prompt and "Answer briefly and kindly." in (call.system or "")
    assert "band_send_message" in call.tool_names


@EXAMPLE_SCRIPTS
def test_a_band_send_message_call_is_the_reply_once(
    example_agent: str, band_platform: LocalBand, scripted_model: ScriptedModel
) -> None:
    me = band_platform.me
    scripted_model.script(
        ToolTurn("band_send_message", {"content": "From the tool", "mentions": [me.id]}),
        TextTurn("I replied with the tool."),
    )
    room = band_platform.room(example_agent)
    asked = room.say("Answer with the tool", mention=example_agent)
    room.wait_for(
        lambda _: room.delivery_status(asked, example_agent) == "processed", timeout=ANSWER_S
    )
    assert [m.text for m in room.messages_from(example_agent)] == ["From the tool"]
    # the tool call and its result are events (Emit.TOOL_CALLS), the usage a task event
    events = room.messages_from(example_agent, None)
    kinds = [m.message_type for m in events]
    assert kinds.count("tool_call") == 1 and kinds.count("tool_result") == 1
    result = next(m for m in events if m.message_type == "tool_result")
    assert json.loads(result.metadata["output"])["success"] is True
    assert any("band_usage" in m.metadata for m in events if m.message_type == "task")
    [_, second] = scripted_model.requests
    [(call_id, output)] = second.tool_results
    assert call_id and json.loads(output)["success"] is True


@pytest.mark.parametrize("example_agent", ["openai_agents_agent.py"], indirect=True)
def test_the_agents_sdk_example_uses_its_tool_and_its_handoff(
    example_agent: str, band_platform: LocalBand, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(
        ToolTurn("order_status", {"order_id": "42"}),
        TextTurn("Order 42 ships tomorrow."),
        ToolTurn("transfer_to_billing", {}),
        TextTurn("Billing: your invoice is fixed."),
    )
    room = band_platform.room(example_agent)
    assert room.ask(example_agent, "Order 42?", timeout=ANSWER_S).text == (
        "Order 42 ships tomorrow."
    )
    [(_, output)] = scripted_model.requests[1].tool_results
    assert output == "Order 42 ships tomorrow."  # the agent's own tool ran
    assert room.ask(example_agent, "My invoice?", timeout=ANSWER_S).text == (
        "Billing: your invoice is fixed."
    )
    billing = scripted_model.requests[3]
    assert "You answer invoice questions." in (billing.system or "")
    assert "band_send_message" in billing.tool_names


def test_the_users_example_test_passes() -> None:
    """examples/test_my_agent.py under pytest, from examples/, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTEST_"))}
    user_command = ["pytest", "test_my_agent.py", "-q", "-p", "no:cacheprovider"]
    argv = [sys.executable, "-Im", *user_command, "--band-timeout", str(ANSWER_S)]
    done = run_ok(argv, cwd=EXAMPLES, env=env, timeout=300)
    assert "2 passed" in done.stdout


def test_the_readme_shows_the_example_test_as_it_is() -> None:
    """The model tutorial's "Testing a model-backed agent" code is examples/test_my_agent.py's."""
    page = (ROOT / "docs" / "tutorials" / "model-agent.md").read_text()
    section = page.split("### Testing a model-backed agent", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    # the page includes the file itself (pymdownx.snippets), so it shows what the suite runs
    assert code.strip() == '--8<-- "examples/test_my_agent.py"'
    assert (EXAMPLES / "test_my_agent.py").read_text().strip()
