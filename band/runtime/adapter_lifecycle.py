"""An adapter's life in a host: accepted by one owner, started, torn down once, released.

The runtime (``AgentRuntime.start``/``stop``, ``OneShotInvoker``) starts and disposes its
adapter through these functions; band-sdk exports them from ``band.runtime.startup`` for hosts
that compose their own. A ``SimpleAdapter`` is tracked (its owner, whether it was started,
whether ``cleanup_all`` ran since); a bare ``FrameworkAdapter`` only gets its hooks called.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from band.core.exceptions import BandConfigError
from band.core.protocols import FrameworkAdapter
from band.core.simple_adapter import SimpleAdapter
from band.runtime.capabilities import prune_unsupported

__all__ = [
    "accept_adapter",
    "arm_adapter",
    "dispose_adapter",
    "dispose_framework",
    "refuse_recursive_shutdown",
    "release_adapter",
    "start_adapter",
]

log = logging.getLogger("band.runtime.lifecycle")

Adapter = FrameworkAdapter | SimpleAdapter[Any]


@dataclass
class _State:
    """Where one SimpleAdapter is in its life (kept beside it, not on it)."""

    owner: object | None = None
    accepted: bool = False
    started: bool = False  # armed: a start was attempted, so teardown is due
    torn_down: bool = False  # cleanup_all ran since the last start
    disposing: asyncio.Task[Any] | None = None  # the task inside dispose_adapter


_STATES: weakref.WeakKeyDictionary[SimpleAdapter[Any], _State] = weakref.WeakKeyDictionary()


def _state(adapter: SimpleAdapter[Any]) -> _State:
    state = _STATES.get(adapter)
    if state is None:
        state = _STATES[adapter] = _State()
    return state


def accept_adapter(adapter: Adapter, owner: object, *, exclusive: bool = False) -> bool:
    """Record ``owner`` as the host of ``adapter``; True when it now owns it exclusively.

    An exclusive claim on an adapter another host owns, or that was started without an
    owner, raises BandConfigError; so does any claim while the adapter is being disposed.
    A bare FrameworkAdapter is not tracked (False).
    """
    if not isinstance(adapter, SimpleAdapter):
        return False
    state = _state(adapter)
    if state.disposing is not None:
        raise BandConfigError("the adapter is being disposed; wait for its host to stop")
    taken = state.owner is not None and state.owner is not owner
    if exclusive and (taken or (state.owner is None and state.started)):
        raise BandConfigError(
            "the adapter already runs in another host; build a separate adapter for this one"
        )
    if exclusive:
        state.owner = owner
    state.accepted = True
    return exclusive


def arm_adapter(adapter: Adapter) -> None:
    """Mark ``adapter`` as starting: from now on disposing it runs its teardown (once)."""
    if isinstance(adapter, SimpleAdapter):
        state = _state(adapter)
        state.started, state.torn_down = True, False


def refuse_recursive_shutdown(adapter: Adapter) -> None:
    """Raise BandConfigError when called from inside ``adapter``'s own disposal (a cleanup
    hook asking its host to shut down would wait on itself)."""
    if isinstance(adapter, SimpleAdapter):
        task = _state(adapter).disposing
        if task is not None and task is asyncio.current_task():
            raise BandConfigError(
                "shutdown was requested from inside the adapter's cleanup; return from the "
                "cleanup and stop the host from outside it"
            )


async def start_adapter(
    adapter: Adapter,
    *,
    agent_name: str,
    agent_description: str,
    feature_flags: Mapping[str, Any] | None,
) -> None:
    """Start ``adapter`` for the agent: a SimpleAdapter gets its features less the
    capabilities the deployment does not serve (``feature_flags``), a bare FrameworkAdapter
    only ``on_started``. The caller owns the teardown from here, a failed start included."""
    arm_adapter(adapter)
    if isinstance(adapter, SimpleAdapter):
        features = prune_unsupported(adapter.features, feature_flags)
        await adapter.startup(agent_name, agent_description, features=features)
    else:
        await adapter.on_started(agent_name, agent_description)


async def dispose_framework(adapter: Adapter) -> None:
    """Run ``adapter.cleanup_all()``: a tracked adapter once per start (never when it was
    accepted and not started since); any other adapter each time, when it has one."""
    if not isinstance(adapter, SimpleAdapter):
        cleanup: Callable[[], Awaitable[None]] | None = getattr(adapter, "cleanup_all", None)
        if cleanup is not None:
            await cleanup()
        return
    state = _state(adapter)
    if state.torn_down:
        return
    if state.started or not state.accepted:
        await adapter.cleanup_all()
    state.torn_down = True


async def dispose_adapter(adapter: Adapter, *, work_settled: bool = True) -> bool:
    """Tear ``adapter`` down; True when it is done, False while ``work_settled`` is False (the
    host's turns still run: call again once they have settled)."""
    if not isinstance(adapter, SimpleAdapter):
        await dispose_framework(adapter)
        return True
    refuse_recursive_shutdown(adapter)
    state = _state(adapter)
    state.disposing = asyncio.current_task()
    try:
        await dispose_framework(adapter)
    finally:
        state.disposing = None
    return work_settled


async def release_adapter(adapter: Adapter, *, work_settled: bool = True) -> bool:
    """:func:`dispose_adapter` on an error path: a failure is logged, not raised (it must not
    replace the error being unwound); False when the teardown did not complete."""
    try:
        return await dispose_adapter(adapter, work_settled=work_settled)
    except Exception:
        log.exception("disposing the adapter failed")
        return False
