"""The club night's hub (``cribbage-board hub``): a program of its own, beside the boards.

It reads what the tables send through the club's broker (the wire protocol is
:mod:`firmware.wire.schema` and :mod:`firmware.wire.broker`), keeps it in a ledger of
its own (:mod:`firmware.hub.ledger`), ranks the players, makes the pairings and serves the
room's page.

- :mod:`.hub`: the hub itself, the one writer of its ledger; :mod:`.inbox` what its writer is told,
  :mod:`.mqtt` its broker link, :mod:`.state` the night kept up to date and the snapshots the page
  reads, :mod:`.journal` its log.
- :mod:`.night`: the night derived from the hub's ledger rows (pure), whole or row by row.
- :mod:`.commands` and :mod:`.director`: the director's commands and console.
- :mod:`.pages` and :mod:`.site`: ``/club``, its events, the JSON API and the CSV.
- :mod:`.service`: the command: its line checked, the hub started, the page served.

Only the command line imports it; it imports the firmware base, the servers' toolkit
(:mod:`firmware.server`), the club's wire protocol, the scorer and the ledger, and
nothing of ``hardware``.
"""
