"""The live board for every ``/events`` client: one watcher of the ledger, its changes fanned out
(:class:`LiveFeed`), with whether the board itself is running, and a few streams a client at most.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
from pathlib import Path

from ..wire.acts import usable_by_seat
from ..wire.relay import unix_address
from .site import Site

# An entry's event is meant to reach the page within 250 ms: both waits stay well under it.
POLL_SECONDS = 0.05  # how often the ledger is looked at while anyone listens
EVENT_GAP_SECONDS = 0.2  # events at most this often: an entry right after one waits this long
KEEPALIVE_SECONDS = 15.0
KEEPALIVE = b": keep-alive\n\n"
BOARD_SECONDS = 2.0  # how often the watcher looks whether the board is running
STREAMS_PER_CLIENT = 8  # /events streams one client may hold at once (a phone, its tabs, a TV)
TOO_MANY = b"retry: 60000\nevent: busy\ndata: too many live views from this device\n\n"

log = logging.getLogger("uvicorn.error")


class LiveFeed:
    """The live board as server-sent events, for any number of clients of one event loop.

    While at least one client listens, one task looks at the ledger every
    POLL_SECONDS (its change token: a stat and one look at SQLite's WAL index).
    When the board changes, the event is rendered once, as bytes, and every client
    is woken to send those same bytes: a hundred clients cost what one does. After
    an event the watcher waits EVENT_GAP_SECONDS before it looks again, so a burst of
    entries (a console pasting a game) costs five events a second, not one per poll
    with every client woken for each; an entry made at a player's pace still shows
    within a poll, and the last entry of a burst always does.
    """

    def __init__(self, site: Site, board_socket: Path | None = None):
        self.site = site
        self.board_socket = board_socket  # the board's socket for phones: None for a ledger with no board
        self.event: bytes | None = None  # the board's last event, as sent
        self.listeners = 0
        self.clients: dict[str, int] = {}  # streams open by each client's address
        self._html: str | None = None
        self._board: bool | None = None  # whether the board runs, as the last event said
        self._board_seen: bool | None = None  # and as last looked
        self._board_at = float("-inf")
        self._changed = asyncio.Event()  # set (and replaced) when ``event`` changes
        self._watcher: asyncio.Task | None = None

    def update(self) -> bool:
        """Look at the ledger; if the board changed, render its event, wake every client and
        say True."""
        live = self.site.live()
        board = self.board_running()
        if live["html"] == self._html and board == self._board:
            return False
        data = json.dumps({"html": live["html"], "title": live["title"], "said": live["said"],
                           "state": live["state"], "problem": live["problem"], "acts": usable_by_seat(live["state"]),
                           "board": board})
        self._html, self._board, self.event = live["html"], board, f"event: message\ndata: {data}\n\n".encode()
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        return True

    async def _watch(self) -> None:
        try:
            while self.listeners:
                try:
                    sent = self.update()
                except Exception as error:  # a bug or a row that breaks the reader: the feed goes on
                    log.warning("cribbage-board web: the live board could not be read: %s", error)
                    sent = False
                await asyncio.sleep(EVENT_GAP_SECONDS if sent else POLL_SECONDS)
        finally:
            self._watcher = None

    def board_running(self) -> bool | None:
        """Whether the board listens on its socket (looked at most every BOARD_SECONDS: a connect
        that sends nothing); None where there is no board to look for: no socket given, or none
        made yet (a web view over a copied ledger). Once a board has made its socket, a board
        gone (its socket closed or removed) is False."""
        if self.board_socket is None:
            return None
        now = time.monotonic()
        if now - self._board_at >= BOARD_SECONDS:
            self._board_at = now
            listens = _listens(self.board_socket)
            if listens or self._board_seen is not None or os.path.lexists(self.board_socket):
                self._board_seen = listens
        return self._board_seen

    def admits(self, client: str) -> bool:
        """Whether ``client`` may open one more stream (fewer than STREAMS_PER_CLIENT open now)."""
        return self.clients.get(client, 0) < STREAMS_PER_CLIENT

    async def stream(self, client: str = ""):
        """One client's events: the board at once, then each change, a keep-alive comment after
        KEEPALIVE_SECONDS of quiet; a client with STREAMS_PER_CLIENT open already is told so and
        its stream ends (counted when it starts, before anything is awaited, so none slips past)."""
        if not self.admits(client):
            yield TOO_MANY
            return
        self.clients[client] = self.clients.get(client, 0) + 1
        self.listeners += 1
        try:
            if self._watcher is None:
                self.update()  # the watcher is not running: this client's first event is read now
                self._watcher = asyncio.get_running_loop().create_task(self._watch())
            sent = None
            while True:
                if self.event is not sent:
                    sent = self.event
                    yield sent
                    continue
                changed = self._changed
                try:
                    async with asyncio.timeout(KEEPALIVE_SECONDS):
                        await changed.wait()
                except TimeoutError:
                    yield KEEPALIVE
        finally:
            self.listeners -= 1
            left = self.clients.pop(client) - 1
            if left:
                self.clients[client] = left


def _listens(path: Path) -> bool:
    """Whether something listens on the Unix socket at ``path`` (a connect, closed at once)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        try:
            with unix_address(path) as address:
                sock.connect(address)
        except OSError:
            return False
    return True
