"""band-sdk's adapter lifecycle (``band.runtime.startup``): accept, start, dispose, release.

The functions are the runtime's own path (``AgentRuntime.start``/``stop`` and
``OneShotInvoker`` call them): the last test drives a real agent on band dev and counts its
adapter's hooks.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

import pytest
from bandtest.platform import RestartablePlatform

from band import Agent
from band.core import SimpleAdapter
from band.core.exceptions import BandConfigError
from band.core.types import Capability
from band.runtime.startup import (
    accept_adapter,
    arm_adapter,
    dispose_adapter,
    dispose_framework,
    refuse_recursive_shutdown,
    release_adapter,
    start_adapter,
)

from .conftest import agent_in_room, wait_for


class Recorder(SimpleAdapter[Any]):
    """Records its lifecycle hooks; ``fail_cleanup`` makes cleanup_all raise."""

    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset({Capability.FILES})

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.calls: list[str] = []
        self.fail_cleanup = False
        self.during_cleanup: Any = None

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self.calls.append(f"started {agent_name}")

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.calls.append(f"message {msg.content}")

    async def cleanup_all(self) -> None:
        self.calls.append("cleanup_all")
        if self.during_cleanup is not None:
            self.during_cleanup()
        if self.fail_cleanup:
            raise RuntimeError("cleanup broke")


class Bare:
    """A FrameworkAdapter that is not a SimpleAdapter (band.core.FrameworkAdapter's hooks)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def on_event(self, inp: Any) -> None:
        self.calls.append("event")

    async def on_cleanup(self, room_id: str) -> None:
        self.calls.append(f"cleanup {room_id}")

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        self.calls.append(f"started {agent_name}")

    async def cleanup_all(self) -> None:
        self.calls.append("cleanup_all")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_start_negotiates_features_and_dispose_tears_down_once() -> None:
    adapter = Recorder(capabilities=[Capability.FILES])
    flags = {"ff_file_transfer": False}

    async def go() -> None:
        await start_adapter(adapter, agent_name="Ann", agent_description="d", feature_flags=flags)
        assert adapter.agent_name == "Ann"
        assert adapter.capabilities == frozenset()  # the deployment serves no files
        assert await dispose_adapter(adapter) is True
        assert await dispose_adapter(adapter) is True  # again: nothing left to tear down
        await dispose_framework(adapter)
        await start_adapter(adapter, agent_name="Ann", agent_description="d", feature_flags=None)
        await dispose_framework(adapter)

    run(go())
    assert adapter.calls == ["started Ann", "cleanup_all", "started Ann", "cleanup_all"]


def test_unknown_flags_keep_the_features() -> None:
    adapter = Recorder(capabilities=[Capability.FILES])
    run(start_adapter(adapter, agent_name="A", agent_description="d", feature_flags=None))
    assert adapter.capabilities == frozenset({Capability.FILES})


def test_an_accepted_adapter_never_started_is_not_torn_down() -> None:
    accepted, loose = Recorder(), Recorder()
    assert accept_adapter(accepted, object()) is False  # not exclusive
    run(dispose_framework(accepted))
    run(dispose_framework(loose))  # never accepted: its teardown runs (a host lost track)
    assert accepted.calls == [] and loose.calls == ["cleanup_all"]
    arm_adapter(accepted)
    run(dispose_framework(accepted))
    assert accepted.calls == ["cleanup_all"]


def test_one_exclusive_owner() -> None:
    adapter, first, second = Recorder(), object(), object()
    assert accept_adapter(adapter, first, exclusive=True) is True
    assert accept_adapter(adapter, first, exclusive=True) is True  # the same host again
    with pytest.raises(BandConfigError, match="another host"):
        accept_adapter(adapter, second, exclusive=True)
    assert accept_adapter(adapter, second) is False  # sharing, not owning: allowed
    started = Recorder()
    run(start_adapter(started, agent_name="A", agent_description="d", feature_flags={}))
    with pytest.raises(BandConfigError, match="another host"):
        accept_adapter(started, first, exclusive=True)  # runs already, without an owner


def test_a_bare_framework_adapter_only_gets_its_hooks() -> None:
    bare = Bare()

    async def go() -> None:
        assert accept_adapter(bare, object(), exclusive=True) is False
        await start_adapter(bare, agent_name="B", agent_description="d", feature_flags={})
        assert await dispose_adapter(bare, work_settled=False) is True
        assert await release_adapter(bare) is True

    run(go())
    assert bare.calls == ["started B", "cleanup_all", "cleanup_all"]


def test_unsettled_work_leaves_disposal_incomplete() -> None:
    adapter = Recorder()

    async def go() -> list[bool]:
        await start_adapter(adapter, agent_name="A", agent_description="d", feature_flags={})
        return [
            await dispose_adapter(adapter, work_settled=False),
            await dispose_adapter(adapter, work_settled=True),
        ]

    assert run(go()) == [False, True]
    assert adapter.calls == ["started A", "cleanup_all"]  # the framework part ran once


def test_shutdown_from_inside_cleanup_is_refused() -> None:
    adapter = Recorder()
    adapter.during_cleanup = lambda: refuse_recursive_shutdown(adapter)

    async def go() -> None:
        await start_adapter(adapter, agent_name="A", agent_description="d", feature_flags={})
        with pytest.raises(BandConfigError, match="inside the adapter's cleanup"):
            await dispose_adapter(adapter)
        refuse_recursive_shutdown(adapter)  # outside the disposal: fine
        with pytest.raises(BandConfigError, match="being disposed"):
            adapter.during_cleanup = lambda: accept_adapter(adapter, object())
            await dispose_adapter(adapter)

    run(go())


def test_release_logs_a_failed_teardown_and_keeps_it_pending(
    caplog: pytest.LogCaptureFixture,
) -> None:
    adapter = Recorder()
    adapter.fail_cleanup = True

    async def go() -> list[bool]:
        await start_adapter(adapter, agent_name="A", agent_description="d", feature_flags={})
        failed = await release_adapter(adapter)
        with pytest.raises(RuntimeError, match="cleanup broke"):
            await dispose_adapter(adapter)
        adapter.fail_cleanup = False
        return [failed, await release_adapter(adapter)]

    with caplog.at_level(logging.ERROR, logger="band.runtime.lifecycle"):
        assert run(go()) == [False, True]
    assert adapter.calls == ["started A", "cleanup_all", "cleanup_all", "cleanup_all"]
    assert "disposing the adapter failed" in caplog.text and "cleanup broke" in caplog.text


def test_the_runtime_starts_and_disposes_through_them(platform: RestartablePlatform) -> None:
    """A real agent on band dev: one start, one teardown, even when stopped twice."""
    live, aid, key, _ = agent_in_room(platform, "Life")
    adapter = Recorder()

    async def go() -> None:
        agent = Agent.create(
            adapter=adapter, agent_id=aid, api_key=key, rest_url=live.rest, ws_url=live.ws
        )
        await agent.start()
        await wait_for(lambda: agent.is_running)
        await agent.stop()
        await agent.stop()

    run(go())
    assert adapter.calls == ["started Life", "cleanup_all"]
