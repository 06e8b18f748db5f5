"""The ACP server side: a Band agent offered to ACP clients (editors) as an ACP agent.

``ACPServer`` answers the client's ACP requests; ``BandACPServerAdapter`` is the Band agent
behind it. Each ACP session is a Band room the agent creates (with the configured peers in
it); a prompt is posted there mentioning the peers, and what they answer in the room streams
back to the editor as ``agent_message_chunk`` updates; the prompt ends (``end_turn``) once a
peer answered and the room is quiet for ``reply_grace_s``::

    adapter = BandACPServerAdapter(BandACPServerAdapterConfig(peers=("<agent id>",)))
    async with Agent.create(adapter=adapter, agent_id=..., api_key=...):
        await run_acp_server(ACPServer(adapter))  # stdio: the editor launched this process
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, Unpack, cast

from acp import (
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    update_agent_message_text,
)
from acp.exceptions import RequestError
from acp.interfaces import Agent as ACPAgent
from acp.interfaces import Client
from acp.schema import AgentCapabilities, Implementation, PromptCapabilities
from pydantic import BaseModel, ConfigDict, PositiveFloat

from band._version import __version__
from band.client.rest import RestClient, path
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import FeatureKwargs, SimpleAdapter
from band.core.types import HistoryProvider, PlatformMessage

__all__ = [
    "ACPServer",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "run_acp_server",
]

log = logging.getLogger("band.acp.server")

#: sessions one adapter holds at most (each is a Band room)
MAX_SESSIONS = 100


class BandACPServerAdapterConfig(BaseModel):
    """Who answers the editor's prompts, and how long a prompt may wait for them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: agent (or user) ids added to each session's room; a prompt mentions every participant
    #: but this agent
    peers: tuple[str, ...] = ()
    #: seconds a prompt waits for the first answer before it fails
    prompt_timeout_s: PositiveFloat = 300.0
    #: seconds of quiet after an answer before the prompt ends (split answers arrive as one)
    reply_grace_s: PositiveFloat = 0.25


@dataclass
class _Prompt:
    """One prompt in flight: answered once a peer spoke, done when quiet or cancelled."""

    session_id: str
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    quiet: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: bool = False
    timer: asyncio.TimerHandle | None = None


class BandACPServerAdapter(SimpleAdapter[Any]):
    """The Band agent behind an ``ACPServer``: sessions are rooms, prompts are messages to
    the room's peers, their answers are the editor's agent messages.

    It needs the agent's REST client and id, which the runtime hands it at start
    (``attach_platform``); ``rest_client`` sets the client beforehand.
    """

    def __init__(
        self,
        config: BandACPServerAdapterConfig | None = None,
        *,
        rest_client: RestClient | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(**features)
        self.config = config or BandACPServerAdapterConfig()
        self._rest = rest_client
        self._agent_id: str | None = None
        self._client: Client | None = None
        self._session_room: dict[str, str] = {}
        self._room_session: dict[str, str] = {}
        self._session_cwd: dict[str, str] = {}
        self._prompts: dict[str, _Prompt] = {}  # room id -> the prompt in flight
        self._lock = asyncio.Lock()

    @property
    def judges_turns(self) -> bool:
        """False: a peer's answer is forwarded to the editor, never answered in the room."""
        return False

    def attach_platform(self, rest: RestClient, agent_id: str) -> None:
        """The runtime's REST client and the agent's id (called before ``startup``)."""
        self._rest = self._rest or rest
        self._agent_id = agent_id

    @property
    def rest(self) -> RestClient:
        """The REST client sessions and prompts use."""
        if self._rest is None:
            raise RuntimeError("BandACPServerAdapter is not attached to a running agent yet")
        return self._rest

    # --- the editor side ----------------------------------------------------------------------

    def set_acp_client(self, client: Client) -> None:
        """The connected editor, to which answers stream."""
        self._client = client

    def get_acp_client(self) -> Client | None:
        """The connected editor, if any."""
        return self._client

    def has_session(self, session_id: str) -> bool:
        """Whether ``session_id`` is one of this adapter's sessions."""
        return session_id in self._session_room

    def get_session_ids(self) -> list[str]:
        """Every open session."""
        return list(self._session_room)

    def get_room_for_session(self, session_id: str) -> str | None:
        """The Band room of a session."""
        return self._session_room.get(session_id)

    def get_session_for_room(self, room_id: str) -> str | None:
        """The session a Band room belongs to."""
        return self._room_session.get(room_id)

    def get_session_cwd(self, session_id: str) -> str:
        """The working directory the editor gave the session."""
        return self._session_cwd.get(session_id, ".")

    async def create_session(self, cwd: str = ".", mcp_servers: list[Any] | None = None) -> str:
        """Create the session's room with the configured peers; return the session id.

        ``mcp_servers`` of the editor are not used: the peers bring their own tools.
        """
        async with self._lock:
            if len(self._session_room) >= MAX_SESSIONS:
                raise RuntimeError(f"Maximum sessions ({MAX_SESSIONS}) reached")
        created = await self.rest.request("POST", "/agent/chats", json={"chat": {}})
        room = created.data
        if not isinstance(room, dict) or not room.get("id"):
            raise RuntimeError("the platform did not return the new room")
        room_id = str(room["id"])
        for peer in self.config.peers:
            body = {"participant": {"participant_id": peer}}
            await self.rest.request(
                "POST", path("/agent/chats/{}/participants", room_id), json=body
            )
        session_id = uuid.uuid4().hex
        async with self._lock:
            self._session_room[session_id] = room_id
            self._room_session[room_id] = session_id
            self._session_cwd[session_id] = cwd
        log.info("ACP session %s is room %s", session_id, room_id)
        return session_id

    async def handle_prompt(self, session_id: str, text: str) -> str:
        """Post ``text`` to the session's room for its peers; wait for their answer.

        Returns the stop reason (``end_turn``, or ``cancelled`` after ``cancel_prompt``).
        ``KeyError`` for an unknown session, ``RuntimeError`` when a prompt is already in
        flight in it, ``TimeoutError`` when no peer answered within ``prompt_timeout_s``.
        """
        room_id = self._session_room.get(session_id)
        if room_id is None:
            raise KeyError(f"Unknown ACP session: {session_id}")
        async with self._lock:
            if room_id in self._prompts:
                raise RuntimeError("A prompt is already active in this session.")
            prompt = self._prompts[room_id] = _Prompt(session_id)
        try:
            await self._post(room_id, text)
            async with asyncio.timeout(self.config.prompt_timeout_s):
                await prompt.answered.wait()
            await prompt.quiet.wait()
            return "cancelled" if prompt.cancelled else "end_turn"
        finally:
            if prompt.timer is not None:
                prompt.timer.cancel()
            async with self._lock:
                if self._prompts.get(room_id) is prompt:
                    del self._prompts[room_id]

    async def cancel_prompt(self, session_id: str) -> None:
        """End the session's prompt in flight (``cancelled``); the peers are not stopped."""
        room_id = self._session_room.get(session_id)
        prompt = self._prompts.get(room_id or "")
        if prompt is not None:
            prompt.cancelled = True
            prompt.answered.set()
            prompt.quiet.set()

    async def _post(self, room_id: str, text: str) -> None:
        resp = await self.rest.request("GET", path("/agent/chats/{}/participants", room_id))
        rows = resp.data if isinstance(resp.data, list) else []
        mentions = [
            {"id": str(p["id"]), "name": str(p.get("name") or "")}
            for p in rows
            if isinstance(p, dict) and p.get("id") and p.get("id") != self._agent_id
        ]
        if not mentions:
            raise RuntimeError("nobody in the session's room to answer: configure peers")
        body = {"message": {"content": text, "mentions": mentions}}
        await self.rest.request("POST", path("/agent/chats/{}/messages", room_id), json=body)

    # --- the Band side ------------------------------------------------------------------------

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: HistoryProvider,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """A peer spoke in a session's room: stream it to the editor."""
        session_id = self._room_session.get(room_id)
        if session_id is None or self._client is None:
            log.info("room %s has no ACP session: message %s not forwarded", room_id, msg.id)
            return
        await self._client.session_update(
            session_id=session_id, update=update_agent_message_text(msg.content)
        )
        prompt = self._prompts.get(room_id)
        if prompt is not None:
            prompt.answered.set()
            if prompt.timer is not None:
                prompt.timer.cancel()
            loop = asyncio.get_running_loop()
            prompt.timer = loop.call_later(self.config.reply_grace_s, prompt.quiet.set)

    async def on_cleanup(self, room_id: str) -> None:
        """The agent left a session's room: the session ends."""
        session_id = self._room_session.pop(room_id, None)
        if session_id is not None:
            await self.cancel_prompt(session_id)
            self._session_room.pop(session_id, None)
            self._session_cwd.pop(session_id, None)


class ACPServer:
    """Answers an ACP client's requests with a ``BandACPServerAdapter``.

    Handlers take the request's fields by name (the ACP SDK calls them that way) and ignore
    the ones they do not read.
    """

    def __init__(self, adapter: BandACPServerAdapter) -> None:
        self._adapter = adapter

    def on_connect(self, conn: Client) -> None:
        """The ACP SDK hands over the client connection: answers stream to it."""
        self._adapter.set_acp_client(conn)

    async def initialize(
        self, *, protocol_version: int, client_info: Any = None, **kwargs: Any
    ) -> InitializeResponse:
        """Who this agent is and what prompts it takes (text and embedded context)."""
        log.info("ACP initialize from %s (protocol %s)", client_info, protocol_version)
        return InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=AgentCapabilities(
                load_session=False,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
            ),
            agent_info=Implementation(
                name="band-agent",
                title=self._adapter.agent_name or "Band Agent",
                version=__version__,
            ),
        )

    async def new_session(
        self, *, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        """A new session: a new Band room with the peers."""
        session_id = await self._adapter.create_session(cwd=cwd, mcp_servers=mcp_servers)
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, *, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        """Forward the prompt's text to the peers; their answers stream as it runs."""
        try:
            reason = await self._adapter.handle_prompt(session_id, _text_of(prompt))
        except KeyError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        except TimeoutError as exc:
            raise RequestError.internal_error({"message": "no answer from the peers"}) from exc
        except RuntimeError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        return PromptResponse(stop_reason=cast(Any, reason))

    async def cancel(self, *, session_id: str, **kwargs: Any) -> None:
        """Stop waiting for the session's prompt."""
        await self._adapter.cancel_prompt(session_id)


def _text_of(blocks: list[Any]) -> str:
    """The prompt's text: text blocks as they are, embedded text resources after them."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(str(block.text))
        elif kind == "resource":
            text = getattr(block.resource, "text", None)
            if text:
                parts.append(f"[{getattr(block.resource, 'uri', 'resource')}]\n{text}")
        elif kind == "resource_link":
            parts.append(f"[{block.name}]({block.uri})")
    return "\n".join(p for p in parts if p)


async def run_acp_server(
    server: ACPServer, input_stream: Any = None, output_stream: Any = None, **connection_kwargs: Any
) -> None:
    """Serve ``server`` to one ACP client over stdio (or the given streams) until it leaves."""
    if "use_unstable_protocol" in connection_kwargs:
        raise TypeError("run_acp_server() does not take use_unstable_protocol")
    await run_agent(cast(ACPAgent, server), input_stream, output_stream, **connection_kwargs)
