"""An agent written against band-sdk 6.0.1's documented API only (run unchanged on both).

Answers the first message, exercises the typed tool results, then stops itself and prints
what it saw as JSON. Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL.
"""

import asyncio
import json
import os

from band import Agent, configure_logging
from band.core.simple_adapter import SimpleAdapter

results = {}


class Worker(SimpleAdapter):
    done: asyncio.Event

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):
        sent = await tools.send_message("on it", mentions=[msg.sender_id])
        results["send_message.id"] = isinstance(sent.id, str)
        results["send_message.recipients"] = len(sent.recipients)
        peers = await tools.lookup_peers()
        results["lookup_peers.total_count"] = peers.metadata.total_count
        results["lookup_peers.names"] = sorted(p.name for p in peers.data)
        mem = await tools.store_memory(
            content="likes tea",
            system="long_term",
            type="semantic",
            segment="user",
            thought="noted",
            scope="agent",
        )
        results["store_memory"] = [isinstance(mem.id, str), mem.content, mem.scope]
        task = await tools.create_task("Write the report", detail="by Friday")
        updated = await tools.update_task(task.id, status="in_progress", active_form="Writing")
        results["task"] = [task.number, task.subject, updated.assignments[0].status]
        await tools.set_board(goal_title="Ship it")
        results["get_board.goal_title"] = (await tools.get_board()).goal_title
        people = await tools.get_participants()
        results["participants"] = sorted(p.type for p in people)
        context = await tools.fetch_room_context(room_id=room_id, page=1, page_size=10)
        results["context"] = [sorted(context), context["meta"]["page"]]
        results["is_session_bootstrap"] = is_session_bootstrap
        self.done.set()


async def main():
    configure_logging("WARNING")
    adapter = Worker()
    adapter.done = asyncio.Event()
    agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])

    async def stop_when_done():
        await adapter.done.wait()
        await agent.stop(timeout=5)

    stopper = asyncio.ensure_future(stop_when_done())
    await agent.run(shutdown_timeout=5, install_signal_handlers=False)
    await stopper
    results["is_running_after_run"] = agent.is_running
    results["is_contacts_subscribed"] = agent.is_contacts_subscribed
    print(json.dumps(results, sort_keys=True))


asyncio.run(main())
