"""Every import the seed documents and specs show, and every dotted name they cite, works on
ours.

The four seed documents and the specs (``../shared/seeds``, ``../shared/spec``) are the
requirements; their code examples import from band-sdk's module paths. The lists below are
every ``from band... import ...`` statement and every backticked ``band.x.Name`` in them,
recorded (the documents are not part of this repository), so a documented path missing on
ours fails by name: ``band.integrations.acp.session_config`` did.
"""

from __future__ import annotations

import importlib

import pytest

#: the documents' import statements, as written
IMPORTS = (
    "from band import Agent",
    "from band import create_room_workspace_resolver",
    "from band.adapters import ACPClientAdapter, ACPClientAdapterConfig",
    "from band.adapters import ACPClientAdapter, ACPClientAdapterConfig, ACPConfigRequest",
    "from band.integrations.acp.session_config import flatten_select_options",
    "from band.runtime.contact_tools import ContactTools",
    "from band.runtime.custom_tools import declares_turn_effect",
    "from band.runtime.tools import AgentTools",
    "from band.runtime.tools import TurnEffect",
    "from band_sdk_core import ClaimOutcome, DecisionRegistry, is_authorized_sender",
    "from band_sdk_core import ClaimRegistry, RetryTracker",
    "from band_sdk_core import LeaveOutcome, RoomStatus, RoomSubscribeResult, SubscriptionTracker",
    "from band_sdk_core import Session, SessionPolicy, SessionState",
    "from band_sdk_core import TurnEffect, TurnLedger, TurnVerdict, band_tool_effects",
)

#: the dotted names they cite
CITED = (
    "band.core",
    "band.core.turn.Turn",
    "band.runtime.custom_tools",
    "band.runtime.tools",
    "band.runtime.tools.AgentTools",
    "band.testing.FakeAgentTools",
    "band.testing.FakePhoenixServer",
    "band.testing.transport",
    "band_sdk_core.ClaimRegistry",
    "band_sdk_core.Session",
    "band_sdk_core.TurnLedger",
    "band_sdk_core.is_self_echo",
    "band_sdk_core.validate_event_payload",
)
# also cited, not ours to provide: band_sdk_core.band_sdk_core ("recommended, not required" by
# spec/band_sdk_core.md) and band.integrations.mcp.engine (band-sdk's internal registration
# engine behind its band-mcp; ours is band.integrations.mcp.registrations)


@pytest.mark.parametrize("statement", IMPORTS)
def test_a_documented_import_runs(statement: str) -> None:
    exec(compile(statement, "<documents>", "exec"), {})


def _resolve(dotted: str) -> object:
    """The object ``dotted`` names: its longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attr in parts[split:]:
            found = getattr(found, attr)
        return found
    raise ImportError(dotted)


@pytest.mark.parametrize("dotted", CITED)
def test_a_cited_name_resolves(dotted: str) -> None:
    assert _resolve(dotted) is not None


def test_the_helper_the_acp_guide_imports_reads_a_catalog() -> None:
    """The seed's resolve_session_config example: the values of a select option, its groups
    flattened."""
    from acp.schema import (
        SessionConfigOptionSelect,
        SessionConfigSelectGroup,
        SessionConfigSelectOption,
    )

    from band.integrations.acp.session_config import flatten_select_options

    option = SessionConfigOptionSelect(
        id="model",
        name="Model",
        type="select",
        current_value="a",
        options=[
            SessionConfigSelectGroup(
                group="fast", name="Fast", options=[SessionConfigSelectOption(value="a", name="A")]
            ),
            SessionConfigSelectGroup(
                group="deep", name="Deep", options=[SessionConfigSelectOption(value="b", name="B")]
            ),
        ],
    )
    assert {entry.value for entry in flatten_select_options(option.options)} == {"a", "b"}
