"""Nothing a table finishes is lost without a word, against a real Mosquitto and hub: names too long are
refused where they are typed, the longest allowed count; an entry or result the hub will not keep is told
to its table and listed for the director; one table's flood hides no other table's refusal."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from firmware.board.club.outbox import WATERMARK_SUFFIX, Watermark
from firmware.hub.journal import Journal
from firmware.hub.ledger import HubReader
from firmware.wire import schema
from ledger import feed
from ledger.reader import LedgerReader
from scorer.limits import NAME_MOST

from broker import Listener, environment
from club_hub import CLUB, ROOT, ConsoleTable, HubProcess, Table, wait_for

pytestmark = pytest.mark.broker  # a real Mosquitto (tests/broker.py)

LONG = tuple(c * 41 for c in "ABCD")  # four 41-character names: a four-hand game line of 237 characters


def four_lines(names, variant: str = "four-hand-individual") -> list[str]:
    """A whole four-player game. Each alone: the second, third and fourth peg to 100, 90 and 80, the first
    to 121. In partners (four-hand): the second's side to 90, the first's to 121."""
    lines = [f"game {variant} seats={','.join(names)} dealer={names[0]}"]
    pegs = [*zip(names[1:], (100, 90, 80)), (names[0], 121)] if variant != "four-hand" else \
        [(names[1], 90), (names[0], 121)]
    for name, score in pegs:
        while score > 0:
            lines.append(f"peg {name} {min(12, score)}")
            score -= min(12, score)
    return lines


def rows(hub: HubProcess) -> dict[str, int]:
    with HubReader(hub.state) as reader:
        return reader.counts()


def kept_words(listener: Listener, table: str) -> list[dict]:
    return [word for word in listener.payloads("kept") if word["table"] == table]


@pytest.mark.slow
def test_the_longest_names_count_and_longer_ones_are_refused_at_the_table(tmp_path, broker):
    """A console table: four names of NAME_MOST characters make a game the hub counts; four of 41 (and
    four of NAME_MOST + 1) are refused as the game line is typed, one line each, and nothing of them
    is kept by the board or reaches the hub."""
    hub = HubProcess(tmp_path / "hub", broker.url).start()
    board = ConsoleTable(tmp_path, broker.url, "1")
    try:
        longest = tuple(c * NAME_MOST for c in "ABCD")
        board.feed([f"game four-hand seats={','.join(LONG)} dealer={LONG[0]}",
                    f"game four-hand-individual seats={','.join(c * (NAME_MOST + 1) for c in 'ABCD')}",
                    *four_lines(longest)])
        wait_for(lambda: rows(hub)["results"] >= 1, f"the hub counted nothing: {hub.log()} {board.log()}")
        wait_for(lambda: {line["player"] for line in hub.standings()} == set(longest),
                 f"not in the standings: {hub.standings()}")
        standings = {line["player"]: line for line in hub.standings()}
        assert standings[longest[0]]["wins"] == 1 and standings[longest[3]]["losses"] == 1
    finally:
        assert board.close() == 0
        hub.stop()
    with LedgerReader(board.state) as reader:
        assert [reader.export(i)[0].split()[1] for i in reader.game_ids()] == ["four-hand-individual"]
    assert "refused" not in hub.log() and rows(hub)["conflicts"] == 0


@pytest.mark.slow
def test_typed_too_long_the_console_says_so_in_one_line_and_acknowledges_nothing(tmp_path):
    """The console's own words for the 237-character game line and for 17-character names."""
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "console", "--state", str(tmp_path / "l.sqlite3")],
                          input=f"game four-hand seats={','.join(LONG)} dealer={LONG[0]}\n"
                                f"game four-hand seats={','.join(c * 17 for c in 'ABCD')}\nstatus\n",
                          capture_output=True, text=True, env=environment(), cwd=ROOT, timeout=60)
    refusals = [line for line in done.stdout.splitlines() if line.startswith("!")]
    assert refusals == ["! the line is 237 characters long: a record line has at most 200",
                        f"! seat name '{'A' * 17}': a name has at most {NAME_MOST} characters, not 17"]
    assert "No game in the record." in done.stdout


@pytest.mark.slow
def test_a_game_line_the_hub_refuses_is_told_to_the_table_and_listed_for_the_director(tmp_path, broker):
    """An older board's game of four 41-character names: its 237-character game line and its result
    (names over 40) are refused; the hub's word to the table names both and counts them as kept, so
    the board stops sending them; conflicts and held list the game with its table and what makes it
    count. At 40-character names the result is kept, held as waiting for a line that never comes, and
    accept counts it."""
    hub = HubProcess(tmp_path / "hub", broker.url, console=True).start().subscribed()
    listener = Listener(broker, f"cribbage/{CLUB}/table/+/kept")
    table = Table(broker.port, "1")
    try:
        table.online()
        for names, game in ((LONG, 1), (tuple(c * 40 for c in "ABCD"), 2)):
            lines = four_lines(names, "four-hand")
            for seq, line in enumerate(lines):
                table.entry(game, seq, line)
            scores = {f"{names[0]}+{names[2]}": 121, f"{names[1]}+{names[3]}": 90}
            table.result(game, len(lines) - 1, scores, variant="four-hand", seats=list(names))
        wait_for(lambda: rows(hub)["conflicts"] == 3, f"not noted: {rows(hub)} {hub.log()}")

        def word() -> dict:
            words = kept_words(listener, "1")
            return words[-1] if words else {}

        last = len(four_lines(LONG, "four-hand")) - 1
        wait_for(lambda: len(word().get("refused", [])) == 3 and [g[1] for g in word()["games"]] == [last, last],
                 f"no refusal told: {kept_words(listener, '1')}")  # every entry counted as kept
        said = word()
        assert schema.decode("kept", "1", schema.encode(said)) == said
        refused = {(game, kind, number) for game, kind, number, _ in said["refused"]}
        assert refused == {(1, "entry", 0), (1, "result", last), (2, "entry", 0)}
        reasons = {(game, kind): reason for game, kind, _, reason in said["refused"]}
        assert "not a valid value" in reasons[(1, "entry")] and "is not a player's name" in reasons[(1, "result")]
        log = hub.log()
        assert "refused: table 1 game 1 entry 0: entry: line" in log and "refused: table 1 game 1 result" in log
        assert "waiting: table 1 game 2 result" in log and "its entries 0 were refused and never come" in log

        hub.say("conflicts")
        hub.say("held")
        wait_for(lambda: "no game line: table 1 game 1" in hub.output(), f"held: {hub.output()}")
        out = hub.output()
        assert "table 1 game 1 (ledger" in out and "entry 0 refused: entry: line" in out
        assert "accept 1 1" in out and "correct 1 1" in out
        assert "waiting: table 1 game 2" in out and "its game line refused" in out and "[accept 1 2]" in out
        hub.say("accept 1 2")
        wait_for(lambda: len(hub.standings()) == 4, f"accept did not count game 2: {hub.output()}")
    finally:
        table.close()
        listener.close()
        hub.stop()


@pytest.mark.slow
def test_a_board_told_of_a_refusal_says_it_and_stops_sending_it(tmp_path, broker):
    """A ledger an earlier version wrote with four 41-character names, at a console table of this version:
    the hub refuses its game line; the board says so in its journal and on its screen (the console's
    '! club:' line), and its watermark moves past the game: it is not sent again."""
    from ledger.writer import LedgerWriter
    from scorer.game import Entry, EntryKind
    from scorer.record import GameHeader
    from scorer.variants import find_variant

    state = tmp_path / "table-1.sqlite3"
    with LedgerWriter(state) as store:  # as an earlier version kept it: its record took such lines
        store.join_club(CLUB, "1")
        store.book.start(GameHeader(find_variant("four-hand"), LONG, LONG[0]))
        store._write_header(store.book.game)
        store.apply(Entry(EntryKind.PEG, LONG[1], 2))
        ledger = store.ledger_id
    hub = HubProcess(tmp_path / "hub", broker.url).start()
    board = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli", "console", "--state", str(state), "--set", f"club.broker={broker.url}",
         "--set", f"club.name={CLUB}", "--set", "club.table=1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(), cwd=ROOT)
    key = {"ledger": ledger, "club": CLUB, "table": "1"}
    try:
        wait_for(lambda: rows(hub)["conflicts"] == 1 and rows(hub)["entries"] == 1, f"{rows(hub)} {hub.log()}")
        watermark = state.with_name(state.name + WATERMARK_SUFFIX)
        with LedgerReader(state) as reader:
            end = reader.feed(feed.last_place)
        wait_for(lambda: (Watermark.load(watermark, key)[0] or Watermark(key)).place == end,
                 f"the board's watermark did not move past the refused game, {end}")
    finally:
        out, err = board.communicate("quit\n", timeout=60)
        hub.stop()
    assert "club: the hub refused game 1's game line (table 1): entry: line" in err
    assert "it is not sent again" in err
    assert "! club: The hub refused game 1: it counts only if the director says so" in out
    with HubReader(hub.state) as reader:
        assert [row.number for row in reader.conflicts()] == [0]


def test_one_tables_flood_does_not_hide_anothers_refusal():
    """The journal's budget for dropped and refused messages is per table: table 2's 60 lines in a minute
    are cut at 20 and summed up; table 1's refusal, after them, is said."""
    said: list[str] = []
    now = [0.0]
    journal = Journal(write=said.append, clock=lambda: now[0])
    for n in range(60):
        journal.ignored(f"table 2: nonsense {n}", "2")
    journal.refused("table 1 game 1 entry 0: entry: line 'game ...' is not a valid value", "1")
    journal.ignored("topic 'x': not one of this club's table topics")
    assert sum(line.startswith("ignored: table 2") for line in said) == 20
    assert "refused: table 1 game 1 entry 0: entry: line 'game ...' is not a valid value" in said
    assert "ignored: topic 'x': not one of this club's table topics" in said
    now[0] = 61.0
    journal.tick()
    assert said[-1] == "ignored 40 more messages from table 2 in 60 s (not each shown)"


@pytest.mark.slow
def test_a_flood_from_one_table_at_the_hub_leaves_anothers_refusal_in_its_log(tmp_path, broker):
    """Against the real hub: 60 bad messages from table 2, then table 1's refused game line: its line is
    in the hub's log, table 2's are cut at 20."""
    hub = HubProcess(tmp_path / "hub", broker.url).start()
    tables = {name: Table(broker.port, name) for name in ("1", "2")}
    try:
        for _ in range(60):
            tables["2"].send("entry", b"nonsense")
        tables["1"].entry(1, 0, f"game four-hand seats={','.join(LONG)} dealer={LONG[0]}")
        wait_for(lambda: "refused: table 1 game 1 entry 0" in hub.log(), f"table 1's refusal hidden: {hub.log()}")
        assert hub.log().count("ignored: table 2") == 20
    finally:
        for each in tables.values():
            each.close()
        hub.stop()


def test_the_kept_word_stays_within_its_size_and_an_older_board_reads_it():
    """Many long refusals: the newest that fit (at most KEPT_REFUSED), within the 4 KB a kept may have;
    the word without them is what boards of the first release read."""
    games = [[game, 40, 41, "finished"] for game in range(1, schema.KEPT_GAMES + 1)]
    refused = [[game, "entry", 0, "entry: " + "\U0001F600" * 290] for game in range(1, 30)]
    payload = schema.kept_payload("1", "0123456789abcdef", 1, games, refused)
    data = schema.encode(payload)
    assert len(data) <= schema.MAX_BYTES["kept"] and 0 < len(payload["refused"]) <= schema.KEPT_REFUSED
    assert payload["refused"][-1][0] == 29
    assert schema.decode("kept", "1", data)["refused"] == payload["refused"]
    plain = schema.kept_payload("1", "0123456789abcdef", 1, games)
    assert "refused" not in plain and json.loads(schema.encode(plain))["games"] == games
