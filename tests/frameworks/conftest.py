"""Frameworks that cannot share the dev venv (their pins clash with another framework's or
ours) are tested here, each in a venv of its own that a Makefile target builds
(``make test-google-adk``, ``make test-crewai``); a venv without the framework does not
collect its module."""

from __future__ import annotations

import importlib.util

#: test module -> the framework module it needs
_NEEDS = {"test_google_adk_adapter.py": "google.adk", "test_crewai_adapter.py": "crewai"}


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:
        return True


collect_ignore = [test for test, module in _NEEDS.items() if _missing(module)]
