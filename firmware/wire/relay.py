"""The board's local socket for phones: how the web view asks the running board to pair a phone or enter its points.

The board listens on a Unix socket beside its ledger (:func:`socket_path`), readable and
writable by its own user and group only; :func:`ask` sends one request and reads its answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from pathlib import Path

from scorer.errors import CribbageBoardError

MAX_LINE = 4096  # the longest request or answer, in bytes
ANSWER_SECONDS = 5.0  # how long the web view waits for the board's answer
SUN_PATH_MAX = 107  # the longest path a Unix socket's address holds
HEADER = "X-Phone-Token"  # the header every write from a paired phone carries
MAX_DEPTH = 2  # a request is an object of plain values: deeper nesting is refused before it is parsed


class BoardAway(CribbageBoardError, OSError):
    """The board is not running: nothing was sent to it, so nothing was entered."""


class BoardSilent(BoardAway):
    """The request reached the board but no answer came back: it may have been entered (the same
    request id again gets the first answer, and enters nothing more)."""


def socket_path(ledger: Path) -> Path:
    """The board's socket for phones: ``LEDGER.phones`` beside its ledger."""
    return ledger.with_name(ledger.name + ".phones")


def header_token(session: str) -> str:
    """The token a paired phone's page sends in :data:`HEADER` with every write: derived from its
    session (which the page cannot read: the cookie is HttpOnly), so the web view keeps no state."""
    import hashlib  # the web view's alone: the board imports this module and starts without it

    return hashlib.sha256(b"cribbage-board phone header\0" + session.encode()).hexdigest()[:32]


@contextlib.contextmanager
def unix_address(path: Path):
    """An address for ``path`` that fits a Unix socket's: the path itself, or when it is too long, the
    same file reached through a descriptor of its folder (``/proc/self/fd/N/name``)."""
    if len(os.fsencode(path)) <= SUN_PATH_MAX:
        yield str(path)
        return
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{folder}/{path.name}"
    finally:
        os.close(folder)


def ask(path: Path, request: dict, timeout: float = ANSWER_SECONDS) -> dict:
    """Send one request to the board at ``path`` and return its answer; BoardAway if no board
    listens there or it does not answer within ``timeout`` seconds.

    The board listens on a Unix socket beside its ledger (:func:`socket_path`),
    readable and writable by its own user and group only (the web view's user is
    in the group). A request is one JSON object on one line, and so is the
    answer; the connection closes after it. The board puts every request through
    the same path as its buttons; nothing is queued: if the board is not running,
    :func:`ask` raises :class:`BoardAway` at once, and :class:`BoardSilent` when a
    request was sent but no answer came.

    Requests (``op``): ``pair`` (``code``), ``seat``, ``enter`` (``id``, ``act``: one of
    :data:`firmware.wire.acts.PHONE_ACT_NAMES`, ``points``) and ``unpair``, each but
    ``pair`` with the phone's ``session``.
    Answers: ``{"ok": true, ...}`` or ``{"ok": false, "message": ...}``, with
    ``"unpaired": true`` when the session is not (or no longer) paired.
    """
    data = json.dumps(request, separators=(",", ":")).encode() + b"\n"
    if len(data) > MAX_LINE:
        raise ValueError("request too long")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            with unix_address(path) as address:
                sock.connect(address)
        except OSError as error:
            raise BoardAway(f"the board is not running ({error.strerror or error})") from None
        try:
            sock.sendall(data)
            answer = read_line(sock)
        except OSError as error:
            raise BoardSilent(f"the board did not answer ({error.strerror or error})") from None
    return _decoded(answer)


async def ask_async(path: Path, request: dict, timeout: float = ANSWER_SECONDS) -> dict:
    """:func:`ask` for an asyncio server: the same request and answer, the same errors."""
    import asyncio

    data = json.dumps(request, separators=(",", ":")).encode() + b"\n"
    if len(data) > MAX_LINE:
        raise ValueError("request too long")
    try:
        with unix_address(path) as address:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(address), timeout)
    except (OSError, TimeoutError) as error:
        raise BoardAway(f"the board is not running ({getattr(error, 'strerror', None) or error})") from None
    try:
        writer.write(data)
        answer = await asyncio.wait_for(reader.readline(), timeout)
    except (OSError, TimeoutError, ValueError) as error:
        raise BoardSilent(f"the board did not answer ({getattr(error, 'strerror', None) or error})") from None
    finally:
        writer.close()
    return _decoded(answer.rstrip(b"\n") if answer.endswith(b"\n") else None)


def _decoded(answer: bytes | None) -> dict:
    """The board's answer line as a dict; BoardSilent if there is none or it does not read."""
    if answer is None:
        raise BoardSilent("the board closed the connection without an answer")
    decoded = shallow_json(answer)
    if not isinstance(decoded, dict):
        raise BoardSilent("the board's answer did not read")
    return decoded


def shallow_json(data: bytes | str, depth: int = MAX_DEPTH) -> object | None:
    """``data`` parsed as JSON when its arrays and objects nest at most ``depth`` deep, else None
    (so nothing a client sends can make the parser recurse); None too when it does not read.

        >>> shallow_json(b'{"op": "seat", "session": "x"}')
        {'op': 'seat', 'session': 'x'}
        >>> shallow_json(b"[" * 3000) is None, shallow_json(b'{"a": [[1]]}') is None
        (True, True)
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    level, quoted, escaped = 0, False, False
    for char in text:
        if quoted:
            escaped, quoted = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            quoted = True
        elif char in "[{":
            level += 1
            if level > depth:
                return None
        elif char in "]}":
            level -= 1
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def plain_text(value: object, most: int) -> str | None:
    """``value`` when it is text a request may carry (printable ASCII, 1 to ``most`` characters), else None.

        >>> plain_text("a1f0", 64), plain_text("\\ud800", 64), plain_text("x" * 65, 64)
        ('a1f0', None, None)
    """
    if isinstance(value, str) and 0 < len(value) <= most and value.isascii() and value.isprintable():
        return value
    return None


def read_line(sock: socket.socket, seconds: float | None = None) -> bytes | None:
    """One line (up to MAX_LINE bytes, without its newline) from ``sock``; None if it ends first,
    or if it is longer. With ``seconds``, the whole line must come within that time (TimeoutError)."""
    data = b""
    deadline = None if seconds is None else time.monotonic() + seconds
    while b"\n" not in data:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request did not come whole in time")
            sock.settimeout(left)
        chunk = sock.recv(MAX_LINE + 1 - len(data))
        if not chunk:
            return None
        data += chunk
        if len(data) > MAX_LINE and b"\n" not in data:
            return None
    return data.split(b"\n", 1)[0]
