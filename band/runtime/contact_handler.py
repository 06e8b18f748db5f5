"""band-sdk's import path, an alias of :mod:`band.runtime.contacts.handler`."""

from band.runtime.contacts.handler import *  # noqa: F403
from band.runtime.contacts.handler import __all__ as __all__
