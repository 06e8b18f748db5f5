"""Capability.FILES through a running agent: negotiated with the platform, used in a turn."""

from __future__ import annotations

import asyncio
from typing import Any

from bandtest.platform import RestartablePlatform

from band.core import SimpleAdapter
from band.core.types import AdapterFeatures
from band.runtime.capabilities import (
    CAPABILITY_FEATURE_FLAGS,
    Capability,
    FeatureFlag,
    prune_unsupported,
)
from band.runtime.tools import FILE_TOOL_NAMES

from .conftest import Human, agent_in_room, fast_agent, wait_for


class FileSharer(SimpleAdapter[Any]):
    """Answers each message with a file holding its text, as a model's tool call would."""

    SUPPORTED_CAPABILITIES = frozenset({Capability.FILES})

    def __init__(self) -> None:
        super().__init__(capabilities=[Capability.FILES])
        self.schemas: list[str] = []
        self.read: dict[str, Any] | None = None

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        schemas = tools.get_openai_tool_schemas(capabilities=self.capabilities)
        self.schemas = [s["function"]["name"] for s in schemas]
        args = {"content": msg.content, "filename": "echo.txt", "mentions": [msg.sender_id]}
        sent = await tools.execute_tool_call("band_send_room_file", args)
        self.read = await tools.read_room_file(sent["attachment"]["id"])


def test_an_agent_shares_a_file_in_its_turn(platform: RestartablePlatform) -> None:
    live, aid, key, rid = agent_in_room(platform, "Sharer")

    async def scenario() -> None:
        human = Human(live)
        adapter = FileSharer()
        async with fast_agent(live, adapter, aid, key):
            # band dev reports ff_file_transfer, so the capability stays
            assert adapter.capabilities == {Capability.FILES}
            mid = await human.send(rid, aid, "keep this")
            await wait_for(lambda: human.status_is(rid, mid, aid, "processed"))
        [reply] = await human.replies(rid, aid)
        [att] = reply["attachments"]
        assert att["name"] == "echo.txt" and reply["content"].endswith("Shared a file: echo.txt")
        assert FILE_TOOL_NAMES <= set(adapter.schemas) and len(adapter.schemas) == 11
        assert adapter.read is not None and adapter.read["text"].endswith("keep this")
        await human.aclose()

    asyncio.run(scenario())


def test_capabilities_the_platform_does_not_serve_are_pruned() -> None:
    features = AdapterFeatures(capabilities=frozenset({Capability.FILES, Capability.MEMORY}))
    assert CAPABILITY_FEATURE_FLAGS == {Capability.FILES: FeatureFlag.FILE_TRANSFER}
    assert FeatureFlag.FILE_TRANSFER == "ff_file_transfer"
    # no answer: nothing to go by, nothing dropped
    assert prune_unsupported(features, None) is features
    assert prune_unsupported(features, {"ff_file_transfer": True}) is features
    for flags in ({}, {"ff_file_transfer": False}, {"ff_file_transfer": "true"}):
        pruned = prune_unsupported(features, flags)
        assert pruned.capabilities == {Capability.MEMORY}
        assert pruned.emit == features.emit
