# cython: annotation_typing=False
"""ParticipantRoster: ordered participant records with change detection."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._base import refuse_copy, refuse_subclasses
from ._errors import check_trace_context, validation_error

__all__ = ["ParticipantRoster"]

_FIELDS = ("name", "type", "handle", "description")


def _read(participant: object) -> list[Any]:
    """Read a participant mapping into ``[id, name, type, handle, description]``."""
    if type(participant) is not dict and not isinstance(participant, Mapping):
        raise TypeError("participant must be a mapping")
    pid = participant.get("id")
    if type(pid) is not str:
        if not isinstance(pid, str):
            raise TypeError("participant field `id` must be a string")
        pid = str.__str__(pid)  # stored and returned as a plain str, never a subclass
    record: list[Any] = [pid]
    for field in _FIELDS:
        value = participant.get(field)
        if value is not None and type(value) is not str:
            if not isinstance(value, str):
                raise TypeError(f"participant field `{field}` must be a string or None")
            value = str.__str__(value)
        record.append(value)
    return record


def _merge(old: list[Any], new: list[Any]) -> None:
    """Overwrite the optional fields of ``old`` with the non-empty strings of ``new``."""
    for index in range(1, 5):
        value = new[index]
        if value:
            old[index] = value


def _as_dict(record: list[Any]) -> dict[str, Any]:
    """The public dict of a record."""
    return {
        "id": record[0],
        "name": record[1],
        "type": record[2],
        "handle": record[3],
        "description": record[4],
    }


class ParticipantRoster:
    """Ordered participant records of one room, with a sent-snapshot for change detection."""

    __slots__ = ("_provider", "_records", "_snapshot")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    def __init__(self, *, trace_context_provider: Callable[[], str | None] | None = None) -> None:
        """Create an empty roster; ``trace_context_provider`` supplies set_all's trace context."""
        self._records: dict[str, list[Any]] = {}
        self._snapshot: list[tuple[Any, ...]] | None = None
        self._provider: object = trace_context_provider

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    def add(self, participant: Mapping[str, Any]) -> bool:
        """Append a new participant (True) or merge into the existing one (False)."""
        record = _read(participant)
        old = self._records.get(record[0])
        if old is None:
            self._records[record[0]] = record
            return True
        _merge(old, record)
        return False

    def remove(self, participant_id: str) -> bool:
        """Remove the participant; True if it existed."""
        if not isinstance(participant_id, str):
            from ._enums import not_instance_message

            raise TypeError(not_instance_message(participant_id, "str"))
        return self._records.pop(participant_id, None) is not None

    def _provided_trace_context(self) -> str | None:
        """Call the provider once; any failure or non-str result gives None."""
        provider = self._provider
        if provider is None or not callable(provider):
            return None
        try:
            value = provider()
        except Exception:
            return None
        return value if isinstance(value, str) else None

    def set_all(
        self, participants: Iterable[Mapping[str, Any]], trace_context: str | None = None
    ) -> None:
        """Replace membership and order with the snapshot, merging known participants."""
        check_trace_context(trace_context)
        records = [_read(participant) for participant in participants]
        context = trace_context
        if context is None:
            context = self._provided_trace_context()
        seen: set[str] = set()
        issues = []
        for index, record in enumerate(records):
            pid = record[0]
            if pid in seen:
                issues.append(
                    (
                        f"participants[{index}].id",
                        "invalid_value",
                        f"duplicate participant id `{pid}` in set_all snapshot",
                    )
                )
            else:
                seen.add(pid)
        if issues:
            raise validation_error(issues, context)
        merged: dict[str, list[Any]] = {}
        for record in records:
            old = self._records.get(record[0])
            if old is not None:
                _merge(old, record)
                record = old
            merged[record[0]] = record
        self._records = merged

    def list(self) -> list[dict[str, Any]]:
        """Fresh participant dicts in roster order."""
        return [_as_dict(record) for record in self._records.values()]

    def changed(self) -> bool:
        """Whether the roster differs from the last ``mark_sent`` snapshot."""
        if self._snapshot is None:
            return True
        return self._snapshot != [tuple(record) for record in self._records.values()]

    def mark_sent(self) -> None:
        """Snapshot the current roster."""
        self._snapshot = [tuple(record) for record in self._records.values()]
