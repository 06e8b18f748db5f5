"""The web room view of the local platform: static files at ``/`` and the local session.

How the page gets the person's key: ``GET /dev/session`` returns the local user key, but only
to a loopback client that addressed the server by a loopback name. The dev platform binds
127.0.0.1 by default, so this is the machine's own person; the Host check stops a DNS-rebinding
page from reading the key through the browser, and browsers refuse cross-origin reads (no CORS
headers here). When the platform is bound elsewhere (``band dev --host 0.0.0.0``), remote
browsers get 403 and the page asks the person to paste ``BAND_USER_KEY`` instead. The key is
never logged (``logs.RedactKeys`` also scrubs the ``api_key=`` the page's socket URL carries).
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from band.core.wire import JsonObject

from ..api.operations import Operation, declare
from ..contract.errors import error_response

STATIC = Path(__file__).parent / "static"
#: third-party code, served beside the page's own files (``vendor/VENDOR.md`` says what and whence)
VENDOR = Path(__file__).parent / "vendor"
LOOPBACK_CLIENTS = frozenset({"127.0.0.1", "::1"})
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
# no external network: every script, style, image and socket comes from this server
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


async def index(request: Request) -> Response:
    """GET / (the web room view)."""
    return FileResponse(STATIC / "index.html", headers=HEADERS)


def _from_loopback(request: Request) -> bool:
    """Whether a loopback client asked under a loopback name (not a rebound DNS name)."""
    client = request.client.host if request.client else ""
    host = request.headers.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return client in LOOPBACK_CLIENTS and name in LOOPBACK_HOSTS


async def session(request: Request) -> Response:
    """GET /dev/session (the local person's key, to loopback clients only)."""
    if not _from_loopback(request):
        return error_response(
            403, "forbidden", "the local key is served to loopback clients only; paste it instead"
        )
    state = request.app.state
    # heartbeat well inside the idle timeout after which the socket closes silent clients
    heartbeat = min(30.0, state.idle_timeout / 3)
    body = {"data": {"api_key": state.user_key, "user_id": state.user_id, "heartbeat_s": heartbeat}}
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


class _Layered(StaticFiles):
    """Static files looked up in several folders in turn (the page's own, then the vendored)."""

    def __init__(self, *directories: Path) -> None:
        super().__init__(directory=directories[0])
        self.all_directories = list(directories)


def webui_routes() -> list[BaseRoute]:
    """The routes of the web room view."""
    return [*PAGES, Mount("/static", _Layered(STATIC, VENDOR), name="static")]


PAGES = declare(
    Operation("GET", "/", index, rule=None, answer=(200, None), form="html"),
    Operation("GET", "/dev/session", session, rule=None, answer=(200, JsonObject)),
)
