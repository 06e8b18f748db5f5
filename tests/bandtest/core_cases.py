"""Inputs and checks shared by several tests/core modules (they import nothing but the core)."""

from __future__ import annotations

import importlib
import pickle
from collections.abc import Callable
from types import ModuleType
from typing import Any, cast

import pytest

from band_sdk_core import _compat

#: the session policy's default configuration (spec §11), every key written out
SESSION_POLICY: dict[str, Any] = {
    "base_delay_s": 1.0,
    "factor": 2.0,
    "max_delay_s": 30.0,
    "stable_reset_s": 60.0,
    "rapid_disconnect_uptime_s": 10.0,
    "rapid_window_s": 300.0,
    "rapid_first_min_delay_s": 1.0,
    "rapid_second_min_delay_s": 5.0,
    "rapid_cooldown_base_s": 10.0,
    "rapid_cooldown_step_s": 10.0,
    "rapid_cooldown_max_s": 60.0,
    "rapid_threshold": 10,
    "heartbeat_interval_s": 30.0,
    "dead_threshold_s": 60.0,
}

#: a valid message_created payload with only the required fields
MESSAGE: dict[str, Any] = {
    "id": "m1",
    "content": "hi",
    "message_type": "text",
    "sender_type": "User",
    "sender_id": "u1",
    "inserted_at": "2024-01-01T00:00:00Z",
    "updated_at": "2024-01-01T00:00:00Z",
}

#: a valid payload for every event type that has a schema
VALID_PAYLOADS: dict[str, dict[str, Any]] = {
    "message_created": MESSAGE,
    "message_updated": MESSAGE,
    "room_added": {"id": "r", "inserted_at": "t", "updated_at": "t"},
    "room_removed": {"id": "r", "inserted_at": "t", "updated_at": "t"},
    "room_deleted": {"id": "r"},
    "participant_added": {"id": "p", "type": "User", "name": "N"},
    "participant_removed": {"id": "p", "type": "User", "name": "N"},
    "contact_request_received": {"id": "c", "status": "pending", "inserted_at": "t"},
    "contact_request_updated": {"id": "c", "status": "accepted"},
    "contact_added": {"id": "c", "type": "User", "inserted_at": "t", "handle": None, "name": None},
    "contact_removed": {"id": "c"},
    "supersede": {"reason": "r", "message": "m", "correlation_id": None},
    "agent.control": {
        "mode": "stop",
        "scope": "room",
        "agent_id": "a",
        "correlation_id": "",
        "execution_id": None,
        "room_id": None,
    },
}


def validation_issues(call: Callable[[], object], tc: str | None = None) -> tuple[Any, ...]:
    """The issues of the validation error ``call`` raises, after checking the error's form."""
    with pytest.raises(ValueError) as info:
        call()
    error = cast(Any, info.value)
    assert info.type is ValueError
    assert error.args == (str(error),)
    assert error.trace_context == tc
    issues = error.issues
    assert type(issues) is tuple and issues
    path, _code, message = issues[0]
    assert str(error) == f"{len(issues)} validation issue(s): {message} ({path})"
    return cast(tuple[Any, ...], issues)


def assert_sealed_result(result: Any, fields: tuple[str, ...]) -> None:
    """``result``'s class is band_sdk_core's: read-only ``fields``, no new attribute, no
    construction, pickling or subclassing, each refused with CPython's message."""
    info: pytest.ExceptionInfo[BaseException]
    cls = type(result)
    name = f"band_sdk_core.{cls.__name__}"
    assert cls.__module__ == "band_sdk_core"
    for field in fields:
        with pytest.raises(AttributeError) as info:
            setattr(result, field, [])
        assert str(info.value) == f"attribute '{field}' of '{name}' objects is not writable"
    with pytest.raises(AttributeError):
        result.other = 1
    with pytest.raises(TypeError) as info:
        cls()
    assert str(info.value) == f"cannot create '{name}' instances"
    with pytest.raises(TypeError) as info:
        pickle.dumps(result)
    assert str(info.value) == f"cannot pickle '{name}' object"
    with pytest.raises(TypeError) as info:

        class Sub(cls):  # type: ignore[misc, valid-type]
            pass

    assert str(info.value) == f"type '{name}' is not an acceptable base type"


def assert_exports(module: ModuleType, names: set[str]) -> None:
    """``module.__all__`` is ``names``, and band_sdk_core exports the very same objects."""
    import band_sdk_core

    assert set(module.__all__) == names
    for name in names:
        assert getattr(band_sdk_core, name) is getattr(module, name)


def twin_params(compiled_module: str) -> list[Any]:
    """A fixture's params for both twins: None (the pure one) and ``compiled_module``."""
    return [
        pytest.param(None, id="py"),
        pytest.param(compiled_module, id="c", marks=pytest.mark.compiled),
    ]


def compiled_class(request: pytest.FixtureRequest, name: str) -> Any:
    """``name`` in the compiled module ``request.param`` (skipped when the twins are off)."""
    if _compat.NO_EXTENSIONS:
        pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
    return getattr(importlib.import_module(request.param), name)
