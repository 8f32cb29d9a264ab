"""The ledger: the SQLite file that keeps every game, and the one writer and the readers of it.

- :mod:`ledger.single_writer`: :class:`~ledger.single_writer.SingleWriter`, the one
  writer of a ledger file, whichever ledger it is: its open, lock, damage set
  aside, error lines and the time it keeps (:func:`~ledger.single_writer.stamp`).
- :mod:`ledger.writer`: :class:`~ledger.writer.LedgerWriter`, the board's ledger on
  it; an entry is in the file before it is acknowledged. :mod:`firmware.hub.ledger`:
  :class:`~firmware.hub.ledger.HubLedger`, the club hub's, on it too.
- :mod:`ledger.reader`: :class:`~ledger.reader.LedgerReader`, read-only, never in
  the writer's way (export, replay, the web view), with typed rows
  (:mod:`ledger.rows`).
- :mod:`ledger.lock`: the writer's lock file; :mod:`ledger.schema`: the schema,
  its marker and migrations; :mod:`ledger.book`: the current match read back;
  :mod:`ledger.errors`: the exception tree; :mod:`ledger.causes`: what an OS or
  SQLite error means.

It imports the rules (``scorer``) and nothing else of the project.
"""
