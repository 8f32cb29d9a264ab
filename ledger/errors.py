"""The ledger's exceptions: :class:`LedgerError` and its tree.

It is its own tree, not a ``ValueError``: a full disk or a locked file is not
bad input. Every message names the ledger's path and the cause, in one line
(:mod:`ledger.causes` says what an OS or SQLite error means). This module
imports nothing, so a command can catch a LedgerError without loading SQLite.
"""


class LedgerError(Exception):
    """The ledger could not be opened, read or written; nothing was acknowledged."""


class LedgerInUseError(LedgerError):
    """Another process is writing this ledger."""


class DiskFullError(LedgerError):
    """The disk is full: the entry was not saved."""


class Damaged(Exception):
    """Inside the package only: the file is ours (or claims to be) but cannot be read
    as a ledger. The writer sets such a file aside; the reader says it is damaged."""
