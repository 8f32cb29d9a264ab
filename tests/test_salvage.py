"""``cribbage-board salvage`` reads a hostile -wal safely: a ledger of the project's own schema with only rows
copied, a time limit, and no scratch folder left behind (ledger.salvage, ledger.untrusted, ledger.scratch)."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware.hub.ledger import SALVAGE_KIND as HUB
from firmware.hub.ledger import HubLedger
from ledger.errors import LedgerError
from ledger.reader import LedgerReader
from ledger.salvage import BOARD, salvage_wal
from ledger.scratch import PREFIX, Scratch, remove_stale
from ledger.untrusted import Deadline, attach_untrusted, open_untrusted
from ledger.writer import LedgerWriter
from scorer.record import parse_line

ROOT = Path(__file__).resolve().parent.parent
GAME = ["game six-card seats=A,B dealer=A", "peg A 1", "peg B 2", "peg A 3"]
MORE = ["peg B 1", "peg A 2", "peg B 3"]
TRIGGER = "CREATE TRIGGER t AFTER INSERT ON actions BEGIN DELETE FROM actions WHERE id < new.id; END"
ENDLESS = ("CREATE VIEW games AS WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n) "
           "SELECT id, 1 AS match_id, 'game six-card seats=A,B dealer=A' AS header, NULL AS outcome, NULL AS started, "
           "NULL AS finished, NULL AS status FROM n")


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "firmware.cli", *args]


def salvage(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """``cribbage-board salvage ARGS`` as a process of its own."""
    return subprocess.run(command("salvage", *args), cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def ledger(path: Path, lines: list[str] = GAME) -> Path:
    """A board's ledger at ``path`` holding ``lines``, written by the board's writer."""
    with LedgerWriter(path) as store:
        for line in lines:
            store.apply(parse_line(line))
    return path


def hostile(folder: Path, *changes: str, base: Path | None = None) -> tuple[Path, Path]:
    """A real ledger (or ``base``) and a -wal that makes ``changes`` to a copy of it, made with plain sqlite3
    and kept before the copy is closed: the base and that -wal (``hostile.sqlite3-wal``)."""
    base = base or ledger(folder / "board.sqlite3")
    copy = folder / "copy.sqlite3"
    shutil.copyfile(base, copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    conn.execute("PRAGMA wal_autocheckpoint=0")
    for change in changes:
        conn.execute(change)
    wal = folder / "hostile.sqlite3-wal"
    shutil.copyfile(f"{copy}-wal", wal)
    conn.close()
    return base, wal


def schema(path: Path) -> set[tuple[str, str, str | None]]:
    """Every object of the SQLite file at ``path`` (type, name, its SQL), and its marker."""
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as conn:
        objects = set(conn.execute("SELECT type, name, sql FROM sqlite_master"))
        return objects | {("marker", str(conn.execute("PRAGMA application_id").fetchone()[0]), None)}


def scratch_left(folder: Path) -> list[Path]:
    return list(folder.glob(PREFIX + "*"))


def exported(path: Path) -> list[str]:
    with LedgerReader(path) as reader:
        return reader.export()[1:]


@pytest.mark.slow
def test_a_wal_carrying_a_trigger_makes_a_ledger_without_it_in_which_entries_stay(tmp_path):
    """A -wal that adds a trigger deleting earlier entries: the salvaged ledger has the schema a new ledger has
    (no trigger of the file's), its entries, and every entry written there afterwards stays."""
    base, wal = hostile(tmp_path, TRIGGER)
    assert wal.stat().st_size < 8192  # one page: the schema's
    out = tmp_path / "out.sqlite3"
    done = salvage(str(wal), "--base", str(base), "-o", str(out))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith(f"salvaged a board's ledger: 1 game, 3 entries into {out}")
    fresh = ledger(tmp_path / "fresh" / "board.sqlite3", [])
    assert schema(out) == schema(fresh)
    assert "t" not in {name for _, name, _ in schema(out)}
    with LedgerWriter(out) as store:
        assert store.messages == []
        for line in MORE:
            store.apply(parse_line(line))
    assert exported(out) == GAME[1:] + MORE
    assert scratch_left(tmp_path) == []


@pytest.mark.slow
def test_a_wal_making_games_an_endless_view_ends_at_once_in_one_line(tmp_path):
    """A -wal that makes ``games`` an endless recursive view: salvage ends within 30 s with one line and
    exit 2, writes nothing and leaves no scratch folder."""
    base, wal = hostile(tmp_path, "DROP TABLE games", ENDLESS)
    started = time.monotonic()
    done = salvage(str(wal), "--base", str(base), timeout=30)
    took = time.monotonic() - started
    assert took < 30
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr == (f"cribbage-board: salvage: {wal}: its games is a view, not the table a board's ledger has: "
                           "nothing was written\n")
    assert scratch_left(tmp_path) == [] and not list(tmp_path.glob("*.salvaged"))


@pytest.mark.parametrize("changes, said", [
    (["DROP TABLE games", ENDLESS], "its games is a view, not the table a board's ledger has"),
    (["ALTER TABLE actions ADD COLUMN x TEXT"],
     "its actions is a table of other columns (id, game_id, line, at, x), not the table a board's ledger has"),
    (["CREATE TABLE a2 (id INTEGER PRIMARY KEY, game_id INTEGER, line TEXT, at TEXT, "
      "g TEXT GENERATED ALWAYS AS (zeroblob(100000000)))", "DROP TABLE actions", "ALTER TABLE a2 RENAME TO actions"],
     "its actions is a table with generated columns"),
    (["DROP TABLE actions"], "the -wal does not fit"),
    (["UPDATE meta SET value='3' WHERE key='schema'"], "a board's ledger of schema 3, newer than this cribbage-board"),
    (["PRAGMA application_id=7"], "holds no ledger of cribbage-board's (application_id 0x7"),
    (["CREATE TABLE a2 (id INTEGER PRIMARY KEY, game_id INTEGER, line TEXT, at TEXT)",
      "INSERT INTO a2 SELECT * FROM actions", "INSERT INTO a2 (game_id) VALUES (1)", "DROP TABLE actions",
      "ALTER TABLE a2 RENAME TO actions"],
     "its rows break a board's ledger's rules (NOT NULL constraint failed: actions.line)"),
])
def test_a_file_not_as_the_schema_has_it_is_refused_in_one_line(tmp_path, changes, said):
    """A table that is a view, has other or generated columns, or is missing, a newer schema, another marker,
    or rows the schema's constraints refuse: refused in one line, nothing written, no scratch left."""
    base, wal = hostile(tmp_path, *changes)
    out = tmp_path / "out.sqlite3"
    with pytest.raises(LedgerError) as refused:
        salvage_wal(wal, base, out)
    assert said in str(refused.value) and "\n" not in str(refused.value)
    assert not out.exists() and scratch_left(tmp_path) == []


def test_only_rows_come_along_and_an_optional_table_unlike_the_schema_is_left_out_and_said(tmp_path):
    """An index, a view and a trigger of the file's stay out; ``club_games`` made a view is left out and said;
    the rows of the tables as the schema has them are all there."""
    base, wal = hostile(tmp_path, "CREATE INDEX evil ON actions (line)", "CREATE VIEW seen AS SELECT * FROM actions",
                        "CREATE TRIGGER gone AFTER UPDATE ON games BEGIN DELETE FROM actions; END",
                        "DROP TABLE club_games", "CREATE VIEW club_games AS SELECT 1 AS game_id, 'c' AS club, "
                        "'1' AS tbl")
    out = tmp_path / "out.sqlite3"
    assert salvage_wal(wal, base, out) == (out, "a board's ledger: 1 game, 3 entries (left out: club_games: a view)")
    assert schema(out) == schema(ledger(tmp_path / "fresh" / "board.sqlite3", []))
    assert exported(out) == GAME[1:]
    with sqlite3.connect(out) as conn:
        assert conn.execute("SELECT count(*) FROM club_games").fetchone() == (0,)
        assert (conn.execute("SELECT value FROM meta WHERE key='ledger_id'").fetchone()
                == sqlite3.connect(base).execute("SELECT value FROM meta WHERE key='ledger_id'").fetchone())


def test_a_schema_1_ledger_is_salvaged_to_the_current_schema(tmp_path):
    """A -wal of a ledger from before the marker (schema 1): the current schema, the status schema 1 meant."""
    old = tmp_path / "old.sqlite3"
    shutil.copyfile(ROOT / "tests" / "data" / "ledger-v1.sqlite3", old)
    base, wal = hostile(tmp_path, "INSERT INTO actions (game_id, line) VALUES (2, 'peg Bob 1')", base=old)
    out = tmp_path / "out.sqlite3"
    _, what = salvage_wal(wal, base, out)
    assert what.startswith("a board's ledger: 2 games, ")
    migrated = tmp_path / "migrated.sqlite3"
    shutil.copyfile(old, migrated)
    LedgerWriter(migrated).close()  # the writer's own migration, for comparison
    with sqlite3.connect(out) as made, sqlite3.connect(migrated) as writer:
        query = "SELECT id, match_id, header, outcome, status FROM games ORDER BY id"
        assert made.execute(query).fetchall() == writer.execute(query).fetchall()
        assert made.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("2",)
    assert exported(out)[-1] == "peg Bob 1"


def test_a_hub_wal_is_salvaged_as_a_hub_ledger(tmp_path):
    """A hub's -wal: a new hub ledger (its schema, append-only triggers and all)
    with its rows; a -wal adding a trigger to it brings no trigger along."""
    path = tmp_path / "hub.sqlite3"
    with HubLedger(path) as hub:
        night = hub.night("club", "Tuesday", "acc", "acc", 3)
        with hub.write():
            hub.add_player(night.id, "Ann")
    base, wal = hostile(tmp_path, "CREATE TRIGGER t AFTER INSERT ON players BEGIN DELETE FROM players; END",
                        base=path)
    out = tmp_path / "out.sqlite3"
    assert salvage_wal(wal, base, out, kinds=(BOARD, HUB)) == (out, "a club hub's ledger: 0 entries, 0 results")
    HubLedger(tmp_path / "fresh" / "hub.sqlite3").close()
    assert schema(out) == schema(tmp_path / "fresh" / "hub.sqlite3")
    with HubLedger(out) as again:
        with again.write():
            again.add_player(1, "Bob")
        assert [player.name for player in again.reader().players(1)] == ["Ann", "Bob"]


def test_the_untrusted_connection_reads_tables_only(tmp_path):
    """Through open_untrusted: a table reads; a view, a write, a function or an attach is refused."""
    path = ledger(tmp_path / "board.sqlite3")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE VIEW v AS SELECT line FROM actions")
    conn = open_untrusted(path, Deadline(10))
    try:
        assert conn.execute("SELECT line FROM actions ORDER BY id").fetchall() == [(line,) for line in GAME[1:]]
        for refused in ("SELECT * FROM v", "DELETE FROM actions", "SELECT length('x')",
                        f"ATTACH '{tmp_path / 'other.sqlite3'}' AS other", "PRAGMA writable_schema=ON"):
            with pytest.raises(sqlite3.DatabaseError, match="not authorized|prohibited"):
                conn.execute(refused).fetchall()
    finally:
        conn.close()


def test_a_file_attached_untrusted_gives_its_tables_rows_only(tmp_path):
    """Attached through attach_untrusted: its table's rows copy into the connection's own; its view, a write
    to it, or another attach is refused, while the connection's own tables take writes."""
    path = ledger(tmp_path / "board.sqlite3")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE VIEW v AS SELECT line FROM actions")
    own = sqlite3.connect(f"{(tmp_path / 'own.sqlite3').as_uri()}?mode=rwc", uri=True, isolation_level=None)
    try:
        own.execute("CREATE TABLE copied (line TEXT)")
        attach_untrusted(own, path, "file", Deadline(10))
        own.execute("INSERT INTO main.copied SELECT line FROM file.actions ORDER BY id")
        assert own.execute("SELECT line FROM copied").fetchall() == [(line,) for line in GAME[1:]]
        for refused in ("INSERT INTO main.copied SELECT line FROM file.v", "DELETE FROM file.actions",
                        f"ATTACH '{tmp_path / 'other.sqlite3'}' AS other"):
            with pytest.raises(sqlite3.DatabaseError, match="not authorized|prohibited"):
                own.execute(refused)
    finally:
        own.close()
    assert exported(path) == GAME[1:]


def test_a_passed_deadline_interrupts_a_query(tmp_path):
    """A statement on an untrusted connection whose deadline has passed is interrupted."""
    conn = open_untrusted(ledger(tmp_path / "board.sqlite3"), Deadline(0))
    try:
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            conn.execute("SELECT a.id FROM actions a, actions b, actions c, actions d, actions e, actions f").fetchall()
    finally:
        conn.close()


def test_a_running_salvage_scratch_is_kept_and_a_dead_one_removed(tmp_path):
    """remove_stale leaves a scratch folder its salvage holds and removes one no one holds (a killed salvage's)."""
    dead = tmp_path / (PREFIX + "dead")
    (dead / "inside").mkdir(parents=True)
    with Scratch(tmp_path) as scratch:
        assert not dead.exists()  # removed when the salvage began
        (tmp_path / (PREFIX + "dead2")).mkdir()
        assert remove_stale(tmp_path) == [tmp_path / (PREFIX + "dead2")]
        assert scratch.path.is_dir()
    assert scratch_left(tmp_path) == []


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, Path]:
    """A board's ledger of 300,000 entries (its read takes seconds) and a -wal of one more."""
    folder = tmp_path_factory.mktemp("big")
    base = ledger(folder / "big.sqlite3", GAME[:1])
    with sqlite3.connect(base, isolation_level=None) as conn:
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO actions (game_id, line) VALUES (1, ?)", (("peg A 1",) for _ in range(300_000)))
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hostile(folder, "INSERT INTO actions (game_id, line) VALUES (1, 'peg B 2')", base=base)


@pytest.mark.slow
def test_the_time_limit_ends_a_long_read_in_one_line(tmp_path, big):
    """A read that takes longer than --time-limit: one line, exit 2, nothing written, no scratch left."""
    base, wal = big
    out = tmp_path / "out.sqlite3"
    done = salvage(str(wal), "--base", str(base), "-o", str(out), "--time-limit", "0.05")
    assert done.returncode == 2 and done.stderr == (f"cribbage-board: salvage: {wal}: reading it took longer than "
                                                    "0.05 s (--time-limit): nothing was written\n"), done.stderr
    assert not out.exists() and scratch_left(tmp_path) == []


def started_salvage(wal: Path, base: Path, out: Path) -> subprocess.Popen:
    """A salvage process, once it has made its scratch folder and begun copying into it."""
    process = subprocess.Popen(command("salvage", str(wal), "--base", str(base), "-o", str(out)), cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not list(out.parent.glob(PREFIX + "*/read.sqlite3")):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.01)
    return process


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_salvage_with_its_scratch_removed(tmp_path, big, stop):
    """SIGTERM or SIGINT while salvage reads: one line, exit 128 + the signal, nothing written, no scratch."""
    base, wal = big
    out = tmp_path / "out.sqlite3"
    process = started_salvage(wal, base, out)
    process.send_signal(stop)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + stop, stderr
    assert stderr == f"cribbage-board: salvage: stopped by {signal.Signals(stop).name}: nothing was written\n"
    assert stdout == "" and not out.exists() and scratch_left(tmp_path) == []


@pytest.mark.slow
def test_a_killed_salvage_scratch_is_removed_by_the_next(tmp_path, big):
    """SIGKILL leaves the scratch folder; the next salvage into that folder removes it and does its own work."""
    base, wal = big
    process = started_salvage(wal, base, tmp_path / "out.sqlite3")
    process.kill()
    process.communicate(timeout=60)
    [left] = scratch_left(tmp_path)
    (tmp_path / "small").mkdir()
    small_base, small_wal = hostile(tmp_path / "small", "INSERT INTO actions (game_id, line) VALUES (1, 'peg B 1')")
    done = salvage(str(small_wal), "--base", str(small_base), "-o", str(tmp_path / "next.sqlite3"))
    assert done.returncode == 0, done.stderr
    assert not left.exists() and scratch_left(tmp_path) == []
    assert exported(tmp_path / "next.sqlite3") == GAME[1:] + ["peg B 1"]
