"""``cribbage-board web``: serve the ledger's live board, history and statistics.

The socket is bound here, before the server starts, so a port in use or a
host that does not resolve is one line and exit 2, not a traceback. uvicorn
speaks HTTP through :mod:`.connections` (a deadline for each request, a cap on
open connections below RLIMIT_NOFILE, a log that cannot flood).
"""

from __future__ import annotations

import errno
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import WEB_PORT

if TYPE_CHECKING:  # annotations only
    from hardware.layout import Layout

DEFAULT_HOST = "0.0.0.0"


class WebError(Exception):
    """The server cannot start; the message says what to do."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; WebError if it cannot be had."""
    if not 1 <= port <= 65535:
        raise WebError(f"--port {port} is out of range: use 1 to 65535")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as error:
        raise WebError(f"--host {host}: not an address of this machine ({getattr(error, 'strerror', error)})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(64)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise WebError(f"port {port} on {host} is in use (another web view?): stop it or give --port N") from None
        if error.errno == errno.EACCES:
            raise WebError(f"port {port} needs privileges: give --port 1024 or above (default {WEB_PORT})") from None
        raise WebError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.set_inheritable(True)
    return sock


def serve(state: Path, host: str = DEFAULT_HOST, port: int = WEB_PORT, layout: Layout | None = None,
          announce=print) -> int:
    """Serve until stopped (SIGINT, SIGTERM); returns the exit status."""
    sock = bind(host, port)
    import uvicorn  # only once the socket is ours: a bad port answers at once

    from .app import create_app
    from .connections import REQUEST_SECONDS, Server, limits_for, protocol, quiet_logs
    from .follow import LedgerFollower
    from .warm import warm_in_background

    follower = LedgerFollower(state)
    app = create_app(follower, layout, host_names=(host,))
    limits = limits_for()
    warm_in_background(state)
    shown = "localhost" if host in ("0.0.0.0", "::") else (f"[{host}]" if ":" in host else host)
    announce(f"cribbage-board web: serving {state} read-only on http://{shown}:{port}/ "
             f"(all addresses)" if host in ("0.0.0.0", "::") else
             f"cribbage-board web: serving {state} read-only on http://{shown}:{port}/")
    sys.stdout.flush()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", http=protocol(limits),
                            loop="asyncio", ws="none", timeout_graceful_shutdown=1, server_header=False,
                            backlog=limits.backlog, timeout_keep_alive=REQUEST_SECONDS)
    quiet_logs(limits)
    server = Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        follower.close()
        sock.close()
    return 0
