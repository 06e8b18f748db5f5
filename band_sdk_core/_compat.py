"""Decide once, at import time, whether the compiled accelerators are used."""

from __future__ import annotations

import os
import sys

#: What turns a flag on: ``band.config.env.TRUE_VALUES`` (pydantic's ``True`` strings), copied
#: because the core imports nothing from ``band``; tests/runtime/test_config.py holds them equal.
TRUE_VALUES = frozenset({"1", "true", "yes", "on", "t", "y"})


def env_flag(name: str) -> bool:
    """True when ``name`` (any case, as ``band`` reads settings) is set to one of TRUE_VALUES."""
    wanted = name.upper()
    value = next((v for k, v in os.environ.items() if k.upper() == wanted), "")
    return value.strip().lower() in TRUE_VALUES


#: ``BAND_SDK_CORE_NO_EXTENSIONS=1`` forces the pure-Python implementation.
NO_EXTENSIONS = env_flag("BAND_SDK_CORE_NO_EXTENSIONS") or sys.implementation.name != "cpython"
#: ``BAND_SDK_CORE_REQUIRE_EXTENSIONS=1`` turns a missing compiled module into an ImportError.
REQUIRE_EXTENSIONS = env_flag("BAND_SDK_CORE_REQUIRE_EXTENSIONS")

#: Every compiled module; the package uses all of them or none (one flag tells the truth).
COMPILED_MODULES = (
    "_linked_c",
    "_strmap_c",
    "_ordered_c",
    "_typename_c",
    "_retry_c",
    "_claims_c",
    "_roster_c",
    "_session_c",
    "_turn_c",
    "_json_c",
    "_payload_c",
    "_delivery_c",
    "_activity_c",
    "_subscriptions_c",
    "_decisions_c",
    "_push_c",
)

USING_EXTENSIONS = False
if not NO_EXTENSIONS:
    try:
        import importlib

        for _name in COMPILED_MODULES:
            importlib.import_module(f"band_sdk_core.{_name}")
    except ImportError:
        if REQUIRE_EXTENSIONS:
            raise
    else:
        USING_EXTENSIONS = True
