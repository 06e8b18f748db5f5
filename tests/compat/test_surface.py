"""Our public surface against band-sdk 6.0.1's, from the checked-in facts file.

``official_surface.json`` holds the official package's public names, kinds, parameters and
constant values (regenerate: ``surface.py`` under the official venv). Every way ours falls
short is a failure unless ALLOWED names it with a reason; an ALLOWED entry that no longer
matches a difference fails too, so the list only shrinks. Extra names and extra optional
parameters on our side are fine (a script written for the official SDK still runs).
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest

from .compare import differences
from .surface import MODULES, surface

FACTS = Path(__file__).with_name("official_surface.json")

ACP_SERVER = (
    "internals of band-sdk's ACP adapters (router, push handler, event converter, session "
    "state, client classes); ACPServer/BandACPServerAdapter/run_acp_server and "
    "ACPClientAdapter are offered"
)
LOW_LEVEL = (
    "band-sdk's runtime internals (the ExecutionFactory type, resync and turn bookkeeping, "
    "transport events) are not offered: AgentRuntime(link, agent_id, on_execute, "
    "execution_factory) and "
    "ExecutionContext(room_id, link, on_execute) run our own rooms, and composing by hand is "
    "BandLink + RoomPresence + an Execution per room (tests/runtime/test_composition.py)"
)
RUNTIME_MEMBERS = (
    "band-sdk's call of AgentRuntime(link, agent_id, on_execute, ...) and ExecutionContext("
    "room_id, link, on_execute, ...) runs on our runtime (tests/runtime/test_composition.py) "
    "with start/stop/run/on_event and the room controls; the members of its own bookkeeping "
    "(execution maps, claim and stop-observation helpers, hydrate/build_context, "
    "participant setters) are not offered, nor ExecutionContext(on_platform_stop=), whose "
    "hook takes band-sdk's TurnScope"
)
TOOL_INTERNALS = (
    "tool-registry internals: ours is band.runtime.tools.registry (TOOLS, ToolSpec, "
    "select_tools, run_tool, validate_arguments); the results and error strings match"
)
ADAPTER_EXTRAS = (
    "SimpleAdapter extras of band-sdk (model selection, judged turns, usage emission, "
    "cleanup registry, REST client building) are not offered"
)
LOGGING_INTERNALS = (
    "logging internals (trace context, owner-only file handlers, request object); the "
    "public configure_logging/build_logging_config/LogSettings are offered"
)
FAILURE_HELPERS = (
    "failure-report helpers: ours are AgentTools.send_failure with band_sdk_core.AgentFailure"
)
WORKSPACES = "room workspaces: only create_room_workspace_resolver is offered"
REST_CLIENT = (
    "our RestClient is the SDK's own async transport (request(method, path) with retries), not "
    "band_rest's synchronous generated RestClient; band_rest's AsyncRestClient, request models "
    "and request options are offered here from the [rest] extra"
)
WIRE = (
    "typed results are msgspec Structs (band.core.wire), not band_rest's pydantic models: "
    "same class and field names, keyword construction, model_dump(); no pydantic internals"
)

#: Every remaining difference, each with its reason (fnmatch patterns on ``module:subject``
#: or on ``subject`` alone, the subject being a name or ``Class.member``).
ALLOWED: dict[str, str] = {
    # --- on purpose ---
    "band.client.rest:RestClient*": REST_CLIENT,
    "band.client.rest:*Error": "the HTTP errors are band.client.errors' (BandAPIError "
    "subclasses with status and code), not band_rest's ApiError subclasses",
    "AttachmentCache.*": "band-sdk's AttachmentCache is a Protocol of async_lru's cache_* "
    "methods (it cannot be instantiated); ours is a concrete LRU with get/put/discard",
    "band.client.rest:*.__init__": WIRE,
    "band.client.rest:*.serialize_model": WIRE,
    "Execution": LOW_LEVEL,
    "BandLink.to_platform_connection": LOW_LEVEL + " (PlatformConnection is not offered)",
    "ExecutionFactory": LOW_LEVEL,
    "ExecutionState": LOW_LEVEL,
    "ResyncOutcome": LOW_LEVEL,
    "ResyncRequest": LOW_LEVEL,
    "TurnOutcome": LOW_LEVEL,
    "PlatformConnection": LOW_LEVEL,
    "CleanupPhase": LOW_LEVEL,
    "TimeoutNotSet": LOW_LEVEL,
    "CleanupIncompleteError": LOW_LEVEL,
    "InputNotAccepted": LOW_LEVEL,
    "RoomClosingError": LOW_LEVEL,
    "AgentRuntime.*": RUNTIME_MEMBERS,
    "ExecutionContext.*": RUNTIME_MEMBERS,
    "ReconnectedEvent": LOW_LEVEL + " (transport events are not handed to user code)",
    "WebSocketDisconnectedEvent": LOW_LEVEL + " (transport events are not handed to user code)",
    "RoomAddedEvent": LOW_LEVEL + " (room membership is handled inside the runtime)",
    "RoomRemovedEvent": LOW_LEVEL + " (room membership is handled inside the runtime)",
    "RoomDeletedEvent": LOW_LEVEL + " (room membership is handled inside the runtime)",
    "band.runtime.tools:*Input.validate_*": TOOL_INTERNALS + " (validators are private)",
    "AgentTools.register_turn_task": TOOL_INTERNALS,
    "SimpleAdapter.*": ADAPTER_EXTRAS,
    "band.logging_config:LoggingRequest": LOGGING_INTERNALS,
    "band.logging_config:OwnerOnly*": LOGGING_INTERNALS,
    "band.logging_config:coerce_log_level_name": LOGGING_INTERNALS,
    "band.logging_config:core_issues": LOGGING_INTERNALS,
    "band.logging_config:create_log_directory": LOGGING_INTERNALS,
    "band.logging_config:current_traceparent": LOGGING_INTERNALS,
    "band.logging_config:more_verbose": LOGGING_INTERNALS,
    "band.logging_config:trace_context_*": LOGGING_INTERNALS,
    "LogSettings.build_config": LOGGING_INTERNALS,
    "LogSettings.configure": LOGGING_INTERNALS,
    "LogSettings.create": LOGGING_INTERNALS,
    "LogSettings.for_application": LOGGING_INTERNALS,
    "BASE_INSTRUCTIONS": "the prompt wording is ours (same layout: identity, base rules, "
    "capability sections, developer instructions)",
    "FailureMetadataKey": FAILURE_HELPERS,
    "TurnResultAlreadyReported": FAILURE_HELPERS,
    "generic_provider_failure": FAILURE_HELPERS,
    "send_event_safe": FAILURE_HELPERS,
    "to_failure_event": FAILURE_HELPERS,
    "TurnUsage": "usage events are not modelled (post them with send_event(..., 'usage'))",
    "is_usage_event": "usage events are not modelled",
    "metadata_to_dict": "message metadata reaches adapters as a plain dict already",
    "delivery_status_for_agent": LOW_LEVEL,
    "is_contact_hub_turn": LOW_LEVEL,
    "PlatformSettings": "PlatformSettings is a dataclass, not a pydantic-settings model: "
    "BAND_REST_URL/BAND_WS_URL are its keywords and properties (and the variables it "
    "reads), not model fields",
    "RoomWorkspaces.*": WORKSPACES,
    "band.workspaces:*_room_workspace": WORKSPACES,
    "band.workspaces:is_host_absolute": WORKSPACES,
    "band.workspaces:workspace_resolver_for": WORKSPACES,
}


def _subject(diff: str) -> tuple[str, str]:
    """``("module:subject", "subject")`` of one difference line."""
    full = diff.split(" (", 1)[0]
    return full, full.split(":", 1)[1]


def _allowed_by(diff: str) -> str | None:
    full, subject = _subject(diff)
    for pattern in ALLOWED:
        target = full if ":" in pattern else subject
        if fnmatch.fnmatchcase(target, pattern):
            return pattern
    return None


@pytest.fixture(scope="module")
def diffs() -> list[str]:
    official = json.loads(FACTS.read_text())
    assert sorted(official) == sorted(MODULES), (
        "the facts file covers other modules than surface.py"
    )
    return differences(official, surface(also=official))


def test_no_difference_outside_the_allow_list(diffs: list[str]) -> None:
    unexplained = [d for d in diffs if _allowed_by(d) is None]
    assert not unexplained, "differences from band-sdk 6.0.1 with no ALLOWED reason:\n" + "\n".join(
        unexplained
    )


def test_every_allow_list_entry_is_still_needed(diffs: list[str]) -> None:
    used = {_allowed_by(d) for d in diffs}
    stale = sorted(set(ALLOWED) - used)
    assert not stale, "ALLOWED entries that match no difference any more (remove them):\n" + (
        "\n".join(stale)
    )


def test_the_names_the_issue_lists_are_importable() -> None:
    """The names a user reaches for first exist at band-sdk's import paths (issue 23)."""
    from band import (  # noqa: F401
        ALL_TOOL_NAMES,
        CHAT_TOOL_NAMES,
        TOOL_MODELS,
        AdapterFeatures,
        ExecutionContext,
        GracefulShutdown,
        LogSettings,
        PlatformEvent,
        build_participants_message,
        configure_logging,
        format_history_for_llm,
        format_message_for_llm,
        mcp_tool_names,
        render_system_prompt,
        run_with_graceful_shutdown,
    )
    from band.core.exceptions import BandToolError, RoomExecutionStoppedError
    from band.core.types import Capability
    from band.runtime.tools import BandToolError as tools_error

    assert tools_error is BandToolError
    assert issubclass(RoomExecutionStoppedError, Exception)
    assert Capability.FILES == "files"


def test_the_comparison_catches_a_drift() -> None:
    """A missing name, a renamed parameter and a changed constant each show up."""
    official = {
        "m": {
            "names": {
                "f": {"kind": "function", "params": [["timeout", "POSITIONAL_OR_KEYWORD", None]]},
                "g": {"kind": "function", "params": []},
                "C": {"kind": "constant", "type": "str", "value": "a"},
            }
        }
    }
    ours = {
        "m": {
            "names": {
                "f": {"kind": "function", "params": [["grace", "POSITIONAL_OR_KEYWORD", None]]},
                "C": {"kind": "constant", "type": "str", "value": "b"},
            }
        }
    }
    assert differences(official, ours) == [
        "m:f (parameter timeout missing)",
        "m:g (missing)",
        "m:C (value)",
    ]
