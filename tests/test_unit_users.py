"""The units' two users for real (root only): install.sh makes them once, and the web view's user
reads the ledger the board's user writes, through their group, and cannot write it."""

from __future__ import annotations

import contextlib
import grp
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from waits import CEILING_S

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "systemd" / "install.sh"
BOARD_UNIT = ROOT / "systemd" / "cribbage-board.service"
WEB_UNIT = ROOT / "systemd" / "cribbage-board-web.service"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as other users")


def setting(unit: Path, key: str) -> str:
    """The last value of ``key`` in a unit file."""
    values = [line.split("=", 1)[1].strip() for line in unit.read_text().splitlines()
              if line.split("=", 1)[0] == key]
    return values[-1]


@pytest.mark.skipif(shutil.which("unshare") is None or shutil.which("useradd") is None,
                    reason="needs unshare and useradd")
def test_install_makes_the_two_users_once(tmp_path):
    """make_users, run twice on a copy of /etc (a private mount): the board's user in its device groups,
    the web's in the board's group alone with no login, and the second run changes no byte."""
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, text=True, timeout=CEILING_S)
    if probe.returncode != 0:  # a chroot, whose / is no mount point (tests/system/test-install-arm64.sh)
        pytest.skip(f"this sandbox forbids mount namespaces (unshare -m): {probe.stderr.strip()}")
    shutil.copytree("/etc", tmp_path / "etc", symlinks=True)
    script = f"""
mount --bind "{tmp_path}/etc" /etc
source "{INSTALL}"
accounts() {{ cat /etc/passwd /etc/group /etc/shadow /etc/gshadow | md5sum; }}
make_users
first=$(accounts)
echo "board: $(id -gn cribbage) / $(id -nG cribbage | tr ' ' '\\n' | sort | tr '\\n' ' ')"
echo "web: $(id -gn cribbage-web) / $(id -nG cribbage-web) / $(getent passwd cribbage-web | cut -d: -f6,7)"
make_users
[ "$(accounts)" = "$first" ] && echo "second run: unchanged"
"""
    done = subprocess.run(["unshare", "-m", "bash", "-c", script], capture_output=True, text=True,
                          timeout=CEILING_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "board: cribbage / cribbage gpio i2c spi ",
        "web: cribbage / cribbage / /nonexistent:/usr/sbin/nologin",
        "second run: unchanged",
    ]
    assert setting(WEB_UNIT, "User") == "cribbage-web" and setting(WEB_UNIT, "Group") == "cribbage"


def free_ids(count: int) -> list[int]:
    """Numbers that are no user's and no group's here."""
    found = []
    for number in range(61000, 65000):
        try:
            pwd.getpwuid(number)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(number)
            continue
        except KeyError:
            found.append(number)
        if len(found) == count:
            return found
    raise RuntimeError("no free user and group numbers")


# Everything is imported before the process becomes another user, who may not
# read the interpreter's own folders (a Python under /root).
AS_USER = """
import json, os, sys
sys.path.insert(0, {root!r})
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.record import parse_line
os.setgroups([])
os.setgid({gid})
os.setuid({uid})
os.umask({umask})
path = {path!r}
"""

BOARD = AS_USER + """
with LedgerWriter(path, holder="test board") as store:
    for line in ("game six-card seats=Red,Blue dealer=Red", "peg Red 2"):
        store.apply(parse_line(line))
    print("ready", flush=True)
    for line in sys.stdin:
        store.apply(parse_line(line))
        print("ok", flush=True)
"""

WEB = AS_USER + """
def refused(make):
    try:
        os.close(make())
    except PermissionError:
        return True
    return False

with LedgerReader(path) as reader:
    lines = reader.export()
    print(json.dumps({{
        "immutable": reader.immutable, "lines": lines,
        "write ledger": not refused(lambda: os.open(path, os.O_RDWR)),
        "make a file": not refused(lambda: os.open(path + ".web", os.O_WRONLY | os.O_CREAT, 0o600)),
    }}))
"""


def as_user(code: str, uid: int, gid: int, umask: int, path: Path, **run) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code.format(root=str(ROOT), uid=uid, gid=gid, umask=umask, path=str(path))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **run)


def web_reads(path: Path, uid: int, gid: int) -> dict:
    web = as_user(WEB, uid, gid, int(setting(WEB_UNIT, "UMask"), 8), path)
    out, err = web.communicate(timeout=CEILING_S)
    assert web.returncode == 0, err
    return json.loads(out)


@contextlib.contextmanager
def state_folder(board_uid: int, group: int):
    """The board's state folder as its unit makes it (StateDirectoryMode, its user and group), in a
    folder of /tmp every user can pass through; removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="cribbage-users-", dir="/tmp"))
    try:
        base.chmod(0o755)
        folder = base / "cribbage-board"
        folder.mkdir(mode=int(setting(BOARD_UNIT, "StateDirectoryMode"), 8))
        os.chown(folder, board_uid, group)
        yield folder
    finally:
        shutil.rmtree(base)


@contextlib.contextmanager
def board_as_user(code: str, uid: int, group: int, path: Path):
    """``code`` run as the board's user with its unit's UMask, once it says "ready"; killed if it is still
    running at the end (or after CEILING_S)."""
    board = as_user(code, uid, group, int(setting(BOARD_UNIT, "UMask"), 8), path)
    ceiling = threading.Timer(CEILING_S, board.kill)
    ceiling.start()
    try:
        assert board.stdout.readline() == "ready\n", board.stderr.read()
        yield board
    finally:
        ceiling.cancel()
        if board.poll() is None:
            board.kill()
            board.wait()


def test_the_web_user_reads_the_ledger_through_the_group_and_cannot_write_it():
    """The board's user (its unit's UMask) writes the ledger in a folder of the unit's StateDirectoryMode;
    another user in its group (the web unit's Group) reads it while the board runs (the -wal and -shm
    read-only) and once it has stopped (immutable), sees each new entry, and can write nothing there."""
    board_uid, web_uid, group = free_ids(3)
    with state_folder(board_uid, group) as folder:
        path = folder / "ledger.sqlite3"
        with board_as_user(BOARD, board_uid, group, path) as board:
            for name in ("ledger.sqlite3", "ledger.sqlite3-wal", "ledger.sqlite3-shm", "ledger.sqlite3.lock"):
                st = (folder / name).stat()
                assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (board_uid, group, 0o640), name
            running = web_reads(path, web_uid, group)
            assert running["immutable"] is False and running["lines"][1:] == ["peg Red 2"]
            assert not running["write ledger"] and not running["make a file"]
            board.stdin.write("peg Blue 3\n")
            board.stdin.flush()
            assert board.stdout.readline() == "ok\n"
            assert web_reads(path, web_uid, group)["lines"][1:] == ["peg Red 2", "peg Blue 3"]
            board.stdin.close()
            assert board.wait(timeout=CEILING_S) == 0, board.stderr.read()
        assert sorted(p.name for p in folder.iterdir()) == ["ledger.sqlite3"]  # the board closed it
        stopped = web_reads(path, web_uid, group)
        assert stopped["immutable"] is True and stopped["lines"][1:] == ["peg Red 2", "peg Blue 3"]
        assert sorted(p.name for p in folder.iterdir()) == ["ledger.sqlite3"]  # the reader made nothing


# The board's socket for phones (firmware.wire.relay), made by the board's user and asked by others.
SOCKET_BOARD = """
import os, select, sys
sys.path.insert(0, {root!r})
from pathlib import Path
from firmware.board.phones import PhoneServer
os.setgroups([])
os.setgid({gid})
os.setuid({uid})
os.umask({umask})
server = PhoneServer(Path({path!r}), wake=lambda: None)
print("ready", flush=True)
while sys.stdin not in select.select([server, sys.stdin], [], [], 30)[0]:
    for waiting in server.waiting():
        waiting.reply({{"ok": True, "echo": waiting.body}})
server.close()
"""

SOCKET_ASK = """
import json, os, sys
sys.path.insert(0, {root!r})
from pathlib import Path
from firmware.wire.relay import BoardAway, ask
os.setgroups([])
os.setgid({gid})
os.setuid({uid})
os.umask({umask})
try:
    print(json.dumps(ask(Path({path!r}), {{"op": "seat"}})))
except BoardAway as error:
    print(json.dumps({{"away": str(error)}}))
"""


def asks(path: Path, uid: int, gid: int) -> dict:
    web = as_user(SOCKET_ASK, uid, gid, int(setting(WEB_UNIT, "UMask"), 8), path)
    out, err = web.communicate(timeout=CEILING_S)
    assert web.returncode == 0, err
    return json.loads(out)


def test_the_web_user_reaches_the_boards_socket_through_the_group_and_no_one_else_does():
    """The board's user (its unit's UMask) listens on its socket for phones beside the ledger, in a
    folder of the unit's StateDirectoryMode: the socket is 0660, another user in its group (the web
    unit's Group) is answered, a user outside the group is refused."""
    board_uid, web_uid, group, stranger = free_ids(4)
    with state_folder(board_uid, group) as folder:
        path = folder / "ledger.sqlite3.phones"
        with board_as_user(SOCKET_BOARD, board_uid, group, path) as board:
            st = path.lstat()
            assert stat.S_ISSOCK(st.st_mode)
            assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (board_uid, group, 0o660)
            assert asks(path, web_uid, group) == {"ok": True, "echo": {"op": "seat"}}
            assert "Permission denied" in asks(path, stranger, stranger)["away"]
            board.stdin.close()
            assert board.wait(timeout=CEILING_S) == 0, board.stderr.read()
        assert not path.exists()  # the board took its socket away
        assert "not running" in asks(path, web_uid, group)["away"]
