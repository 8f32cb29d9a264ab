"""The ledger: the SQLite file that keeps every game, and the one writer and the readers of it.

- :mod:`ledger.writer`: :class:`~ledger.writer.LedgerWriter`, the one process that
  writes a ledger; an entry is in the file before it is acknowledged.
- :mod:`ledger.reader`: :class:`~ledger.reader.LedgerReader`, read-only, never in
  the writer's way (export, replay, the web view), with typed rows
  (:mod:`ledger.rows`).
- :mod:`ledger.lock`: the writer's lock file; :mod:`ledger.schema`: the schema,
  its marker and migrations; :mod:`ledger.book`: the current match read back;
  :mod:`ledger.errors`: the exception tree; :mod:`ledger.causes`: what an OS or
  SQLite error means.

It imports the rules (``scorer``) and nothing else of the project.
"""
