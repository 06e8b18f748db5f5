"""band-sdk's import path, an alias of :mod:`band.runtime.tools.custom`."""

from band.runtime.tools.custom import *  # noqa: F403
from band.runtime.tools.custom import __all__ as __all__
