"""Write tests/data/ledger-v2.sqlite3 and ledger-v2.json: a ledger as cribbage-board wrote it at
commit 4c35ef2 (schema 2, the last commit before the ledger left ``scorer/`` for ``ledger/``),
and what that commit's own reader read from it.

The ledger holds four matches: a six-card game won with a skunk, a game abandoned after two
entries and a game replaced before anything was entered (empty); a three-hand game won
against two losers; a five-card game; and a six-card game in progress (a new match) with an
undo and a redo. Every time comes from a fixed clock.

The JSON keeps what 4c35ef2 read: every listed game (``LedgerReader.games()``), each game's
export and times, the messages, and the current match's state (``replay --json`` of it).
tests/test_ledger_schema.py opens the file with today's writer and reader and compares.

It was generated once, in a work tree of commit 4c35ef2, by:
    python tests/data/make_ledger_v2.py
Do not regenerate it with a later ledger: the point of the file is that an older one wrote it.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from scorer.record import parse_line  # noqa: E402
from scorer.report import state_dict  # noqa: E402
from scorer.store import LedgerReader, LedgerStore  # noqa: E402  (at commit 4c35ef2)

PATH = HERE / "ledger-v2.sqlite3"
READ = HERE / "ledger-v2.json"
SKUNK = ["game six-card seats=Ann,Bo dealer=Ann"] + ["peg Bo 14"] * 5 + ["peg Ann 15"] * 8 + ["peg Ann 1"]
ABANDONED = ["game six-card seats=Ann,Bo", "heels", "peg Bo 3"]
EMPTY = ["game six-card seats=Ann,Bo"]
THREE_HAND = (["game three-hand seats=Ann,Bo,Cy dealer=Cy", "peg Bo 15", "peg Bo 15", "peg Cy 15"]
              + ["peg Ann 15"] * 8 + ["peg Ann 1"])
FIVE_CARD = ["game five-card seats=Di,Ed dealer=Di"] + ["peg Di 15"] * 4 + ["peg Di 1"]
IN_PLAY = ["game six-card seats=Di,Ed dealer=Di new-match", "heels", "peg Ed 2", "undo", "peg Ed 3",
           "hand Ed 8", "undo", "redo", "hand Di 6", "crib 4"]


class Clock:
    """A second and a few milliseconds more at every reading, from 2026-12-01T18:00:00Z."""

    def __init__(self):
        self.now = 1_796_148_000.0

    def __call__(self):
        self.now += 1.007
        return self.now


def main() -> int:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{PATH}{suffix}").unlink(missing_ok=True)
    with LedgerStore(PATH, clock=Clock(), holder="make_ledger_v2") as store:
        for record in (SKUNK, ABANDONED, EMPTY, THREE_HAND, FIVE_CARD, IN_PLAY):
            for line in record:
                store.apply(parse_line(line))
    with LedgerReader(PATH) as reader:
        games = reader.games()
        read = {
            "games": games,
            "messages": list(reader.messages),
            "exports": {str(game_id): reader.export(game_id) for game_id in reader.game_ids()},
            "times": {str(game_id): reader.times(game_id) for game_id in reader.game_ids()},
            "current": state_dict(reader.book),
        }
    READ.write_text(json.dumps(read, indent=1) + "\n", encoding="utf-8")
    print(f"{PATH}: {len(games)} games listed; {READ}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
