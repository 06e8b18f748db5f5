"""The configuration page names every environment variable the code reads."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "configuration.md"

# ``"BAND_..."`` literals in band/ that are not environment variables
NOT_VARIABLES = {
    "BAND_MCP_SERVER_NAME",  # a constant's name in band.runtime.tools.registry's __all__
    "BAND_REST_NAMES",  # a constant's name in band.client.generated's __all__
}
READS = re.compile(
    r"""(?:env_value|env_flag|environ\.get|getenv)\(\s*["']([A-Z][A-Z0-9_]+)["']"""
    r"""|environ\[["']([A-Z][A-Z0-9_]+)["']\]"""
)


def variables_in_code() -> set[str]:
    """Every BAND_* literal and every name an environment reader is given, in the packages."""
    found: set[str] = set()
    for top in ("band", "band_sdk_core"):
        for source in (ROOT / top).rglob("*.py"):
            text = source.read_text()
            found |= set(re.findall(r"""["'](BAND_[A-Z0-9_]+)["']""", text))
            found |= {a or b for a, b in READS.findall(text)}
    return found - NOT_VARIABLES


def test_every_variable_is_documented() -> None:
    page = PAGE.read_text()
    variables = variables_in_code()
    assert {"BAND_REST_URL", "BAND_WS_URL", "BAND_LOG_LEVEL"} <= variables
    missing = sorted(v for v in variables if f"`{v}`" not in page)
    assert missing == [], f"environment variables read by the code but not documented: {missing}"
