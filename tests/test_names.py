"""Players' names: one rule wherever a name is given; games kept before it still replay (issue 21, item 7)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware.config import ConfigError, load_config
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.errors import SetupError
from scorer.names import checked_name
from scorer.record import Scorebook, parse_line, replay

ROOT = Path(__file__).resolve().parent.parent
HIDING = ["\u202e", "\u202d", "\u2066", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\x7f"]


@pytest.mark.parametrize("char", HIDING)
def test_a_name_that_hides_or_reorders_text_is_refused(char):
    """Direction overrides and isolates, zero-width characters, the word joiner, the byte-order
    mark, the soft hyphen, a control character: refused, with the code point named."""
    with pytest.raises(SetupError, match=f"U\\+{ord(char):04X} is a character that hides or reorders text"):
        checked_name(f"Bo{char}b")


def test_a_name_is_kept_in_nfc_and_found_either_way():
    """José typed as e + combining accent is the same player as José typed whole."""
    assert checked_name("Jose\u0301") == "José" and checked_name("José") == "José"
    book = Scorebook()
    book.apply(parse_line("game six-card seats=Jos\u00e9,Bob dealer=Bob").with_names_checked())
    book.apply(parse_line("peg Jose\u0301 2"))
    assert book.game.state.scores == (2, 0)


@pytest.mark.parametrize("line, shown", [
    ("game six-card seats=Bob,B\u200bob", "U+200B"),
    ("game six-card seats=Al\u202eice,Bob", "U+202E"),
    ("game three-hand seats=Ann,Ben,C\ufeffat", "U+FEFF"),
])
def test_the_console_refuses_such_a_name_and_goes_on(tmp_path, line, shown):
    """A game line typed at the console with such a name: refused with one line, nothing kept."""
    path = tmp_path / "l.sqlite3"
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "console", "--state", str(path)], cwd=ROOT,
                          input=f"{line}\ngame six-card seats=Ann,Bob\nstatus\n", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and f"{shown} is a character that hides or reorders text" in done.stdout
    with LedgerReader(path) as reader:
        assert [reader.export(i)[0] for i in reader.game_ids()] == ["game six-card seats=Ann,Bob dealer=Ann"]


def test_the_config_takes_the_same_rule(tmp_path):
    """[game] players: the same refusal, one line naming the key; a name with an accent is fine."""
    config = tmp_path / "config.toml"
    config.write_text('[game]\nplayers = ["Al\u202eice", "Bob"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[game\] players = .*U\+202E is a character that hides"):
        load_config(config)
    assert load_config(overrides=['game.players=["Jose\u0301", "Zoë"]']).game.players == ("José", "Zoë")
    with pytest.raises(ConfigError, match="at most 12 characters"):
        load_config(overrides=['game.players=["Maximilianus-A", "Bob"]'])


def test_games_kept_with_such_a_name_still_replay(tmp_path):
    """A ledger written before the rule (the record itself took such names): it opens and reads,
    and replay of its record gives its state; only new games are held to the rule."""
    header = "game six-card seats=Al\u202eice,Bob dealer=Bob"
    assert replay([header, "peg Al\u202eice 2"]).book.game.state.scores == (2, 0)
    path = tmp_path / "l.sqlite3"
    with LedgerWriter(path) as store:
        store.book.apply(parse_line(header))  # as an older writer kept it (no check)
        store._write_header(store.book.game)
    with LedgerReader(path) as reader:
        assert reader.book.game.seats == ("Al\u202eice", "Bob")


def test_the_longest_game_line_with_the_longest_names_is_one_record_line():
    """NAME_MOST is the longest a name can be for the longest game line (every seat and the dealer that
    long, every option the record has, each at its longest) to fit MAX_LINE; one character more does not."""
    from scorer.game import Game
    from scorer.limits import MAX_LINE, NAME_MOST, game_line
    from scorer.variants import GAME_POINTS_MOST, TARGET_MOST, Options, SkunkLines, find_variant, parse_game_points

    longest = game_line("x" * NAME_MOST)
    assert len(longest) <= MAX_LINE < len(game_line("x" * (NAME_MOST + 1)))
    names = [f"{seat}" * NAME_MOST for seat in "ABCD"]
    header = parse_line(longest.replace("x" * NAME_MOST, names[0]).replace(
        f"seats={','.join([names[0]] * 4)}", f"seats={','.join(names)}")).with_names_checked()
    assert header.seats == tuple(names) and header.new_match
    options = Options(True, True, SkunkLines.TRIPLE, parse_game_points("/".join([str(GAME_POINTS_MOST)] * 5)))
    game = Game(find_variant("four-hand-individual", TARGET_MOST), names, names[3], options)
    assert len(game.header()) <= MAX_LINE and parse_line(game.header()).seats == tuple(names)


@pytest.mark.slow
def test_a_name_longer_than_the_limit_is_refused_where_it_is_given(tmp_path):
    """17 characters: refused by the rule for names (the writer's), the hub's director and its
    --players; the board's config and picker hold fewer (its OLED's), never more."""
    from firmware.config import MAX_NAME
    from firmware.hub.commands import DirectorError, player_name
    from scorer.limits import NAME_MOST

    assert MAX_NAME <= NAME_MOST == 16
    assert checked_name("P" * NAME_MOST) == "P" * NAME_MOST
    with pytest.raises(SetupError, match="a name has at most 16 characters, not 17"):
        checked_name("P" * 17)
    with pytest.raises(DirectorError, match="at most 16 characters"):
        player_name("P" * 17)
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "hub", "--broker", "mqtt://127.0.0.1:1",
                           "--club", "c", "--state", str(tmp_path / "h.sqlite3"), "--players", f"Ann,{'P' * 17}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "at most 16 characters" in done.stderr and not (tmp_path / "h.sqlite3").exists()


@pytest.mark.slow
def test_the_console_refuses_a_game_line_of_long_names_before_anything_is_kept(tmp_path):
    """Four 41-character names (typed with dealer=, a 237-character line; without, a 199-character
    one) and four of 17: one line each, nothing kept; four of 16 make the game."""
    path = tmp_path / "l.sqlite3"
    long41 = ",".join(c * 41 for c in "ABCD")
    long17 = ",".join(c * 17 for c in "ABCD")
    most = ",".join(c * 16 for c in "ABCD")
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "console", "--state", str(path)], cwd=ROOT,
                          input=f"game four-hand seats={long41} dealer={'A' * 41}\n"
                                f"game four-hand-individual seats={long41}\ngame four-hand-individual seats={long17}\n"
                                f"game four-hand-individual seats={most}\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "the line is 237 characters long: a record line has at most 200" in done.stdout
    assert "a name has at most 16 characters, not 41" in done.stdout
    assert "a name has at most 16 characters, not 41" in done.stdout
    assert "a name has at most 16 characters, not 17" in done.stdout
    with LedgerReader(path) as reader:
        assert [reader.export(i)[0] for i in reader.game_ids()] == [
            f"game four-hand-individual seats={most} dealer={'A' * 16}"]


def test_the_wire_takes_the_longest_line_and_names_in_its_byte_caps():
    """An entry of MAX_LINE characters, and a result and a pairing of four NAME_MOST names, each
    character four bytes of UTF-8: within what the schema takes of each."""
    from firmware.wire import schema
    from scorer.limits import MAX_LINE, NAME_MOST

    names = [chr(0x1F600 + i) * NAME_MOST for i in range(4)]
    line = "peg " + names[0] + " 2  # " + "\U0001F600" * (MAX_LINE - len(names[0]) - 10)
    assert len(line) == MAX_LINE
    entry = schema.encode(schema.entry_payload("1", "0123456789abcdef", 1, 5, line, None))
    assert schema.decode("entry", "1", entry)["line"] == line
    scores = dict(zip(names, (121, 100, 90, 80)))
    outcome = {"winner": names[0], "margin": 21, "result": "win", "game_points": 6, "losers": [
        {"side": name, "score": score, "result": "win", "margin": 121 - score, "game_points": 2}
        for name, score in list(scores.items())[1:]]}
    result = schema.encode(schema.result_payload("1", "0123456789abcdef", 1, 40, "finished", "four-hand-individual",
                                                 names, scores, outcome, None))
    pairing = schema.encode(schema.pairing_payload("1", "n" * 40, 1, names))
    assert len(result) <= schema.MAX_BYTES["result"] and len(pairing) <= schema.MAX_BYTES["pairing"]
    assert schema.decode("pairing", "1", pairing)["players"] == names


def test_a_ledger_an_earlier_version_wrote_with_long_names_reads_whole_and_plays_on(tmp_path):
    """A 237-character game line of four 41-character names, acknowledged by an earlier version: the
    ledger reads it whole after the limit came down to 200, and the game goes on from the board."""
    from ledger.reader import LedgerReader
    from ledger.writer import LedgerWriter
    from scorer.game import Entry
    from scorer.limits import MAX_LINE

    from web_games import write_games

    names = [letter * 41 for letter in "ABCD"]
    header = f"game four-hand seats={','.join(names)} dealer={names[0]}"
    assert len(header) > MAX_LINE
    ledger = tmp_path / "ledger.sqlite3"
    with LedgerWriter(ledger) as store:
        write_games(store, [[header, f"peg {names[1]} 2"]], kept_before=True)
    with LedgerReader(ledger) as reader:
        assert reader.export() == [header, f"peg {names[1]} 2"]
    with LedgerWriter(ledger) as store:
        assert store.game.state.scores[1] == 2
        store.apply(Entry.peg(names[2], 3))
        assert store.game.state.scores == (3, 2)  # A and C are partners, B and D
