"""A ledger's path checked before anything is opened or made, and a damaged ledger set aside: for the
board's ledger and the club hub's.

Every refusal is a one-line ``LedgerError`` naming the path and what to do,
and nothing is created, renamed or changed.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from .causes import os_cause
from .errors import LedgerError
from .files import sync_folder


def writable_file(path: Path) -> bool:
    """Whether a ledger file is there; raises LedgerError, changing nothing, if
    the path is not a file this user can write (or a file that could be made)."""
    try:
        path.stat()
    except FileNotFoundError:
        check_parent(path)
        return False
    except OSError as error:
        if error.errno == errno.ENOTDIR:
            check_parent(path)
        raise LedgerError(f"ledger {path} cannot be opened: {os_cause(error)}") from error
    if path.is_dir():
        raise LedgerError(f"ledger {path} is a folder, not a file: give a file path (--state FILE)")
    if not path.is_file():
        raise LedgerError(f"ledger {path} is not a regular file: give a file path (--state FILE)")
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CLOEXEC))
    except OSError as error:
        raise LedgerError(f"ledger {path} cannot be written: {os_cause(error)}") from error
    return True


def check_parent(path: Path) -> None:
    """The ledger's folder exists or can be made: the nearest existing ancestor is a folder."""
    for ancestor in path.absolute().parents:
        try:
            if ancestor.is_dir():
                return
            in_the_way = ancestor.exists()
        except OSError as error:
            raise LedgerError(f"ledger {path} cannot be created: {os_cause(error)}") from error
        if in_the_way:
            raise LedgerError(f"ledger {path} cannot be created: {ancestor} is a file, not a folder")


def set_aside(path: Path, moment: float, error: Exception) -> Path:
    """Rename a damaged ledger, with its -wal and -shm, to ``PATH.corrupt-<UTC moment>`` (``-2``, ``-3``...
    when that is taken), never deleting anything; the new name. LedgerError if it cannot be moved."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(moment))
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
    try:
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(path) + suffix)
            if part.exists():
                os.replace(part, str(target) + suffix)
        sync_folder(path.parent)  # the new names on the disk before a new ledger is begun
    except OSError as move_error:
        raise LedgerError(
            f"ledger {path} is damaged ({error}) and cannot be moved aside "
            f"({os_cause(move_error)}): check the state folder's permissions"
        ) from move_error
    return target
