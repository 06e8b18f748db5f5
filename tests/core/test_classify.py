"""classify_close / classify_upgrade (spec §11.3)."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.mark.parametrize("code", [None, 0, 1000, 1001, 1006, 1007, 1009, 1011, 4000, 65535])
def test_close_non_terminal(session_impl: ModuleType, code: int | None) -> None:
    assert session_impl.classify_close(code) == (False, None)


def test_close_1008_terminal(session_impl: ModuleType) -> None:
    assert session_impl.classify_close(1008) == (True, None)
    assert session_impl.classify_close(close_code=1008) == (True, None)


@pytest.mark.parametrize("status", [400, 403, 409])
def test_upgrade_terminal(session_impl: ModuleType, status: int) -> None:
    assert session_impl.classify_upgrade(status) == (True, None)


@pytest.mark.parametrize("status", [0, 200, 401, 404, 408, 429, 500, 502, 503, 65535])
def test_upgrade_non_terminal(session_impl: ModuleType, status: int) -> None:
    assert session_impl.classify_upgrade(status) == (False, None)


def test_bool_is_an_int(session_impl: ModuleType) -> None:
    assert session_impl.classify_close(True) == (False, None)
    assert session_impl.classify_upgrade(False) == (False, None)


@pytest.mark.parametrize("code", [-1, 65536, 2**62, -(2**63)])
def test_close_range(session_impl: ModuleType, code: int) -> None:
    with pytest.raises(ValueError) as info:
        session_impl.classify_close(code)
    assert str(info.value) == f"`close_code` must be an integer between 0 and 65535, got {code}"
    assert not hasattr(info.value, "issues")


@pytest.mark.parametrize("status", [-5, 65536, 100000])
def test_upgrade_range(session_impl: ModuleType, status: int) -> None:
    with pytest.raises(ValueError) as info:
        session_impl.classify_upgrade(status)
    assert str(info.value) == f"`status` must be an integer between 0 and 65535, got {status}"


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 2**100])
def test_overflow(session_impl: ModuleType, value: int) -> None:
    with pytest.raises(OverflowError):
        session_impl.classify_close(value)
    with pytest.raises(OverflowError):
        session_impl.classify_upgrade(value)


@pytest.mark.parametrize("value", [1.0, "1008", b"1", [1008]])
def test_type_errors(session_impl: ModuleType, value: object) -> None:
    with pytest.raises(TypeError):
        session_impl.classify_close(value)
    with pytest.raises(TypeError):
        session_impl.classify_upgrade(value)


def test_upgrade_none_is_type_error(session_impl: ModuleType) -> None:
    with pytest.raises(TypeError):
        session_impl.classify_upgrade(None)


def test_missing_argument(session_impl: ModuleType) -> None:
    with pytest.raises(TypeError):
        session_impl.classify_close()
