"""Benchmark: bytes on the wire for a paired phone's page and the other pages, compressed against as
written. Prints a table.

One real ``cribbage-board web`` beside a running board (``Board.run()`` in a thread on mock devices)
with Blue's phone paired (its session written to the board's sessions file, as bench/phones.py
does) and a game of ``--entries`` entries in play. Each page is fetched with everything it loads (its
scripts and styles, found in its HTML), twice, side by side in one run: asking ``Accept-Encoding:
gzip`` as every browser does, and ``identity`` (what every browser got before the web view
compressed). A byte counted is one the client read off its socket: the status line, the headers and
the body. The live stream (``/events``) is never compressed and is left out.

    .venv/bin/python bench/wire_bytes.py [--entries 40]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import secrets
import socket
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from phones import RunningBoard, start_web  # noqa: E402

from firmware.board.phones import sessions_path  # noqa: E402
from firmware.wire.relay import ask, socket_path  # noqa: E402

from table import print_table  # noqa: E402

PAGES = ("/phone", "/", "/games", "/stats", "/api/state")
LOADS = re.compile(rb'<(?:script|link)[^>]+(?:src|href)="(/[^"]+\.(?:js|css)[^"]*)"')


def fetch(port: int, path: str, cookie: str, encoding: str) -> tuple[int, bytes, bytes]:
    """(bytes read off the socket, the headers, the body as sent) of one GET."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept-Encoding: {encoding}\r\n"
                     f"Cookie: {cookie}\r\nConnection: close\r\n\r\n".encode())
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"{path}: {head.splitlines()[0].decode()}")
    return len(got), head, body


def page_bytes(port: int, path: str, cookie: str, encoding: str) -> tuple[int, int, str]:
    """Bytes on the wire for ``path`` and what its HTML loads; the number of files; the page's encoding."""
    total, head, body = fetch(port, path, cookie, encoding)
    said = re.search(rb"(?im)^content-encoding: *(\S+)", head)
    files = 1
    if path != "/api/state":
        plain = fetch(port, path, cookie, "identity")[2]
        for load in dict.fromkeys(LOADS.findall(plain)):
            total += fetch(port, load.decode(), cookie, encoding)[0]
            files += 1
    return total, files, said.group(1).decode() if said else "identity"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=40, help="entries of the game in play")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cribbage-bytes-") as folder:
        ledger = Path(folder) / "ledger.sqlite3"
        session = secrets.token_urlsafe(32)
        sessions_path(ledger).write_text(json.dumps({"sessions": {hashlib.sha256(session.encode()).hexdigest(): 1}}))
        board = RunningBoard(ledger)
        web, port = start_web(ledger)
        try:
            for n in range(args.entries):
                act = ("peg", 2) if n % 2 == 0 else ("undo", 0)
                answer = ask(socket_path(ledger), {"op": "enter", "session": session, "id": f"b{n}", "act": act[0],
                                                   "points": act[1]})
                if not answer.get("ok"):
                    raise RuntimeError(f"entry {n}: {answer}")
            cookie = f"cribbage_phone={session}; cribbage_seat=1"
            rows = []
            for path in PAGES:
                zipped, files, how = page_bytes(port, path, cookie, "gzip")
                plain, _, _ = page_bytes(port, path, cookie, "identity")
                rows.append((f"bytes on the wire, gzip : as written, {path} and what it loads ({files} file"
                             f"{'s' if files > 1 else ''})",
                             f"{zipped / plain:.2f}x ({zipped:,} against {plain:,} bytes; {how})"))
        finally:
            web.terminate()
            web.wait(30)
            board.stop()
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
