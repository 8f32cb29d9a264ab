"""A board's side of the club: its ledger, published to the club's broker from a thread of its own.

The ledger is the outbox. The board's writer only wakes the link after an entry
is durable (:attr:`ledger.writer.LedgerWriter.on_commit`: it sets an event, so
a press or a ledger write never waits on the network); the link's thread reads
what is new of the club's games from the ledger (read-only, :mod:`ledger.feed`)
and publishes it:

- every game line and entry, QoS 1, on ``.../entry``, named for good by
  (ledger, game, seq);
- each game's result when it changes (finished, abandoned, or its end undone),
  QoS 1, on ``.../result``, the highest ``rev`` standing;
- the live board (``/api/state``'s JSON), retained, on ``.../state``;
- its presence, retained, on ``.../status`` (and a last will saying offline),
  with its ledger's id and its floor: the first game it still needs the hub's word on.

The club's games are those the ledger marks as played for this club and table
(:meth:`ledger.writer.LedgerWriter.join_club`, called by :func:`open_link` before
anything else): every game begun while ``[club]`` names them, whether the broker
could be reached or not, and the game on the board when the board joined, if it
was still being played.

**End to end.** The broker's PUBACK only paces the sending. What the board may
forget is what the hub says it has durably kept: its ``.../kept`` (retained,
after each commit). That word alone moves the watermark kept beside the ledger
(``LEDGER.club``, written durably), and it never moves back. The board sends
again from the hub's word after each (re)connection while the hub is online,
and whenever the hub, online, has confirmed nothing new of what was sent for
:data:`RESEND_S` (then 2x, up to :data:`RESEND_MAX_S`): a broker that crashed,
lost its power or was replaced by an empty one costs a resend, never a game.
While no hub is online the board sends everything once and waits; the broker
queues it for the hub's persistent session. A board without its watermark asks
the hub (its retained word comes with the subscription) before it sends; without
an answer, it sends every game of the club's. A message may reach the hub more
than once; the hub keeps each once.

It also listens on ``.../pairing`` for the table's next game, which the OLED
shows (:meth:`ClubLink.next_game`), and on ``cribbage/<club>/hub`` for the hub's presence.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ledger import feed
from ledger.errors import LedgerError
from ledger.reader import LedgerReader

from .. import __version__
from ..config import ClubConfig
from ..journal import journal
from . import schema
from .broker import KEEPALIVE_S, BrokerError, make_client, refusal, tls_failure
from .outbox import WATERMARK_SUFFIX, Watermark, result_payload_of, result_rev

if TYPE_CHECKING:  # annotations only: paho is imported when the link starts
    from paho.mqtt.client import Client, MQTTMessageInfo

IN_FLIGHT = 20  # QoS 1 messages sent and not yet acknowledged by the broker, at most
STATE_EVERY_S = 0.5  # the retained live board is sent at most this often
SAVE_EVERY_S = 1.0  # the watermark is written at most this often (and at close)
CLOSE_WAIT_S = 1.0  # at close: how long to wait for the broker to take "offline"
RETRY_LEDGER_S = 2.0  # a ledger that cannot be read is tried again this often
HUB_WAIT_S = 2.0  # after connecting: the longest wait for the hub's presence (and, asking, its word)
RESEND_S = 5.0  # the hub online and its word behind what was sent this long: send again from it
RESEND_MAX_S = 60.0  # ... doubling each time nothing came of it, up to this
STATES = ("connecting", "connected", "offline", "refused")


class ClubLink:
    """One board in one club: call :meth:`start`, give :meth:`wake` to the ledger's writer
    (``writer.on_commit = link.wake``), read :meth:`connection` and :meth:`next_game` for the OLED, :meth:`close` at the end.

    ``changed`` is called (from the link's thread) when what the OLED shows of the club
    changes; ``log`` takes one line for the journal.
    """

    def __init__(self, club: ClubConfig, ledger_path: str | os.PathLike,
                 log: Callable[[str], None] = journal, changed: Callable[[], None] | None = None):
        self.club = club
        self.broker = club.address()
        self.topics = schema.Topics(club.name, club.table)
        self.table = club.table
        self.games_of = (club.name, club.table)  # the ledger's mark of the club's games (ledger.feed)
        self.client_id = f"cribbage-{club.name}-table-{club.table}"
        self.ledger_path = Path(ledger_path)
        self.watermark_path = self.ledger_path.with_name(self.ledger_path.name + WATERMARK_SUFFIX)
        self.log = log
        self.changed = changed or (lambda: None)
        self.state = "connecting"
        self.problem: str | None = None  # why the club is off (refused), for the OLED
        self.pairing: dict | None = None  # the hub's last word on this table's next game
        self.sent = 0  # QoS 1 messages the broker acknowledged since start (entries and results)
        self.resends = 0  # times the board sent again from the hub's word
        self._client: Client | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._acks: deque[int] = deque()  # message ids the broker acknowledged, from paho's thread
        self._words: deque[dict] = deque()  # the hub's "kept" payloads, from paho's thread
        self._hub_online: bool | None = None  # the hub's presence (None: not heard since connecting)
        self._connections = 0  # connections made (paho's thread); _handled: the last our thread took up
        self._handled = 0
        self._connected_at = 0.0
        self._last_subscription: int | None = None  # its SUBACK: every retained message before it is here
        self._heard = False  # that SUBACK came: the hub's retained presence and word, if any, are in
        self._thread: threading.Thread | None = None
        self._reader: LedgerReader | None = None
        self._inode: int | None = None
        self._ledger_failed_at = -RETRY_LEDGER_S
        self._ledger_problem: str | None = None
        self._mark: Watermark | None = None
        self._asking = False  # no watermark: the hub's word is asked for before sending
        self._resend_due = False  # a new connection: send again from the hub's word, if a hub is online
        self._status_due = False  # the table's status (ledger, floor) is to be said
        self._next: tuple[int, int] = (0, 0)  # the next feed item goes after this place
        self._in_flight: set[int] = set()  # message ids sent, not yet acknowledged by the broker
        self._pending_results: dict[int, list] = {}  # game -> [status, rev] sent, not yet in the hub's word
        self._seq: dict[int, tuple[int, int]] = {}  # game -> (action, its entry number), the last sent
        self._progress_at = 0.0  # when the hub's word last moved (or nothing was owed)
        self._resend_after = RESEND_S
        self._state_version: object = None  # the ledger's data_version when the state was last sent
        self._state_due = False  # the ledger changed since, and the state waits its turn
        self._discovered: tuple[str, ...] | None = None  # the sides' names of Home Assistant's entities published
        self._state_at = float("-inf")
        self._saved_at = float("-inf")
        self._dirty = False
        self._was_connected = False
        self._said_offline = False
        self._caught_up = threading.Event()  # everything in the ledger sent (and kept, if a hub is online)

    # ---- starting and stopping --------------------------------------------

    def start(self) -> "ClubLink":
        """Connect (in paho's thread, retrying with back-off) and start publishing. Raises
        BrokerError, in one line, if the client cannot even be made (a CA file that does not read)."""
        client = make_client(self.broker, self.client_id)
        offline = schema.status_payload(self.table, False, __version__)
        client.will_set(self.topics.of_table("status"), schema.encode(offline), qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        self._client = client
        client.connect_async(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S)
        client.loop_start()
        self._thread = threading.Thread(target=self._run, name="club-link", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Something new is in the ledger (the writer's on_commit: it only sets an event)."""
        self._wake.set()

    def close(self, flush_s: float = CLOSE_WAIT_S) -> None:
        """Send what is left (waiting at most ``flush_s`` for the broker, and for the hub's word if a
        hub is online), say "offline", stop, keep the watermark. What the hub has not confirmed by
        then stays in the ledger and goes again at the next start."""
        deadline = time.monotonic() + flush_s
        while self.state == "connecting" and time.monotonic() < deadline:
            time.sleep(0.02)  # a console's few lines are written before the broker has answered
        if self.state == "connected":
            self._caught_up.clear()
            self._wake.set()
            self._caught_up.wait(max(0.0, deadline - time.monotonic()))
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        client = self._client
        if client is not None:
            if self.state == "connected":
                try:
                    info = client.publish(self.topics.of_table("status"), schema.encode(
                        schema.status_payload(self.table, False, __version__)), qos=1, retain=True)
                    info.wait_for_publish(max(0.1, deadline - time.monotonic()))
                except (RuntimeError, ValueError, OSError):
                    pass
            client.disconnect()
            client.loop_stop()
        self._save(force=True)
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def __enter__(self) -> "ClubLink":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- what the board shows ---------------------------------------------

    def connection(self) -> str:
        """The club connection in a few words, for the OLED's status line."""
        if self.state == "refused":
            return "no club"
        if self.state != "connected":
            return "club off" if self._was_connected or self.state == "offline" else "club..."
        return "club ok"

    def next_game(self) -> str:
        """The table's pairing from the hub ("R4: Ann v Bob", "R4: table free"), or why there
        is no club ("club: login refused": the journal says more); "" when there is nothing to say."""
        if self.state == "refused":
            return "club: login refused"
        pairing = self.pairing
        if not pairing:
            return ""
        players = pairing["players"]
        return f"R{pairing['round']}: " + (" v ".join(players) if players else "table free")

    @property
    def watermark(self) -> Watermark | None:
        """The hub's word as the board keeps it (None before the ledger is read)."""
        return self._mark

    # ---- paho's thread: note what happened, wake ours -----------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            said, for_good = refusal(reason_code)
            if for_good:
                self.state, self.problem = "refused", said
                self.log(f"club: {self.broker} refused table {self.table}: {said}; playing on without "
                         "the club (check [club] username and password)")
                client.disconnect()  # paho stops retrying; the loop thread ends at close()
            else:
                self._offline(said)
            self.changed()
            return
        self._hub_online = None
        self._heard = False
        self._connected_at = time.monotonic()
        self._connections += 1
        self.state, self.problem = "connected", None
        self._said_offline = False
        # The broker answers subscriptions in order, each SUBACK followed by its retained messages:
        # by the last SUBACK, the hub's presence and word (retained) have come, if there are any.
        for topic in (self.topics.hub, self.topics.of_table("kept"), self.topics.of_table("pairing")):
            _, self._last_subscription = client.subscribe(topic, qos=1)
        self.log(f"club: {'reconnected to' if self._was_connected else 'connected to'} {self.broker} "
                 f"as table {self.table} of {self.club.name}")
        self._was_connected = True
        self._state_version = None  # send the live board again
        self._discovered = None  # and Home Assistant's entities
        self.changed()
        self._wake.set()

    def _on_connect_fail(self, client, userdata) -> None:
        failure = tls_failure(client)
        self._offline(f"is not trusted ({failure})" if failure else "cannot reach it")

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self.state == "refused" or self._stop.is_set():
            return
        self._offline(str(reason_code) if reason_code.is_failure else "disconnected")

    def _offline(self, why: str) -> None:
        if not self._said_offline:
            self._said_offline = True
            self.log(f"club: {self.broker} {why}; the board keeps every entry and sends it when the "
                     "broker is back")
        self.state = "offline"
        self.changed()

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        if mid == self._last_subscription:
            self._heard = True
            self._wake.set()

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        self._acks.append(mid)  # paho holds its own lock here: take ours only in our thread
        self._wake.set()

    def _on_message(self, client, userdata, message) -> None:
        if message.topic == self.topics.hub:
            try:
                self._hub_online = bool(message.payload) and schema.decode("hub", "", message.payload)["online"]
            except schema.PayloadError as error:
                self.log(f"club: the hub's presence was ignored: {error}")
                return
            self._wake.set()
            return
        where = self.topics.parse(message.topic)
        if where is None or where[0] != self.table or where[1] not in ("pairing", "kept") or not message.payload:
            return
        try:
            payload = schema.decode(where[1], self.table, message.payload)
        except schema.PayloadError as error:
            self.log(f"club: a {where[1]} for table {self.table} was ignored: {error}")
            return
        if where[1] == "kept":
            self._words.append(payload)
            self._wake.set()
            return
        self.pairing = payload
        self.changed()

    # ---- our thread: read the ledger, publish, keep the watermark ------------

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._wait_s())
            self._wake.clear()
            if self._stop.is_set():
                break
            self._take_acks()
            if self.state == "connected":
                try:
                    self._step()
                except LedgerError as error:
                    self._ledger_failed(str(error))
                except (OSError, ValueError, RuntimeError) as error:  # paho's own refusals
                    self.log(f"club: publishing stopped for a moment: {error}")
            self._save()

    def _step(self) -> None:
        """One look: take up a new connection and the hub's word, then send what is due."""
        reader = self._ledger()
        if self._mark is None or self._mark.key["ledger"] != reader.ledger_id():
            self._join(reader)
        if self._handled != self._connections:  # a new connection: paho sends again what it had in flight
            self._handled = self._connections
            self._in_flight.clear()
            self._resend_due = self._status_due = True
        if self._ledger_problem is not None:
            self._ledger_problem = None
            self._status_due = True
        while self._words:
            self._take_word(reader, self._words.popleft())
        if self._waiting():
            return
        if self._status_due:
            self._say_status(None)
        self._resend_if_lagging()
        sent = self._publish_items(reader)
        sent = self._publish_results(reader) or sent
        self._publish_state(reader)
        if not sent and not self._in_flight and not self._state_due and not (self._hub_online and self._lagging()):
            self._caught_up.set()

    def _waiting(self) -> bool:
        """Whether sending waits, just after connecting, for the hub's presence (and, with no
        watermark, its word); at most HUB_WAIT_S. Then a resend, if one is due and a hub is online."""
        early = not self._heard and time.monotonic() < self._connected_at + HUB_WAIT_S
        if self._hub_online is None:
            if early:
                return True
            self._hub_online = False  # no hub has been on this broker
        if self._asking:
            if self._hub_online and early:
                return True
            self._asking = False
            self.log("club: the hub has not said what it has of this board's games: sending every game "
                     "of the club's (the hub keeps each once)")
        if self._resend_due:
            self._resend_due = False
            if self._hub_online and self._lagging():
                self._resend("connected again")
        return False

    def _wait_s(self) -> float:
        """How long to sleep when nothing wakes us: a state, watermark, wait or resend that is due, else a
        while. What only a connection can send (a state, a resend) counts only while it can be sent: the
        broker away, or the ledger unreadable, the thread looks once a second, it does not spin."""
        now = time.monotonic()
        due = [now + 1.0]
        if self._dirty:
            due.append(self._saved_at + SAVE_EVERY_S)
        if self.state == "connected" and self._ledger_problem is None:
            if not self._heard and now < self._connected_at + HUB_WAIT_S:
                due.append(self._connected_at + HUB_WAIT_S)
            elif self._state_due:
                due.append(self._state_at + STATE_EVERY_S)
            if self._hub_online and self._mark is not None and self._lagging():
                due.append(max(self._progress_at + self._resend_after, self._connected_at + HUB_WAIT_S))
        return max(0.01, min(due) - now)

    def _ledger(self) -> LedgerReader:
        """The reader, reopened when the file at the ledger's path is another (set aside and begun again)."""
        try:
            inode = os.stat(self.ledger_path).st_ino
        except OSError as error:
            raise LedgerError(f"ledger {self.ledger_path} cannot be read: {error.strerror}") from None
        if self._reader is not None and inode != self._inode:
            self._reader.close()
            self._reader = None
        if self._reader is None:
            if time.monotonic() - self._ledger_failed_at < RETRY_LEDGER_S:
                raise LedgerError(self._ledger_problem or "the ledger cannot be read")
            self._reader, self._inode = LedgerReader(self.ledger_path), inode
        return self._reader

    def _ledger_failed(self, problem: str) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if problem != self._ledger_problem:
            self.log(f"club: {problem}; sending waits until it reads")
            self._ledger_problem = problem
            self._say_status(problem)  # the hub shows it beside the table
        self._ledger_failed_at = time.monotonic()

    def _say_status(self, problem: str | None) -> None:
        """The table's presence, retained, with its ledger and floor, and what stops it sending if anything does."""
        mark = self._mark if problem is None else None
        payload = schema.status_payload(self.table, True, __version__, problem,
                                        mark.key["ledger"] if mark else None, mark.floor if mark else None)
        self._publish(self.topics.of_table("status"), schema.encode(payload), retain=True)
        self._status_due = False

    def _join(self, reader: LedgerReader) -> None:
        """Take up the watermark of this ledger, or (none, or it does not read) ask the hub."""
        ledger_id = reader.ledger_id()
        if ledger_id is None:
            raise LedgerError(f"ledger {self.ledger_path} has no id yet (an older board wrote it?)")
        key = {"ledger": ledger_id, "club": self.club.name, "table": self.table}
        mark, why = Watermark.load(self.watermark_path, key)
        self._asking = mark is None
        if mark is None:
            mark = Watermark(key)  # every game of the club's, until the hub says what it has
            self._dirty = True
            if why:
                self.log(f"club: {why}: asking the hub what it has of this board's games")
        self._mark = mark
        self._next = mark.place
        self._pending_results.clear()
        self._seq.clear()
        self._status_due = True
        self._progress_at = time.monotonic()

    @property
    def _joined(self) -> Watermark:
        """The watermark :meth:`_join` took up (what follows it runs only once it has)."""
        if self._mark is None:
            raise RuntimeError("the club link has no watermark before it joins its ledger")
        return self._mark

    # ---- the hub's word ----------------------------------------------------

    def _take_word(self, reader: LedgerReader, word: dict) -> None:
        """Move the watermark over what the hub says it has kept of this ledger (never back)."""
        mark = self._joined
        if word["ledger"] != mark.key["ledger"]:
            return  # another board's at this table
        games = {game: (seq, rev, status) for game, seq, rev, status in word["games"]}
        moved = False
        if self._asking:  # games before its "from" were settled by this board before it lost its watermark
            self._asking = False
            if word["from"] > mark.floor:
                mark.floor = word["from"]
                mark.place = max(mark.place, reader.feed(lambda conn: feed.before(conn, mark.floor)))
                self._next = max(self._next, mark.place)
            moved = True
        for game, (_seq, rev, status) in games.items():
            if rev is None or game < mark.floor:
                continue
            known = mark.results.get(game)
            if known is None or rev > known[1]:
                mark.results[game] = [status, rev]
                moved = True
            if self._pending_results.get(game) == mark.results[game]:
                del self._pending_results[game]

        def kept_through(conn) -> tuple[int, int]:
            place = mark.place
            for status in feed.statuses_from(conn, mark.floor, self.games_of):
                seq = games.get(status.game, (-1,))[0]
                if seq >= status.entries:  # its line and every entry
                    place = max(place, status.end)
                    continue
                if seq >= 0:
                    place = max(place, feed.place_of(conn, status.game, seq))
                break
            return place

        place = reader.feed(kept_through)
        if place > mark.place:
            mark.place = place
            moved = True
        if moved:
            self._dirty = True
            self._progress_at = time.monotonic()
            self._resend_after = RESEND_S
            self._settle(reader)

    def _settle(self, reader: LedgerReader) -> None:
        """Move the floor past games the hub has whole, whose result it has as it stands, and which
        can no longer change (all but the two newest)."""
        mark = self._joined

        def settled(conn) -> int:
            newest, _ = feed.last_place(conn)
            floor = mark.floor
            if newest is None:
                return floor  # no game yet
            for status in feed.statuses_from(conn, mark.floor, self.games_of):
                known = mark.results.get(status.game)
                wanted = result_rev(status, known)
                if status.game >= newest - 1 or mark.place < status.end or (wanted is not None and wanted != known):
                    break
                floor = status.game + 1
            return floor

        floor = reader.feed(settled)
        if floor != mark.floor:
            mark.floor = floor
            mark.results = {game: value for game, value in mark.results.items() if game >= floor}
            self._dirty = self._status_due = True  # the hub lists games from the new floor on

    def _lagging(self) -> bool:
        """Whether something sent is not yet in the hub's word."""
        return self._next > self._joined.place or bool(self._pending_results)

    def _resend_if_lagging(self) -> None:
        now = time.monotonic()
        if not self._hub_online or not self._lagging():
            self._progress_at = now  # nothing owed, or nobody to owe it: the wait begins when there is
            return
        if now - self._progress_at >= self._resend_after:
            self._resend(f"the hub has confirmed nothing more for {self._resend_after:g} s")
            self._resend_after = min(self._resend_after * 2, RESEND_MAX_S)

    def _resend(self, why: str) -> None:
        """Send again everything after the hub's word."""
        self.resends += 1
        self.log(f"club: sending again from what the hub has kept ({why})")
        self._next = self._joined.place
        self._pending_results.clear()
        self._seq.clear()
        self._progress_at = time.monotonic()

    # ---- sending -------------------------------------------------------------

    def _publish(self, topic: str, payload: bytes, retain: bool = False) -> MQTTMessageInfo:
        """``payload`` to ``topic`` at QoS 1, through the client :meth:`start` made."""
        if self._client is None:
            raise RuntimeError("the club link publishes nothing before it starts")
        return self._client.publish(topic, payload, qos=1, retain=retain)

    def _publish_items(self, reader: LedgerReader) -> bool:
        """The club's game lines and entries after the last sent, while fewer than IN_FLIGHT await
        the broker's acknowledgement; whether any was sent."""
        room = IN_FLIGHT - len(self._in_flight)
        if room <= 0:
            return True
        items = reader.feed(lambda conn: self._numbered(
            conn, feed.items_after(conn, self._next, room, self.games_of)))
        ledger = self._joined.key["ledger"]
        for item, seq in items:
            payload = schema.entry_payload(self.table, ledger, item.game, seq, item.line, item.at)
            info = self._publish(self.topics.of_table("entry"), schema.encode(payload))
            self._in_flight.add(info.mid)
            self._next = item.place
        return bool(items)

    def _numbered(self, conn, items: list[feed.FeedItem]) -> list[tuple[feed.FeedItem, int]]:
        """Each item with its seq: 0 for a game line, else which entry of its game it is."""
        numbered = []
        for item in items:
            if item.action == 0:
                seq = 0
            else:
                last = self._seq.get(item.game)
                seq = last[1] + 1 if last else feed.entry_number(conn, item.game, item.action)
            self._seq[item.game] = (item.action, seq)
            numbered.append((item, seq))
        for game in [g for g in self._seq if g < (items[-1].game if items else 0)]:
            del self._seq[game]  # an older game gets no more entries
        return numbered

    def _publish_results(self, reader: LedgerReader) -> bool:
        """Each game whose end changed since the result the hub has (or was last sent): its result now."""
        mark = self._joined

        def changed_games(conn):  # in one snapshot: each game's row and its lines agree
            changed = []
            for status in feed.statuses_from(conn, mark.floor, self.games_of):
                known = self._pending_results.get(status.game) or mark.results.get(status.game)
                wanted = result_rev(status, known)
                if wanted is not None and wanted != known:
                    changed.append((status, wanted, feed.game_lines(conn, status.game)))
            return changed

        sent = False
        for status, wanted, lines in reader.feed(changed_games):
            payload = result_payload_of(self.table, mark.key["ledger"], status, wanted, lines)
            if payload is None:  # its stored lines no longer replay: nothing can be said of it
                self.log(f"club: game {status.game}'s record no longer replays; its result is not sent")
                mark.results[status.game] = wanted
                self._dirty = True
                continue
            info = self._publish(self.topics.of_table("result"), schema.encode(payload))
            self._in_flight.add(info.mid)
            self._pending_results[status.game] = wanted
            sent = True
        return sent

    def _publish_state(self, reader: LedgerReader) -> None:
        """The live board, retained, when the ledger changed (at most every STATE_EVERY_S)."""
        version = reader.data_version()
        if version == self._state_version:
            return
        if time.monotonic() - self._state_at < STATE_EVERY_S:
            self._state_due = True  # _wait_s wakes us when its turn comes
            return
        from scorer.report import state_dict

        book = reader.book
        game, _ = reader.feed(feed.last_place)
        entries = len(book.game.history) if book.game else 0
        payload = schema.state_payload(self.table, self._joined.key["ledger"], game, entries,
                                       state_dict(book) if book.game else None)
        names = tuple(side.name for side in book.game.sides) if book.game else ()
        if self.club.homeassistant and names and names != self._discovered:  # before the state they read
            from .discovery import discovery_messages

            for topic, config in discovery_messages(self.topics, names, __version__):
                self._publish(topic, config, retain=True)
            self._discovered = names
        self._publish(self.topics.of_table("state"), schema.encode(payload), retain=True)
        self._state_version, self._state_at, self._state_due = version, time.monotonic(), False

    def _take_acks(self) -> None:
        """The broker's acknowledgements: room to send more (they move no watermark)."""
        while self._acks:
            mid = self._acks.popleft()
            if mid in self._in_flight:
                self._in_flight.discard(mid)
                self.sent += 1

    def _save(self, force: bool = False) -> None:
        if not self._dirty or self._mark is None:
            return
        if not force and time.monotonic() - self._saved_at < SAVE_EVERY_S:
            return
        try:
            self._mark.save(self.watermark_path)
        except OSError as error:
            self.log(f"club: {self.watermark_path} cannot be written ({error.strerror}): after a restart "
                     "the board asks the hub what it has")
        self._dirty = False
        self._saved_at = time.monotonic()


def open_link(club: ClubConfig, writer, log: Callable[[str], None] = journal,
              changed: Callable[[], None] | None = None) -> ClubLink | None:
    """The club link of a board, console or simulation whose ledger ``writer`` keeps, started and
    woken by the writer; None when the config has no club, or (said in one line) the link cannot start."""
    if not club.enabled:
        return None
    try:
        writer.join_club(club.name, club.table)  # the club's games, whether the broker answers or not
    except LedgerError as error:
        log(f"club: {error}; playing on without the club")
        return None
    try:
        link = ClubLink(club, writer.path, log=log, changed=changed).start()
    except (BrokerError, OSError) as error:
        hint = ""
        if isinstance(error, OSError) and os.environ.get("INVOCATION_ID"):  # under systemd: its unit's network
            hint = (" (the service may reach no network: sudo /opt/cribbage-board/venv/bin/cribbage-board "
                    "club-network, then sudo systemctl daemon-reload && sudo systemctl restart cribbage-board)")
        log(f"club: {error}; playing on without the club{hint}")
        return None
    writer.on_commit = link.wake
    return link
