"""``Agent``: the object user code creates, starts and runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from pathlib import Path
from typing import Any

from band._version import __version__
from band.config.settings import PlatformSettings
from band.core.exceptions import AgentAlreadyRunningError, BandConfigError, StartupError
from band.core.preprocessor import Preprocessor
from band.core.simple_adapter import SimpleAdapter
from band.runtime import eventloop
from band.runtime.agentconfig import AgentConfig
from band.runtime.contacts.config import ContactEventConfig
from band.runtime.instance import SingleInstanceLock
from band.runtime.rooms.events import ParticipantAddedCallback, ParticipantRemovedCallback
from band.runtime.runtime import AgentRuntime
from band.runtime.sessionconfig import SessionConfig
from band.runtime.startup import (
    check_url_forms,
    check_urls,
    describe_failure,
    ensure_logging,
    install_quiet_excepthook,
    url_source,
)

__all__ = ["DEFAULT_SHUTDOWN_TIMEOUT", "Agent", "running_agents"]

log = logging.getLogger("band.agent")

#: Seconds running turns get to finish when :meth:`Agent.run` ends (band-sdk's default).
DEFAULT_SHUTDOWN_TIMEOUT = 30.0

#: The started Agents of this process by agent id (a second start of the same agent is refused).
_running: dict[str, Agent] = {}


def running_agents() -> list[Agent]:
    """The Agents started in this process and not stopped yet."""
    return list(_running.values())


def _check_preprocessor(preprocessor: object) -> None:
    if not callable(getattr(preprocessor, "process", None)):
        raise BandConfigError(
            f"preprocessor must have a process() method, not {type(preprocessor).__name__}"
        )


class Agent:
    """A Band agent: an adapter connected to the platform. Build it with :meth:`create`."""

    def __init__(
        self,
        runtime: AgentRuntime,
        adapter: SimpleAdapter[Any],
        preprocessor: Preprocessor | None = None,
    ) -> None:
        if preprocessor is not None:
            _check_preprocessor(preprocessor)
            runtime.preprocessor = preprocessor
        self._runtime = runtime
        self._adapter = adapter
        self._started = False
        self._stop_requested = asyncio.Event()
        self._lock = SingleInstanceLock(runtime.agent_id)
        #: the ``shutdown_timeout`` of :meth:`run`; ``async with`` stops with it too
        self._shutdown_timeout: float | None = DEFAULT_SHUTDOWN_TIMEOUT
        #: where the REST URL came from, named when the platform cannot be reached or refuses
        self.rest_url_source = "the rest_url given"
        self.ws_url_source = "the ws_url given"
        self.ws_url = ""  # the socket URL as configured (``create`` sets it)
        #: where agent_id and api_key came from, named when the platform refuses the key
        self.credentials_source = "the agent_id and api_key given"

    def __repr__(self) -> str:
        return f"Agent(agent_id={self._runtime.agent_id!r}, running={self._started})"

    @classmethod
    def create(
        cls,
        adapter: SimpleAdapter[Any],
        agent_id: str,
        api_key: str,
        ws_url: str | None = None,
        rest_url: str | None = None,
        config: AgentConfig | None = None,
        session_config: SessionConfig | None = None,
        contact_config: ContactEventConfig | None = None,
        on_participant_added: ParticipantAddedCallback | None = None,
        on_participant_removed: ParticipantRemovedCallback | None = None,
        preprocessor: Preprocessor | None = None,
    ) -> Agent:
        """An agent for ``adapter`` with these credentials.

        URLs: explicit arguments, else ``BAND_WS_URL`` / ``BAND_REST_URL``, else Band Cloud.
        ``contact_config``: what happens with contact events (ignored by default).
        ``preprocessor``: builds each turn's input (``band.preprocessing.DefaultPreprocessor``).
        """
        for name, value in (("agent_id", agent_id), ("api_key", api_key)):
            if not isinstance(value, str) or not value.strip():
                raise BandConfigError(f"{name} must be a non-empty string")
        if not callable(getattr(adapter, "on_event", None)):
            raise BandConfigError(
                f"adapter must be a SimpleAdapter (or have on_event), not {type(adapter).__name__}"
            )
        if contact_config is not None and not isinstance(contact_config, ContactEventConfig):
            raise BandConfigError(
                f"contact_config must be a ContactEventConfig, not {type(contact_config).__name__}"
            )
        if preprocessor is not None:
            _check_preprocessor(preprocessor)
        urls = PlatformSettings.from_env().resolve(rest_url=rest_url, ws_url=ws_url)
        rest_source, ws_source = url_source(rest_url), url_source(ws_url, "BAND_WS_URL")
        try:
            check_url_forms(urls.rest_url, urls.ws_url, rest_source, ws_source)
        except BandConfigError:
            install_quiet_excepthook()  # uncaught, it prints as its message alone
            raise
        runtime = AgentRuntime(
            agent_id=agent_id,
            api_key=api_key,
            rest_url=urls.rest_url,
            ws_url=urls.ws_url,
            adapter=adapter,
            config=config or AgentConfig(),
            session_config=session_config or SessionConfig(),
            on_participant_added=on_participant_added,
            on_participant_removed=on_participant_removed,
            contact_config=contact_config,
            preprocessor=preprocessor,
        )
        agent = cls(runtime, adapter)
        agent.rest_url_source, agent.ws_url_source = rest_source, ws_source
        agent.ws_url = urls.ws_url
        return agent

    @classmethod
    def from_config(
        cls,
        name: str,
        *,
        adapter: SimpleAdapter[Any],
        config_path: str | Path | None = None,
        **kwargs: Any,
    ) -> Agent:
        """An agent whose ``agent_id`` and ``api_key`` are under ``name`` in agent_config.yaml."""
        # yaml loads only for a config file
        from band.config.loader import get_config_path, load_agent_config

        path = Path(config_path) if config_path is not None else get_config_path()
        try:
            agent_id, api_key = load_agent_config(name, config_path=path)
        except StartupError:
            install_quiet_excepthook()  # uncaught, it prints as its message alone
            raise
        agent = cls.create(adapter=adapter, agent_id=agent_id, api_key=api_key, **kwargs)
        agent.credentials_source = f'"{name}" in {path}'
        return agent

    # --- state --------------------------------------------------------------------------------

    @property
    def runtime(self) -> AgentRuntime:
        """The runtime behind this agent (rooms, socket, REST client)."""
        return self._runtime

    @property
    def contact_config(self) -> ContactEventConfig:
        """How this agent handles contact events."""
        return self._runtime.contact_config

    @property
    def agent_name(self) -> str:
        """The agent's name on the platform (known once started)."""
        return self._runtime.agent_name

    @property
    def agent_description(self) -> str:
        """The agent's description on the platform (known once started)."""
        return self._runtime.agent_description

    @property
    def is_contacts_subscribed(self) -> bool:
        """True while the agent is subscribed to its contact events (a contact strategy is on)."""
        return self._runtime.is_contacts_subscribed

    @property
    def is_running(self) -> bool:
        """True between a successful :meth:`start` and :meth:`stop`."""
        return self._started

    # --- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect to the platform and start serving the agent's rooms (again: a warning)."""
        agent_id = self._runtime.agent_id
        if self._started:
            log.warning("Agent %s already started", agent_id)
            return
        if agent_id in _running:
            raise AgentAlreadyRunningError(
                f"Agent {agent_id} is already running in this process: start it once "
                "(one Agent object per agent_id)"
            )
        check_urls(self._runtime.rest.base_url, self.ws_url, self.ws_url_source)
        preflight = getattr(self._adapter, "preflight", None)  # an adapter may be duck-typed
        if callable(preflight):
            await preflight()  # e.g. a model key that is missing or refused: before connecting
        if self._runtime.config.single_instance:
            self._lock.acquire()
        _running[agent_id] = self
        try:
            await self._runtime.start()
        except BaseException as exc:
            _running.pop(agent_id, None)
            self._lock.release()
            with contextlib.suppress(Exception):
                await self._runtime.stop(timeout=None)
            told = describe_failure(
                exc,
                agent_id=agent_id,
                rest_url=self._runtime.rest.base_url,
                source=self.rest_url_source,
                credentials=self.credentials_source,
            )
            if told:
                raise StartupError(told) from exc
            raise
        self._started = True
        self._stop_requested.clear()
        log.info("Agent started: %s (band-open-sdk %s)", self.agent_name, __version__)

    async def stop(self, timeout: float | None = None) -> bool:
        """Stop serving. Running turns get ``timeout`` seconds to finish (None: cancel now).

        Returns True when no turn had to be cancelled. A cancelled turn's message stays
        unprocessed on the platform and is answered at the next start. A waiting
        :meth:`run_forever` returns.
        """
        self._stop_requested.set()
        if not self._started:
            return True
        self._started = False
        try:
            graceful = await self._runtime.stop(timeout=timeout)
        finally:
            _running.pop(self._runtime.agent_id, None)
            self._lock.release()
        log.info("Agent stopped: %s (graceful=%s)", self.agent_name, graceful)
        return graceful

    async def run(
        self,
        shutdown_timeout: float | None = DEFAULT_SHUTDOWN_TIMEOUT,
        *,
        install_signal_handlers: bool = True,
    ) -> None:
        """Start, serve until stopped, interrupted or disconnected, then stop.

        ``shutdown_timeout``: seconds running turns get to finish at the end (None: cancel
        them at once). ``install_signal_handlers``: see :meth:`run_forever`.
        """
        self._shutdown_timeout = shutdown_timeout
        ensure_logging()
        try:
            await self.start()
        except (StartupError, BandConfigError):  # AgentAlreadyRunningError is one
            install_quiet_excepthook()  # uncaught, it prints as its message alone
            raise
        if not self._started:
            return
        try:
            await self.run_forever(install_signal_handlers=install_signal_handlers)
        finally:
            await self.stop(timeout=shutdown_timeout)

    def run_sync(
        self,
        shutdown_timeout: float | None = DEFAULT_SHUTDOWN_TIMEOUT,
        *,
        install_signal_handlers: bool = True,
    ) -> None:
        """:meth:`run` in an event loop of its own, for a script: uvloop's when installed
        (the ``uvloop`` extra; ``BAND_UVLOOP=0`` keeps asyncio's), else asyncio's."""
        eventloop.run(self.run(shutdown_timeout, install_signal_handlers=install_signal_handlers))

    async def run_forever(self, *, install_signal_handlers: bool = True) -> None:
        """Serve until :meth:`stop`, :meth:`request_stop`, SIGINT/SIGTERM or the session ends.

        With ``install_signal_handlers`` (the default) SIGINT/SIGTERM stop the agent, giving
        running turns the shutdown timeout; a second one cancels them now. The loop's
        handlers are removed on return; a host owning its signals passes False and
        calls :meth:`stop` itself. Returns at once when the agent is not started.
        """
        if not self._started:
            return
        loop = asyncio.get_running_loop()
        installed = []
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self._on_signal, loop, sig)
                    installed.append(sig)
        try:  # the handlers stay while stopping: a second signal cuts the wait for turns short
            ended = asyncio.ensure_future(self._runtime.ended.wait())
            asked = asyncio.ensure_future(self._stop_requested.wait())
            try:
                await asyncio.wait({ended, asked}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for fut in (ended, asked):
                    fut.cancel()
            if self._runtime.ended.is_set():
                log.warning("Agent %s disconnected: %s", self.agent_name, self._runtime.end_reason)
            if self._started:  # a signal, request_stop() or a lost session: stop here
                timeout = self._shutdown_timeout
                if self._runtime.end_reason == "superseded":
                    # a newer process owns the session now and takes over the open attempts:
                    # a turn finished here would answer alongside its replay there
                    timeout = None
                running = self._runtime.running_turns()
                if running and timeout:
                    waiting = (
                        "stopping: waiting up to %g s for %d running turn%s to finish"
                        " (Ctrl-C again to stop now)"
                        if installed
                        else "stopping: waiting up to %g s for %d running turn%s to finish"
                    )
                    log.warning(waiting, timeout, running, "" if running == 1 else "s")
                await self.stop(timeout=timeout)
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)

    def _on_signal(self, loop: asyncio.AbstractEventLoop, sig: signal.Signals) -> None:
        """The first SIGINT/SIGTERM stops gracefully, the second now; after that the signal's
        default action is back (a stop stuck in an adapter's cleanup can still be broken)."""
        if not self._stop_requested.is_set():
            self.request_stop()
            return
        loop.remove_signal_handler(sig)
        log.warning("stopping now: running turns cancelled (answered at the next start)")
        self._runtime.stop_now()

    def request_stop(self) -> None:
        """Ask :meth:`run_forever` to stop the agent (safe from signal handlers and callbacks)."""
        log.info("stop requested")
        self._stop_requested.set()

    async def __aenter__(self) -> Agent:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop(timeout=self._shutdown_timeout)
