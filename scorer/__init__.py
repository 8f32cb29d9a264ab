"""The cribbage rules and the counting of hands: a pure library (no I/O, clock, threads or hardware).

From the bottom up: ``errors`` (the root of every exception of ours, and the scorer's), ``names``,
``cards``; ``counting``, ``totals``, ``distribution``, ``rank_points`` (a hand, a crib or a card of the play counted);
``variants`` (skunk lines, game points); ``game`` and ``match`` (one game with undo and redo; games in
a row); ``record`` (the game record and its replay); ``report``, ``history``, ``coach``, ``standings``,
``pairings``. A refusal is a :class:`scorer.errors.CribbageError`, a ``ValueError`` whose message fits
the board's small screen. Keeping games in a file is the ``ledger`` package's work.
"""
