"""The ACP client side's constants and permission helpers under band-sdk's module name.

Our ACP client runtime is ``process.ACPRoomProcess`` (one agent process per room) driven by
``ACPClientAdapter``; these are the values it runs with and the helpers it answers with.
"""

from __future__ import annotations

from .permissions import (
    ALLOW_ALWAYS_KIND,
    ElicitationHandler,
    ElicitationNarrator,
    PermissionHandler,
    PermissionNarrator,
    allow_permission,
    cancel_permission,
    elicitation_requested_schema,
    elicitation_session_id,
    option_id_of_kind,
    permission_option_ids,
    select_allow_option_id,
)
from .process import STDERR_TAIL_LINES, STREAM_LIMIT

__all__ = [
    "ACP_STDIO_LIMIT_BYTES",
    "ALLOW_ALWAYS_KIND",
    "STDERR_TAIL_LINES",
    "ElicitationHandler",
    "ElicitationNarrator",
    "PermissionHandler",
    "PermissionNarrator",
    "allow_permission",
    "cancel_permission",
    "elicitation_requested_schema",
    "elicitation_session_id",
    "option_id_of_kind",
    "permission_option_ids",
    "select_allow_option_id",
]

#: the agent's stdio line limit (asyncio's 64 KiB default is too small for large tool output)
ACP_STDIO_LIMIT_BYTES = STREAM_LIMIT
