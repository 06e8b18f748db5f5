"""Describe a ``band`` package's public surface as JSON facts: names, kinds, parameters.

Run under the official band-sdk 6.0.1 to regenerate ``official_surface.json``::

    /tmp/band-refsdk-venv/bin/python tests/compat/surface.py > tests/compat/official_surface.json

The compat test runs :func:`describe_module` on ours and compares. Only names, parameter
names/kinds/defaults and constant values are recorded, never code or docstrings.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import sys
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: the modules whose surface a Band agent script touches (issue 23, item 1)
MODULES = (
    "band",
    "band.agent",
    "band.config",
    "band.config.logs",
    "band.logging_config",
    "band.core",
    "band.core.exceptions",
    "band.core.types",
    "band.core.simple_adapter",
    "band.core.protocols",
    "band.platform",
    "band.platform.event",
    "band.runtime",
    "band.runtime.tools",
    "band.runtime.runtime",
    "band.runtime.execution",
    "band.runtime.shutdown",
    "band.runtime.formatters",
    "band.runtime.prompts",
    "band.runtime.agentconfig",
    "band.runtime.sessionconfig",
    "band.preprocessing",
    "band.workspaces",
    "band.client.rest",
    "band.integrations.acp",
    "band.testing",
)

_SIMPLE = (str, int, float, bool, type(None))


def _default(value: Any) -> Any:
    """A JSON-comparable default: simple values as is, enums by value, others by type."""
    if value is inspect.Parameter.empty:
        return "<required>"
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, _SIMPLE):
        return value
    return f"<{type(value).__name__}>"


def params(func: Any) -> list[list[Any]] | None:
    """``[[name, kind, default], ...]`` without self/cls; None when not introspectable."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls") and not out:
            continue
        out.append([p.name, p.kind.name, _default(p.default)])
    return out


def _constant(value: Any) -> dict[str, Any]:
    info: dict[str, Any] = {"kind": "constant", "type": type(value).__name__}
    if isinstance(value, _SIMPLE):
        info["value"] = value
    elif isinstance(value, (frozenset, set, tuple, list)) and all(
        isinstance(v, str) for v in value
    ):
        info["value"] = sorted(value)
    elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
        info["keys"] = sorted(value)
    return info


def _external_names(cls: type) -> set[str]:
    names: set[str] = set()
    for base in cls.__mro__[1:]:
        if not (getattr(base, "__module__", "") or "").startswith("band"):
            names.update(dir(base))
    return names


def describe_class(cls: type) -> dict[str, Any]:
    """Kind, constructor parameters, enum members and public members of ``cls``."""
    info: dict[str, Any] = {"kind": "class"}
    if issubclass(cls, enum.Enum):
        info["kind"] = "enum"
        info["members"] = {m.name: _default(m.value) for m in cls}
        return info
    if issubclass(cls, BaseException):
        info["kind"] = "exception"
        info["bases"] = [b.__name__ for b in cls.__mro__[1:] if b.__module__.startswith("band")]
    init = params(cls)
    # a Protocol's subclass without an __init__ of its own has typing's placeholder, which
    # reads (*args, **kwargs) until the class's first instance swaps in object's: described
    # as before that, whatever ran earlier in the process
    placeholder = getattr(typing, "_no_init_or_replace_init", None)
    if (
        placeholder is not None
        and typing.Protocol in cls.__mro__
        and cls.__init__ is object.__init__
    ):
        init = params(placeholder)
    if init is not None:
        info["init"] = init
    fields = getattr(cls, "model_fields", None) or getattr(cls, "__struct_fields__", None)
    if isinstance(fields, (dict, tuple)):  # pydantic models, msgspec Structs
        info["fields"] = sorted(fields)
    external = _external_names(cls)
    members: dict[str, Any] = {}
    for name in sorted(dir(cls)):
        if name.startswith("_") or name in external or name in (info.get("fields") or ()):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, property) or type(raw).__name__ == "cached_property":
            members[name] = {"kind": "property"}
        elif isinstance(raw, (classmethod, staticmethod)) or inspect.isfunction(raw):
            kind = type(raw).__name__ if not inspect.isfunction(raw) else "method"
            func = getattr(cls, name)
            members[name] = {"kind": kind, "params": params(func)}
            if inspect.iscoroutinefunction(func):
                members[name]["async"] = True
        elif not callable(raw):
            members[name] = {"kind": "attribute"}
    info["members"] = members
    return info


def describe(value: Any) -> dict[str, Any]:
    """The facts recorded for one public name."""
    if inspect.isclass(value):
        return describe_class(value)
    if inspect.ismodule(value):
        return {"kind": "module"}
    if callable(value) and (inspect.isfunction(value) or inspect.isbuiltin(value)):
        info: dict[str, Any] = {"kind": "function", "params": params(value)}
        if inspect.iscoroutinefunction(value):
            info["async"] = True
        return info
    if callable(value):
        return {"kind": "callable"}
    return _constant(value)


def public_names(module: Any) -> list[str]:
    """``__all__``, else the classes and functions the module defines itself."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return sorted(set(names) - {"__version__"})
    own = []
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        if getattr(value, "__module__", None) == module.__name__ and (
            inspect.isclass(value) or inspect.isfunction(value)
        ):
            own.append(name)
    return sorted(own)


def describe_module(name: str, also: Iterable[str] = ()) -> dict[str, Any]:
    """Facts for every public name of module ``name`` and each of ``also`` it has."""
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        # a module that needs an absent extra to import: its names, from its source
        listed = _static_all(path) if (path := _source(name)) else None
        if listed is None:
            return {"import_error": type(exc).__name__}
        return {"names": {n: {"kind": "unimportable", "error": type(exc).__name__} for n in listed}}
    out: dict[str, Any] = {}
    for attr in sorted({*public_names(module), *also}):
        try:
            value = getattr(module, attr)
        except ImportError as exc:  # a lazy name whose optional dependency is absent
            out[attr] = {"kind": "unimportable", "error": type(exc).__name__}
            continue
        except AttributeError:
            continue
        out[attr] = describe(value)
    return {"names": out}


def surface(
    modules: tuple[str, ...] = MODULES, also: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The surface of ``modules``; ``also`` (another surface) adds the names it lists, so
    names we have but do not list as public are still compared."""
    also = also or {}
    return {
        name: describe_module(name, (also.get(name) or {}).get("names", {})) for name in modules
    }


def _source(name: str) -> str | None:
    """The source file of module ``name`` (a package's ``__init__.py``), found from its
    nearest importable ancestor package (the module and its own package may need an absent
    extra to import)."""
    parts = name.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        try:
            spec = importlib.util.find_spec(".".join(parts[:depth]))
        except ImportError:
            continue
        rest = parts[depth:]
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for candidate in (
                Path(folder, *rest, "__init__.py"),
                Path(folder, *rest[:-1], f"{rest[-1]}.py"),
            ):
                if candidate.is_file():
                    return str(candidate)
        return None
    return None


def _static_all(path: str) -> list[str] | None:
    """A module's literal ``__all__`` read from its source (for one whose extra is absent)."""
    import ast

    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            try:
                return sorted(set(ast.literal_eval(node.value)) - {"__version__"})
            except ValueError:
                return None
    return None


def public_modules(package: str = "band") -> dict[str, Any]:
    """Every module of ``package`` with no ``_``-prefixed path part that declares ``__all__``,
    with the facts of each name (issue 55). A module whose optional dependency is absent is
    read from its source: its names are recorded as ``unimportable`` (presence only)."""
    import importlib.util
    import pkgutil

    root = importlib.import_module(package)
    out: dict[str, Any] = {}
    todo = [(package, root)]
    while todo:
        name, module = todo.pop()
        if getattr(module, "__all__", None) is not None:
            out[name] = describe_module(name)
        for info in pkgutil.iter_modules(getattr(module, "__path__", None) or []):
            if info.name.startswith("_"):
                continue
            child = f"{name}.{info.name}"
            try:
                todo.append((child, importlib.import_module(child)))
            except Exception:  # an optional extra is missing: read __all__ from the source
                spec = importlib.util.find_spec(child)
                origin = spec.origin if spec else None
                names = _static_all(origin) if origin else None
                if names is not None:
                    out[child] = {
                        "names": {
                            n: {"kind": "unimportable", "error": "ImportError"} for n in names
                        }
                    }
    return out


if __name__ == "__main__":
    facts = public_modules() if sys.argv[1:] == ["--walk"] else surface()
    json.dump(facts, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
