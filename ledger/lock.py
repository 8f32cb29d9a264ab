"""The writer's lock: ``LEDGER.lock`` beside the ledger, held for the writer's lifetime.

The writer holds an exclusive ``flock`` on it and writes its pid and program
into it, so a second writer is refused at once and told who holds it. It also
holds an OFD write lock on it (Linux), which readers test with ``F_OFD_GETLK``
(:func:`writer_running`): they never take a lock on it.
"""

from __future__ import annotations

import fcntl
import os
import struct
import sys
from pathlib import Path

from .causes import os_cause
from .errors import LedgerError, LedgerInUseError

OPEN_TRIES = 10  # a lock file removed and made again this often while we open it: give up


class WriterLock:
    """An exclusive ``flock`` on ``LEDGER.lock`` for one writer's lifetime.

    The lock file holds ``PID PROGRAM`` for the refusal message. It is removed
    when released; a lock left by a killed writer is free (the kernel drops a
    dead process's flock) and is simply taken.
    """

    def __init__(self, ledger: Path, holder: str):
        self.ledger = ledger
        self.path = Path(lock_path(ledger))  # one lock whatever symlink leads to the ledger
        self.created = False
        self._fd: int | None = None
        self._ledger_fd: int | None = None  # the ledger file itself, flocked too (see hold)
        self._ledger_id: tuple[int, int] | None = None
        for _ in range(OPEN_TRIES):  # another writer may remove the file between our open and flock
            fd, created = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                who = self._holder(fd)
                os.close(fd)
                raise LedgerInUseError(
                    f"ledger {ledger} is in use by {who}: stop it first"
                ) from None
            except OSError as error:
                os.close(fd)
                raise LedgerError(f"ledger {ledger} cannot be locked: {os_cause(error)}") from error
            if self._same_file(fd):
                self._fd, self.created = fd, created
                _mark_held(fd)
                break
            os.close(fd)
        else:
            raise LedgerError(f"ledger {ledger} cannot be locked: its lock file keeps changing")
        try:  # best effort: a full disk must not stop the lock itself
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {holder}\n".encode(), 0)
        except OSError:
            pass

    def _open(self) -> tuple[int, bool]:
        """The lock file, opened or made; never through a symbolic link (a link planted at
        the lock's path is refused, and what it points at left alone)."""
        flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW
        for _ in range(OPEN_TRIES):  # another writer may remove the file between our two opens
            try:
                return os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
            except FileExistsError:
                pass
            except OSError as error:
                raise LedgerError(
                    f"ledger {self.ledger} cannot be written: no file can be made in its folder "
                    f"{self.path.parent} for the writer's lock ({os_cause(error)})"
                ) from error
            try:
                return os.open(self.path, flags), False
            except FileNotFoundError:
                continue
            except OSError as error:
                raise LedgerError(f"ledger {self.ledger} cannot be written: {self._refusal(error)}") from error
        raise LedgerError(f"ledger {self.ledger} cannot be locked: its lock file keeps changing")

    def _refusal(self, error: OSError) -> str:
        """Why the lock file cannot be opened, and what to do."""
        if os.path.islink(self.path):
            return f"its lock {self.path} is a symbolic link, which is never followed: remove it"
        if os.path.isdir(self.path):
            return f"its lock {self.path} is a folder, not a file: remove it"
        return f"its lock {self.path} cannot be opened ({os_cause(error)})"

    def _same_file(self, fd: int) -> bool:
        try:
            here, there = os.fstat(fd), os.lstat(self.path)
        except FileNotFoundError:
            return False
        return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)

    @staticmethod
    def _holder(fd: int) -> str:
        try:
            text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        except OSError:
            text = ""
        pid, _, program = text.partition(" ")
        if not pid.isdigit():
            return "another process"
        return f"{program or 'a process'} (pid {pid})"

    def hold(self) -> None:
        """Flock the ledger file itself too, for the writer's lifetime (again after the file is
        set aside and made anew): the lock file can be removed or replaced under a running
        writer, the ledger it writes cannot be taken by a second one. (SQLite's own locks are
        fcntl locks, which a flock neither takes nor blocks.) LedgerInUseError if another
        writer holds it."""
        fd = os.open(os.path.realpath(self.ledger), os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LedgerInUseError(
                f"ledger {self.ledger} is in use by another writer (its lock file {self.path} was "
                "removed or replaced): stop it first") from None
        self._drop_ledger()
        stat = os.fstat(fd)
        self._ledger_fd, self._ledger_id = fd, (stat.st_dev, stat.st_ino)

    @property
    def ledger_fd(self) -> int | None:
        """The descriptor of the ledger file held (see hold), None before it is held."""
        return self._ledger_fd

    def holds_ledger(self) -> bool:
        """Whether the file at the ledger's path is still the one held (not moved, deleted or replaced)."""
        try:
            stat = os.stat(self.ledger)
        except OSError:
            return False
        return self._ledger_id == (stat.st_dev, stat.st_ino)

    def held_path(self) -> Path | None:
        """Where the held ledger file is now (after it was moved): the name the kernel gives its open
        file (``/proc/self/fd``), else a name in the ledger's folder with its identity; None once the
        file is deleted or cannot be found."""
        if self._ledger_fd is None:
            return None
        try:
            if os.fstat(self._ledger_fd).st_nlink == 0:
                return None  # deleted: no name leads to it
        except OSError:
            return None
        candidates = []
        try:
            candidates.append(Path(os.readlink(f"/proc/self/fd/{self._ledger_fd}")))
        except OSError:
            pass
        try:
            candidates += sorted(self.ledger.absolute().parent.iterdir())
        except OSError:
            pass
        for candidate in candidates:
            try:
                stat = os.stat(candidate)
            except OSError:
                continue
            if (stat.st_dev, stat.st_ino) == self._ledger_id:
                return candidate
        return None

    def _drop_ledger(self) -> None:
        if self._ledger_fd is not None:
            os.close(self._ledger_fd)
            self._ledger_fd = self._ledger_id = None

    def release(self, remove: bool = True) -> None:
        """Let the lock go (removing the lock file first, while it is still ours)."""
        self._drop_ledger()
        if self._fd is None:
            return
        if remove and self._same_file(self._fd):
            try:
                self.path.unlink()
            except OSError:
                pass
        os.close(self._fd)
        self._fd = None


# The flock above is what excludes writers; readers cannot test a flock without
# taking it (and a reader's brief shared flock would make a board starting at that
# moment fail "in use"). So the writer also holds an open-file-description write
# lock (Linux F_OFD_SETLK, whole file) on the same file, which a reader tests with
# F_OFD_GETLK: a query that takes nothing and blocks nobody (see ``writer_running``).
_OFD_GETLK = getattr(fcntl, "F_OFD_GETLK", None)
_OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None)
_FLOCK = "@hhqqi"  # struct flock: l_type, l_whence, l_start, l_len (0: to the end), l_pid


def _mark_held(fd: int) -> None:
    """Best effort: the flock alone keeps other writers out; readers then fall back on the files."""
    if _OFD_SETLK is not None:
        try:
            fcntl.fcntl(fd, _OFD_SETLK, struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0))
        except OSError:
            pass


def writer_running(ledger: str | os.PathLike[str]) -> bool | None:
    """Whether a writer (the board) holds the ledger's lock now: True, False, or None
    where this system cannot tell (no OFD locks). It only asks the kernel (F_OFD_GETLK
    on ``LEDGER.lock`` opened read-only): it takes no lock, so it never makes a
    starting writer fail, and works in a folder this process cannot write."""
    return lock_held(lock_path(ledger))


def lock_path(ledger: str | os.PathLike[str]) -> str:
    """``LEDGER.lock`` beside the real file, as ``WriterLock`` names it."""
    return os.path.realpath(ledger) + ".lock"


def lock_held(lock: str) -> bool | None:
    """Whether a writer holds the lock file ``lock`` (see :func:`writer_running`)."""
    if _OFD_GETLK is None:
        return None
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False  # a writer makes the file before it locks it, and removes it last
    except OSError:
        return None
    try:
        probe = struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        held: bool = struct.unpack(_FLOCK, fcntl.fcntl(fd, _OFD_GETLK, probe))[0] != fcntl.F_UNLCK
        return held
    except OSError:
        return None
    finally:
        os.close(fd)


def default_holder() -> str:
    """This program's name, for the lock file when the caller names none."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name and name not in ("-c", "-m", "__main__.py") else "python"
