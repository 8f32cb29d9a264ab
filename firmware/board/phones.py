"""Phones paired with seats: the one-time codes, the sessions, and the socket the web view relays them through.

:class:`Phones` pairs, keeps the sessions and checks each request whole; :class:`PhoneServer`
listens on the board's socket (:mod:`firmware.wire.relay`) and keeps each request waiting
for the board's main loop, which hands it to the controller and sends back its answer.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import socket
import stat
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

from hardware.inputs import COLOUR_BUTTONS
from ledger.files import replace_durably

from ..wire.acts import PHONE_ACT_NAMES, Act
from ..wire.relay import MAX_LINE, plain_text, read_line, shallow_json, unix_address
from .panels import PAIRING_A_PHONE, PanelHost
from .scoring import PHONE_POINTS, ScoreInput, Source

CODE_SECONDS = 120.0  # how long a pairing code may be used
CODE_BYTES = 10  # 80 random bits: 16 base32 letters, short enough for a QR code the OLED shows large
SESSION_BYTES = 32  # 256 random bits
ANSWERS_KEPT = 64  # a phone's latest answers, by request id, given again for a retried request
REQUEST_ID_CHARS = 64
SESSION_CHARS = 64  # a session is 43 characters; a code 16
REQUEST_SECONDS = 2.0  # how long the socket waits for a request's whole line
ANSWER_SECONDS = 10.0  # how long it waits for the main loop's answer
NOT_PAIRED = "This phone is not paired with the board: choose Phones in its menu"


class Paired(NamedTuple):
    """A phone just paired: its new ``session`` scores for ``seat``."""

    session: str
    seat: int


@dataclass(frozen=True)
class PhoneEntry:
    """A paired phone's entry, checked whole: its scoring input, the phone's id for the request,
    and the hash of the session that asked (its answers are kept under it)."""

    given: ScoreInput
    request_id: str
    session_key: str


def _hash(session: str) -> str:
    import hashlib  # when a phone asks: the board starts without it

    return hashlib.sha256(session.encode()).hexdigest()


class Phones:
    """Which phone scores for which seat: pairing codes, paired sessions (their hashes) and
    the latest answer to each of a phone's requests.

    Pairing needs someone who can see the board: the menu's Phones shows a QR code
    for one seat, whose address carries a one-time code (:data:`CODE_SECONDS` to
    use it, once). The web view trades the code for a session (a random secret the
    phone keeps in an HttpOnly cookie), bound to that seat of this board. Only a
    hash of each session is kept, in ``LEDGER.phones.json`` beside the ledger
    (written durably), so paired phones stay paired when the board restarts.
    """

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.monotonic,
                 log: Callable[[str], None] = lambda line: None):
        self.path = path  # where the sessions are kept (None: in memory only)
        self.clock = clock
        self.log = log
        self.code: tuple[str, int, float] | None = None  # the live code: (code, seat, expires at)
        self.sessions: dict[str, int] = {}  # session hash -> seat (a colour button's place)
        self.answers: dict[str, OrderedDict[str, dict]] = {}  # session hash -> request id -> answer
        self._load()

    # ---- pairing -------------------------------------------------------------

    def new_code(self, seat: int) -> str:
        """A one-time code for ``seat``; any code made before it no longer pairs."""
        code = base64.b32encode(os.urandom(CODE_BYTES)).decode()
        self.code = (code, seat, self.clock() + CODE_SECONDS)
        return code

    def cancel_code(self) -> None:
        self.code = None

    def pair(self, code: object) -> tuple[str, int] | str:
        """(session, seat) for a code shown on the board, used once before it expires; else why not."""
        live = self.code
        text = plain_text(code, SESSION_CHARS)
        given = text.upper().encode() if text is not None else b""
        from hmac import compare_digest  # when a phone pairs: the board starts without it

        if live is None or not compare_digest(given, live[0].encode()):
            return "This pairing code is used or not the board's: choose Phones in its menu for a new one"
        self.code = None  # used once, whatever comes of it
        if self.clock() > live[2]:
            return "This pairing code has expired: choose Phones in the board's menu for a new one"
        session = base64.urlsafe_b64encode(os.urandom(SESSION_BYTES)).rstrip(b"=").decode()
        self.sessions[_hash(session)] = live[1]
        self._save()
        return session, live[1]

    def seat_of(self, session: object) -> int | None:
        """The seat a session scores for, None if it is not paired."""
        text = plain_text(session, SESSION_CHARS)
        return None if text is None else self.sessions.get(_hash(text))

    def paired_seats(self) -> set[int]:
        return set(self.sessions.values())

    def unpair(self, seat: int | None = None) -> int:
        """Unpair every phone of ``seat`` (every phone if None); how many were."""
        gone = [key for key, paired in self.sessions.items() if seat is None or paired == seat]
        for key in gone:
            del self.sessions[key]
            self.answers.pop(key, None)
        if gone:
            self._save()
        return len(gone)

    def unpair_session(self, session: object) -> bool:
        text = plain_text(session, SESSION_CHARS)
        key = _hash(text) if text is not None else ""
        if self.sessions.pop(key, None) is None:
            return False
        self.answers.pop(key, None)
        self._save()
        return True

    # ---- requests --------------------------------------------------------------

    def answer(self, request: object) -> dict | Paired | PhoneEntry:
        """One request from the web view, checked whole: the answer to it, a phone just paired
        (:class:`Paired`), or a paired phone's entry for the controller to enter (:class:`PhoneEntry`;
        :meth:`keep` its answer). A request id answered before gets that answer again."""
        if not isinstance(request, dict):
            return {"ok": False, "message": "not a request"}
        op = request.get("op")
        if op == "pair":
            paired = self.pair(request.get("code"))
            if isinstance(paired, str):
                return {"ok": False, "message": paired}
            return Paired(*paired)
        found = self.seat_of(request.get("session"))
        if found is None:
            return {"ok": False, "unpaired": True, "message": NOT_PAIRED}
        seat = found
        if op == "seat":
            return {"ok": True, "seat": seat}
        if op == "unpair":
            self.unpair_session(request.get("session"))
            return {"ok": True, "seat": seat}
        if op != "enter":
            return {"ok": False, "message": f"unknown request {str(op)[:20]!r}"}
        return self._entry(request, seat)

    def _entry(self, request: dict, seat: int) -> dict | PhoneEntry:
        request_id, act, points = plain_text(request.get("id"), REQUEST_ID_CHARS), request.get("act"), request.get("points", 0)
        if request_id is None:
            return {"ok": False, "message": f"a request needs an id of 1 to {REQUEST_ID_CHARS} printable ASCII characters"}
        if act not in PHONE_ACT_NAMES:
            return {"ok": False, "message": f"unknown entry {str(act)[:20]!r}: use {', '.join(PHONE_ACT_NAMES)}"}
        if type(points) is not int or not 0 <= points <= PHONE_POINTS:
            return {"ok": False, "message": f"points are a whole number from 0 to {PHONE_POINTS}"}
        key = _hash(request["session"])
        kept: dict[str, dict] = self.answers.get(key, {})
        if request_id in kept:
            return {**kept[request_id], "again": True}
        return PhoneEntry(ScoreInput(Act(act), Source.PHONE, seat, points), request_id, key)

    def keep(self, entry: PhoneEntry, answer: dict) -> None:
        """Keep the answer to a phone's entry: the same request id again gets it, and enters nothing."""
        kept = self.answers.setdefault(entry.session_key, OrderedDict())
        kept[entry.request_id] = answer
        while len(kept) > ANSWERS_KEPT:
            kept.popitem(last=False)

    # ---- keeping the sessions --------------------------------------------------

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            data = json.loads(self.path.read_bytes())
            self.sessions = {key: seat for key, seat in data["sessions"].items()
                             if isinstance(key, str) and type(seat) is int and 0 <= seat < len(COLOUR_BUTTONS)}
        except FileNotFoundError:
            return
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            self.log(f"paired phones in {self.path} could not be read ({error}): pair them again")

    def _save(self) -> None:
        if self.path is None:
            return
        data = json.dumps({"sessions": self.sessions}).encode()
        try:
            replace_durably(self.path, data, mode=0o600)
        except OSError as error:
            self.log(f"paired phones could not be kept in {self.path} ({error.strerror or error}): "
                     "they are paired until the board restarts")


class WaitingRequest:
    """One request off the socket, waiting for the main loop: ``body`` (its JSON, None if it did
    not read) and :meth:`reply`, which sends the answer to the web view that asked."""

    def __init__(self, body: object, conn: socket.socket, done: threading.Event):
        self.body = body
        self._conn = conn
        self._done = done

    def reply(self, answer: dict) -> None:
        """Send ``answer`` as one line (a few hundred bytes to a waiting reader: never blocks for long)."""
        try:
            self._conn.sendall(json.dumps(answer, separators=(",", ":")).encode()[:MAX_LINE - 1] + b"\n")
        except OSError:  # the web view went away before its answer
            pass
        finally:
            self._done.set()


class PhoneServer:
    """The board's socket for the web view: each request waits in :attr:`requests` until the main
    loop takes it (:meth:`waiting`) and replies. ``wake`` is called when one arrives.

    :class:`PhoneServer` listens on the board's socket (:mod:`firmware.wire.relay`) in a
    thread of its own; the board's main loop hands each request to the controller, as
    it does a press, and replies with the controller's answer.
    """

    def __init__(self, path: Path, wake: Callable[[], None]):
        self.path = path
        self.wake = wake
        self.requests: queue.Queue[WaitingRequest] = queue.Queue()
        self._sock = self._listen(path)
        self._pipe = os.pipe()  # readable while a request waits: for a loop that sleeps in select()
        os.set_blocking(self._pipe[0], False)
        os.set_blocking(self._pipe[1], False)
        self._closed = False
        self._inode = os.stat(path).st_ino
        self._thread = threading.Thread(target=self._accept, name="phone socket", daemon=True)
        self._thread.start()

    @staticmethod
    def _listen(path: Path) -> socket.socket:
        """Listen at ``path``, first removing a socket an earlier board left there (never another file)."""
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                os.unlink(path)
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with unix_address(path) as address:
                sock.bind(address)
            os.chmod(path, 0o660)  # the board's user and group (the web view's user) only
            sock.listen(16)
        except OSError:
            sock.close()
            raise
        return sock

    def _accept(self) -> None:
        """Take the web view's requests one at a time, each answered before the next is read (the main
        loop answers them one at a time anyway). Whatever one connection sends, the next is taken."""
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                if self._closed:
                    return
                time.sleep(0.1)  # out of descriptors, say: try again rather than stop listening
                continue
            with conn:
                try:
                    self._one(conn)
                except Exception:  # noqa: BLE001 - a connection's failure never ends the socket's thread
                    continue

    def _one(self, conn: socket.socket) -> None:
        """Read one request (its whole line within REQUEST_SECONDS, parsed without recursion), wait for
        the main loop's answer, send it."""
        line = read_line(conn, REQUEST_SECONDS)
        if line is None:
            return
        request = shallow_json(line)
        done = threading.Event()
        self.requests.put(WaitingRequest(request, conn, done))
        try:
            os.write(self._pipe[1], b"r")
        except OSError:  # the pipe is full: a wake is already waiting
            pass
        self.wake()
        done.wait(ANSWER_SECONDS)  # the main loop sends the answer itself, at once

    def fileno(self) -> int:
        """A descriptor that is readable while a request waits (select() on it)."""
        return self._pipe[0]

    def waiting(self) -> list[WaitingRequest]:
        """Every request waiting now, oldest first (taken in the main loop's thread, which replies to each)."""
        try:
            os.read(self._pipe[0], 4096)
        except OSError:  # nothing to read
            pass
        taken = []
        while True:
            try:
                taken.append(self.requests.get_nowait())
            except queue.Empty:
                return taken

    def close(self) -> None:
        """Stop listening and remove the socket (if it is still this server's)."""
        self._closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        for end in self._pipe:
            try:
                os.close(end)
            except OSError:
                pass
        try:
            if os.stat(self.path).st_ino == self._inode:
                os.unlink(self.path)
        except OSError:
            pass


def sessions_path(ledger: Path) -> Path:
    """Where the paired phones of a board are kept: ``LEDGER.phones.json``."""
    return ledger.with_name(ledger.name + ".phones.json")



def pairing_url(base: str, code: str) -> str:
    """The address a pairing QR code carries: the web view's, ``/P/`` and the code, in capitals so
    that the QR code holds it in its compact alphanumeric mode (hosts and schemes ignore case)."""
    return f"{base.rstrip('/')}/P/{code}".upper()


class PairingView:
    """The QR code that pairs a phone with one seat (its ``player``); any press goes back, and the
    code with it (``phones`` forgets it)."""

    screen_name = PAIRING_A_PHONE

    def __init__(self, host: PanelHost, phones: Phones, seat: int, player: str, code: str, base: str | None):
        from .phone import phone_image

        self.host = host
        self.phones = phones
        self.seat = seat
        self.player = player
        self.url = pairing_url(base, code) if base else None
        self.typed = f"{base.rstrip('/')}/P/{code}" if base else None  # the same, as a person types it
        self.picture = phone_image(self.url, [f"{player}'s", "phone:", "scan this", "(2 min)"]) if self.url else None

    def handle(self, event) -> None:
        if event.kind in ("click", "hold"):
            self.phones.cancel_code()
            self.host.back()

    def screen(self):
        from .phone import NO_NETWORK
        from .screens import Screen

        if self.typed is None:
            return Screen(title="Pair a phone", lines=NO_NETWORK)
        scheme, _, rest = self.typed.partition("//")
        address, _, code = rest.partition("/P/")
        return Screen(title=f"Pair {self.player}'s phone", lines=(f"{scheme}//", address, f"/P/{code}", "once, within 2 min"),
                      picture=self.picture)
