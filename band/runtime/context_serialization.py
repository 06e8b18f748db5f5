"""One room-context message as the plain dict band-sdk's runtime hands on (its
``context_item_to_dict``), from a typed row (ours or band_rest's) or the REST JSON itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["context_item_to_dict"]


def _field(item: object, name: str, default: Any = None) -> Any:
    """``item``'s ``name`` (a key of a mapping, an attribute otherwise), ``default`` if absent."""
    if isinstance(item, Mapping):
        return item.get(name, default)
    return getattr(item, name, default)


def _plain(metadata: object) -> dict[str, Any]:
    """Message metadata as a dict: a dict as is, a model through ``model_dump()``, else {}."""
    if isinstance(metadata, dict):
        return metadata
    dump = getattr(metadata, "model_dump", None)
    dumped = dump() if callable(dump) else None
    return dumped if isinstance(dumped, dict) else {}


def context_item_to_dict(item: Any) -> dict[str, Any]:
    """``item`` (band.core.wire.MessageRow, band_rest's ChatMessage or a JSON row) as
    ``{id, content, sender_id, sender_type, sender_name, message_type, metadata, inserted_at,
    created_at}``: the sender's ``name`` stands in for a missing ``sender_name``, an absent
    field gets its empty value ("" or "text"), ``created_at`` repeats ``inserted_at``.

    Raises ValueError when ``item`` has no ``id``."""
    ident = _field(item, "id")
    if ident is None:
        raise ValueError(f"a context message needs an id: {item!r}")
    inserted_at = _field(item, "inserted_at")
    return {
        "id": ident,
        "content": _field(item, "content", ""),
        "sender_id": _field(item, "sender_id", ""),
        "sender_type": _field(item, "sender_type", ""),
        "sender_name": _field(item, "sender_name") or _field(item, "name"),
        "message_type": _field(item, "message_type", "text"),
        "metadata": _plain(_field(item, "metadata", {})),
        "inserted_at": inserted_at,
        "created_at": inserted_at,
    }
