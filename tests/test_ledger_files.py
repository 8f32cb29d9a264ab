"""Every file replaced beside a ledger is written durably (issue 30, item 2), through one helper,
``ledger.files.replace_durably``: a new file opened O_NOFOLLOW|O_EXCL, written and fsynced, renamed
over the old one, the folder fsynced. Checked in the system calls (strace) and by wrapping ``os``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.board.club.outbox import Watermark
from firmware.cli.club_network import club_network
from firmware.config import load_config
from ledger import files
from ledger.files import replace_durably

ROOT = Path(__file__).resolve().parent.parent


class Recorder:
    """``os`` as ledger.files sees it, every call that matters to durability written down in order."""

    def __init__(self, real):
        self._real = real
        self.calls: list[tuple] = []
        self.fds: dict[int, str] = {}

    def __getattr__(self, name):
        return getattr(self._real, name)

    def open(self, path, flags, mode=0o777, **kw):
        fd = self._real.open(path, flags, mode, **kw)
        self.fds[fd] = str(path)
        self.calls.append(("open", str(path), flags))
        return fd

    def fsync(self, fd):
        name = self.fds.get(fd if isinstance(fd, int) else fd.fileno(), "?")
        content = Path(name).read_bytes() if Path(name).is_file() else None
        self.calls.append(("fsync", name, content))
        return self._real.fsync(fd)

    def replace(self, src, dst, **kw):
        self.calls.append(("replace", str(src), str(dst)))
        return self._real.replace(src, dst, **kw)

    def fdopen(self, fd, *args, **kw):
        return self._real.fdopen(fd, *args, **kw)


@pytest.fixture
def recorder(monkeypatch):
    wrapped = Recorder(os)
    monkeypatch.setattr(files, "os", wrapped)
    return wrapped


def assert_durable_order(calls, path: Path, data: bytes):
    spare = str(path) + ".new"
    kinds = [(c[0], c[1]) for c in calls]
    assert kinds == [("open", spare), ("fsync", spare), ("replace", spare), ("open", str(path.parent)),
                     ("fsync", str(path.parent))], calls
    flags = calls[0][2]
    for flag in (os.O_CREAT, os.O_EXCL, os.O_NOFOLLOW, os.O_WRONLY):
        assert flags & flag, f"the new file is opened without flag {flag:#o}"
    assert calls[1][2] == data  # all of it written before the fsync
    assert calls[2][2] == str(path)
    assert calls[3][2] & os.O_DIRECTORY


def test_the_helper_writes_fsyncs_renames_then_fsyncs_the_folder(tmp_path, recorder):
    path = tmp_path / "LEDGER.club"
    path.write_bytes(b"old")
    replace_durably(path, b"new and whole")
    assert path.read_bytes() == b"new and whole" and not (tmp_path / "LEDGER.club.new").exists()
    assert_durable_order(recorder.calls, path, b"new and whole")


def test_the_club_watermark_is_written_through_the_helper(tmp_path, recorder):
    path = tmp_path / "ledger.sqlite3.club"
    key = {"ledger": "ledger-id", "club": "thursday", "table": "3"}
    Watermark(key, (4, 17), 3, {5: ["finished", 31]}).save(path)
    assert_durable_order(recorder.calls, path, path.read_bytes())
    mark, problem = Watermark.load(path, key)
    assert problem is None and (mark.place, mark.first_open_game, mark.results) == ((4, 17), 3, {5: ["finished", 31]})


def test_the_club_network_drop_in_is_written_through_the_helper(tmp_path, recorder):
    drop_in = tmp_path / "cribbage-board.service.d" / "club.conf"
    club = load_config(None, ["club.broker=mqtt://192.168.1.20:1883", "club.name=thursday", "club.table=3"]).club
    said = club_network(club, "test", drop_in=drop_in, resolver=lambda host, port: ["192.168.1.20"])
    assert "wrote" in said
    assert_durable_order(recorder.calls, drop_in, drop_in.read_bytes())
    assert drop_in.stat().st_mode & 0o777 == 0o644


def test_a_link_left_in_the_new_files_place_is_removed_never_followed(tmp_path):
    path, target = tmp_path / "LEDGER.club", tmp_path / "elsewhere"
    target.write_bytes(b"not to be touched")
    (tmp_path / "LEDGER.club.new").symlink_to(target)
    replace_durably(path, b"mark")
    assert path.read_bytes() == b"mark" and target.read_bytes() == b"not to be touched"
    assert not path.is_symlink()


STRACE = shutil.which("strace")


def need_strace() -> None:
    """Skip, saying why, unless strace can trace here (qemu-user has no ptrace: tests/system/test-install-arm64.sh)."""
    if STRACE is None:
        pytest.skip("strace is not installed (apt-get install strace)")
    probe = subprocess.run([STRACE, "-o", os.devnull, "true"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        said = probe.stderr.strip().splitlines()
        pytest.skip(f"strace cannot trace here (no ptrace, as under qemu-user): {said[0] if said else probe.returncode}")


def test_the_system_calls_are_in_the_durable_order(tmp_path):
    """strace -f of a process writing a watermark: openat(O_EXCL|O_NOFOLLOW) of the .new file, its
    write, fsync, rename over the old one, then the folder opened and fsynced, in that order."""
    need_strace()
    path = tmp_path / "ledger.sqlite3.club"
    path.write_bytes(b"old")
    trace = tmp_path / "trace"
    code = f"from ledger.files import replace_durably; replace_durably({str(path)!r}, b'0123456789')"
    subprocess.run([STRACE, "-f", "-o", str(trace), "-e", "trace=openat,write,fsync,fdatasync,rename,renameat,renameat2,close",
                    sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)
    lines = trace.read_text().splitlines()
    spare, folder = f'"{path}.new"', f'"{tmp_path}"'
    opened = next(i for i, line in enumerate(lines) if "openat(" in line and spare in line)
    assert "O_EXCL" in lines[opened] and "O_NOFOLLOW" in lines[opened] and "O_CREAT" in lines[opened]
    fd = re.search(r"= (\d+)$", lines[opened]).group(1)
    after = lines[opened + 1:]

    def first(pattern: str, start: int = 0) -> int:
        return next(i for i, line in enumerate(after) if i >= start and re.search(pattern, line))

    wrote, synced = first(rf"write\({fd}, \"0123456789\""), first(rf"fsync\({fd}\)")
    renamed = first(r"rename(at2?)?\(.*" + re.escape(spare))
    dir_open = first(r"openat\(.*" + re.escape(folder) + r".*O_DIRECTORY")
    dir_fd = re.search(r"= (\d+)$", after[dir_open]).group(1)
    dir_synced = first(rf"fsync\({dir_fd}\)", dir_open)
    assert wrote < synced < renamed < dir_open < dir_synced, "\n".join(lines[opened:])
