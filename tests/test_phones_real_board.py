"""The phones against the board as it ships: the board its own process (the mock board in an 80x24
terminal, driven by its keys as a person would), ``cribbage-board web`` its own process, each phone
paired from the board's Menu > Phones by the address its OLED shows; then every attack of
tests/test_phone_attacks.py, each followed by a paired phone's tap that is entered."""

from __future__ import annotations

import itertools
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from firmware.web.feed import STREAMS_PER_CLIENT
from firmware.wire.relay import HEADER, ask, header_token, socket_path
from ledger.reader import LedgerReader

from test_phone_attacks import _raw
from test_phones import Phone, request
from waits import CEILING_S, eventually
from web_games import ROOT, _start_web, stop

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("tmux") is None, reason="the terminal board is driven in tmux: "
                                                                      "apt-get install tmux (.ci/run does)")]

CODE = re.compile(r"/P/([A-Z0-9]{8,})")
EVENTS_FLOOD = 3_900  # /events streams one client opens and holds, as the attack did
UNIT_NOFILE = 4096  # the web view's unit: LimitNOFILE
_sessions = itertools.count()


class TerminalBoard:
    """``cribbage-board`` as a process in a tmux pane of 80x24 (a tmux server of its own): its
    screen read as a person reads it, its keys pressed as a person presses them."""

    def __init__(self, ledger: Path, web_port: int, log: Path):
        self.server = f"cribbage-{os.getpid()}-{next(_sessions)}"
        command = (f"cd {ROOT} && PYTHONPATH={ROOT} exec {sys.executable} -m firmware.cli --state {ledger} "
                   f"--set web.port={web_port} 2>{log}")
        self._tmux("new-session", "-d", "-s", "board", "-x", "80", "-y", "24", command)
        self._tmux("set-option", "-t", "board", "remain-on-exit", "on")
        assert eventually(lambda: "OLED" in self.screen(), CEILING_S), self.screen()
        assert eventually(lambda: socket_path(ledger).exists(), CEILING_S)

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.server, *args], check=True, capture_output=True,
                              text=True, timeout=CEILING_S).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "board")

    def oled(self) -> list[str]:
        """The lines of the OLED's box, as the terminal shows them."""
        return [line.split("│")[1].rstrip() for line in self.screen().splitlines()
                if line.startswith("│") and line.count("│") >= 2]

    def press(self, key: str) -> None:
        self._tmux("send-keys", "-t", "board", key)

    def choose(self, item: str) -> None:
        """Move the menu's marker down to ``item`` (it wraps) and choose it."""
        for _ in range(40):
            if f"> {item}" in self.oled():
                self.press("Enter")
                return
            shown = self.oled()
            self.press(".")
            eventually(lambda: self.oled() != shown, 2.0)
        raise AssertionError(f"no {item!r} in the menu: {self.oled()}")

    def pairing_code(self, seat_name: str) -> str:
        """Menu > Phones > Pair SEAT: the code of the address the OLED shows."""
        if self.oled()[0] != "Phones":  # a pairing closes back to the Phones menu or to the game
            if self.oled()[0] != "Menu":
                self.press("M")
            assert eventually(lambda: self.oled()[0] == "Menu", CEILING_S), self.oled()
            self.choose("Phones")
        assert eventually(lambda: self.oled()[0] == "Phones", CEILING_S), self.oled()
        self.choose(f"Pair {seat_name}")
        found: list[str] = []
        assert eventually(lambda: found.extend(CODE.findall("".join(self.oled()))) or found, CEILING_S), self.oled()
        return found[0]

    def running(self) -> bool:
        return self._tmux("list-panes", "-t", "board", "-F", "#{pane_dead}").strip() == "0"

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.server, "kill-server"], capture_output=True, timeout=CEILING_S)


class ShippedTable:
    """The board's process and the web view's process over one ledger; phones paired the player's way."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.ledger = tmp_path / "l.sqlite3"
        self.web_log = tmp_path / "web.log"
        self.web, self.base = self._web()
        self.port = int(self.base.rsplit(":", 1)[1].rstrip("/"))
        self.terminal = TerminalBoard(self.ledger, self.port, tmp_path / "board.log")

    def _web(self):
        for _ in range(5):  # as the unit runs it: its open files capped
            process, base = _start_web(self.ledger, (), CEILING_S, ("prlimit", f"--nofile={UNIT_NOFILE}"),
                                       self.web_log, "127.0.0.1")
            if process is not None:
                return process, base
        raise RuntimeError("no free port")

    def pair(self, seat_name: str) -> Phone:
        """The OLED's address opened on a phone, and its one button pressed."""
        code = self.terminal.pairing_code(seat_name)
        status, _, page = request(self.base, "GET", f"/P/{code}")
        assert status == 200 and b"Pair this phone" in page
        status, headers, body = request(self.base, "POST", "/pair", urllib.parse.urlencode({"code": code}).encode(),
                                        {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 303, body
        assert eventually(lambda: "Pair " not in self.terminal.oled()[0], CEILING_S), self.terminal.oled()
        return Phone(self, status, headers, body)

    def ledger_lines(self) -> list[str]:
        with LedgerReader(self.ledger) as reader:
            return reader.export()

    def close(self) -> None:
        self.terminal.close()
        stop(self.web)


@pytest.fixture
def shipped(tmp_path):
    table = ShippedTable(tmp_path)
    try:
        yield table
    finally:
        table.close()


def _next_tap_is_entered(table: ShippedTable, phone: Phone, points: int) -> None:
    """The board's process runs on, and the paired phone's next tap is entered, in the ledger and on its screen."""
    assert table.terminal.running(), table.terminal.screen()
    status, answer = phone.enter("peg", points)
    assert (status, answer.get("text")) == (200, f"Blue peg {points}"), answer
    assert table.ledger_lines()[-1] == f"peg Blue {points}  # via phone Blue"


def _first_answer(sock: socket.socket) -> str:
    """What one /events request got: "429", or its first event: "live" (the board) or "busy" (too many)."""
    got = b""
    while b"\r\n\r\n" not in got or (got.startswith(b"HTTP/1.1 200") and b"\n\n" not in got.split(b"\r\n\r\n", 1)[1]):
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    if got.startswith(b"HTTP/1.1 429"):
        return "429"
    event = got.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in got else b""
    return "live" if b"event: message" in event else "busy" if b"event: busy" in event else repr(got[:80])


def test_every_attack_leaves_the_shipped_board_scoring(shipped):
    """Paired from the board's menu, Blue's phone pegs; then a lone surrogate id, 3,000 "[" on the board's
    socket, a made-up session on every seat route, 3,900 /events streams held by one client, a 5,000-character
    cookie: each is refused in words, and after each Blue's next tap is entered."""
    blue = shipped.pair("Blue")
    red = shipped.pair("Red")
    assert red.enter("hand", 19)[1]["message"]  # no hand counts nineteen: a refusal in words
    _next_tap_is_entered(shipped, blue, 1)
    assert eventually(lambda: "Blue 1" in shipped.terminal.screen(), CEILING_S)  # the score line took the tap

    headers = {"Content-Type": "application/json", "Cookie": blue.cookie, HEADER: header_token(blue.session)}
    body = json.dumps({"id": "\ud800", "act": "peg", "points": 1}).encode()
    status, _, said = request(shipped.base, "POST", "/api/phone/entry", body, headers)
    assert status == 400 and json.loads(said)["message"]
    answer = ask(socket_path(shipped.ledger), {"op": "enter", "session": blue.session, "id": "\ud800", "act": "peg",
                                               "points": 1})
    assert answer["ok"] is False and answer["message"]
    _next_tap_is_entered(shipped, blue, 2)

    assert _raw(shipped, b"[" * 3000 + b"\n") in (b"", b'{"ok":false,"message":"not a request"}\n')
    _next_tap_is_entered(shipped, blue, 3)

    refused = []
    for n in range(12):
        made_up = f"{n:02d}" + "A" * 41
        forged = {"Cookie": f"cribbage_phone={made_up}; cribbage_seat=1", HEADER: header_token(made_up)}
        refused.append(request(shipped.base, "GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=1", None, forged)[0])
        for path in ("/api/phone/entry", "/api/phone/unpair"):
            body = json.dumps({"id": f"m{n}", "act": "peg", "points": 2}).encode()
            refused.append(request(shipped.base, "POST", path, body, {**forged, "Content-Type": "application/json"})[0])
        status, _, page = request(shipped.base, "GET", "/phone", None, forged)
        assert status == 200 and b"Pair this phone" not in page and b"data-acts" not in page
    assert set(refused) <= {403, 429} and 403 in refused and 429 in refused, refused
    coached = request(shipped.base, "GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=1", None,
                      {"Cookie": blue.cookie, HEADER: header_token(blue.session)})
    assert coached[0] == 200 and json.loads(coached[2])["ok"]
    _next_tap_is_entered(shipped, blue, 4)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < EVENTS_FLOOD + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, EVENTS_FLOOD + 400), hard))
    host, port = urllib.parse.urlsplit(shipped.base).hostname, shipped.port
    flood: list[socket.socket] = []
    try:
        answered = {}
        for _ in range(EVENTS_FLOOD):
            sock = socket.create_connection((host, port), timeout=CEILING_S)
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            flood.append(sock)
        for sock in flood[:100]:
            kind = _first_answer(sock)
            answered[kind] = answered.get(kind, 0) + 1
        assert answered.get("live", 0) <= STREAMS_PER_CLIENT, answered
        assert set(answered) <= {"live", "busy", "429"} and answered.get("busy", 0) + answered.get("429", 0), answered
        for path in ("/", "/api/state"):
            assert request(shipped.base, "GET", path)[0] == 200, path
        _next_tap_is_entered(shipped, blue, 5)
    finally:
        for sock in flood:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    big = "A" * 5000
    huge = {"Cookie": f"cribbage_phone={big}; cribbage_seat=1", HEADER: header_token(big),
            "Content-Type": "application/json"}
    status, _, said = request(shipped.base, "POST", "/api/phone/entry", json.dumps({"id": "z", "act": "peg",
                                                                                       "points": 2}).encode(), huge)
    assert status == 400 and json.loads(said)["message"]
    _next_tap_is_entered(shipped, blue, 6)

    assert shipped.ledger_lines()[1:] == [f"peg Blue {n}  # via phone Blue" for n in range(1, 7)]
    assert "Traceback" not in shipped.web_log.read_text()
    assert "Traceback" not in (shipped.tmp_path / "board.log").read_text()
