"""band-sdk's import paths for moved modules are thin aliases: the same objects, nothing more."""

from __future__ import annotations

import importlib

import pytest

# band-sdk 6.0.1 import path -> where the code lives now (README, "Architecture")
ALIASES = {
    "band.runtime.execution": "band.runtime.rooms.execution",
    "band.runtime.context": "band.runtime.rooms.context",
    "band.runtime.messages": "band.runtime.rooms.messages",
    "band.runtime.participants": "band.runtime.rooms.participants",
    "band.runtime.contact_handler": "band.runtime.contacts.handler",
    "band.runtime.contact_tools": "band.runtime.contacts.tools",
    "band.runtime.custom_tools": "band.runtime.tools.custom",
}


@pytest.mark.parametrize(("alias", "real"), sorted(ALIASES.items()))
def test_alias_exports_the_real_objects(alias: str, real: str) -> None:
    alias_module = importlib.import_module(alias)
    real_module = importlib.import_module(real)
    assert alias_module.__all__, alias
    for name in alias_module.__all__:
        assert getattr(alias_module, name) is getattr(real_module, name), f"{alias}.{name}"
    # an alias holds nothing but the real module's public names
    public = {n for n in vars(alias_module) if n.isidentifier() and not n.startswith("_")}
    assert public == set(alias_module.__all__) == set(real_module.__all__)


def test_contacts_package_keeps_band_sdk_names() -> None:
    contacts = importlib.import_module("band.runtime.contacts")
    config = importlib.import_module("band.runtime.contacts.config")
    for name in ("ContactEventConfig", "ContactEventStrategy"):
        assert getattr(contacts, name) is getattr(config, name)
