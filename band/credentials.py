"""``PROXY_MANAGED_API_KEY``: the ``api_key`` to give when a proxy supplies the real one.

Where a trusted proxy in front of the agent adds the real Band API key to each outbound
request (a sandbox that keeps credentials out of the agent's process), the agent is configured
with this placeholder instead. It is sent as is and authenticates nothing by itself; anywhere
else a real key is needed.
"""

from __future__ import annotations

__all__ = ["PROXY_MANAGED_API_KEY"]

#: not a secret: the proxy replaces it on the way out
PROXY_MANAGED_API_KEY = "proxy-managed"
