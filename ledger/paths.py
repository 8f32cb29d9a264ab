"""A ledger's path checked before anything is opened or made, a damaged ledger set aside, and a -wal
that is not the file's own found: for the board's ledger and the club hub's.

Every refusal is a one-line ``LedgerError`` naming the path and what to do,
and nothing is created, renamed or changed.
"""

from __future__ import annotations

import errno
import os
import re
import struct
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


SET_ASIDE = re.compile(r".+\.(corrupt|kept)-\d{8}T\d{6}(-\d+)?(-wal|-shm)?")  # what set_aside and keep_name make


def set_aside(path: Path, moment: float, error: Exception, parts: tuple[str, ...] = ("", "-wal", "-shm")) -> Path:
    """Rename a damaged ledger, with its -wal and -shm, to ``PATH.corrupt-<UTC moment>`` (``-2``, ``-3``...
    when that is taken), never deleting anything; the new name. ``parts``: which of the three files
    (the suffixes) are moved. LedgerError if it cannot be moved."""
    target = free_name(path, "corrupt", moment)
    try:
        for suffix in parts:
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


def free_name(path: Path, kind: str, moment: float) -> Path:
    """``PATH.<kind>-<UTC moment>``, with ``-2``, ``-3``... when that name (or its -wal) is taken."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(moment))
    target = path.with_name(f"{path.name}.{kind}-{stamp}")
    counter = 1
    while target.exists() or Path(f"{target}-wal").exists():
        counter += 1
        target = path.with_name(f"{path.name}.{kind}-{stamp}-{counter}")
    return target


def set_aside_files(folder: Path) -> list[Path]:
    """The files in ``folder`` that a writer set aside (a damaged ledger, a -wal not its ledger's own,
    a ledger kept after it was deleted while open), by name."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / name for name in names if SET_ASIDE.fullmatch(name)]


# ---- a -wal that is not the ledger's own ----------------------------------------

WAL_MAGIC = (0x377F0682, 0x377F0683)
WAL_HEADER, FRAME_HEADER, DB_HEADER = 32, 24, 100


def foreign_wal(path: Path) -> str | None:
    """Why the -wal beside ``path`` holds pages that are not this file's, or None when it is
    this file's own, empty, or nothing SQLite would read. SQLite replays a -wal into whatever
    file is at the path: into a new empty file it deletes it unread; into another database it
    writes that one's pages over this one's. Only the headers are read."""
    try:
        with open(f"{path}-wal", "rb") as wal:
            header = wal.read(WAL_HEADER)
            if len(header) < WAL_HEADER:
                return None
            magic, _, wal_page, _, salt1, salt2 = struct.unpack(">6I", header[:24])
            if magic not in WAL_MAGIC or wal_page < 512:
                return None
            frame = wal.read(FRAME_HEADER)
            if len(frame) < FRAME_HEADER or frame[8:16] != header[16:24]:
                return None  # no frame of this -wal's present: nothing in it
            first = wal.read(DB_HEADER) if struct.unpack(">I", frame[:4])[0] == 1 else b""
    except FileNotFoundError:
        return None
    except OSError:
        return None  # SQLite says what it cannot read
    try:
        with open(path, "rb") as db:
            db_header = db.read(DB_HEADER)
    except FileNotFoundError:
        return "with no database beside it"
    except OSError:
        return None
    if len(db_header) < DB_HEADER:
        return "beside an empty file" if not db_header else None
    if not db_header.startswith(b"SQLite format 3\0"):
        return None  # not a database: set aside whole, as damaged
    if db_header[18:20] != b"\x02\x02":
        return "beside a database not in WAL mode"
    db_page = struct.unpack(">H", db_header[16:18])[0]
    if (db_page if db_page != 1 else 65536) != wal_page:
        return "beside a database of another page size"
    marked = db_header[68:72]  # application_id: set once, in the file's first transaction (which may be in the -wal)
    if first and first.startswith(b"SQLite format 3\0") and marked != bytes(4) and first[68:72] != marked:
        return "beside another kind of database"
    return None
