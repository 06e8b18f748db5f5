"""Bounded structures at scale: eviction order after long churn, against both implementations.

Every bound evicts the oldest entry in O(1) (bench/ measures the cost against size);
these tests pin the order itself after thousands of evictions and deletions, where a
dict used as a FIFO and an ordered map would first disagree if either were wrong.
"""

from __future__ import annotations

import gc
import importlib
import random
from collections import OrderedDict
from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import compiled_class, twin_params

from band_sdk_core import _compat


def _ids(count: int) -> list[str]:
    return [f"m{i}" for i in range(count)]


def test_retry_tracker_eviction_order_after_churn(retry_impl: ModuleType) -> None:
    rng = random.Random(20)
    size = 300
    tracker = retry_impl.RetryTracker(max_retries=2, max_tracked=size)
    attempts: OrderedDict[str, int] = OrderedDict()
    failed: OrderedDict[str, None] = OrderedDict()
    ids = _ids(1500)

    def add_failed(mid: str) -> None:
        if mid not in failed:
            if len(failed) >= size:
                failed.popitem(last=False)
            failed[mid] = None

    for step in range(20_000):
        mid = rng.choice(ids)
        roll = rng.random()
        if roll < 0.6:
            if mid not in attempts and len(attempts) >= size:
                attempts.popitem(last=False)
            attempts[mid] = attempts.get(mid, 0) + 1
            exhausted = attempts[mid] > 2
            if exhausted:
                add_failed(mid)
            assert tracker.record_attempt(mid) == (attempts[mid], exhausted), step
        elif roll < 0.75:
            tracker.mark_success(mid)
            attempts.pop(mid, None)
        elif roll < 0.9:
            tracker.discard_attempt(mid)
            if mid in attempts:
                if attempts[mid] <= 1:
                    del attempts[mid]
                else:
                    attempts[mid] -= 1
        else:
            tracker.mark_permanently_failed(mid)
            add_failed(mid)
    assert [tracker._attempt_count(mid) for mid in ids] == [attempts.get(mid, 0) for mid in ids]
    assert [tracker.is_permanently_failed(mid) for mid in ids] == [mid in failed for mid in ids]


def test_retry_tracker_distinct_ids_keep_the_newest(retry_impl: ModuleType) -> None:
    # the workload: 25,000 distinct ids through a 10,000-id tracker
    tracker = retry_impl.RetryTracker(max_retries=0, max_tracked=10_000)
    ids = _ids(25_000)
    for mid in ids:
        assert tracker.record_attempt(mid) == (1, True)
    assert [tracker._attempt_count(mid) for mid in ids[14_999:15_001]] == [0, 1]
    assert not tracker.is_permanently_failed(ids[14_999])
    assert all(tracker.is_permanently_failed(mid) for mid in ids[15_000:])


def test_retry_tracker_with_long_queues_is_freed(retry_impl: ModuleType) -> None:
    # 300,000 linked slots, the failed queue in the reverse of the index's order: freeing
    # them one link at a time would recurse that deep, so the tracker breaks the links
    size = 300_000
    ids = _ids(size)
    tracker = retry_impl.RetryTracker(max_retries=5, max_tracked=size)
    for mid in ids:
        tracker.record_attempt(mid)
    for mid in reversed(ids):
        tracker.mark_permanently_failed(mid)
    for mid in ids[::2]:
        tracker.mark_success(mid)  # half only in the failed queue, half in both
    assert tracker.is_permanently_failed(ids[0]) and tracker._attempt_count(ids[1]) == 1
    del tracker
    gc.collect()
    cycle = retry_impl.RetryTracker(max_retries=0, max_tracked=size)
    for mid in ids:
        cycle.record_attempt(mid)
    holder: list[Any] = [cycle]
    holder.append(holder)  # freed by the collector, not by the reference count
    del cycle, holder
    assert gc.collect() >= 1


def test_decision_registry_with_a_long_queue_is_freed(decisions_impl: ModuleType) -> None:
    # 300,000 linked unclaimed entries: freeing them link by link would recurse that deep
    registry = decisions_impl.DecisionRegistry(seed=3)
    for _ in range(300_000):
        registry.register_minted("room")
    assert registry.unclaimed_count() == 300_000
    del registry
    holder: list[Any] = [decisions_impl.DecisionRegistry(seed=4)]
    for _ in range(300_000):
        holder[0].register_minted(None)
    holder.append(holder)  # freed by the collector, not by the reference count
    del holder
    assert gc.collect() >= 1


def test_claim_registry_completed_order_after_churn(claims_impl: ModuleType) -> None:
    rng = random.Random(21)
    size = 200
    claims = claims_impl.ClaimRegistry(max_completed=size)
    model: dict[str, OrderedDict[str, None]] = {"a": OrderedDict(), "b": OrderedDict()}
    ids = _ids(800)
    for step in range(15_000):
        room = rng.choice("ab")
        mid = rng.choice(ids)
        completed = model[room]
        if rng.random() < 0.7:
            claims.remember_completed(room, mid)
            if mid in completed:
                completed.move_to_end(mid)
            else:
                completed[mid] = None
                if len(completed) > size:
                    completed.popitem(last=False)
        else:  # a hit refreshes the id's position (spec §6.1, LRU)
            hit = mid in completed
            if hit:
                completed.move_to_end(mid)
            assert claims.is_completed(room, mid) is hit, step
    for room, completed in model.items():
        assert claims.completed_ids(room) == list(completed)
    claims.discard_completed("a")
    assert claims.completed_ids("a") == []
    claims.remember_completed("a", "x")
    assert claims.completed_ids("a") == ["x"]


def test_decision_registry_evicts_oldest_unclaimed_behind_claimed(
    decisions_impl: ModuleType,
) -> None:
    rng = random.Random(22)
    size = 400
    registry = decisions_impl.DecisionRegistry(max_pending=size, seed=5)
    order: list[str] = []  # every live token, registration order
    claimed: set[str] = set()
    tickets: dict[str, int] = {}
    for _ in range(size):
        token, ticket = registry.register_minted("room")
        order.append(token)
        tickets[token] = ticket
    for token in order[: size // 2]:
        registry.try_claim(token, tickets[token])
        claimed.add(token)
    for step in range(5_000):
        roll = rng.random()
        if roll < 0.5:
            oldest = next((t for t in order if t not in claimed), None)
            evicted = registry.evict_oldest() if len(order) >= size else None
            if len(order) >= size:
                assert evicted == oldest, step
                if oldest is not None:
                    order.remove(oldest)
            token, ticket = registry.register_minted("room" if rng.random() < 0.5 else None)
            order.append(token)
            tickets[token] = ticket
        elif roll < 0.7:
            token = rng.choice(order)
            registry.try_claim(token, tickets[token])
            claimed.add(token)
        elif roll < 0.85:
            token = rng.choice(order)
            assert registry.withdraw(token, tickets[token]) is (token not in claimed)
            if token not in claimed:
                order.remove(token)
        else:
            token = rng.choice(order)
            assert registry.forget(token, tickets[token])
            order.remove(token)
            claimed.discard(token)
    unclaimed = [t for t in order if t not in claimed]
    assert registry.unclaimed() == unclaimed
    assert registry.unclaimed_count() == len(unclaimed)
    assert registry.oldest_unclaimed() == (unclaimed[0] if unclaimed else None)
    cancelled = registry.cancel_all()
    assert cancelled.unclaimed == unclaimed
    assert cancelled.claimed == [t for t in order if t in claimed]
    assert registry.unclaimed() == [] and registry.evict_oldest() is None


def test_decision_registry_keyed_reregistration_keeps_position(
    decisions_impl: ModuleType,
) -> None:
    registry = decisions_impl.DecisionRegistry(max_pending=3, seed=1)
    registry.register_keyed("a")
    registry.register_keyed("b")
    registry.register_keyed("c")
    assert registry.register_keyed("a") == ("a", 3)  # re-registered, still the oldest
    assert registry.evict_oldest() == "a"
    assert registry.unclaimed() == ["b", "c"]


# -- the compiled twins' ordered map against OrderedDict, op by op --------------------


@pytest.fixture(params=twin_params("band_sdk_core._ordered_c"))
def ordered_class(request: pytest.FixtureRequest) -> Any:
    if request.param is None:
        return OrderedDict  # the pure twins use OrderedDict itself
    return compiled_class(request, "OrderedMap")


def test_ordered_map_matches_ordered_dict(ordered_class: Any) -> None:
    rng = random.Random(23)
    subject = ordered_class()
    model: OrderedDict[str, int] = OrderedDict()
    keys = [f"k{i}" for i in range(60)]
    for step in range(20_000):
        key = rng.choice(keys)
        roll = rng.random()
        if roll < 0.35:
            subject[key] = step
            model[key] = step
        elif roll < 0.45:
            assert subject.pop(key, None) == model.pop(key, None)
        elif roll < 0.55:
            if key in model:
                del subject[key]
                del model[key]
            else:
                with pytest.raises(KeyError):
                    del subject[key]
        elif roll < 0.65:
            if model:
                assert subject.popitem(False) == model.popitem(last=False)
            else:
                with pytest.raises(KeyError):
                    subject.popitem(False)
        elif roll < 0.7:
            if model:
                assert subject.popitem(True) == model.popitem(last=True)
        elif roll < 0.8:
            if key in model:
                subject.move_to_end(key)
                model.move_to_end(key)
            else:
                with pytest.raises(KeyError):
                    subject.move_to_end(key)
        elif roll < 0.9:
            assert subject.get(key, -1) == model.get(key, -1)
            assert (key in subject) is (key in model)
        elif roll < 0.999:
            assert len(subject) == len(model)
            assert list(subject) == list(model)
        else:
            subject.clear()
            model.clear()
    assert list(subject) == list(model)
    assert [subject[key] for key in model] == list(model.values())


@pytest.mark.compiled
def test_ordered_map_keys_are_exact_str() -> None:
    # the compiled map indexes exact str (its StrMap): a subclass counts by its characters
    if _compat.NO_EXTENSIONS:
        pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
    ordered = importlib.import_module("band_sdk_core._ordered_c").OrderedMap()

    class Name(str):
        def __hash__(self) -> int:
            return 0

    ordered.push(Name("a"), 2)
    ordered.push("b", 2)
    assert "a" in ordered and Name("b") in ordered
    assert [type(key) for key in ordered.keys_list()] == [str, str]
    ordered.push(Name("c"), 2)  # full: evicts the oldest
    assert list(ordered) == ["b", "c"]
    with pytest.raises(TypeError, match=r"^OrderedMap keys are str, not 'int'$"):
        ordered.push(1, 2)
    with pytest.raises(KeyError):
        ordered.move_to_end("a")
    del ordered["b"]
    with pytest.raises(KeyError):
        del ordered["b"]
    assert len(ordered) == 1 and ordered.get("c", 5) is None
