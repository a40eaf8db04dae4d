"""Clients that misbehave at the socket level: headers and part of a body, then silence or a
disconnect (what an HTTP library never does, and what anyone can do to a server)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit


def partial_request(
    url: str, headers: dict[str, str], declared: int = 1000, sent: bytes = b'{"ref": '
) -> socket.socket:
    """A POST to `url` announcing `declared` body bytes and sending only `sent`; still open."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=30)
    lines = [f"POST {parts.path or '/'} HTTP/1.1", f"Host: {parts.netloc}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines += [f"Content-Length: {declared}", "", ""]
    sock.sendall("\r\n".join(lines).encode() + sent)
    return sock


def answer(sock: socket.socket, timeout: float = 30.0) -> bytes:
    """Everything the server sends until it closes the connection (bounded by `timeout`)."""
    sock.settimeout(timeout)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        pass
    finally:
        sock.close()
    return received
