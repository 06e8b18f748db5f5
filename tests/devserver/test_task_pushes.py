"""task_created / task_updated pushes on tasks:{id} for every participant of the room."""

from __future__ import annotations

from .conftest import Live, room_with
from .test_socket import Client, client, connect, run

A = "/api/v1/agent"


def test_task_pushes_reach_room_participants_only(live: Live) -> None:
    aid, _, akey = live.register("Tasker")
    oid, _, okey = live.register("Outsider")
    uid = live.app.state.user_id
    rid = room_with(live, aid)
    tasks = f"{A}/chats/{rid}/tasks"

    async def body() -> None:
        async with (
            connect(live, live.user_key) as uws,
            connect(live, akey) as aws,
            connect(live, okey) as ows,
        ):
            person, agent, outsider = Client(uws), Client(aws), Client(ows)
            assert (await person.join(f"tasks:{uid}"))["status"] == "ok"
            assert (await agent.join(f"tasks:{aid}"))["status"] == "ok"
            assert (await outsider.join(f"tasks:{oid}"))["status"] == "ok"

            r = live.agent(akey, "POST", tasks, json={"subject": "Write report"})
            assert r.status_code == 201, r.text
            task = r.json()["data"]
            for client, pid in ((person, uid), (agent, aid)):
                frame = await client.push("task_created")
                assert frame[2] == f"tasks:{pid}" and frame[4] == task
            assert task["chat_room_id"] == rid and task["number"] == 1

            r = live.agent(akey, "POST", f"{tasks}/{task['id']}", json={"status": "in_progress"})
            assert r.status_code == 200, r.text
            updated = r.json()["data"]
            for client in (person, agent):
                got = (await client.push("task_updated"))[4]
                assert got == updated and got["overall_status"] == "in_progress"

            # superseding creates the new task and updates the old one
            r = live.agent(akey, "POST", tasks, json={"subject": "v2", "supersedes_id": "#1"})
            assert r.status_code == 201, r.text
            new = r.json()["data"]
            assert (await person.push("task_created"))[4] == new
            old = (await person.push("task_updated"))[4]
            assert old["id"] == task["id"] and old["state"] == "superseded"
            assert old["superseded_by_id"] == new["id"]

            # a refused update pushes nothing; the outsider never hears of the room's tasks
            bad = live.agent(akey, "POST", f"{tasks}/999", json={"status": "completed"})
            assert bad.status_code == 404
            await person.nothing("task_updated")
            await outsider.nothing("task_created", wait=0.1)
            await outsider.nothing("task_updated", wait=0.1)

    run(body)


def test_tasks_topic_is_only_ones_own(live: Live) -> None:
    aid, _, akey = live.register("Own")
    uid = live.app.state.user_id

    async def body() -> None:
        async with client(live, akey) as c:
            denied = await c.join(f"tasks:{uid}")
            assert denied == {"status": "error", "response": {"reason": "unauthorized"}}
            assert (await c.join(f"tasks:{aid}"))["status"] == "ok"
        async with client(live, live.user_key) as c:
            denied = await c.join(f"tasks:{aid}")
            assert denied == {"status": "error", "response": {"reason": "unauthorized"}}

    run(body)
