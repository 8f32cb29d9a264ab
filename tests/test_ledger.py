"""The ledger's file: one writer, honest open errors, a full disk, readers beside the writer.

Cases with two processes use real processes (the CLI's console as the writer);
the full disk is a small tmpfs (skipped where mounting is not permitted) and an
injected SQLITE_FULL for the exact control flow.
"""

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import apply_all

from firmware.board.pc.simulator import Simulator
from firmware.config import load_config
from ledger.errors import DiskFullError, LedgerError, LedgerInUseError
from ledger.reader import LedgerReader
from ledger.schema import APPLICATION_ID
from ledger.writer import LedgerWriter
from scorer.record import parse_line, replay
from scorer.report import state_dict

from waits import CEILING_S, eventually

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "ledger-v1.sqlite3"
GAME = ["game six-card seats=Alice,Bob dealer=Alice", "heels", "peg Bob 2", "go Alice", "hand Bob 8"]
NOBODY = 65534


def listing(folder: Path) -> dict:
    """Every file under a folder with its bytes' digest and mtime: what 'nothing changed' means."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        seen[str(path.relative_to(folder))] = (digest, info.st_mtime_ns, info.st_mode)
    return seen


def cli(*args, stdin="", plain_user=False, timeout=60):
    """Run the cribbage-board command in a child process; ``plain_user``: as root
    without the capabilities that override file permissions."""
    prefix = []
    if plain_user and os.geteuid() == 0:
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "firmware.cli", *args], cwd=ROOT, input=stdin, capture_output=True,
        text=True, timeout=timeout, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def refused(result, *expected):
    """The command ended with exit 2 and one line holding each expected text, no traceback."""
    lines = [line for line in result.stderr.strip().splitlines()
             if not line.startswith("cribbage-board: mock hardware")]  # the board's notice of its backend
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def make_ledger(path: Path, lines=GAME) -> None:
    """A ledger holding ``lines``, closed again (no writer left)."""
    with LedgerWriter(path) as store:
        apply_all(store, lines)


# ---- one writer ----------------------------------------------------------------


class ConsoleWriter:
    """``cribbage-board console --state FILE`` as a child process: the ledger's writer."""

    def __init__(self, path: Path):
        self.child = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli", "console", "--state", str(path)], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.wait_for("cribbage-board: ledger")

    def wait_for(self, text: str) -> str:
        for line in self.child.stdout:
            if text in line:
                return line
        raise AssertionError(f"the writer ended before {text!r}: {self.child.stderr.read()}")

    def enter(self, line: str) -> None:
        """Type a line; return once the writer has acknowledged it (it is on disk)."""
        self.child.stdin.write(line + "\n")
        self.child.stdin.flush()
        for answer in self.child.stdout:
            if answer.startswith(("  ok:", "  undo:", "  redo:", "!")):
                assert not answer.startswith("!"), answer
                return
        raise AssertionError(f"the writer ended: {self.child.stderr.read()}")

    def close(self) -> None:
        if self.child.poll() is None:
            self.child.stdin.close()
            self.child.wait(timeout=30)


@pytest.fixture
def writer(tmp_path):
    path = tmp_path / "ledger.sqlite3"
    make_ledger(path)
    console = ConsoleWriter(path)
    try:
        yield path, console
    finally:
        console.close()


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["console"],
    ["simulate", "-"],
    ["--backend", "mock", "--headless"],
])
def test_second_writer_is_refused_and_writes_nothing(writer, command):
    """Board, console or simulate on a ledger another process writes: one line naming it, exit 2."""
    path, console = writer
    before = listing(path.parent)
    stdin = "peg Alice 3\n" if command == ["console"] else "turn 3\nclick red\n"
    result = cli(*command, "--state", str(path), stdin=stdin)
    line = refused(result, f"ledger {path} is in use by cribbage-board console (pid {console.child.pid})",
                   "stop it first")
    assert line.startswith("cribbage-board: ledger ")
    assert listing(path.parent) == before
    with LedgerReader(path) as reader:
        assert reader.export() == [GAME[0], "heels Alice", *GAME[2:]]


def test_the_lock_file_names_the_writer_and_goes_with_it(tmp_path):
    """The lock file holds the writer's pid and program while it runs and is removed on close."""
    path = tmp_path / "ledger.sqlite3"
    lock = tmp_path / "ledger.sqlite3.lock"
    with LedgerWriter(path, holder="cribbage-board test") as store:
        assert lock.read_text() == f"{os.getpid()} cribbage-board test\n"
        with pytest.raises(LedgerInUseError, match=rf"in use by cribbage-board test \(pid {os.getpid()}\)"):
            LedgerWriter(path)
        apply_all(store, GAME[:2])
    assert not lock.exists()
    with LedgerWriter(path) as store:
        assert store.export() == [GAME[0], "heels Alice"]


def test_a_symlink_to_the_ledger_takes_the_same_lock(tmp_path):
    """Two names for one ledger (a symlink): still one writer."""
    path = tmp_path / "ledger.sqlite3"
    (tmp_path / "link.sqlite3").symlink_to(path)
    with LedgerWriter(path, holder="first"):
        with pytest.raises(LedgerInUseError, match="in use by first"):
            LedgerWriter(tmp_path / "link.sqlite3")


def test_a_lock_left_by_a_killed_writer_is_taken(tmp_path):
    """kill -9 leaves the lock file but not the lock: the next writer opens the ledger."""
    path = tmp_path / "ledger.sqlite3"
    make_ledger(path)
    console = ConsoleWriter(path)
    console.enter("hand Alice 12")
    console.child.kill()
    console.child.wait(timeout=30)
    assert (tmp_path / "ledger.sqlite3.lock").exists()
    with LedgerWriter(path) as store:
        assert store.export()[-1] == "hand Alice 12" and store.messages == []


@pytest.mark.slow
def test_reader_reads_while_the_writer_writes(writer):
    """A reader in another process sees each acknowledged entry, and its open snapshot never blocks the writer."""
    path, console = writer
    with LedgerReader(path) as reader:
        assert reader.export()[-1] == "hand Bob 8"
        console.enter("hand Alice 12")
        assert reader.export()[-1] == "hand Alice 12"
        assert reader.book.game.score("Alice") == 2 + 1 + 12
        reader._conn.execute("BEGIN")  # hold a read snapshot open...
        count = reader._conn.execute("SELECT count(*) FROM actions").fetchone()[0]
        console.enter("crib 4")  # ...the writer still writes (and acknowledges)
        assert reader._conn.execute("SELECT count(*) FROM actions").fetchone()[0] == count
        reader._conn.execute("COMMIT")
        assert reader.export()[-1] == "crib Alice 4"
        assert reader.game_ids() == [1] and reader.current_game_id() == 1
    console.close()
    assert console.child.returncode == 0
    with LedgerWriter(path) as store:
        assert store.export()[-2:] == ["hand Alice 12", "crib Alice 4"]


def test_reader_never_writes(tmp_path):
    """Reading changes nothing in the ledger and takes no lock: a writer opens beside it."""
    path = tmp_path / "ledger.sqlite3"
    make_ledger(path)
    before = listing(tmp_path)["ledger.sqlite3"]
    with LedgerReader(path) as reader:
        assert reader.export() == [GAME[0], "heels Alice", *GAME[2:]]
        assert reader.book.game.score("Alice") == 2 + 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader._conn.execute("INSERT INTO meta VALUES ('x', 'y')")
        assert not (tmp_path / "ledger.sqlite3.lock").exists()
    assert listing(tmp_path)["ledger.sqlite3"] == before
    with LedgerReader(path) as reader:
        with LedgerWriter(path) as store:  # the writer is not kept out
            apply_all(store, ["hand Alice 12"])
        assert reader.book.game.score("Alice") == 2 + 1 + 12


@pytest.mark.parametrize("what", ["missing", "folder", "foreign"])
def test_reader_refuses_what_is_not_a_ledger(tmp_path, what):
    """The reader says there is no ledger, or whose database it is, and creates nothing."""
    path = tmp_path / "ledger.sqlite3"
    if what == "folder":
        path.mkdir()
    elif what == "foreign":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE photos (id)")
        conn.commit()
        conn.close()
    before = listing(tmp_path)
    with pytest.raises(LedgerError, match="no ledger at|another program's SQLite database"):
        LedgerReader(path)
    assert listing(tmp_path) == before


# ---- open errors are not corruption ------------------------------------------------


def _foreign(path: Path, wal: bool = False, app_id: int = 0) -> None:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    if app_id:
        conn.execute(f"PRAGMA application_id={app_id}")
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO photos (name) VALUES ('cat.jpg')")
    conn.commit()
    conn.close()


@pytest.mark.slow
@pytest.mark.parametrize("setup, expected", [
    (lambda d: (d / "ledger.sqlite3").mkdir(), "is a folder, not a file"),
    (lambda d: _foreign(d / "ledger.sqlite3"), "is another program's SQLite database (tables: photos)"),
    (lambda d: _foreign(d / "ledger.sqlite3", wal=True), "is another program's SQLite database (tables: photos)"),
    (lambda d: _foreign(d / "ledger.sqlite3", app_id=0x0F055112),
     "is another program's SQLite database (application_id 0xf055112)"),
])
def test_unusable_ledger_is_refused_and_left_alone(tmp_path, setup, expected, command_here):
    """A folder or another program's database at the path: one line, exit 2, nothing renamed or created."""
    setup(tmp_path)
    before = listing(tmp_path)
    for command in (["console"], ["simulate", "-"]):
        result = command_here(*command, "--state", str(tmp_path / "ledger.sqlite3"), stdin="turn 1\n")
        refused(result, f"ledger {tmp_path / 'ledger.sqlite3'}", expected)
    assert listing(tmp_path) == before


@pytest.mark.parametrize("tail", ["ledger.sqlite3", "state/deeper/ledger.sqlite3"])
def test_a_file_in_the_way_of_the_folder_is_refused(tmp_path, tail, command_here):
    """A parent path that is a file: one line naming it, and no folder is made."""
    (tmp_path / "notes.txt").write_text("not a folder")
    before = listing(tmp_path)
    result = command_here("console", "--state", str(tmp_path / "notes.txt" / tail))
    refused(result, "cannot be created", f"{tmp_path / 'notes.txt'} is a file, not a folder")
    assert listing(tmp_path) == before


def test_a_missing_state_folder_is_made(tmp_path):
    """A state folder that does not exist yet is created, as on first start."""
    result = cli("console", "--state", str(tmp_path / "state" / "ledger.sqlite3"), stdin=GAME[0] + "\n")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["ledger.sqlite3"]
    with LedgerReader(tmp_path / "state" / "ledger.sqlite3") as reader:
        assert reader.export() == [GAME[0]]


@pytest.mark.slow
def test_a_database_locked_by_another_program_is_refused(tmp_path, command_here):
    """Another program holding SQLite's exclusive lock: 'locked by another program', nothing changed."""
    path = tmp_path / "ledger.sqlite3"
    make_ledger(path)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
         "c.execute('PRAGMA locking_mode=EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE'); "
         "print('locked', flush=True); sys.stdin.read()", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = listing(tmp_path)
        result = command_here("console", "--state", str(path), stdin="peg Alice 3\n")
        refused(result, f"ledger {path} cannot be opened: locked by another program")
        assert listing(tmp_path) == before
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_a_newer_schema_is_refused_not_set_aside(tmp_path, command_here):
    """A ledger from a newer cribbage-board: say so, change nothing."""
    path = tmp_path / "ledger.sqlite3"
    make_ledger(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value='3' WHERE key='schema'")
    conn.commit()
    conn.close()
    before = listing(tmp_path)
    result = command_here("console", "--state", str(path))
    refused(result, f"ledger {path} has schema 3, newer than this cribbage-board reads (2)")
    assert listing(tmp_path) == before
    with pytest.raises(LedgerError, match="has schema 3"):
        LedgerReader(path)


@pytest.fixture
def shared_dir(tmp_path_factory):
    """A folder another user can reach (pytest's own are private to root)."""
    folder = Path(os.path.realpath(str(tmp_path_factory.mktemp("shared"))))
    for parent in [folder, *folder.parents]:
        if parent == Path("/tmp") or parent == Path("/"):
            break
        os.chmod(parent, os.stat(parent).st_mode | 0o711)
    os.chmod(folder, 0o777)
    return folder




@pytest.mark.parametrize("case", ["owned by another user", "read-only file", "read-only folder", "new in a read-only folder"])
def test_permissions_are_refused_with_the_cause(shared_dir, case):
    """Permission denied on the file or its folder: one line with the cause, nothing changed."""
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is needed to run the command without root's file override")
    if os.geteuid() != 0 and case == "owned by another user":
        pytest.skip("needs root to make a file owned by another user")
    folder = shared_dir / "state"
    folder.mkdir()
    path = folder / "ledger.sqlite3"
    if case != "new in a read-only folder":
        make_ledger(path)
    if case == "owned by another user":
        os.chown(path, NOBODY, NOBODY)
    if case == "read-only file":
        path.chmod(0o444)
    if case in ("read-only folder", "new in a read-only folder"):
        folder.chmod(0o555)
    before = listing(shared_dir)
    result = cli("console", "--state", str(path), stdin="peg Alice 3\n", plain_user=True)
    refused(result, f"ledger {path}", "permission denied")
    assert listing(shared_dir) == before


# ---- tmpfs: a read-only file system, a full disk ------------------------------------


def fill(folder: Path) -> Path:
    """Fill the file system up to the last byte; the filler file."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def test_read_only_file_system_is_refused(small_disk, command_here):
    """A ledger on a file system mounted read-only: one line, nothing changed."""
    path = small_disk / "ledger.sqlite3"
    make_ledger(path)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    before = listing(small_disk)
    refused(command_here("console", "--state", str(path)), f"ledger {path}", "read-only file system")
    refused(command_here("console", "--state", str(small_disk / "other.sqlite3")), "read-only file system")
    assert listing(small_disk) == before


def test_full_disk_at_first_start_creates_nothing(small_disk, command_here):
    """No room for a new ledger: one line, exit 2, no file left behind."""
    filler = fill(small_disk)
    path = small_disk / "ledger.sqlite3"
    result = command_here("console", "--state", str(path), stdin=GAME[0] + "\n")
    refused(result, f"ledger {path} cannot be created: disk full")
    assert sorted(p.name for p in small_disk.iterdir()) == [filler.name]


def test_full_disk_at_a_restart_is_refused_and_changes_nothing(small_disk, command_here):
    """A ledger on a disk that filled up while the board was off: one line, exit 2, the ledger as it was."""
    path = small_disk / "ledger.sqlite3"
    make_ledger(path)
    fill(small_disk)
    before = listing(small_disk)
    refused(command_here("console", "--state", str(path), stdin="hand Alice 12\n"), f"ledger {path}", "disk full")
    assert listing(small_disk) == before


def _entries():
    """Valid entries that never end a game: Alice and Bob peg 1 in turn."""
    n = 0
    while True:
        yield f"peg {'Alice' if n % 2 == 0 else 'Bob'} 1"
        n += 1


def test_full_disk_mid_game_refuses_the_entry_and_loses_nothing(small_disk):
    """Fill the disk, keep entering: the first entry with no room is refused with 'disk full: entry
    not saved', the state is the last acknowledged one, and after room is made all goes on."""
    path = small_disk / "ledger.sqlite3"
    store = LedgerWriter(path)
    try:
        apply_all(store, GAME[:3])
        acknowledged = store.export()
        filler = fill(small_disk)
        entries = _entries()
        for _ in range(300):
            line = next(entries)
            before = state_dict(store.book)
            try:
                store.apply(parse_line(line))
            except DiskFullError as error:
                assert str(error) == "disk full: entry not saved"
                assert error.__cause__.sqlite_errorname == "SQLITE_FULL"
                break
            acknowledged.append(line)
        else:
            pytest.fail("300 entries fitted on a full disk")
        assert state_dict(store.book) == before
        assert store.export() == acknowledged
        filler.unlink()
        store.apply(parse_line(line))
        acknowledged.append(line)
    finally:
        store.close()
    with LedgerWriter(path) as store:
        assert store.export() == acknowledged
        assert store.messages == [store.in_memory] and "tmpfs" in store.in_memory  # the small disk is a tmpfs: said
        assert state_dict(store.book) == state_dict(replay(acknowledged).book)


def test_full_disk_on_the_board_shows_on_the_oled_and_the_board_goes_on(small_disk):
    """The mock board on a full disk: the OLED footer says 'disk full: entry not saved'; scoring resumes."""
    sim = Simulator(load_config(), small_disk / "ledger.sqlite3")
    try:
        filler = fill(small_disk)
        controller = sim.board.controller
        for step in range(300):
            scores = controller.game.state.scores
            sim.act("turn", "1")
            sim.act("click", "red" if step % 2 == 0 else "blue")
            if controller.footer.message == "disk full: entry not saved":
                break
        else:
            pytest.fail("300 presses fitted on a full disk")
        assert controller.game.state.scores == scores
        screen = controller.screen()
        assert screen.footer == "disk full: entry not saved" and screen.alert
        assert sim.devices.display is not None  # the OLED was drawn, not dropped
        filler.unlink()
        dial = controller.dial  # a refused entry leaves the dial where it was
        sim.act("turn", "1")
        sim.act("click", "blue")  # pone's: never his heels' question, whatever is dialled
        assert controller.game.state.scores[1] == scores[1] + dial + 1
        assert not controller.screen().alert
        acknowledged = sim.store.export()
    finally:
        sim.close()
    with LedgerWriter(small_disk / "ledger.sqlite3") as store:
        assert store.export() == acknowledged


class FaultyConnection:
    """An SQLite connection that fails one statement as a full disk would."""

    def __init__(self, conn, fail_on: str, rolled_back: bool, code=sqlite3.SQLITE_FULL, name="SQLITE_FULL"):
        self.conn, self.fail_on, self.rolled_back = conn, fail_on, rolled_back
        self.code, self.name = code, name
        self.failed = 0

    def execute(self, sql, *args):
        if self.failed == 0 and sql.startswith(self.fail_on):
            self.failed += 1
            if self.rolled_back:
                self.conn.execute("ROLLBACK")  # as SQLite does after a failed COMMIT on a full disk
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode, error.sqlite_errorname = self.code, self.name
            raise error
        return self.conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.conn, name)


@pytest.mark.parametrize("fail_on, rolled_back, winning", [
    ("COMMIT", True, False), ("COMMIT", False, False), ("INSERT INTO actions", False, False),
    ("UPDATE games", False, True), ("COMMIT", True, True),
])
def test_the_real_error_is_not_hidden_by_the_rollback(tmp_path, fail_on, rolled_back, winning):
    """SQLITE_FULL at any statement of a write: 'disk full: entry not saved', caused by that error
    (the game's outcome is written only by the entry that changes it: the winning one here)."""
    lines, entry = (FINISHED[:-1], FINISHED[-1]) if winning else (GAME[:3], "peg Alice 3")
    with LedgerWriter(tmp_path / "l.sqlite3") as store:
        apply_all(store, lines)
        before = state_dict(store.book)
        store._conn = FaultyConnection(store._conn, fail_on, rolled_back)
        with pytest.raises(DiskFullError, match="^disk full: entry not saved$") as raised:
            store.apply(parse_line(entry))
        assert raised.value.__cause__.sqlite_errorname == "SQLITE_FULL"
        assert not store._conn.in_transaction
        assert state_dict(store.book) == before
        store.apply(parse_line(entry))
        assert store.export()[-2:] == [lines[-1], entry]
        assert store.game.is_over == winning


def test_other_write_errors_say_what_failed(tmp_path):
    """An I/O error is not called a full disk; the entry is refused and the state kept."""
    with LedgerWriter(tmp_path / "l.sqlite3") as store:
        apply_all(store, GAME[:3])
        store._conn = FaultyConnection(store._conn, "COMMIT", True, sqlite3.SQLITE_IOERR, "SQLITE_IOERR_FSYNC")
        with pytest.raises(LedgerError, match="^entry not saved: .*SQLITE_IOERR_FSYNC") as raised:
            store.apply(parse_line("peg Alice 3"))
        assert not isinstance(raised.value, DiskFullError)
        assert store.export()[-1] == "peg Bob 2"


def test_the_console_says_disk_full_and_goes_on(tmp_path, monkeypatch):
    """The console prints the refusal and carries on with the next line."""
    import io

    from firmware.board.pc import console

    real = console.LedgerWriter

    def faulty(path, **kwargs):
        store = real(path, **kwargs)
        store._conn = FaultyConnection(store._conn, "INSERT INTO actions", False)
        return store

    monkeypatch.setattr(console, "LedgerWriter", faulty)
    out = io.StringIO()
    lines = "\n".join(GAME[:2] + ["peg Bob 2"]) + "\n"
    assert console.run_console(str(tmp_path / "l.sqlite3"), io.StringIO(lines), out) == 0
    assert "! disk full: entry not saved" in out.getvalue()
    with LedgerReader(tmp_path / "l.sqlite3") as reader:
        assert reader.export() == [GAME[0], "peg Bob 2"]


# ---- a ledger written by the earlier store --------------------------------------------


def _raw_games(path: Path) -> dict:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        games = {}
        for game_id, header in conn.execute("SELECT id, header FROM games ORDER BY id"):
            lines = conn.execute("SELECT line FROM actions WHERE game_id=? ORDER BY id", (game_id,))
            games[game_id] = [header] + [line for (line,) in lines]
        return games
    finally:
        conn.close()


def test_ledger_of_the_earlier_store_opens_without_loss_and_gets_the_marker(tmp_path):
    """tests/data/ledger-v1.sqlite3 (written before the marker): the same lines, state and redo stack; schema 2."""
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    expected = _raw_games(FIXTURE)
    assert sqlite3.connect(f"{FIXTURE.as_uri()}?mode=ro&immutable=1", uri=True).execute(
        "PRAGMA application_id").fetchone()[0] == 0
    with LedgerReader(path) as reader:  # the reader reads it as it is
        assert {g: reader.export(g) for g in reader.game_ids()} == expected
    with LedgerWriter(path) as store:
        assert store.messages == []
        assert {g: store.export(g) for g in store.game_ids()} == expected
        assert store.export() == expected[2]
        assert store.book.match.tally()[0].wins == 1  # the finished game counts
        restored, replayed = state_dict(store.book), state_dict(replay(expected[2]).book)
        restored.pop("match"), replayed.pop("match")  # the tally also counts the earlier game
        assert restored == replayed
        store.apply(parse_line("redo"))  # the undone entry is still on the redo stack
        assert store.export()[-1] == "redo"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "2"
    conn.close()


# ---- damage: set aside only what does not replay -------------------------------------


FINISHED = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]


def test_a_damaged_earlier_result_costs_only_itself(tmp_path):
    """An earlier game's result that no longer decodes is left out of the tally; the current game is resumed."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, FINISHED + ["game five-card seats=A,B"] + ["peg B 15"] * 4 + ["peg B 1"]
                  + ["game five-card seats=A,B", "peg A 2"])
        current = store.export()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET outcome='{\"winner\": ' WHERE id=1")
    conn.commit()
    conn.close()
    with LedgerWriter(path) as store:
        assert store.export() == current and store.game.score("A") == 2
        assert [(t.side, t.wins) for t in store.book.match.tally()] == [("A", 0), ("B", 1)]
        assert len(store.messages) == 1
        assert "the result of game 1 is damaged" in store.messages[0]
        assert "left out of the match tally" in store.messages[0]
    assert not list(tmp_path.glob("*.corrupt-*"))
    with LedgerReader(path) as reader:
        assert reader.export(1)[-1] == "peg A 1"  # still in the file


def test_a_damaged_game_line_starts_a_new_game_and_keeps_the_old(tmp_path):
    """The current game's game line no longer parses: said, kept in the file, a new game can start."""
    path = tmp_path / "ledger.sqlite3"
    make_ledger(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET header='game nonsense'")
    conn.commit()
    conn.close()
    with LedgerWriter(path) as store:
        assert store.game is None
        assert "game 1 cannot be resumed" in store.messages[0]
        apply_all(store, ["game five-card seats=A,B dealer=A", "peg A 2"])
        assert store.game_ids() == [1, 2]
    with LedgerWriter(path) as store:
        assert store.export() == ["game five-card seats=A,B dealer=A", "peg A 2"]
        assert store.export(1)[0] == "game nonsense"
    assert not list(tmp_path.glob("*.corrupt-*"))


def _damage_an_earlier_page(path: Path) -> tuple[list[str], list, bytes]:
    """A ledger whose page with the first game's first entries (an earlier match) is overwritten:
    only an integrity check of the whole file finds it. (The current game, the tally, the bytes.)"""
    old_match = ["game six-card seats=C,D dealer=C"] + ["peg C 2", "undo"] * 300
    with LedgerWriter(path) as store:
        store._conn.execute("PRAGMA synchronous=OFF")
        apply_all(store, old_match + FINISHED + ["game five-card seats=A,B", "peg B 3", "peg A 2"])
        current = store.export()
        tally = [(t.side, t.wins) for t in store.book.match.tally()]
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    first = conn.execute("SELECT min(id) FROM actions").fetchone()[0]
    page = conn.execute(
        "SELECT pageno FROM dbstat WHERE name='actions' AND pagetype='leaf' ORDER BY pageno LIMIT 1"
    ).fetchone()[0]
    assert conn.execute("SELECT game_id FROM actions WHERE id=?", (first,)).fetchone()[0] == 1
    conn.close()
    with open(path, "r+b") as file:  # the page with the first game's first entries
        file.seek((page - 1) * page_size + 8)
        file.write(b"\xa5" * 200)
    return current, tally, path.read_bytes()


def test_a_corrupt_page_of_an_earlier_game_keeps_the_current_match(tmp_path):
    """A damaged page (integrity check fails): the file is set aside and the current match carried over."""
    path = tmp_path / "ledger.sqlite3"
    current, tally, damaged = _damage_an_earlier_page(path)
    with LedgerWriter(path, clock=lambda: 0) as store:
        kept = tmp_path / "ledger.sqlite3.corrupt-19700101T000000"
        assert kept.read_bytes() == damaged
        assert f"it was kept as {kept}" in store.messages[0] and str(path) in store.messages[0]
        assert "the current match was carried over" in store.messages[0]
        assert store.export() == current
        assert [(t.side, t.wins) for t in store.book.match.tally()] == tally
        store.apply(parse_line("peg A 3"))
    with LedgerWriter(path) as store:
        assert store.export() == current + ["peg A 3"] and store.messages == []


def test_a_check_later_opens_at_once_and_sets_aside_what_it_finds(tmp_path):
    """check="later": the open reads only what it needs; check() finds the damaged page and
    set_aside() does what the open would have done, the entries made meanwhile carried over."""
    path = tmp_path / "ledger.sqlite3"
    current, tally, damaged = _damage_an_earlier_page(path)
    with LedgerWriter(path, clock=lambda: 0, check="later") as store:
        assert store.messages == [] and store.check_pending
        assert store.export() == current
        store.apply(parse_line("peg A 3"))
        problem = store.check()
        assert problem.startswith("integrity check failed") and not store.check_pending
        store.set_aside(problem)
        kept = tmp_path / "ledger.sqlite3.corrupt-19700101T000000"
        assert sqlite3.connect(f"{kept.as_uri()}?mode=ro", uri=True).execute(  # the damaged file, as it was
            "SELECT line FROM actions ORDER BY id DESC LIMIT 1").fetchone()[0] == "peg A 3"
        assert f"it was kept as {kept}" in store.messages[0] and "integrity check failed" in store.messages[0]
        assert store.export() == current + ["peg A 3"]
        assert [(t.side, t.wins) for t in store.book.match.tally()] == tally
        store.apply(parse_line("peg B 2"))
    with LedgerWriter(path) as store:
        assert store.export() == current + ["peg A 3", "peg B 2"] and store.messages == []


def test_a_sound_ledger_passes_the_later_check(tmp_path):
    """check() of a sound file finds nothing; an unknown check value is refused."""
    path = tmp_path / "ledger.sqlite3"
    make_ledger(path)
    with LedgerWriter(path, check="later") as store:
        assert store.check() is None
    with pytest.raises(ValueError, match="check='never'"):
        LedgerWriter(path, check="never")


def test_the_board_checks_its_ledger_after_ready_and_sets_damage_aside(tmp_path):
    """The board opened with check="later": after READY a thread checks the file; the next
    loop step sets the damaged file aside, says so on the OLED, and the game goes on."""
    from firmware.board.devices import open_devices
    from firmware.board.loop import Board
    from firmware.board.pc.simulator import MOCK

    path = tmp_path / "ledger.sqlite3"
    current, _, _ = _damage_an_earlier_page(path)
    store = LedgerWriter(path, clock=lambda: 0, check="later")
    journal = []
    board = Board(load_config(), store, open_devices(load_config(), MOCK), log=journal.append)
    try:
        assert store.messages == []
        board.start_ledger_check()
        board.ledger_check.join(timeout=60)
        assert board.step(0)  # woken by the check's event
        kept = tmp_path / "ledger.sqlite3.corrupt-19700101T000000"
        assert kept.exists()
        assert any(f"it was kept as {kept}" in line for line in journal)
        screen = board.controller.screen()
        assert screen.alert and "could not be read" in screen.footer
        assert store.export() == current
        board.devices.controls.turn(2)
        board.devices.controls.click("red")
        board.step(0)
        assert store.export() == current + ["peg A 2"]
    finally:
        board.close()
    with LedgerWriter(path) as store:
        assert store.export() == current + ["peg A 2"] and store.messages == []


def test_our_marker_on_a_schema_not_ours_is_set_aside(tmp_path):
    """A file with the ledger's marker but not its tables is damaged: kept aside, a new ledger started."""
    path = tmp_path / "ledger.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute("CREATE TABLE photos (id)")
    conn.commit()
    conn.close()
    original = path.read_bytes()
    with LedgerWriter(path, clock=lambda: 0) as store:
        kept = tmp_path / "ledger.sqlite3.corrupt-19700101T000000"
        assert kept.read_bytes() == original
        assert "carries the ledger marker" in store.messages[0] and str(kept) in store.messages[0]
        assert store.game is None


def test_the_earlier_store_gets_the_tally_row_at_its_first_open(tmp_path):
    """tests/data/ledger-v1.sqlite3: the first writer adds the tally row (and migrates to schema 2, nothing lost);
    the next open reads the row and gives the same tally."""
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    expected = _raw_games(FIXTURE)
    with LedgerWriter(path) as store:
        tally = [(t.side, t.wins, t.game_points) for t in store.book.match.tally()]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT match_id, through FROM tallies").fetchall() == [(1, 1)]
    conn.close()
    with LedgerWriter(path) as store:
        assert store.messages == []
        assert [(t.side, t.wins, t.game_points) for t in store.book.match.tally()] == tally
        assert {g: store.export(g) for g in store.game_ids()} == expected


def test_the_running_board_checks_its_ledger_after_ready(tmp_path):
    """Board.run() with a ledger opened check="later": the damage is found after the board is up,
    set aside by the main loop, and the board keeps running on the new ledger."""
    import threading
    import time

    from firmware.board.devices import open_devices
    from firmware.board.loop import Board
    from firmware.board.pc.simulator import MOCK

    path = tmp_path / "ledger.sqlite3"
    current, _, _ = _damage_an_earlier_page(path)
    store = LedgerWriter(path, clock=lambda: 0, check="later")
    journal = []
    board = Board(load_config(), store, open_devices(load_config(), MOCK), log=journal.append)
    thread = threading.Thread(target=board.run, daemon=True)
    thread.start()
    try:
        kept = tmp_path / "ledger.sqlite3.corrupt-19700101T000000"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("it was kept as" in line for line in journal):
            time.sleep(0.01)
        assert kept.exists() and any(f"it was kept as {kept}" in line for line in journal)
        assert board.frames_shown >= 1 and thread.is_alive()
    finally:
        board.stop()
        thread.join(60)
    assert not thread.is_alive()
    with LedgerWriter(path) as reopened:
        assert reopened.export() == current and reopened.messages == []


def test_closing_stops_a_check_that_is_between_two_statements(tmp_path, monkeypatch):
    """An interrupt lands only on a running statement: close() while the check is between two
    (found under qemu, where the first was lost and the check read on for ever) sends it again until
    the check has ended, and a check that has not begun its reading by then begins none."""
    from ledger import writer as writing

    between = threading.Event()
    go_on = threading.Event()

    def slow_to_start(conn):  # pauses between its statements, then would read for a long while
        conn.execute("SELECT 1").fetchone()
        between.set()
        go_on.wait(CEILING_S)  # close() sends its first interrupt now, with no statement running
        conn.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 300000000) "
                     "SELECT count(*) FROM n").fetchone()
        return "it read to the end"

    monkeypatch.setattr(writing.schema, "quick_check", slow_to_start)
    store = LedgerWriter(tmp_path / "ledger.sqlite3", check="later")
    store.apply(parse_line("game six-card seats=A,B"))
    found = []
    checking = threading.Thread(target=lambda: found.append(store.check()))
    checking.start()
    assert between.wait(CEILING_S)
    closing = threading.Thread(target=store.close)
    closing.start()
    time.sleep(0.1)  # the first interrupts fall between the statements
    go_on.set()
    closing.join(CEILING_S)
    checking.join(CEILING_S)
    assert found == [None] and not checking.is_alive() and not closing.is_alive()
    store2 = LedgerWriter(tmp_path / "l3.sqlite3", check="later")
    store2._stopping = True
    monkeypatch.setattr(writing.schema, "quick_check", lambda conn: "a check was begun")
    assert store2.check() is None  # closing: none begun
    store2._stopping = False
    store2.close()


def test_closing_stops_a_running_check_before_it_closes_the_file(tmp_path, monkeypatch):
    """close() while the later check still reads (a SIGTERM right after start): the check is
    interrupted and lets its connection go first, so the writer's is the last and the -wal is
    folded into the file and removed, as at any clean close."""
    from ledger import writer as writing

    def reading_for_ever(conn):  # a check that would read for minutes, until interrupted, and is slow to stop
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM actions").fetchone()  # a read snapshot, as quick_check holds
        try:
            conn.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
        except sqlite3.OperationalError:
            time.sleep(0.5)  # still in its read: close() must wait for it to let go
            raise

    monkeypatch.setattr(writing.schema, "quick_check", reading_for_ever)
    path = tmp_path / "ledger.sqlite3"
    store = LedgerWriter(path, check="later")
    store.apply(parse_line("game six-card seats=A,B"))
    store.apply(parse_line("peg A 2"))
    found = []
    checking = threading.Thread(target=lambda: found.append(store.check()))
    checking.start()
    assert eventually(lambda: store._checking is not None)  # the check is reading
    store.close()
    checking.join(CEILING_S)
    assert found == [None] and not checking.is_alive()  # interrupted: no damage said
    assert not Path(f"{path}-wal").exists() and not Path(f"{path}.lock").exists()
    with LedgerReader(path) as reader:
        assert reader.export()[-1] == "peg A 2"
