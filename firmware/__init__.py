"""The board application: wires inputs to the scorer and the scorer to the LEDs and OLED.

Its base, shared by every wing: :mod:`~firmware.config` (the TOML as frozen
dataclasses, the ledger's path), :mod:`~firmware.club_settings` (a broker's address,
the club and table names), :mod:`~firmware.errors`, :mod:`~firmware.journal` (a line for the log),
:mod:`~firmware.listen` (the web view's and the hub's socket), :mod:`~firmware.palette`.
Its wings, by purpose: :mod:`firmware.board` (the main loop, the devices, the
controller and its panels, the views), :mod:`firmware.pc` (the simulator, the
terminal board, the console), :mod:`firmware.web` (the web view),
:mod:`firmware.club` (the club's wire protocol and a board's link), :mod:`firmware.hub` (the club
hub, a program of its own) and :mod:`firmware.cli` (the command line). docs/architecture.md says what may
import what; tests/test_rooms.py holds the code to it.
"""

__version__ = "0.1.0"  # the one home of the version: pyproject.toml and --version read it
WEB_PORT = 8121  # the web view's port when the config says none ([web] port in default-config.toml)
HUB_PORT = 8122  # the club hub's page (cribbage-board hub --port)
