"""The ledger: the SQLite file that keeps every game, its one writer and its readers.

``single_writer`` is the one writer of any ledger file (open, lock, damage set aside, time kept);
``writer`` the board's ledger on it, as the hub's (``firmware.hub.ledger``) is; ``reader`` reads
beside it, with typed ``rows``. ``lock``, ``paths`` (checked, set aside), ``files`` (written
durably), ``memory`` (a folder in RAM), ``schema`` and its migrations, ``book`` (the match read
back), ``feed`` (a club's games in order), ``sources``, ``salvage`` (a -wal read back), ``errors``
and ``causes`` (what an OS or SQLite error means). It imports ``scorer`` and no other room.
"""
