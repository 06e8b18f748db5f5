"""Facade: event-payload validation and memory taxonomy checks.

Only the pure-Python implementation exists for now; the compiled twin joins later.
"""

from __future__ import annotations

from ._payload_py import validate_event_payload, validate_memory_type_for_system

__all__ = ["validate_event_payload", "validate_memory_type_for_system"]
