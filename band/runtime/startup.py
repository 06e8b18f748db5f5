"""Start-up failures told in one or two lines: the cause and the next step.

``Agent.start()`` turns what goes wrong while it connects (a refused key, a platform that is not
there) into a :class:`StartupError` naming the URL tried and where it came from; ``Agent.run()``
and the CLIs let an uncaught one print as ``error: ...`` without a traceback unless debugging is
on (``BAND_LOG_LEVEL=DEBUG`` or a CLI's ``--debug``).
"""

from __future__ import annotations

import logging
import sys
from types import TracebackType
from urllib.parse import urlsplit

from band.client.errors import BandAPIError, BandConnectionError
from band.client.phoenix import SessionEndedError
from band.client.urls import rest_url_problem, socket_url_problem
from band.config.env import DEFAULT_REST_URL, DEFAULT_WS_URL, env_value
from band.core.exceptions import BandConfigError, StartupError

# band-sdk exports its adapter lifecycle from here; ours lives in adapter_lifecycle
from band.runtime.adapter_lifecycle import *  # noqa: F403 -- band-sdk's names, ours
from band.runtime.adapter_lifecycle import __all__ as _lifecycle

__all__ = [
    "DEV_REST_URL",
    "DEV_WS_URL",
    "StartupError",
    "check_url_forms",
    "check_urls",
    "debug_enabled",
    "describe_failure",
    "ensure_logging",
    "install_quiet_excepthook",
    "url_source",
    *_lifecycle,
]

#: Where ``band dev`` listens by default (what a forgotten ``BAND_REST_URL`` should have been).
DEV_REST_URL = "http://127.0.0.1:8080"
DEV_WS_URL = "ws://127.0.0.1:8080/api/v1/socket/websocket"
_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def url_source(explicit: str | None, env_name: str = "BAND_REST_URL") -> str:
    """Where the URL in use came from: the argument, the environment variable or the default."""
    if explicit:
        return "the rest_url argument" if env_name == "BAND_REST_URL" else "the ws_url argument"
    if env_value(env_name):
        return env_name
    return f"the default, Band Cloud: {env_name} is not set"


def _is_local(url: str) -> bool:
    return (urlsplit(url).hostname or "") in _LOCAL_HOSTS


def check_url_forms(rest_url: str, ws_url: str, rest_source: str, ws_source: str) -> None:
    """Refuse a REST URL that is not an http(s) base URL, or a socket URL that is not ws(s).

    ``*_source``: where each came from (:func:`url_source`), named in the ``BandConfigError``.
    """
    for url, problem, source in (
        (rest_url, rest_url_problem(rest_url), rest_source),
        (ws_url, socket_url_problem(ws_url), ws_source),
    ):
        if problem is not None:
            raise BandConfigError(
                f"{url!r} ({source}) {problem}.\n"
                f"band dev's URLs are {DEV_REST_URL} and {DEV_WS_URL} (it prints them); "
                f"Band Cloud's are {DEFAULT_REST_URL} and {DEFAULT_WS_URL}."
            )


def check_urls(rest_url: str, ws_url: str, ws_source: str) -> None:
    """Refuse a REST URL on this machine with the socket left at Band Cloud's default.

    That pair is a forgotten ``BAND_WS_URL`` (the REST calls would reach ``band dev`` and the
    socket would retry Band Cloud for minutes); the error says what to export.
    """
    if _is_local(rest_url) and ws_url == DEFAULT_WS_URL and ws_source.startswith("the default"):
        parts = urlsplit(rest_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        local_ws = f"{scheme}://{parts.netloc}/api/v1/socket/websocket"
        raise StartupError(
            f"the REST URL is {rest_url} but the socket URL is {ws_url} ({ws_source}).\n"
            f"For band dev, export BAND_WS_URL={local_ws} (or pass ws_url=)."
        )


def describe_failure(
    exc: BaseException,
    *,
    agent_id: str,
    rest_url: str,
    source: str,
    credentials: str = "the agent_id and api_key given",
) -> str:
    """One or two lines for a failure of the start-up calls, or "" when it is not one of them.

    ``source`` says where the REST URL came from, ``credentials`` where the key did.
    """
    where = f"{rest_url} ({source})"
    if isinstance(exc, SessionEndedError):
        return (
            f"the agent's socket could not connect: {exc}.\n"
            "Check BAND_WS_URL (band dev prints it) and that the platform is running."
        )
    if isinstance(exc, BandAPIError) and exc.status_code in (401, 403):
        return (
            f"the platform at {where} refused the API key of agent {agent_id} "
            f"(HTTP {exc.status_code}: {exc.message}).\n"
            f"Check {credentials}: "
            "`band dev agent create NAME --config FILE --key KEY` writes a fresh pair."
        )
    if isinstance(exc, BandAPIError) and exc.status_code == 404:
        parts = urlsplit(rest_url)
        # a base URL under a path is legitimate behind a proxy; a 404 at start-up says it's not
        base = f" (without its path, {parts.scheme}://{parts.netloc})" if parts.path else ""
        return (
            f"the platform at {where} answered 404 Not Found to the agent's first call.\n"
            f"Is that a Band platform's address{base}? band dev prints its BAND_REST_URL."
        )
    if isinstance(exc, BandConnectionError):
        cause = exc.__cause__ or exc
        first = f"cannot reach the Band platform at {where}: {cause}."
        if rest_url.rstrip("/") == DEFAULT_REST_URL and not env_value("BAND_REST_URL"):
            return (
                f"{first}\nFor the local platform, start `band dev` and "
                f"export BAND_REST_URL={DEV_REST_URL} BAND_WS_URL={DEV_WS_URL}"
            )
        if _is_local(rest_url):
            return (
                f"{first}\nIs `band dev` running? Start it (`band dev`, or `band dev --port N` "
                "when the port is taken) or point BAND_REST_URL at the one that is."
            )
        return f"{first}\nCheck the URL and the network (proxies: HTTPS_PROXY, NO_PROXY)."
    return ""


def debug_enabled() -> bool:
    """True when tracebacks are wanted: ``BAND_LOG_LEVEL=DEBUG`` or the band logger at DEBUG."""
    level = (env_value("BAND_LOG_LEVEL") or "").upper()
    return level == "DEBUG" or logging.getLogger("band").getEffectiveLevel() <= logging.DEBUG


def ensure_logging() -> None:
    """Log ``band`` to stderr at ``BAND_LOG_LEVEL`` (INFO) when the application set up nothing.

    So a bare agent script says when it connects, reconnects and runs a turn (one line each);
    an application that configured logging (any handler on the root or ``band`` logger) keeps
    its own setup.
    """
    band = logging.getLogger("band")
    if logging.getLogger().handlers or band.handlers:
        return
    name = (env_value("BAND_LOG_LEVEL") or "INFO").upper()
    level = logging.getLevelName(name)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S")
    )
    band.addHandler(handler)
    if band.level == logging.NOTSET:
        band.setLevel(level if isinstance(level, int) else logging.INFO)


def install_quiet_excepthook() -> None:
    """An uncaught :class:`StartupError` or ``BandConfigError`` (an agent already running, an
    adapter that cannot work) prints ``error: <message>`` alone (not when debugging)."""
    previous = sys.excepthook
    if getattr(previous, "_band_quiet", False):
        return

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if isinstance(exc, StartupError | BandConfigError) and not debug_enabled():
            print(f"error: {exc}", file=sys.stderr)
            return
        previous(kind, exc, tb)

    hook._band_quiet = True  # type: ignore[attr-defined]
    sys.excepthook = hook
