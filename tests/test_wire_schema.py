"""The club's wire format (firmware/wire/schema.py): each loose payload refused whole, in one line."""

from __future__ import annotations

import json

import pytest

from firmware.wire import schema

GAME_LINE = "game six-card seats=Ann,Bob dealer=Ann"


def entry(**fields) -> bytes:
    payload = {"v": 1, "table": "1", "ledger": "ab" * 8, "game": 1, "seq": 0, "line": GAME_LINE, "at": None}
    return json.dumps({**payload, **fields}).encode()


@pytest.mark.parametrize("data, said", [
    (entry(v=1.0), "schema version 1.0"),
    (entry(v=True), "schema version True"),
    (entry(v="1"), "schema version '1'"),
    (b'{"v":1,"table":"2","table":"1","ledger":"abababababababab","game":1,"seq":0,"line":"heels"}',
     "the key 'table' is given twice"),
    (b'{"v":1,"v":1,"table":"1","ledger":"abababababababab","game":1,"seq":0,"line":"heels"}',
     "the key 'v' is given twice"),
    (entry(extra={"a": 1}).replace(b'"a": 1', b'"a": 1, "a": 3'), "the key 'a' is given twice"),
    (entry(line="xyzzy 3"), "is not a record line: unknown line"),
    (entry(line="peg Ann lots", seq=2), "is not a record line: peg: points must be a whole number"),
    (entry(line="game no-such-variant seats=Ann,Bob"), "is not a record line"),
    (entry(line="# a comment", seq=3), "blank or a comment"),
    (entry(line="heels Ann", seq=0), "entry 0 is the game line"),
    (entry(line=GAME_LINE, seq=4), "only entry 0 is a game line"),
])
def test_a_loose_payload_is_refused_in_one_line(data, said):
    """A float or bool version, a key given twice, a line that is no record line: PayloadError, one line."""
    with pytest.raises(schema.PayloadError) as refused:
        schema.decode("entry", "1", data)
    assert said in str(refused.value) and "\n" not in str(refused.value), str(refused.value)


def test_the_payloads_a_board_sends_still_read():
    """A game line as entry 0, an entry, undo and an option as later entries: each accepted."""
    for seq, line in enumerate([GAME_LINE, "heels Ann", "peg Bob 2", "undo", "option muggins on"]):
        assert schema.decode("entry", "1", entry(seq=seq, line=line))["line"] == line
