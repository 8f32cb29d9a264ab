"""The club night's hub: what the tables send, kept in its ledger; the standings and pairings derived from it.

:class:`Hub` runs its threads (paho's, the writer, the web server), each with one job.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from firmware.hub.ledger import HubLedger, KeptBoard, Night
from ledger.errors import LedgerError

from ..club_settings import club_name_problem
from ..wire import schema
from ..wire.broker import Broker
from . import night as nights
from .commands import Commands, DirectorError
from .inbox import BrokerChanged, Connected, FloorMoved, Inbox, Job, PresenceAsked, Received, Stop, TableChanged
from .journal import Journal
from .mqtt import LOOK_AGAIN_S, HubLink
from .state import NightState, Shown, Snapshot

__all__ = ["BATCH", "DirectorError", "Hub", "Journal", "LOOK_AGAIN_S", "Received", "Settings", "Snapshot"]

BATCH = 500  # messages in one transaction at most
RETRY_S = (1, 2, 5, 10)  # waits before writing again after a failed write (then every 10 s)
TICK_S = 1.0  # the writer looks up at least this often (the journal's summary, a pending retry)
JOB_WAIT_S = 30.0  # how long the console waits for the writer
SNAPSHOT_EVERY_S = 0.02  # a new snapshot at most this often when only the tables' live state changed
STANDINGS_EVERY_S = 1.0  # the retained standings (the whole night, large at a regional event) at most this often


Took = dict[type, list]  # one take of the inbox: each kind of message, and those of it taken, in order


@dataclass
class _Writing:
    """What the write loop keeps from one take of the inbox to the next."""

    pending: list[Received] = field(default_factory=list)  # to keep, then acknowledge
    failures: int = 0  # writes failed in a row
    retry_at: float = 0.0  # no write is tried again before this (time.monotonic)
    begun: bool = False  # the broker said this is the club's one hub: rounds are made and published
    snapshot_due: bool = False  # a new snapshot held back (at most one every SNAPSHOT_EVERY_S)
    kept_due: set[tuple[str, str]] = field(default_factory=set)  # (table, ledger): the hub's word is due


def _on_stop(took: Took) -> None:
    """Stop only wakes the writer: the loop ends once what is queued is written."""


@dataclass(frozen=True)
class Settings:
    """The hub's command line, checked (see :func:`settings_problem`)."""

    club: str
    broker: Broker
    night: str
    points: str = "acc"
    skunk: str = "acc"
    rounds: int = 9
    players: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    version: str = "0"


def _differs(first: dict | None, again: dict) -> bool:
    """Whether a result sent again under a kept key says otherwise than the first copy: a field both
    have that differs (a field only one has is a board of another version, not another result)."""
    if first is None:
        return True
    return any(first[field] != again[field] for field in first.keys() & again.keys())


class Hub:
    """One club night's hub over ``ledger`` (see below). :meth:`start` runs its writer and
    :meth:`connect` its broker link; the web app reads :attr:`snapshot` (and :meth:`since`) and calls
    :meth:`listen` to be woken on a change; the director's console calls :attr:`commands` through :meth:`run`.

    Threads, each with one job:

    - paho's network thread receives (:mod:`.mqtt`): a table's ``status`` or ``state`` only
      changes what the page shows of it; an ``entry`` or ``result`` goes to the writer's
      inbox (:mod:`.inbox`: one typed message for each thing the writer is told).
    - the writer thread is the ledger's one writer: it takes what is in the inbox
      in one transaction, and only once that is durable acknowledges each message
      (QoS 1, ``manual_ack``): a hub killed at any moment loses nothing, since the
      broker sends again what it has no acknowledgement for, and the ledger's UNIQUE
      keys make the second copy a no-op. It then reads the rows it stored into the
      night (:mod:`.state`, :class:`~firmware.hub.night.NightBook`: what each row
      touches, never the whole night again), makes the next round when the current
      one is complete, publishes the pairings and standings (retained, QoS 1), and
      puts a new snapshot in place. The director's commands (:mod:`.commands`) run on it too.
    - the web server (:mod:`firmware.hub.site`) only reads the latest
      snapshot, and what changed since a viewer's: no page waits for the broker or the writer.

    After each commit the writer also publishes, retained, each table's
    ``kept``: the hub's word on what it has durably kept of that board's ledger,
    which alone lets a board forget (the board resends from it). An entry or a
    result sent retained is ignored (boards never retain them: it was planted); one
    sent again under a key already kept but with other content is kept once and
    noted in ``conflicts``, as is a result refused as impossible
    (:class:`~firmware.wire.schema.ImpossibleResult`).

    The broker's address is checked at start; a broker that is away is retried with
    paho's back-off while the page and the ledger go on. A login the broker refuses
    for good (user name or password) is one line and exit 2 when it happens on the
    first connection, since the command line must change; later (the broker's
    password file changed under a running hub), one log line and the hub keeps
    retrying slowly, serving the night it has.
    """

    def __init__(self, settings: Settings, ledger: HubLedger, journal: Journal | None = None):
        self.settings = settings
        self.ledger = ledger
        self.journal = journal or Journal()
        self.topics = schema.Topics(settings.club)
        self.night: Night = ledger.night(settings.club, settings.night, settings.points, settings.skunk,
                                         settings.rounds)
        if (self.night.points, self.night.skunk, self.night.rounds) != (settings.points, settings.skunk,
                                                                          settings.rounds):
            raise DirectorError(
                f"night {settings.night} was begun with --points {self.night.points} --skunk {self.night.skunk} "
                f"--rounds {self.night.rounds}: give those, or another --night")
        self.fatal: str | None = None  # set when the hub must stop (a login refused at start, its writer failed)
        self.on_fatal: Callable[[], None] | None = None  # called then (from paho's or the writer's thread)
        self.inbox = Inbox()
        self._stop = threading.Event()
        self._writer: threading.Thread | None = None
        self._listeners: list[Callable[[], None]] = []
        self._problem: str | None = None  # the ledger's, in words, while writing fails
        self._auto_start = bool(settings.players)
        self._standings_due = False  # the standings changed since they were last published
        self._standings_at = 0.0
        self._put_at = 0.0
        self._boards: dict[tuple[str, str], KeptBoard] = {}  # (table, ledger) -> what is kept of it, once read
        self._writing = _Writing()
        self.state = NightState(self.night, settings.club, settings.tables)
        self.link = HubLink(settings, self.inbox, self.journal, self._table_said, self.fail, self._stop)
        self.commands = Commands(self)
        self.register(settings.players, initial=True)
        self.state.load(self.ledger.reader())
        self._held_said: dict[tuple, tuple[str, str | None] | None] = {
            game.key: (game.status, game.reason) for game in self.view.held}
        self._put()
        if not settings.players and not self.view.rounds:
            self.journal.say("no pairings tonight (no --players): any table may report any game, and counts it; "
                             "the page and /api/club/rounds show each game's table")

    # ---- what the page reads ----------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        return self.state.latest()

    @property
    def view(self) -> nights.NightView:
        """The night as it stands (the writer's: the latest rows read)."""
        return self.state.book.view()

    def since(self, version: int) -> tuple[Snapshot, Shown | None]:
        """The latest snapshot and what changed on the page after ``version`` (None: too long ago)."""
        return self.state.since(version)

    def listen(self, wake: Callable[[], None]) -> None:
        """Call ``wake()`` (from any thread; it must only signal) after each new snapshot."""
        self._listeners.append(wake)

    def _put(self) -> None:
        self._put_at = time.monotonic()
        self.state.put(self.link.state, self._problem)
        for wake in list(self._listeners):
            wake()

    def refresh(self, *what: str) -> None:
        """Read what the writer stored into the night (``what``: which rows; all by default), and show it."""
        self.state.read(self.ledger.reader(), what or None)
        self._put()

    def _table_said(self, table: str, kind: str, payload: dict | None) -> None:
        """paho's thread: a table's ``status`` or ``state``, for the page (and the writer, which shows it)."""
        self.inbox.put(TableChanged(table, self.state.table_said(table, kind, payload)))

    # ---- the players and the rounds (writer thread) ----------------------------

    def register(self, names, initial: bool = False) -> list[str]:
        """Add players not yet registered this night (for --players: never registered; for the
        console: not active now). Returns those added."""
        rows = self.ledger.reader().players(self.night.id)
        known = {nights.name_key(row.name) for row in rows} if initial else \
            {nights.name_key(name) for name in nights.active_players(rows)}
        added = []
        for name in names:
            if nights.name_key(name) not in known:
                known.add(nights.name_key(name))
                added.append(name)
        if added:
            with self.ledger.write() as w:
                for name in added:
                    w.add_player(self.night.id, name)
        return added

    def tables(self) -> list[str]:
        """The tables a round is made for: --tables, else those seen online, in name order."""
        if self.settings.tables:
            return sorted(self.settings.tables, key=nights.table_order)
        return sorted(self.state.online(), key=nights.table_order)

    def make_round(self, how: str) -> int:
        view = self.view
        if view.round >= self.night.rounds:
            raise DirectorError(f"the night has its {self.night.rounds} rounds (--rounds)")
        if len(view.players) < 2:
            raise DirectorError("fewer than 2 players: add them first (player add NAME...)")
        tables = self.tables()
        if not tables:
            raise DirectorError("no tables yet: give --tables 1,2,3 or wait for the boards to come online")
        rows = nights.next_pairings(view, tables)
        with self.ledger.write() as w:
            w.add_round(self.night.id, view.round + 1, rows, how)
        self.refresh("rounds")
        self._publish_pairings()
        made = self.view.rounds[-1]
        shown = [f"table {p.table or '-'}: {' v '.join(p.players)}" for p in made.pairings[:40]]
        more = len(made.pairings) - len(shown)
        self.journal.say(f"round {made.number} made ({how}): " + "; ".join(shown)
                         + (f"; {more} more pairings (see /api/club/rounds)" if more > 0 else "")
                         + (f"; bye {made.bye}" if made.bye else ""))
        return made.number

    def advance(self) -> None:
        """Make the next round if the current one is complete; round 1 when --players said so."""
        view = self.view
        try:
            if not view.rounds:
                if self._auto_start and len(view.players) >= 2:
                    tables = self.tables()
                    if self.settings.tables or len(tables) >= len(view.players) // 2:
                        self._auto_start = False
                        self.make_round("start: --players")
            elif view.rounds[-1].complete and view.round < self.night.rounds:
                self.make_round(f"round {view.round} complete")
        except DirectorError as error:
            self.journal.say(f"the next round cannot be made yet: {error}")
        except LedgerError as error:
            self._problem = str(error)
            self.journal.say(str(error))

    # ---- the broker --------------------------------------------------------------

    def connect(self) -> None:
        """Start the broker link (its own thread): connect, subscribe, reconnect with back-off."""
        self.link.connect()

    def fail(self, reason: str) -> None:
        """The hub must stop (from any thread): ``reason`` in one line, what is queued written first."""
        self.fatal = reason
        self._stop.set()
        self.inbox.put(Stop())
        if self.on_fatal is not None:
            self.on_fatal()

    # ---- the writer thread -------------------------------------------------------

    def start(self) -> None:
        self._writer = threading.Thread(target=self._writer_thread, name="hub-writer", daemon=True)
        self._writer.start()

    def _writer_thread(self) -> None:
        """The write loop; should it fail unforeseen, the hub stops (exit 2, the cause in one line) rather
        than serve a night it no longer keeps: what was not acknowledged comes again at the next start."""
        try:
            self._write_loop()
        except Exception as error:  # a bug: say it once and stop, never go on half-working
            self.fail(f"the hub's writer stopped ({type(error).__name__}: {error}); nothing unacknowledged "
                      "is lost: start the hub again")

    def _handlers(self) -> dict[type, Callable[[Took], None]]:
        """Each kind of inbox message and its handler, in the order the writer acts on one take of
        the inbox: what came from the tables is stored first, and what follows from it after."""
        return {Received: self._on_received, Job: self._on_jobs, FloorMoved: self._on_floors_moved,
                Connected: self._on_connected, PresenceAsked: self._on_presence_asked,
                TableChanged: self._on_tables_changed, BrokerChanged: self._on_broker_changed, Stop: _on_stop}

    def _write_loop(self) -> None:
        """Take what the inbox holds (a burst is one take), call every handler with it (each acts on
        its own kind), then publish the standings and put a snapshot in place when due; until stopped
        with nothing left to write."""
        writing = self._writing
        handlers = self._handlers()
        while True:
            took: Took = {kind: [] for kind in handlers}
            for item in self.inbox.take(self._wait_s(), BATCH):
                took.setdefault(type(item), []).append(item)
            self.journal.tick()
            stopping = self._stop.is_set()
            for handle in handlers.values():
                handle(took)
            if self._standings_due and (stopping or time.monotonic() - self._standings_at >= STANDINGS_EVERY_S):
                self._publish_standings(force=False, now=True)
            if writing.snapshot_due and (stopping or time.monotonic() - self._put_at >= SNAPSHOT_EVERY_S):
                self._put()
                writing.snapshot_due = False
            if stopping and self.inbox.empty() and (not writing.pending or writing.failures):
                return

    def _wait_s(self) -> float:
        """How long the writer waits for the inbox: until a write is tried again or a snapshot held back
        is due, else TICK_S."""
        writing = self._writing
        wait = max(0.0, writing.retry_at - time.monotonic()) if writing.pending else TICK_S
        if writing.snapshot_due:
            wait = min(wait, max(0.0, self._put_at + SNAPSHOT_EVERY_S - time.monotonic()))
        return wait

    def _on_received(self, took: Took) -> None:
        """Entries and results: kept with those still waiting in one transaction (unless a failed write
        waits its turn), then acknowledged; the night read again where they touch it."""
        writing = self._writing
        writing.pending += took[Received]
        if not writing.pending or time.monotonic() < writing.retry_at:
            return
        try:
            new_results, new_entries = self._store(writing.pending)
        except LedgerError as error:
            writing.failures += 1
            writing.retry_at = time.monotonic() + RETRY_S[min(writing.failures, len(RETRY_S)) - 1]
            if self._problem != str(error):
                self.journal.say(f"{error}; {len(writing.pending)} messages wait, unacknowledged")
            self._problem = str(error)
            writing.snapshot_due = True
            return
        self._acknowledge(writing.pending)
        writing.kept_due.update((item.table, item.payload["ledger"]) for item in writing.pending)
        writing.pending, writing.failures, self._problem = [], 0, None
        what = ("entries", "results") if new_results else ("entries",) if new_entries else ()
        change = self.state.read(self.ledger.reader(), what) if what else None
        if change is not None and (new_results or change.games):
            self._say_held(change.games)
            self._put()
            self._publish_standings()
            self.advance()
        else:
            writing.snapshot_due = True

    def _on_jobs(self, took: Took) -> None:
        """The director's commands, each run and handed back to the console that waits for it."""
        for job in took[Job]:
            try:
                job.value = job.run()
            except BaseException as error:  # handed to the waiting console
                job.error = error
            job.done.set()

    def _on_floors_moved(self, took: Took) -> None:
        """The hub's word to each board whose floor moved, and to each whose messages were just kept."""
        writing = self._writing
        writing.kept_due.update((moved.table, moved.ledger) for moved in took[FloorMoved])
        for table, ledger in sorted(writing.kept_due):
            self._publish_kept(table, ledger)
        writing.kept_due.clear()

    def _on_connected(self, took: Took) -> None:
        """A connection as the club's one hub: everything retained again; the first, the night may begin."""
        if not took[Connected]:
            return
        if not self._writing.begun:
            self._writing.begun = True
            self.advance()
        self._publish_all()
        self._writing.snapshot_due = True

    def _on_presence_asked(self, took: Took) -> None:
        """Another hub asked about the club: this hub's presence again (a connection in the same take
        has said it already)."""
        if took[PresenceAsked] and not took[Connected]:
            self.link.publish(self.topics.hub, self.link.presence(True), force=True)

    def _on_tables_changed(self, took: Took) -> None:
        """What tables said changed: a new snapshot; a table that came or went may begin the night."""
        changed = took[TableChanged]
        if not changed:
            return
        self._writing.snapshot_due = True
        if any(table.came for table in changed) and self._writing.begun and not self.view.rounds:
            self.advance()

    def _on_broker_changed(self, took: Took) -> None:
        """The broker's state in words changed: a new snapshot says it."""
        if took[BrokerChanged]:
            self._writing.snapshot_due = True

    def _store(self, batch: list[Received]) -> tuple[bool, bool]:
        """One transaction for the batch; whether a result was new, and whether an entry was (the
        standings may change). A key already kept with other content, and an entry or result refused,
        are noted (conflicts), each once; a refusal is told to its table in the hub's word."""
        changed = False
        current = self.view.round
        kept: list[str] = []
        noted: list[str] = []
        refused: list[tuple[str, str]] = []  # (table, line) for the journal, within the table's budget
        stored: list[tuple] = []  # what the boards' words now say: ("entry", table, ledger, game, seq), ...
        club, night = self.settings.club, self.night.id
        with self.ledger.write() as w:
            for item in batch:
                payload = item.payload
                key = (club, item.table, payload["ledger"], payload["game"])
                if item.kind == "entry":
                    if w.add_entry(night, *key, payload["seq"], payload["line"], payload.get("at")):
                        kept.append(item.table)
                        stored.append(("entry", item.table, payload["ledger"], payload["game"], payload["seq"]))
                    elif (first := w.entry_line(*key, payload["seq"])) != payload["line"] and w.add_conflict(
                            night, *key, "entry", payload["seq"], first, payload["line"], "sent again otherwise"):
                        noted.append(f"table {item.table} game {payload['game']} entry {payload['seq']}: sent again "
                                     f"as {payload['line']!r}; kept as {first!r}, the first copy")
                elif item.kind == "result":
                    if w.add_result(night, current, club, payload):
                        changed = True
                        stored.append(("result", item.table, payload["ledger"], payload["game"], payload["rev"],
                                       payload["status"], True))
                    elif _differs(kept_first := w.result_payload(*key, payload["rev"]), payload) and w.add_conflict(
                            night, *key, "result", payload["rev"], _json(kept_first), _json(payload),
                            "sent again otherwise"):
                        noted.append(f"table {item.table} game {payload['game']} result {payload['rev']}: sent again "
                                     f"as {_scores(payload)}; kept as {_scores(kept_first)}, the first copy")
                elif item.kind == "refused":
                    kind, number, reason = payload["kind"], payload["number"], payload["reason"]
                    if w.add_conflict(night, *key, "refused", number, None, _json(payload["sent"]), reason):
                        stored.append(("refused", item.table, payload["ledger"], payload["game"], kind, number,
                                       reason, payload["sent"].get("status")))
                        refused.append((item.table, refused_line(item.table, payload["game"], kind, number, reason)))
        self.state.kept(kept)  # counted once durable
        for what, table, ledger, game, *rest in stored:
            board = self._boards.get((table, ledger))
            if board is None:  # read whole when its word is first said, with this commit in it
                continue
            if what == "entry":
                board.entry(game, rest[0])
            elif what == "result":
                board.result(game, *rest)
            else:
                board.refused(game, *rest)
        for line in noted:
            self.journal.say(f"conflict: {line} (the console's conflicts lists it)")
        for table, line in refused:
            self.journal.refused(line, table)
        return changed, bool(kept)

    def _say_held(self, keys) -> None:
        """One line for each of these games newly held, or held for another reason (see night.HELD)."""
        for key in keys:
            game = self.state.book.game(key)
            said: tuple[str, str | None] | None = (game.status, game.reason) if game.status in nights.HELD else None
            if self._held_said.get(key) == said:
                continue
            self._held_said[key] = said
            if said is not None:
                self.journal.say(held_line(game, self._refused_entries(game) if game.status == "waiting" else []))

    def _refused_entries(self, game) -> list[int]:
        """The entries of ``game`` the hub refused (its waiting never ends for those), as the board's word has them."""
        board = self._boards.get((game.table, game.ledger))
        if board is None:  # read whole, as its word will be
            board = self._boards[(game.table, game.ledger)] = self.ledger.reader().kept_board(
                self.settings.club, game.table, game.ledger)
        return [number for number_game, kind, number, _ in board.refusals if number_game == game.game and kind == "entry"]

    def _acknowledge(self, batch: list[Received]) -> None:
        """Acknowledge what is now durable, on the connection it came on (a message from an
        earlier connection comes again on this one, and is acknowledged then)."""
        for item in batch:
            self.link.ack(item.mid, item.qos, item.generation)

    def run(self, job: Callable, wait: float = JOB_WAIT_S):
        """Run ``job()`` on the writer thread and return what it returns (or raise what it raised)."""
        task = Job(job)
        self.inbox.put(task)
        if not task.done.wait(wait):
            raise DirectorError("the hub's writer is busy (see the log): try again in a moment")
        if task.error is not None:
            raise task.error
        return task.value

    # ---- publishing (writer thread) ----------------------------------------------

    def _publish_pairings(self, force: bool = False) -> None:
        view = self.view
        current = view.rounds[-1] if view.rounds else None
        at = {p.table: list(p.players) for p in current.pairings if p.table} if current else {}
        names = set(at) | set(self.tables()) | set(self.link.published_tables())
        for table in sorted(names, key=nights.table_order):
            if club_name_problem("table", table):
                continue
            self.link.publish(self.topics.of_table("pairing", table),
                              schema.pairing_payload(table, self.night.name, view.round or 1, at.get(table, [])),
                              force)

    def _publish_standings(self, force: bool = False, now: bool = False) -> None:
        """The night's standings, retained: at once when ``force`` or ``now``, else within STANDINGS_EVERY_S
        (a result a second at a regional event would otherwise send the whole night each time)."""
        if not (force or now):
            self._standings_due = True
            return
        self._standings_due, self._standings_at = False, time.monotonic()
        self.link.publish(self.topics.standings, {"v": schema.VERSION, "night": self.night.name,
                                                  "standings": [line.to_dict() for line in self.view.standings]},
                          force)

    def _publish_kept(self, table: str, ledger: str) -> None:
        """The hub's word to ``table`` on ``ledger``, retained: what is durably kept of its games from
        the board's floor on. Sent after every commit that had anything of it, new or not: a board that
        sent again learns the hub has it."""
        board = self._boards.get((table, ledger))
        if board is None:
            board = self._boards[(table, ledger)] = self.ledger.reader().kept_board(self.settings.club, table, ledger)
        floor = self.link.floors.get((table, ledger))
        first, games = board.word(floor, schema.KEPT_GAMES)
        listed = {game for game, *_ in games}
        refused = [item for item in board.refused_from(floor) if item[0] in listed]
        # QoS 0: one after every commit of the table's (a table's every entry, at a regional event 400 a
        # second); a word lost with a connection is said again at the next commit, at every reconnection
        # (QoS 1 then: HubLink.announce), and a board whose word lags sends again, which makes one.
        self.link.publish(self.topics.of_table("kept", table),
                          schema.kept_payload(table, ledger, first, games, refused), force=True, qos=0)

    def _publish_all(self) -> None:
        """Everything retained again (a new connection: the broker may have lost it)."""
        self.link.announce()
        if self.view.rounds:
            self._publish_pairings(force=True)
        self._publish_standings(force=True)

    def after_correction(self) -> None:
        """The night read again after the director's word, and what follows from it."""
        self.refresh("corrections")
        self._publish_standings()
        self.advance()

    # ---- stopping ------------------------------------------------------------------

    def stop(self) -> None:
        """Write and acknowledge what is queued, say the hub is gone, disconnect."""
        self._stop.set()
        self.inbox.put(Stop())
        if self._writer is not None:
            self._writer.join(10)
        self.link.stop()


def held_line(game, refused: list[int] | None = None) -> str:
    """A game held for the director, in one line: what, why, and how the director counts it (``refused``: the
    entries of a game waiting that the hub refused, which never come)."""
    where = f"table {game.table} game {game.game}"
    accept = f"accept {game.table} {game.game}"
    if game.status == "unpaired":
        return f"unpaired: {game.reason} ({where}); counted for nobody until the director says {accept}"
    if game.status == "conflict":
        return (f"conflict with its entries: {where} result {game.latest.rev}: {game.reason}; counted for nobody "
                f"until its entries agree or the director says {accept}")
    if refused:
        return (f"waiting: {where} result {game.latest.rev} {game.reason}; its entries "
                f"{', '.join(map(str, refused))} were refused and never come: counted for nobody until the "
                f"director says {accept}")
    return f"waiting: {where} result {game.latest.rev} {game.reason}; counted once they are here"


def refused_line(table: str, game: int, kind: str, number: int, reason: str) -> str:
    """An entry or result the hub will not keep, in one line: where, why, and what would make its game count."""
    what = f"{'entry' if kind == 'entry' else 'result'} {number}"
    return f"table {table} game {game} {what}: {reason}; {what_counts(table, game, kind)}"


def what_counts(table: str, game: int, kind: str) -> str:
    """What would make a game count when the hub refused one of its entries or results."""
    if kind == "entry":
        return (f"told to the table, never kept; its game waits for that entry: once its result is here, "
                f"accept {table} {game} counts it as the table sent it")
    return (f"told to the table, never counted; a later result of the game that the hub keeps counts, "
            f"or the director's correct {table} {game} once one is kept")


def _json(payload: dict | None) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _scores(payload: dict | None) -> str:
    if not payload:
        return "nothing"
    return f"{payload.get('status')} " + ", ".join(f"{side} {score}" for side, score in payload.get("scores", {}).items())
