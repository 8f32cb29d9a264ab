"""``cribbage-board web``: serve the ledger's live board, history and statistics.

The socket is bound here, before the server starts, so a port in use or a
host that does not resolve is one line and exit 2, not a traceback. uvicorn
speaks HTTP through :mod:`firmware.server.connections` (a deadline for each request, a cap on
open connections below RLIMIT_NOFILE, a log that cannot flood).
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scorer.errors import CribbageBoardError

from .. import WEB_PORT
from ..server import listen

if TYPE_CHECKING:
    from hardware.layout import Layout

DEFAULT_HOST = "0.0.0.0"


class WebError(CribbageBoardError, OSError):
    """The server cannot start; the message says what to do."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; WebError if it cannot be had."""
    try:
        return listen.bind(host, port, "web view", WEB_PORT)
    except listen.ListenError as error:
        raise WebError(str(error)) from None


def addresses(host: str, port: int, board_port: int | None = None, lan=None) -> list[str]:
    """What ``cribbage-board web`` says it serves on: localhost and each address this machine has on
    the network (``lan()``, :func:`firmware.server.lan.lan_hosts` with every address its name has) when it
    listens on all of them, else the one address; and, when the port is not the config's
    ``[web] port`` (``board_port``), that the board's phone view shows the config's."""
    if host not in ("0.0.0.0", "::"):
        shown = f"[{host}]" if ":" in host else host
        lines = [f"on http://{shown}:{port}/"]
    else:
        if lan is None:
            from ..server.lan import host_addresses, lan_hosts

            def lan():
                return lan_hosts(others=host_addresses)
        found = [f"http://{f'[{a}]' if ':' in a else a}:{port}/" for a in lan()]
        lines = [f"on http://localhost:{port}/ (all addresses)",
                 ("on the network: " + ", ".join(found)) if found else
                 "no network address yet (this machine has no route to a network): a phone cannot reach it"]
    if board_port is not None and board_port != port:
        lines.append(f"note: the board's phone view (the QR code on its OLED) gives port {board_port}, the config's "
                     f"[web] port, not {port}: set port = {port} under [web] in the config for it to point here")
    return lines


def serve(state: Path, host: str = DEFAULT_HOST, port: int = WEB_PORT, layout: Layout | None = None,
          announce=print, board_port: int | None = None, palette: str = "standard") -> int:
    """Serve until stopped (SIGINT, SIGTERM); returns the exit status. ``board_port``: the config's
    ``[web] port``, the one the board's phone view shows (the board cannot learn another);
    ``palette``: the LEDs' (config ``leds.palette``), the one the pages open in."""
    sock = bind(host, port)
    from ..server.connections import server  # uvicorn only once the socket is ours: a bad port answers at once
    from .app import create_app
    from .follow import LedgerFollower
    from .warm import warm_in_background

    follower = LedgerFollower(state)
    from ..wire.relay import socket_path

    app = create_app(follower, layout, host_names=(host,), listen=(host, sock.getsockname()[1]),
                     board_socket=socket_path(state), palette=palette)
    warm_in_background(state)
    first, *more = addresses(host, port, board_port)
    announce(f"cribbage-board web: serving {state} read-only {first}")
    for line in more:
        announce(f"cribbage-board web: {line}")
    sys.stdout.flush()
    web = server(app, "cribbage-board web")
    try:
        web.run(sockets=[sock])
    finally:
        follower.close()
        sock.close()
    return 0
