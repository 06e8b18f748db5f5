"""Identifier arguments of the platform tools: what may stand in a URL path segment."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

__all__ = ["ID_ERROR", "ResourceId", "check_id"]

ID_ERROR = "ID must contain only ASCII letters, digits, underscores or hyphens"
_ID = re.compile(r"[A-Za-z0-9_-]+")


def check_id(value: str) -> str:
    """Return ``value`` when it is safe inside a URL path segment, else raise ValueError."""
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ValueError(ID_ERROR)
    return value


ResourceId = Annotated[str, AfterValidator(check_id)]
