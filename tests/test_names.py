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
