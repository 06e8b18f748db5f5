"""``band.testing.FakeAgentTools``: what it records, the errors it raises, the turn it keeps."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from band.core.exceptions import BandToolError
from band.core.turn import MISSING_REPLY, AgentFailure
from band.testing import (
    MISSING_REPLY_FAILURE,
    FakeAgentTools,
    events_of_type,
    failure_reports,
    reported_failures,
)

ALICE = {"id": "u-alice", "name": "Alice", "handle": "alice", "type": "User", "role": "member"}
ME = {"id": "a-me", "name": "Me", "handle": "alice/me", "type": "Agent", "role": "member"}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_it_is_an_agent_tools_protocol() -> None:
    from band.core.protocols import AgentToolsProtocol

    assert isinstance(FakeAgentTools(), AgentToolsProtocol)


def test_send_message_records_and_replies() -> None:
    tools = FakeAgentTools(participants=[ALICE])
    sent = run(tools.send_message("hi @alice", ["@alice"]))
    assert sent.id == sent["id"] == "msg-0" and sent.success is True
    assert sent.recipients[0].handle == "alice"
    assert tools.messages_sent == [{"id": "msg-0", "content": "hi @alice", "mentions": ["@alice"]}]
    assert tools.chat == ["hi @alice"] and tools.turn.replied and tools.turn.complete
    tools.assert_message_sent(content="hi @alice", mentions=["@alice"], count=1)


def test_a_message_without_mentions_fails_with_the_room_handles() -> None:
    tools = FakeAgentTools(participants=[ALICE, ME], agent_id="a-me")
    with pytest.raises(BandToolError) as err:
        run(tools.send_message("hello"))
    assert str(err.value) == (
        "At least one mention is required. Available handles: ['alice']. "
        "Use participant handles from the list."
    )
    assert tools.messages_sent == [] and not tools.turn.replied
    with pytest.raises(BandToolError, match=r"^At least one mention is required$"):
        run(FakeAgentTools().send_message("hello", []))


def test_blank_content_posts_nothing_and_is_not_a_reply() -> None:
    tools = FakeAgentTools()
    assert run(tools.send_message(" \n\t", ["@alice"])) is None
    assert run(tools.send_event("   ", "thought")) is None
    assert tools.messages_sent == [] and tools.events_sent == [] and not tools.turn.complete


def test_notice_posts_without_answering_the_turn() -> None:
    tools = FakeAgentTools()
    run(tools.send_notice("busy, back soon", ["@alice"]))
    assert tools.chat == ["busy, back soon"] and not tools.turn.complete


def test_turn_effects_follow_the_turn_outcome_rule() -> None:
    observed = FakeAgentTools(participants=[ALICE])
    run(observed.get_participants())
    run(observed.send_event("thinking", "thought"))
    assert not observed.turn.complete and observed.turn.posts_missing_reply
    declined = FakeAgentTools()
    run(declined.no_reply("not for me"))
    assert declined.turn.complete and declined.turn.replied
    worked = FakeAgentTools()
    run(worked.create_task("ship it"))
    assert worked.turn.complete and not worked.turn.replied


def test_execute_tool_call_records_the_call_and_its_effect() -> None:
    tools = FakeAgentTools()
    outcome = run(tools.execute_tool_call_structured("band_lookup_peers", {"page": 2}))
    assert (outcome.ok, outcome.value) == (True, {"status": "ok"}) and not tools.turn.complete
    assert run(tools.execute_tool_call("band_send_message", {"content": "x"})) == {"status": "ok"}
    assert tools.tool_calls == [
        {"tool_name": "band_lookup_peers", "arguments": {"page": 2}},
        {"tool_name": "band_send_message", "arguments": {"content": "x"}},
    ]
    assert tools.turn.replied


def test_send_failure_reports_once_and_never_raises() -> None:
    tools = FakeAgentTools()
    failure = AgentFailure("anthropic", "overloaded", "529", {"retry": True})
    run(tools.send_failure(failure))
    assert failure_reports(tools) == [("anthropic", "overloaded")]
    assert reported_failures(tools) == [
        {"provider": "anthropic", "code": "529", "message": "overloaded", "detail": {"retry": True}}
    ]
    assert tools.turn.complete and len(events_of_type(tools, "error")) == 1
    broken = FakeAgentTools()
    broken.send_event_error = RuntimeError("403 stopped")
    assert run(broken.send_failure(failure)) == {"ok": False, "error": "403 stopped"}
    assert not broken.turn.complete  # nothing reached the room: the runtime still reports
    with pytest.raises(RuntimeError):
        run(broken.send_event("x", "thought"))


def test_missing_reply_failure_is_the_runtimes_report() -> None:
    assert MISSING_REPLY_FAILURE == ("band-runtime", MISSING_REPLY)
    assert MISSING_REPLY.startswith("The agent ended its turn without replying")


def test_send_message_error_raises_before_recording() -> None:
    tools = FakeAgentTools()
    tools.send_message_error = ConnectionError("down")
    with pytest.raises(ConnectionError):
        run(tools.send_message("hi", ["@alice"]))
    assert tools.messages_sent == [] and not tools.turn.replied


def test_participants_are_added_from_peers_and_removed() -> None:
    peer = {"id": "a-helper", "name": "Helper", "handle": "alice/helper", "type": "Agent"}
    tools = FakeAgentTools(participants=[ALICE], peers=[peer])
    added = run(tools.add_participant("@alice/helper"))
    assert (added.id, added.status) == ("a-helper", "added") and tools.turn.complete
    again = run(tools.add_participant("Helper"))
    assert again.status == "already_in_room"
    assert [p["id"] for p in tools.participants] == ["u-alice", "a-helper"]
    with pytest.raises(ValueError, match="Use band_lookup_peers to find available peers"):
        run(tools.add_participant("ghost"))
    assert run(tools.remove_participant("a-helper")).status == "removed"
    with pytest.raises(ValueError, match=r"^Participant 'a-helper' not found in this room\.$"):
        run(tools.remove_participant("a-helper"))
    assert len(tools.participants_added) == 2 and len(tools.participants_removed) == 1


def test_pages_of_peers_and_room_context() -> None:
    peers = [{"id": f"p{i}", "name": f"P{i}", "handle": f"p{i}", "type": "Agent"} for i in range(5)]
    tools = FakeAgentTools(peers=peers, room_context=[{"id": str(i)} for i in range(3)])
    page = run(tools.lookup_peers(page=2, page_size=2))
    assert [p.id for p in page.data] == ["p2", "p3"]
    assert page.metadata.total_count == 5 and page.metadata.total_pages == 3
    ctx = run(tools.fetch_room_context(room_id="r2", page=2, page_size=2))
    assert [m["id"] for m in ctx["data"]] == ["2"] and ctx["meta"]["total_pages"] == 2
    tools.append_room_context({"id": "3"})
    assert run(tools.fetch_room_context(room_id="r2"))["meta"]["total_count"] == 4
    assert tools.context_calls[0] == {"room_id": "r2", "page": 2, "page_size": 2}


def test_contact_requests_handshake() -> None:
    theirs = {"id": "req-1", "from_handle": "@bob", "from_name": "Bob", "status": "pending"}
    tools = FakeAgentTools(received_contact_requests=[theirs])
    mine = run(tools.add_contact("@carol", "hi"))
    assert mine.status == "pending"
    listed = run(tools.list_contact_requests())
    assert [r.to_handle for r in listed.data.sent] == ["carol"]
    assert listed.metadata.received.total == 1
    # asking someone who already asked us approves their request
    assert run(tools.add_contact("bob")).status == "approved"
    assert [c.handle for c in run(tools.list_contacts()).data] == ["bob"]
    assert run(tools.respond_contact_request("cancel", handle="carol")).status == "cancelled"
    with pytest.raises(RuntimeError, match="no response data"):
        run(tools.respond_contact_request("approve", request_id="req-1"))  # not pending now
    with pytest.raises(ValueError, match="Either handle or request_id must be provided"):
        run(tools.respond_contact_request("approve"))
    with pytest.raises(ValueError, match="Either handle or contact_id must be provided"):
        run(tools.remove_contact())
    run(tools.remove_contact(handle="@bob"))
    assert run(tools.list_contacts()).data == []


def test_memories() -> None:
    tools = FakeAgentTools()
    m = run(tools.store_memory("likes tea", "long_term", "semantic", "user", "why", "agent"))
    assert run(tools.get_memory(m.id)).content == "likes tea"
    assert run(tools.supersede_memory(m.id)).status == "superseded"
    assert tools.memory_contents == ["likes tea"]
    assert run(tools.list_memories(page_size=1)).meta.total_count == 1
    with pytest.raises(RuntimeError, match=r"^Failed to archive memory - no response data$"):
        run(tools.archive_memory("nope"))


def test_tasks_and_board() -> None:
    tools = FakeAgentTools(room_id="room-1")
    first = run(tools.create_task("draft", "the first draft"))
    assert (first.number, first.state, first.assignments) == (1, "active", [])
    second = run(tools.create_task("redraft", supersedes_id="#1"))
    assert run(tools.get_task("1")).superseded_by_id == second.id
    assert [t.number for t in run(tools.list_tasks()).data] == [2]
    assert len(run(tools.list_tasks("all")).data) == 2
    updated = run(tools.update_task(second.id, status="in_progress", active_form="writing"))
    assert updated.overall_status == "in_progress"
    assert updated.assignments[0].assignee.id == "fake-agent"
    with pytest.raises(RuntimeError, match="Failed to find task"):
        run(tools.get_task_history("#9"))
    board = run(tools.set_board(goal_title="Launch"))
    assert board.goal_title == "Launch" and board.chat_room_id == "room-1"
    assert run(tools.get_board()).goal_title == "Launch"


def test_room_files() -> None:
    tools = FakeAgentTools()
    shared = run(tools.send_room_file("a,b\n1,2\n", "data.csv", mentions=["@alice"]))
    assert shared.attachment.bytes == 8 and tools.chat == ["Shared a file: data.csv"]
    assert tools.messages_sent[0]["attachment_ids"] == [shared.attachment.id]
    listed = run(tools.list_room_files())
    assert [f.name for f in listed.data] == ["data.csv"] and listed.next_cursor is None
    assert "data.csv" in run(tools.read_room_file(shared.attachment.id)).description
    with pytest.raises(BandToolError, match="File not found"):
        run(tools.read_room_file("missing"))
    with pytest.raises(BandToolError):
        run(tools.send_room_file("x", "x.txt"))  # no mention: nothing stored
    assert len(tools.files) == 1


def test_schemas_are_the_real_ones() -> None:
    tools = FakeAgentTools()
    names = [s["name"] for s in tools.get_anthropic_tool_schemas(capabilities=frozenset())]
    assert names[0] == "band_send_message" and len(names) == 8
    hub = FakeAgentTools(room_id="hub", hub_room_id="hub")
    assert hub.is_hub_room
    assert any("contact" in s["function"]["name"] for s in hub.get_openai_tool_schemas())
    with pytest.raises(ValueError, match="Invalid format"):
        tools.get_tool_schemas("gemini")


def test_until_said_and_a_held_message() -> None:
    async def scenario() -> list[str]:
        tools = FakeAgentTools()
        order: list[str] = []

        async def adapter() -> None:
            await tools.send_message("working on it", ["@alice"])
            await tools.send_message("done: 42", ["@alice"])

        held = tools.hold_message("done")
        task = asyncio.create_task(adapter())
        async with held:  # the second send has started and waits for us
            order.append(f"in flight, sent so far: {tools.chat}")
        await asyncio.wait_for(tools.until_said("done"), 5)
        await task
        order.append(f"landed: {tools.chat}")
        failing = tools.hold_message("boom", error=ConnectionError("lost"))
        send = asyncio.create_task(tools.send_message("boom", ["@alice"]))
        async with failing:
            pass
        with pytest.raises(ConnectionError):
            await send
        return order

    assert run(scenario()) == [
        "in flight, sent so far: ['working on it']",
        "landed: ['working on it', 'done: 42']",
    ]


def test_assertion_helpers_fail_with_what_was_sent() -> None:
    tools = FakeAgentTools()
    tools.assert_no_messages_sent()
    run(tools.send_message("hi", ["@a"]))
    run(tools.send_event("t", "thought"))
    with pytest.raises(
        AssertionError, match=r"No message with content 'bye' found\. Sent: \['hi'\]"
    ):
        tools.assert_message_sent(content="bye")
    with pytest.raises(AssertionError, match="Expected 2 messages, got 1"):
        tools.assert_message_sent(count=2)
    with pytest.raises(AssertionError, match="Expected no messages"):
        tools.assert_no_messages_sent()
    tools.assert_event_sent(message_type="thought", count=1)
    with pytest.raises(AssertionError, match="No event with type 'error' found"):
        tools.assert_event_sent(message_type="error")
