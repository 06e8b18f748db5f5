"""AgentToolsProtocol has every member the seed lists, and AgentTools matches its signatures."""

from __future__ import annotations

import inspect
import json

from bandtest.refsdk import requires_refsdk, run_refsdk

from band.core.protocols import AgentToolsProtocol
from band.runtime.tools import AgentTools

TOOL_METHODS = [
    "send_message", "send_event", "no_reply", "add_participant", "remove_participant",
    "get_participants", "lookup_peers", "create_chatroom",
    "list_contacts", "add_contact", "remove_contact", "list_contact_requests",
    "respond_contact_request",
    "list_memories", "store_memory", "get_memory", "supersede_memory", "archive_memory",
    "list_room_files", "read_room_file", "send_room_file",
    "list_tasks", "create_task", "get_task", "update_task", "get_task_history", "get_board",
    "set_board",
]  # fmt: skip
OTHER_METHODS = [
    "send_notice", "fetch_room_context", "send_failure", "get_tool_schemas",
    "get_anthropic_tool_schemas", "get_openai_tool_schemas", "execute_tool_call",
    "execute_tool_call_structured",
]  # fmt: skip
PROPERTIES = ["agent_id", "participants", "is_hub_room"]


def test_protocol_lists_every_member() -> None:
    for name in TOOL_METHODS + OTHER_METHODS:
        assert callable(getattr(AgentToolsProtocol, name)), name
    for name in PROPERTIES:
        assert isinstance(getattr(AgentToolsProtocol, name), property), name
    assert "turn" in AgentToolsProtocol.__annotations__


def test_agent_tools_signatures_extend_the_protocol() -> None:
    """Same parameters in the same order; AgentTools may only add keyword-only ones."""
    for name in TOOL_METHODS + OTHER_METHODS:
        proto = inspect.signature(getattr(AgentToolsProtocol, name)).parameters
        ours = inspect.signature(getattr(AgentTools, name)).parameters
        extra = [p for p in ours if p not in proto]
        assert [p for p in ours if p in proto] == list(proto), name
        assert all(ours[p].kind is inspect.Parameter.KEYWORD_ONLY for p in extra), name
        for p in proto:
            assert ours[p].default == proto[p].default, (name, p)
        is_async = inspect.iscoroutinefunction(getattr(AgentToolsProtocol, name))
        assert inspect.iscoroutinefunction(getattr(AgentTools, name)) is is_async, name
    for name in PROPERTIES:
        assert isinstance(getattr(AgentTools, name), property), name


REF_FILE_SIGNATURES = """
import inspect, json
from band.core.protocols import AgentToolsProtocol as P
print(json.dumps({n: str(inspect.signature(getattr(P, n)))
                  for n in ("list_room_files", "read_room_file", "send_room_file")}))
"""


@requires_refsdk
def test_file_methods_have_the_official_signatures() -> None:
    out = run_refsdk(REF_FILE_SIGNATURES)
    for name, ref in json.loads(out).items():
        for cls in (AgentToolsProtocol, AgentTools):
            ours = str(inspect.signature(getattr(cls, name)))
            # parameters and defaults alike; the return annotation may be narrower
            assert ours.split(" -> ")[0] == ref.split(" -> ")[0], (cls, name)


def test_a_partial_implementation_is_not_an_agent_tools() -> None:
    class OnlySends:
        turn = None

        async def send_message(self, content: str, mentions: list[str] | None = None) -> None:
            return None

    assert not isinstance(OnlySends(), AgentToolsProtocol)
