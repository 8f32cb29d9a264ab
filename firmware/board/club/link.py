"""A board's side of the club: its ledger, published to the club's broker from a thread of its own.

:class:`ClubLink` connects with paho, listens, and lets its :class:`~.outbox.Outbox` send what is
new of the club's games; :func:`open_link` opens it.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ledger.errors import LedgerError
from ledger.reader import LedgerReader

from ... import __version__
from ...config import ClubConfig
from ...journal import journal
from ...wire import schema
from ...wire.broker import KEEPALIVE_S, BrokerError, make_client, refusal, tls_failure
from .outbox import WATERMARK_SUFFIX, Outbox, Watermark

if TYPE_CHECKING:  # annotations only: paho is imported when the link starts
    from paho.mqtt.client import Client, MQTTMessageInfo

CLOSE_WAIT_S = 1.0  # at close: how long to wait for the broker to take "offline"
RETRY_LEDGER_S = 2.0  # a ledger that cannot be read is tried again this often
HUB_WAIT_S = 2.0  # after connecting: the longest wait for the hub's presence (and, asking, its word)
STATES = ("connecting", "connected", "offline", "refused")


class LedgerReaderOnDemand:
    """A reader of the board's ledger, opened when the link first asks for it: opened again when the
    file at ``path`` is another (set aside and begun again), and not before RETRY_LEDGER_S after it
    could not be read."""

    def __init__(self, path: Path):
        self.path = path
        self.problem: str | None = None  # why it cannot be read, while it cannot
        self._reader: LedgerReader | None = None
        self._inode: int | None = None
        self._failed_at = -RETRY_LEDGER_S

    def reader(self) -> LedgerReader:
        """The reader of the file at the path now; LedgerError if it cannot be read."""
        try:
            inode = os.stat(self.path).st_ino
        except OSError as error:
            raise LedgerError(f"ledger {self.path} cannot be read: {error.strerror}") from None
        if self._reader is not None and inode != self._inode:
            self.close()
        if self._reader is None:
            if time.monotonic() - self._failed_at < RETRY_LEDGER_S:
                raise LedgerError(self.problem or "the ledger cannot be read")
            self._reader, self._inode = LedgerReader(self.path), inode
        return self._reader

    def failed(self, problem: str) -> bool:
        """It could not be read (the reader is closed, tried again after RETRY_LEDGER_S); whether
        ``problem`` is new."""
        self.close()
        self._failed_at = time.monotonic()
        new, self.problem = problem != self.problem, problem
        return new

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


@dataclass
class _Session:
    """One connection to the broker, as paho's thread notes it for the link's."""

    began: float  # time.monotonic() when it was made
    last_subscription: int | None = None  # its SUBACK: every retained message before it is here
    heard: bool = False  # that SUBACK came: the hub's retained presence and word, if any, are in
    hub_online: bool | None = None  # the hub's presence (None: not heard on this connection)
    taken_up: bool = False  # the link's thread has begun sending on it

    def early(self) -> bool:
        """Whether the hub's retained presence and word may still be on their way (at most HUB_WAIT_S)."""
        return not self.heard and time.monotonic() < self.began + HUB_WAIT_S


class ClubLink:
    """One board in one club: call :meth:`start`, give :meth:`wake` to the ledger's writer
    (``writer.on_commit = link.wake``), read :meth:`connection` and :meth:`next_game` for the OLED, :meth:`close` at the end.

    ``changed`` is called (from the link's thread) when what the OLED shows of the club
    changes; ``log`` takes one line for the journal. What is sent, and when, is the
    :attr:`outbox`'s to decide; the link connects, listens and runs the thread that sends.

    The board's writer only wakes the link after an entry is durable
    (:attr:`ledger.writer.LedgerWriter.on_commit`: it sets an event, so a press or a
    ledger write never waits on the network). The link's thread then reads the ledger
    (read-only) and lets its :class:`~.outbox.Outbox` send what is new of the club's
    games: the outbox decides what goes, keeps the hub's word and sends again from it;
    the link connects with paho, listens and hands the outbox what it heard.

    The club's games are those the ledger marks as played for this club and table
    (:meth:`ledger.writer.LedgerWriter.join_club`, called by :func:`open_link` before
    anything else): every game begun while ``[club]`` names them, whether the broker
    could be reached or not, and the game on the board when the board joined, if it
    was still being played.

    It also listens on ``.../pairing`` for the table's next game, which the OLED
    shows (:meth:`ClubLink.next_game`), and on ``cribbage/<club>/hub`` for the hub's presence.
    """

    def __init__(self, club: ClubConfig, ledger_path: str | os.PathLike,
                 log: Callable[[str], None] = journal, changed: Callable[[], None] | None = None):
        self.club = club
        self.broker = club.address()
        self.topics = schema.Topics(club.name, club.table)
        self.log = log
        self.changed = changed or (lambda: None)
        self.state = "connecting"
        self.problem: str | None = None  # why the club is off (refused), for the OLED
        self.pairing: dict | None = None  # the hub's last word on this table's next game
        self.ledger = LedgerReaderOnDemand(Path(ledger_path))
        self.outbox = Outbox(club, self.ledger.path.with_name(self.ledger.path.name + WATERMARK_SUFFIX),
                             self._publish_qos1, log)
        self._client: Client | None = None
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._caught_up = threading.Event()  # everything in the ledger sent (and kept, if a hub is online)
        # What paho's thread notes for ours: the connection, acknowledgements and the hub's kept messages.
        self._session = _Session(0.0, taken_up=True)
        self._acks: deque[int] = deque()  # message ids the broker acknowledged
        self._kept: deque[dict] = deque()  # the hub's "kept" payloads, for the outbox
        self._was_connected = False
        self._said_offline = False

    # ---- starting and stopping --------------------------------------------

    def start(self) -> "ClubLink":
        """Connect (in paho's thread, retrying with back-off) and start publishing. Raises
        BrokerError, in one line, if the client cannot even be made (a CA file that does not read)."""
        client = make_client(self.broker, f"cribbage-{self.club.name}-table-{self.club.table}")
        offline = schema.status_payload(self.club.table, False, __version__)
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
                        schema.status_payload(self.club.table, False, __version__)), qos=1, retain=True)
                    info.wait_for_publish(max(0.1, deadline - time.monotonic()))
                except (RuntimeError, ValueError, OSError):
                    pass
            client.disconnect()
            client.loop_stop()
        self.outbox.save(force=True)
        self.ledger.close()

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

    def refusals(self) -> list[str]:
        """What the hub refused since last asked, each a notice for the OLED (the journal has said it)."""
        taken = []
        while self.outbox.refusals:
            taken.append(self.outbox.refusals.popleft())
        return taken

    @property
    def watermark(self) -> Watermark | None:
        """The hub's word as the board keeps it (None before the ledger is read)."""
        return self.outbox.watermark

    # ---- paho's thread: note what happened, wake ours -----------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            said, for_good = refusal(reason_code)
            if for_good:
                self.state, self.problem = "refused", said
                self.log(f"club: {self.broker} refused table {self.club.table}: {said}; playing on without "
                         "the club (check [club] username and password)")
                client.disconnect()  # paho stops retrying; the loop thread ends at close()
            else:
                self._offline(said)
            self.changed()
            return
        session = self._session = _Session(time.monotonic())
        self.state, self.problem = "connected", None
        self._said_offline = False
        # The broker answers subscriptions in order, each SUBACK followed by its retained messages:
        # by the last SUBACK, the hub's presence and word (retained) have come, if there are any.
        for topic in (self.topics.hub, self.topics.of_table("kept"), self.topics.of_table("pairing")):
            _, session.last_subscription = client.subscribe(topic, qos=1)
        self.log(f"club: {'reconnected to' if self._was_connected else 'connected to'} {self.broker} "
                 f"as table {self.club.table} of {self.club.name}")
        self._was_connected = True
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
        if mid == self._session.last_subscription:
            self._session.heard = True
            self._wake.set()

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        self._acks.append(mid)  # paho holds its own lock here: take ours only in our thread
        self._wake.set()

    def _on_message(self, client, userdata, message) -> None:
        table = self.club.table
        if message.topic == self.topics.hub:
            try:
                online = bool(message.payload) and schema.decode("hub", "", message.payload)["online"]
            except schema.PayloadError as error:
                self.log(f"club: the hub's presence was ignored: {error}")
                return
            self._session.hub_online = online
            self._wake.set()
            return
        where = self.topics.parse(message.topic)
        if where is None or where[0] != table or where[1] not in ("pairing", "kept") or not message.payload:
            return
        try:
            payload = schema.decode(where[1], table, message.payload)
        except schema.PayloadError as error:
            self.log(f"club: a {where[1]} for table {table} was ignored: {error}")
            return
        if where[1] == "kept":
            self._kept.append(payload)
            self._wake.set()
            return
        self.pairing = payload
        self.changed()

    # ---- our thread: read the ledger, let the outbox send ----------------------

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
            self.outbox.save()

    def _step(self) -> None:
        """One look: take up a new connection and the hub's word, then send what is due."""
        outbox, session = self.outbox, self._session
        reader = self.ledger.reader()
        outbox.join(reader)
        if not session.taken_up:  # a new connection: paho sends again what it had in flight
            session.taken_up = True
            outbox.reconnected()
        if self.ledger.problem is not None:
            self.ledger.problem = None
            outbox.status_due = True
        while self._kept:
            outbox.hub_kept(reader, self._kept.popleft())
        if outbox.refusals:
            self.changed()
        if self._waiting(session):
            return
        if outbox.send(reader, bool(session.hub_online)):
            self._caught_up.set()

    def _waiting(self, session: _Session) -> bool:
        """Whether sending waits, just after connecting, for the hub's presence (and, with no
        watermark, its word); at most HUB_WAIT_S. Then a resend, if one is due and a hub is online."""
        early = session.early()
        if session.hub_online is None:
            if early:
                return True
            session.hub_online = False  # no hub has been on this broker
        return self.outbox.waits(session.hub_online, early)

    def _wait_s(self) -> float:
        """How long to sleep when nothing wakes us: a state, watermark, wait or resend that is due, else a
        while. What only a connection can send (a state, a resend) counts only while it can be sent: the
        broker away, or the ledger unreadable, the thread looks once a second, it does not spin."""
        outbox, session = self.outbox, self._session
        now = time.monotonic()
        due = [now + 1.0, outbox.save_at()]
        if self.state == "connected" and self.ledger.problem is None:
            due.append(session.began + HUB_WAIT_S if session.early() else outbox.state_at())
            resend_at = outbox.resend_at(bool(session.hub_online))
            if resend_at is not None:
                due.append(max(resend_at, session.began + HUB_WAIT_S))
        return max(0.01, min(at for at in due if at is not None) - now)

    def _ledger_failed(self, problem: str) -> None:
        if self.ledger.failed(problem):
            self.log(f"club: {problem}; sending waits until it reads")
            self.outbox.say_status(problem)  # the hub shows it beside the table

    def _take_acks(self) -> None:
        """The broker's acknowledgements, handed to the outbox (room to send more)."""
        while self._acks:
            self.outbox.acknowledged(self._acks.popleft())

    def _publish_qos1(self, topic: str, payload: bytes, retain: bool) -> int:
        """``payload`` to ``topic`` at QoS 1, through the client :meth:`start` made: its message id."""
        return self._publish(topic, payload, retain).mid

    def _publish(self, topic: str, payload: bytes, retain: bool = False) -> MQTTMessageInfo:
        if self._client is None:
            raise RuntimeError("the club link publishes nothing before it starts")
        return self._client.publish(topic, payload, qos=1, retain=retain)


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
