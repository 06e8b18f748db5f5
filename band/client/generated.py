"""Band's generated REST client (band_rest) at band-sdk's import path, behind the [rest] extra.

band-sdk's ``band.client.rest`` re-exports band-client-rest. Ours is the SDK's own transport
(:mod:`band.client.rest`); the band_rest names it does not define are handed out from here on
first use, so code written against band-sdk's ``AsyncRestClient`` runs unchanged once the
extra is installed, and costs nothing otherwise.
"""

from __future__ import annotations

import importlib
import weakref
from typing import TYPE_CHECKING, Any, Protocol

from band._extras import require

if TYPE_CHECKING:
    from band_rest.core.request_options import RequestOptions

    from .rest import RestClient

__all__ = [
    "BAND_REST_NAMES",
    "DEFAULT_REQUEST_OPTIONS",
    "NO_RETRY_REQUEST_OPTIONS",
    "aclose_rest_client",
    "adopt_rest_client",
    "band_rest_name",
]

#: band-sdk's names in ``band.client.rest`` that only band_rest defines -> band_rest's module.
BAND_REST_NAMES: dict[str, str] = {
    "AsyncRestClient": "band_rest",
    "AgentMe": "band_rest",
    "AgentMemoryCreateRequest": "band_rest",
    "Attachment": "band_rest",
    "ChatEventRequest": "band_rest",
    "ChatMessage": "band_rest",
    "ChatMessageRequest": "band_rest",
    "ChatRoomRequest": "band_rest",
    "ParticipantRequest": "band_rest",
    "ChatMessageRequestMentionsItem": "band_rest.types",
    "ParsingError": "band_rest.core",
    "RequestOptions": "band_rest.core.request_options",
}

# band_rest's calls default to max_retries=0; these are the two settings band-sdk documents.
#: Pass as ``request_options=`` to a band_rest call: up to 3 retries (HTTP 429 and the like).
DEFAULT_REQUEST_OPTIONS: RequestOptions = {"max_retries": 3}
#: For a write the platform may have applied before its answer was lost: never retried.
NO_RETRY_REQUEST_OPTIONS: RequestOptions = {"max_retries": 0}


def band_rest_name(module: str, name: str) -> Any:
    """``name`` from band_rest (a one-line error naming the [rest] extra when it is absent)."""
    source = BAND_REST_NAMES.get(name)
    if source is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    require("rest", f"{module}.{name} (Band's generated REST client)")
    return getattr(importlib.import_module(source), name)


class _Closable(Protocol):
    async def aclose(self) -> None: ...


#: band_rest client -> the RestClient of ours that speaks for it (closed with it)
_ADOPTED: weakref.WeakKeyDictionary[Any, RestClient] = weakref.WeakKeyDictionary()


def _is_band_rest_client(client: Any) -> bool:
    """True for band_rest's generated clients (they keep key and URL in a client wrapper)."""
    module = type(client).__module__
    return (module == "band_rest" or module.startswith("band_rest.")) and hasattr(
        client, "_client_wrapper"
    )


def adopt_rest_client(client: Any) -> Any:
    """Our RestClient for band_rest's ``AsyncRestClient`` (same API key, base URL and timeout),
    so code written for band-sdk can hand its client to AgentTools; anything else as given."""
    if not _is_band_rest_client(client):
        return client
    adopted = _ADOPTED.get(client)
    if adopted is None:
        from .rest import DEFAULT_TIMEOUT_S, RestClient

        wrapper = client._client_wrapper
        timeout = wrapper.get_timeout()
        adopted = RestClient(
            api_key=wrapper.api_key,
            base_url=wrapper.get_base_url(),
            timeout=float(timeout) if isinstance(timeout, int | float) else DEFAULT_TIMEOUT_S,
        )
        _ADOPTED[client] = adopted
    return adopted


async def aclose_rest_client(client: Any) -> None:
    """Close the HTTP connections of ``client``: band_rest's ``AsyncRestClient`` (and the
    RestClient adopted for it), or our :class:`~band.client.rest.RestClient`."""
    adopted = _ADOPTED.pop(client, None) if _is_band_rest_client(client) else None
    if adopted is not None:
        await adopted.aclose()
    if callable(getattr(client, "aclose", None)):
        closable: _Closable = client
        await closable.aclose()
        return
    # band_rest keeps its httpx.AsyncClient inside the client wrapper's own HTTP client
    await client._client_wrapper.httpx_client.httpx_client.aclose()
