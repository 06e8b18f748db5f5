"""band-sdk's import path, an alias of :mod:`band.runtime.rooms.messages`."""

from band.runtime.rooms.messages import *  # noqa: F403
from band.runtime.rooms.messages import __all__ as __all__
