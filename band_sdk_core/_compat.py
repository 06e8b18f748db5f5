"""Decide once, at import time, whether the compiled accelerators are used."""

from __future__ import annotations

import os
import sys

_TRUE = frozenset({"1", "true", "yes", "on"})


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


#: ``BAND_SDK_CORE_NO_EXTENSIONS=1`` forces the pure-Python implementation.
NO_EXTENSIONS = _flag("BAND_SDK_CORE_NO_EXTENSIONS") or sys.implementation.name != "cpython"
#: ``BAND_SDK_CORE_REQUIRE_EXTENSIONS=1`` turns a missing compiled module into an ImportError.
REQUIRE_EXTENSIONS = _flag("BAND_SDK_CORE_REQUIRE_EXTENSIONS")

#: Every compiled module; the package uses all of them or none (one flag tells the truth).
COMPILED_MODULES = (
    "_ordered_c",
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
