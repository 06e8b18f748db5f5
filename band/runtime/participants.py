"""band-sdk's import path, an alias of :mod:`band.runtime.rooms.participants`."""

from band.runtime.rooms.participants import *  # noqa: F403
from band.runtime.rooms.participants import __all__ as __all__
