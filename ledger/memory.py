"""Whether a ledger's folder lives in memory, where every game is lost at power-off.

The game still goes on; :func:`memory_warning` is the one line that says so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

MEMORY_TYPES = frozenset({"tmpfs", "ramfs"})
MOUNTINFO = Path("/proc/self/mountinfo")
CMDLINE = Path("/proc/cmdline")


class Mount(NamedTuple):
    point: str
    fstype: str
    source: str
    options: str  # the filesystem's own options (an overlay's lowerdir, upperdir...)


def _unescape(field: str) -> str:
    """A mountinfo path: spaces, tabs, newlines and backslashes are written as octal escapes."""
    out, i = [], 0
    while i < len(field):
        digits = field[i + 1:i + 4]
        if field[i] == "\\" and len(digits) == 3 and set(digits) <= set("01234567"):
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts of ``/proc/self/mountinfo``'s text, in its order (a later mount on the same point hides an earlier one)."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 2:
            continue  # not a line of the kernel's format: skip it rather than guess
        mounts.append(Mount(_unescape(fields[4]), tail[0], tail[1], tail[2] if len(tail) > 2 else ""))
    return mounts


def mount_of(path: str, mounts: list[Mount]) -> Mount | None:
    """The mount that holds ``path`` (absolute, resolved): the longest mount point above it, the last one mounted there."""
    best: Mount | None = None
    for mount in mounts:
        point = mount.point.rstrip("/")  # "" for the root
        if path == point or path.startswith(point + "/"):
            if best is None or len(point) >= len(best.point.rstrip("/")):
                best = mount
    return best


def _option(options: str, name: str) -> str | None:
    for option in options.split(","):
        key, _, value = option.partition("=")
        if key == name:
            return value
    return None


def memory_cause(path: str, mounts: list[Mount], cmdline: str = "") -> str | None:
    """Why ``path`` lives in memory (``"tmpfs"``, ``"an overlay over tmpfs"``...), None if it does not (or cannot be told).

    A ledger on tmpfs or ramfs (``--state /dev/shm/...``), or under an overlay whose
    upper layer is one, is written to RAM: SQLite's fsync returns at once and the
    file is gone when the power goes. Raspberry Pi OS's "Overlay File System"
    (raspi-config, Performance Options), which hobbyists turn on to spare the SD
    card, is such an overlay: ``overlayroot=tmpfs`` on the kernel's command line
    and the root mounted as an overlay over a tmpfs.
    """
    mount = mount_of(path, mounts)
    if mount is None:
        return None
    if mount.fstype in MEMORY_TYPES:
        return mount.fstype
    if mount.fstype == "overlay":
        upper = _option(mount.options, "upperdir")
        below = mount_of(upper, mounts) if upper else None
        if below is not None and below is not mount and below.fstype in MEMORY_TYPES:
            return f"an overlay kept in RAM (its upper layer is {below.fstype})"
        if mount.point == "/" and "overlayroot=tmpfs" in cmdline.split():
            return "the Overlay File System (overlayroot=tmpfs): an overlay kept in RAM"
    return None


def _existing(path: Path) -> str:
    """The resolved path of ``path``, or of its nearest folder that exists (a ledger not made yet)."""
    path = Path(os.path.abspath(path))
    for candidate in (path, *path.parents):
        if candidate.exists():
            return str(candidate.resolve())
    return "/"


def memory_warning(ledger: str | os.PathLike[str], mountinfo: Path = MOUNTINFO, cmdline: Path = CMDLINE) -> str | None:
    """One line if the ledger's folder lives in memory (its games are lost at power-off), else None.
    Nothing is said when the mounts cannot be read (not Linux): the board goes on either way."""
    try:
        mounts = parse_mountinfo(mountinfo.read_text(errors="replace"))
    except OSError:
        return None
    try:
        line = cmdline.read_text(errors="replace")
    except OSError:
        line = ""
    cause = memory_cause(_existing(Path(ledger)), mounts, line)
    if cause is None:
        return None
    return (f"ledger {ledger} is in memory ({cause}): its games are lost at power-off; "
            "keep it on the SD card (--state, or turn the Overlay File System off in raspi-config)")
