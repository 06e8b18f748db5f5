"""band-sdk's import path, an alias of :mod:`band.runtime.rooms.context`."""

from band.runtime.rooms.context import *  # noqa: F403
from band.runtime.rooms.context import __all__ as __all__
