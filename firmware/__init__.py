"""The programs cribbage-board ships, a folder each, on a base they share.

The programs: :mod:`firmware.board` (the board, and in :mod:`firmware.board.pc` the
board on a PC), :mod:`firmware.web` (the web view), :mod:`firmware.hub` (the club hub)
and :mod:`firmware.cli` (the command line that runs them). What they say to each other
is :mod:`firmware.wire`; what the two servers serve with, :mod:`firmware.server`. The
base (the config and its files, the club's settings, errors, the journal, the palette) is here.
docs/architecture.md says what may import what; tests/test_rooms.py holds the code to it.
"""

__version__ = "0.1.0"  # the one home of the version: pyproject.toml and --version read it
WEB_PORT = 8121  # the web view's port when the config says none ([web] port in default-config.toml)
HUB_PORT = 8122  # the club hub's page (cribbage-board hub --port)
