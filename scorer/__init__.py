"""The cribbage rules and the counting of hands: a pure library.

No I/O, no clock, no threads, no hardware: every function takes values and
returns values. Its modules, from the bottom up:

- :mod:`scorer.cards`: cards and their notation;
- :mod:`scorer.counting`: a hand, a crib or a card of the play counted;
  :mod:`scorer.totals`: a show's total and its parts by table, unitemised;
  :mod:`scorer.distribution`: what every hand can score;
- :mod:`scorer.variants`: the variants as data, the house options, skunk lines
  and game points;
- :mod:`scorer.game`: one game, entries pegged in order, undo and redo;
  :mod:`scorer.match`: games in a row with the tally;
- :mod:`scorer.record`: the plain-text game record, its parser and replay;
- :mod:`scorer.report` and :mod:`scorer.history`: what a state or a run of
  records comes to, as plain data.

A refusal is a :class:`scorer.errors.CribbageError` (a ``ValueError``) whose
message fits the board's small screen. Keeping games in a file is the
``ledger`` package's work, not this one's.
"""
