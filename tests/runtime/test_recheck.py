"""The owed-message re-check backoff: jittered, doubling to its ceiling, restarting on reset."""

from __future__ import annotations

from band.runtime.rooms.recheck import RecheckBackoff


def test_delays_double_up_to_the_ceiling_with_jitter() -> None:
    for _ in range(50):  # the jitter is random: every draw must stay in its window
        backoff = RecheckBackoff(0.5, 5.0)
        delays = [backoff.next_delay() for _ in range(8)]
        ceilings = [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 5.0, 5.0]
        for delay, ceiling in zip(delays, ceilings, strict=True):
            assert ceiling / 2 <= delay <= ceiling, (delays, ceilings)


def test_never_dies_and_reset_starts_again() -> None:
    backoff = RecheckBackoff(0.2, 1.0)
    for _ in range(500):  # far past any rapid-disconnect threshold of a socket policy
        assert 0.0 < backoff.next_delay() <= 1.0
    backoff.reset()
    assert 0.1 <= backoff.next_delay() <= 0.2


def test_a_base_above_the_ceiling_is_capped() -> None:
    backoff = RecheckBackoff(10.0, 3.0)
    assert 1.5 <= backoff.next_delay() <= 3.0
