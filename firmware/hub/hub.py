"""The club night's hub: what the tables send, kept in its ledger; the standings and pairings derived from it.

Threads, each with one job:

- paho's network thread (``loop_start``) receives. Every message goes through
  :func:`~firmware.club.schema.decode`; one that fails is ignored with one log
  line (:class:`Journal`: rate-limited, so a flood cannot fill the journal) and
  acknowledged. A ``status`` or ``state`` only changes what the page shows of the
  table (in memory); an ``entry`` or ``result`` goes to the writer's inbox.
- the writer thread is the ledger's one writer: it takes what is in the inbox
  in one transaction, and only once that is durable acknowledges each message
  (QoS 1, ``manual_ack``): a hub killed at any moment loses nothing, since the
  broker sends again what it has no acknowledgement for, and the ledger's UNIQUE
  keys make the second copy a no-op. It then derives the night again
  (:mod:`firmware.hub.night`), makes the next round when the current one is
  complete, publishes the pairings and standings (retained, QoS 1), and puts a
  new :class:`Snapshot` in place. The director's commands run on it too.
- the web server (:mod:`firmware.hub.site`) only reads the latest
  snapshot: no page waits for the broker or the writer.

After each commit the writer also publishes, retained, each table's
``kept``: the hub's word on what it has durably kept of that board's ledger,
which alone lets a board forget (the board resends from it). An entry or a
result sent retained is ignored (boards never retain them: it was planted); one
sent again under a key already kept but with other content is kept once and
noted in ``conflicts``, as is a result refused as impossible
(:class:`~firmware.club.schema.ImpossibleResult`).

The hub's presence is on ``cribbage/<club>/hub``, retained, with a last will
(online false), naming this run (``instance``) and when it began. On its first
connection the hub reads that presence before anything else, holding what the
broker delivers unacknowledged: another hub of the club online there is one
line and exit 2 (the broker's ``use_username_as_clientid`` gives every login of
the hub's user one session, so the first hub gets it back at its next attempt). Since a broker
that crashes or loses its power keeps the presence of a hub lost with it (no last will is
sent then), another hub's word is only believed once it moves: the second look, LOOK_AGAIN_S
later, must find it said anew (``said`` counts a run's presences), as a hub that is alive says it
when it is back; a word that has not moved is a hub that is gone, said in one line, and this hub
keeps the night. The broker's address is checked at start; a broker that is away
is retried with paho's back-off while the page and the ledger go on. A login the
broker refuses for good (user name or password) is one line and exit 2 when it
happens on the first connection, since the command line must change; later
(the broker's password file changed under a running hub), one log line and the
hub keeps retrying slowly, serving the night it has.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from collections import namedtuple
from dataclasses import dataclass, field
from typing import Callable

from ledger.errors import LedgerError
from ledger.hub import HubLedger, Night, stamp
from scorer.names import name_problem, normal
from scorer.standings import ResultError, credits, merge, name_key, ranked, tally

from . import night as nights
from ..club import schema
from ..club.broker import Broker, make_client, refusal

BATCH = 500  # messages in one transaction at most
RETRY_S = (1, 2, 5, 10)  # waits before writing again after a failed write (then every 10 s)
TICK_S = 1.0  # the writer looks up at least this often (the journal's summary, a pending retry)
JOB_WAIT_S = 30.0  # how long the console waits for the writer
PROBE_S = 5.0  # at the first connection: the longest wait for the club's retained presence
# The hub's own link is kept short, so that a hub that is alive is always back soon: a dead
# connection noticed within 2x its keepalive, and retries at most this far apart (a board's go to 30 s).
HUB_KEEPALIVE_S = 10
HUB_RECONNECT_MAX_S = 2
# Another hub's presence seen at start: how long before looking again. A hub that is alive loses its
# session to this one's connection (one client id per login), is back within paho's first retry
# (1 s) and says its presence anew; one that was cut off is back within 2 x HUB_KEEPALIVE_S +
# HUB_RECONNECT_MAX_S of the broker's return; one lost with the broker (a crash, a power cut) says nothing.
LOOK_AGAIN_S = 2 * HUB_KEEPALIVE_S + HUB_RECONNECT_MAX_S + 3


# ---- the log ---------------------------------------------------------------------


class Journal:
    """Lines for the journal (standard error): :meth:`say` always; :meth:`ignored` (a message
    dropped) at most ``burst`` lines a ``window``, then one line saying how many more."""

    def __init__(self, write: Callable[[str], None] | None = None, burst: int = 20, window: float = 60.0,
                 clock=time.monotonic):
        self._write = write or _to_stderr
        self.burst, self.window, self._clock = burst, window, clock
        self._lock = threading.Lock()
        self._began = clock()
        self._shown = self._hidden = 0

    def say(self, line: str) -> None:
        self._write(" ".join(str(line).split())[:400])

    def ignored(self, line: str) -> None:
        with self._lock:
            self._roll()
            if self._shown >= self.burst:
                self._hidden += 1
                return
            self._shown += 1
        self.say(f"ignored: {line}")

    def tick(self) -> None:
        with self._lock:
            self._roll()

    def _roll(self) -> None:
        now = self._clock()
        if now - self._began < self.window:
            return
        if self._hidden:
            self.say(f"ignored {self._hidden} more messages in {self.window:g} s (not each shown)")
        self._began, self._shown, self._hidden = now, 0, 0


def _to_stderr(line: str) -> None:
    try:
        print(f"cribbage-board hub: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


# ---- what the page shows of each table -------------------------------------------


class TableLive(namedtuple("TableLive", "table online problem sides next winner seen game",
                           defaults=(None, False, None, (), None, None, False, None))):
    """A table as its last ``status`` and ``state`` say: ``online``, its ``problem``, its live
    game's ``sides`` ((name, score) pairs), whose count is ``next`` ("Bob hand"), the
    ``winner``, whether it was ever ``seen``, and which ``game`` is live ((ledger, game), or None). Immutable."""

    __slots__ = ()


def live_game(state) -> tuple[tuple, str | None, str | None]:
    """(sides, next, winner) of a board's ``state`` dict, read warily: it is only checked to
    be a JSON object, so anything not as expected is left out."""
    if not isinstance(state, dict):
        return (), None, None
    sides = []
    for side in state.get("sides") if isinstance(state.get("sides"), list) else ():
        if (isinstance(side, dict) and isinstance(side.get("name"), str) and 0 < len(side["name"]) <= 90
                and side["name"].isprintable() and isinstance(side.get("score"), int)
                and not isinstance(side.get("score"), bool) and 0 <= side["score"] <= 1000):
            sides.append((side["name"], side["score"]))
    upcoming = state.get("next")
    after = None
    if (isinstance(upcoming, dict) and isinstance(upcoming.get("seat"), str) and len(upcoming["seat"]) <= 40
            and upcoming["seat"].isprintable() and upcoming.get("count") in ("hand", "crib")):
        after = f"{upcoming['seat']} {upcoming['count']}"
    winner = state.get("winner") if isinstance(state.get("winner"), str) and len(state["winner"]) <= 90 else None
    return tuple(sides[:4]), after, winner


# ---- the snapshot the page reads -------------------------------------------------


class Snapshot(namedtuple("Snapshot", "version view season tables entries broker problem club")):
    """What the page shows, whole: the ``view`` of the night (a NightView), the ``season``
    standings, each table's TableLive (``tables``, in name order), the ``entries`` kept per
    table, the ``broker``'s state in words, the ledger's ``problem`` (or None). Immutable."""

    __slots__ = ()


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


class Incoming(namedtuple("Incoming", "kind table payload mid qos generation")):
    __slots__ = ()


class DirectorError(ValueError):
    """A director's command that cannot be done; the message says why and what to do."""


@dataclass
class _Job:
    run: Callable
    done: threading.Event = field(default_factory=threading.Event)
    value: object = None
    error: BaseException | None = None


def _differs(first: dict | None, again: dict) -> bool:
    """Whether a result sent again under a kept key says otherwise than the first copy: a field both
    have that differs (a field only one has is a board of another version, not another result)."""
    if first is None:
        return True
    return any(first[field] != again[field] for field in first.keys() & again.keys())


def _later(seconds: float, call: Callable, *args) -> None:
    """``call(*args)`` in ``seconds``, on a timer thread that does not hold the process open."""
    timer = threading.Timer(seconds, call, args=args)
    timer.daemon = True
    timer.start()


def _same_word(one: dict, other: dict | None) -> bool:
    """Whether two presences are the same word of the same run of a hub (not said anew since)."""
    return other is not None and all(one.get(key) == other.get(key) for key in ("instance", "since", "said"))


# ---- the hub ---------------------------------------------------------------------


class Hub:
    """One club night's hub over ``ledger`` (see the module). :meth:`start` runs its threads;
    the web app reads :attr:`snapshot` and calls :meth:`listen` to be woken on a change."""

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
        self._inbox: queue.Queue = queue.Queue()
        self._live: dict[str, TableLive] = {name: TableLive(name) for name in settings.tables}
        self._live_lock = threading.Lock()
        self._snapshot_lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        self._stop = threading.Event()
        self._writer: threading.Thread | None = None
        self._client = None
        self._generation = 0  # connections so far: an acknowledgement is sent on the connection it is for
        self._connected = False
        self._ever_connected = False
        self._broker_state = f"connecting to {settings.broker}"
        self._refused: str | None = None
        self._problem: str | None = None
        self._published: dict[str, bytes] = {}  # topic -> payload last published (retained)
        self.instance = os.urandom(8).hex()  # this run of the hub, in its presence
        self.since = stamp(time.time())
        self._probing = False  # the first connection: reading the club's presence before anything else
        self._suspect: dict | None = None  # another hub's presence (online) seen while probing: alive?
        self._latest: dict | None = None  # ... and what this connection's look found (None: nobody online)
        self._looked = -1  # the connection (generation) whose look has been answered
        self._phase = "looking"  # at the club's presence; then "begun" (this hub keeps the night) or "refused"
        self._said = 0  # presences said by this run
        self._rival: dict | None = None  # running: an earlier hub's presence the broker held, asked again
        self._announced = False  # this hub has said it is the club's (its presence published)
        self._probe_mid: int | None = None
        self._held: list = []  # what the broker delivered while probing, unacknowledged
        self._probe_lock = threading.Lock()
        self._floors: dict[tuple[str, str], int] = {}  # (table, ledger) -> the board's floor, from its status
        self._auto_start = bool(settings.players)
        # the night's rows, read from the ledger (results only grow: read the new ones)
        self._rows = {"results": [], "last_result": 0}
        self._past_season: dict = {}
        self._view = None
        self._entries: dict[str, int] = {}
        self.snapshot: Snapshot | None = None
        self._register(settings.players, initial=True)
        self._load()

    # ---- reading the ledger (writer thread, or before it starts) ----------

    def _load(self) -> None:
        """The night and the season read from the ledger (at start)."""
        rows = self.ledger.reader()
        past = [(each, rows.results(each.id), rows.corrections(each.id)) for each in rows.nights()
                if each.id != self.night.id]
        counted = []
        for each, results, corrections in past:
            rules = nights.Rules.of(each)
            counted += [credit for game in nights.games(results, corrections) if game.status in nights.COUNTED
                        for credit in _credits(game, rules)]
        self._past_season = tally(counted)
        self._entries = rows.entry_counts(self.night.id)
        self._refresh()

    def _refresh(self) -> None:
        """Derive the night again from its rows (results read since the last time only)."""
        rows = self.ledger.reader()
        fresh = [row for row in rows.results(self.night.id) if row.id > self._rows["last_result"]] \
            if self._rows["last_result"] else rows.results(self.night.id)
        if fresh:
            self._rows["results"] = self._rows["results"] + fresh
            self._rows["last_result"] = fresh[-1].id
        self._view = nights.view(self.night, rows.players(self.night.id), self._rows["results"],
                                 rows.rounds(self.night.id), rows.corrections(self.night.id))
        self._put_snapshot()

    def _season(self):
        rules = self._view.rules
        now = tally(credit for game in self._view.games if game.status in nights.COUNTED
                    for credit in _credits(game, rules))
        return tuple(ranked(merge(self._past_season, now)))

    def _put_snapshot(self, season: bool = True) -> None:
        with self._snapshot_lock:
            with self._live_lock:
                tables = dict(self._live)
            for each in self._view.rounds[-1:]:
                for pairing in each.pairings:
                    if pairing.table is not None and pairing.table not in tables:
                        tables[pairing.table] = TableLive(pairing.table)
            ordered = tuple(tables[name] for name in sorted(tables, key=nights.table_order))
            old = self.snapshot
            self.snapshot = Snapshot(
                (old.version + 1) if old else 1, self._view,
                self._season() if season or old is None else old.season,
                ordered, dict(self._entries), self._broker_state, self._problem, self.settings.club)
        for wake in list(self._listeners):
            wake()

    def listen(self, wake: Callable[[], None]) -> None:
        """Call ``wake()`` (from any thread; it must only signal) after each new snapshot."""
        self._listeners.append(wake)

    # ---- the players and the rounds (writer thread) ----------------------

    def _register(self, names, initial: bool = False) -> list[str]:
        """Add players not yet registered this night (for --players: never registered; for the
        console: not active now). Returns those added."""
        rows = self.ledger.reader().players(self.night.id)
        known = {name_key(row.name) for row in rows} if initial else \
            {name_key(name) for name in nights.active_players(rows)}
        added = []
        for name in names:
            if name_key(name) not in known:
                known.add(name_key(name))
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
        with self._live_lock:
            online = [name for name, live in self._live.items() if live.online]
        return sorted(online, key=nights.table_order)

    def _make_round(self, how: str) -> int:
        view = self._view
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
        self._refresh()
        self._publish_pairings()
        made = self._view.rounds[-1]
        self.journal.say(f"round {made.number} made ({how}): " + "; ".join(
            f"table {p.table or '-'}: {' v '.join(p.players)}" for p in made.pairings)
            + (f"; bye {made.bye}" if made.bye else ""))
        return made.number

    def _advance(self) -> None:
        """Make the next round if the current one is complete; round 1 when --players said so."""
        view = self._view
        try:
            if not view.rounds:
                if self._auto_start and len(view.players) >= 2:
                    tables = self.tables()
                    if self.settings.tables or len(tables) >= len(view.players) // 2:
                        self._auto_start = False
                        self._make_round("start: --players")
            elif view.rounds[-1].complete and view.round < self.night.rounds:
                self._make_round(f"round {view.round} complete")
        except DirectorError as error:
            self.journal.say(f"the next round cannot be made yet: {error}")
        except LedgerError as error:
            self._problem = str(error)
            self.journal.say(str(error))

    # ---- the broker ------------------------------------------------------

    def connect(self) -> None:
        """Start the MQTT client (its own thread): connect, subscribe, reconnect with back-off."""
        client = make_client(self.settings.broker, f"cribbage-{self.settings.club}-hub", manual_ack=True)
        client.reconnect_delay_set(1, HUB_RECONNECT_MAX_S)
        client.will_set(self.topics.hub, schema.encode(self._presence(False)), qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        client.connect_async(self.settings.broker.host, self.settings.broker.port,
                             keepalive=HUB_KEEPALIVE_S)
        self._client = client
        client.loop_start()

    def _presence(self, online: bool) -> dict:
        self._said += 1
        return schema.hub_payload(online, self.settings.version, self.instance, self.since, self._said)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            said, for_good = refusal(reason_code)
            self._connected = False
            self._broker_state = f"broker {self.settings.broker}: {said}"
            if for_good and not self._ever_connected:
                self.fatal = (f"broker {self.settings.broker}: {said}: check --username and --password-file "
                              "(and the broker's password file and ACL)")
                self._stop.set()
                self._inbox.put(None)
                if self.on_fatal is not None:
                    self.on_fatal()
            elif said != self._refused:
                self.journal.say(f"{self._broker_state}; retrying (every {HUB_RECONNECT_MAX_S} s at most)")
            self._refused = said
            self._inbox.put(("broker",))
            return
        self._generation += 1
        self._connected, self._ever_connected, self._refused = True, True, None
        self._broker_state = f"connected to {self.settings.broker}"
        with self._probe_lock:
            looking = self._phase == "looking"
            if looking:  # is another hub of the club online? Its retained presence comes with the subscription
                self._probing, self._latest = True, None
        if looking:
            _later(PROBE_S, self._probed, self._generation)
        # In order: the SUBACK of the second comes after the first's retained presence, if any (_on_subscribe).
        # At QoS 0: the broker sends it at once, not behind what it queued for this session at QoS 1 (which,
        # held unacknowledged while probing, fills the broker's in-flight window and would stop it)
        client.subscribe(self.topics.hub, qos=0)
        _, self._probe_mid = client.subscribe(self.topics.every_table, qos=1)  # while probing, held unacknowledged
        if not looking:
            self.journal.say(self._broker_state)
            self._inbox.put(("connected",))  # the writer publishes what is retained again

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        if mid == self._probe_mid:  # the club's retained presence, if any, came before it
            self._probed(self._generation)

    def _seen(self, presence: dict | None) -> None:
        """While probing, the club's presence as the broker holds it (``presence``: another hub's,
        online; None: nobody else online). The first other hub's word seen: look again in
        LOOK_AGAIN_S (:meth:`_look_again`). A word other than that one: a hub that is alive; stop, one line."""
        with self._probe_lock:
            if self._phase != "looking" or not self._probing:
                return
            self._latest = presence
            if presence is None or _same_word(presence, self._suspect):
                return
            first, self._suspect = self._suspect is None, self._suspect or presence
            if not first:
                self._probing, self._phase = False, "refused"
        if first:  # said nothing yet: a second hub's refusal is one line
            _later(LOOK_AGAIN_S, self._look_again)
        else:
            self._refuse_second(presence)

    def _probed(self, generation: int) -> None:
        """Connection ``generation``'s look at the club's presence is answered (the subscription's
        SUBACK, or PROBE_S passed): nobody else online, begin; another hub's word seen, the look
        again decides."""
        with self._probe_lock:
            if self._phase != "looking" or not self._probing or generation != self._generation:
                return
            self._looked = generation
            if self._suspect is not None:
                return
            self._phase = "begun"
        self._begin()

    def _look_again(self) -> None:
        """LOOK_AGAIN_S after another hub's presence was seen: if this connection's look found the same
        word (never said anew) or none online, that hub is gone; begin, one line. Not connected, or
        not yet answered: a moment later."""
        with self._probe_lock:
            if self._phase != "looking" or self._stop.is_set() or self._suspect is None:
                return
            if not (self._probing and self._looked == self._generation):
                answered = False
            else:
                answered = True
                gone, latest = self._suspect, self._latest
                self._suspect, self._phase = None, "begun"
        if not answered:
            _later(1.0, self._look_again)
            return
        if latest is None:
            self.journal.say(f"hub {gone.get('instance')} is no longer online: this hub keeps the club's night")
        else:
            self._said_gone(gone)
        self._begin()

    def _begin(self) -> None:
        """This hub is the club's (probing still on): its presence and word are said, and what was held
        is taken up, in the order it came, before what comes after it (probing ends once none is left)."""
        self.journal.say(self._broker_state)
        self._inbox.put(("connected",))
        while True:
            with self._probe_lock:
                held, self._held = self._held, []
                if not held:
                    self._probing = False
                    return
            for message, generation in held:
                self._take(message, generation)

    def _refuse_second(self, presence: dict) -> None:
        with self._probe_lock:
            self._phase, self._probing = "refused", False
        self.fatal = (f"another hub for club {self.settings.club} is online on {self.settings.broker} (since "
                      f"{presence.get('since') or 'earlier'}, version {presence.get('version')}): one hub keeps a "
                      "club's night; stop that one first")
        self._stop.set()
        self._inbox.put(None)
        if self._client is not None:
            self._client.disconnect()  # a clean disconnect: no last will, the other hub's presence stands
        if self.on_fatal is not None:
            self.on_fatal()

    def _other_hub(self, message) -> None:
        """The club's presence. Only a retained copy is taken as the truth (one delivered as the
        subscription's answer: what the broker holds now); a live one, or one queued in this hub's
        session since an earlier run, only makes it ask again. Another hub's, online, stops this one
        at start (see _probed); later, one that began before this one stops it, and one that began
        after it is answered with this hub's presence again (it stops when it sees it)."""
        self._ack(message.mid, message.qos)
        try:
            presence = schema.decode("hub", "", message.payload) if message.payload else None
        except schema.PayloadError as error:
            self.journal.ignored(f"the club's hub presence: {error}")
            return
        other = bool(presence and presence["online"] and presence.get("instance") != self.instance)
        if not message.retain:
            if other and not self._probing:
                self._ask_presence()
            return
        if self._probing:
            self._seen(presence if other else None)
        elif other and (presence.get("since") or "", presence.get("instance") or "") < (self.since, self.instance):
            self._earlier_hub(presence)
        elif other:
            self._inbox.put(("presence",))

    def _earlier_hub(self, presence: dict) -> None:
        """Running, the broker holds the presence of a hub that began before this one. Alive, its word
        moves (it says it anew each time it connects): this hub stops. A word that has not moved when
        asked again LOOK_AGAIN_S later is one the broker kept of a hub lost with it (restored from an
        older save): one line, and this hub says its own presence over it."""
        with self._probe_lock:
            rival, self._rival = self._rival, presence
        if rival is None or rival.get("instance") != presence.get("instance"):
            _later(LOOK_AGAIN_S, self._ask_presence)
        elif _same_word(presence, rival):
            self._rival = None
            self._said_gone(presence)
            self._inbox.put(("presence",))
        else:
            self._refuse_second(presence)

    def _ask_presence(self) -> None:
        """Subscribe to the club's presence again: the broker answers with what it holds (retained)."""
        if not self._stop.is_set() and self._client is not None:
            self._client.subscribe(self.topics.hub, qos=0)  # the broker answers with what it holds

    def _said_gone(self, presence: dict) -> None:
        self.journal.say(f"hub {presence.get('instance')} (online since {presence.get('since') or 'earlier'}, the "
                         f"club's presence says) has not answered in {LOOK_AGAIN_S:g} s: it was lost with the broker "
                         "(a crash or a power cut), and this hub keeps the club's night")

    def _on_connect_fail(self, client, userdata) -> None:
        state = f"broker {self.settings.broker} cannot be reached; retrying"
        if state != self._broker_state:
            self._broker_state = state
            self.journal.say(state)
            self._inbox.put(("broker",))

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        with self._probe_lock:
            if self._probing:  # cut off while looking: look again on the next connection (what was held
                self._probing = False  # comes again on it, unacknowledged as it is)
                self._held = []
            begun = self._phase == "begun"
        if self._connected:
            self._connected = False
            if self._stop.is_set() or not begun:  # our own disconnect, stopping; or still looking
                return
            self._broker_state = f"broker {self.settings.broker} went away; reconnecting"
            self.journal.say(self._broker_state)
            self._inbox.put(("broker",))

    def _ack(self, mid: int, qos: int, generation: int | None = None) -> None:
        """Acknowledge ``mid``, if it came on this connection (``generation``; a message of an earlier one
        comes again on this one, under another id)."""
        if qos and self._client is not None and generation in (None, self._generation):
            self._client.ack(mid, qos)

    def _on_message(self, client, userdata, message) -> None:
        """paho's thread: the club's presence, or a table's message (:meth:`_take`), held while probing."""
        generation = self._generation
        if message.topic == self.topics.hub:
            try:
                self._other_hub(message)
            except Exception as error:  # a bug here must not stop paho's thread
                self.journal.say(f"the club's presence could not be handled: {type(error).__name__}: {error}")
            return
        with self._probe_lock:
            if self._probing:  # held, unacknowledged, until it is known this hub is the club's
                self._held.append((message, generation))
                return
        self._take(message, generation)

    def _take(self, message, generation: int) -> None:
        """A table's message, come on connection ``generation``: check it; keep a table's status or state
        in memory, queue an entry or result for the writer, drop anything else with one line. Never raises."""
        def ack():
            self._ack(message.mid, message.qos, generation)

        try:
            parsed = self.topics.parse(message.topic)
            if parsed is None:
                self.journal.ignored(f"topic {message.topic[:120]!r}: not one of this club's table topics")
                ack()
                return
            table, kind = parsed
            if kind in schema.HUB_KINDS:  # our own, retained
                ack()
                return
            if kind in ("entry", "result") and message.retain:
                self.journal.ignored(f"table {table}: a retained {kind}: boards never send one retained, so it "
                                     f"was planted (clear it: mosquitto_pub -r -n -t {message.topic})")
                ack()
                return
            if kind in ("status", "state") and not message.payload:  # a retained message cleared
                self._live_change(table, kind, None)
                ack()
                return
            payload = None
            try:
                payload = schema.decode(kind, table, message.payload)
                if kind == "result":
                    nights.result_of(payload)
            except (schema.ImpossibleResult, ResultError) as error:  # dropped, and noted for the director
                refused = error.payload if isinstance(error, schema.ImpossibleResult) else payload
                self.journal.ignored(f"table {table}: dropped: {error}")
                self._inbox.put(Incoming("refused", table, {**refused, "reason": str(error)}, message.mid,
                                         message.qos, generation))
                return
            except schema.PayloadError as error:
                self.journal.ignored(f"table {table}: {error}")
                ack()
                return
            if kind in ("status", "state"):
                self._live_change(table, kind, payload)
                ack()
                if kind == "status" and payload.get("ledger") is not None:
                    key = (table, payload["ledger"])
                    if self._floors.get(key) != payload["floor"]:
                        self._floors[key] = payload["floor"]
                        self._inbox.put(("kept", table, payload["ledger"]))  # the hub's word from that floor on
                return
            self._inbox.put(Incoming(kind, table, payload, message.mid, message.qos, generation))
        except Exception as error:  # a bug here must not stop paho's thread: say it, drop the message
            self.journal.say(f"a message on {message.topic[:120]!r} could not be handled: "
                             f"{type(error).__name__}: {error}")
            ack()

    def _live_change(self, table: str, kind: str, payload: dict | None) -> None:
        with self._live_lock:
            live = self._live.get(table) or TableLive(table)
            if kind == "status":
                live = live._replace(online=bool(payload and payload["online"]),
                                     problem=payload.get("problem") if payload else None, seen=True)
            else:
                sides, after, winner = live_game(payload.get("state") if payload else None)
                game = (payload["ledger"], payload["game"]) if payload and payload.get("game") else None
                live = live._replace(sides=sides, next=after, winner=winner, seen=True, game=game)
            new_table = table not in self._live or live.online != self._live[table].online
            self._live[table] = live
        if new_table:
            self._inbox.put(("tables",))  # the writer may start the night (--players)
        self._put_snapshot(season=False)

    # ---- the writer thread -----------------------------------------------

    def start(self) -> None:
        self._writer = threading.Thread(target=self._writer_thread, name="hub-writer", daemon=True)
        self._writer.start()

    def _writer_thread(self) -> None:
        """The write loop; should it fail unforeseen, the hub stops (exit 2, the cause in one line) rather
        than serve a night it no longer keeps: what was not acknowledged comes again at the next start."""
        try:
            self._write_loop()
        except Exception as error:  # a bug: say it once and stop, never go on half-working
            self.fatal = (f"the hub's writer stopped ({type(error).__name__}: {error}); nothing unacknowledged "
                          "is lost: start the hub again")
            self._stop.set()
            if self.on_fatal is not None:
                self.on_fatal()

    def _write_loop(self) -> None:
        pending: list[Incoming] = []
        failures = 0
        retry_at = 0.0
        begun = False  # nothing is made or published before the broker says this is the club's one hub
        while True:
            wait = max(0.0, retry_at - time.monotonic()) if pending else TICK_S
            items = []
            try:
                items.append(self._inbox.get(timeout=wait))
                while len(items) < BATCH:
                    items.append(self._inbox.get_nowait())
            except queue.Empty:
                pass
            self.journal.tick()
            stopping = self._stop.is_set()
            jobs, signals, words = [], set(), set()
            for item in items:
                if isinstance(item, Incoming):
                    pending.append(item)
                elif isinstance(item, _Job):
                    jobs.append(item)
                elif isinstance(item, tuple) and item[0] == "kept":
                    words.add(item[1:])
                elif isinstance(item, tuple):
                    signals.add(item[0])
            if pending and time.monotonic() >= retry_at:
                try:
                    changed = self._store(pending)
                except LedgerError as error:
                    failures += 1
                    retry_at = time.monotonic() + RETRY_S[min(failures, len(RETRY_S)) - 1]
                    if self._problem != str(error):
                        self.journal.say(f"{error}; {len(pending)} messages wait, unacknowledged")
                    self._problem = str(error)
                    self._put_snapshot(season=False)
                else:
                    self._acknowledge(pending)
                    words.update((item.table, item.payload["ledger"]) for item in pending)
                    pending, failures, self._problem = [], 0, None
                    if changed:
                        self._refresh()
                        self._publish_standings()
                        self._advance()
                    else:
                        self._put_snapshot(season=False)
            for job in jobs:
                try:
                    job.value = job.run()
                except BaseException as error:  # handed to the waiting console
                    job.error = error
                job.done.set()
            for table, ledger in sorted(words):
                self._publish_kept(table, ledger)
            if "connected" in signals:
                if not begun:
                    begun = True
                    self._advance()
                self._publish_all()
            elif "presence" in signals:
                self._publish(self.topics.hub, self._presence(True), force=True)
            if "tables" in signals and begun and not self._view.rounds:
                self._advance()
            if signals - {"connected"}:
                self._put_snapshot(season=False)
            if stopping and self._inbox.empty() and (not pending or failures):
                return

    def _store(self, batch: list[Incoming]) -> bool:
        """One transaction for the batch; whether a result was new (the standings may change). A key
        already kept with other content, and a result refused, are noted (conflicts), each once."""
        changed = False
        current = self._view.round
        kept: list[str] = []
        noted: list[str] = []
        club, night = self.settings.club, self.night.id
        with self.ledger.write() as w:
            for item in batch:
                payload = item.payload
                key = (club, item.table, payload["ledger"], payload["game"])
                if item.kind == "entry":
                    if w.add_entry(night, *key, payload["seq"], payload["line"], payload.get("at")):
                        kept.append(item.table)
                    elif (first := w.entry_line(*key, payload["seq"])) != payload["line"] and w.add_conflict(
                            night, *key, "entry", payload["seq"], first, payload["line"], "sent again otherwise"):
                        noted.append(f"table {item.table} game {payload['game']} entry {payload['seq']}: sent again "
                                     f"as {payload['line']!r}; kept as {first!r}, the first copy")
                elif item.kind == "result":
                    if w.add_result(night, current, club, payload):
                        changed = True
                    elif _differs(first := w.result_payload(*key, payload["rev"]), payload) and w.add_conflict(
                            night, *key, "result", payload["rev"], _json(first), _json(payload),
                            "sent again otherwise"):
                        noted.append(f"table {item.table} game {payload['game']} result {payload['rev']}: sent again "
                                     f"as {_scores(payload)}; kept as {_scores(first)}, the first copy")
                elif item.kind == "refused":
                    reason, sent = payload["reason"], {k: v for k, v in payload.items() if k != "reason"}
                    if w.add_conflict(night, *key, "refused", payload["rev"], None, _json(sent), reason):
                        noted.append(f"table {item.table} game {payload['game']} result {payload['rev']} "
                                     f"refused: {reason}")
        for table in kept:  # counted once durable
            self._entries[table] = self._entries.get(table, 0) + 1
        for line in noted:
            self.journal.say(f"conflict: {line} (the console's conflicts lists it)")
        return changed

    def _acknowledge(self, batch: list[Incoming]) -> None:
        """Acknowledge what is now durable, on the connection it came on (a message from an
        earlier connection comes again on this one, and is acknowledged then)."""
        for item in batch:
            if item.generation == self._generation and self._connected:
                self._ack(item.mid, item.qos)

    def run(self, job: Callable, wait: float = JOB_WAIT_S):
        """Run ``job()`` on the writer thread and return what it returns (or raise what it raised)."""
        task = _Job(job)
        self._inbox.put(task)
        if not task.done.wait(wait):
            raise DirectorError("the hub's writer is busy (see the log): try again in a moment")
        if task.error is not None:
            raise task.error
        return task.value

    # ---- publishing (writer thread) --------------------------------------

    def _publish(self, topic: str, payload: dict, force: bool = False) -> None:
        data = schema.encode(payload)
        if not force and self._published.get(topic) == data:
            return
        self._published[topic] = data
        if self._client is not None and self._announced:  # before, paho would send it on connecting,
            self._client.publish(topic, data, qos=1, retain=True)  # over the pairings of a hub online

    def _publish_pairings(self, force: bool = False) -> None:
        view = self._view
        current = view.rounds[-1] if view.rounds else None
        at = {p.table: list(p.players) for p in current.pairings if p.table} if current else {}
        names = set(at) | set(self.tables()) | {t for t in self._published_tables()}
        for table in sorted(names, key=nights.table_order):
            if schema.name_problem("table", table):
                continue
            self._publish(self.topics.of_table("pairing", table),
                          schema.pairing_payload(table, self.night.name, view.round or 1, at.get(table, [])),
                          force)

    def _published_tables(self) -> list[str]:
        prefix = f"{self.topics.base}/table/"
        return [topic[len(prefix):].rpartition("/")[0] for topic in self._published
                if topic.startswith(prefix) and topic.endswith("/pairing")]

    def _publish_standings(self, force: bool = False) -> None:
        self._publish(self.topics.standings, {"v": schema.VERSION, "night": self.night.name,
                                              "standings": [line.to_dict() for line in self._view.standings]},
                      force)

    def _publish_kept(self, table: str, ledger: str) -> None:
        """The hub's word to ``table`` on ``ledger``, retained: what is durably kept of its games from
        the board's floor on. Sent after every commit that had anything of it, new or not: a board that
        sent again learns the hub has it."""
        first, games = self.ledger.reader().kept(self.settings.club, table, ledger, self._floors.get((table, ledger)),
                                                 schema.KEPT_GAMES)
        self._publish(self.topics.of_table("kept", table), schema.kept_payload(table, ledger, first, games),
                      force=True)

    def _publish_all(self) -> None:
        """Everything retained again (a new connection: the broker may have lost it)."""
        self._announced = True
        self._publish(self.topics.hub, self._presence(True), force=True)
        if self._view.rounds:
            self._publish_pairings(force=True)
        self._publish_standings(force=True)
        for topic, data in list(self._published.items()):
            if topic.endswith("/kept") and self._client is not None:
                self._client.publish(topic, data, qos=1, retain=True)

    # ---- the director's commands (run through :meth:`run`) ----------------

    def add_players(self, names: list[str]) -> list[str]:
        checked = [player_name(name) for name in names]
        added = self._register(checked)
        self._refresh()
        return added

    def remove_player(self, name: str) -> str:
        active = {name_key(each): each for each in self._view.players}
        if name_key(name) not in active:
            raise DirectorError(f"{name} is not a player of this night")
        with self.ledger.write() as w:
            w.add_player(self.night.id, active[name_key(name)], "remove")
        self._refresh()
        return active[name_key(name)]

    def start_night(self) -> int:
        if self._view.rounds:
            raise DirectorError("the night has begun: use next for another round")
        self._auto_start = False
        return self._make_round("start")

    def next_round(self) -> int:
        if not self._view.rounds:
            raise DirectorError("the night has not begun: use start")
        return self._make_round("next")

    def conflicts(self) -> list:
        """What tables sent tonight that was not kept (ledger.hub.ConflictRow), in the order noted."""
        return self.ledger.reader().conflicts(self.night.id)

    def find_game(self, table: str, ref: str):
        """The game ``ref`` (its number, or NUMBER@LEDGER for one of several) at ``table`` tonight."""
        number, _, ledger = ref.partition("@")
        if not number.isdigit():
            raise DirectorError(f"game {ref!r}: give the game's number at table {table} (see rounds)")
        found = [g for g in self._view.games if g.table == table and g.game == int(number)
                 and g.ledger.startswith(ledger)]
        if not found:
            raise DirectorError(f"no game {number} at table {table} tonight (see rounds)")
        if len(found) > 1:
            raise DirectorError(f"table {table} has {len(found)} games {number}: give one as "
                                + " or ".join(f"{number}@{g.ledger[:6]}" for g in found))
        return found[0]

    def correct(self, table: str, ref: str, scores: list[tuple[str, int]], winner: str | None,
                reason: str) -> str:
        game = self.find_game(table, ref)
        if not reason.strip():
            raise DirectorError("a correction needs a reason: reason=\"...\"")
        lowball = game.latest.payload.get("variant") == "low-ball"
        if winner is None:
            ordered = sorted(scores, key=lambda pair: pair[1], reverse=not lowball)
            if len(ordered) > 1 and ordered[0][1] == ordered[1][1]:
                raise DirectorError("two sides have the same score: say who won (winner=NAME)")
            winner = ordered[0][0]
        seats = []
        for side, _ in scores:
            seats += [seat for seat in side.split("+")] if "+" in side else [side]
        try:
            result = nights.GameResult.of([player_name(seat) for seat in seats], scores, winner, lowball)
        except ResultError as error:
            raise DirectorError(str(error)) from None
        with self.ledger.write() as w:
            w.add_correction(self.night.id, game.key, "correct", reason.strip(), result.seats, result.scores,
                             result.winner)
        self._after_correction()
        return f"table {table} game {game.game}: {result.winner} wins " + ", ".join(
            f"{side} {score}" for side, score in result.scores)

    def void(self, table: str, ref: str, reason: str) -> str:
        game = self.find_game(table, ref)
        if not reason.strip():
            raise DirectorError("voiding a game needs a reason: reason=\"...\"")
        with self.ledger.write() as w:
            w.add_correction(self.night.id, game.key, "void", reason.strip())
        self._after_correction()
        return f"table {table} game {game.game} counts for nobody"

    def restore(self, table: str, ref: str, reason: str) -> str:
        game = self.find_game(table, ref)
        if game.correction is None:
            raise DirectorError(f"table {table} game {game.game} has no correction to drop")
        if not reason.strip():
            raise DirectorError("restoring a game needs a reason: reason=\"...\"")
        with self.ledger.write() as w:
            w.add_correction(self.night.id, game.key, "restore", reason.strip())
        self._after_correction()
        return f"table {table} game {game.game} counts as the table sent it"

    def _after_correction(self) -> None:
        self._refresh()
        self._publish_standings()
        self._advance()

    # ---- stopping --------------------------------------------------------

    def stop(self) -> None:
        """Write and acknowledge what is queued, say the hub is gone, disconnect."""
        self._stop.set()
        self._inbox.put(None)
        if self._writer is not None:
            self._writer.join(10)
        client = self._client
        if client is not None:
            if self._connected and self._announced:  # a hub refused as the second says nothing of the first
                info = client.publish(self.topics.hub, schema.encode(self._presence(False)), qos=1, retain=True)
                try:
                    info.wait_for_publish(2)
                except (RuntimeError, ValueError):
                    pass
            client.disconnect()
            client.loop_stop()


def _json(payload: dict | None) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _scores(payload: dict | None) -> str:
    if not payload:
        return "nothing"
    return f"{payload.get('status')} " + ", ".join(f"{side} {score}" for side, score in payload.get("scores", {}).items())


def _credits(game, rules):
    return credits(game.result, rules.skunk, rules.points)


def player_name(name: str) -> str:
    """A player's name by the rule for names (scorer.names); DirectorError if it breaks it."""
    name = normal(name.strip())
    problem = name_problem(name)
    if problem or len(name) > 40:
        raise DirectorError(f"player {name!r}: {problem or 'at most 40 characters'}")
    return name
