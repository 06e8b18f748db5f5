"""DecisionRegistry, CancelledDecisions and is_authorized_sender (spec §10)."""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import assert_exports, assert_sealed_result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import band_sdk_core
from band_sdk_core import ClaimOutcome as C

U32 = 4294967295
U64 = 2**64 - 1
MASK = U64


def _splitmix_tokens(seed: int, count: int) -> list[str]:
    """Independent SplitMix64 token model (spec §10.2)."""
    state = seed
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(format((z ^ (z >> 31)) & 0xFFFFFFFF, "08x"))
    return out


# --------------------------------------------------------------------------- construction


def test_construction(decisions_impl: ModuleType) -> None:
    cls = decisions_impl.DecisionRegistry
    assert cls().max_pending is None
    assert cls(max_pending=1).max_pending == 1
    assert cls(max_pending=U32).max_pending == U32
    assert cls(max_pending=None, seed=None).max_pending is None
    flag = cls(max_pending=True).max_pending
    assert flag == 1 and type(flag) is int
    cls(seed=0)
    cls(seed=U64)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_pending": 0}, "`max_pending` must be an integer between 1 and 4294967295, got 0"),
        ({"max_pending": -1}, "`max_pending` must be an integer between 1 and 4294967295, got -1"),
        (
            {"max_pending": U32 + 1},
            "`max_pending` must be an integer between 1 and 4294967295, got 4294967296",
        ),
        (
            {"max_pending": 2**70},
            f"`max_pending` must be an integer between 1 and 4294967295, got {2**70}",
        ),
        ({"seed": -1}, "`seed` must be an integer between 0 and 18446744073709551615, got -1"),
        (
            {"seed": U64 + 1},
            "`seed` must be an integer between 0 and 18446744073709551615, "
            "got 18446744073709551616",
        ),
        (
            {"seed": -(2**100)},
            f"`seed` must be an integer between 0 and 18446744073709551615, got {-(2**100)}",
        ),
        (
            {"max_pending": 0, "seed": -1},
            "`max_pending` must be an integer between 1 and 4294967295, got 0",
        ),
    ],
)
def test_range_errors(decisions_impl: ModuleType, kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError) as info:
        decisions_impl.DecisionRegistry(**kwargs)
    assert type(info.value) is ValueError
    assert str(info.value) == message
    assert not hasattr(info.value, "issues")


@pytest.mark.parametrize("bad", [1.0, "1", [1]])
def test_non_int_arguments(decisions_impl: ModuleType, bad: object) -> None:
    with pytest.raises(TypeError):
        decisions_impl.DecisionRegistry(max_pending=bad)
    with pytest.raises(TypeError):
        decisions_impl.DecisionRegistry(seed=bad)


def test_keyword_only(decisions_impl: ModuleType) -> None:
    with pytest.raises(TypeError):
        decisions_impl.DecisionRegistry(5)
    with pytest.raises(TypeError):
        decisions_impl.DecisionRegistry(other=5)


# --------------------------------------------------------------------------- tokens


@pytest.mark.parametrize(
    ("seed", "expected"),
    [
        (42, ["2feb6e95", "b266f103", "130f9f52", "0e4ae394", "244823f2"]),
        (0, ["7b1dcdaf", "a1b965f4", "8009454f"]),
    ],
)
def test_verified_token_sequences(
    decisions_impl: ModuleType, seed: int, expected: list[str]
) -> None:
    registry = decisions_impl.DecisionRegistry(seed=seed)
    got = [registry.register_minted() for _ in expected]
    assert got == [(token, i) for i, token in enumerate(expected)]
    assert _splitmix_tokens(seed, len(expected)) == expected


@pytest.mark.parametrize("seed", [1, 7, 2**32, U64, True])
def test_tokens_follow_splitmix(decisions_impl: ModuleType, seed: int) -> None:
    registry = decisions_impl.DecisionRegistry(seed=seed)
    tokens = [registry.register_minted("room")[0] for _ in range(20)]
    assert tokens == _splitmix_tokens(int(seed), 20)


def test_collision_draws_again(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=42)
    assert registry.register_keyed("b266f103") == ("b266f103", 0)
    assert registry.register_keyed("2feb6e95") == ("2feb6e95", 1)
    # draws 1 and 2 collide with the keyed tokens; draw 3 is used
    assert registry.register_minted() == ("130f9f52", 2)
    # claimed entries collide too
    other = decisions_impl.DecisionRegistry(seed=42)
    token, ticket = other.register_minted()
    assert other.try_claim(token, ticket) is C.Claimed
    assert other.forget(token, ticket) is True
    again = decisions_impl.DecisionRegistry(seed=42)
    first = again.register_minted()
    assert again.try_claim(*first) is C.Claimed
    assert again.register_minted() == ("b266f103", 1)


def test_unseeded_registries_draw_fresh_seeds(decisions_impl: ModuleType) -> None:
    tokens = {decisions_impl.DecisionRegistry().register_minted()[0] for _ in range(8)}
    assert len(tokens) > 1
    for token in tokens:
        assert len(token) == 8 and all(ch in "0123456789abcdef" for ch in token)


# --------------------------------------------------------------------------- registrations


def test_readme_lifecycle(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(max_pending=10)
    registration = registry.register_minted("room-1")
    assert registration is not None
    token, ticket = registration
    assert registry.unclaimed_in_room("room-1") == [token]
    assert registry.try_claim(token, ticket) is C.Claimed
    assert registry.try_claim(token, ticket) is C.AlreadyClaimed
    assert registry.cancel_room("room-1").claimed == [token]


def test_try_claim(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=3)
    token, ticket = registry.register_minted()
    assert registry.try_claim(token, ticket + 1) is C.Stale
    assert registry.try_claim("unknown", ticket) is C.Stale
    assert registry.unclaimed() == [token]
    assert registry.try_claim(token, ticket) is C.Claimed
    assert registry.unclaimed() == []
    assert registry.unclaimed_count() == 0
    assert registry.try_claim(token, ticket) is C.AlreadyClaimed
    assert registry.try_claim(token, ticket + 1) is C.Stale


def test_register_keyed(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=3)
    assert registry.register_keyed("k") == ("k", 0)
    minted, _ = registry.register_minted()
    assert registry.register_keyed("") == ("", 2)
    # unclaimed: re-registered with a new ticket, keeping its position
    assert registry.register_keyed("k") == ("k", 3)
    assert registry.unclaimed() == ["k", minted, ""]
    assert registry.try_claim("k", 0) is C.Stale
    assert registry.try_claim("k", 3) is C.Claimed
    # claimed: refused, no ticket consumed
    assert registry.register_keyed("k") is None
    assert registry.register_keyed("j") == ("j", 4)


def test_register_keyed_over_minted_drops_room(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=42)
    token, ticket = registry.register_minted("r")
    assert registry.register_keyed(token) == (token, ticket + 1)
    assert registry.unclaimed_in_room("r") == []
    assert registry.cancel_room("r").unclaimed == []
    assert registry.unclaimed() == [token]


def test_withdraw_and_forget(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=5)
    a = registry.register_minted()
    b = registry.register_minted()
    assert registry.withdraw(a[0], a[1] + 5) is False
    assert registry.withdraw(*a) is True
    assert registry.withdraw(*a) is False
    assert registry.try_claim(*a) is C.Stale
    assert registry.try_claim(*b) is C.Claimed
    assert registry.withdraw(*b) is False
    assert registry.forget(b[0], b[1] + 1) is False
    assert registry.forget(*b) is True
    assert registry.forget(*b) is False
    assert registry.try_claim(*b) is C.Stale
    c = registry.register_minted()
    assert registry.forget(*c) is True
    assert registry.unclaimed() == []


def test_unclaimed_queries(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=9)
    assert registry.oldest_unclaimed() is None
    assert registry.unclaimed_count() == 0
    r1 = registry.register_minted("r1")
    r2 = registry.register_minted("r2")
    empty_room = registry.register_minted("")
    none_room = registry.register_minted()
    keyed = registry.register_keyed("key")
    r1b = registry.register_minted("r1")
    assert registry.unclaimed_in_room("r1") == [r1[0], r1b[0]]
    assert registry.unclaimed_in_room("r2") == [r2[0]]
    assert registry.unclaimed_in_room("") == [empty_room[0]]
    assert registry.unclaimed_in_room("key") == []
    assert registry.try_claim(*r1) is C.Claimed
    assert registry.unclaimed_in_room("r1") == [r1b[0]]
    assert registry.unclaimed() == [r2[0], empty_room[0], none_room[0], "key", r1b[0]]
    assert registry.unclaimed_count() == 5
    assert registry.oldest_unclaimed() == r2[0]
    assert keyed == ("key", 4)


def test_evict_oldest(decisions_impl: ModuleType) -> None:
    unbounded = decisions_impl.DecisionRegistry(seed=1)
    unbounded.register_minted()
    assert unbounded.evict_oldest() is None

    registry = decisions_impl.DecisionRegistry(max_pending=3, seed=1)
    a = registry.register_minted()
    b = registry.register_minted()
    assert registry.evict_oldest() is None  # 2 entries < 3
    c = registry.register_minted()
    assert registry.try_claim(*a) is C.Claimed
    # claimed entries count towards the total but are never evicted
    assert registry.evict_oldest() == b[0]
    assert registry.try_claim(*b) is C.Stale
    assert registry.evict_oldest() is None  # 2 entries again
    d = registry.register_minted()
    e = registry.register_minted()
    assert registry.evict_oldest() == c[0]
    assert registry.evict_oldest() == d[0]
    assert registry.unclaimed() == [e[0]]
    assert registry.evict_oldest() is None
    # registration never refuses nor auto-evicts
    extra = [registry.register_minted() for _ in range(5)]
    assert all(item is not None for item in extra)
    assert registry.unclaimed_count() == 6
    full = decisions_impl.DecisionRegistry(max_pending=1, seed=1)
    only = full.register_minted()
    assert full.try_claim(*only) is C.Claimed
    assert full.evict_oldest() is None


def test_cancel_room_and_all(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=11)
    a = registry.register_minted("r")
    b = registry.register_minted("s")
    c = registry.register_minted("r")
    d = registry.register_minted("r")
    k = registry.register_keyed("k")
    assert registry.try_claim(*c) is C.Claimed
    result = registry.cancel_room("r")
    assert result.unclaimed == [a[0], d[0]]
    assert result.claimed == [c[0]]
    assert registry.try_claim(*c) is C.Stale
    assert registry.unclaimed() == [b[0], "k"]
    empty = registry.cancel_room("r")
    assert (empty.unclaimed, empty.claimed) == ([], [])
    assert registry.try_claim(*k) is C.Claimed
    everything = registry.cancel_all()
    assert everything.unclaimed == [b[0]]
    assert everything.claimed == ["k"]
    assert registry.unclaimed() == []
    assert registry.register_keyed("k") == ("k", 5)


def test_cancelled_decisions_object(decisions_impl: ModuleType) -> None:
    registry = decisions_impl.DecisionRegistry(seed=1)
    token, _ = registry.register_minted()
    result = registry.cancel_all()
    cls = type(result)
    assert cls is decisions_impl.CancelledDecisions
    assert cls.__module__ == "band_sdk_core"
    assert result.unclaimed == [token]
    listing = result.unclaimed
    listing.clear()
    assert result.unclaimed == [token]
    assert_sealed_result(result, ("unclaimed", "claimed"))


def test_argument_errors(decisions_impl: ModuleType) -> None:
    info: pytest.ExceptionInfo[BaseException]
    registry = decisions_impl.DecisionRegistry(seed=1)
    token, ticket = registry.register_minted()
    for name in ("try_claim", "withdraw", "forget"):
        method = getattr(registry, name)
        with pytest.raises(OverflowError) as info:
            method(token, -1)
        assert str(info.value) == "can't convert negative int to unsigned"
        with pytest.raises(OverflowError) as info:
            method(token, U64 + 1)
        assert str(info.value) == "int too big to convert"
        with pytest.raises(TypeError) as info:
            method(1, ticket)
        assert str(info.value) == "'int' object is not an instance of 'str'"
        with pytest.raises(TypeError):
            method(token, 0.0)
        assert method(token, U64) in (C.Stale, False)
    with pytest.raises(TypeError) as info:
        registry.register_minted(1)
    assert str(info.value) == "'int' object is not an instance of 'str'"
    for name in ("register_keyed", "unclaimed_in_room", "cancel_room"):
        with pytest.raises(TypeError) as info:
            getattr(registry, name)(None)
        assert str(info.value) == "'None' is not an instance of 'str'"
        with pytest.raises(UnicodeEncodeError):
            getattr(registry, name)("\ud800")
    with pytest.raises(UnicodeEncodeError):
        registry.register_minted("\ud800")
    assert registry.unclaimed() == [token]
    assert registry.register_minted(room_id="r") is not None
    assert registry.try_claim(token=token, ticket=ticket) is C.Claimed


def test_class_behaviour(decisions_impl: ModuleType) -> None:
    info: pytest.ExceptionInfo[BaseException]
    cls = decisions_impl.DecisionRegistry
    registry = cls(max_pending=2)
    assert cls.__module__ == "band_sdk_core"
    with pytest.raises(AttributeError) as info:
        registry.max_pending = 3
    assert str(info.value) == (
        "attribute 'max_pending' of 'band_sdk_core.DecisionRegistry' objects is not writable"
    )
    with pytest.raises(AttributeError) as info:
        registry.extra = 1
    assert str(info.value) == "'band_sdk_core.DecisionRegistry' object has no attribute 'extra'"
    for dump in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError) as info:
            dump(registry)
        assert str(info.value) == "cannot pickle 'band_sdk_core.DecisionRegistry' object"
    with pytest.raises(TypeError) as info:

        class Sub(cls):  # type: ignore[misc, valid-type]
            pass

    # a compiled (heap) type names its defining module in this interpreter message
    assert str(info.value) in {
        "type 'band_sdk_core.DecisionRegistry' is not an acceptable base type",
        "type 'band_sdk_core._decisions_c.DecisionRegistry' is not an acceptable base type",
    }
    assert registry.max_pending == 2


def test_public_names() -> None:
    from band_sdk_core import decisions

    assert_exports(decisions, {"CancelledDecisions", "DecisionRegistry", "is_authorized_sender"})


# --------------------------------------------------------------------------- is_authorized_sender


class _Set(set[str]):
    pass


class _Frozen(frozenset[str]):
    pass


class _Name(str):
    pass


@pytest.mark.parametrize(
    ("senders", "sender", "expected"),
    [
        (None, "anyone", True),
        (None, None, True),
        (None, "", True),
        (set(), "alice", False),
        (set(), None, False),
        ({"alice"}, "alice", True),
        ({"alice"}, "bob", False),
        ({"alice"}, None, False),
        (frozenset({"alice"}), "alice", True),
        (frozenset(), "alice", False),
        (_Set({"alice"}), "alice", True),
        (_Frozen({"alice"}), "alice", True),
        ({_Name("alice")}, "alice", True),
        ({"alice"}, _Name("alice"), True),
        ({""}, "", True),
    ],
)
def test_is_authorized_sender(
    decisions_impl: ModuleType, senders: Any, sender: Any, expected: bool
) -> None:
    assert decisions_impl.is_authorized_sender(senders, sender) is expected


@pytest.mark.parametrize(
    ("senders", "sender", "message"),
    [
        (["alice"], "alice", "'list' object is not an instance of 'set'"),
        (("alice",), "alice", "'tuple' object is not an instance of 'set'"),
        ({"alice": 1}, "alice", "'dict' object is not an instance of 'set'"),
        ("alice", "alice", "'str' object is not an instance of 'set'"),
        (["alice"], 1, "'list' object is not an instance of 'set'"),
        ({1}, "alice", "'int' object is not an instance of 'str'"),
        ({"alice", 1}, "alice", "'int' object is not an instance of 'str'"),
        ({1}, None, "'int' object is not an instance of 'str'"),
        ({"alice"}, 1, "'int' object is not an instance of 'str'"),
        (set(), 1, "'int' object is not an instance of 'str'"),
        (None, 1, "'int' object is not an instance of 'str'"),
        ({None}, "alice", "'None' is not an instance of 'str'"),
    ],
)
def test_is_authorized_sender_errors(
    decisions_impl: ModuleType, senders: Any, sender: Any, message: str
) -> None:
    with pytest.raises(TypeError) as info:
        decisions_impl.is_authorized_sender(senders, sender)
    assert str(info.value) == message


def test_is_authorized_sender_keywords(decisions_impl: ModuleType) -> None:
    assert decisions_impl.is_authorized_sender(authorized_senders=None, sender_id="x") is True
    with pytest.raises(UnicodeEncodeError):
        decisions_impl.is_authorized_sender({"\ud800"}, "a")


# --------------------------------------------------------------------------- model-based

KEYS = ["k1", "k2", ""]
ROOMS = [None, "r1", "r2", ""]
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("minted"), st.sampled_from(ROOMS)),
        st.tuples(st.just("keyed"), st.sampled_from(KEYS)),
        st.tuples(
            st.sampled_from(["claim", "withdraw", "forget"]), st.integers(0, 7), st.integers(0, 9)
        ),
        st.tuples(st.just("evict")),
        st.tuples(st.just("cancel_room"), st.sampled_from(["r1", "r2", ""])),
        st.tuples(st.just("cancel_all")),
    ),
    max_size=50,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ops=OPS,
    seed=st.integers(0, U64),
    max_pending=st.one_of(st.none(), st.integers(1, 4)),
)
def test_against_model(
    decisions_impl: ModuleType, ops: list[tuple[Any, ...]], seed: int, max_pending: int | None
) -> None:
    registry = decisions_impl.DecisionRegistry(max_pending=max_pending, seed=seed)
    stream = iter(_splitmix_tokens(seed, 10_000))
    # token -> [ticket, room, claimed]; dict order is registration order
    entries: dict[str, list[Any]] = {}
    seen: list[str] = []  # every token ever issued, to aim claim/withdraw/forget at
    counter = 0
    for op in ops:
        kind = op[0]
        if kind == "minted":
            token = next(stream)
            while token in entries:
                token = next(stream)
            entries[token] = [counter, op[1], False]
            assert registry.register_minted(op[1]) == (token, counter)
            counter += 1
            seen.append(token)
        elif kind == "keyed":
            key = op[1]
            entry = entries.get(key)
            if entry is not None and entry[2]:
                assert registry.register_keyed(key) is None
            else:
                if entry is None:
                    entries[key] = [counter, None, False]
                else:
                    entry[0], entry[1] = counter, None
                assert registry.register_keyed(key) == (key, counter)
                counter += 1
                seen.append(key)
        elif kind in ("claim", "withdraw", "forget"):
            token = seen[op[1] % len(seen)] if seen else "none"
            ticket = op[2]
            entry = entries.get(token)
            current = entry is not None and entry[0] == ticket
            if kind == "claim":
                if not current:
                    expected: Any = C.Stale
                elif entry is not None and entry[2]:
                    expected = C.AlreadyClaimed
                else:
                    expected = C.Claimed
                    entries[token][2] = True
                assert registry.try_claim(token, ticket) is expected
            elif kind == "withdraw":
                ok = current and entry is not None and not entry[2]
                if ok:
                    del entries[token]
                assert registry.withdraw(token, ticket) is ok
            else:
                if current:
                    del entries[token]
                assert registry.forget(token, ticket) is current
        elif kind == "evict":
            oldest = next((t for t, e in entries.items() if not e[2]), None)
            expected_token = None
            if max_pending is not None and len(entries) >= max_pending and oldest is not None:
                expected_token = oldest
                del entries[oldest]
            assert registry.evict_oldest() == expected_token
        else:
            if kind == "cancel_room":
                doomed = [t for t, e in entries.items() if e[1] is not None and e[1] == op[1]]
                result = registry.cancel_room(op[1])
            else:
                doomed = list(entries)
                result = registry.cancel_all()
            assert result.unclaimed == [t for t in doomed if not entries[t][2]]
            assert result.claimed == [t for t in doomed if entries[t][2]]
            for token in doomed:
                del entries[token]
        unclaimed = [t for t, e in entries.items() if not e[2]]
        assert registry.unclaimed() == unclaimed
        assert registry.unclaimed_count() == len(unclaimed)
        assert registry.oldest_unclaimed() == (unclaimed[0] if unclaimed else None)
        for room in ("r1", "r2", ""):
            assert registry.unclaimed_in_room(room) == [
                t for t in unclaimed if entries[t][1] is not None and entries[t][1] == room
            ]


def test_cancel_room_results_are_independent(decisions_impl: ModuleType) -> None:
    # each cancellation returns its own object and lists (the room's index is iterated, not kept)
    registry = decisions_impl.DecisionRegistry(seed=5)
    first = registry.register_minted("r")
    done = registry.cancel_room("r")
    second = registry.register_minted("r")
    again = registry.cancel_room("r")
    assert done is not again
    assert (done.unclaimed, again.unclaimed) == ([first[0]], [second[0]])
    assert registry.unclaimed_in_room("r") == [] and registry.unclaimed() == []


@pytest.mark.compiled
def test_compiled_allocate_refuses_an_unrelated_class() -> None:
    if not band_sdk_core.USING_EXTENSIONS:
        pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
    from band_sdk_core import _typename_c

    with pytest.raises(TypeError, match=r"^str is not a subclass of int$"):
        _typename_c.allocate(int, str)
