"""A raw HTTP stream held open against a local server, for tests that stop the server under it."""

from __future__ import annotations

import socket


def open_stream(port: int, request: bytes, timeout: float) -> socket.socket:
    """Send ``request`` to 127.0.0.1:``port`` and wait until the answer's head is in (200)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.sendall(request)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def drain(sock: socket.socket) -> bytes:
    """Everything the server still sends until it closes the connection."""
    out = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            return out
        if not chunk:
            return out
        out += chunk
