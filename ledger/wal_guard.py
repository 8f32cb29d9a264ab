"""The writer's watch on its -wal: whether the -wal beside the ledger is still the file SQLite writes,
whole (:meth:`WalGuard.changed`), and a copy of the committed frames SQLite wrote, read back after each
commit, to write the ledger whole when it is not (:meth:`WalGuard.write_whole`).
"""

from __future__ import annotations

import os
import sqlite3
import struct
from pathlib import Path

from .paths import FRAME_HEADER, WAL_HEADER, WAL_MAGIC

CHUNK_FRAMES = 16  # frames read back at once after a commit


class WalGuard:
    """SQLite trusts the -wal it holds open: truncated, or another file copied over it, it writes on and
    later folds zeros or another ledger's pages into the file. So this holds the -wal of the ledger at
    ``path`` as SQLite holds it open (``/proc/self/fd``; else opened
    by its name), and what this writer knows of it. Call :meth:`changed` before and after each
    commit (``committed=True`` after), :meth:`reread` after a checkpoint of the writer's own,
    :meth:`close` at the end."""

    def __init__(self, path: Path):
        self.path = path
        self.wal = Path(f"{path}-wal")
        self._fd = _held_wal(self.wal)
        self._id = _identity(os.fstat(self._fd))
        self._header = b""
        self._frames = bytearray()  # the committed frames after the header, as SQLite wrote them
        self._end = 0  # the end of the last committed frame in the file
        self.reread()

    def reread(self) -> None:
        """Take the -wal as it is now as the writer's own (after opening, or its own checkpoint)."""
        self._header, self._frames, self._end = b"", bytearray(), 0
        self._catch_up(self._read(0, WAL_HEADER))

    def changed(self, committed: bool = False) -> str | None:
        """What changed under the writer since it last looked, in a few words ("was truncated"), or
        None; then what SQLite wrote since is taken as known. ``committed``: the writer has just
        committed (a -wal that had no header may have one now). A header SQLite writes when it starts
        the -wal again (the next checkpoint sequence and first salt) is the writer's own."""
        try:
            here = _identity(os.stat(self.wal))
        except FileNotFoundError:
            return "was removed"
        except OSError as error:
            return f"cannot be read ({error.strerror})"
        if here != self._id:
            return "was replaced"
        size = os.fstat(self._fd).st_size
        if size < self._end:
            return "was truncated"
        header = self._read(0, WAL_HEADER)
        if self._header and header != self._header and not _restarted(self._header, header):
            return "was overwritten"
        if not self._header and len(header) == WAL_HEADER and not committed:
            return "was overwritten"
        self._catch_up(header)
        return None

    def _catch_up(self, header: bytes) -> None:
        """Read what SQLite wrote since: from the start when it began the -wal again, else after the
        last frame known; frames count once a commit frame closes them."""
        if len(header) < WAL_HEADER or struct.unpack(">I", header[:4])[0] not in WAL_MAGIC:
            return
        if header != self._header:  # a new -wal (or the first look): its frames start at the header
            self._header, self._frames, self._end = header, bytearray(), WAL_HEADER
        page = struct.unpack(">I", header[8:12])[0]
        frame = FRAME_HEADER + page
        pending = bytearray()  # frames not yet closed by a commit frame (read again next time)
        position = self._end
        while True:
            chunk = self._read(position, frame * CHUNK_FRAMES)
            whole = len(chunk) // frame
            for start in range(0, whole * frame, frame):
                if chunk[start + 8:start + 16] != header[16:24]:  # another -wal's salts: the end of this one
                    return
                pending += chunk[start:start + frame]
                if struct.unpack(">I", chunk[start + 4:start + 8])[0]:  # a commit frame
                    self._frames += pending
                    self._end += len(pending)
                    pending = bytearray()
            if whole < CHUNK_FRAMES:
                return
            position += whole * frame

    def _read(self, offset: int, size: int) -> bytes:
        return os.pread(self._fd, size, offset)

    def write_whole(self, database: int, target: Path) -> None:
        """The ledger whole in a new file ``target``: the database file (read through the descriptor
        ``database``) with the -wal as the writer wrote it, folded in by SQLite, checked, synced.
        sqlite3.Error or OSError if it cannot be."""
        spare = target.with_name(target.name + ".new")
        for part in ("", "-wal", "-shm"):
            if Path(f"{spare}{part}").exists():
                raise FileExistsError(f"{spare}{part} is in the way")
        try:
            _write_file(spare, _read_all(database))
            _write_file(Path(f"{spare}-wal"), self._header + self._frames if self._frames else b"")
            conn = sqlite3.connect(spare, isolation_level=None)
            try:
                conn.execute("PRAGMA synchronous=FULL")
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                problem = conn.execute("PRAGMA quick_check").fetchone()[0]
                if busy or problem != "ok":
                    raise sqlite3.DatabaseError(f"the copy does not read whole ({problem})")
            finally:
                conn.close()
            os.replace(spare, target)
        finally:
            for part in ("", "-wal", "-shm"):
                Path(f"{spare}{part}").unlink(missing_ok=True)

    def close(self) -> None:
        os.close(self._fd)


def _restarted(before: bytes, after: bytes) -> bool:
    """Whether ``after`` is the header SQLite writes when it starts the -wal again after ``before``:
    the checkpoint sequence and the first salt each one more, the same magic and page size."""
    if len(after) < WAL_HEADER:
        return False
    magic, version, page, sequence, salt = struct.unpack(">5I", before[:20])
    magic2, version2, page2, sequence2, salt2 = struct.unpack(">5I", after[:20])
    return ((magic2, version2, page2) == (magic, version, page) and sequence2 == (sequence + 1) & 0xFFFFFFFF
            and salt2 == (salt + 1) & 0xFFFFFFFF)


def _identity(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _held_wal(wal: Path) -> int:
    """A descriptor of our own on the -wal SQLite holds open (a duplicate of SQLite's), found in
    ``/proc/self/fd``; where there is none, the file at its name, opened for reading."""
    real = os.path.realpath(wal)
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        fds = []
    for name in fds:
        try:
            if os.readlink(f"/proc/self/fd/{name}") == real:
                return os.dup(int(name))
        except (OSError, ValueError):
            continue
    return os.open(wal, os.O_RDONLY | os.O_CLOEXEC)


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    parts, offset = [], 0
    while offset < size:
        part = os.pread(fd, min(size - offset, 1 << 20), offset)
        if not part:
            break
        parts.append(part)
        offset += len(part)
    return b"".join(parts)


def _write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
