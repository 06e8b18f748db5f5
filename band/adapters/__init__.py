"""Adapters that connect agent frameworks and protocols to Band rooms."""

from band.adapters.acp import *  # noqa: F403 -- the ACP adapter's public names are this package's
from band.adapters.acp import __all__ as _acp_all

__all__ = [*_acp_all]
