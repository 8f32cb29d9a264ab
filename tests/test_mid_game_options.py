"""Options changed mid-game: the ``option`` record line, its replay, and the ledger that keeps it."""

import pytest

from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.errors import RecordSyntaxError, RuleError
from scorer.game import Entry, OptionChange
from scorer.record import Command, parse_line, replay

GAME = "game six-card seats=Alice,Bob dealer=Alice"
# Bob's hand of 4 is a count Alice may claim on once muggins is on.
PLAYED = [GAME, "heels Alice", "peg Bob 2", "hand Bob 4"]


@pytest.mark.parametrize("line, action", [
    ("option muggins on", OptionChange("muggins", True)),
    ("OPTION Muggins OFF  # a comment", OptionChange("muggins", False)),
])
def test_option_lines_parse(line, action):
    """``option muggins on|off`` parses to an OptionChange and records as it was written."""
    assert parse_line(line) == action
    assert action.record() == line.split("#")[0].strip().lower()


@pytest.mark.parametrize("line", [
    "option", "option muggins", "option muggins maybe", "option exact-out on", "option skunk on",
    "option muggins on now",
])
def test_option_lines_that_do_not_read_say_what_they_take(line):
    """A wrong option line is a syntax error that names what the line takes."""
    with pytest.raises(RecordSyntaxError, match="option takes: muggins on|off"):
        parse_line(line)


def test_muggins_turned_on_mid_game_applies_from_that_line():
    """A claim before the option line is refused, the same claim after it is pegged; the game line is unchanged."""
    result = replay(PLAYED + ["muggins Alice 2", "option muggins on", "muggins Alice 2"])
    game = result.book.game
    assert [r.entry for r in result.rejected] == ["muggins Alice 2"]
    assert "Muggins is off" in result.rejected[0].error
    assert game.options.muggins and not game.start_options.muggins
    assert game.score("Alice") == 4 and game.score("Bob") == 6
    assert game.header() == GAME
    assert game.record_lines() == PLAYED + ["option muggins on", "muggins Alice 2"]


def test_a_replay_of_the_record_gives_the_same_game():
    """The record of a game with option changes replays to the same scores, options and lines."""
    lines = PLAYED + ["option muggins on", "muggins Alice 2", "undo", "option muggins off", "redo"]
    first = replay(lines).book.game
    again = replay(first.record_lines()).book.game
    assert again.state == first.state and again.options == first.options
    assert again.record_lines() == first.record_lines()
    # The redo of a muggins claim after muggins was turned off is refused, in both.
    assert replay(lines).rejected[0].entry == "redo"
    assert first.score("Alice") == 2


def test_an_option_change_is_no_entry_undo_passes_it():
    """Undo takes back the last entry, not the option change; redo is kept across it."""
    book = replay(PLAYED).book
    book.apply(Command.UNDO)
    book.apply(OptionChange("muggins", True))
    assert book.game.options.muggins
    book.apply(Command.REDO)
    assert book.game.score("Bob") == 6 and book.game.options.muggins
    book.apply(Command.UNDO)
    assert book.game.options.muggins and book.game.score("Bob") == 2


@pytest.mark.parametrize("change, message", [
    (OptionChange("muggins", False), "Muggins is off already"),
    (OptionChange("exact_out", True), "cannot change mid-game"),
    (OptionChange("skunk", True), "cannot change mid-game"),
])
def test_refused_option_changes_change_nothing(change, message):
    """The same value again, or an option that changes what was pegged, is refused and nothing is recorded."""
    book = replay(PLAYED).book
    with pytest.raises(RuleError, match=message):
        book.apply(change)
    assert book.game.record_lines() == PLAYED


def test_the_next_game_of_the_match_keeps_the_change():
    """After muggins was turned on, a game line with muggins continues the match (no new match)."""
    book = replay(PLAYED + ["option muggins on"]).book
    match = book.match
    book.apply(parse_line(GAME + " muggins"))
    assert book.match is match and book.game.options.muggins


def test_a_game_with_only_an_option_change_is_not_abandoned():
    """A game replaced with nothing but an option line in it counts for nobody, not as abandoned."""
    book = replay([GAME, "option muggins on"]).book
    book.apply(parse_line(GAME + " muggins"))
    assert book.match.games_abandoned() == 0
    assert "# abandoned" not in "\n".join(book.record_lines())


def test_the_ledger_keeps_the_change_and_reopens_to_the_same_game(tmp_path):
    """The option line is stored where it was made; reopening (and a reader) replays the same game."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        for line in PLAYED:
            store.apply(parse_line(line))
        store.apply(OptionChange("muggins", True))
        store.apply(Entry.muggins("Alice", 2))
        exported = store.export()
        state = store.game.state
    assert exported == PLAYED + ["option muggins on", "muggins Alice 2"]
    with LedgerWriter(path) as store:
        assert store.game.state == state and store.game.options.muggins and not store.messages
        match = store.book.match
        store.apply(parse_line(GAME + " muggins"))  # the next game (with muggins): the same match
        assert store.book.match is match and len(store.book.games) == 1
    reader = LedgerReader(path)
    try:
        assert reader.book.game.options.muggins
    finally:
        reader.close()


def test_the_web_never_strikes_out_an_option_change():
    """In the web view's list an undo takes back the entry before an option change, never the change."""
    from firmware.web.records import play_record, taken_back

    assert taken_back(["entry", "option", "undo"]) == {0}
    played = play_record(1, PLAYED + ["option muggins on"])
    assert played.lines[-1]["text"] == "Muggins on, from now" and not played.problems


def test_the_live_board_reads_a_game_with_an_option_change(tmp_path):
    """The web view's live board (recent entries, the screen reader's words) reads a game in which
    muggins was turned on, and says the change as it describes itself."""
    from firmware.web.follow import LedgerFollower
    from firmware.web.site import Site
    from ledger.writer import LedgerWriter
    from scorer.record import parse_line

    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        for line in PLAYED + ["option muggins on"]:
            store.apply(parse_line(line))
    follower = LedgerFollower(path)
    try:
        live = Site(follower).live()
    finally:
        follower.close()
    assert live["problem"] is None and live["state"]["options"]["muggins"] is True
    newest = live["recent"][0]
    assert newest["action"] == "option" and newest["said"] == "Muggins on, from now"
