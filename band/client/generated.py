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

__all__ = [
    "BAND_REST_NAMES",
    "DEFAULT_REQUEST_OPTIONS",
    "NO_RETRY_REQUEST_OPTIONS",
    "aclose_rest_client",
    "adopted",
    "is_band_rest_client",
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


#: band_rest client -> the RestClient of ours that speaks for it (closed with it; filled by
#: :func:`band.client.rest.adopt_rest_client`)
adopted: weakref.WeakKeyDictionary[Any, _Closable] = weakref.WeakKeyDictionary()


def is_band_rest_client(client: Any) -> bool:
    """True for band_rest's generated clients (they keep key and URL in a client wrapper)."""
    module = type(client).__module__
    return (module == "band_rest" or module.startswith("band_rest.")) and hasattr(
        client, "_client_wrapper"
    )


async def aclose_rest_client(client: Any) -> None:
    """Close the HTTP connections of ``client``: band_rest's ``AsyncRestClient`` (and the
    RestClient adopted for it), or our :class:`~band.client.rest.RestClient`."""
    ours = adopted.pop(client, None) if is_band_rest_client(client) else None
    if ours is not None:
        await ours.aclose()
    if callable(getattr(client, "aclose", None)):
        closable: _Closable = client
        await closable.aclose()
        return
    # band_rest keeps its httpx.AsyncClient inside the client wrapper's own HTTP client
    await client._client_wrapper.httpx_client.httpx_client.aclose()
