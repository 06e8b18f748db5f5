"""The task-board tools against the real local platform."""

from __future__ import annotations

import pytest
from bandtest.platform import Live

from band.core.turn import TurnVerdict
from band.runtime.tools import InvalidToolArgumentsError

from .conftest import bound, new_bot, new_room, run

ID_ERROR = "ID must contain only ASCII letters, digits, underscores or hyphens"


def test_task_board_lifecycle(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            first = await tools.execute_tool_call_structured(
                "band_create_task", {"subject": "Draft the plan", "detail": "one page"}
            )
            assert first.ok and tools.turn.complete
            task = first.value
            assert task["number"] == 1 and task["assignments"] == []  # creator not assigned
            second = await tools.create_task("Review", supersedes_id=f"#{task['number']}")
            assert second["number"] == 2
            old = await tools.get_task("#1")
            assert old["state"] == "superseded" and old["superseded_by_id"] == second["id"]

            updated = await tools.execute_tool_call_structured(
                "band_update_task",
                {"id": "#2", "status": "in_progress", "active_form": "reading", "comment": "on it"},
            )
            assert updated.ok
            [mine] = updated.value["assignments"]
            assert mine["status"] == "in_progress" and mine["active_form"] == "reading"
            done = await tools.update_task(second["id"], status="completed", state="archived")
            assert done["state"] == "archived"

            active = await tools.execute_tool_call_structured("band_list_tasks", {})
            assert active.ok and active.value["data"] == []
            everything = await tools.list_tasks(state="all", limit=1)
            assert [t["number"] for t in everything["data"]] == [1]
            assert everything["metadata"]["has_more"] is True
            rest = await tools.list_tasks(
                state="all", cursor=everything["metadata"]["next_cursor"], limit=100
            )
            assert [t["number"] for t in rest["data"]] == [2]

            with_history = await tools.execute_tool_call_structured(
                "band_get_task", {"id": "2", "include": "history"}
            )
            events = [e["event"] for e in with_history.value["history"]]
            assert events[0] == "created" and "commented" in events
            history = await tools.execute_tool_call_structured(
                "band_get_task_history", {"id": second["id"], "limit": 2}
            )
            assert [e["event"] for e in history.value["data"]] == events[:2]
            page2 = await tools.get_task_history(
                "#2", cursor=history.value["metadata"]["next_cursor"]
            )
            assert [e["event"] for e in page2["data"]] == events[2:]

            empty = await tools.execute_tool_call_structured("band_get_board", {})
            assert empty.ok and empty.value["goal_title"] is None
            board = await tools.execute_tool_call_structured(
                "band_set_board", {"goal_title": "Ship v1"}
            )
            assert board.ok and board.value["goal_title"] == "Ship v1"
            board = await tools.set_board(goal_summary="Everything tested")
            assert board["goal_title"] == "Ship v1"
            assert board["goal_summary"] == "Everything tested"
            audited = await tools.get_board(include="history")
            assert [e["event"] for e in audited["history"]] == ["goal_set", "goal_edited"]

    run(go())


def test_reads_only_observe(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as setup:
            await setup.create_task("Exists")
        async with bound(plat, bot, room) as tools:
            for name, args in (
                ("band_list_tasks", {}),
                ("band_get_task", {"id": "1"}),
                ("band_get_task_history", {"id": "#1"}),
                ("band_get_board", {}),
            ):
                out = await tools.execute_tool_call_structured(name, args)
                assert out.ok, out.error_message
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())


def test_task_tool_errors(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:

            async def err(name: str, args: dict) -> str:
                out = await tools.execute_tool_call_structured(name, args)
                assert not out.ok and out.value == out.error_message
                return str(out.error_message)

            assert await err("band_update_task", {"id": "1"}) == (
                "Invalid arguments for band_update_task: : Value error, At least one of status, "
                "active_form, comment, subject, detail, or state must be set"
            )
            assert await err("band_set_board", {}) == (
                "Invalid arguments for band_set_board: : Value error, "
                "At least one of goal_title or goal_summary must be set"
            )
            for tool in ("band_get_task", "band_get_board"):
                args = {"id": "1", "include": "events"} if tool == "band_get_task" else {}
                args["include"] = "events"
                assert await err(tool, args) == (
                    f"Invalid arguments for {tool}: include: Value error, "
                    "include must be 'history' or omitted"
                )
            for tool in ("band_list_tasks", "band_get_task_history"):
                base = {"id": "1"} if tool == "band_get_task_history" else {}
                prefix = f"Invalid arguments for {tool}: limit: Input should be"
                assert await err(tool, {**base, "limit": 0}) == (
                    f"{prefix} greater than or equal to 1"
                )
                assert await err(tool, {**base, "limit": 101}) == (
                    f"{prefix} less than or equal to 100"
                )
            for tool in ("band_get_task", "band_update_task", "band_get_task_history"):
                extra = {"comment": "x"} if tool == "band_update_task" else {}
                assert await err(tool, {"id": "#../1", **extra}) == (
                    f"Invalid arguments for {tool}: id: Value error, {ID_ERROR}"
                )
            assert await err("band_create_task", {"subject": "s", "supersedes_id": "a/b"}) == (
                f"Invalid arguments for band_create_task: supersedes_id: Value error, {ID_ERROR}"
            )
            assert await err("band_update_task", {"id": "1", "status": "done"}) == (
                "Invalid arguments for band_update_task: status: Input should be 'pending', "
                "'in_progress', 'blocked', 'in_review', 'failed' or 'completed'"
            )
            assert await err("band_list_tasks", {"state": "open"}) == (
                "Invalid arguments for band_list_tasks: state: Input should be 'active', "
                "'cancelled', 'superseded', 'archived' or 'all'"
            )
            missing = await err("band_get_task", {"id": "99"})
            assert missing.startswith("Error executing band_get_task: status_code: 404")
            blank = await err("band_create_task", {"subject": "  "})
            assert blank.startswith("Error executing band_create_task: status_code: 422")
            with pytest.raises(InvalidToolArgumentsError, match="include must be 'history'"):
                await tools.get_board(include="all")
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())
