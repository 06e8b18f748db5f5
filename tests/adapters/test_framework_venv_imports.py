"""The frameworks tested in venvs of their own (tests/frameworks) import lazily here too: without
the extra, ``from band.adapters import ...`` fails with one line naming it."""

from __future__ import annotations

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
