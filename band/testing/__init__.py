"""Testing a Band agent: in-memory fakes, and a real local platform with pytest fixtures.

* ``FakeAgentTools``: an in-memory ``AgentToolsProtocol`` for unit tests of ``on_message``.
* ``FakePhoenixServer`` / ``fake_phoenix_server``: a loopback Phoenix Channels V2 socket.
* ``ScriptedModel``: a model API on 127.0.0.1 (OpenAI, Anthropic, Gemini wire APIs) that
  answers scripted turns (``TextTurn``, ``ToolTurn``, ``ErrorTurn``) and records every call
  (``ModelRequest``); the ``scripted_model`` fixture hands out a started one.
* ``LocalBand``: ``band dev`` in-process on a free 127.0.0.1 port, with people, agents and
  rooms to drive; ``pytest -p band.testing`` (or the installed plugin) gives the fixtures
  ``band_platform`` and ``band_fake_tools``.

Names resolve on first use, so importing this package costs nothing and needs no pytest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

# ``pytest -p band.testing`` registers this module; pytest then loads the fixtures from here
pytest_plugins = ["band.testing.pytest_plugin"]

_EXPORTS = {
    "MISSING_REPLY_FAILURE": "band.testing.fake_tools",
    "FakeAgentTools": "band.testing.fake_tools",
    "HeldMessage": "band.testing.fake_tools",
    "events_of_type": "band.testing.fake_tools",
    "failure_reports": "band.testing.fake_tools",
    "reported_failures": "band.testing.fake_tools",
    "feature_kwargs": "band.testing.features",
    "message": "band.testing.messages",
    "FakePhoenixServer": "band.testing.phoenix_server",
    "JoinOutcome": "band.testing.phoenix_server",
    "fake_phoenix_server": "band.testing.phoenix_server",
    "platform_connection_stub": "band.testing.platform",
    "close_transport": "band.testing.transport",
    "force_transport_disconnect": "band.testing.transport",
    "live_connection": "band.testing.transport",
    "AgentHandle": "band.testing.live",
    "LocalBand": "band.testing.live",
    "Message": "band.testing.live",
    "Person": "band.testing.live",
    "Room": "band.testing.live",
    "RunningAgent": "band.testing.live",
    "local_band": "band.testing.live",
    "ErrorTurn": "band.testing.scripted_model",
    "ModelRequest": "band.testing.scripted_model",
    "ScriptedModel": "band.testing.scripted_model",
    "ScriptedTurn": "band.testing.scripted_model",
    "TextTurn": "band.testing.scripted_model",
    "ToolTurn": "band.testing.scripted_model",
    "ScriptedStrandsModel": "band.testing.strands",
}

__all__ = [
    "AgentHandle",
    "ErrorTurn",
    "FakeAgentTools",
    "FakePhoenixServer",
    "HeldMessage",
    "JoinOutcome",
    "LocalBand",
    "MISSING_REPLY_FAILURE",
    "Message",
    "ModelRequest",
    "Person",
    "Room",
    "RunningAgent",
    "ScriptedModel",
    "ScriptedTurn",
    "TextTurn",
    "ToolTurn",
    "ScriptedStrandsModel",
    "close_transport",
    "events_of_type",
    "failure_reports",
    "fake_phoenix_server",
    "feature_kwargs",
    "force_transport_disconnect",
    "live_connection",
    "local_band",
    "message",
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
    from .messages import message
    from .phoenix_server import FakePhoenixServer, JoinOutcome, fake_phoenix_server
    from .platform import platform_connection_stub
    from .scripted_model import (
        ErrorTurn,
        ModelRequest,
        ScriptedModel,
        ScriptedTurn,
        TextTurn,
        ToolTurn,
    )
    from .strands import ScriptedStrandsModel
    from .transport import close_transport, force_transport_disconnect, live_connection


__getattr__ = lazy_exports(globals(), _EXPORTS)
