"""The live web view: the board, the history and the statistics, read from the ledger.

A reader beside the board: it imports the firmware's base, ``firmware.server``, of
``firmware.wire`` the relay, ``scorer``, ``ledger`` (read-only, through ``LedgerReader``)
and of ``hardware`` only the layout (the board's geometry); never a device or the board's
program, and the board never imports it (tests/test_rooms.py).
"""
