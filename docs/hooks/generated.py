"""MkDocs hook: the reference pages that are generated from the code, not copied from it.

A page asks for a generated block with a marker comment on a line of its own:

- ``<!-- generated: cli -->``: every ``band`` and ``band-mcp`` command with its help, walked
  from the argparse parsers the console scripts build;
- ``<!-- generated: openapi -->``: every operation of ``band dev``'s HTTP API, from the
  OpenAPI document the running server serves at ``/openapi.json``.

So the reference cannot drift from the parser or the routes: a new option or route shows up at
the next ``make docs``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from typing import Any

_MARKER = re.compile(r"^<!-- generated: (?P<name>[a-z-]+) -->$", re.MULTILINE)
_WIDTH = "100"


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """The sub-parsers of ``parser`` in the order they were added."""
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:  # aliases map to the same parser
                    seen.add(id(sub))
                    found.append((name, sub))
    return found


def _walk(prog: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    """A heading and the help text of ``parser``, then each sub-command's, depth first."""
    os.environ["COLUMNS"] = _WIDTH  # argparse wraps help at the terminal's width
    parser.prog = prog
    lines = [f"{'#' * level} `{prog}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    for name, sub in _subcommands(parser):
        lines += _walk(f"{prog} {name}", sub, min(level + 1, 4))
    return lines


def cli_reference() -> str:
    """Markdown for every ``band`` and ``band-mcp`` command."""
    from band.cli import build_parser
    from band.mcp.cli import parser as mcp_parser

    return "\n".join(_walk("band", build_parser(), 2) + _walk("band-mcp", mcp_parser(), 2))


def _openapi_document() -> dict[str, Any]:
    """The OpenAPI document ``band dev`` serves, read from a fresh in-memory app."""
    import asyncio

    import httpx

    from band.devserver.app import create_app

    async def fetch() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=create_app(":memory:"))
        async with httpx.AsyncClient(transport=transport, base_url="http://band.dev") as client:
            response = await client.get("/openapi.json")
            response.raise_for_status()
            document: dict[str, Any] = response.json()
            return document

    return asyncio.run(fetch())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def openapi_reference() -> str:
    """Markdown tables of every operation, grouped by its first path segment after the prefix."""
    document = _openapi_document()
    groups: dict[str, list[str]] = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method.startswith("x-") or method == "parameters":
                continue
            security = operation.get("security", document.get("security", []))
            who = ", ".join(sorted({name for item in security for name in item})) or "none"
            ok = sorted(code for code in operation.get("responses", {}) if code.startswith("2"))
            errors = sorted(
                code for code in operation.get("responses", {}) if code[:1] in {"4", "5"}
            )
            summary = operation.get("summary") or operation.get("description") or ""
            group = path.removeprefix("/api/v1").strip("/").split("/")[0] or "root"
            groups.setdefault(group, []).append(
                f"| `{method.upper()}` | `{path}` | {_cell(summary.splitlines()[0] if summary else '')}"
                f" | {who} | {', '.join(ok)} | {', '.join(errors)} |"
            )
    lines = [
        f"{len(document['paths'])} paths, OpenAPI {document['openapi']}. "
        "The full document: `GET /openapi.json` on a running `band dev`.",
        "",
    ]
    for group in sorted(groups):
        lines += [
            f"### `{group}`",
            "",
            "| method | path | what | key | success | errors |",
            "| --- | --- | --- | --- | --- | --- |",
            *groups[group],
            "",
        ]
    sockets = document.get("x-websockets")
    if sockets:
        lines += ["### WebSocket", "", "```json", json.dumps(sockets, indent=2), "```", ""]
    return "\n".join(lines)


_GENERATORS = {"cli": cli_reference, "openapi": openapi_reference}


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each ``<!-- generated: NAME -->`` marker with its generated Markdown."""

    def fill(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in _GENERATORS:
            raise ValueError(f"unknown generated block {name!r}; known: {sorted(_GENERATORS)}")
        return _GENERATORS[name]()

    return _MARKER.sub(fill, markdown)
