"""What a platform URL must look like, told before the first call fails on it.

The REST base URL is the platform's address (``http://127.0.0.1:8080``, ``https://app.band.ai``,
or one under a path a proxy serves it at); the client adds ``/api/v1/...`` itself. The socket
URL is the full ``ws://`` or ``wss://`` address of the Phoenix socket.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["API_PREFIX", "rest_url_problem", "socket_url_problem"]

#: what the REST client puts between the base URL and each operation's path
API_PREFIX = "/api/v1"


def rest_url_problem(url: str) -> str | None:
    """Why ``url`` can't be a REST base URL (a phrase after the URL), or None when it can."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "is not an http:// or https:// URL"
    path = parts.path.rstrip("/")
    if path.endswith(API_PREFIX):
        base = f"{parts.scheme}://{parts.netloc}{path.removesuffix(API_PREFIX)}"
        return f"ends in {API_PREFIX}, which the client adds itself: give {base}"
    return None


def socket_url_problem(url: str) -> str | None:
    """Why ``url`` can't be the Phoenix socket's URL (a phrase after the URL), or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        return "is not a ws:// or wss:// URL"
    return None
