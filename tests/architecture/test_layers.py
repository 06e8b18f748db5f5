"""The packages import one way (core -> client -> runtime -> adapters, mcp, devserver, cli),
and no set of modules imports itself round in a circle.

Read from the source with ``ast``: every import counts, at module level, inside functions and
under ``TYPE_CHECKING`` alike (a type-only import upward is still a layer pointing the wrong way,
and a type-only circle is still a circle). Inside the runtime the floors are finer: the leaf
modules, then the tools, the contacts, the rooms (the delivery pipeline), and the runtime that
joins them; ``band.preprocessing`` is the public path of the pipeline's preprocessor, above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import band

PACKAGE = Path(band.__file__).parent

# layer of each area; a module may import its own layer and the ones below
LAYERS: dict[str, float] = {
    "band._version": 0,
    "band._lazy": 0,
    "band._signature": 0,
    "band._extras": 0,
    "band.core": 0,
    "band.config": 0,
    "band.logging_config": 0,
    "band.private_files": 0,
    "band.client": 1,
    # band-sdk's socket client path: it exports the runtime's payload types under its names
    "band.client.streaming": 2.7,
    "band.serving": 1,  # the local HTTP servers' limits (band dev, band-mcp, the ACP MCP server)
    "band.runtime": 2,  # its leaf modules (settings, pushes, the turn trace, posts...)
    "band.runtime.trace_otel": 2.1,  # a sink of band.runtime.trace
    "band.runtime.tools": 2.2,
    "band.runtime.custom_tools": 2.2,  # band-sdk's import path of a tools module
    "band.runtime.contacts": 2.3,
    "band.runtime.contact_tools": 2.3,  # band-sdk's import paths of contacts modules
    "band.runtime.contact_handler": 2.3,
    "band.runtime.rooms": 2.4,  # the rooms' delivery pipeline and its worker
    "band.runtime.context": 2.4,  # band-sdk's import paths of rooms modules
    "band.runtime.execution": 2.45,  # also ExecutionContext's path (band.runtime.composed)
    "band.runtime.messages": 2.4,
    "band.runtime.participants": 2.4,
    "band.runtime.callbacks": 2.4,
    # band-sdk's AgentRuntime(link, ...) / ExecutionContext(room_id, link, on_execute) calls
    "band.runtime.composed": 2.45,
    "band.runtime.runtime": 2.5,
    "band.runtime.startup": 2.5,
    "band.runtime.shutdown": 2.5,
    "band.runtime.instance": 2.5,
    # band-sdk's composition API on the runtime's pieces (issue 55), over band.platform.link
    "band.runtime.conversation": 2.8,
    "band.runtime.execution_api": 2.8,
    "band.runtime.oneshot": 2.8,
    "band.runtime.presence": 2.8,
    "band.runtime.__init__": 2.9,  # the package facade (``band.runtime`` itself)
    "band.preprocessing": 2.7,  # the public path of band.runtime.rooms.preprocess
    "band.platform": 2.7,  # band-sdk's import path of the runtime's event types
    "band.workspaces": 2,
    "band.converters": 2,
    # band-sdk's paths of the ACP integration's history readers and the MCP server's builder
    "band.converters.__init__": 3,  # the facade names them all (lazily)
    "band.converters.acp_client": 3,
    "band.converters.acp_server": 3,
    "band.runtime.mcp_server": 3,
    "band.agent": 3,
    "band.adapters": 3,
    "band.integrations": 3,
    "band.mcp": 3,
    "band.devserver": 3,
    "band.testing": 4,
    "band.demo": 4,
    "band.cli": 4,
    "band": 5,  # the package facade: imported by users, never by the SDK itself
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("band", *path.relative_to(PACKAGE).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The module ``name`` is in: itself, or the nearest package above it."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(name: str, path: Path, *, typing: bool = True) -> set[str]:
    """The band modules ``name`` imports (``typing=False``: leaving out ``TYPE_CHECKING`` ones)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    if not typing:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skipped.update(id(inner) for inner in ast.walk(node))
    targets: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:
                targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
    owners = {_owner(t) for t in targets if t == "band" or t.startswith("band.")}
    return {o for o in owners if o and o != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}
RUNTIME_GRAPH = {name: _imports(name, path, typing=False) for name, path in MODULES.items()}


def _layer(module: str) -> float:
    if MODULES[module].name == "__init__.py" and f"{module}.__init__" in LAYERS:
        return LAYERS[f"{module}.__init__"]  # a package's facade, above its modules
    area = max((a for a in LAYERS if module == a or module.startswith(a + ".")), key=len)
    return LAYERS[area]


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        _layer(module)  # raises ValueError (empty max) for a module outside every area


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    upward = sorted(t for t in GRAPH[module] if _layer(t) > _layer(module))
    assert not upward, f"{module} (layer {_layer(module)}) imports {upward}"


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_no_import_circles_at_run_time() -> None:
    assert not _circles(RUNTIME_GRAPH)


def test_no_import_circles_even_type_only() -> None:
    assert not _circles(GRAPH)


def test_the_graph_is_read() -> None:
    # the checks above mean something only if imports are found: spot-check known edges
    assert "band.core.exceptions" in GRAPH["band.client.errors"]
    assert "band.client.rest" in GRAPH["band.runtime.runtime"]
    assert "band.runtime.rooms.pipeline" in GRAPH["band.runtime.rooms.execution"]
    assert "band.runtime.trace" in GRAPH["band.runtime.trace_otel"]  # a type-only import
    assert _layer("band.runtime.rooms.execution") == LAYERS["band.runtime.rooms"]
    assert _layer("band.runtime") > _layer("band.runtime.runtime")  # the facade's own floor
