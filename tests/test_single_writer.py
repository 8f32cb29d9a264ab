"""The board's ledger and the club hub's are one single writer (ledger.single_writer): the same
open, lock, honesty and failures, and the same stamp, whichever ledger it is."""

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.hub import ledger as hub
from firmware.hub.ledger import HubLedger
from ledger import single_writer, writer
from ledger.errors import DiskFullError, LedgerError, LedgerInUseError
from ledger.single_writer import SingleWriter, stamp
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from test_ledger import FaultyConnection, fill, listing

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"board": LedgerWriter, "hub": HubLedger}
WORDS = {"board": "ledger", "hub": "hub ledger"}  # what a new file is called when a damaged one was set aside
MOMENT = 1_796_238_001.005  # 2026-12-02T19:00:01.005Z, held as a float a hair below it
SHARED = ("_open", "_tidy_failed_open", "_connect", "_hold", "_transaction", "_require", "_require_in_place",
          "_write_failure", "now")
kinds = pytest.mark.parametrize("kind", list(KINDS))


def write_one(ledger) -> None:
    """One acknowledged write of either kind: an entry on the board's, a player on the hub's."""
    if isinstance(ledger, LedgerWriter):
        ledger.apply(parse_line("peg A 1" if ledger.game else "game six-card seats=A,B"))
        return
    night = ledger.night("thu", "n1", "acc", "acc", 9)  # begun by the first write only
    with ledger.write() as w:
        w.add_player(night.id, "Ann")


def make(kind: str, path: Path) -> None:
    """A ledger of this kind at ``path`` with a write in it, closed again."""
    with KINDS[kind](path) as ledger:
        write_one(ledger)


def refused_alike(kind: str, path: Path, folder: Path) -> str:
    """Opening is refused with one LedgerError line and nothing under ``folder`` changes; the line."""
    before = listing(folder)
    with pytest.raises(LedgerError) as caught:
        KINDS[kind](path)
    said = str(caught.value)
    assert "\n" not in said and said.startswith(f"ledger {path} ")
    assert listing(folder) == before
    return said


def test_both_ledgers_are_the_one_single_writer():
    """The open, lock, PRAGMA and replace sequence, the error mapping, the moved check and the stamp
    are the same code for both ledgers, not two copies; each keeps only its own schema."""
    for cls in KINDS.values():
        assert issubclass(cls, SingleWriter)
        for name in SHARED:
            assert getattr(cls, name) is getattr(SingleWriter, name), (cls.__name__, name)
        assert cls._inspect is not SingleWriter._inspect and cls._prepare is not SingleWriter._prepare
    assert not hasattr(hub, "stamp") and not hasattr(writer, "_stamp")  # one stamp, in single_writer
    from firmware.hub import mqtt
    assert mqtt.stamp is single_writer.stamp  # the hub's presence says when it began by it too


@kinds
def test_another_writer_process_is_refused_naming_it(tmp_path, kind):
    """A writer running in another process: LedgerInUseError in one line naming it and its pid;
    nothing changed."""
    path = tmp_path / f"{kind}.sqlite3"
    make(kind, path)
    code = (f"import sys\nfrom {KINDS[kind].__module__} import {KINDS[kind].__name__} as W\n"
            "with W(sys.argv[1], holder='the other writer'):\n    print('ready', flush=True)\n    sys.stdin.read()\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        before = listing(tmp_path)
        with pytest.raises(LedgerInUseError) as caught:
            KINDS[kind](path)
        assert str(caught.value) == f"ledger {path} is in use by the other writer (pid {child.pid}): stop it first"
        assert listing(tmp_path) == before
    finally:
        child.communicate("", timeout=60)
    assert child.returncode == 0


@pytest.mark.slow
@kinds
@pytest.mark.parametrize("case", ["folder", "file in the way", "tables", "application_id", "sqlite locked"])
def test_what_cannot_be_used_is_refused_in_the_same_words(tmp_path, kind, case):
    """A folder or a file in the way, another program's database (by its tables or its marker), a
    file another program holds SQLite's lock on: the same one line for either ledger, nothing changed."""
    path = tmp_path / "state.sqlite3"
    other = None
    if case == "folder":
        path.mkdir()
        expected = f"ledger {path} is a folder, not a file: give a file path (--state FILE)"
    elif case == "file in the way":
        (tmp_path / "sub").write_text("x")
        path = tmp_path / "sub" / "state.sqlite3"
        expected = f"ledger {path} cannot be created: {tmp_path / 'sub'} is a file, not a folder"
    elif case == "sqlite locked":
        make(kind, path)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        expected = (f"ledger {path} cannot be opened: locked by another program "
                    "(a backup? another copy of the board?)")
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE cats (name TEXT)")
            if case == "application_id":
                conn.execute("PRAGMA application_id=305419896")
        what = "tables: cats" if case == "tables" else "application_id 0x12345678"
        expected = f"ledger {path} is another program's SQLite database ({what}): give another path (--state FILE)"
    try:
        assert refused_alike(kind, path, tmp_path) == expected
    finally:
        if other is not None:
            other.execute("ROLLBACK")
            other.close()
    assert not [name for name in os.listdir(tmp_path) if ".corrupt-" in name]


@kinds
@pytest.mark.parametrize("case", ["read-only file", "read-only folder"])
def test_no_permission_is_refused_in_the_same_words(tmp_path, kind, case):
    """No permission to write the file or its folder (as a plain user: root runs it without its
    file override): the same one line for either ledger, exit 2 of the command, nothing changed."""
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is needed to open the file without root's override")
    folder = tmp_path / "state"
    folder.mkdir()
    path = folder / f"{kind}.sqlite3"
    make(kind, path)
    (path if case == "read-only file" else folder).chmod(0o444 if case == "read-only file" else 0o555)
    before = listing(tmp_path)
    prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    code = (f"import sys\nfrom ledger.errors import LedgerError\nfrom {KINDS[kind].__module__} import "
            f"{KINDS[kind].__name__} as W\ntry:\n    W(sys.argv[1]).close()\nexcept LedgerError as e:\n"
            "    print(e, file=sys.stderr)\n    sys.exit(2)\n")
    done = subprocess.run([*prefix, sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    try:
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        if case == "read-only file":
            assert done.stderr.strip() == f"ledger {path} cannot be written: permission denied"
        else:
            assert done.stderr.strip() == (f"ledger {path} cannot be written: no file can be made in its folder "
                                           f"{folder} for the writer's lock (permission denied)")
        assert listing(tmp_path) == before
    finally:
        folder.chmod(0o755)


@kinds
def test_a_damaged_file_is_set_aside_and_replaced_alike(tmp_path, kind):
    """A file SQLite calls not a database: renamed with the clock's moment, never deleted, a new
    file begun that takes writes, and one message of the same shape for either ledger."""
    path = tmp_path / f"{kind}.sqlite3"
    damaged = b"this is not a database at all" * 200
    path.write_bytes(damaged)
    with KINDS[kind](path, clock=lambda: MOMENT) as ledger:
        [said] = ledger.messages
        write_one(ledger)
    kept = Path(f"{path}.corrupt-20261202T190001")
    assert re.fullmatch(rf"ledger {re.escape(str(path))} could not be read \(file is not a database\); it was kept "
                        rf"as {re.escape(str(kept))} and a new {WORDS[kind]} started(: [^\n]+)?", said), said
    assert kept.read_bytes() == damaged
    with KINDS[kind](path) as again:
        assert again.messages == []


@kinds
@pytest.mark.parametrize("how", ["renamed", "deleted", "replaced"])
def test_a_file_moved_or_deleted_while_open_takes_no_more_writes(tmp_path, kind, how):
    """The file renamed, deleted or replaced under a running writer: the next write and every
    later one are refused in the same one line for either ledger (its own words for what is lost)."""
    path = tmp_path / f"{kind}.sqlite3"
    archived = tmp_path / "archived.sqlite3"
    ledger = KINDS[kind](path, clock=lambda: MOMENT)
    try:
        write_one(ledger)
        if how == "deleted":
            os.unlink(path)
        else:
            os.rename(path, archived)
        if how == "replaced":
            sqlite3.connect(path).close()  # another file at the path (the lock is still the writer's)
        said = (f"what it saved is whole at {archived}" if how != "deleted" else
                f"what it saved is kept at {path}.kept-20261202T190001")
        expected = (f"ledger {path} was {'deleted' if how == 'deleted' else 'moved'} while it was open: {said}; "
                    f"{KINDS[kind].UNSAVED}; {KINDS[kind].AGAIN}")
        for _ in range(2):
            with pytest.raises(LedgerError) as caught:
                write_one(ledger)
            assert str(caught.value) == expected
    finally:
        ledger.close()
    assert not Path(f"{path}.lock").exists()  # closed as any writer closes: its lock let go
    kept = archived if how != "deleted" else Path(f"{path}.kept-20261202T190001")
    with KINDS[kind](kept) as again:  # the file kept opens as it is, with the first write in it
        assert again.messages == []


@kinds
def test_a_full_disk_refuses_the_write_alike_and_keeps_nothing_of_it(tmp_path, kind):
    """SQLite full (the file may grow no more): DiskFullError, one line ending "disk full: " and what
    this ledger says was lost, caused by SQLite's error; with room again the ledger goes on."""
    ledger = KINDS[kind](tmp_path / f"{kind}.sqlite3")
    try:
        write_one(ledger)
        pages = ledger._conn.execute("PRAGMA page_count").fetchone()[0]
        ledger._conn.execute(f"PRAGMA max_page_count={pages}")
        for _ in range(5000):
            try:
                write_one(ledger)
            except DiskFullError as error:
                said = str(error)
                assert said.endswith(f"disk full: {KINDS[kind].UNSAVED}") and "\n" not in said
                assert error.__cause__.sqlite_errorname == "SQLITE_FULL"
                break
        else:
            pytest.fail("5000 writes fitted in a file that may not grow")
        assert not ledger._conn.in_transaction
        ledger._conn.execute("PRAGMA max_page_count=1073741823")
        write_one(ledger)
    finally:
        ledger.close()


@kinds
def test_another_write_error_is_said_with_its_cause_alike(tmp_path, kind):
    """An I/O error at COMMIT is not called a full disk: LedgerError naming SQLite's cause after what
    this ledger says was lost; rolled back; the ledger goes on."""
    ledger = KINDS[kind](tmp_path / f"{kind}.sqlite3")
    try:
        write_one(ledger)
        real = ledger._conn
        ledger._conn = FaultyConnection(real, "COMMIT", True, sqlite3.SQLITE_IOERR, "SQLITE_IOERR_FSYNC")
        with pytest.raises(LedgerError) as caught:
            write_one(ledger)
        assert not isinstance(caught.value, DiskFullError)
        assert re.search(rf"{KINDS[kind].UNSAVED}: .*SQLITE_IOERR_FSYNC", str(caught.value))
        assert not real.in_transaction
        ledger._conn = real
        write_one(ledger)
    finally:
        ledger.close()


def test_both_ledgers_keep_the_same_text_for_the_same_moment(tmp_path):
    """One stamp: a reading a hair below a millisecond keeps the millisecond it was written with,
    in the board's ledger and in the hub's, and the hub's application's own stamp is that one."""
    with LedgerWriter(tmp_path / "board.sqlite3", clock=lambda: MOMENT) as board:
        write_one(board)
        [board_time] = board._conn.execute("SELECT started FROM games").fetchone()
    with HubLedger(tmp_path / "hub.sqlite3", clock=lambda: MOMENT) as club:
        write_one(club)
        [hub_time] = club._conn.execute("SELECT at FROM players").fetchone()
    assert board_time == hub_time == stamp(MOMENT) == "2026-12-02T19:00:01.005Z"
    assert stamp(1.005) == "1970-01-01T00:00:01.005Z" and stamp(1.0059) == "1970-01-01T00:00:01.005Z"
    assert stamp(59.9999) == "1970-01-01T00:00:59.999Z"  # down, never into the next second


@kinds
@pytest.mark.parametrize("start", ["first", "restart"])
def test_a_full_disk_at_open_is_refused_alike_and_changes_nothing(small_disk, kind, start):
    """No room left (a 1 MB tmpfs filled up) at a first start or a restart: one line naming the path
    and "disk full" for either ledger, and the folder is as it was (no new file, no -wal or -shm left)."""
    path = small_disk / f"{kind}.sqlite3"
    if start == "restart":
        make(kind, path)
    fill(small_disk)
    what = "cannot be created" if start == "first" else "cannot be opened"
    assert refused_alike(kind, path, small_disk) == f"ledger {path} {what}: disk full"
