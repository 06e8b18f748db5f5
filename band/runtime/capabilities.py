"""Optional tool groups an adapter can ask for on top of the always-on chat tools."""

from __future__ import annotations

import enum

__all__ = ["Capability"]


class Capability(enum.StrEnum):
    """A platform feature whose tools join the model's tool list when requested."""

    MEMORY = "memory"
    CONTACTS = "contacts"
    FILES = "files"
    TASKS = "tasks"
