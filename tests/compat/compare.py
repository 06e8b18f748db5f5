"""Differences between two surfaces as flat keys (``module:Name`` / ``module:Name.member``)."""

from __future__ import annotations

from typing import Any


def _default(value: Any) -> Any:
    """Defaults compare by value when simple; any other object only as "has a default"."""
    if isinstance(value, str) and value.startswith("<") and value != "<required>":
        return "<object>"
    return value


def _params_diff(key: str, theirs: Any, ours: Any) -> list[str]:
    """A call written against ``theirs`` must work on ``ours``: each of their parameters
    exists with the same kind and default (ours may default a required one), and any
    extra parameter of ours is optional."""
    if theirs is None or ours is None:
        return []
    mine = {p[0]: p for p in ours}
    out = []
    for name, kind, default in theirs:
        if name.startswith("_"):  # private (pydantic-settings' _env_file, ...): not API
            continue
        if kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            if not any(p[1] == kind for p in ours):
                out.append(f"{key} (no {kind.lower()} parameter)")
            continue
        if name not in mine:
            out.append(f"{key} (parameter {name} missing)")
            continue
        _, my_kind, my_default = mine[name]
        if kind != my_kind and not (kind == "KEYWORD_ONLY" and my_kind == "POSITIONAL_OR_KEYWORD"):
            out.append(f"{key} (parameter {name} is {my_kind}, not {kind})")
        if default != "<required>" and _default(default) != _default(my_default):
            out.append(f"{key} (parameter {name} default)")
    theirs_names = {p[0] for p in theirs}
    for name, kind, default in ours:
        if name in theirs_names or kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            continue
        if default == "<required>":
            out.append(f"{key} (extra required parameter {name})")
    return out


def _class_diff(key: str, theirs: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if theirs["kind"] == "enum":
        if theirs.get("members") != ours.get("members"):
            out.append(f"{key} (enum members)")
        return out
    if theirs.get("bases") and theirs.get("bases") != ours.get("bases"):
        out.append(f"{key} (bases)")
    out += _params_diff(f"{key}.__init__", theirs.get("init"), ours.get("init"))
    missing_fields = set(theirs.get("fields") or ()) - set(ours.get("fields") or ())
    if missing_fields:
        out.append(f"{key} (fields {sorted(missing_fields)} missing)")
    mine = ours.get("members") or {}
    for name, member in (theirs.get("members") or {}).items():
        mkey = f"{key}.{name}"
        if name not in mine:
            if name not in (ours.get("fields") or ()):
                out.append(f"{mkey} (missing)")
            continue
        other = mine[name]
        if member["kind"] != other["kind"]:
            out.append(f"{mkey} (kind {member['kind']} vs {other['kind']})")
            continue
        if member.get("async", False) != other.get("async", False):
            out.append(f"{mkey} (async)")
        out += _params_diff(mkey, member.get("params"), other.get("params"))
    return out


def differences(official: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """Every way ``ours`` falls short of ``official`` (extra names on our side are fine)."""
    out: list[str] = []
    for module, info in official.items():
        mine = ours.get(module, {})
        if "names" not in mine:
            out.append(f"{module}:* (module missing)")
            continue
        for name, theirs in info.get("names", {}).items():
            key = f"{module}:{name}"
            if name not in mine["names"]:
                out.append(f"{key} (missing)")
                continue
            other = mine["names"][name]
            if theirs["kind"] == "unimportable":
                continue
            if theirs["kind"] != other["kind"]:
                out.append(f"{key} (kind {theirs['kind']} vs {other['kind']})")
                continue
            if theirs["kind"] in ("class", "enum", "exception"):
                out += _class_diff(key, theirs, other)
            elif theirs["kind"] == "function":
                out += _params_diff(key, theirs.get("params"), other.get("params"))
                if theirs.get("async", False) != other.get("async", False):
                    out.append(f"{key} (async)")
            elif "value" in theirs and theirs.get("value") != other.get("value"):
                out.append(f"{key} (value)")
            elif "keys" in theirs and theirs.get("keys") != other.get("keys"):
                out.append(f"{key} (keys)")
    return out
