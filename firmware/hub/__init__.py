"""The club night's hub (``cribbage-board hub``): a program of its own, beside the boards.

It reads what the tables send through the club's broker, keeps it in a ledger of its own
(:mod:`firmware.hub.ledger`), ranks the players, makes the pairings and serves the room's page: ``hub``
(the one writer), ``inbox``, ``mqtt``, ``state``, ``night``, ``commands`` and ``director``,
``pages`` and ``site``, ``journal``, ``service``. Only the command line imports it; it imports
the firmware base, ``firmware.server``, the club's wire protocol, the scorer and the ledger, never ``hardware``.
"""
