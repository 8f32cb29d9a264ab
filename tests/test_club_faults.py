"""A club night under the faults of the real world (issue 28), each run ending with the hub's standings
equal to those worked out from the tables' own ledgers (``games_in``, ``acc_standings``).

Every run uses the shipped broker set-up: the settings of systemd/mosquitto-cribbage.conf (one identity
per login, the message size limit, queues saved to disk only every 60 s, so a SIGKILL loses what the
broker held) and its ACL, a login for the hub and one for each table. Tables are real
``cribbage-board console`` processes; the hub is the real ``cribbage-board hub``.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from firmware.hub.hub import LOOK_AGAIN_S
from firmware.hub.ledger import HubReader
from firmware.wire import schema
from ledger.errors import LedgerError
from ledger.reader import LedgerReader

from broker import Listener, Mosquitto, free_port
from club_hub import (
    ConsoleTable,
    HubProcess,
    acc_standings,
    feed_of,
    game_lines,
    peg_lines,
    result_payload,
    until,
    wait_for,
)
from test_club_night import games_in
from waits import CEILING_S, eventually

pytestmark = pytest.mark.broker  # a real Mosquitto (tests/broker.py)

ROOT = Path(__file__).resolve().parent.parent
CLUB = "thu"
TABLES = ["1", "2", "3", "4"]
USERS = {"hub": "hub-secret", "homeassistant": "ha-secret", **{t: f"table-{t}-secret" for t in TABLES}}
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
LEDGER_EVERY_S = 0.1  # the tables' ledgers, each game replayed (some 4 ms a ledger), are read at most this often


def club_broker(folder: Path, port: int | None = None) -> Mosquitto:
    acl = (ROOT / "systemd" / "mosquitto-cribbage.acl").read_text().replace("@CLUB@", CLUB)
    return Mosquitto(folder, users=USERS, acl=acl, shipped=True, port=port)


class Night:
    """One broker (shipped set-up), one hub (its login), console tables (theirs), all in ``folder``."""

    def __init__(self, folder: Path, *hub_args: str, port: int | None = None):
        self.folder = folder
        self.broker = club_broker(folder / "broker", port).start()
        password = folder / "hub.password"
        password.write_text(USERS["hub"] + "\n")
        self.hub_args = ("--username", "hub", "--password-file", str(password), *hub_args)
        self.hub = HubProcess(folder / "hub", self.url, *self.hub_args, club=CLUB)
        self.boards: dict[str, ConsoleTable] = {}
        self.finished: list[ConsoleTable] = []

    @property
    def url(self) -> str:
        return self.broker.url

    def board(self, table: str, url: str | None = None) -> ConsoleTable:
        """Table ``table``'s console (started again if it had stopped), logged in as its table."""
        if table in self.boards:
            self.finished.append(self.boards.pop(table))
        board = ConsoleTable(self.folder, url or self.url, table, club=CLUB,
                             settings=[f"club.username={table}", f"club.password={USERS[table]}"])
        self.boards[table] = board
        return board

    def stop_board(self, table: str) -> None:
        board = self.boards.pop(table)
        assert board.close() == 0, board.log()
        self.finished.append(board)

    def pairings(self, number: int) -> dict[str, list[str]]:
        wait_for(lambda: self.hub.rounds()["round"] >= number, f"round {number} was not made: {self.hub.log()}")
        return {p["table"]: p["players"] for p in self.hub.rounds()["list"][number - 1]["pairings"]}

    def played(self) -> list[tuple[str, int, str, int]]:
        ledgers = {board.state for board in [*self.finished, *self.boards.values()]}
        found = []
        for ledger in sorted(ledgers):
            try:
                found += games_in(ledger)
            except LedgerError:  # not made yet: its console has just started
                pass
        return found

    def agree(self, games: int) -> None:
        """The tables' ledgers hold ``games`` finished games, and the hub's standings are theirs."""
        assert until(lambda: len(self.played()) == games, every=LEDGER_EVERY_S), self.played()
        played = self.played()
        expected = acc_standings(played)
        assert until(lambda: self.hub.standings() == expected), (
            f"the hub's standings {self.hub.standings()} are not the tables' {expected}: {self.hub.log()}")

    def sent(self) -> set[tuple[str, str, int, int]]:
        """(table, ledger, game, seq) of every game line and entry the tables' ledgers give the club."""
        found = set()
        for board in [*self.finished, *self.boards.values()]:
            try:
                ledger, lines = feed_of(board, board.table, CLUB)
            except LedgerError:  # not made yet: its console has just started
                continue
            found |= {(board.table, ledger, game, seq) for game, seq in lines}
        return found

    def watch(self) -> "Watch":
        """A watcher of what the tables send from now on (see :class:`Watch`); the tables are idle."""
        return Watch(self)

    def close(self) -> None:
        for board in list(self.boards.values()):
            if board.process.poll() is None:
                board.close()
        self.hub.stop()
        self.broker.stop()


class Watch:
    """Home Assistant's login (it reads the whole club) hearing the tables' entries and results, to know
    what the broker has taken from them: it sends a message on to its subscribers as it takes it."""

    def __init__(self, night: Night):
        self.night = night
        self.before, self.games_before = night.sent(), len(night.played())
        self.listener = Listener(night.broker, f"cribbage/{CLUB}/table/+/entry", f"cribbage/{CLUB}/table/+/result",
                                 client_id="homeassistant", user=("homeassistant", USERS["homeassistant"]))

    def broker_has_every_game(self, games: int) -> None:
        """Once the tables' ledgers hold ``games`` finished games: wait until the broker has taken every
        game line and entry sent since the watch began, and each of those games' finished result; then
        stop watching (the broker holds them all for the hub)."""
        def finished() -> set[tuple[str, str, int]]:
            return {(p["table"], p["ledger"], p["game"]) for p in self.listener.payloads("result")
                    if p["status"] == "finished"}

        try:  # first what was heard (cheap to look at), then the ledgers, each game replayed
            assert until(lambda: len(finished()) >= games - self.games_before), finished()
            assert until(lambda: len(self.night.played()) == games, every=LEDGER_EVERY_S), self.night.played()
            new = self.night.sent() - self.before
            games_of = {key[:3] for key in new}

            def taken() -> bool:
                entries = {(p["table"], p["ledger"], p["game"], p["seq"]) for p in self.listener.payloads("entry")}
                return new <= entries and games_of <= finished()

            assert new and until(taken), f"the broker did not take every entry: {sorted(new)[:5]}..."
        finally:
            self.listener.close()


@pytest.fixture
def night(tmp_path):
    made: list[Night] = []

    def make(*hub_args: str, port: int | None = None) -> Night:
        made.append(Night(tmp_path, *hub_args, port=port))
        return made[-1]

    yield make
    for each in made:
        each.close()


def client(night: Night, user: str, client_id: str) -> mqtt.Client:
    one = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    one.username_pw_set(user, USERS[user])
    one.connect("127.0.0.1", night.broker.port)
    one.loop_start()
    assert eventually(one.is_connected), f"{user} could not log in"
    return one


def refused_as_second(second: HubProcess, timeout: float) -> None:
    """The second hub stopped by itself within ``timeout``: exit 2, one line saying another hub of the club
    is online. (If it did not, it is stopped here rather than outlive the test.)"""
    try:
        assert second.process.wait(timeout) == 2, second.log()
    finally:
        second.stop()
    said = second.log().strip().splitlines()
    assert len(said) == 1 and "another hub for club thu is online" in said[0], said


def ledger_of(board: ConsoleTable) -> str:
    with LedgerReader(board.state) as reader:
        return reader.ledger_id()


def test_the_broker_killed_three_times_mid_night_with_the_hub_away_loses_nothing(night):
    """Four tables, two rounds. Round 1 is played with the hub stopped, every entry acknowledged by the
    broker and queued for the hub; the broker is killed (SIGKILL: its queue was never saved) and
    started again, then the hub. Round 2, the broker is killed twice more as the games go in."""
    one = night("--players", ",".join(PLAYERS), "--tables", ",".join(TABLES), "--rounds", "2")
    one.hub.start()
    pairings = one.pairings(1)
    one.hub.stop()
    watch = one.watch()
    for table, players in pairings.items():
        one.board(table).feed(game_lines(players, f"kill round 1 table {table}"))
    watch.broker_has_every_game(4)  # every entry reached the broker (it holds them for the hub)
    one.broker.stop(signal.SIGKILL)
    one.broker.start()
    one.hub.start()
    for table, players in one.pairings(2).items():
        one.boards[table].feed(game_lines(players, f"kill round 2 table {table}"))
        if table in ("1", "3"):
            one.broker.stop(signal.SIGKILL)
            one.broker.start()
    wait_for(lambda: one.hub.rounds()["over"], f"the night did not end: {one.hub.rounds()} {one.hub.log()}")
    one.agree(8)


def test_the_hub_killed_mid_night_and_then_the_directors_machine_losing_its_power_loses_nothing(night):
    """Round 1: the hub is killed (SIGKILL) as the games go in, and started again. Round 2: the hub is
    killed again and, while it is away, the broker too, as a power cut of the director's machine
    that runs both would; both started again, the night ends with the tables' standings."""
    one = night("--players", ",".join(PLAYERS[:4]), "--tables", "1,2", "--rounds", "2")
    one.hub.start()
    for table, players in one.pairings(1).items():
        one.board(table).feed(game_lines(players, f"hub kill round 1 table {table}"))
        if table == "1":
            one.hub.kill()
    wait_for(lambda: len(one.played()) == 2, "round 1's games did not end on the boards")  # with the hub away
    one.hub.start()
    pairings = one.pairings(2)
    one.hub.kill()
    watch = one.watch()
    for table, players in pairings.items():
        one.boards[table].feed(game_lines(players, f"hub kill round 2 table {table}"))
    watch.broker_has_every_game(4)  # the broker has every entry, and holds them for the hub
    one.broker.stop(signal.SIGKILL)
    one.broker.start()
    one.hub.start()
    wait_for(lambda: one.hub.rounds()["over"], f"the night did not end: {one.hub.rounds()} {one.hub.log()}")
    one.agree(4)


def test_a_game_finished_before_the_broker_existed_reaches_the_hub(night, tmp_path):
    """Table 1's console plays a whole game with no broker anywhere, and quits; then the broker and the
    hub start, and the console runs again and plays another: the hub counts both."""
    port = free_port()
    early = ConsoleTable(tmp_path, f"mqtt://127.0.0.1:{port}", "1", club=CLUB,
                         settings=["club.username=1", f"club.password={USERS['1']}"])
    early.feed(game_lines(["Ann", "Bob"], "before the broker"))
    assert early.close() == 0, early.log()
    assert "keeps every entry" in early.log()
    one = night("--rounds", "1", port=port)
    one.finished.append(early)
    one.hub.start()
    one.board("1").feed(game_lines(["Cy", "Di"], "after the broker"))
    one.agree(2)


def test_the_brokers_address_written_otherwise_after_a_restart_loses_nothing(night, tmp_path):
    """A game played while the broker, given as 127.0.0.1, is down; the board started again with it
    given as localhost, the broker up: that game is sent, and the next, once each."""
    one = night("--rounds", "1")
    port = one.broker.port
    one.broker.stop()
    board = one.board("1", f"mqtt://127.0.0.1:{port}")
    board.feed(game_lines(["Ann", "Bob"], "by address"))
    one.stop_board("1")
    one.broker.start()
    one.hub.start()
    one.board("1", f"mqtt://localhost:{port}").feed(game_lines(["Cy", "Di"], "by name"))
    one.agree(2)
    one.stop_board("1")
    one.board("1", f"mqtt://127.0.0.1:{port}").feed(game_lines(["Ann", "Cy"], "by address again"))
    one.agree(3)


def test_a_tables_login_asking_for_the_hubs_client_id_in_a_loop_takes_nothing(night):
    """While table 2 plays, table 1's login connects again and again asking for the hub's client id (and
    table 2's): the broker makes it client 1 each time; the hub keeps every entry of table 2's game."""
    one = night("--players", "Ann,Bob", "--tables", "2", "--rounds", "1")
    one.hub.start()
    one.pairings(1)
    board = one.board("2")
    lines = game_lines(["Ann", "Bob"], "identity")
    for k in range(0, len(lines), 6):
        board.feed(lines[k:k + 6])
        for wanted in (f"cribbage-{CLUB}-hub", "hub", f"cribbage-{CLUB}-table-2", "2"):
            thief = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=wanted, clean_session=k % 12 == 0)
            thief.username_pw_set("1", USERS["1"])
            thief.connect("127.0.0.1", one.broker.port)
            thief.loop_start()
            eventually(thief.is_connected)
            thief.disconnect()
            thief.loop_stop()
    wait_for(lambda: one.hub.rounds()["over"], f"the game did not end at the hub: {one.hub.log()}")
    one.agree(1)
    assert "went away" not in one.hub.log()  # the hub was never knocked off


def test_a_retained_result_planted_before_the_night_is_not_counted(night):
    """Table 2's login leaves a retained result (Ann 121, Bob 95: a result the hub would otherwise keep)
    before the hub starts; the hub ignores it with one line, and counts the games the tables play."""
    one = night("--players", "Ann,Bob,Cy,Di", "--tables", "1,2", "--rounds", "1")
    planter = client(one, "2", "2")  # as its board would log in
    scores = {"Ann": 121, "Bob": 95}
    losers = [{"side": "Bob", "score": 95, "result": "win", "margin": 26, "game_points": 2}]
    planted = {"v": 1, "table": "2", "ledger": "ab" * 8, "game": 1, "rev": 40, "status": "finished",
               "variant": "six-card", "seats": ["Ann", "Bob"], "scores": scores, "winner": "Ann",
               "losers": losers, "margin": 26, "result": "win", "game_points": 2, "skunk": False, "at": None}
    schema.decode("result", "2", schema.encode(planted))  # possible: only its retain flag gives it away
    planter.publish(f"cribbage/{CLUB}/table/2/result", schema.encode(planted), qos=1, retain=True).wait_for_publish(5)
    planter.disconnect()
    planter.loop_stop()
    one.hub.start()
    for table, players in one.pairings(1).items():
        one.board(table).feed(game_lines(players, f"planted table {table}"))
    wait_for(lambda: one.hub.rounds()["over"], f"the round did not end: {one.hub.log()}")
    one.agree(2)
    assert "a retained result" in one.hub.log()


def test_the_logins_that_are_not_tables_cannot_play_as_a_table_of_their_name(night):
    """The ACL's patterns let every login write the table topics of its own name: Home Assistant's and
    the hub's logins send a game as tables "homeassistant" and "hub"; the hub counts neither."""
    one = night("--players", "Ann,Bob", "--tables", "1", "--rounds", "1")
    one.hub.start()
    one.pairings(1)
    ledger = "ef" * 8
    for user in ("homeassistant", "hub"):
        sender = client(one, user, user)
        for seq, line in enumerate(game_lines(["Ann", "Bob"], f"as {user}")):
            payload = schema.entry_payload(user, ledger, 1, seq, line, None)
            sender.publish(f"cribbage/{CLUB}/table/{user}/entry", schema.encode(payload), qos=1).wait_for_publish(5)
        sender.disconnect()
        sender.loop_stop()
    one.board("1").feed(game_lines(["Ann", "Bob"], "the real table"))
    one.agree(1)
    with HubReader(one.hub.state) as rows:
        assert set(rows.entry_counts(rows.nights()[0].id)) == {"1"}
    assert "not one of this club's table topics" in one.hub.log()


def test_a_conflicting_redelivery_is_kept_once_and_said(night):
    """Table 1 plays its game; then its login sends one of its entries and its result again, each with
    other content, under the same keys: the first copies stand, the standings are the ledger's, and
    the hub says each in one line and lists both on the director's console."""
    one = night("--players", "Ann,Bob", "--tables", "1", "--rounds", "1")
    one.hub.console = True
    seen = Listener(one.broker, f"cribbage/{CLUB}/table/+/result", client_id="ha", user=("homeassistant",
                                                                                           USERS["homeassistant"]))
    try:
        one.hub.start()
        one.pairings(1)
        board = one.board("1")
        board.feed(game_lines(["Ann", "Bob"], "conflict"))
        wait_for(lambda: one.hub.rounds()["over"], f"the game did not end: {one.hub.log()}")
        one.agree(1)
        real = next(p for p in reversed(seen.payloads("result")) if p["status"] == "finished")
        forged_result = dict(real)
        loser = dict(real["losers"][0])
        loser["score"] += 1 if loser["score"] in (31, 61, 91) else -1  # a score in the same band
        loser["margin"] = real["scores"][real["winner"]] - loser["score"]
        forged_result.update(scores={**real["scores"], loser["side"]: loser["score"]}, losers=[loser],
                             margin=loser["margin"])
        forged_entry = schema.entry_payload("1", ledger_of(board), 1, 1, "hand Bob 29", None)
        forger = client(one, "1", "1")
        for kind, payload in (("entry", forged_entry), ("result", forged_result)):
            forger.publish(f"cribbage/{CLUB}/table/1/{kind}", schema.encode(payload), qos=1).wait_for_publish(5)
        forger.disconnect()
        forger.loop_stop()
        wait_for(lambda: one.hub.log().count("conflict: ") == 2, f"the conflicts were not said: {one.hub.log()}")
        one.agree(1)
        one.hub.say("conflicts")
        wait_for(lambda: "2 conflicts" in one.hub.output(), f"the console did not list them: {one.hub.output()}")
        assert "'hand Bob 29'" in one.hub.output()
    finally:
        seen.close()


def test_two_hubs_started_for_one_club_the_second_is_refused_in_one_line(night, tmp_path):
    """A second hub for the club, with a ledger of its own, started mid-night: it stops at once, exit 2,
    one line; the first keeps the whole night."""
    one = night("--players", "Ann,Bob,Cy,Di", "--tables", "1,2", "--rounds", "2")
    one.hub.start()
    pairings = one.pairings(1)
    one.board("1").feed(game_lines(pairings["1"], "two hubs 1"))
    second = HubProcess(tmp_path / "second", one.url, *one.hub_args, club=CLUB).start(wait=False)
    refused_as_second(second, 30)
    one.board("2").feed(game_lines(pairings["2"], "two hubs 2"))
    for table, players in one.pairings(2).items():
        one.boards[table].feed(game_lines(players, f"two hubs round 2 table {table}"))
    wait_for(lambda: one.hub.rounds()["over"], f"the night did not end: {one.hub.rounds()} {one.hub.log()}")
    one.agree(4)


def test_a_hub_lost_with_the_broker_leaves_a_word_that_stops_no_later_hub(night):
    """The director's machine loses its power while the broker had saved the hub's presence (online:
    true) and before any last will could be sent: the broker comes back holding that word for a hub
    that is gone. The hub started again looks twice, sees nobody answer, says so in one line and
    keeps the night. Then the broker crashes again and comes back from the same save, the lost hub's
    word with it: the running hub is not stopped by it either. The standings are the tables'."""
    one = night("--players", "Ann,Bob,Cy,Di", "--tables", "1,2", "--rounds", "1")
    one.hub.start()
    pairings = one.pairings(1)
    one.board("1").feed(game_lines(pairings["1"], "lost hub 1"))
    one.broker.save()  # an autosave (every 60 s as shipped): the hub's word, online, is on disk
    one.hub.process.send_signal(signal.SIGSTOP)  # the power goes: neither says anything more
    one.broker.stop(signal.SIGKILL)
    one.hub.kill()
    one.broker.start()
    one.hub.start()
    assert until(lambda: "has not answered" in one.hub.log() or one.hub.process.poll() is not None,
                 LOOK_AGAIN_S + CEILING_S), one.hub.log()
    assert one.hub.process.poll() is None, f"the hub stopped: {one.hub.log()}"
    connected = one.hub.log().count("connected to")
    assert "the broker holds hub" not in one.hub.log()
    one.broker.stop(signal.SIGKILL)  # before the next autosave: the broker comes back with the lost hub's word
    one.broker.start()
    # The hub is back and has seen that word (it says so, and asks again later); then it takes table 2's game,
    # sent after: it went on (answers() fails, with its log, if it stopped).
    wait_for(lambda: one.hub.log().count("connected to") > connected and "the broker holds hub" in one.hub.log(),
             f"the hub did not see the lost hub's word: {one.hub.log()}")
    one.board("2").feed(game_lines(pairings["2"], "lost hub 2"))
    wait_for(lambda: one.hub.answers() and one.hub.rounds()["over"],
             f"the night did not end: {one.hub.rounds()} {one.hub.log()}")
    one.agree(2)
    assert "another hub" not in one.hub.log(), one.hub.log()


def test_a_second_hub_started_as_the_broker_comes_back_is_refused_though_the_first_is_away(night, tmp_path):
    """The broker crashes (after an autosave that holds the hub's word) and is away for a while; as it
    comes back, a second hub is started while the first is still between two tries to reconnect: the
    first is back before the second's look again, so the second stops, exit 2, one line, having kept
    nothing, and the first keeps the whole night."""
    one = night("--players", "Ann,Bob", "--tables", "1", "--rounds", "1")
    one.hub.start()
    pairings = one.pairings(1)
    one.broker.save()
    one.broker.stop(signal.SIGKILL)
    # The first hub has tried again and found nobody: between two tries, its back-off at its longest
    # (1 s, then HUB_RECONNECT_MAX_S: 2 s), as after any longer time away.
    wait_for(lambda: "cannot be reached; retrying" in one.hub.log(), f"the first hub did not retry: {one.hub.log()}")
    one.broker.start()
    second = HubProcess(tmp_path / "second", one.url, *one.hub_args, club=CLUB).start(wait=False)
    one.board("1").feed(game_lines(pairings["1"], "broker back"))
    refused_as_second(second, LOOK_AGAIN_S + CEILING_S)
    with HubReader(second.state) as rows:
        assert rows.counts()["entries"] == 0 and rows.counts()["results"] == 0
    wait_for(lambda: one.hub.rounds()["over"], f"the night did not end: {one.hub.rounds()} {one.hub.log()}")
    one.agree(1)


def test_an_impossible_result_is_dropped_and_said(night):
    """A result of 1000 to 0 (past the target) from table 1's login: dropped, one line, listed as refused;
    nobody's standings change."""
    one = night("--players", "Ann,Bob", "--tables", "1", "--rounds", "1", "--points", "acc")
    one.hub.console = True
    one.hub.start()
    one.pairings(1)
    forger = client(one, "1", "1")
    losers = [{"side": "Bob", "score": 0, "result": "win", "margin": 1000, "game_points": 2}]
    impossible = {"v": 1, "table": "1", "ledger": "cd" * 8, "game": 1, "rev": 30, "status": "finished",
                  "variant": "six-card", "seats": ["Ann", "Bob"], "scores": {"Ann": 1000, "Bob": 0},
                  "winner": "Ann", "losers": losers, "margin": 1000, "result": "win", "game_points": 2, "skunk": False,
                  "at": None}
    forger.publish(f"cribbage/{CLUB}/table/1/result", schema.encode(impossible), qos=1).wait_for_publish(5)
    forger.disconnect()
    forger.loop_stop()
    wait_for(lambda: "past the target 121" in one.hub.log(), f"not said: {one.hub.log()}")
    one.hub.say("conflicts")
    wait_for(lambda: "refused" in one.hub.output(), f"not listed: {one.hub.output()}")
    assert all(line["games"] == 0 for line in one.hub.standings())
    one.board("1").feed(game_lines(["Ann", "Bob"], "after the forgery"))
    one.agree(1)


def send_game(sender: mqtt.Client, table: str, ledger: str, game: int, players: tuple[str, str],
              scores: tuple[int, int], entries: bool = True, result: bool = True) -> None:
    """A whole game as a board sends it, from ``sender``'s login: its entries (which replay to ``scores``)
    and its finished result."""
    lines = peg_lines(players, scores)
    if entries:
        for seq, line in enumerate(lines):
            payload = schema.entry_payload(table, ledger, game, seq, line, None)
            sender.publish(f"cribbage/{CLUB}/table/{table}/entry", schema.encode(payload), qos=1).wait_for_publish(5)
    if result:
        payload = result_payload(table, ledger, game, len(lines) - 1, dict(zip(players, scores)))
        sender.publish(f"cribbage/{CLUB}/table/{table}/result", schema.encode(payload), qos=1).wait_for_publish(5)


def test_results_of_no_pairing_are_held_for_the_director_and_count_once_accepted(night):
    """Table 1's login (and table 3's, a board the broker knows and the night has not) send whole games
    whose entries replay to them: 10 wins for table 1's first player over the second as table 3, 5 wins
    at table 1 for the players of table 2, 3 wins for Zed, who is not registered. All 18 are kept, said and
    listed as unpaired, and none counts: the standings are the tables' own. The director accepts each from
    the console, and then each counts, once."""
    one = night("--players", "Ann,Bob,Cy,Di", "--tables", "1,2", "--rounds", "1")
    one.hub.console = True
    one.hub.start()
    pairings = one.pairings(1)
    (p, q), (r, s) = pairings["1"], pairings["2"]
    forged = [("3", "ab" * 8, k, (p, q), (121, 80)) for k in range(1, 11)]
    forged += [("1", "cd" * 8, k, (r, s), (121, 100)) for k in range(1, 6)]
    forged += [("1", "ef" * 8, k, ("Zed", p), (121, 95)) for k in range(1, 4)]
    for login in ("3", "1"):
        sender = client(one, login, login)
        for table, ledger, game, players, scores in forged:
            if table == login:
                send_game(sender, table, ledger, game, players, scores)
        sender.disconnect()
        sender.loop_stop()
    wait_for(lambda: len(one.hub.rounds()["held"]) == 18, f"not all held: {one.hub.rounds()} {one.hub.log()}")
    assert all(game["status"] == "unpaired" for game in one.hub.rounds()["held"])
    assert one.hub.log().count("unpaired: ") == 18
    assert f"unpaired: {p} v {q} from table 3: no pairing of the night's at that table" in one.hub.log()
    for table, players in pairings.items():
        one.board(table).feed(game_lines(players, f"held round 1 table {table}"))
    wait_for(lambda: one.hub.rounds()["over"], f"the round did not end: {one.hub.log()}")
    one.agree(2)  # the tables' own games only
    one.hub.say("held")
    wait_for(lambda: "18 games held" in one.hub.output(), f"not listed: {one.hub.output()}")
    held = {(game["table"], game["ledger"], game["game"]) for game in one.hub.rounds()["held"]}
    for table, ledger, game in sorted(held):
        ref = f"{game}@{ledger[:4]}" if table == "1" else str(game)
        one.hub.say(f"accept {table} {ref} reason=\"checked with the players\"")
    wait_for(lambda: not one.hub.rounds()["held"], f"not all accepted: {one.hub.output()}")
    expected = acc_standings(one.played() + [(players[0], scores[0], players[1], scores[1])
                                             for _, _, _, players, scores in forged])
    assert until(lambda: one.hub.standings() == expected), (one.hub.standings(), expected)


def test_a_result_its_entries_contradict_is_a_conflict_and_one_whose_entries_come_late_counts_once(night):
    """Table 1's login sends a game line and heels and then a result saying the second player won 121 to
    0: a conflict, said in one line, listed, counted for nobody. Then a result whose entries have not
    come: it waits; its entries sent after it, it counts; all of it sent again, it still counts once."""
    one = night("--players", "Ann,Bob,Cy,Di", "--tables", "1,2", "--rounds", "1")
    one.hub.console = True
    one.hub.start()
    first, second = one.pairings(1)["1"]
    forger = client(one, "1", "1")
    try:
        ledger = "a1" * 8
        for seq, line in enumerate([f"game six-card seats={first},{second} dealer={first}", "heels"]):
            payload = schema.entry_payload("1", ledger, 1, seq, line, None)
            forger.publish(f"cribbage/{CLUB}/table/1/entry", schema.encode(payload), qos=1).wait_for_publish(5)
        lie = result_payload("1", ledger, 1, 1, {first: 0, second: 121})
        forger.publish(f"cribbage/{CLUB}/table/1/result", schema.encode(lie), qos=1).wait_for_publish(5)
        wait_for(lambda: "conflict with its entries: table 1 game 1" in one.hub.log(), f"not said: {one.hub.log()}")
        said = [line for line in one.hub.log().splitlines() if "conflict with its entries" in line]
        assert len(said) == 1 and f"its entries give {first} 2, {second} 0, not finished" in said[0], said
        one.hub.say("held")
        wait_for(lambda: "1 game held" in one.hub.output(), f"not listed: {one.hub.output()}")
        assert "conflict: table 1 game 1" in one.hub.output()
        assert all(line["games"] == 0 for line in one.hub.standings())

        ledger = "b2" * 8
        send_game(forger, "1", ledger, 1, (first, second), (121, 70), entries=False)
        wait_for(lambda: "waiting: table 1 game 1" in one.hub.log(), f"not said: {one.hub.log()}")
        assert all(line["games"] == 0 for line in one.hub.standings())
        send_game(forger, "1", ledger, 1, (first, second), (121, 70), result=False)
        expected = acc_standings([(first, 121, second, 70)])
        wait_for(lambda: [s for s in one.hub.standings() if s["games"]] == expected,
                 f"the game did not count: {one.hub.standings()} {one.hub.log()}")
        words: list[dict] = []  # the hub's word on what it kept, said after each commit of this ledger
        forger.on_message = lambda c, u, message: words.append(json.loads(message.payload))
        forger.subscribe(f"cribbage/{CLUB}/table/1/kept", qos=1)
        wait_for(lambda: any(word["ledger"] == ledger for word in words), "no word from the hub")
        heard = len(words)
        send_game(forger, "1", ledger, 1, (first, second), (121, 70))  # all of it again: still once
        wait_for(lambda: any(w["ledger"] == ledger for w in words[heard:]), "the resend was not kept")
        assert [s for s in one.hub.standings() if s["games"]] == expected
        assert [game["status"] for game in one.hub.rounds()["held"]] == ["conflict"]
    finally:
        forger.disconnect()
        forger.loop_stop()
