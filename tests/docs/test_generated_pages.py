"""The CLI and HTTP API reference pages are generated from the parser and the served OpenAPI."""

from __future__ import annotations

import argparse
import html
import re
from pathlib import Path

import httpx
import pytest

from band.cli import build_parser
from band.testing.live import LocalBand


def _commands(prog: str, parser: argparse.ArgumentParser) -> list[str]:
    found = [prog]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    found += _commands(f"{prog} {name}", sub)
    return found


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))


def test_every_command_and_option_is_on_the_cli_page(site: Path) -> None:
    text = _text(site / "reference" / "cli" / "index.html")
    commands = _commands("band", build_parser())
    assert len(commands) > 8
    for command in commands:
        assert command in text, f"{command!r} missing from the CLI reference"
    for option in ("--port", "--db", "--mention", "--wait"):
        assert option in text
    assert "band-mcp" in text


def test_every_operation_of_the_served_openapi_is_on_the_http_page(
    site: Path, band_platform: LocalBand
) -> None:
    served = httpx.URL(band_platform.rest_url).join("/openapi.json")
    document = httpx.get(served, timeout=30).json()
    text = _text(site / "reference" / "http-api" / "index.html")
    operations = [
        (method.upper(), path)
        for path, ops in document["paths"].items()
        for method in ops
        if method in {"get", "post", "put", "patch", "delete"}
    ]
    assert len(operations) > 50
    missing = [op for op in operations if f"{op[0]}\n{op[1]}" not in text]
    assert missing == [], f"operations missing from the HTTP API page: {missing[:5]}"


def test_unknown_generated_block_is_an_error() -> None:
    import importlib.util

    hook = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "generated.py"
    spec = importlib.util.spec_from_file_location("generated_hook", hook)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(ValueError, match="unknown generated block 'nope'"):
        module.on_page_markdown("x\n<!-- generated: nope -->\n")
