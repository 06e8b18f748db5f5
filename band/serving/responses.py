"""A response of JSON bytes already encoded, built without Starlette's general header logic."""

from __future__ import annotations

from starlette.background import BackgroundTask
from starlette.responses import Response

_JSON = (b"content-type", b"application/json")


class JSONBytes(Response):
    """``Response(body, status_code=status, media_type="application/json")`` for ``body``
    bytes, with the same headers in the same order (``content-length`` unless the status
    has no body, then ``content-type``), set at once: ``Response`` renders the content and
    derives the headers through two more calls and a dozen small ones, for every answer."""

    media_type = "application/json"

    def __init__(self, body: bytes, status_code: int = 200) -> None:
        self.status_code = status_code
        self.background: BackgroundTask | None = None
        self.body = body
        if status_code < 200 or status_code == 204 or status_code == 304:
            self.raw_headers = [_JSON]
        else:
            self.raw_headers = [(b"content-length", b"%d" % len(body)), _JSON]
