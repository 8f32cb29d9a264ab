"""``cribbage-board web``: serve the ledger's live board, history and statistics.

The socket is bound here, before the server starts, so a port in use or a
host that does not resolve is one line and exit 2, not a traceback. uvicorn
speaks HTTP through :mod:`.connections` (a deadline for each request, a cap on
open connections below RLIMIT_NOFILE, a log that cannot flood).
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import WEB_PORT, listen

if TYPE_CHECKING:  # annotations only
    from hardware.layout import Layout

DEFAULT_HOST = "0.0.0.0"


class WebError(Exception):
    """The server cannot start; the message says what to do."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; WebError if it cannot be had."""
    try:
        return listen.bind(host, port, "web view", WEB_PORT)
    except listen.ListenError as error:
        raise WebError(str(error)) from None


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
