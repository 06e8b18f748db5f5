"""AgentFailure (spec §15), against every implementation."""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import pytest


def make(impl: ModuleType, *args: Any, **kwargs: Any) -> Any:
    return impl.AgentFailure(*args, **kwargs)


def test_properties_and_dicts(failure_impl: ModuleType) -> None:
    failure = make(failure_impl, "openai", "boom", "rate_limit", {"b": (1,), "a": float("nan")})
    assert failure.provider == "openai"
    assert failure.message == "boom"
    assert failure.code == "rate_limit"
    assert failure.detail == {"a": None, "b": [1]}
    assert list(failure.detail) == ["a", "b"]
    expected = {
        "provider": "openai",
        "code": "rate_limit",
        "message": "boom",
        "detail": {"a": None, "b": [1]},
    }
    assert failure.to_dict() == expected
    assert list(failure.to_dict()) == ["provider", "code", "message", "detail"]
    assert failure.to_extension_data() == {"band.ai/failure": expected}


def test_defaults_and_keywords(failure_impl: ModuleType) -> None:
    failure = make(failure_impl, provider="p", message="m")
    assert failure.code is None and failure.detail is None
    assert failure.to_dict() == {"provider": "p", "code": None, "message": "m", "detail": None}
    assert make(failure_impl, "p", "m", detail=[1]).detail == [1]


def test_detail_is_copied(failure_impl: ModuleType) -> None:
    detail: dict[str, Any] = {"k": [1, {"x": 2}]}
    failure = make(failure_impl, "p", "m", None, detail)
    detail["k"].append(3)
    detail["k"][1]["x"] = 9
    assert failure.detail == {"k": [1, {"x": 2}]}
    first = failure.detail
    first["k"].append(4)
    assert failure.detail == {"k": [1, {"x": 2}]}
    assert failure.detail is not failure.detail
    assert failure.to_dict()["detail"] is not failure.to_dict()["detail"]


def test_argument_errors(failure_impl: ModuleType) -> None:
    for args in ((1, "m"), ("p", None), ("p", "m", 1), ("p", "m", b"c")):
        with pytest.raises(TypeError):
            make(failure_impl, *args)
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
        make(failure_impl, 1, "m")
    with pytest.raises(TypeError, match=r"^unsupported type object$"):
        make(failure_impl, "p", "m", None, {"x": object()})
    with pytest.raises(TypeError, match=r"^JSON number out of range$"):
        make(failure_impl, "p", "m", None, 2**64)


def test_read_only_and_slots(failure_impl: ModuleType) -> None:
    failure = make(failure_impl, "p", "m")
    for name in ("provider", "message", "code", "detail"):
        with pytest.raises(AttributeError) as info:
            setattr(failure, name, "x")
        assert (
            str(info.value)
            == f"attribute '{name}' of 'band_sdk_core.AgentFailure' objects is not writable"
        )
        with pytest.raises(AttributeError):
            delattr(failure, name)
    with pytest.raises(AttributeError):
        failure.extra = 1
    assert not hasattr(failure, "__dict__")


def test_final_and_unpicklable(failure_impl: ModuleType) -> None:
    cls = failure_impl.AgentFailure
    assert cls.__module__ == "band_sdk_core"
    with pytest.raises(
        TypeError, match=r"^type 'band_sdk_core.AgentFailure' is not an acceptable base type$"
    ):
        type("Sub", (cls,), {})
    failure = cls("p", "m")
    for action in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match=r"^cannot pickle 'band_sdk_core.AgentFailure' object$"):
            action(failure)


def test_identity_semantics(failure_impl: ModuleType) -> None:
    a = make(failure_impl, "p", "m")
    b = make(failure_impl, "p", "m")
    assert a == a and a != b
    assert hash(a) == hash(a)
    assert repr(a).startswith("<band_sdk_core.AgentFailure object at 0x")


def test_package_export() -> None:
    import band_sdk_core

    assert band_sdk_core.AgentFailure("p", "m").provider == "p"
