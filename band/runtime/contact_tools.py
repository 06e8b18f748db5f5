"""band-sdk's import path, an alias of :mod:`band.runtime.contacts.tools`."""

from band.runtime.contacts.tools import *  # noqa: F403
from band.runtime.contacts.tools import __all__ as __all__
