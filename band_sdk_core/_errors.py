"""Structured validation errors and message formatting shared by every module."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

Issue = tuple[str, str, str]


def validation_error(
    issues: list[Issue] | tuple[Issue, ...], trace_context: str | None
) -> ValueError:
    """Build the plain ValueError carrying ``.issues`` and ``.trace_context``."""
    path, _code, message = issues[0]
    error = ValueError(f"{len(issues)} validation issue(s): {message} ({path})")
    if trace_context is not None and type(trace_context) is not str:
        trace_context = str.__str__(trace_context)  # a plain str, never the caller's subclass
    error.issues = tuple(issues)  # type: ignore[attr-defined]
    error.trace_context = trace_context  # type: ignore[attr-defined]
    return error


def format_number(value: Any) -> str:
    """Format a float the way Rust's ``f64`` Display does (no exponent, no ``.0``)."""
    if isinstance(value, bool) or isinstance(value, int):
        return str(int(value))
    x = float(value)
    if x != x:
        return "NaN"
    if x == float("inf"):
        return "inf"
    if x == float("-inf"):
        return "-inf"
    text = format(Decimal(repr(x)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text == "-0":
        return "-0"
    return text


def check_trace_context(trace_context: object) -> None:
    """Reject a trace context that is neither a str nor None."""
    if trace_context is not None and not isinstance(trace_context, str):
        from ._enums import not_instance_message

        raise TypeError(not_instance_message(trace_context, "str"))
