"""A whole club night: 8 players, 4 tables (each a real ``cribbage-board console`` process in the club),
9 rounds paired by the hub, the broker restarted once; the hub's standings equal those worked out
independently from each table's own ledger."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from club_hub import ConsoleTable, HubProcess, acc_standings, game_lines, wait_for

from ledger.reader import LedgerReader
from scorer.record import replay

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
        for table, board in boards.items():
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
