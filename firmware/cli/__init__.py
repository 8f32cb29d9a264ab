"""The ``cribbage-board`` command line: the board itself and its tools.

    cribbage-board [--backend mock]     the board (on a PC: the mock board in the terminal)
    cribbage-board simulate SCRIPT [--json] [--snapshots DIR]
    cribbage-board console              keep score by typing game-record lines
    cribbage-board replay FILE [--json] a game record's resulting state
    cribbage-board salvage FILE-wal [--base FILE] [-o FILE]   a set-aside -wal's entries, in a ledger file
    cribbage-board count CARDS --starter CARD [--crib] [--json]
    cribbage-board count --distribution [--crib] [--hand-size N] [--json]
    cribbage-board pegging CARDS [--go] [--json]
    cribbage-board board-template [--layout NAME|FILE] [--target N] [--game-counters N] [--paper a4|letter|a3]
                                  -o board.pdf|board.svg
    cribbage-board controls-card [--config FILE] [--set K=V] -o card.pdf
    cribbage-board wiring [--config FILE] [--set K=V] -o wiring.svg
    cribbage-board web [--state FILE] [--host HOST] [--port PORT]   the live board, history and stats in a browser
    cribbage-board --version

--backend, --config, --set, --state and --headless go before or after the
command; a command that does not use one refuses it. :mod:`~firmware.cli.parser`
is the one argparse parser, :mod:`~firmware.cli.command` runs a line, the
commands are in :mod:`~firmware.cli.tools` and :mod:`~firmware.cli.drawings`,
and :mod:`~firmware.cli.output` says what goes wrong.
"""

from .command import main

__all__ = ["main"]
