"""A real ACP agent process, built on the official ``agent-client-protocol`` SDK, for tests.

It follows a script written in its prompt text: the last ``[[ step; step; ... ]]`` block
of the prompt. Steps:

* ``think <text>`` / ``say <text>``: an ``agent_thought_chunk`` / ``agent_message_chunk``.
* ``plan <a>|<b>``: a ``plan`` update with those entries.
* ``reply <text>``: call ``band_send_message`` on the session's ``band`` MCP server, mentioning
  the requester named in the session's system context (``Current requester id: <id>``).
* ``decline``: call ``band_no_reply``.
* ``tool <name> <json args>``: call any tool on the ``band`` MCP server, reporting it as
  ``tool_call`` / ``tool_call_update`` frames and its text as a thought.
* ``report <name> <json args>``: only report a completed tool call (an external server).
* ``announce-twice <name> <json args>``: report a call as Claude Code does (``tool_call``
  with ``{}``, then again with the input, then completed).
* ``gemini-call <name> <json args>``: call a ``band`` tool reporting it as Gemini CLI does
  (a permission request titled ``<name> (band MCP Server)``, then a completed update).
* ``permission`` / ``permission-deny``: ask permission with allow and reject options (or only
  reject options) and say the outcome as a thought ``permission: <option id|cancelled>``.
* ``sleep <s>``: sleep, ending the turn as ``cancelled`` when ``session/cancel`` arrives.
* ``crash``: exit the process mid-turn. ``error <code> <message>``: answer a JSON-RPC error.
* ``busy-once <tag>``: answer -32003 ``session_busy`` the first time ``<tag>`` is seen.
* ``stderr <bytes>``: write that many bytes to stderr (half of them as one line).
* ``env``: think the sorted names of the process environment as JSON.
* ``stop <reason>``: end the turn with that stop reason.
* ``ext <method> <json params>``: send the client an extension request and think its answer
  as JSON.
* ``tools``: think the names of the ``band`` MCP server's tools as a JSON list.

Flags (argv or ``SCRIPTED_AGENT_FLAGS``): ``--tcp`` (serve one client on a TCP port instead of
stdio), ``--no-load`` (no ``loadSession``),
``--mcp=http,sse`` / ``--mcp=none`` (advertised MCP transports), ``--auth=<id>``
(require ``authenticate`` with that method before ``session/new``), ``--replay-after-load``
(send a loaded session's replay after answering ``session/load``, as Gemini CLI does).

Every received call is appended to ``calls.jsonl`` in the process working directory, and
sessions are kept in ``sessions.json`` there, so a new process can ``session/load`` them.
Only stderr is used for logs: stdout is the protocol channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    RequestError,
    plan_entry,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
    SetSessionConfigOptionResponse,
    SseMcpServer,
    ToolCallUpdate,
)

SCRIPT = re.compile(r"\[\[(.*?)\]\]", re.S)
MODELS = {"fast": "Fast", "smart": "Smart", "huge": "Huge"}
EFFORTS = {"fast": ("low",), "smart": ("low", "high"), "huge": ("low", "high", "max")}


def flags() -> dict[str, str]:
    """Parse ``--name[=value]`` flags from argv and ``SCRIPTED_AGENT_FLAGS``."""
    out: dict[str, str] = {}
    words = sys.argv[1:] + os.environ.get("SCRIPTED_AGENT_FLAGS", "").split()
    for word in words:
        name, _, value = word.removeprefix("--").partition("=")
        out[name] = value
    return out


def log_call(method: str, **params: Any) -> None:
    """Append one received call to ``calls.jsonl`` in the working directory."""
    with open("calls.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"method": method, **params}, default=str) + "\n")


def catalog(model: str, effort: str) -> list[Any]:
    """The session's config options: a grouped model select and an effort select."""
    groups = [
        SessionConfigSelectGroup(
            group="small",
            name="Small",
            options=[SessionConfigSelectOption(value="fast", name=MODELS["fast"])],
        ),
        SessionConfigSelectGroup(
            group="large",
            name="Large",
            options=[SessionConfigSelectOption(value=v, name=MODELS[v]) for v in ("smart", "huge")],
        ),
    ]
    efforts = [SessionConfigSelectOption(value=v, name=v) for v in EFFORTS[model]]
    return [
        _select("model", "Model", "model", model, groups),
        _select("effort", "Reasoning effort", "thought_level", effort, efforts),
    ]


def _select(key: str, name: str, category: str, value: str, options: list[Any]) -> Any:
    """One select config option."""
    return SessionConfigOptionSelect(
        id=key, name=name, category=category, type="select", current_value=value, options=options
    )


class ScriptedAgent:
    """Answers ACP requests; prompts run the script found in their text."""

    def __init__(self) -> None:
        self.flags = flags()
        self.conn: Any = None
        self.store = Path("sessions.json")
        self.sessions: dict[str, dict[str, Any]] = (
            json.loads(self.store.read_text()) if self.store.exists() else {}
        )
        self.servers: dict[str, list[Any]] = {}
        self.running: dict[str, asyncio.Event] = {}
        self.authenticated = False
        self.pending_replay: tuple[str, list[str]] | None = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def save(self) -> None:
        self.store.write_text(json.dumps(self.sessions))

    async def initialize(self, protocol_version: int, **kw: Any) -> InitializeResponse:
        caps = kw.get("client_capabilities")
        log_call(
            "initialize",
            protocol_version=protocol_version,
            client_capabilities=caps.model_dump(by_alias=True) if caps is not None else None,
        )
        mcp = self.flags.get("mcp", "http,sse").split(",")
        auth = self.flags.get("auth")
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session="no-load" not in self.flags,
                mcp_capabilities=McpCapabilities(http="http" in mcp, sse="sse" in mcp),
            ),
            auth_methods=[AuthMethodAgent(id=auth, name=auth)] if auth else [],
            agent_info=Implementation(name="scripted-agent", version="1.0"),
        )

    async def authenticate(self, method_id: str, **kw: Any) -> AuthenticateResponse:
        log_call("authenticate", method_id=method_id)
        if method_id != self.flags.get("auth"):
            raise RequestError.invalid_params({"method_id": method_id})
        self.authenticated = True
        return AuthenticateResponse()

    def require_auth(self) -> None:
        if self.flags.get("auth") and not self.authenticated:
            raise RequestError.auth_required()

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kw: Any
    ) -> NewSessionResponse:
        self.require_auth()
        servers = list(mcp_servers or [])
        log_call("new_session", cwd=cwd, mcp_servers=[s.model_dump() for s in servers])
        sid = f"sess-{uuid.uuid4().hex[:12]}"
        self.sessions[sid] = {"cwd": cwd, "model": "fast", "effort": "low", "history": []}
        self.servers[sid] = servers
        self.save()
        return NewSessionResponse(session_id=sid, config_options=catalog("fast", "low"))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kw: Any
    ) -> LoadSessionResponse:
        self.require_auth()
        servers = list(mcp_servers or [])
        log_call("load_session", cwd=cwd, session_id=session_id)
        if "no-load" in self.flags:
            raise RequestError.method_not_found("session/load")
        state = self.sessions.get(session_id)
        if state is None:
            raise RequestError.resource_not_found(session_id)
        self.servers[session_id] = servers
        if "replay-after-load" in self.flags:
            # as Gemini CLI does: the replay goes out after the load is answered, before the
            # next request is handled
            self.pending_replay = (session_id, list(state["history"]))
        else:
            await self.replay(session_id, state["history"])
        return LoadSessionResponse(config_options=catalog(state["model"], state["effort"]))

    async def flush_replay(self) -> None:
        """Send a replay held back by ``--replay-after-load`` (before any later request)."""
        if self.pending_replay is not None:
            pending, self.pending_replay = self.pending_replay, None
            await self.replay(*pending)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Unknown extension requests: "method not found" (logged, after a held replay)."""
        await self.flush_replay()
        log_call("ext_method", name=method)
        raise RequestError.method_not_found(method)

    async def replay(self, session_id: str, history: list[str]) -> None:
        """The loaded session's earlier turns: the prompt, a thought, a tool call, the text."""
        for n, text in enumerate(history):
            await self.conn.session_update(session_id, update_user_message_text(text))
            await self.conn.session_update(session_id, update_agent_thought_text("(replayed)"))
            call = f"replayed-{n}"
            await self.conn.session_update(
                session_id,
                start_tool_call(call, "band_send_message", status="completed", raw_input={}),
            )
            await self.conn.session_update(session_id, update_agent_message_text("(replayed)"))

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kw: Any
    ) -> SetSessionConfigOptionResponse:
        await self.flush_replay()
        log_call("set_config_option", config_id=config_id, session_id=session_id, value=value)
        state = self.sessions[session_id]
        if config_id == "model" and value in MODELS:
            state["model"] = value
            if state["effort"] not in EFFORTS[str(value)]:
                state["effort"] = "low"
        elif config_id == "effort" and value in EFFORTS[state["model"]]:
            state["effort"] = value
        else:
            raise RequestError.invalid_params({"config_id": config_id, "value": value})
        self.save()
        return SetSessionConfigOptionResponse(
            config_options=catalog(state["model"], state["effort"])
        )

    async def cancel(self, session_id: str, **kw: Any) -> None:
        log_call("cancel", session_id=session_id)
        event = self.running.get(session_id)
        if event is not None:
            event.set()

    async def prompt(self, session_id: str, prompt: list[Any], **kw: Any) -> PromptResponse:
        await self.flush_replay()
        self.require_auth()
        text = "\n".join(getattr(block, "text", "") for block in prompt)
        log_call("prompt", session_id=session_id, text=text)
        if session_id not in self.sessions:
            raise RequestError.resource_not_found(session_id)
        if session_id in self.running:
            raise RequestError(-32003, "Session is busy", {"reason": "session_busy"})
        found = re.search(r"Current requester id: (\S+)", text)
        if found:  # kept with the session, so a loaded session still knows whom to answer
            self.sessions[session_id]["requester"] = found.group(1)
        cancelled = self.running[session_id] = asyncio.Event()
        try:
            scripts = SCRIPT.findall(text)
            steps = [s.lstrip() for s in scripts[-1].split(";") if s.strip()] if scripts else []
            for step in steps:
                stop = await self.step(session_id, step, cancelled)
                if stop is not None:
                    return PromptResponse(stop_reason=stop)
            self.sessions[session_id]["history"].append(text[-200:])
            self.save()
            return PromptResponse(stop_reason="end_turn")
        finally:
            del self.running[session_id]

    async def say(self, session_id: str, update: Any) -> None:
        await self.conn.session_update(session_id, update)

    async def step(self, sid: str, step: str, cancelled: asyncio.Event) -> Any:
        """Run one script step; return a stop reason to end the turn early."""
        verb, _, text = step.partition(" ")  # text keeps its spaces: chunks are joined as-is
        rest = text.strip()
        if verb == "think":
            await self.say(sid, update_agent_thought_text(text))
        elif verb == "say":
            await self.say(sid, update_agent_message_text(text))
        elif verb == "plan":
            entries = [plan_entry(e.strip(), status="pending") for e in rest.split("|")]
            await self.say(sid, update_plan(entries))
        elif verb == "reply":
            # mention the requester named in the session's system context
            requester = self.sessions[sid].get("requester")
            mentions = [requester] if requester else []
            await self.call_tool(sid, "band_send_message", {"content": rest, "mentions": mentions})
        elif verb == "decline":
            await self.call_tool(sid, "band_no_reply", {"reason": rest or None})
        elif verb in ("tool", "announce-twice", "gemini-call", "report"):
            # "<verb> <tool name> <JSON arguments>": the ways of calling a tool
            act = {
                "tool": self.call_tool,
                "announce-twice": self.announce_twice,
                "gemini-call": self.gemini_call,
                "report": self.report_tool,
            }[verb]
            name, _, args = rest.partition(" ")
            await act(sid, name, json.loads(args or "{}"))
        elif verb in ("permission", "permission-deny"):
            await self.ask_permission(sid, deny_only=verb == "permission-deny")
        elif verb == "sleep":
            try:
                await asyncio.wait_for(cancelled.wait(), float(rest))
                return "cancelled"
            except TimeoutError:
                pass
        elif verb == "crash":
            sys.stderr.write("scripted agent: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        elif verb == "error":
            code, _, message = rest.partition(" ")
            raise RequestError(int(code), message)
        elif verb == "busy-once":
            seen = Path(f"busy-{rest}")
            if not seen.exists():
                seen.write_text("1")
                raise RequestError(-32003, "Session is busy", {"reason": "session_busy"})
        elif verb == "stderr":  # half as lines, half as one endless line
            size = int(rest)
            for _ in range(size // 2048 + 1):
                sys.stderr.write("x" * 1023 + "\n")
            sys.stderr.write("y" * (size // 2) + "\n")
            sys.stderr.flush()
        elif verb == "env":
            await self.say(sid, update_agent_thought_text(json.dumps(sorted(os.environ))))
        elif verb == "stop":
            return rest
        elif verb == "tools":
            names = await self.list_tools(sid)
            await self.say(sid, update_agent_thought_text(json.dumps(names)))
        elif verb == "ext":
            method, _, params = rest.partition(" ")
            answer = await self.conn.ext_method(method, json.loads(params or "{}"))
            await self.say(sid, update_agent_thought_text(json.dumps(answer, sort_keys=True)))
        return None

    async def report_tool(self, sid: str, name: str, args: dict[str, Any]) -> None:
        """Report a tool call this agent made elsewhere, as started then completed."""
        call_id = f"call-{uuid.uuid4().hex[:8]}"
        raw = {"server": "band", "tool": name, "arguments": args}
        await self.say(
            sid, start_tool_call(call_id, name, kind="other", status="pending", raw_input=raw)
        )
        await self.say(
            sid,
            update_tool_call(
                call_id,
                status="completed",
                content=[tool_content(text_block("ok"))],
                raw_output={"ok": True},
            ),
        )

    async def announce_twice(self, sid: str, name: str, args: dict[str, Any]) -> None:
        """Claude Code's frames: ``tool_call`` with ``{}``, the same id again with the input,
        then the result."""
        call_id = f"toolu_{uuid.uuid4().hex[:8]}"
        for raw in ({}, args):
            await self.say(sid, start_tool_call(call_id, name, kind="other", raw_input=raw))
        await self.finish_tool(sid, call_id, "ok", failed=False)

    async def gemini_call(self, sid: str, name: str, args: dict[str, Any]) -> None:
        """Gemini CLI's frames for an MCP call: a permission request titled
        ``<tool> (band MCP Server)`` showing the args as JSON text, the call, then only a
        completed ``tool_call_update`` with that title (no ``rawInput`` anywhere)."""
        requester = self.sessions[sid].get("requester")
        if name == "band_send_message" and "mentions" not in args and requester:
            args = {**args, "mentions": [requester]}
        call_id = f"mcp_band_{name}_{uuid.uuid4().hex[:8]}"
        title = f"{name} (band MCP Server)"
        call = ToolCallUpdate(
            tool_call_id=call_id,
            title=title,
            status="pending",
            kind="other",
            content=[tool_content(text_block(json.dumps(args)))],
        )
        options = [PermissionOption(option_id="proceed_once", name="Allow", kind="allow_once")]
        await self.conn.request_permission(options=options, session_id=sid, tool_call=call)
        text, failed = await self.mcp_call(sid, name, args)
        await self.say(
            sid,
            update_tool_call(
                call_id,
                title=title,
                status="failed" if failed else "completed",
                content=[tool_content(text_block(text))],
            ),
        )

    def band_server(self, sid: str) -> Any:
        """The session's ``band`` MCP server (None when the client gave none)."""
        return next(
            (s for s in self.servers.get(sid, []) if getattr(s, "name", "") == "band"), None
        )

    @contextlib.asynccontextmanager
    async def band_session(self, server: Any) -> AsyncIterator[Any]:
        """An initialised official MCP client session on ``server`` (HTTP or SSE)."""
        from mcp import ClientSession
        from mcp.client.sse import sse_client
        from mcp.client.streamable_http import streamable_http_client

        if isinstance(server, HttpMcpServer):
            transport: Any = streamable_http_client(server.url)
        else:
            assert isinstance(server, SseMcpServer)
            transport = sse_client(server.url)
        async with transport as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            yield session

    async def mcp_call(self, sid: str, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        """Call ``name`` on the session's ``band`` MCP server: (result text, is_error)."""
        server = self.band_server(sid)
        if server is None:
            return "no band MCP server", True
        async with self.band_session(server) as session:
            result = await session.call_tool(name, args)
        return "\n".join(getattr(c, "text", "") for c in result.content), bool(result.isError)

    async def list_tools(self, sid: str) -> list[str]:
        """The tool names the session's ``band`` MCP server lists (official MCP client)."""
        server = self.band_server(sid)
        if server is None:
            return []
        async with self.band_session(server) as session:
            return [t.name for t in (await session.list_tools()).tools]

    async def call_tool(self, sid: str, name: str, args: dict[str, Any]) -> None:
        """Call a tool on the session's ``band`` MCP server with the official MCP client."""
        call_id = f"call-{uuid.uuid4().hex[:8]}"
        raw = {"server": "band", "tool": name, "arguments": args}
        await self.say(
            sid, start_tool_call(call_id, name, kind="other", status="pending", raw_input=raw)
        )
        await self.say(sid, update_tool_call(call_id, status="in_progress"))
        server = self.band_server(sid)
        if server is None:
            await self.finish_tool(sid, call_id, "no band MCP server", failed=True)
            return
        log_call("mcp_call", server=type(server).__name__, url=server.url, tool=name)
        text, failed = await self.mcp_call(sid, name, args)
        await self.finish_tool(sid, call_id, text, failed=failed)

    async def finish_tool(self, sid: str, call_id: str, text: str, *, failed: bool) -> None:
        status = "failed" if failed else "completed"
        await self.say(
            sid,
            update_tool_call(call_id, status=status, content=[tool_content(text_block(text))]),
        )

    async def ask_permission(self, sid: str, *, deny_only: bool) -> None:
        """Ask the client to allow a shell command; think the outcome."""
        options = [
            PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
        ]
        if not deny_only:
            options = [
                PermissionOption(option_id="always", name="Always", kind="allow_always"),
                PermissionOption(option_id="once", name="Once", kind="allow_once"),
                *options,
            ]
        call = ToolCallUpdate(
            tool_call_id=f"perm-{uuid.uuid4().hex[:8]}",
            title="rm -rf build",
            kind="execute",
            raw_input={"command": "rm -rf build"},
        )
        response = await self.conn.request_permission(
            options=options, session_id=sid, tool_call=call
        )
        outcome = response.outcome
        chosen = getattr(outcome, "option_id", None) or outcome.outcome
        await self.say(sid, update_agent_thought_text(f"permission: {chosen}"))


async def serve_tcp() -> None:
    """``--tcp``: listen on 127.0.0.1 (a free port, printed as ``PORT <n>`` on stdout) and
    serve the first client that connects until it disconnects."""
    served = asyncio.get_running_loop().create_future()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await run_agent(ScriptedAgent(), writer, reader)  # type: ignore[arg-type]
        finally:
            writer.close()
            if not served.done():
                served.set_result(None)

    server = await asyncio.start_server(serve, "127.0.0.1", 0, limit=16 * 1024 * 1024)
    print("PORT", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await served


async def main() -> None:
    """Serve one client over stdio until stdin closes (then, with ``--slow-exit=S``, take S
    seconds to write ``exited.json`` in the workspace and exit 0, as an agent saving its
    sessions on the way out does); ``--tcp``: over TCP instead."""
    if "tcp" in flags():
        await serve_tcp()
        return
    await run_agent(ScriptedAgent())  # type: ignore[arg-type]
    slow = flags().get("slow-exit")
    if slow:
        await asyncio.sleep(float(slow))
        Path("exited.json").write_text(json.dumps({"after_stdin_closed_s": float(slow)}))


if __name__ == "__main__":
    asyncio.run(main())
