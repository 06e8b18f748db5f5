"""Whether a response has started, read from the server's own request cycle when it keeps it
(uvicorn's), so the layers that need to know do not wrap every message of every response."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import Message, Send
from uvicorn.protocols.http.h11_impl import RequestResponseCycle as _H11Cycle

try:
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle as _ToolsCycle
except ImportError:  # no httptools (PyPy): uvicorn's h11 protocol only
    _ToolsCycle = _H11Cycle  # type: ignore[assignment,misc]

#: uvicorn's request cycles: ``response_started`` is set once a response's start is accepted
_CYCLES = frozenset({_H11Cycle, _ToolsCycle})


def watch(send: Send) -> tuple[Send, Callable[[], bool]]:
    """``send``, and whether a response's start went through it.

    When ``send`` is a uvicorn request cycle's own, the cycle says (``send`` is returned as
    is); any other ``send`` is wrapped to note the start as it passes.
    """
    try:
        cycle = send.__self__  # type: ignore[attr-defined]
    except AttributeError:
        cycle = None
    if type(cycle) in _CYCLES:  # its own, not a subclass that may keep it elsewhere
        return send, lambda: cycle.response_started
    started = [False]

    async def tracked(message: Message) -> None:
        if message["type"] == "http.response.start":
            started[0] = True
        await send(message)

    return tracked, lambda: started[0]
