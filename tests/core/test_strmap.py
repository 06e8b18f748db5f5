"""The compiled twins' str-keyed table (_strmap_c.StrMap) against dict, op by op.

The pure twins index ids in a dict; the compiled RetryTracker uses StrMap for the same
``get``/``setdefault``/``pop``. Growth, shrinking and backward-shift deletion are exercised
by long random sequences over key pools larger than the table's smallest sizes.
"""

from __future__ import annotations

import gc
import importlib
import random
import weakref
from typing import Any

import pytest
from bandtest.core_cases import compiled_class, twin_params

from band_sdk_core import _compat


@pytest.fixture(params=twin_params("band_sdk_core._strmap_c"))
def table_class(request: pytest.FixtureRequest) -> Any:
    if request.param is None:
        return dict  # the pure twins use a dict itself
    return compiled_class(request, "StrMap")


def _keys(table: Any) -> set[str]:
    return set(table.keys_list() if hasattr(table, "keys_list") else table)


def _pop(table: Any) -> Any:
    """The table's pop of one key: None when absent (StrMap's, and dict's with that default)."""
    if isinstance(table, dict):
        return lambda key: table.pop(key, None)
    return table.pop


@pytest.mark.parametrize(("seed", "pool"), [(1, 12), (2, 300), (3, 5_000)])
def test_table_matches_dict(table_class: Any, seed: int, pool: int) -> None:
    rng = random.Random(seed)
    subject = table_class()
    model: dict[str, int] = {}
    pop = _pop(subject)
    # fresh str objects for lookups: equal keys that are not the stored object
    keys = [f"id-{i}" for i in range(pool)]
    for step in range(30_000):
        key = "".join(rng.choice(keys))
        roll = rng.random()
        if roll < 0.4:
            assert subject.setdefault(key, step) == model.setdefault(key, step)
        elif roll < 0.7:
            assert pop(key) == model.pop(key, None)
        elif roll < 0.95:
            assert subject.get(key) == model.get(key)
            assert (key in subject) is (key in model)
        elif roll < 0.9995:
            assert len(subject) == len(model)
        else:
            subject.clear()
            model.clear()
    assert _keys(subject) == set(model)
    assert all(subject.get(key) == value for key, value in model.items())


def test_table_grows_and_shrinks_keeping_every_key(table_class: Any) -> None:
    subject = table_class()
    keys = [f"m-{i:06d}" for i in range(20_000)]
    for index, key in enumerate(keys):
        assert subject.setdefault(key, index) == index
    assert len(subject) == len(keys)
    for index, key in enumerate(keys[::2]):
        assert subject.pop(key) == index * 2
    assert len(subject) == len(keys) // 2
    assert [subject.get(key) for key in keys[1::2]] == list(range(1, len(keys), 2))
    assert all(subject.get(key) is None for key in keys[::2])
    for key in keys[1::2]:
        subject.pop(key)
    assert len(subject) == 0
    assert subject.setdefault("again", 1) == 1 and subject.get("again") == 1


class _Value:
    """A value that can be watched with a weak reference."""


@pytest.mark.compiled
def test_strmap_releases_its_references() -> None:
    if _compat.NO_EXTENSIONS:
        pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
    strmap = importlib.import_module("band_sdk_core._strmap_c")
    table = strmap.StrMap()
    values = [_Value() for _ in range(300)]
    refs = [weakref.ref(value) for value in values]
    for index, value in enumerate(values):
        table.setdefault(f"k{index}", value)
    popped = table.pop("k0")
    assert popped is values[0]
    del popped, value
    values.clear()
    gc.collect()
    assert refs[0]() is None  # popped and dropped
    assert all(ref() is not None for ref in refs[1:])  # still held by the table
    table.clear()
    assert all(ref() is None for ref in refs)
    for index in range(50):
        table.setdefault(f"k{index}", _Value())
    ref = weakref.ref(table.get("k7"))
    del table
    assert ref() is None  # freed with the table


@pytest.mark.compiled
def test_strmap_takes_exact_str_keys_only() -> None:
    if _compat.NO_EXTENSIONS:
        pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
    table = importlib.import_module("band_sdk_core._strmap_c").StrMap()

    class Name(str):
        pass

    for key in (1, None, b"k", Name("k")):
        for call in (table.get, table.pop, lambda k: table.setdefault(k, 1)):
            with pytest.raises(TypeError, match=r"^StrMap keys are exact str, not '"):
                call(key)
    assert len(table) == 0
