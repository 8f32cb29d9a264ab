"""What a board sends the club of its ledger, and when: the outbox of its club link.

:class:`Outbox` decides what goes; the hub's word on what it kept moves the :class:`Watermark`
and :class:`ResendPolicy` says when to send again. The outbox reads the ledger through a reader it
is handed and sends through a function it is given: it knows no broker and runs no thread
(:mod:`.link` is the paho side).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ledger import feed
from ledger.errors import LedgerError
from ledger.files import replace_durably
from ledger.reader import LedgerReader

from ... import __version__
from ...wire import schema

if TYPE_CHECKING:
    from ...config import ClubConfig

WATERMARK_SUFFIX = ".club"
WATERMARK_VERSION = 2  # another version is not taken up: the hub is asked (docs/decisions.md)
IN_FLIGHT = 20  # QoS 1 messages sent and not yet acknowledged by the broker, at most
STATE_EVERY_S = 0.5  # the retained live board is sent at most this often
SAVE_EVERY_S = 1.0  # the watermark is written at most this often (and at close)
RESEND_S = 5.0  # the hub online and its word behind what was sent this long: send again from it
RESEND_MAX_S = 60.0  # RESEND_S doubles each time nothing came of it, up to this

Send = Callable[[str, bytes, bool], int]  # (topic, payload, retained) sent at QoS 1 -> its message id
Key = dict[str, str]  # a watermark's ledger, club and table
Result = list[Any]  # a game's result as the hub keeps it: [status, rev]


class Watermark:
    """The hub's word on one ledger for one club and table (``key``), as the board keeps it: every
    item of the club's games up to ``place`` ((game, action)) is in the hub's ledger; games before
    ``first_open_game`` are settled (the file and the board's ``status`` call it ``floor``);
    ``results`` is each later game's result as the hub keeps it ([status, rev])."""

    def __init__(self, key: Key, place: tuple[int, int] = (0, 0), first_open_game: int = 1,
                 results: dict[int, Result] | None = None):
        game, action = place
        self.key, self.place, self.first_open_game = key, (game, action), first_open_game
        self.results: dict[int, Result] = dict(results or {})

    @classmethod
    def load(cls, path: Path, key: Key) -> "tuple[Watermark | None, str | None]":
        """(the watermark in ``path``, None) if it is for ``key`` (ledger, club, table); else (None,
        why not), the why None when there is no file yet."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None, None
        except (OSError, ValueError) as error:
            return None, f"{path} cannot be read ({getattr(error, 'strerror', None) or error})"
        try:
            if data.get("v") != WATERMARK_VERSION:
                return None, f"{path} is from an older cribbage-board"
            if data.get("key") != key:
                return None, f"{path} is for another ledger, club or table"
            place = tuple(int(n) for n in data["place"])
            results = {int(game): [str(s), int(rev)] for game, (s, rev) in data["results"].items()}
            return cls(key, (place[0], place[1]), int(data["floor"]), results), None
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            return None, f"{path} does not read as a watermark"

    def save(self, path: Path) -> None:
        """Write it whole and durably (ledger.files: a power cut leaves the old one or this one)."""
        text = json.dumps({"v": WATERMARK_VERSION, "key": self.key, "place": list(self.place),
                           "floor": self.first_open_game,  # the file's key for it, as boards in the field write it
                           "results": {str(game): value for game, value in self.results.items()}})
        replace_durably(path, text.encode("utf-8"))


def result_rev(status: feed.GameStatus, known: Result | None) -> Result | None:
    """[status, rev] of a game's result as its row says now; None when there is none to send:
    a live game with no result sent before, or one replaced before anything was entered."""
    if status.outcome is not None:
        return ["finished", status.entries]
    if status.status == "abandoned":
        return ["abandoned", status.entries + 1]
    if status.status is None and known is not None and known[0] == "finished":
        return ["open", status.entries]  # its end was undone: the result sent no longer stands
    return None


def result_payload_of(table: str, ledger: str, status: feed.GameStatus, wanted: Result,
                      lines: list[str]) -> dict[str, Any] | None:
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
    rule = {"target": game.variant.target, "skunk_lines": game.options.skunk.value,
            "points": game.options.points.spec()}
    return schema.result_payload(table, ledger, status.game, wanted[1], wanted[0], game.variant.name,
                                 list(game.seats), scores, outcome, status.finished, rule)


class ResendPolicy:
    """When a board sends again from the hub's word: after a new connection (:attr:`after_connecting`),
    and whenever the hub, online, has confirmed nothing new of what was sent for RESEND_S, then twice
    as long each time nothing came of it, up to RESEND_MAX_S. ``clock`` tells the time.

    >>> now = [0.0]
    >>> policy = ResendPolicy(lambda: now[0])
    >>> now[0] = RESEND_S
    >>> policy.why(owed=True)
    'the hub has confirmed nothing more for 5 s'
    >>> policy.sent_again(); now[0] += RESEND_S
    >>> policy.why(owed=True) is None, policy.due_at() == now[0] + RESEND_S
    (True, True)
    """

    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self.count = 0  # times the board sent again
        self.after_connecting = False  # a new connection: send again if a hub is online and behind
        self._progress_at = clock()  # when the hub's word last moved, or nothing was owed
        self._after = RESEND_S

    def progress(self) -> None:
        """The hub's word moved: the wait begins again, at RESEND_S."""
        self._progress_at = self.clock()
        self._after = RESEND_S

    def due_at(self) -> float:
        """When the hub's word, still behind, makes a resend due."""
        return self._progress_at + self._after

    def why(self, owed: bool) -> str | None:
        """Why to send again now, None if not: ``owed``, something sent is not in the hub's word (an
        online hub's). Not owed, the wait begins when something is; when it is due, the next is twice as long."""
        now = self.clock()
        if not owed:
            self._progress_at = now
            return None
        if now - self._progress_at < self._after:
            return None
        why = f"the hub has confirmed nothing more for {self._after:g} s"
        self._after = min(self._after * 2, RESEND_MAX_S)
        return why

    def sent_again(self) -> None:
        """Everything after the hub's word was sent again: the wait begins now."""
        self.count += 1
        self._progress_at = self.clock()


class Outbox:
    """What one table (``club``: its name, table and Home Assistant setting) sends of the ledger
    whose watermark lives at ``watermark_path``, through ``send``; ``log`` takes one line for the
    journal, ``clock`` tells the time (monotonic seconds).

    The board's link calls :meth:`join` with a reader of the ledger before anything else,
    :meth:`reconnected` at each new connection, :meth:`hub_kept` with each ``kept`` message of the hub,
    :meth:`acknowledged` with each id the broker acknowledged, :meth:`waits` then :meth:`send`
    to send what is due, and :meth:`save` to keep the watermark.

    :class:`Outbox` reads what is new of the club's games in the ledger (:mod:`ledger.feed`)
    and sends:

    - every game line and entry, QoS 1, on ``.../entry``, named for good by
      (ledger, game, seq);
    - each game's result when it changes (finished, abandoned, or its end undone),
      QoS 1, on ``.../result``, the highest ``rev`` standing;
    - the live board (``/api/state``'s JSON), retained, on ``.../state``;
    - its presence, retained, on ``.../status``, with its ledger's id and the first game
      it still needs the hub's word on (:attr:`Watermark.first_open_game`, ``floor`` there).

    **End to end.** The broker's PUBACK only paces the sending. What the board may
    forget is what the hub says it has durably kept: its ``.../kept`` (retained,
    after each commit). That word alone moves the :class:`Watermark` kept beside the
    ledger (``LEDGER.club``, written durably), and it never moves back. The board sends
    again from the hub's word after each (re)connection while the hub is online, and
    whenever the hub, online, has confirmed nothing new of what was sent for a while
    (:class:`ResendPolicy`): a broker that crashed, lost its power or was replaced by an
    empty one costs a resend, never a game. While no hub is online the board sends
    everything once and waits; the broker queues it for the hub's persistent session.
    A board without its watermark asks the hub (its retained word comes with the
    subscription) before it sends; without an answer, it sends every game of the
    club's. A message may reach the hub more than once; the hub keeps each once.
    """

    def __init__(self, club: ClubConfig, watermark_path: Path, send: Send, log: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic):
        self.club = club
        self.topics = schema.Topics(club.name, club.table)
        self.games_of = (club.name, club.table)  # the ledger's mark of the club's games (ledger.feed)
        self.watermark_path = watermark_path
        self._send = send
        self.log = log
        self.clock = clock
        self.sent = 0  # QoS 1 messages the broker acknowledged (entries and results)
        self.resends = ResendPolicy(clock)
        self.status_due = False  # the table's status (its ledger, its first open game) is to be said
        self._mark: Watermark | None = None
        self._asking = False  # no watermark: the hub's word is asked for before sending
        self._next: tuple[int, int] = (0, 0)  # the next feed item goes after this place
        self._in_flight: set[int] = set()  # message ids sent, not yet acknowledged by the broker
        self._pending_results: dict[int, Result] = {}  # game -> [status, rev] sent, not yet in the hub's word
        self._seq: dict[int, tuple[int, int]] = {}  # game -> (action, its entry number), the last sent
        self._state_version: object = None  # the ledger's data_version when the state was last sent
        self._state_due = False  # the ledger changed since, and the state waits its turn
        self._state_at = float("-inf")
        self._discovered: tuple[str, ...] | None = None  # the sides' names of Home Assistant's entities published
        self._saved_at = float("-inf")
        self._dirty = False
        self.refusals: deque[str] = deque()  # what the hub refused, for the OLED: taken by the board's loop
        self._told: set[tuple[int, str, int]] = set()  # (game, kind, number) refusals said since the start

    @property
    def watermark(self) -> Watermark | None:
        """The hub's word as the board keeps it (None before :meth:`join`)."""
        return self._mark

    @property
    def _joined(self) -> Watermark:
        """The watermark :meth:`join` took up (what follows it runs only once it has)."""
        if self._mark is None:
            raise RuntimeError("the club link has no watermark before it joins its ledger")
        return self._mark

    # ---- the ledger and the connection ------------------------------------

    def join(self, reader: LedgerReader) -> None:
        """Take up the watermark of the ledger ``reader`` reads, unless already joined to it; with none
        (or one that does not read), ask the hub."""
        ledger_id = reader.ledger_id()
        if self._mark is not None and self._mark.key["ledger"] == ledger_id:
            return
        if ledger_id is None:
            raise LedgerError(f"ledger {reader.path} has no id yet (an older board wrote it?)")
        key = {"ledger": ledger_id, "club": self.club.name, "table": self.club.table}
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
        self.status_due = True
        self.resends.progress()

    def reconnected(self) -> None:
        """A new connection: paho sends again what it had in flight; the live board, Home Assistant's
        entities and the status are said again, and everything after the hub's word if it is behind."""
        self._in_flight.clear()
        self.resends.after_connecting = self.status_due = True
        self._state_version = None
        self._discovered = None

    def acknowledged(self, mid: int) -> None:
        """The broker took message ``mid``: room to send more (it moves no watermark)."""
        if mid in self._in_flight:
            self._in_flight.discard(mid)
            self.sent += 1

    # ---- the hub's word ----------------------------------------------------

    def hub_kept(self, reader: LedgerReader, kept: dict[str, Any]) -> None:
        """The hub's ``kept`` message (its word on what it has durably kept of a ledger): move the
        watermark over what it says it has of this ledger (never back)."""
        mark = self._joined
        if kept["ledger"] != mark.key["ledger"]:
            return  # another board's at this table
        games = {game: (seq, rev, status) for game, seq, rev, status in kept["games"]}
        self._refused(kept.get("refused") or [])
        moved = False
        if self._asking:  # games before its "from" were settled by this board before it lost its watermark
            self._asking = False
            if kept["from"] > mark.first_open_game:
                mark.first_open_game = kept["from"]
                mark.place = max(mark.place, reader.feed(lambda conn: feed.before(conn, mark.first_open_game)))
                self._next = max(self._next, mark.place)
            moved = True
        for game, (_seq, rev, status) in games.items():
            if rev is None or game < mark.first_open_game:
                continue
            known = mark.results.get(game)
            if known is None or rev > known[1]:
                mark.results[game] = [status, rev]
                moved = True
            if self._pending_results.get(game) == mark.results[game]:
                del self._pending_results[game]

        def kept_through(conn: sqlite3.Connection) -> tuple[int, int]:
            place = mark.place
            for status in feed.statuses_from(conn, mark.first_open_game, self.games_of):
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
            self.resends.progress()
            self._settle(reader)

    def _refused(self, refusals: list[list[Any]]) -> None:
        """What the hub says it will not keep (its word counts each as kept, so it is not sent again): one
        line in the journal for each, said once, and a notice for the OLED."""
        for game, kind, number, reason in refusals:
            if (game, kind, number) in self._told:
                continue
            self._told.add((game, kind, number))
            what = "game line" if kind == "entry" and number == 0 else f"{kind} {number}"
            self.log(f"club: the hub refused game {game}'s {what} (table {self.club.table}): {reason}; it is not "
                     "sent again, and the game counts only by the club director's word: tell the director")
            self.refusals.append(f"The hub refused game {game}: it counts only if the director says so")

    def _settle(self, reader: LedgerReader) -> None:
        """Move the first open game past games the hub has whole, whose result it has as it stands, and
        which can no longer change (all but the two newest)."""
        mark = self._joined

        def settled(conn: sqlite3.Connection) -> int:
            newest, _ = feed.last_place(conn)
            first_open = mark.first_open_game
            if newest is None:
                return first_open  # no game yet
            for status in feed.statuses_from(conn, mark.first_open_game, self.games_of):
                known = mark.results.get(status.game)
                wanted = result_rev(status, known)
                if status.game >= newest - 1 or mark.place < status.end or (wanted is not None and wanted != known):
                    break
                first_open = status.game + 1
            return first_open

        first_open = reader.feed(settled)
        if first_open != mark.first_open_game:
            mark.first_open_game = first_open
            mark.results = {game: value for game, value in mark.results.items() if game >= first_open}
            self._dirty = self.status_due = True  # the hub lists games from the new first open game on

    # ---- the resend policy ---------------------------------------------------

    def lagging(self) -> bool:
        """Whether something sent is not yet in the hub's word."""
        return self._next > self._joined.place or bool(self._pending_results)

    def waits(self, hub_online: bool, early: bool) -> bool:
        """Whether sending waits: without a watermark, for the hub's word while a hub is online and
        it is ``early`` (just connected). Then a resend, if a new connection made one due."""
        if self._asking:
            if hub_online and early:
                return True
            self._asking = False
            self.log("club: the hub has not said what it has of this board's games: sending every game "
                     "of the club's (the hub keeps each once)")
        if self.resends.after_connecting:
            self.resends.after_connecting = False
            if hub_online and self.lagging():
                self.resend("connected again")
        return False

    def resend_at(self, hub_online: bool) -> float | None:
        """When the hub's word, still behind, makes a resend due (None: nothing owed, or no hub)."""
        if not hub_online or self._mark is None or not self.lagging():
            return None
        return self.resends.due_at()

    def resend(self, why: str) -> None:
        """Send again everything after the hub's word."""
        self.log(f"club: sending again from what the hub has kept ({why})")
        self._next = self._joined.place
        self._pending_results.clear()
        self._seq.clear()
        self.resends.sent_again()

    # ---- sending -------------------------------------------------------------

    def send(self, reader: LedgerReader, hub_online: bool) -> bool:
        """Send what is due: the status if it changed, then (after a resend if the hub is behind) the
        entries, the results and the live board; whether everything is sent (and, with a hub online,
        in its word)."""
        if self.status_due:
            self.say_status(None)
        why = self.resends.why(owed=hub_online and self.lagging())
        if why is not None:
            self.resend(why)
        sent = self._send_items(reader)
        sent = self._send_results(reader) or sent
        self._send_state(reader)
        return not sent and not self._in_flight and not self._state_due and not (hub_online and self.lagging())

    def say_status(self, problem: str | None) -> None:
        """The table's presence, retained, with its ledger and first open game (``floor``), and what stops
        it sending if anything does."""
        mark = self._mark if problem is None else None
        payload = schema.status_payload(self.club.table, True, __version__, problem,
                                        mark.key["ledger"] if mark else None,
                                        mark.first_open_game if mark else None)
        self._send(self.topics.of_table("status"), schema.encode(payload), True)
        self.status_due = False

    def _send_items(self, reader: LedgerReader) -> bool:
        """The club's game lines and entries after the last sent, while fewer than IN_FLIGHT await
        the broker's acknowledgement; whether any was sent."""
        room = IN_FLIGHT - len(self._in_flight)
        if room <= 0:
            return True
        items = reader.feed(lambda conn: self._numbered(
            conn, feed.items_after(conn, self._next, room, self.games_of)))
        ledger = self._joined.key["ledger"]
        for item, seq in items:
            payload = schema.entry_payload(self.club.table, ledger, item.game, seq, item.line, item.at)
            self._in_flight.add(self._send(self.topics.of_table("entry"), schema.encode(payload), False))
            self._next = item.place
        return bool(items)

    def _numbered(self, conn: sqlite3.Connection, items: list[feed.FeedItem]) -> list[tuple[feed.FeedItem, int]]:
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

    def _send_results(self, reader: LedgerReader) -> bool:
        """Each game whose end changed since the result the hub has (or was last sent): its result now."""
        mark = self._joined

        def changed_games(conn: sqlite3.Connection) -> list[tuple[feed.GameStatus, Result, list[str]]]:
            changed = []  # in one snapshot: each game's row and its lines agree
            for status in feed.statuses_from(conn, mark.first_open_game, self.games_of):
                known = self._pending_results.get(status.game) or mark.results.get(status.game)
                wanted = result_rev(status, known)
                if wanted is not None and wanted != known:
                    changed.append((status, wanted, feed.game_lines(conn, status.game)))
            return changed

        sent = False
        for status, wanted, lines in reader.feed(changed_games):
            payload = result_payload_of(self.club.table, mark.key["ledger"], status, wanted, lines)
            if payload is None:
                self.log(f"club: game {status.game}'s record no longer replays; its result is not sent")
                mark.results[status.game] = wanted
                self._dirty = True
                continue
            self._in_flight.add(self._send(self.topics.of_table("result"), schema.encode(payload), False))
            self._pending_results[status.game] = wanted
            sent = True
        return sent

    def _send_state(self, reader: LedgerReader) -> None:
        """The live board, retained, when the ledger changed (at most every STATE_EVERY_S)."""
        version = reader.data_version()
        if version == self._state_version:
            return
        if self.clock() - self._state_at < STATE_EVERY_S:
            self._state_due = True  # state_at() says when its turn comes
            return
        from scorer.report import state_dict

        book = reader.book
        game, _ = reader.feed(feed.last_place)
        entries = len(book.game.history) if book.game else 0
        payload = schema.state_payload(self.club.table, self._joined.key["ledger"], game, entries,
                                       state_dict(book) if book.game else None)
        names = tuple(side.name for side in book.game.sides) if book.game else ()
        if self.club.homeassistant and names and names != self._discovered:  # before the state they read
            from .discovery import discovery_messages

            for topic, config in discovery_messages(self.topics, names, __version__):
                self._send(topic, config, True)
            self._discovered = names
        self._send(self.topics.of_table("state"), schema.encode(payload), True)
        self._state_version, self._state_at, self._state_due = version, self.clock(), False

    def state_at(self) -> float | None:
        """When the live board held back is due (None: none is)."""
        return self._state_at + STATE_EVERY_S if self._state_due else None

    # ---- keeping the watermark ---------------------------------------------------

    def save_at(self) -> float | None:
        """When the watermark, changed, is to be written (None: it is as written)."""
        return self._saved_at + SAVE_EVERY_S if self._dirty else None

    def save(self, force: bool = False) -> None:
        """Write the watermark if it changed, at most every SAVE_EVERY_S unless ``force``."""
        if not self._dirty or self._mark is None:
            return
        if not force and self.clock() - self._saved_at < SAVE_EVERY_S:
            return
        try:
            self._mark.save(self.watermark_path)
        except OSError as error:
            self.log(f"club: {self.watermark_path} cannot be written ({error.strerror}): after a restart "
                     "the board asks the hub what it has")
        self._dirty = False
        self._saved_at = self.clock()
