"""Frameworks that cannot share the dev venv (their pins clash with another framework's or
ours) are tested here, each in a venv of its own that a Makefile target builds
(``make test-google-adk``, ``make test-crewai``); a venv without the framework does not
collect its module."""

from __future__ import annotations

import importlib.util

import pytest

from band.testing import ScriptedModel

#: test module -> the framework module it needs
_NEEDS = {
    "test_google_adk_adapter.py": "google.adk",
    "test_google_adk_converter.py": "google.adk",
    "test_crewai_adapter.py": "crewai",
    "test_crewai_converter.py": "crewai",
    "test_crewai_integrations.py": "crewai",
}


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:
        return True


collect_ignore = [test for test, module in _NEEDS.items() if _missing(module)]


@pytest.fixture
def model(scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    """The scripted model, its URLs and key in this process's environment (where the
    frameworks' clients read them)."""
    for name, value in scripted_model.env().items():
        monkeypatch.setenv(name, value)
    return scripted_model
