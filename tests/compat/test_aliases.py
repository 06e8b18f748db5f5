"""band-sdk's import paths for moved modules are thin aliases: the same objects, nothing more."""

from __future__ import annotations

import importlib

import pytest

# band-sdk 6.0.1 import path -> where the code lives now (README, "Architecture")
ALIASES: dict[str, str] = {
    "band.runtime.context": "band.runtime.rooms.context",
    "band.runtime.messages": "band.runtime.rooms.messages",
    "band.runtime.participants": "band.runtime.rooms.participants",
    "band.runtime.contact_handler": "band.runtime.contacts.handler",
    "band.runtime.contact_tools": "band.runtime.contacts.tools",
    "band.runtime.custom_tools": "band.runtime.tools.custom",
}
#: band-sdk paths that gather names from more than one module: path -> (main module, others)
GATHERED: dict[str, tuple[str, tuple[str, ...]]] = {
    # the rooms' execution and band-sdk's ExecutionContext (band.runtime.composed)
    "band.runtime.execution": ("band.runtime.rooms.execution", ("band.runtime.composed",)),
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


@pytest.mark.parametrize("alias", sorted(GATHERED))
def test_gathering_alias_exports_the_real_objects(alias: str) -> None:
    main, others = GATHERED[alias]
    alias_module = importlib.import_module(alias)
    sources = [importlib.import_module(m) for m in (main, *others)]
    exported = set(alias_module.__all__)
    assert set(sources[0].__all__) <= exported  # every name of the main module
    for name in exported:
        owners = [m for m in sources if name in m.__all__]
        assert owners, f"{alias}.{name} is no name of {main} or {others}"
        assert getattr(alias_module, name) is getattr(owners[0], name), f"{alias}.{name}"
    public = {n for n in vars(alias_module) if n.isidentifier() and not n.startswith("_")}
    assert public == exported


def test_contacts_package_keeps_band_sdk_names() -> None:
    contacts = importlib.import_module("band.runtime.contacts")
    config = importlib.import_module("band.runtime.contacts.config")
    for name in ("ContactEventConfig", "ContactEventStrategy"):
        assert getattr(contacts, name) is getattr(config, name)
