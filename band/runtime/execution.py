"""band-sdk's import path of the rooms' execution (:mod:`band.runtime.rooms.execution`) and of
``ExecutionContext`` (:mod:`band.runtime.composed`)."""

from band.runtime.composed import ExecutionContext
from band.runtime.rooms.execution import *  # noqa: F403
from band.runtime.rooms.execution import __all__ as _rooms_all

__all__ = ["ExecutionContext", *_rooms_all]
