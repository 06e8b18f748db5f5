"""``Capability`` (defined in band.core.types) and the platform flags that gate it."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar

from band.core.types import Capability  # defined at band-sdk's path; re-exported here
from band.core.wire import JsonValue

if TYPE_CHECKING:
    from band.core.types import AdapterFeatures

__all__ = ["CAPABILITY_FEATURE_FLAGS", "Capability", "FeatureFlag", "prune_unsupported"]

_F = TypeVar("_F", bound="AdapterFeatures")


# --- negotiation with the platform's deployment flags -------------------------------------------


class FeatureFlag(enum.StrEnum):
    """Keys of ``/agent/me``'s ``feature_flags`` that the SDK reads."""

    FILE_TRANSFER = "ff_file_transfer"


#: The deployment flag each gated capability needs (``True`` in ``feature_flags``).
CAPABILITY_FEATURE_FLAGS: dict[Capability, FeatureFlag] = {
    Capability.FILES: FeatureFlag.FILE_TRANSFER,
}


def prune_unsupported(features: _F, feature_flags: Mapping[str, JsonValue] | None) -> _F:
    """``features`` without the capabilities whose flag the platform does not set to True.

    ``None`` flags (unknown: no answer) prune nothing; a missing key counts as off. The same
    object comes back when nothing is dropped.
    """
    if feature_flags is None:
        return features
    kept = frozenset(
        c
        for c in features.capabilities
        if c not in CAPABILITY_FEATURE_FLAGS
        or feature_flags.get(CAPABILITY_FEATURE_FLAGS[c]) is True
    )
    if kept == features.capabilities:
        return features
    return dataclasses.replace(features, capabilities=kept)
