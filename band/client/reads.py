"""Socket reads into a buffer the event loop keeps, for the client's stream protocols.

asyncio's own socket transport gives a plain ``Protocol`` each read as a new ``bytes`` of
``max_size`` (256 KiB), shrunk to what arrived: for that size glibc's malloc maps fresh pages
and unmaps them again on every read, which cost an agent on asyncio's loop about a tenth of
its CPU per message in system calls and page faults. A ``BufferedProtocol`` is read into with
``recv_into`` instead; :class:`BufferedReads` lends one buffer per event loop (a loop reads one
socket at a time, and each read is passed on before the next begins) and hands each read on
to the protocol's ``data_received`` as ``bytes`` of exactly what arrived. uvloop already reads
into a buffer of its own and copies out what arrived; it keeps calling ``data_received`` of a
class that is also an ``asyncio.Protocol``, as these are.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING

__all__ = ["READ_BUFFER_SIZE", "BufferedReads"]

#: The bytes one read may take: a frame or answer larger than this arrives in several reads.
READ_BUFFER_SIZE = 64 * 1024


#: Each running loop's read buffer (a loop runs in one thread: no two reads share it at once).
_BUFFERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, memoryview] = (
    weakref.WeakKeyDictionary()
)


def _loop_buffer() -> memoryview:
    """The running loop's read buffer, made at its first read."""
    loop = asyncio.get_running_loop()
    try:
        view = _BUFFERS.get(loop)
        if view is None:
            view = _BUFFERS[loop] = memoryview(bytearray(READ_BUFFER_SIZE))
    except TypeError:  # a loop class without weak references: a buffer for the connection
        view = memoryview(bytearray(READ_BUFFER_SIZE))
    return view


class BufferedReads(asyncio.BufferedProtocol):
    """A stream protocol's reads into its loop's buffer, passed on to ``data_received``.

    Listed after the ``Protocol`` class among the bases (``class C(SomeProtocol,
    BufferedReads)``), so that the protocol's ``data_received`` and ``eof_received`` come
    before ``BufferedProtocol``'s empty ones; the loop then calls ``get_buffer`` and
    ``buffer_updated`` instead of ``data_received``.
    """

    _read_view: memoryview | None = None

    if TYPE_CHECKING:

        def data_received(self, data: bytes) -> None: ...

    def get_buffer(self, sizehint: int) -> memoryview:
        view = self._read_view
        if view is None:  # the loop's, looked up once: a connection stays on its loop
            view = self._read_view = _loop_buffer()
        return view

    def buffer_updated(self, nbytes: int) -> None:
        view = self._read_view
        assert view is not None  # get_buffer came first
        self.data_received(view[:nbytes].tobytes())
