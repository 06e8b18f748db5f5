"""RetryTracker (spec §5), against both implementations."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict
from types import ModuleType

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import band_sdk_core
from band_sdk_core import _retry_py

U32 = 4294967295


def test_defaults_and_property(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker()
    assert tracker.max_retries == 1
    assert retry_impl.RetryTracker(3, 5).max_retries == 3
    assert retry_impl.RetryTracker(max_retries=0, max_tracked=1).max_retries == 0
    assert retry_impl.RetryTracker(U32, U32).max_retries == U32
    assert retry_impl.RetryTracker(True, True).max_retries == 1
    assert not hasattr(tracker, "max_tracked")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1,), "`max_retries` must be an integer between 0 and 4294967295, got -1"),
        ((U32 + 1,), "`max_retries` must be an integer between 0 and 4294967295, got 4294967296"),
        ((-(2**70),), f"`max_retries` must be an integer between 0 and 4294967295, got {-(2**70)}"),
        ((1, 0), "`max_tracked` must be an integer between 1 and 4294967295, got 0"),
        ((1, U32 + 1), "`max_tracked` must be an integer between 1 and 4294967295, got 4294967296"),
    ],
)
def test_range_errors(retry_impl: ModuleType, args: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError) as info:
        retry_impl.RetryTracker(*args)
    assert type(info.value) is ValueError
    assert str(info.value) == message
    assert not hasattr(info.value, "issues")


@pytest.mark.parametrize("bad", [1.0, "1", None, [1]])
def test_non_int_arguments(retry_impl: ModuleType, bad: object) -> None:
    with pytest.raises(TypeError):
        retry_impl.RetryTracker(bad)
    with pytest.raises(TypeError):
        retry_impl.RetryTracker(1, bad)
    with pytest.raises(TypeError):
        retry_impl.RetryTracker(max_tracked=bad)


def test_record_attempt_sequence(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker(max_retries=2)
    assert [tracker.record_attempt("m") for _ in range(4)] == [
        (1, False),
        (2, False),
        (3, True),
        (4, True),
    ]
    assert tracker.is_permanently_failed("m")
    zero = retry_impl.RetryTracker(max_retries=0)
    assert zero.record_attempt("m") == (1, True)
    assert zero.is_permanently_failed("m")


def test_permanent_failure_does_not_influence_attempts(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker(max_retries=2)
    tracker.mark_permanently_failed("m")
    tracker.mark_permanently_failed("m")
    assert tracker.is_permanently_failed("m")
    assert tracker.record_attempt("m") == (1, False)


def test_mark_success_resets_count_not_failure(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker(max_retries=0)
    assert tracker.record_attempt("m") == (1, True)
    tracker.mark_success("m")
    tracker.mark_success("unknown")
    assert tracker.is_permanently_failed("m")
    assert tracker.record_attempt("m") == (1, True)


def test_discard_attempt(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker(max_retries=5)
    tracker.discard_attempt("unknown")
    assert tracker.record_attempt("m") == (1, False)
    assert tracker.record_attempt("m") == (2, False)
    tracker.discard_attempt("m")
    assert tracker.record_attempt("m") == (2, False)
    tracker.discard_attempt("m")
    tracker.discard_attempt("m")
    tracker.discard_attempt("m")
    assert tracker.record_attempt("m") == (1, False)
    failed = retry_impl.RetryTracker(max_retries=0)
    failed.record_attempt("x")
    failed.discard_attempt("x")
    assert failed.is_permanently_failed("x")


def test_attempt_map_fifo_eviction(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker(max_retries=10, max_tracked=2)
    tracker.record_attempt("a")
    tracker.record_attempt("b")
    tracker.record_attempt("a")  # re-touch does not refresh position
    tracker.record_attempt("c")  # evicts "a", the first inserted
    assert tracker.record_attempt("b") == (2, False)  # evicts nothing: b present
    assert tracker.record_attempt("a") == (1, False)  # a was evicted; evicts b
    assert tracker.record_attempt("c") == (2, False)
    assert tracker.record_attempt("b") == (1, False)


def test_discard_to_zero_reinserts_at_back(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker(max_retries=10, max_tracked=2)
    tracker.record_attempt("a")
    tracker.record_attempt("b")
    tracker.discard_attempt("a")
    tracker.record_attempt("a")  # back of the queue now
    tracker.record_attempt("c")  # evicts b
    assert tracker.record_attempt("a") == (2, False)
    assert tracker.record_attempt("b") == (1, False)


def test_failed_set_fifo_eviction(retry_impl: ModuleType) -> None:
    tracker = retry_impl.RetryTracker(max_retries=0, max_tracked=2)
    tracker.mark_permanently_failed("a")
    tracker.mark_permanently_failed("b")
    tracker.mark_permanently_failed("a")  # no refresh
    tracker.record_attempt("c")  # exhausted: adds c, evicts a
    assert not tracker.is_permanently_failed("a")
    assert tracker.is_permanently_failed("b")
    assert tracker.is_permanently_failed("c")


@pytest.mark.parametrize(
    "method",
    [
        "record_attempt",
        "is_permanently_failed",
        "mark_permanently_failed",
        "mark_success",
        "discard_attempt",
    ],
)
def test_message_id_must_be_str(retry_impl: ModuleType, method: str) -> None:
    tracker = retry_impl.RetryTracker()
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
        getattr(tracker, method)(1)
    with pytest.raises(TypeError, match=r"^'None' is not an instance of 'str'$"):
        getattr(tracker, method)(None)
    with pytest.raises(TypeError):
        getattr(tracker, method)(b"m")

    class S(str):
        pass

    getattr(tracker, method)(S("m"))
    getattr(tracker, method)(message_id="m")


def test_runtime_class_behaviour(retry_impl: ModuleType) -> None:
    cls = retry_impl.RetryTracker
    tracker = cls()
    assert cls.__module__ == "band_sdk_core"
    assert cls.__name__ == "RetryTracker"
    assert repr(tracker).startswith("<band_sdk_core.RetryTracker object at 0x")
    with pytest.raises(TypeError):
        type("Sub", (cls,), {})
    with pytest.raises(TypeError, match=r"cannot pickle 'band_sdk_core.RetryTracker' object"):
        pickle.dumps(tracker)
    with pytest.raises(TypeError):
        copy.copy(tracker)
    with pytest.raises(TypeError):
        copy.deepcopy(tracker)
    message = "attribute 'max_retries' of 'band_sdk_core.RetryTracker' objects is not writable"
    with pytest.raises(AttributeError, match=message):
        tracker.max_retries = 3
    with pytest.raises(AttributeError):
        tracker.extra = 1
    assert tracker == tracker
    assert tracker != cls()
    assert hash(tracker) == hash(tracker)


def test_facade_picks_active_implementation() -> None:
    from band_sdk_core import _compat

    cls = band_sdk_core.RetryTracker
    if _compat.USING_EXTENSIONS:
        from band_sdk_core import _retry_c

        assert cls is _retry_c.RetryTracker
    else:
        assert cls is _retry_py.RetryTracker


class _Model:
    """Reference model of §5."""

    def __init__(self, max_retries: int, max_tracked: int) -> None:
        self.max_retries = max_retries
        self.max_tracked = max_tracked
        self.attempts: OrderedDict[str, int] = OrderedDict()
        self.failed: OrderedDict[str, None] = OrderedDict()
        self.ceilings: dict[str, int] = {}

    def ceiling(self, mid: str) -> int:
        return min(self.max_retries, self.ceilings.get(mid, self.max_retries))

    def evict_if_full(self) -> None:
        if len(self.attempts) >= self.max_tracked:
            oldest, _ = self.attempts.popitem(last=False)
            self.ceilings.pop(oldest, None)

    def restore(self, mid: str, attempts: int, ceiling: int) -> None:
        if mid in self.attempts:
            self.attempts[mid] = max(self.attempts[mid], attempts)
        else:
            self.evict_if_full()
            self.attempts[mid] = attempts
        self.ceilings[mid] = min(self.ceilings.get(mid, ceiling), ceiling)
        if self.attempts[mid] >= self.ceiling(mid):
            self.add_failed(mid)

    def add_failed(self, mid: str) -> None:
        if mid not in self.failed:
            if len(self.failed) >= self.max_tracked:
                self.failed.popitem(last=False)
            self.failed[mid] = None

    def record(self, mid: str) -> tuple[int, bool]:
        if mid not in self.attempts:
            self.evict_if_full()
        self.attempts[mid] = self.attempts.get(mid, 0) + 1
        count = self.attempts[mid]
        exhausted = count > self.ceiling(mid)
        if exhausted:
            self.add_failed(mid)
        return count, exhausted

    def success(self, mid: str) -> None:
        self.attempts.pop(mid, None)
        self.ceilings.pop(mid, None)

    def discard(self, mid: str) -> None:
        if mid in self.attempts:
            if self.attempts[mid] <= 1:
                del self.attempts[mid]
                self.ceilings.pop(mid, None)
            else:
                self.attempts[mid] -= 1


IDS = st.sampled_from(["a", "b", "c", "d", "e"])


def _machine(module_name: str) -> type[RuleBasedStateMachine]:
    class RetryMachine(RuleBasedStateMachine):
        @initialize(max_retries=st.integers(0, 3), max_tracked=st.integers(1, 4))
        def setup(self, max_retries: int, max_tracked: int) -> None:
            import importlib

            module = importlib.import_module(module_name)
            self.tracker = module.RetryTracker(max_retries, max_tracked)
            self.model = _Model(max_retries, max_tracked)

        @rule(mid=IDS)
        def record(self, mid: str) -> None:
            assert self.tracker.record_attempt(mid) == self.model.record(mid)

        @rule(mid=IDS)
        def mark_failed(self, mid: str) -> None:
            self.tracker.mark_permanently_failed(mid)
            self.model.add_failed(mid)

        @rule(mid=IDS)
        def success(self, mid: str) -> None:
            self.tracker.mark_success(mid)
            self.model.success(mid)

        @rule(mid=IDS)
        def discard(self, mid: str) -> None:
            self.tracker.discard_attempt(mid)
            self.model.discard(mid)

        @rule(mid=IDS, attempts=st.integers(0, 4), ceiling=st.integers(0, 4))
        def restore(self, mid: str, attempts: int, ceiling: int) -> None:
            # the hook ClaimRegistry.confirm_settlement uses for a retry continuation
            self.tracker._restore_attempts(mid, attempts, ceiling)
            self.model.restore(mid, attempts, ceiling)

        @invariant()
        def failed_matches(self) -> None:
            if hasattr(self, "tracker"):
                for mid in "abcde":
                    assert self.tracker.is_permanently_failed(mid) == (mid in self.model.failed)
                    assert self.tracker._attempt_count(mid) == self.model.attempts.get(mid, 0)
                    assert self.tracker._ceiling(mid) == self.model.ceiling(mid)

    return RetryMachine


def test_stateful_against_model(retry_impl: ModuleType) -> None:
    machine = _machine(retry_impl.__name__)
    machine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
    machine.TestCase().runTest()


class _Loose(str):
    """A caller's str subclass whose own equality and hash ignore the characters."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


def test_str_subclass_ids_count_by_their_characters(retry_impl: ModuleType) -> None:
    # the reference reads a message id's characters: a subclass's __eq__/__hash__ never decide
    tracker = retry_impl.RetryTracker(max_retries=1, max_tracked=10)
    assert tracker.record_attempt(_Loose("a")) == (1, False)
    assert tracker.record_attempt(_Loose("b")) == (1, False)
    assert tracker.record_attempt("a") == (2, True)
    assert tracker.is_permanently_failed(_Loose("a"))
    assert not tracker.is_permanently_failed(_Loose("b"))
    tracker.mark_permanently_failed(_Loose("c"))
    assert tracker.is_permanently_failed("c")
    tracker.mark_success(_Loose("b"))
    assert tracker.record_attempt("b") == (1, False)
    tracker.discard_attempt(_Loose("b"))
    assert tracker.record_attempt("b") == (1, False)
    assert (tracker._attempt_count(_Loose("b")), tracker._ceiling(_Loose("b"))) == (1, 1)
    tracker._restore_attempts(_Loose("d"), 1, 1)
    assert tracker.is_permanently_failed("d")


def test_results_past_the_cached_counts(retry_impl: ModuleType) -> None:
    # counts below 64 come from tuples made once; later ones are built per call, same values
    tracker = retry_impl.RetryTracker(max_retries=100, max_tracked=10)
    results = [tracker.record_attempt("m") for _ in range(103)]
    assert results == [(n, n > 100) for n in range(1, 104)]
    exhausted = retry_impl.RetryTracker(max_retries=0, max_tracked=10)
    assert [exhausted.record_attempt("x") for _ in range(70)][62:] == [
        (n, True) for n in range(63, 71)
    ]
