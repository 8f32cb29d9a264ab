"""The live web view: the board, the history and the statistics, read from the ledger.

A reader beside the board: it imports ``scorer`` (the ledger read-only), never
``hardware`` nor the controller, and the board never imports it.
"""
