"""What every REST operation answers: its success status and the wire type of its ``data``.

Each route's one declaration (``api.operations.declare``) enters its answer here; ``openapi``
turns this table into each operation's response schemas (the JSON Schema msgspec generates from
the same Structs the routes encode), and the app refuses to start with a route missing here, as
with ``authz.POLICY``. ``JsonObject`` marks an answer band dev builds as a plain object (its
fields are documented on the handler).
"""

from __future__ import annotations

from typing import Any

#: "METHOD /path" -> (success status, type of ``data``); None: no JSON body (a file's bytes)
ANSWERS: dict[str, tuple[int, Any]] = {}
#: answered bare (no ``data`` envelope): the token exchange, as on Band, and the OpenAPI document
BARE: set[str] = set()
#: answered with the web view's HTML page
HTML: set[str] = set()
