"""The live board for every ``/events`` client: one watcher of the ledger, its changes fanned out
(:class:`LiveFeed`).
"""

from __future__ import annotations

import asyncio
import json
import logging

from ..wire.acts import usable_by_seat
from .site import Site

# An entry's event is meant to reach the page within 250 ms: both waits stay well under it.
POLL_SECONDS = 0.05  # how often the ledger is looked at while anyone listens
EVENT_GAP_SECONDS = 0.2  # events at most this often: an entry right after one waits this long
KEEPALIVE_SECONDS = 15.0
KEEPALIVE = b": keep-alive\n\n"

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

    def __init__(self, site: Site):
        self.site = site
        self.event: bytes | None = None  # the board's last event, as sent
        self.listeners = 0
        self._html: str | None = None
        self._changed = asyncio.Event()  # set (and replaced) when ``event`` changes
        self._watcher: asyncio.Task | None = None

    def update(self) -> bool:
        """Look at the ledger; if the board changed, render its event, wake every client and
        say True."""
        live = self.site.live()
        if live["html"] == self._html:
            return False
        data = json.dumps({"html": live["html"], "title": live["title"], "said": live["said"],
                           "state": live["state"], "problem": live["problem"], "acts": usable_by_seat(live["state"])})
        self._html, self.event = live["html"], f"event: message\ndata: {data}\n\n".encode()
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

    async def stream(self):
        """One client's events: the board at once, then each change, a keep-alive comment
        after KEEPALIVE_SECONDS of quiet."""
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
