"""The event loop an agent process runs on: uvloop's when it is installed, else asyncio's.

An answered message costs an agent a dozen loop wake-ups (four socket pushes, three HTTP
exchanges, the turn's steps); uvloop runs the loop, its timers and its transports in C, which
saved 10 to 30% of an agent's CPU per message in the e2e bench. It is an optional extra
(``pip install "band-open-sdk[uvloop]"``, on the platforms it ships wheels for), used by
:func:`run` (and :meth:`band.Agent.run_sync`) whenever it can be imported;
``BAND_UVLOOP=0`` keeps asyncio's own loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from band.config.env import env_flag

__all__ = ["ENV", "loop_factory", "run"]

log = logging.getLogger("band.runtime.eventloop")

#: The environment variable that switches uvloop off (a ``FALSE_VALUES`` value: ``0``, ``false``,
#: ``no``, ``off``, ...).
ENV = "BAND_UVLOOP"

T = TypeVar("T")

_logged = False


def _log_once(message: str, *args: object) -> None:
    global _logged
    if not _logged:
        _logged = True
        log.debug(message, *args)


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when uvloop is installed and not switched off, else None
    (asyncio's default loop)."""
    if not env_flag(ENV, default=True):
        _log_once("event loop: asyncio (%s is off)", ENV)
        return None
    try:
        import uvloop
    except ImportError:
        _log_once("event loop: asyncio (uvloop is not installed)")
        return None
    _log_once("event loop: uvloop %s", getattr(uvloop, "__version__", "?"))
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], *, debug: bool | None = None) -> T:
    """``asyncio.run(main)`` on the loop :func:`loop_factory` picks."""
    with asyncio.Runner(debug=debug, loop_factory=loop_factory()) as runner:
        return runner.run(main)
