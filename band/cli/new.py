"""``band new NAME``: a project with an agent, its config template, a passing test, a README."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from .options import CommandError

__all__ = ["add"]

#: --model -> (module, adapter class, config class, key variable, extra)
MODELS = {
    "anthropic": ("anthropic", "AnthropicAdapter", "AnthropicAdapterConfig", "ANTHROPIC_API_KEY"),
    "openai": ("openai", "OpenAIAdapter", "OpenAIAdapterConfig", "OPENAI_API_KEY"),
}

ECHO_AGENT = '''\
"""{name}: a Band agent that answers every message that mentions it."""

import asyncio

from band import Agent, PlatformMessage, strip_mentions
from band.core import AgentToolsProtocol, HistoryProvider, SimpleAdapter


class {cls}(SimpleAdapter[HistoryProvider]):
    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: HistoryProvider,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        text = strip_mentions(msg.content)
        await tools.send_message(f"you said: {{text}}", mentions=[msg.sender_id])


def build() -> {cls}:
    """The agent's adapter (the test builds it the same way)."""
    return {cls}()


if __name__ == "__main__":
    asyncio.run(Agent.from_config("{key}", adapter=build()).run())
'''

ECHO_TEST = '''\
"""{name}'s tests: a unit test of on_message, and the agent on a local platform."""

import asyncio

from band.core import HistoryProvider
from band.testing import FakeAgentTools, LocalBand, message

from agent import build


def test_it_answers_the_sender() -> None:
    tools = FakeAgentTools()
    msg = message("hello", mentions=["agent-id"], sender_id="person-id")
    asyncio.run(
        build().on_message(
            msg, tools, HistoryProvider(), None, None, is_session_bootstrap=False, room_id="r"
        )
    )
    tools.assert_message_sent("you said: hello", mentions=["person-id"])


def test_it_answers_in_a_room(band_platform: LocalBand) -> None:
    bot = band_platform.run_agent(build(), name="{name}")
    room = band_platform.room(bot)
    assert room.ask(bot, "hello").text == "you said: hello"
'''

MODEL_AGENT = '''\
"""{name}: a Band agent backed by a model ({adapter}); it reads {key_env}."""

import asyncio

from band import Agent
from band.adapters.{module} import {adapter}, {config}


def build() -> {adapter}:
    """The agent's adapter (the test builds it the same way, against a scripted model)."""
    return {adapter}({config}(custom_section="You are {name}. Answer briefly."))


if __name__ == "__main__":
    asyncio.run(Agent.from_config("{key}", adapter=build()).run())
'''

MODEL_TEST = '''\
"""{name}'s test: the agent on a local platform, its model played by band.testing's
ScriptedModel (no key, no network, no tokens)."""

import pytest

from band.testing import LocalBand, ScriptedModel, TextTurn

from agent import build


def test_it_answers_with_the_models_text(
    band_platform: LocalBand, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in scripted_model.env().items():  # the SDK's base URL and key variables
        monkeypatch.setenv(name, value)
    scripted_model.script(TextTurn("Hello from the model"))
    bot = band_platform.run_agent(build(), name="{name}")
    room = band_platform.room(bot)
    assert room.ask(bot, "hello").text == "Hello from the model"
    assert scripted_model.requests[0].prompt.endswith("hello")
'''

CONFIG = """\
# Copy to agent_config.yaml (git ignores it: it holds a live key) and fill in the pair
# `band dev agent create {name} --config agent_config.yaml --key {key}` prints, or Band's
# "Connect remote agent" dialog gives.
{key}:
  agent_id: your-agent-id
  api_key: band_a_your-key
"""

GITIGNORE = """\
agent_config.yaml
.band/
.venv/
__pycache__/
.pytest_cache/
"""

README = """\
# {name}

A Band agent{what}.

```sh
pip install 'band-open-sdk{extra}'
pytest                                   # the tests: no platform to start{nokey}
band dev                                 # another terminal: the local platform
band dev agent create {name} --config agent_config.yaml --key {key}
export BAND_REST_URL=http://127.0.0.1:8080 BAND_WS_URL=ws://127.0.0.1:8080/api/v1/socket/websocket{export}
python agent.py
band room create "{name} room" --agent {name}   # a third terminal
band send "{name} room" "hello" --mention {name}
```

`agent_config.yaml.example` shows the config file `band dev agent create` writes.
"""


def _new(args: argparse.Namespace) -> int:
    """Write the project; refuse a directory that exists and is not empty."""
    name = args.name.strip()
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
        raise CommandError(
            f"NAME must start with a letter and hold letters, digits, - or _ (not {name!r})",
            code=2,
        )
    where = Path(args.dir or name)
    if where.exists() and any(where.iterdir()):
        raise CommandError(f"{where} exists and is not empty: pick another NAME or --dir")
    key = name.lower().replace("-", "_")
    cls = "".join(part.capitalize() for part in re.split(r"[-_]", name)) or "Agent"
    files = {"agent_config.yaml.example": CONFIG, ".gitignore": GITIGNORE}
    if args.model == "none":
        files["agent.py"] = ECHO_AGENT
        files["test_agent.py"] = ECHO_TEST
        what, extra, nokey, export = "", "", "", ""
    else:
        module, adapter, config, key_env = MODELS[args.model]
        files["agent.py"] = MODEL_AGENT.replace("{adapter}", adapter).replace("{config}", config)
        files["agent.py"] = files["agent.py"].replace("{module}", module)
        files["agent.py"] = files["agent.py"].replace("{key_env}", key_env)
        files["test_agent.py"] = MODEL_TEST
        what = f" backed by {adapter} (it reads {key_env})"
        extra, nokey = f"[{args.model}]", " and no model key"
        export = f"\nexport {key_env}=..."
    files["README.md"] = (
        README.replace("{what}", what)
        .replace("{extra}", extra)
        .replace("{nokey}", nokey)
        .replace("{export}", export)
    )
    where.mkdir(parents=True, exist_ok=True)
    for filename, template in files.items():
        text = template.replace("{name}", name).replace("{key}", key).replace("{cls}", cls)
        (where / filename).write_text(text.replace("{{", "{").replace("}}", "}"), "utf-8")
    print(f"created {where}/: {', '.join(sorted(files))}")
    print(f"next: cd {where} && pytest   (then see README.md to run it on band dev)")
    return 0


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band new``."""
    new = sub.add_parser(
        "new",
        help="create an agent project (agent, config template, a passing test, README)",
        description=(
            "Create NAME/ with agent.py, test_agent.py (passes at once: pytest), "
            "agent_config.yaml.example, .gitignore and README.md."
        ),
    )
    new.add_argument("name", metavar="NAME", help="the agent's name (and the directory's)")
    new.add_argument(
        "--model",
        choices=["none", *MODELS],
        default="none",
        help="none: an echo agent; anthropic/openai: a model agent (default: %(default)s)",
    )
    new.add_argument("--dir", default=None, help="where to create it (default: ./NAME)")
    new.set_defaults(func=_new)
