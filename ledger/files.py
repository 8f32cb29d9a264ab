"""Small files kept beside a ledger, written so that a power cut leaves the old one or the new one whole.

SQLite makes the ledger itself durable at each COMMIT; a file the project
replaces beside it (the club link's watermark) is written here: a new file,
opened with ``O_NOFOLLOW | O_EXCL`` (never through a link left in its place),
written and fsynced, renamed over the old one, and the folder fsynced so that
the rename is on the disk too.
"""

from __future__ import annotations

import os
from pathlib import Path

SPARE_SUFFIX = ".new"


def replace_durably(path: str | os.PathLike, data: bytes) -> None:
    """Make ``data`` the whole content of ``path``, durably (see the module); OSError if it cannot."""
    path = Path(path)
    spare = path.with_name(path.name + SPARE_SUFFIX)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(spare, flags, 0o666)
    except FileExistsError:  # left by a write that did not finish: ours to remove (a link is removed, not followed)
        os.unlink(spare)
        fd = os.open(spare, flags, 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(spare, path)
    except BaseException:
        try:
            os.unlink(spare)
        except OSError:
            pass
        raise
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
