"""The ``cribbage-board`` command line: the board itself and its tools.

:mod:`~firmware.cli.parser` is the one argparse parser (its :class:`~firmware.cli.parser.TopParser`
shows the commands), :mod:`~firmware.cli.command` runs a line, the commands are in
:mod:`~firmware.cli.tools`, :mod:`~firmware.cli.drawings`, :mod:`~firmware.cli.card` (the controls
card) and :mod:`~firmware.cli.club_network` (the board's way to its broker), and
:mod:`~firmware.cli.output` says what goes wrong.
"""

from .command import main

__all__ = ["main"]
