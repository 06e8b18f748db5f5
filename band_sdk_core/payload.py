"""Public facade of event-payload validation: the compiled twin when active, else pure Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._payload_py import validate_event_payload, validate_memory_type_for_system
else:
    from ._payload_c import validate_event_payload, validate_memory_type_for_system

__all__ = ["validate_event_payload", "validate_memory_type_for_system"]
