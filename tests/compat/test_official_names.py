"""Every name in the ``__all__`` of band-sdk 6.0.1's public modules exists in ours (issue 55).

The official package is enumerated in its own venv (``BAND_REFSDK_PYTHON``, which ``make test``
builds): each module of ``band`` with no ``_``-prefixed path part that declares ``__all__``.
A name that we lack, or whose call (function parameters, class constructor) a caller written
for the official SDK cannot make on ours, fails the test unless one of the three lists below
names it: DECLINED (on purpose, with the reason), ARRIVING (adapters other helpers are
building for issues 48/49), NOT_YET_ASKED (adapters and integrations no issue has asked for).
An entry that matches nothing any more fails too, so the lists only shrink.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import json
from typing import Any

import pytest
from bandtest.process import run_ok
from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from .official_names import missing, name_differences, official_modules

pytestmark = requires_refsdk

REST_TRANSPORT = (
    "our band.client.rest.RestClient is the SDK's own async transport (RestClient(api_key, "
    "base_url, timeout=...), request(method, path)) and its HTTP errors are band.client."
    "errors' (BandAPIError(status_code, code, message), raised by the tools): band_rest's "
    "synchronous RestClient(environment=, httpx_client=, ...) and its ApiError(body, headers) "
    "classes are band_rest's own (band.client.rest.AsyncRestClient is band_rest's, [rest] extra)"
)
REST_MODELS = (
    "the typed results here are our msgspec Structs (band.core.wire): keyword construction of "
    "their fields, an omitted list is [] (band_rest's: None) and an omitted "
    "RemoveAgentContactResponseData.status None (band_rest's: 'removed'); band_rest's pydantic "
    "models also take unknown keywords (**data)"
)
STREAMING_PAYLOADS = (
    "the push payloads are frozen dataclasses of their documented fields (the runtime's own "
    "for messages, participants and contacts): band-sdk's pydantic payloads also keep unknown "
    "keywords (**extra); a message's metadata is a dict ({} when absent), not a "
    "MessageMetadata model or None"
)
RETENTION = (
    "band-sdk's adapter-owned room residency engine (RoomRetention's one idle timer and "
    "RetainedRoom's acquire/suspend/release state machine, with their clock, config and "
    "outcomes): it parks a provider's native session between turns for adapters that keep one "
    "(its retention= option); our adapters hold no suspended native session per room, so "
    "there is nothing for it to drive, and its clock and config alone would be names without "
    "their engine"
)
DOCKER = (
    "band-sdk's sandbox-kit launcher, run as `python -m band.docker.launcher` inside Band's "
    "Docker image: it reads band.yaml, fences paths, fills credentials, syncs a customer's "
    "locked project with uv and execs its entrypoint; a deployment tool of that image, not "
    "SDK API that a script calls"
)
PLATFORM_STOP = (
    "band-sdk's ExecutionContext(on_platform_stop=) hook receives its TurnScope (the per-turn "
    "record its AgentRuntime uses to report a platform stop through on_control once); ours "
    "has no such record to hand over: a room the platform stops reaches on_control(room_id, "
    "'stop') of AgentRuntime(link, agent_id, on_execute, on_control=...) directly"
)
CLAUDE_RETENTION = (
    "ClaudeSDKAdapterConfig(retention=) defaults to band-sdk's RoomRetentionConfig, from the "
    "room-residency engine declined below (RETENTION); ours takes any value and defaults to "
    "None: ClaudeSessionManager keeps no suspended session to park (idle retention is off in "
    "band-sdk's Claude adapter too)"
)

#: Names we do not provide, on purpose (fnmatch patterns on ``module:Name``).
DECLINED: dict[str, str] = {
    "band.adapters:ClaudeSDKAdapterConfig (parameter retention default)": CLAUDE_RETENTION,
    "band*:ExecutionContext (parameter on_platform_stop missing)": PLATFORM_STOP,
    "band.runtime.tools:AttachmentCache (*": "band-sdk's AttachmentCache is a typing "
    "Protocol naming async_lru's cache_* methods (the type of its internal attachment cache): "
    "it cannot be instantiated (TypeError), so no call written for it exists to run on ours, "
    "a concrete LRU keyed by client, room and file with get/put/discard",
    "band.client.rest:RestClient (*": REST_TRANSPORT,
    "band.client.rest:*Error (*": REST_TRANSPORT,
    "band.client.rest:* (no var_keyword parameter)": REST_MODELS,
    "band.client.rest:* (parameter * default)": REST_MODELS,
    "band.client.streaming:* (no var_keyword parameter)": STREAMING_PAYLOADS,
    "band.client.streaming:MessageCreatedPayload (parameter metadata default)": STREAMING_PAYLOADS,
    "band.core.retention:*": RETENTION,
    "band.docker.launcher:*": DOCKER,
}

ISSUES_48_49 = "arriving with issues 48/49 (framework adapters other helpers are building)"

#: Adapters, converters and test helpers being built right now (issues 48/49).
ARRIVING: dict[str, str] = {}  # none left: every name issues 48/49 owed has arrived

NOT_ASKED = "not yet asked for: no issue covers this adapter or integration"

#: Adapters and integrations of band-sdk that no issue has asked for yet.
NOT_YET_ASKED: dict[str, str] = {
    **{
        f"band.adapters:{prefix}*": NOT_ASKED
        for prefix in (
            "Letta",
            "Codex",
            "CopilotSDK",
            "CopilotACP",
            "CursorACP",
            "OmpACP",
            "A2A",
            "Slack",
            "Parlant",
            "CrewAIFlow",
            "Opencode",
            "Nooa",
        )
    },
    **{
        f"band.converters:{prefix}*": NOT_ASKED
        for prefix in (
            "CopilotSDK",
            "Parlant",
            "CrewAIFlow",
            "A2A",
            "Gateway",
            "Codex",
            "Opencode",
            "Nooa",
        )
    },
    **{
        f"band.adapters.{module}:*": NOT_ASKED
        for module in (
            "a2a",
            "a2a_gateway",
            "copilot_acp",
            "crewai_flow",
            "cursor_acp",
            "letta",
            "nooa",
            "omp_acp",
            "opencode",
            "parlant",
            "slack",
        )
    },
    "band.converters.crewai_flow:*": NOT_ASKED,
    **{
        f"band.integrations.{module}*": NOT_ASKED
        for module in ("a2a", "codex", "copilot_sdk", "letta", "opencode", "parlant", "slack")
    },
    "band.integrations:*": NOT_ASKED + " (band-sdk's integration registry for them)",
}

ALLOW_LISTS = {
    "declined": DECLINED,
    "arriving": ARRIVING,
    "not yet asked": NOT_YET_ASKED,
}


def _allowed_by(diff: str) -> str | None:
    """The pattern that matches ``module:Name`` or the whole line (``... (why)``)."""
    key = diff.split(" (", 1)[0]
    for allow in ALLOW_LISTS.values():
        for pattern in allow:
            if fnmatch.fnmatchcase(key, pattern) or fnmatch.fnmatchcase(diff, pattern):
                return pattern
    return None


@pytest.fixture(scope="module")
def official() -> dict[str, Any]:
    return official_modules(REFSDK_PYTHON)


@pytest.fixture(scope="module")
def diffs(official: dict[str, Any]) -> list[str]:
    return name_differences(official)


def test_the_enumeration_reaches_the_public_modules(official: dict[str, Any]) -> None:
    """The walk finds the modules users import, with their names (a broken walk cannot pass)."""
    for module in ("band", "band.runtime", "band.runtime.tools", "band.adapters", "band.testing"):
        assert official[module]["names"], module
    assert "BandLink" in official["band"]["names"]
    assert "CreateMyChatRoomInput" in official["band.runtime.tools"]["names"]
    assert not any(part.startswith("_") for m in official for part in m.split("."))


def test_every_official_name_is_ours_or_listed(diffs: list[str]) -> None:
    unexplained = [d for d in diffs if _allowed_by(d) is None]
    assert not unexplained, (
        f"{len(unexplained)} names of band-sdk 6.0.1 missing or incompatible, not in an "
        "allow-list:\n" + "\n".join(unexplained)
    )


def test_every_allow_list_entry_is_still_needed(diffs: list[str]) -> None:
    used = {_allowed_by(d) for d in diffs}
    stale = [p for allow in ALLOW_LISTS.values() for p in allow if p not in used]
    assert not stale, "allow-list entries that match nothing any more (remove them):\n" + (
        "\n".join(stale)
    )


def test_the_comparison_catches_a_missing_name_and_an_incompatible_call() -> None:
    """A name absent from ours and a parameter ours lacks each show up (on a real module)."""
    official = {
        "band.config": {
            "names": {
                "get_config_path": {"kind": "function", "params": []},
                "no_such_name": {"kind": "function", "params": []},
            }
        },
        "band.runtime": {
            "names": {
                "GracefulShutdown": {
                    "kind": "class",
                    "init": [["no_such_parameter", "KEYWORD_ONLY", "<required>"]],
                    "members": {},
                }
            }
        },
    }
    diffs = name_differences(official)
    assert diffs == [
        "band.config:no_such_name (missing)",
        "band.runtime:GracefulShutdown (parameter no_such_parameter missing)",
        "band.runtime:GracefulShutdown (extra required parameter agent)",
    ]
    assert missing(diffs) == ["band.config:no_such_name"]


#: band-sdk's console scripts we do not install: tools of Band's own Docker image and desktop app
DECLINED_COMMANDS = {"band-kit", "band-room-view"}


def test_every_official_command_is_ours_at_the_same_entry_point() -> None:
    """band-sdk's console scripts (its distribution's entry points) are ours, each at the
    module and function band-sdk names, but the declined ones."""
    listing = (
        "import json\nfrom importlib.metadata import distribution\n"
        "print(json.dumps({e.name: e.value for e in distribution('band-sdk').entry_points"
        " if e.group == 'console_scripts'}))"
    )
    theirs = json.loads(run_ok([REFSDK_PYTHON, "-I", "-c", listing], timeout=120).stdout)
    ours = {
        e.name: e.value
        for e in importlib.metadata.distribution("band-open-sdk").entry_points
        if e.group == "console_scripts"
    }
    assert DECLINED_COMMANDS <= set(theirs), "a declined command band-sdk no longer has"
    for name, target in sorted(theirs.items()):
        if name not in DECLINED_COMMANDS:
            assert ours.get(name) == target, name
