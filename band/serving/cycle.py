"""What uvicorn's request cycle knows, read from it when ``send`` or ``receive`` is its own:
whether a response has started (the layers that need to know then wrap no message) and
whether a request's body has all arrived (then reading it needs no timer)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import Message, Receive, Send
from uvicorn.protocols.http.h11_impl import RequestResponseCycle as _H11Cycle

try:
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle as _ToolsCycle
except ImportError:  # no httptools (PyPy): uvicorn's h11 protocol only
    _ToolsCycle = _H11Cycle  # type: ignore[assignment,misc]

#: uvicorn's request cycles: ``response_started`` is set once a response's start is accepted,
#: ``more_body`` cleared once the request's end is read
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


def arrived(receive: Receive) -> bool:
    """Whether ``receive`` is a uvicorn request cycle's own and the request's end is read: it
    returns the rest of the body at once, nothing can trickle (False when it cannot say)."""
    try:
        cycle = receive.__self__  # type: ignore[attr-defined]
    except AttributeError:
        return False
    return type(cycle) in _CYCLES and cycle.more_body is False
