"""Salvage's scratch folder (:class:`Scratch`): gone on every way out, and after a kill at the next salvage.

The folder, ``.salvage-XXXXXXXX`` beside the output, holds an ``flock`` on itself
while its salvage runs. A return, an exception, SIGTERM or SIGINT removes it; after
SIGKILL or a power cut the kernel has dropped the dead salvage's lock, and the next
salvage into that folder removes every ``.salvage-*`` folder whose lock it can take.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any

from scorer.errors import CribbageBoardError

from .causes import os_cause
from .errors import LedgerError

PREFIX = ".salvage-"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stopped(CribbageBoardError, RuntimeError):
    """SIGTERM or SIGINT stopped the salvage (``signum``); nothing was written, its scratch folder is gone.
    Not an OSError, so that no ``except OSError`` on the way takes it for a failed file.

    >>> import signal
    >>> str(Stopped(signal.SIGTERM)), Stopped(signal.SIGTERM).signum == signal.SIGTERM
    ('salvage: stopped by SIGTERM: nothing was written', True)
    """

    def __init__(self, signum: int):
        super().__init__(f"salvage: stopped by {signal.Signals(signum).name}: nothing was written")
        self.signum = signum


class Scratch:
    """``with Scratch(folder) as scratch:`` a new folder at ``scratch.path`` in ``folder``, removed when
    the block ends however it ends, stale ones of killed salvages removed first. While it is open (in the
    main thread), the first SIGTERM or SIGINT raises :class:`Stopped` where Python is, and each is noted
    (``stopped()``, ``check()``): a statement SQLite is running sees it through its progress handler.
    After :meth:`hold` a signal is only noted. LedgerError (one line) if the folder cannot be made."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.path = folder
        self.received: int | None = None
        self._armed = False
        self._fd = -1
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Scratch:
        remove_stale(self.folder)
        try:
            self.path, self._fd = _make(self.folder)
        except OSError as error:
            raise LedgerError(f"salvage: nothing can be written in {self.folder}: {os_cause(error)}") from error
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._note) for sig in STOP_SIGNALS}
        self._armed = True
        return self

    def _note(self, signum: int, _frame: Any) -> None:
        self.received = signum
        if self._armed:
            self._armed = False
            raise Stopped(signum)

    def stopped(self) -> bool:
        """Whether a stop signal came."""
        return self.received is not None

    def check(self) -> None:
        """Stopped if a stop signal came (one SQLite's progress handler saw, say)."""
        if self.received is not None:
            raise Stopped(self.received)

    def hold(self) -> None:
        """From now on a stop signal is only noted: what is left (linking the result) is short, and whole."""
        self._armed = False

    def __exit__(self, *_exc: object) -> None:
        self._armed = False
        try:
            shutil.rmtree(self.path, ignore_errors=True)
        finally:
            os.close(self._fd)
            for sig, handler in self._previous.items():
                signal.signal(sig, handler)


def _make(folder: Path) -> tuple[Path, int]:
    """A new scratch folder in ``folder``, locked: its path and the descriptor that holds the lock."""
    for _ in range(5):  # another salvage may take a folder for stale before it is locked: make another
        path = tempfile.mkdtemp(prefix=PREFIX, dir=folder)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                return Path(path), fd
        except OSError:
            pass
        os.close(fd)
    raise OSError(f"no scratch folder of its own could be made in {folder}")


def remove_stale(folder: Path) -> list[Path]:
    """Remove the scratch folders in ``folder`` no running salvage holds; those removed."""
    removed = []
    for entry in sorted(folder.glob(PREFIX + "*")):
        try:
            fd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:  # gone, not a folder, or a link
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its salvage is running
            os.close(fd)
            continue
        try:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
        finally:
            os.close(fd)
    return removed
