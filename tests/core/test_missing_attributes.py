"""Reading a missing attribute: the reference wording; no __getattr__ on the compiled classes."""

from __future__ import annotations

from types import ModuleType

import pytest


def _subscription_objects(impl: ModuleType) -> list[object]:
    roster = impl.RoomRoster()
    return [impl.SubscriptionTracker(), roster, roster.reconcile(["room-a"])]


def _decision_objects(impl: ModuleType) -> list[object]:
    registry = impl.DecisionRegistry(seed=1)
    registry.register_minted("room-a")
    return [registry, registry.cancel_room("room-a")]


def _check_wording(objects: list[object]) -> None:
    for obj in objects:
        name = type(obj).__name__
        for attribute in ("extra", "_private", "__missing__"):
            with pytest.raises(AttributeError) as info:
                getattr(obj, attribute)
            assert str(info.value) == (
                f"'band_sdk_core.{name}' object has no attribute '{attribute}'"
            )


def _check_generic_lookup(objects: list[object], limited: bool) -> None:
    # a __getattr__ anywhere in the MRO replaces the generic attribute slot, and CPython then
    # neither specialises the class's method lookups nor skips building a bound method; the
    # limited API hides the C name, so that build falls back to a __getattr__
    for obj in objects:
        cls = type(obj)
        assert cls.__getattribute__ is object.__getattribute__
        assert any("__getattr__" in vars(base) for base in cls.__mro__) is limited, cls


def test_subscriptions_missing_attribute(subscriptions_impl: ModuleType) -> None:
    _check_wording(_subscription_objects(subscriptions_impl))


def test_decisions_missing_attribute(decisions_impl: ModuleType) -> None:
    _check_wording(_decision_objects(decisions_impl))


@pytest.mark.compiled
def test_compiled_classes_keep_the_generic_lookup() -> None:
    from band_sdk_core import _compat

    if _compat.NO_EXTENSIONS:
        pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
    from band_sdk_core import _decisions_c, _subscriptions_c, _typename_c

    limited = _typename_c.LIMITED_API
    _check_generic_lookup(_subscription_objects(_subscriptions_c), limited)
    # DecisionRegistry is not here: its C type still defines __getattr__
    _check_generic_lookup(_decision_objects(_decisions_c)[1:], limited)
