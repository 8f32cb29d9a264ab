"""The ledger's exceptions: :class:`LedgerError` and its tree.

A LedgerError is an ``OSError``, not a ``ValueError``: a full disk or a locked
file is not bad input. Every message names the ledger's path and the cause, in
one line (:mod:`ledger.causes` says what an OS or SQLite error means). This module
imports only the root (:mod:`scorer.errors`), so a command can catch a
LedgerError without loading SQLite.
"""

from scorer.errors import CribbageBoardError


class LedgerError(CribbageBoardError, OSError):
    """The ledger could not be opened, read or written; nothing was acknowledged.

    >>> import tempfile
    >>> from ledger.writer import LedgerWriter
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     try:
    ...         LedgerWriter(folder)
    ...     except LedgerError as error:
    ...         print(isinstance(error, OSError), "is a folder" in str(error))
    True True
    """


class LedgerInUseError(LedgerError):
    """Another process is writing this ledger."""


class DiskFullError(LedgerError):
    """The disk is full: the entry was not saved."""


class Damaged(CribbageBoardError, ValueError):
    """A file that is ours (or claims to be) but whose content cannot be read as a ledger.

    A ``ValueError``: the file is there, what it holds is wrong. A writer sets such a file
    aside and begins a new one; a reader says it is damaged.

    >>> issubclass(Damaged, ValueError), issubclass(Damaged, CribbageBoardError)
    (True, True)
    """
