"""The frameworks tested in venvs of their own (tests/frameworks) import lazily here too: without
the extra, ``from band.adapters import ...`` fails with one line naming it."""

from __future__ import annotations

import subprocess
import sys

from .framework_helpers import import_without


def test_google_adk_without_the_extra_names_it() -> None:
    assert (
        import_without("google.adk", "GoogleADKAdapter GoogleADKAdapterConfig")
        == [
            "GoogleADKAdapter needs the [google-adk] extra: pip install 'band-open-sdk[google-adk]'"
        ]
        * 2
    )


def test_crewai_without_the_extra_names_it() -> None:
    assert (
        import_without("crewai", "CrewAIAdapter CrewAIAdapterConfig")
        == ["CrewAIAdapter needs the [crewai] extra: pip install 'band-open-sdk[crewai]'"] * 2
    )


def test_the_crewai_helpers_without_the_extra_name_it() -> None:
    """band.integrations.crewai (and its tools/runtime modules) say the same one line."""
    line = "band.integrations.crewai needs the [crewai] extra: pip install 'band-open-sdk[crewai]'"
    for module in ("band.integrations.crewai", "band.integrations.crewai.tools"):
        code = f"try:\n    import {module}\nexcept ImportError as exc:\n    print(exc)\n"
        done = subprocess.run(
            [sys.executable, "-I", "-c", "import sys; sys.modules['crewai'] = None\n" + code],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert done.stdout.splitlines() == [line], module
