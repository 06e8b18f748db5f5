"""band-sdk's import path, an alias of :mod:`band.runtime.rooms.execution`."""

from band.runtime.rooms.execution import *  # noqa: F403
from band.runtime.rooms.execution import __all__ as __all__
