"""What an OS or SQLite error on the ledger's files means to the user, in a few words."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from .errors import Damaged

DAMAGED_CODES = {sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT}
_OS_CAUSES = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.ENOTDIR: "a file is in the way of its folder",
    errno.EISDIR: "it is a folder, not a file",
    errno.ELOOP: "too many symbolic links",
    errno.ENAMETOOLONG: "the name is too long",
}


def error_code(error: BaseException) -> int:
    """SQLite's primary result code of an error (0 when it has none)."""
    return getattr(error, "sqlite_errorcode", 0) & 0xFF


def is_damage(error: BaseException) -> bool:
    """Whether an error says the file itself is damaged (not locked, full or unreadable)."""
    return isinstance(error, Damaged) or (isinstance(error, sqlite3.Error) and error_code(error) in DAMAGED_CODES)


def sqlite_cause(error: BaseException, folder: Path) -> str:
    """What an SQLite error means for the user, from its result code.

    ``error`` is what SQLite raised, ``folder`` the ledger's folder (a failed write there
    may be a full disk). Returns a few words for a one-line message; raises nothing.

    >>> import sqlite3
    >>> from pathlib import Path
    >>> error = sqlite3.OperationalError("database is locked")
    >>> error.sqlite_errorcode = sqlite3.SQLITE_BUSY
    >>> sqlite_cause(error, Path("."))
    'locked by another program (a backup? another copy of the board?)'
    """
    code = error_code(error)
    name = getattr(error, "sqlite_errorname", "") or type(error).__name__
    if code == sqlite3.SQLITE_FULL or (code == sqlite3.SQLITE_IOERR and _disk_is_full(folder)):
        return "disk full"
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return "locked by another program (a backup? another copy of the board?)"
    if code == sqlite3.SQLITE_READONLY:
        return "read-only: the file or its folder cannot be written"
    if code == sqlite3.SQLITE_PERM or code == sqlite3.SQLITE_AUTH:
        return "permission denied"
    if code == sqlite3.SQLITE_CANTOPEN:
        return "SQLite cannot open it (check the path and its permissions)"
    return f"{error} ({name})"


def _disk_is_full(folder: Path) -> bool:
    try:
        return os.statvfs(folder).f_bavail == 0
    except OSError:
        return False


def os_cause(error: OSError) -> str:
    """What an OS error on the ledger's files means, in a few words."""
    return _OS_CAUSES.get(error.errno or 0, error.strerror or str(error))
