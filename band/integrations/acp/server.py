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
from typing import Any, Unpack, cast

from acp import (
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    SetSessionModeResponse,
    run_agent,
)
from acp.exceptions import RequestError
from acp.interfaces import Agent as ACPAgent
from acp.interfaces import Client
from acp.schema import AgentCapabilities, Implementation, PromptCapabilities
from pydantic import BaseModel, ConfigDict, PositiveFloat

from band._version import __version__
from band.client.rest import RestClient, path
from band.converters.acp_server import ACPServerHistoryConverter
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import FeatureKwargs, SimpleAdapter
from band.core.types import MessageType, PlatformMessage

from .router import AgentRouter
from .sessions import SESSION_EVENT_TEXT, ACPSessionState, PendingACPPrompt
from .updates import ACPPushHandler, EventConverter

__all__ = [
    "ACPPushHandler",
    "ACPServer",
    "ACPSessionState",
    "AgentRouter",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "EventConverter",
    "PendingACPPrompt",
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


class BandACPServerAdapter(SimpleAdapter[ACPSessionState]):
    """The Band agent behind an ``ACPServer``: sessions are rooms, prompts are messages to
    the room's peers, their answers are the editor's agent messages.

    It needs the agent's REST client and id, which the runtime hands it at start
    (``attach_platform``); ``rest_client`` sets the client beforehand. Each session is
    recorded in its room's history (a ``task`` event), so an agent started again knows the
    rooms of its sessions (``ACPServerHistoryConverter``). ``set_router`` sends a prompt to
    one peer (``AgentRouter``); ``set_push_handler`` replaces how room messages no prompt
    waits for reach the editor (by default an ``ACPPushHandler`` sends them).
    """

    def __init__(
        self,
        config: BandACPServerAdapterConfig | None = None,
        *,
        rest_client: RestClient | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=ACPServerHistoryConverter(), **features)
        self.config = config or BandACPServerAdapterConfig()
        self._rest = rest_client
        self._agent_id: str | None = None
        self._client: Client | None = None
        self._session_room: dict[str, str] = {}
        self._room_session: dict[str, str] = {}
        self._session_cwd: dict[str, str] = {}
        self._session_mcp: dict[str, list[dict[str, Any]]] = {}
        self._session_mode: dict[str, str] = {}
        self._prompts: dict[str, PendingACPPrompt] = {}  # room id -> the prompt in flight
        self._answered: dict[str, asyncio.Event] = {}  # room id -> a peer spoke (or it ended)
        self._router: AgentRouter | None = None
        self._push_handler: ACPPushHandler | None = ACPPushHandler(self)
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

    def set_router(self, router: AgentRouter) -> None:
        """Route prompts to one peer by ``/command`` or session mode."""
        self._router = router

    def set_push_handler(self, handler: ACPPushHandler | None) -> None:
        """How room messages no prompt waits for reach the editor (None: not at all)."""
        self._push_handler = handler

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

    def set_session_mode(self, session_id: str, mode_id: str) -> None:
        """The session's mode (``AgentRouter``'s ``mode_to_peer`` reads it)."""
        if session_id not in self._session_room:
            raise KeyError(f"Unknown ACP session: {session_id}")
        self._session_mode[session_id] = mode_id

    def get_session_mode(self, session_id: str) -> str | None:
        """The session's mode, if the editor set one."""
        return self._session_mode.get(session_id)

    async def create_session(self, cwd: str = ".", mcp_servers: list[Any] | None = None) -> str:
        """Create the session's room with the configured peers; return the session id.

        ``mcp_servers`` of the editor are recorded with the session, not used: the peers
        bring their own tools.
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
        servers = [_as_json(s) for s in mcp_servers or ()]
        async with self._lock:
            self._session_room[session_id] = room_id
            self._room_session[room_id] = session_id
            self._session_cwd[session_id] = cwd
            self._session_mcp[session_id] = servers
        event = {
            "content": SESSION_EVENT_TEXT,
            "message_type": "task",
            "metadata": {
                "acp_session_id": session_id,
                "acp_room_id": room_id,
                "acp_cwd": cwd,
                "acp_mcp_servers": servers,
            },
        }
        await self.rest.request(
            "POST", path("/agent/chats/{}/events", room_id), json={"event": event}
        )
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
            prompt = self._prompts[room_id] = PendingACPPrompt(session_id)
            answered = self._answered[room_id] = asyncio.Event()
        try:
            await self._post(room_id, session_id, text)
            prompt.posted = True
            async with asyncio.timeout(self.config.prompt_timeout_s):
                await answered.wait()
            await prompt.done_event.wait()
            return str(prompt.outcome or "end_turn")
        finally:
            prompt.finish(None)
            async with self._lock:
                if self._prompts.get(room_id) is prompt:
                    del self._prompts[room_id]
                    del self._answered[room_id]

    async def cancel_prompt(self, session_id: str) -> None:
        """End the session's prompt in flight (``cancelled``); the peers are not stopped."""
        room_id = self._session_room.get(session_id) or ""
        prompt = self._prompts.get(room_id)
        if prompt is not None:
            prompt.finish("cancelled")
            self._answered[room_id].set()

    async def _post(self, room_id: str, session_id: str, text: str) -> None:
        target: str | None = None
        if self._router is not None:
            text, target = self._router.resolve(text, self._session_mode.get(session_id))
        resp = await self.rest.request("GET", path("/agent/chats/{}/participants", room_id))
        rows = resp.data if isinstance(resp.data, list) else []
        mentions = [
            {"id": str(p["id"]), "name": str(p.get("name") or "")}
            for p in rows
            if isinstance(p, dict)
            and p.get("id")
            and p.get("id") != self._agent_id
            # a routed prompt mentions the peer named (or with that id) only
            and target in (None, p.get("id"), p.get("name"), p.get("handle"))
        ]
        if not mentions:
            who = f"no peer {target!r}" if target else "nobody"
            raise RuntimeError(f"{who} in the session's room to answer: configure peers")
        body = {"message": {"content": text, "mentions": mentions}}
        await self.rest.request("POST", path("/agent/chats/{}/messages", room_id), json=body)

    # --- the Band side ------------------------------------------------------------------------

    def _rehydrate(self, state: ACPSessionState) -> None:
        """Take the sessions a room's history records (an agent started again)."""
        for session_id, room_id in state.session_to_room.items():
            if session_id in self._session_room or room_id in self._room_session:
                continue
            self._session_room[session_id] = room_id
            self._room_session[room_id] = session_id
            self._session_cwd[session_id] = state.session_cwd.get(session_id, ".")
            self._session_mcp[session_id] = state.session_mcp_servers.get(session_id, [])
            log.info("ACP session %s restored: room %s", session_id, room_id)

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: ACPSessionState,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """A peer spoke in a session's room: stream it to the editor."""
        if is_session_bootstrap:
            self._rehydrate(history)
        prompt = self._prompts.get(room_id)
        if prompt is None or not prompt.posted or prompt.done_event.is_set():
            if self._push_handler is not None:
                await self._push_handler.handle_push_event(msg, room_id)
            else:
                log.info("room %s: no prompt waits, message %s not forwarded", room_id, msg.id)
            return
        if self._client is not None:
            update = EventConverter.convert(msg)
            if update is not None:
                await self._client.session_update(session_id=prompt.session_id, update=update)
        if msg.message_type in (MessageType.TEXT, MessageType.ERROR):  # an answer, or a failure
            prompt.reply_started = True
            self._answered[room_id].set()
        if prompt.reply_started:  # the prompt ends once the room is quiet for reply_grace_s
            if prompt.completion_task is not None:
                prompt.completion_task.cancel()
            prompt.completion_task = asyncio.create_task(self._end_when_quiet(prompt))

    async def _end_when_quiet(self, prompt: PendingACPPrompt) -> None:
        await asyncio.sleep(self.config.reply_grace_s)
        prompt.finish("end_turn")

    async def on_cleanup(self, room_id: str) -> None:
        """The agent left a session's room: the session ends."""
        session_id = self._room_session.pop(room_id, None)
        if session_id is not None:
            await self.cancel_prompt(session_id)
            self._session_room.pop(session_id, None)
            self._session_cwd.pop(session_id, None)
            self._session_mcp.pop(session_id, None)
            self._session_mode.pop(session_id, None)


def _as_json(server: Any) -> dict[str, Any]:
    """An editor's MCP server entry as JSON (ACP's models, or a dict already)."""
    if hasattr(server, "model_dump"):
        return cast(dict[str, Any], server.model_dump(mode="json", by_alias=True))
    return dict(server) if isinstance(server, dict) else {"value": str(server)}


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

    async def set_session_mode(
        self, *, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """Keep the session's mode (an ``AgentRouter`` may route by it)."""
        try:
            self._adapter.set_session_mode(session_id, mode_id)
        except KeyError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        return SetSessionModeResponse()

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
