"""The ACP client side's constants and permission helpers under band-sdk's module name.

Our ACP client runtime is ``process.ACPRoomProcess`` (one agent process per room) driven by
``ACPClientAdapter``; these are the values it runs with and the helpers it answers with.
"""

from __future__ import annotations

from .permissions import *  # noqa: F403 -- band-sdk's permission and elicitation helpers
from .permissions import __all__ as _permissions
from .process import STDERR_TAIL_LINES, STREAM_LIMIT

__all__ = ["ACP_STDIO_LIMIT_BYTES", "STDERR_TAIL_LINES", *_permissions]

#: the agent's stdio line limit (asyncio's 64 KiB default is too small for large tool output)
ACP_STDIO_LIMIT_BYTES = STREAM_LIMIT
