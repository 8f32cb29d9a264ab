"""A listening socket for the web view and the club hub, bound before their server starts, so a port in
use or a host that does not resolve is one line and exit 2, not a traceback."""

from __future__ import annotations

import errno
import socket

from scorer.errors import CribbageBoardError


class ListenError(CribbageBoardError, OSError):
    """The socket cannot be had; the message says what to do."""


def bind(host: str, port: int, who: str, default: int) -> socket.socket:
    """A listening socket on ``host``:``port`` for ``who`` ("web view", "hub": named when the port is in
    use), whose port is ``default`` when none is given; ListenError, in one line, if it cannot be had."""
    if not 1 <= port <= 65535:
        raise ListenError(f"--port {port} is out of range: use 1 to 65535")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as error:
        raise ListenError(f"--host {host}: not an address of this machine ({getattr(error, 'strerror', error)})") \
            from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(64)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise ListenError(f"port {port} on {host} is in use (another {who}?): stop it or give --port N") \
                from None
        if error.errno == errno.EACCES:
            raise ListenError(f"port {port} needs privileges: give --port 1024 or above (default {default})") \
                from None
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.set_inheritable(True)
    return sock
