"""A board's side of the club: its ledger, published to the club's broker from a thread of its own.

The ledger is the outbox. The board's writer only wakes the link after an entry
is durable (:attr:`ledger.writer.LedgerWriter.on_commit`: it sets an event, so
a press or a ledger write never waits on the network); the link's thread reads
what is new from the ledger (read-only, :mod:`ledger.feed`) and publishes it:

- every game line and entry, QoS 1, on ``.../entry``, named for good by
  (ledger, game, seq);
- each game's result when it changes (finished, abandoned, or its end undone),
  QoS 1, on ``.../result``, the highest ``rev`` standing;
- the live board (``/api/state``'s JSON), retained, on ``.../state``;
- its presence, retained, on ``.../status`` (and a last will saying offline).

What the broker has acknowledged (PUBACK) is kept beside the ledger in
``LEDGER.club`` (the watermark), so a board that was off the network, or
restarted, or lost its power, sends everything after it when it is back: the
broker's persistent session covers what was in flight, the ledger everything
else. A message may be sent twice (QoS 1 is at least once); the hub keeps each
once. It also listens on ``.../pairing`` for the table's next game, which the
OLED shows (:meth:`ClubLink.next_game`).

A club joined mid-way starts with the game on the board if it is still being
played; games finished before the board joined are not the club's.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Callable

from ledger import feed
from ledger.errors import LedgerError
from ledger.reader import LedgerReader

from .. import __version__
from ..config import ClubConfig
from . import schema
from .broker import KEEPALIVE_S, BrokerError, make_client, refusal

WATERMARK_SUFFIX = ".club"
IN_FLIGHT = 20  # QoS 1 messages sent and not yet acknowledged, at most
STATE_EVERY_S = 0.5  # the retained live board is sent at most this often
SAVE_EVERY_S = 1.0  # the watermark is written at most this often (and at close)
CLOSE_WAIT_S = 1.0  # at close: how long to wait for the broker to take "offline"
RETRY_LEDGER_S = 2.0  # a ledger that cannot be read is tried again this often
STATES = ("connecting", "connected", "offline", "refused")


def journal(line: str) -> None:
    print(f"cribbage-board: {line}", file=sys.stderr, flush=True)


class Watermark:
    """What the broker has acknowledged of one ledger, for one club, table and broker:
    the feed up to ``place`` ((game, action): nothing after it is acknowledged) and each
    recent game's last ``results`` ([status, rev]); games before ``floor`` are settled."""

    def __init__(self, key: dict, place: tuple[int, int], floor: int, results: dict[int, list] | None = None):
        self.key, self.place, self.floor = key, place, floor
        self.results: dict[int, list] = dict(results or {})

    @classmethod
    def load(cls, path: Path, key: dict) -> "Watermark | None":
        """The watermark in ``path`` if it is for ``key`` (ledger, club, table, broker); None if
        there is none, it is for another, or it does not read (the club is then joined anew)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("key") != key:
                return None
            place = tuple(int(n) for n in data["place"])
            results = {int(game): [str(s), int(rev)] for game, (s, rev) in data["results"].items()}
            return cls(key, (place[0], place[1]), int(data["floor"]), results)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def save(self, path: Path) -> None:
        """Write it whole (a new file renamed over the old: a power cut leaves one or the other)."""
        text = json.dumps({"key": self.key, "place": list(self.place), "floor": self.floor,
                           "results": {str(game): value for game, value in self.results.items()}})
        spare = path.with_name(path.name + ".new")
        with open(spare, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(spare, path)


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
        self.client_id = f"cribbage-{club.name}-table-{club.table}"
        self.ledger_path = Path(ledger_path)
        self.watermark_path = self.ledger_path.with_name(self.ledger_path.name + WATERMARK_SUFFIX)
        self.log = log
        self.changed = changed or (lambda: None)
        self.state = "connecting"
        self.problem: str | None = None  # why the club is off (refused), for the OLED
        self.pairing: dict | None = None  # the hub's last word on this table's next game
        self.sent = 0  # QoS 1 messages acknowledged since start (entries and results)
        self._client = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._acks: deque[int] = deque()  # acknowledged message ids, from paho's thread
        self._thread: threading.Thread | None = None
        self._reader: LedgerReader | None = None
        self._inode: int | None = None
        self._ledger_failed_at = -RETRY_LEDGER_S
        self._ledger_problem: str | None = None
        self._mark: Watermark | None = None
        self._next: tuple[int, int] | None = None  # the next feed item goes after this place
        self._in_flight: dict[int, tuple] = {}  # mid -> ("item", place) | ("result", game, [status, rev])
        self._unacked: deque[tuple[int, int]] = deque()  # places sent, oldest first
        self._acked_places: set[tuple[int, int]] = set()
        self._pending_results: dict[int, list] = {}  # game -> [status, rev] sent, not yet acknowledged
        self._seq: dict[int, tuple[int, int]] = {}  # game -> (action, its entry number), the last sent
        self._state_version: object = None  # the ledger's data_version when the state was last sent
        self._state_due = False  # the ledger changed since, and the state waits its turn
        self._discovered: int | None = None  # sides of the Home Assistant entities published
        self._state_at = float("-inf")
        self._saved_at = float("-inf")
        self._dirty = False
        self._was_connected = False
        self._said_offline = False
        self._caught_up = threading.Event()  # everything in the ledger is acknowledged

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
        """Send what is left (waiting at most ``flush_s``), say "offline", stop, keep the watermark.
        What is not acknowledged by then stays in the ledger and goes at the next start."""
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
        self._take_acks()
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
        self.state, self.problem = "connected", None
        self._said_offline = False
        self._say_status(self._ledger_problem)
        client.subscribe(self.topics.of_table("pairing"), qos=1)
        self.log(f"club: {'reconnected to' if self._was_connected else 'connected to'} {self.broker} "
                 f"as table {self.table} of {self.club.name}")
        self._was_connected = True
        self._state_version = None  # send the live board again
        self._discovered = None  # and Home Assistant's entities
        self.changed()
        self._wake.set()

    def _on_connect_fail(self, client, userdata) -> None:
        self._offline("cannot reach it")

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

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        self._acks.append(mid)  # paho holds its own lock here: take ours only in our thread
        self._wake.set()

    def _on_message(self, client, userdata, message) -> None:
        where = self.topics.parse(message.topic)
        if where != (self.table, "pairing"):
            return
        try:
            pairing = schema.decode("pairing", self.table, message.payload)
        except schema.PayloadError as error:
            self.log(f"club: a pairing for table {self.table} was ignored: {error}")
            return
        self.pairing = pairing
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
                    if (not self._publish_new() and not self._unacked and not self._pending_results
                            and not self._state_due):
                        self._caught_up.set()
                except LedgerError as error:
                    self._ledger_failed(str(error))
                except (OSError, ValueError, RuntimeError) as error:  # paho's own refusals
                    self.log(f"club: publishing stopped for a moment: {error}")
            self._save()

    def _wait_s(self) -> float:
        """How long to sleep when nothing wakes us: a state or watermark that is due, else a while."""
        now = time.monotonic()
        due = [now + 1.0]
        if self._state_due:
            due.append(self._state_at + STATE_EVERY_S)
        if self._dirty:
            due.append(self._saved_at + SAVE_EVERY_S)
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
        """The table's presence, retained, with what stops it sending if anything does."""
        payload = schema.status_payload(self.table, True, __version__, problem)
        self._client.publish(self.topics.of_table("status"), schema.encode(payload), qos=1, retain=True)

    def _publish_new(self) -> bool:
        """Publish what is new; whether anything was."""
        reader = self._ledger()
        if self._mark is None or self._mark.key["ledger"] != reader.ledger_id():
            self._join(reader)
        if self._ledger_problem is not None:
            self._ledger_problem = None
            self._say_status(None)
        sent = self._publish_items(reader)
        sent = self._publish_results(reader) or sent
        self._publish_state(reader)
        return sent

    def _join(self, reader: LedgerReader) -> None:
        """Take up the watermark of this ledger, or join the club at the game on the board."""
        ledger_id = reader.ledger_id()
        if ledger_id is None:
            raise LedgerError(f"ledger {self.ledger_path} has no id yet (an older board wrote it?)")
        key = {"ledger": ledger_id, "club": self.club.name, "table": self.table, "broker": str(self.broker)}
        mark = Watermark.load(self.watermark_path, key)
        if mark is None:
            mark = Watermark(key, *reader.feed(_joining_place))
            self._dirty = True
        self._mark = mark
        self._next = mark.place
        self._in_flight.clear()
        self._unacked.clear()
        self._acked_places.clear()
        self._pending_results.clear()
        self._seq.clear()

    def _publish_items(self, reader: LedgerReader) -> bool:
        """Game lines and entries after the last sent, while fewer than IN_FLIGHT await their ack."""
        room = IN_FLIGHT - len(self._unacked)
        if room <= 0:
            return True
        items = reader.feed(lambda conn: self._numbered(conn, feed.items_after(conn, self._next, room)))
        ledger = self._mark.key["ledger"]
        for item, seq in items:
            payload = schema.entry_payload(self.table, ledger, item.game, seq, item.line, item.at)
            info = self._client.publish(self.topics.of_table("entry"), schema.encode(payload), qos=1)
            self._in_flight[info.mid] = ("item", item.place)
            self._unacked.append(item.place)
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
        """Each game whose end changed since its last acknowledged result: its result now."""
        mark = self._mark

        def changed_games(conn):  # in one snapshot: each game's row and its lines agree
            statuses, changed = feed.statuses_from(conn, mark.floor), []
            for status in statuses:
                known = self._pending_results.get(status.game) or mark.results.get(status.game)
                wanted = _result_rev(status, known)
                if wanted is not None and wanted != known:
                    changed.append((status, wanted, feed.game_lines(conn, status.game)))
            return statuses, changed

        statuses, changed = reader.feed(changed_games)
        sent = False
        for status, wanted, lines in changed:
            payload = _result(self.table, mark.key["ledger"], status, wanted, lines)
            if payload is None:  # its stored lines no longer replay: nothing can be said of it
                self.log(f"club: game {status.game}'s record no longer replays; its result is not sent")
                mark.results[status.game] = wanted
                self._dirty = True
                continue
            info = self._client.publish(self.topics.of_table("result"), schema.encode(payload), qos=1)
            self._in_flight[info.mid] = ("result", status.game, wanted)
            self._pending_results[status.game] = wanted
            sent = True
        self._settle(statuses)
        return sent

    def _settle(self, statuses: list[feed.GameStatus]) -> None:
        """Move the floor past games whose results can no longer change and were acknowledged."""
        mark = self._mark
        if not statuses:
            return
        newest = statuses[-1].game
        floor = mark.floor
        for status in statuses:
            if status.game >= newest - 1 or status.game in self._pending_results:
                break
            if status.game in mark.results and _result_rev(status, mark.results[status.game]) != mark.results[status.game]:
                break
            floor = status.game + 1
        if floor != mark.floor:
            mark.floor = floor
            mark.results = {game: value for game, value in mark.results.items() if game >= floor}
            self._dirty = True

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
        payload = schema.state_payload(self.table, self._mark.key["ledger"], game, entries,
                                       state_dict(book) if book.game else None)
        sides = len(book.game.sides) if book.game else 0
        if self.club.homeassistant and sides and sides != self._discovered:  # before the state they read
            from .discovery import discovery_messages

            for topic, config in discovery_messages(self.topics, sides, __version__):
                self._client.publish(topic, config, qos=1, retain=True)
            self._discovered = sides
        self._client.publish(self.topics.of_table("state"), schema.encode(payload), qos=1, retain=True)
        self._state_version, self._state_at, self._state_due = version, time.monotonic(), False

    def _take_acks(self) -> None:
        """Mark what the broker acknowledged and move the watermark over it."""
        mark = self._mark
        while self._acks:
            mid = self._acks.popleft()
            sent = self._in_flight.pop(mid, None)
            if sent is None or mark is None:
                continue
            self.sent += 1
            if sent[0] == "item":
                self._acked_places.add(sent[1])
            else:
                _, game, value = sent
                if self._pending_results.get(game) == value:
                    del self._pending_results[game]
                if game >= mark.floor and (game not in mark.results or value[1] >= mark.results[game][1]):
                    mark.results[game] = value
                self._dirty = True
        while self._unacked and self._unacked[0] in self._acked_places:
            place = self._unacked.popleft()
            self._acked_places.discard(place)
            mark.place = place
            self._dirty = True

    def _save(self, force: bool = False) -> None:
        if not self._dirty or self._mark is None:
            return
        if not force and time.monotonic() - self._saved_at < SAVE_EVERY_S:
            return
        try:
            self._mark.save(self.watermark_path)
        except OSError as error:
            self.log(f"club: {self.watermark_path} cannot be written ({error.strerror}): after a restart "
                     "the board sends again what the broker already has (the hub keeps it once)")
        self._dirty = False
        self._saved_at = time.monotonic()


def _joining_place(conn) -> tuple[tuple[int, int], int]:
    """Where a board joining the club starts: before the game on the board if it is still
    being played, else after everything (games finished before joining are not the club's).
    (place, floor)."""
    game, action = feed.last_place(conn)
    if game is None:
        return (0, 0), 1
    status = feed.statuses_from(conn, game)[0]
    if status.status is None and status.outcome is None:  # live: the club gets it from its game line
        before = conn.execute("SELECT max(id) FROM actions WHERE game_id < ?", (game,)).fetchone()[0]
        return (game - 1, before or 0), game
    return (game, action), game + 1


def _result_rev(status: feed.GameStatus, known: list | None) -> list | None:
    """[status, rev] of a game's result as its row says now; None when there is none to send:
    a live game with no result sent before, or one replaced before anything was entered."""
    if status.outcome is not None:
        return ["finished", status.entries]
    if status.status == "abandoned":
        return ["abandoned", status.entries + 1]
    if status.status is None and known is not None and known[0] == "finished":
        return ["open", status.entries]  # its end was undone: the result sent no longer stands
    return None


def _result(table: str, ledger: str, status: feed.GameStatus, wanted: list, lines: list[str]) -> dict | None:
    """The result payload of a game from its stored lines (replayed for the sides and scores)."""
    from scorer.errors import CribbageError
    from scorer.record import replay

    try:
        game = replay([status.header, *lines]).book.game
    except CribbageError:
        return None  # a game whose line no longer reads: nothing can be said of it
    if game is None:
        return None
    scores = {side.name: game.state.scores[i] for i, side in enumerate(game.sides)}
    outcome = game.outcome.to_dict() if wanted[0] == "finished" and game.outcome is not None else None
    if wanted[0] == "finished" and outcome is None:
        return None
    return schema.result_payload(table, ledger, status.game, wanted[1], wanted[0], game.variant.name,
                                 list(game.seats), scores, outcome, status.finished)


def open_link(club: ClubConfig, writer, log: Callable[[str], None] = journal,
              changed: Callable[[], None] | None = None) -> ClubLink | None:
    """The club link of a board, console or simulation whose ledger ``writer`` keeps, started and
    woken by the writer; None when the config has no club, or (said in one line) the link cannot start."""
    if not club.enabled:
        return None
    try:
        link = ClubLink(club, writer.path, log=log, changed=changed).start()
    except (BrokerError, OSError) as error:
        log(f"club: {error}; playing on without the club")
        return None
    writer.on_commit = link.wake
    return link
