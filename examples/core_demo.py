"""A tour of band_sdk_core: validate an inbound event, route it, and drive a reconnect."""

from __future__ import annotations

import random

import band_sdk_core as core


def show_validation() -> None:
    """Normalise a good payload and report every issue of a bad one."""
    message = {
        "id": "m1",
        "content": "@echo hello",
        "message_type": "text",
        "sender_type": "User",
        "sender_id": "u1",
        "chat_room_id": "room-1",
        "inserted_at": "2026-12-02T12:00:00Z",
        "updated_at": "2026-12-02T12:00:00Z",
    }
    print("normalised:", core.validate_event_payload("message_created", message))
    decision = core.evaluate_delivery_event("message_created", None, message, "agent-1")
    print("delivery decision:", decision)
    try:
        core.validate_event_payload("message_created", {"id": "", "content": 1}, "trace-1")
    except ValueError as error:
        print("rejected:", error)
        for path, code, text in error.issues:  # type: ignore[attr-defined]
            print(f"  {path or '<root>'}: {code} - {text}")


def show_reconnect() -> None:
    """Drive the sans-io Session through a few dropped connections."""
    session = core.Session(core.SessionPolicy.default())
    rng = random.Random(7)
    now = 0.0
    for _ in range(4):
        epoch = session.begin_attempt(now)
        assert epoch is not None
        session.on_connected(epoch, now)
        now += 2.0  # a short-lived connection counts as a rapid disconnect
        outcome = session.on_socket_close(epoch, now, 1006, rng.random())
        print(f"t={now:6.2f}s state={outcome.state} retry in {outcome.retry_after_s}s")
        now += outcome.retry_after_s or 0.0


def main() -> None:
    """Run the tour."""
    print(f"band_sdk_core compiled extensions in use: {core.USING_EXTENSIONS}")
    show_validation()
    show_reconnect()


if __name__ == "__main__":
    main()
