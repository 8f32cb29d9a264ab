"""The board on a PC: the simulator, the terminal board and the console.

:mod:`~firmware.board.pc.simulator` runs the real board loop on mock devices and
:mod:`~firmware.board.pc.script` reads its scripts; :mod:`~firmware.board.pc.terminal`
draws it in a terminal and takes keys for the buttons and the knob;
:mod:`~firmware.board.pc.console` keeps score from typed record lines (its help:
``console_help``). It imports the board and its club link, never the CLI or the web view.
"""
