"""The club hub (``cribbage-board hub``) against a real Mosquitto: once only, nothing lost, bad messages
dropped, the director's corrections, the pages, and its command line's errors."""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from firmware.hub.ledger import HubLedger, HubReader
from firmware.wire import schema
from scorer.standings import name_key

from broker import Listener, Mosquitto, environment, free_port
from club_hub import CLUB, HubProcess, Table, acc_standings, peg_lines, wait_for
from waits import CEILING_S

pytestmark = pytest.mark.broker  # a real Mosquitto (tests/broker.py)

PLAYERS = "Ann,Bob,Cy,Di"


def kept(hub: HubProcess) -> dict[str, int]:
    """Rows in each table of the hub's ledger, read as any reader would (never in the writer's way)."""
    with HubReader(hub.state) as rows:
        return rows.counts()


def pairing_of(hub: HubProcess, table: str, round_number: int | None = None) -> list[str]:
    """Who plays at ``table`` in round ``round_number`` (the latest: at least round 1), once the hub has
    made it (its page answers before its first connection to the broker, which the round waits for)."""
    wanted = round_number or 1
    wait_for(lambda: len(hub.rounds()["list"]) >= wanted, f"round {wanted} was not made: {hub.log()}")
    rounds = hub.rounds()["list"]
    each = rounds[-1] if round_number is None else rounds[round_number - 1]
    return next(p["players"] for p in each["pairings"] if p["table"] == table)


def play(table: Table, game: int, players: list[str], scores: tuple[int, int]) -> dict:
    """A whole game at ``table`` as a board sends it: its game line, its entries, its result."""
    a, b = players
    lines = peg_lines(players, scores)
    for seq, line in enumerate(lines):
        table.entry(game, seq, line)
    return table.result(game, len(lines) - 1, {a: scores[0], b: scores[1]})


@pytest.fixture
def hub(tmp_path, broker):
    running = HubProcess(tmp_path / "hub", broker.url, "--players", PLAYERS, "--tables", "1,2", console=True).start()
    yield running
    running.stop()


@pytest.fixture
def tables(broker):
    made = {name: Table(broker.port, name) for name in ("1", "2")}
    for each in made.values():
        each.online()
    yield made
    for each in made.values():
        each.close()


def test_a_redelivered_entry_or_result_is_counted_once(hub, tables):
    """QoS 1 is at least once: the same entry and result twice are one row each and one game."""
    players = pairing_of(hub, "1")
    sent = play(tables["1"], 1, players, (121, 100))
    tables["1"].send("result", sent)  # the same again, as a redelivery
    lines = peg_lines(players, (121, 100))
    tables["1"].entry(1, 2, lines[2])
    wait_for(lambda: kept(hub)["results"] == 1 and kept(hub)["entries"] == len(lines), f"the hub kept {kept(hub)}")
    standings = {line["player"]: line for line in hub.standings()}
    assert standings[players[0]]["games"] == 1 and standings[players[0]]["game_points"] == 2
    assert standings[players[1]]["losses"] == 1 and standings[players[1]]["spread"] == -21


def test_pairings_are_published_retained_as_the_board_reads_them(hub, broker):
    """Each table's pairing is retained under its topic in the schema's shape: a board joining late reads it."""
    early = Listener(broker, f"cribbage/{CLUB}/table/+/pairing", client_id="early")
    try:  # the hub has published its pairings (a listener begun with it may hear them live, not retained)
        wait_for(lambda: len(early.payloads("pairing")) >= 2, "no pairings")
    finally:
        early.close()
    listener = Listener(broker, f"cribbage/{CLUB}/table/+/pairing", f"cribbage/{CLUB}/standings",
                        f"cribbage/{CLUB}/hub")  # joining late
    try:
        wait_for(lambda: len(listener.payloads("pairing")) >= 2, "no retained pairings")
        heard = {p["table"]: schema.decode("pairing", p["table"], schema.encode(p)) for p in listener.payloads("pairing")}
        assert heard["1"]["players"] == pairing_of(hub, "1") and heard["1"]["round"] == 1
        assert heard["1"]["night"] == "test-night"
        assert all(retained for topic, _, retained in listener.messages if topic.endswith("/pairing"))
        wait_for(lambda: listener.payloads("hub"), "no hub presence")
        assert listener.payloads("hub")[-1]["online"] is True
    finally:
        listener.close()
    assert hub.stop() == 0  # SIGTERM: in order, exit 0
    after = Listener(broker, f"cribbage/{CLUB}/hub", client_id="after")
    try:
        wait_for(lambda: after.payloads("hub"), "no retained hub presence")
        assert after.payloads("hub")[-1]["online"] is False  # a hub stopped says so
    finally:
        after.close()


def test_malformed_messages_are_one_line_each_and_the_hub_goes_on(hub, tables):
    """Not JSON, too big, the wrong type, another table's claim, another version, a version of 1.0, a key
    given twice, a line that is no record line: one line each, no traceback."""
    table = tables["1"]
    players = pairing_of(hub, "1")
    bad = [
        b"{not json",
        b"\xff\xfe",
        b"[1, 2]",
        b"x" * 10_000,
        json.dumps({"v": 1, "table": "1", "ledger": "0" * 16, "game": "one", "seq": 0, "line": "x"}).encode(),
        json.dumps({"v": 1, "table": "2", "ledger": "0" * 16, "game": 1, "seq": 0, "line": "x"}).encode(),
        json.dumps({"v": 7, "table": "1"}).encode(),
        json.dumps({"v": 1.0, "table": "1", "ledger": "0" * 16, "game": 1, "seq": 1, "line": "heels"}).encode(),
        b'{"v": 1, "table": "2", "table": "1", "ledger": "0000000000000000", "game": 1, "seq": 1, "line": "heels"}',
        json.dumps({"v": 1, "table": "1", "ledger": "0" * 16, "game": 1, "seq": 1, "line": "xyzzy 3"}).encode(),
    ]
    for payload in bad:
        table.send("entry", payload)
    table.send("result", b'{"v": 1, "table": "1", "status": "finished"}')
    play(table, 1, players, (121, 95))
    wait_for(lambda: kept(hub)["results"] == 1, f"the good game after the bad ones was not kept: {hub.log()}")
    log = hub.log()
    assert log.count("ignored:") == len(bad)  # the last entry names a game: refused, told to its table
    assert "Traceback" not in log
    assert "claims table '2' on table 1's topic" in log
    assert "schema version 1.0" in log and "the key 'table' is given twice" in log
    assert "refused: table 1 game 1 entry 1: entry: line 'xyzzy 3' is not a record line" in log
    assert hub.process.poll() is None
    assert kept(hub)["entries"] == len(peg_lines(players, (121, 95)))


def test_a_flood_of_bad_messages_is_rate_limited_in_the_log(hub, tables):
    """Many bad messages: at most a burst of lines, then the hub still counts good games."""
    for _ in range(60):
        tables["2"].send("entry", b"nonsense")
    players = pairing_of(hub, "2")
    play(tables["2"], 1, players, (121, 70))
    wait_for(lambda: kept(hub)["results"] == 1, "the good game was not kept")
    assert hub.log().count("ignored:") <= 20


def test_a_correction_changes_the_standings_and_keeps_its_reason(hub, tables):
    """correct, void and restore on the console: new rows with their reasons; the standings follow each."""
    a, b = pairing_of(hub, "1")
    play(tables["1"], 1, [a, b], (121, 100))
    wait_for(lambda: any(line["games"] for line in hub.standings()), "the game was not counted")
    hub.say(f'correct 1 1 {a}:121 {b}:80 reason="crib miscounted"')
    wait_for(lambda: {row["player"]: row for row in hub.standings()}[a]["game_points"] == 3, "the correction did not count")
    assert {row["player"]: row for row in hub.standings()}[b]["spread"] == -41
    hub.say('void 1 1 reason="wrong players sat down"')
    wait_for(lambda: {row["player"]: row for row in hub.standings()}[a]["games"] == 0, "the void did not count")
    hub.say('restore 1 1 reason="they were right"')
    wait_for(lambda: {row["player"]: row for row in hub.standings()}[a]["game_points"] == 2, "the restore did not count")
    hub.say("correct 1 1 nonsense")
    hub.say("frobnicate")
    hub.say("rounds")
    wait_for(lambda: "table 1: " in hub.output() and "type help" in hub.output(), "no answers on the console")
    with HubReader(hub.state) as rows:
        corrections = rows.corrections()
    assert [(c.action, c.reason) for c in corrections] == [
        ("correct", "crib miscounted"), ("void", "wrong players sat down"), ("restore", "they were right")]
    output = hub.output()
    assert "! no command 'frobnicate': type help" in output
    assert "a side's score is NAME:SCORE" in output
    assert "Traceback" not in output + hub.log()


def test_a_correction_without_a_reason_is_refused(hub, tables):
    a, b = pairing_of(hub, "1")
    play(tables["1"], 1, [a, b], (121, 100))
    wait_for(lambda: kept(hub)["results"] == 1, "the game was not kept")
    hub.say(f"correct 1 1 {a}:121 {b}:80")
    wait_for(lambda: "needs a reason" in hub.output(), f"no refusal: {hub.output()}")
    assert kept(hub)["corrections"] == 0


def test_the_next_round_is_made_when_every_game_has_its_result(hub, tables):
    """Round 2 comes once round 1's games are in, with no repeat opponents, and is published to the tables."""
    first = {name: pairing_of(hub, name) for name in ("1", "2")}
    for name, table in tables.items():
        play(table, 1, first[name], (121, 88))
    wait_for(lambda: hub.rounds()["round"] == 2, "round 2 was not made")
    second = [set(pairing_of(hub, name, 2)) for name in ("1", "2")]
    assert all(pair not in second for pair in (set(p) for p in first.values()))
    standings = hub.standings()
    games = [(p[0], 121, p[1], 88) for p in first.values()]
    assert standings == acc_standings(games)


def test_the_night_csv_cannot_run_as_a_formula(tmp_path, broker):
    """A cell that starts with = + - @ (a name may begin with - or @) is quoted so a spreadsheet shows it as text."""
    with HubProcess(tmp_path / "hub", broker.url, "--players=-Bob,@SUM,Ann,Cy", "--tables", "1,2") as hub:
        tables = {name: Table(broker.port, name) for name in ("1", "2")}
        try:
            name, players = next((name, pairing_of(hub, name)) for name in tables
                                 if any(p[0] in "-@" for p in pairing_of(hub, name)))
            players.sort(key=lambda p: p[0] not in "-@")  # the formula-like name first: it starts the seats cell
            play(tables[name], 1, players, (121, 90))
            wait_for(lambda: len(list(csv.reader(io.StringIO(hub.get("/club/night.csv"))))) == 2,
                     f"the game is not in the CSV: {hub.log()}")  # the page's snapshot follows the commit
            text = hub.get("/club/night.csv")
        finally:
            for table in tables.values():
                table.close()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:6] == ["round", "table", "ledger", "game", "status", "seats"]
    assert len(rows) == 2
    for cell in rows[1]:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    assert rows[1][5] == "'" + " ".join(players)
    assert rows[1][7] == "'" + players[0]  # the winner


MARKUP = "<b>Zoë</b>"  # a player's name that would be markup


@pytest.fixture(scope="module")
def reading_hub(tmp_path_factory):
    """One hub for the tests that only read its pages: players Ann and MARKUP, table 1."""
    folder = tmp_path_factory.mktemp("reading-hub")
    with Mosquitto(folder / "broker") as broker, \
            HubProcess(folder / "hub", broker.url, "--players", f"Ann,{MARKUP}", "--tables", "1") as hub:
        yield hub


def test_the_pages_answer_with_security_headers_and_escape_names(reading_hub):
    """/club, the API and the CSV carry the CSP (no inline script), nosniff, no referrer, no framing;
    a name is escaped in <bdi>; a write is refused."""
    hub = reading_hub
    for path in ("/club", "/api/club/standings", "/api/club/rounds", "/club/night.csv", "/club/events"):
        request = urllib.request.Request(hub.base + path, method="HEAD" if path.endswith("events") else "GET")
        with urllib.request.urlopen(request, timeout=CEILING_S) as answer:
            headers = answer.headers
            csp = headers["Content-Security-Policy"]
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
            assert headers["X-Content-Type-Options"] == "nosniff"
            assert headers["Referrer-Policy"] == "no-referrer"
    page = hub.get("/club")
    assert "<bdi>&lt;b&gt;Zoë&lt;/b&gt;</bdi>" in page and "<b>Zoë" not in page
    assert "<script>" not in page and 'src="/club/club.js"' in page
    assert len(re.findall(r"<h1[ >]", page)) == 1 and '<h1 class="brand"><bdi>' in page  # a heading (axe)
    assert [line["player"] for line in hub.get("/api/club/standings?scope=season")] == []
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(urllib.request.Request(hub.base + "/api/club/standings", data=b"x"),
                               timeout=CEILING_S)
    assert refused.value.code == 405
    with pytest.raises(urllib.error.HTTPError) as wrong:
        hub.get("/api/club/standings?scope=ever")
    assert wrong.value.code == 400


def status_for_host(hub: HubProcess, path: str, host: str) -> tuple[int, bytes, bytes]:
    """The status, head and body the hub answers to GET ``path`` with the Host header ``host`` (an
    event stream's head only: it never ends)."""
    deadline = time.monotonic() + CEILING_S
    with socket.create_connection(("127.0.0.1", hub.port), timeout=CEILING_S) as sock:
        request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        sock.sendall(request.encode("latin-1"))
        answer = b""
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            answer += chunk
            if not chunk or b"text/event-stream" in answer.partition(b"\r\n\r\n")[0]:
                break
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), head, body


def test_only_host_names_that_can_be_this_hub_are_answered(reading_hub):
    """localhost, IP literals, the machine's hostname and *.local names are answered; any other Host
    (a page loaded from another name: DNS rebinding) gets 421, one line, with the security headers."""
    ours = ["127.0.0.1", "localhost", "LocalHost:8120", "[::1]", "192.168.1.20:8120", "club.local",
            socket.gethostname()]
    theirs = ["evil.example", "evil.example:8120", "localhost.evil.example", "127.0.0.1.nip.io", "club.local.evil"]
    answered = {host: status_for_host(reading_hub, "/api/club/standings", host)[0] for host in ours}
    refused = {(host, path): status_for_host(reading_hub, path, host) for host in theirs
               for path in ("/club", "/api/club/standings", "/club/night.csv", "/club/events")}
    assert answered == {host: 200 for host in ours}
    for where, (status, head, body) in refused.items():
        assert status == 421, where
        assert body.count(b"\n") == 1 and body.startswith(b"misdirected request: this hub answers to localhost")
        assert b"content-security-policy" in head.lower() and b"Ann" not in body


def test_the_events_stream_sends_the_standings_when_a_result_comes(tmp_path, broker):
    """/club/events: the whole live part at once, then only what changed: the new standings after a game,
    put in place by the rows' keys, give the standings the API gives."""
    with HubProcess(tmp_path / "hub", broker.url, "--players", PLAYERS, "--tables", "1,2") as hub:
        hub.subscribed()
        stream = urllib.request.urlopen(hub.base + "/club/events", timeout=CEILING_S)
        table = Table(broker.port, "1")
        try:
            kind, first = _event(stream)
            assert kind == "snapshot" and all(line["games"] == 0 for line in first["standings"])
            shown = Viewer(first)
            play(table, 1, pairing_of(hub, "1"), (121, 100))
            while not any(line["games"] for line in shown.standings):
                kind, event = _event(stream)
                assert kind == "delta" and event["base"] == shown.version
                assert {line["key"] for line in event["standings"]} <= {"ann", "bob", "cy", "di"}
                shown.take(event)
            assert [line["player"] for line in shown.standings] == [line["player"] for line in hub.standings()]
            assert shown.standings == hub.standings()
        finally:
            stream.close()
            table.close()


class Viewer:
    """What a viewer of /club/events knows: a snapshot, then each delta put in place by its keys, as club.js does."""

    FIELDS = ("player", "game_points", "wins", "losses", "spread", "games")

    def __init__(self, snapshot: dict):
        self.version = snapshot["version"]
        self.standings = [{k: line[k] for k in self.FIELDS} for line in snapshot["standings"]]
        self.keys = [name_key(line["player"]) for line in snapshot["standings"]]

    def take(self, delta: dict) -> None:
        for line in delta["standings"]:
            if line["key"] in self.keys:
                at = self.keys.index(line["key"])
                del self.keys[at], self.standings[at]
            if line.get("gone"):
                continue
            at = 0 if line["after"] is None else self.keys.index(line["after"]) + 1
            self.keys.insert(at, line["key"])
            self.standings.insert(at, {k: line[k] for k in self.FIELDS})
        if not delta.get("more"):
            self.version = delta["version"]


def _event(stream) -> tuple[str, dict]:
    """The next server-sent event's type and data (keep-alive comments skipped)."""
    kind = "message"
    while True:
        line = stream.readline().decode("utf-8")
        if line.startswith("event: "):
            kind = line[len("event: "):].strip()
        if line.startswith("data: "):
            return kind, json.loads(line[len("data: "):])


def test_the_hub_killed_with_kill_9_loses_nothing_and_counts_nothing_twice(tmp_path, broker):
    """kill -9 while the tables send, games played while it is down: started again, it has every entry once."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--players", PLAYERS, "--tables", "1,2").start()
    tables = {name: Table(broker.port, name) for name in ("1", "2")}
    try:
        first = {name: pairing_of(hub, name) for name in tables}
        for line in range(1, 40):  # a burst the hub is busy with when it dies (a game not finished)
            tables["1"].entry(9, line, f"peg {first['1'][0]} 1")
        hub.kill()
        for name, table in tables.items():
            play(table, 1, first[name], (121, 60 if name == "1" else 95))
        hub.start()
        wait_for(lambda: kept(hub)["results"] == 2 and hub.rounds()["round"] == 2,
                 f"the hub did not catch up: {kept(hub)}")
        sent = 39 + len(peg_lines(first["1"], (121, 60))) + len(peg_lines(first["2"], (121, 95)))
        wait_for(lambda: kept(hub)["entries"] == sent, f"entries lost or doubled: {kept(hub)}")
        expected = acc_standings([(first["1"][0], 121, first["1"][1], 60), (first["2"][0], 121, first["2"][1], 95)])
        assert hub.standings() == expected
        assert kept(hub)["rounds"] == 2  # round 1 not made again on the restart
    finally:
        for table in tables.values():
            table.close()
        hub.stop()


def test_the_broker_restarted_mid_night_loses_nothing(tmp_path, broker):
    """Mosquitto stopped and started mid-round: the hub reconnects, the tables deliver, the standings end exact."""
    with HubProcess(tmp_path / "hub", broker.url, "--players", PLAYERS, "--tables", "1,2") as hub:
        tables = {name: Table(broker.port, name) for name in ("1", "2")}
        try:
            first = {name: pairing_of(hub, name) for name in tables}
            play(tables["1"], 1, first["1"], (121, 110))
            broker.restart()
            play(tables["2"], 1, first["2"], (121, 55))
            wait_for(lambda: kept(hub)["results"] == 2, f"a result was lost: {kept(hub)} {hub.log()}")
            wait_for(lambda: hub.rounds()["round"] == 2, "round 2 was not made")
            assert kept(hub)["entries"] == len(peg_lines(first["1"], (121, 110))) + len(peg_lines(first["2"], (121, 55)))
            assert hub.standings() == acc_standings([(first["1"][0], 121, first["1"][1], 110),
                                                     (first["2"][0], 121, first["2"][1], 55)])
            assert "reconnect" in hub.log() or hub.log().count("connected to") >= 2
        finally:
            for table in tables.values():
                table.close()


# ---- the command line's errors: one line, exit 2, no traceback -------------------


def hub_command(*args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "firmware.cli", "hub", *args], capture_output=True, text=True,
                          timeout=CEILING_S, env=environment(), stdin=stdin)


def one_line_refusal(done: subprocess.CompletedProcess, *said: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for words in said:
        assert words in lines[0], lines[0]


@pytest.mark.parametrize("args, said", [
    (("--broker", "http://example.org", "--club", "thu"), "use mqtt://host:1883"),
    (("--broker", "mqtt://", "--club", "thu"), "name the broker's host"),
    (("--broker", "mqtt://127.0.0.1:1883", "--club", "thu/#"), "--club"),
    (("--broker", "mqtt://127.0.0.1:1883", "--club", "thu", "--points", "lots"), "--points"),
    (("--broker", "mqtt://127.0.0.1:1883", "--club", "thu", "--rounds", "0"), "--rounds"),
    (("--broker", "mqtt://127.0.0.1:1883", "--club", "thu", "--players", "Ann,ann"), "listed twice"),
    (("--broker", "mqtt://127.0.0.1:1883", "--club", "thu", "--username", "hub",
      "--password-file", "/nonexistent/password"), "--password-file /nonexistent/password"),
    (("--broker", "mqtt://127.0.0.1:1883", "--club", "thu", "--port", "70000"), "--port"),
])
def test_a_command_line_that_cannot_work_is_one_line(tmp_path, command_here, args, said):
    one_line_refusal(command_here("hub", *args, "--state", str(tmp_path / "hub.sqlite3")), said)
    assert not (tmp_path / "hub.sqlite3").exists()


def test_a_locked_ledger_and_a_port_in_use_are_one_line(tmp_path):
    """Another hub holds the ledger, or the port: say so, change nothing."""
    state = tmp_path / "hub.sqlite3"
    with HubLedger(state, holder="the other hub"):
        one_line_refusal(hub_command("--broker", "mqtt://127.0.0.1:1", "--club", "thu", "--state", str(state),
                                     "--port", str(free_port())), "hub.sqlite3")
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        one_line_refusal(hub_command("--broker", "mqtt://127.0.0.1:1", "--club", "thu", "--state", str(state),
                                     "--port", str(port)), f"port {port}", "in use")


def test_a_board_ledger_given_as_the_hubs_is_refused(tmp_path, command_here):
    from ledger.writer import LedgerWriter

    board = tmp_path / "board.sqlite3"
    LedgerWriter(board).close()
    one_line_refusal(command_here("hub", "--broker", "mqtt://127.0.0.1:1", "--club", "thu", "--state", str(board),
                                  "--port", str(free_port())), "a board's ledger")


def test_a_password_the_broker_refuses_is_one_line_at_start(tmp_path):
    """The broker refuses the hub's login at its first connection: the command line must change, so one line, exit 2."""
    with Mosquitto(tmp_path / "broker", users={"hub": "right"}) as broker:
        secret = tmp_path / "password"
        secret.write_text("wrong\n")
        done = hub_command("--broker", broker.url, "--club", "thu", "--state", str(tmp_path / "hub.sqlite3"),
                           "--port", str(free_port()), "--username", "hub", "--password-file", str(secret))
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "check --username and --password-file" in last and "Traceback" not in done.stderr


def test_the_directors_console_runs_a_night_from_the_start(tmp_path, broker):
    """No --players: player add, start, next, player remove, standings, players, help, then quit stops the hub."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--tables", "1,2", console=True).start()
    try:
        hub.say("start")
        hub.say("player add Ann Bob Cy")
        hub.say("player add Ann Di")
        hub.say("start")
        wait_for(lambda: hub.rounds()["round"] == 1, f"round 1 was not made: {hub.output()}")
        assert sorted(p for pairing in hub.rounds()["list"][0]["pairings"] for p in pairing["players"]) == \
            ["Ann", "Bob", "Cy", "Di"]
        hub.say("next")
        wait_for(lambda: hub.rounds()["round"] == 2, f"round 2 was not made: {hub.output()}")
        hub.say("player remove Di")
        hub.say("players")
        hub.say("standings")
        hub.say("help")
        wait_for(lambda: "3 players: Ann, Bob, Cy" in hub.output(), f"no players: {hub.output()}")
        hub.say("next")
        wait_for(lambda: hub.rounds()["round"] == 3, f"round 3 was not made: {hub.output()}")
        assert hub.rounds()["list"][2]["bye"] in ("Ann", "Bob", "Cy")  # three players: one sits out
        hub.say("quit")
        assert hub.process.wait(CEILING_S) == 0
    finally:
        hub.stop()
    output = hub.output()
    assert "! fewer than 2 players: add them first (player add NAME...)" in output
    assert "added Ann, Bob, Cy" in output and "added Di (1 already registered)" in output
    assert "restore TABLE GAME" in output and "night test-night" in output
    assert "stopping the hub" in output and "Traceback" not in output + hub.log()


def test_a_result_sent_again_by_a_board_of_another_version_is_no_conflict():
    """The same result with fields one version adds (target, skunk_lines, points) is the same result;
    another score, status or winner is a conflict."""
    from firmware.hub.hub import _differs

    first = {"v": 1, "table": "1", "game": 2, "rev": 9, "status": "finished", "scores": {"Ann": 121, "Bob": 90},
             "winner": "Ann", "at": None}
    newer = {**first, "target": 121, "skunk_lines": "acc", "points": "acc"}
    assert not _differs(first, newer) and not _differs(newer, first)
    assert _differs(first, {**newer, "scores": {"Ann": 121, "Bob": 91}})
    assert _differs(first, {**first, "winner": "Bob"})
    assert _differs(None, first)
