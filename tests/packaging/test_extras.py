"""A feature whose extra is missing says so in one line naming the extra."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

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
    assert declared["all"] == [f"band-open-sdk[{','.join(_extras.EXTRAS)}]"]
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
