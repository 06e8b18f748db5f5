"""A feature whose extra is missing says so in one line naming the extra."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from band import _extras

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _run(code: str) -> subprocess.CompletedProcess[str]:
    # -I: the installed package; sys.modules[name] = None makes ``import name`` fail as if absent
    return subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_every_feature_extra_is_declared() -> None:
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    assert set(_extras.EXTRAS) <= set(declared)
    # google-adk and crewai pin what the dev venv outgrew: tested in venvs of their own (Makefile)
    apart = {"google-adk", "crewai"}
    together = ",".join(extra for extra in _extras.EXTRAS if extra not in apart)
    assert declared["all"] == [f"band-open-sdk[{together}]"]
    assert "band-open-sdk[all]" in declared["dev"]  # make test runs every optional feature


def test_band_mcp_without_mcp_prints_the_hint() -> None:
    done = _run(
        "import sys; sys.modules['mcp'] = None\n"
        "from band.mcp.cli import main\n"
        "raise SystemExit(main([]))\n"
    )
    assert done.returncode == 1
    assert done.stderr == "band-mcp needs the [mcp] extra: pip install 'band-open-sdk[mcp]'\n"


def test_the_acp_adapter_without_acp_raises_the_hint() -> None:
    done = _run(
        "import sys; sys.modules['acp'] = None\n"
        "import band.adapters\n"
        "band.adapters.AnthropicAdapterConfig()  # the other adapters still load\n"
        "try:\n"
        "    from band.adapters import ACPClientAdapter\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc, exc.name)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "MissingExtraError The ACP adapter (band.integrations.acp) needs the [acp] extra: "
        "pip install 'band-open-sdk[acp]' acp\n"
    )


FRAMEWORK_ADAPTERS = [
    ("langgraph", "LangGraphAdapter", "langgraph"),
    ("pydantic_ai", "PydanticAIAdapter", "pydantic-ai"),
    ("google.genai", "GeminiAdapter", "gemini"),
]


@pytest.mark.parametrize(("module", "name", "extra"), FRAMEWORK_ADAPTERS)
def test_a_framework_adapter_without_its_extra_prints_one_line(
    module: str, name: str, extra: str
) -> None:
    done = _run(f"import sys; sys.modules[{module!r}] = None\nfrom band.adapters import {name}\n")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"error: {name} needs the [{extra}] extra: pip install 'band-open-sdk[{extra}]'\n"
    )


@pytest.mark.parametrize(("module", "name", "extra"), FRAMEWORK_ADAPTERS)
def test_a_framework_adapter_with_its_extra_imports(module: str, name: str, extra: str) -> None:
    done = _run(f"from band.adapters import {name}, {name}Config\nprint({name}.__name__)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{name}\n"


def test_band_demo_acp_without_acp_prints_the_hint() -> None:
    done = _run(
        "import sys; sys.modules['acp'] = None\n"
        "from band.cli import main\n"
        "raise SystemExit(main(['demo', '--acp']))\n"
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert (
        done.stderr == "band demo --acp needs the [acp] extra: pip install 'band-open-sdk[acp]'\n"
    )


def test_band_adapters_lists_every_lazy_adapter() -> None:
    import band.adapters

    assert sorted(band.adapters.__all__) == sorted(band.adapters._ADAPTERS)
