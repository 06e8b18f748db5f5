"""The listening address of a local server: whether it is loopback, and how a URL names it."""

from __future__ import annotations

import ipaddress

__all__ = ["connect_host", "is_loopback", "url_host"]

#: addresses that listen on every interface; a client on this machine connects to loopback
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def connect_host(host: str) -> str:
    """The address a client on this machine connects to for a server listening on ``host``."""
    return _WILDCARDS.get(host, host)


def url_host(host: str) -> str:
    """``host`` as a URL's host part (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
