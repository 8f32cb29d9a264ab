"""The ledger: the SQLite file that keeps every game, its one writer and its readers.

``single_writer`` is the one writer of a ledger file, whichever ledger it is (its open, lock,
damage set aside, the time it keeps); ``writer`` is the board's ledger on it, as the club
hub's (``firmware.hub.ledger``) is. ``reader`` reads without getting in the writer's way, with
typed rows (``rows``); ``lock`` is the writer's lock file, ``schema`` the schema and its
migrations, ``book`` the current match read back, ``errors`` the exception tree, ``causes`` what
an OS or SQLite error means. It imports the rules (``scorer``) and nothing else of the project.
"""
