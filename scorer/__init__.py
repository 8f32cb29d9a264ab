"""The cribbage rules and the counting of hands: a pure library (no I/O, clock, threads or hardware).

Its modules, from the bottom up: ``cards``; ``counting``, ``totals`` and ``distribution`` (a hand,
a crib or a card of the play counted); ``variants`` (the variants as data, skunk lines, game
points); ``game`` and ``match`` (one game with undo and redo; games in a row); ``record`` (the
plain-text game record and its replay); ``report``, ``history``, ``coach``, ``standings`` and
``pairings``. A refusal is a :class:`scorer.errors.CribbageError`, a ``ValueError`` whose message
fits the board's small screen. Keeping games in a file is the ``ledger`` package's work.
"""
