"""The board application: wires inputs to the scorer and the scorer to the LEDs and OLED.

Its base (``config``, ``club_settings``, ``errors``, ``journal``, ``listen``, ``palette``, ...)
is shared by every wing; its wings, by purpose: ``board`` (the main loop, the devices, the
controller, the views), ``pc`` (the simulator, the terminal board, the console), ``web``,
``club`` (a board's link), ``hub`` (the club hub) and ``cli`` (the command line).
docs/architecture.md says what may import what; tests/test_rooms.py holds the code to it.
"""

__version__ = "0.1.0"  # the one home of the version: pyproject.toml and --version read it
WEB_PORT = 8121  # the web view's port when the config says none ([web] port in default-config.toml)
HUB_PORT = 8122  # the club hub's page (cribbage-board hub --port)
