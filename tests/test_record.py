"""The game-record format (scorer/record.py): parsing, replay, JSON state and export, undo and redo stacks included."""


import pytest
from helpers import play

from scorer.errors import RecordSyntaxError
from scorer.game import Entry, EntryKind, OptionChange
from scorer.limits import MAX_LINE
from scorer.record import Command, GameHeader, parse_line, replay
from scorer.report import state_dict, summary
from scorer.variants import SkunkLines


@pytest.mark.parametrize("line, action", [
    ("heels", Entry.heels()),
    ("heels Alice", Entry(EntryKind.HEELS, "Alice", 2)),
    ("peg Bob 2   # a pair", Entry.peg("Bob", 2)),
    ("go Bob", Entry.go("Bob")),
    ("31 Alice", Entry.thirty_one("Alice")),
    ("hand Bob 8", Entry.hand("Bob", 8)),
    ("crib 4", Entry.crib(4)),
    ("crib Alice 4", Entry.crib(4, "Alice")),
    ("muggins Alice 2", Entry.muggins("Alice", 2)),
    ("peg Bob -2", Entry.peg("Bob", -2)),
    ("UNDO", Command.UNDO),
    ("redo", Command.REDO),
    ("   # just a comment", None),
    ("", None),
])
def test_parse_entry_lines(line, action):
    """Each record line parses to its action; comments and blanks to nothing."""
    assert parse_line(line) == action


def test_parse_game_header_with_options():
    """The game line carries the variant, seats, dealer and house options."""
    header = parse_line("game six-card seats=Alice,Bob dealer=Bob exact-out muggins skunk=lurch points=casual")
    assert isinstance(header, GameHeader)
    assert header.variant.name == "six-card" and header.seats == ("Alice", "Bob")
    assert header.dealer == "Bob"
    assert header.options.exact_out and header.options.muggins
    assert header.options.skunk is SkunkLines.LURCH
    assert header.options.points.win == 1


@pytest.mark.parametrize("line, message", [
    ("peg Bob", "peg takes: peg SEAT POINTS"),
    ("peg Bob two", "peg: points must be a whole number, not 'two'"),
    ("hand 8", "hand takes: hand SEAT POINTS"),
    ("undo 2", "undo takes: undo"),
    ("score Bob 2", "unknown line 'score'"),
    ("game", "game needs a variant first"),
    ("game six-card", "game needs seats="),
    ("game six-card seats=A,B color=red", "unknown game setting 'color=red'"),
    ("game six-card seats=A,B turbo", "unknown game option 'turbo'"),
    ("game six-card seats=A,B skunk=big", "skunk=big: use acc, lurch, triple or none"),
    ("game six-card seats=A,B points=lots", "points='lots'"),
    ("game cribbage seats=A,B", "unknown variant 'cribbage': choose one of six-card, five-card"),
])
def test_syntax_errors_are_clear(line, message):
    """A bad line raises RecordSyntaxError naming what is wrong."""
    with pytest.raises(RecordSyntaxError, match=message):
        parse_line(line)


def test_replay_reports_the_line_of_a_syntax_error():
    """Replay stops at bad syntax with the line number."""
    with pytest.raises(RecordSyntaxError) as caught:
        replay(["game six-card seats=A,B", "peg A 2", "bogus"])
    assert caught.value.line == 3


@pytest.mark.parametrize("lines", [
    ["peg A 2"],
    ["game six-card seats=A,B,C"],
    ["game six-card seats=A,B dealer=Z"],
])
def test_replay_refuses_a_record_without_a_proper_game_line(lines):
    """An entry before any game, or a game that cannot be set up, is an error with its line."""
    with pytest.raises(RecordSyntaxError) as caught:
        replay(lines)
    assert caught.value.line == 1


def test_json_state_has_the_documented_fields():
    """The JSON state carries every documented field."""
    state = play("""
        game six-card seats=Alice,Bob dealer=Alice
        heels
        peg Bob 2
        hand Bob 19
    """)
    for key in ("variant", "target", "seats", "sides", "dealer", "deal", "phase", "next",
                "winner", "loser", "result", "game_points", "rejected"):
        assert key in state
    assert state["sides"][0] == {"name": "Alice", "seats": ["Alice"], "score": 2, "back": 0}
    assert state["sides"][1] == {"name": "Bob", "seats": ["Bob"], "score": 2, "back": 0}
    assert state["rejected"] == [
        {"line": 4, "entry": "hand Bob 19", "error": "19 is not a possible hand"}]
    assert state["phase"] == "play" and state["next"] == {"seat": "Bob", "count": "hand"}


def test_match_continues_and_the_loser_deals_first():
    """A second game line with the same seats continues the match; the loser deals."""
    lines = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
    lines += ["game five-card seats=A,B", "peg B 2"]
    result = replay(lines)
    state = state_dict(result.book)
    assert state["dealer"] == "B"
    assert state["sides"][0]["score"] == 3  # A is pone now and pegs three for last
    assert state["match"]["games"] == 1
    assert state["match"]["tally"] == [
        {"side": "A", "wins": 1, "game_points": 3}, {"side": "B", "wins": 0, "game_points": 0}]


def test_next_game_refuses_the_winner_as_first_dealer():
    """The loser of a game deals first in the next: another dealer is an error."""
    lines = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
    with pytest.raises(RecordSyntaxError, match="B deals first"):
        replay(lines + ["game five-card seats=A,B dealer=A"])


def test_new_match_flag_starts_a_new_match():
    """new-match starts a new match with the same seats: the tally is back to 0."""
    lines = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
    state = state_dict(replay(lines + ["game five-card seats=A,B dealer=A new-match"]).book)
    assert state["match"]["games"] == 0 and state["dealer"] == "A"


def test_other_seats_start_a_new_match():
    """A game line with other seats starts a new match with an empty tally."""
    lines = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
    state = state_dict(replay(lines + ["game six-card seats=C,D"]).book)
    assert state["match"]["games"] == 0 and state["seats"] == ["C", "D"]


def test_export_then_replay_gives_the_same_state_for_a_match():
    """The exported record of a whole match replays to the same state."""
    lines = ["game five-card seats=A,B dealer=A muggins skunk=triple"] + ["peg A 15"] * 4
    lines += ["peg A 1", "game five-card seats=A,B", "peg B 2", "muggins A 1", "hand A 8", "undo"]
    first = replay(lines)
    exported = first.book.record_lines()
    second = replay(exported)
    assert state_dict(second.book) == state_dict(first.book)
    assert second.book.record_lines() == exported


def test_summary_is_short_and_human():
    """Without --json the replay prints a short summary."""
    result = replay(["game six-card seats=Alice,Bob dealer=Alice", "peg Bob 2", "hand Bob 30"])
    text = summary(result.book, result.rejected)
    assert "six-card to 121, deal 1, Alice deals, phase play" in text
    assert "show: Bob hand > Alice hand > Alice crib" in text
    assert "line 3 refused: hand Bob 30: 30 is more than a hand can score (29)" in text


def test_the_values_a_replay_gives_are_immutable_and_compare_by_value():
    """Headers, entries, options, outcomes and the rest cannot change, equal ones compare
    equal, a new one is made with _replace, and each repr names its fields."""
    from pathlib import Path

    from scorer.variants import find_variant

    text = (Path(__file__).parent / "data" / "example-game.txt").read_text()
    result = replay(text.splitlines())
    game = result.book.game
    header = parse_line("game six-card seats=Alice,Bob dealer=Alice muggins")
    values = [header, header.variant, header.options, header.options.points, game.pegged[-1],
              game.pegged[-1].entry, game.history[-1], game.sides[0], game.outcome, game.outcome.losers[0],
              result.book.match.tally()[0], result.book.match.earlier, result.rejected[0]]
    for value in values:
        name = type(value).__name__
        first = value._fields[0]
        with pytest.raises(AttributeError):
            setattr(value, first, None)
        assert value == type(value)(*value) and hash(value) == hash(type(value)(*value))
        assert repr(value).startswith(f"{name}({first}=")
    assert header._replace(dealer=None) == GameHeader(find_variant("six-card"), ("Alice", "Bob"),
                                                      None, header.options)
    assert header.options._replace(muggins=False) == type(header.options)()
    assert find_variant("six-card", 61) == find_variant("six-card")._replace(target=61)
    assert result.book.match.earlier.add(None).abandoned == 1
    assert repr(result).startswith("Replay(book=") and result == type(result)(result.book, result.rejected)
    result.rejected = []  # what replay gives is the caller's to change
    assert result.rejected == []


@pytest.mark.parametrize("line, message", [
    ("peg A 99999999999999999999", "peg: '99999999999999999999' is too large: at most 4 digits"),
    ("peg A " + "9" * 150, "is too large"),
    ("peg A \u0663", "peg: points must be a whole number, not '\u0663'"),
    ("peg A\0 2", "control character U+0000"),
    ("game six-card seats=A\x1b[2J,B", "control character U+001B"),
    ("game six-card seats=A\udcff,B", "control character U+DCFF"),
    ("# " + "x" * MAX_LINE, f"a record line has at most {MAX_LINE}"),
    ("x" * 5000, f"a record line has at most {MAX_LINE}"),
])
def test_record_lines_that_cannot_be_used(line, message):
    """Huge numbers, control characters and huge lines: a short RecordSyntaxError."""
    with pytest.raises(RecordSyntaxError) as caught:
        parse_line(line)
    assert message in str(caught.value) and len(str(caught.value)) < 200


# Options changed mid-game (``option muggins on|off``): a game with a count Alice may claim on once muggins is on.
OPTION_GAME = "game six-card seats=Alice,Bob dealer=Alice"
OPTION_PLAYED = [OPTION_GAME, "heels Alice", "peg Bob 2", "hand Bob 4"]


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



def test_a_replay_of_the_record_gives_the_same_game():
    """The record of a game with option changes replays to the same scores, options and lines."""
    lines = OPTION_PLAYED + ["option muggins on", "muggins Alice 2", "undo", "option muggins off", "redo"]
    first = replay(lines).book.game
    again = replay(first.record_lines()).book.game
    assert again.state == first.state and again.options == first.options
    assert again.record_lines() == first.record_lines()
    # The redo of a muggins claim after muggins was turned off is refused, in both.
    assert replay(lines).rejected[0].entry == "redo"
    assert first.score("Alice") == 2



def test_the_next_game_of_the_match_keeps_the_change():
    """After muggins was turned on, a game line with muggins continues the match (no new match)."""
    book = replay(OPTION_PLAYED + ["option muggins on"]).book
    match = book.match
    book.apply(parse_line(OPTION_GAME + " muggins"))
    assert book.match is match and book.game.options.muggins



def test_a_game_with_only_an_option_change_is_not_abandoned():
    """A game replaced with nothing but an option line in it counts for nobody, not as abandoned."""
    book = replay([OPTION_GAME, "option muggins on"]).book
    book.apply(parse_line(OPTION_GAME + " muggins"))
    assert book.match.games_abandoned() == 0
    assert "# abandoned" not in "\n".join(book.record_lines())


def test_export_then_replay_keeps_undo_and_redo_stacks():
    """A record with undos and redos exports and replays to the same state, redo stack included."""
    record = """
        game six-card seats=Alice,Bob dealer=Alice
        peg Bob 2
        hand Bob 8
        undo
        undo
        redo
    """.strip().splitlines()
    first = replay(record)
    again = replay(first.book.record_lines())
    assert state_dict(again.book) == state_dict(first.book)
    assert again.book.game.redo_entries == [Entry.hand("Bob", 8)]
    again.book.game.redo()
    assert again.book.game.score("Bob") == 10
