"""A whole club night: 8 players, 4 tables (each a real ``cribbage-board console`` process in the club),
9 rounds paired by the hub, the broker restarted once; the hub's standings equal those worked out
independently from each table's own ledger."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from ledger.reader import LedgerReader
from scorer.record import replay

from club_hub import Cable, ConsoleTable, HubProcess, acc_standings, game_lines, wait_for

pytestmark = pytest.mark.broker  # a real Mosquitto (tests/broker.py)

PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
TABLES = ["1", "2", "3", "4"]
ROUNDS = 9
RESTART_IN_ROUND = 5


def games_in(ledger) -> list[tuple[str, int, str, int]]:
    """Each finished game of a table's ledger as (winner, their score, loser, theirs), read back with
    the ledger's reader and replayed by the scorer (nothing of the hub's)."""
    found = []
    with LedgerReader(ledger) as reader:
        for game_id in reader.game_ids():
            game = replay(reader.export(game_id)).book.game
            if game is None or game.outcome is None:
                continue
            scores = {side.name: game.state.scores[k] for k, side in enumerate(game.sides)}
            (winner, won), (loser, lost) = sorted(scores.items(), key=lambda item: -item[1])
            assert winner == game.outcome.winner
            found.append((winner, won, loser, lost))
    return found


def test_a_whole_club_night(tmp_path, broker):
    """Nine rounds on four console tables, the broker restarted in round 5: the standings end exact."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--players", ",".join(PLAYERS), "--tables", ",".join(TABLES),
                     "--rounds", str(ROUNDS)).start()
    boards = {table: ConsoleTable(tmp_path, broker.url, table) for table in TABLES}
    try:
        for number in range(1, ROUNDS + 1):
            wait_for(lambda: hub.rounds()["round"] == number,
                     f"round {number} was not made: {hub.rounds()} {hub.log()}")
            pairings = hub.rounds()["list"][number - 1]["pairings"]
            assert sorted(p["table"] for p in pairings) == TABLES
            for k, pairing in enumerate(pairings):
                boards[pairing["table"]].feed(game_lines(pairing["players"], f"round {number} table {pairing['table']}"))
                if number == RESTART_IN_ROUND and k == 1:
                    broker.restart()
        wait_for(lambda: hub.rounds()["over"], f"the night did not end: {hub.rounds()} {hub.log()}")
        for board in boards.values():
            assert board.close() == 0, board.log()
        played = [game for board in boards.values() for game in games_in(board.state)]
        assert len(played) == ROUNDS * len(TABLES)
        assert hub.standings() == acc_standings(played)
        assert sum(line["games"] for line in hub.standings()) == 2 * len(played)
        round_robin = Counter()
        for each in hub.rounds()["list"][:len(PLAYERS) - 1]:
            round_robin.update(frozenset(p["players"]) for p in each["pairings"])
        assert set(round_robin) == {frozenset(pair) for pair in combinations(PLAYERS, 2)}  # all met once in 7
        assert "went away" in hub.log() and "Traceback" not in hub.log()  # the restart was mid-night
    finally:
        for board in boards.values():
            if board.process.poll() is None:
                board.close()
        hub.stop()


def test_a_board_off_the_broker_for_a_whole_round_delivers_on_return(tmp_path, broker):
    """Table 2's cable pulled for round 1: it plays on, the round waits; plugged back, it delivers, and
    three rounds end with the standings of the tables' own ledgers."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--players", "Ann,Bob,Cy,Di", "--tables", "1,2",
                     "--rounds", "3").start()
    cable = Cable(broker.port)
    boards = {"1": ConsoleTable(tmp_path, broker.url, "1"), "2": ConsoleTable(tmp_path, cable.url, "2")}
    try:
        for number in range(1, 4):
            wait_for(lambda: hub.rounds()["round"] == number, f"round {number} was not made: {hub.log()}")
            pairings = {p["table"]: p["players"] for p in hub.rounds()["list"][number - 1]["pairings"]}
            if number == 1:
                wait_for(lambda: hub.get("/club").count('class="table online"') == 2, "the boards did not come online")
                cable.pull()
            for table, players in pairings.items():
                boards[table].feed(game_lines(players, f"off round {number} table {table}"))
            if number == 1:
                wait_for(lambda: len(games_in(boards["2"].state)) == 1, f"table 2 did not play on: {boards['2'].log()}")
                wait_for(lambda: any(p["result"] for p in hub.rounds()["list"][0]["pairings"]),
                         "table 1's result did not come")
                assert hub.rounds()["round"] == 1  # the round waits for table 2
                cable.plug()
        wait_for(lambda: hub.rounds()["over"], f"the night did not end: {hub.rounds()}")
        for board in boards.values():
            assert board.close() == 0, board.log()
        assert "the board keeps every entry" in boards["2"].log()  # it was off the club, and said so
        played = [game for board in boards.values() for game in games_in(board.state)]
        assert len(played) == 6
        assert hub.standings() == acc_standings(played)
    finally:
        cable.pull()
        for board in boards.values():
            if board.process.poll() is None:
                board.close()
        hub.stop()


def test_between_rounds_each_card_shows_its_own_pairing_not_the_round_befores_game(tmp_path, broker):
    """Round 1 played on two console tables; round 2 made: until a round-2 game begins, each table's card
    on /club names its new pairing with 'not begun', never the game before (its scores, its winner
    'waiting for the result'); once table 1's begins, its card shows that game's scores."""
    import re

    hub = HubProcess(tmp_path / "hub", broker.url, "--players", "Ann,Bob,Cy,Di", "--tables", "1,2",
                     "--rounds", "2").start()
    boards = {table: ConsoleTable(tmp_path, broker.url, table) for table in ("1", "2")}

    def cards() -> dict[str, str]:
        page = hub.get("/club")
        return dict(re.findall(r'<li class="table[^"]*" data-table="(\w+)">(.*?)</li>', page))

    try:
        wait_for(lambda: hub.rounds()["round"] == 1, f"round 1 was not made: {hub.log()}")
        for pairing in hub.rounds()["list"][0]["pairings"]:
            boards[pairing["table"]].feed(game_lines(pairing["players"], f"cards {pairing['table']}"))
        wait_for(lambda: hub.rounds()["round"] == 2, f"round 2 was not made: {hub.log()}")
        second = {p["table"]: p["players"] for p in hub.rounds()["list"][1]["pairings"]}
        wait_for(lambda: all("score" not in card for card in cards().values()), f"a card shows scores: {cards()}")
        for table, card in cards().items():
            assert '<div class="sub">not begun</div>' in card, card
            assert "waiting for the result" not in card and all(name in card for name in second[table]), card
        first, other = second["1"]
        boards["1"].feed([f"game six-card seats={first},{other} dealer={first}", f"hand {other} 8"])
        wait_for(lambda: '<b class="score">8</b>' in cards()["1"], f"table 1's new game is not shown: {cards()}")
        assert "not begun" in cards()["2"]
    finally:
        for board in boards.values():
            board.close()
        hub.stop()
