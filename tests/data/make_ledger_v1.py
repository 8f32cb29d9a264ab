"""Write tests/data/ledger-v1.sqlite3: a ledger as cribbage-board wrote it at commit f708e47 (schema 1, no marker).

It holds one match: the finished game of example-game.txt (refused lines skipped, an undo
included) and a second game in progress with an undo and a redo. It was generated once,
with the store of that commit, by:  python tests/data/make_ledger_v1.py
Do not regenerate it with a later store: the point of the file is that an older store wrote it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from scorer.errors import CribbageError  # noqa: E402
from scorer.record import parse_line  # noqa: E402
from scorer.store import LedgerStore  # noqa: E402

IN_PROGRESS = """
game six-card seats=Alice,Bob skunk=acc
heels
peg Alice 2
peg Bob 3
undo
peg Bob 2
hand Alice 8
undo
redo
hand Bob 6
crib 4
peg Bob 5
undo
""".strip().splitlines()


def main() -> None:
    target = HERE / "ledger-v1.sqlite3"
    target.unlink(missing_ok=True)
    with LedgerStore(target, clock=lambda: 1_800_000_000) as store:
        for line in (HERE / "example-game.txt").read_text().splitlines() + IN_PROGRESS:
            action = parse_line(line)
            if action is None:
                continue
            try:
                store.apply(action)
            except CribbageError:
                pass  # the example's refused lines are refused here too
        print(target, len(store.export()), "lines in the current game")


if __name__ == "__main__":
    main()
