"""Testing a Band agent: in-memory fakes, and a real local platform with pytest fixtures.

* ``FakeAgentTools``: an in-memory ``AgentToolsProtocol`` for unit tests of ``on_message``.
* ``FakePhoenixServer`` / ``fake_phoenix_server``: a loopback Phoenix Channels V2 socket.
* ``LocalBand``: ``band dev`` in-process on a free 127.0.0.1 port, with people, agents and
  rooms to drive; ``pytest -p band.testing`` (or the installed plugin) gives the fixtures
  ``band_platform`` and ``band_fake_tools``.

Names resolve on first use, so importing this package costs nothing and needs no pytest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# ``pytest -p band.testing`` registers this module; pytest then loads the fixtures from here
pytest_plugins = ["band.testing.pytest_plugin"]

_EXPORTS = {
    "MISSING_REPLY_FAILURE": "fake_tools",
    "FakeAgentTools": "fake_tools",
    "HeldMessage": "fake_tools",
    "events_of_type": "fake_tools",
    "failure_reports": "fake_tools",
    "reported_failures": "fake_tools",
    "feature_kwargs": "features",
    "FakePhoenixServer": "phoenix_server",
    "JoinOutcome": "phoenix_server",
    "fake_phoenix_server": "phoenix_server",
    "platform_connection_stub": "platform",
    "close_transport": "transport",
    "force_transport_disconnect": "transport",
    "live_connection": "transport",
    "AgentHandle": "live",
    "LocalBand": "live",
    "Message": "live",
    "Person": "live",
    "Room": "live",
    "RunningAgent": "live",
    "local_band": "live",
}

__all__ = [
    "AgentHandle",
    "FakeAgentTools",
    "FakePhoenixServer",
    "HeldMessage",
    "JoinOutcome",
    "LocalBand",
    "MISSING_REPLY_FAILURE",
    "Message",
    "Person",
    "Room",
    "RunningAgent",
    "close_transport",
    "events_of_type",
    "failure_reports",
    "fake_phoenix_server",
    "feature_kwargs",
    "force_transport_disconnect",
    "live_connection",
    "local_band",
    "platform_connection_stub",
    "reported_failures",
]

if TYPE_CHECKING:
    from .fake_tools import (
        MISSING_REPLY_FAILURE,
        FakeAgentTools,
        HeldMessage,
        events_of_type,
        failure_reports,
        reported_failures,
    )
    from .features import feature_kwargs
    from .live import AgentHandle, LocalBand, Message, Person, Room, RunningAgent, local_band
    from .phoenix_server import FakePhoenixServer, JoinOutcome, fake_phoenix_server
    from .platform import platform_connection_stub
    from .transport import close_transport, force_transport_disconnect, live_connection


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'band.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"band.testing.{module}"), name)
    globals()[name] = value
    return value
