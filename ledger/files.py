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


def replace_durably(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Make ``data`` the whole content of ``path``, durably (see the module); OSError if it cannot.
    ``mode``: the new file's permissions exactly (else 0o666 less the umask).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "watermark.json")
    ...     replace_durably(path, b"{}")
    ...     replace_durably(path, b'{"kept": 3}')
    ...     print(open(path, "rb").read())
    b'{"kept": 3}'
    """
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
            if mode is not None:
                os.fchmod(out.fileno(), mode)
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
    sync_folder(path.parent)


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """fsync a folder, so that the names made, renamed or removed in it are on the disk.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "secret.toml")
    ...     open(path, "w").close()
    ...     os.remove(path)
    ...     sync_folder(folder)
    ...     print(os.listdir(folder))
    []
    """
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
