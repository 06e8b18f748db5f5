"""The contact tools (AgentTools and ContactTools) against the real local platform."""

from __future__ import annotations

import pytest
from bandtest.platform import Live

from band.client.errors import ConflictError
from band.client.rest import RestClient
from band.core.turn import TurnVerdict
from band.runtime.contacts.tools import ContactTools
from band.runtime.tools import InvalidToolArgumentsError

from .conftest import assert_tool_errors, bound, new_bot, new_room, run


def test_contact_lifecycle_through_tool_calls(plat: Live) -> None:
    alice, bob, carol = new_bot(plat, "Alice"), new_bot(plat, "Bob"), new_bot(plat, "Carol")
    room = new_room(plat, alice)

    async def go() -> None:
        async with bound(plat, alice, room) as tools:
            sent = await tools.execute_tool_call_structured(
                "band_add_contact", {"handle": "@" + bob.handle, "message": "hi bob"}
            )
            assert sent.ok and sent.value["status"] == "pending"
            assert tools.turn.complete  # adding a contact is work
            await tools.add_contact("@" + carol.handle)
            pending = await tools.list_contact_requests()
            assert {r["to_handle"].lstrip("@") for r in pending["data"]["sent"]} == {
                bob.handle,
                carol.handle,
            }
            assert pending["metadata"]["sent"]["total"] == 2
            cancelled = await tools.respond_contact_request("cancel", handle="@" + carol.handle)
            assert cancelled["status"] == "cancelled"
            all_sent = await tools.list_contact_requests(sent_status="all", page_size=100)
            assert len(all_sent["data"]["sent"]) == 2
        async with bound(plat, bob, room) as tools:
            inbox = await tools.execute_tool_call_structured("band_list_contact_requests", {})
            assert inbox.ok
            [req] = inbox.value["data"]["received"]
            assert req["message"] == "hi bob"
            approved = await tools.execute_tool_call_structured(
                "band_respond_contact_request", {"action": "approve", "request_id": req["id"]}
            )
            assert approved.ok and approved.value == {"id": req["id"], "status": "approved"}
            contacts = await tools.execute_tool_call_structured(
                "band_list_contacts", {"page": 1, "page_size": 10}
            )
            assert [c["id"] for c in contacts.value["data"]] == [alice.id]
            assert contacts.value["metadata"]["total_count"] == 1
            removed = await tools.remove_contact(handle="@" + alice.handle)
            assert removed.status == "removed"  # a typed result, as band-sdk 6.0.1 returns
            assert (await tools.list_contacts())["data"] == []

    run(go())


def test_contact_tool_errors(plat: Live) -> None:
    alice = new_bot(plat, "Alice")
    room = new_room(plat, alice)

    async def go() -> None:
        async with bound(plat, alice, room) as tools:
            await assert_tool_errors(
                tools,
                (
                    "band_remove_contact",
                    {},
                    "Error executing band_remove_contact: "
                    "Either handle or contact_id must be provided",
                ),
                (
                    "band_respond_contact_request",
                    {"action": "approve"},
                    "Error executing band_respond_contact_request: "
                    "Either handle or request_id must be provided",
                ),
                (
                    "band_respond_contact_request",
                    {"action": "accept", "handle": "@x"},
                    "Invalid arguments for band_respond_contact_request: action: "
                    "Input should be 'approve', 'reject' or 'cancel'",
                ),
                *(
                    (
                        tool,
                        {"page_size": 101},
                        f"Invalid arguments for {tool}: page_size: "
                        "Input should be less than or equal to 100",
                    )
                    for tool in ("band_list_contacts", "band_list_contact_requests")
                ),
                (
                    "band_list_contact_requests",
                    {"sent_status": "open"},
                    "Invalid arguments for band_list_contact_requests: sent_status: Input should "
                    "be 'pending', 'approved', 'rejected', 'cancelled' or 'all'",
                ),
            )
            missing = await tools.execute_tool_call_structured(
                "band_add_contact", {"handle": "@nobody-here"}
            )
            assert not missing.ok
            assert missing.error_message.startswith("Error executing band_add_contact: ")
            assert "status_code: 404" in missing.error_message
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())


def test_contact_tools_class_is_agent_scoped(plat: Live) -> None:
    alice, bob = new_bot(plat, "Alice"), new_bot(plat, "Bob")

    async def go() -> None:
        async with RestClient(alice.key, plat.rest) as a, RestClient(bob.key, plat.rest) as b:
            mine, theirs = ContactTools(a), ContactTools(b)
            assert (await mine.add_contact("@" + bob.handle, "hello"))["status"] == "pending"
            with pytest.raises(ConflictError):
                await mine.add_contact("@" + bob.handle)
            reqs = await theirs.list_contact_requests()
            assert [r["from_handle"].lstrip("@") for r in reqs["data"]["received"]] == [
                alice.handle
            ]
            answer = await theirs.respond_contact_request("approve", handle="@" + alice.handle)
            assert answer["status"] == "approved"
            listed = await mine.list_contacts(page=1, page_size=5)
            assert [c["handle"].lstrip("@") for c in listed["data"]] == [bob.handle]
            contact_id = listed["data"][0]["id"]
            assert await mine.remove_contact(contact_id=contact_id) == {"status": "removed"}
            assert (await theirs.list_contacts())["data"] == []

            with pytest.raises(ValueError) as neither:
                await mine.remove_contact()
            assert str(neither.value) == "Either handle or contact_id must be provided"
            with pytest.raises(ValueError) as neither:
                await mine.respond_contact_request("reject")
            assert str(neither.value) == "Either handle or request_id must be provided"
            with pytest.raises(InvalidToolArgumentsError):
                await mine.list_contacts(page_size=500)

    run(go())
