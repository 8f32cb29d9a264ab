"""The club hub's ledger (firmware.hub.ledger): once only, append-only, one writer, honest errors."""

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from firmware.hub.ledger import HubLedger, HubReader, PairingRow
from ledger.errors import LedgerError, LedgerInUseError
from ledger.schema import HUB_APPLICATION_ID
from ledger.writer import LedgerWriter

KEY = ("thu", "3", "0123456789abcdef", 7)


def result(rev: int, status: str = "finished", scores=None) -> dict:
    scores = scores or {"Alice": 121, "Bob": 88}
    return {"v": 1, "table": "3", "ledger": KEY[2], "game": 7, "rev": rev, "status": status, "variant": "six-card",
            "seats": list(scores), "scores": scores, "winner": "Alice" if status == "finished" else None,
            "losers": [], "margin": None, "result": None, "game_points": None, "skunk": None, "at": None}


@pytest.fixture
def hub_ledger(tmp_path):
    with HubLedger(tmp_path / "hub.sqlite3", holder="test") as ledger:
        yield ledger


def test_a_redelivered_entry_or_result_is_kept_once(hub_ledger):
    """UNIQUE (club, table, ledger, game, seq) and (..., rev): the second copy is a no-op."""
    night = hub_ledger.night("thu", "n1", "acc", "acc", 9)
    with hub_ledger.write() as w:
        assert w.add_entry(night.id, "thu", "3", KEY[2], 7, 1, "peg Bob 2", None)
        assert not w.add_entry(night.id, "thu", "3", KEY[2], 7, 1, "peg Bob 2", None)
        assert w.add_result(night.id, 1, "thu", result(5))
        assert not w.add_result(night.id, 1, "thu", result(5))
        assert w.add_result(night.id, 1, "thu", result(6, "open"))  # a new revision is kept beside it
    rows = hub_ledger.reader()
    assert rows.counts()["entries"] == 1
    assert [(r.rev, r.status) for r in rows.results(night.id)] == [(5, "finished"), (6, "open")]
    assert rows.entry_counts(night.id) == {"3": 1}


def test_the_word_without_the_boards_floor_claims_no_game_settled(hub_ledger):
    """Only game 7 of a ledger kept, the board's floor not known: the word says from 1 (a board that
    lost its watermark would skip games 1-6, which the hub lacks, if it said from 7); with the floor
    known, from it."""
    night = hub_ledger.night("thu", "n1", "acc", "acc", 9)
    with hub_ledger.write() as w:
        w.add_entry(night.id, "thu", "3", KEY[2], 7, 0, "game six-card seats=Alice,Bob dealer=Alice", None)
        w.add_entry(night.id, "thu", "3", KEY[2], 7, 1, "peg Bob 2", None)
        w.add_result(night.id, 1, "thu", result(5))
    rows = hub_ledger.reader()
    assert rows.kept("thu", "3", KEY[2], None, 64) == (1, [[7, 1, 5, "finished"]])
    assert rows.kept("thu", "3", KEY[2], 4, 64) == (4, [[7, 1, 5, "finished"]])
    assert rows.kept("thu", "3", KEY[2], 8, 64) == (8, [])


def test_a_result_refused_is_in_the_word_so_the_board_stops_sending_it(hub_ledger):
    """A result the hub refused (noted as a conflict) is kept as refused: the word gives its status and
    rev, so the board forgets it instead of sending it again for ever; a later one kept counts over it."""
    import json

    night = hub_ledger.night("thu", "n1", "acc", "acc", 9)
    with hub_ledger.write() as w:
        w.add_entry(night.id, "thu", "3", KEY[2], 7, 0, "game six-card seats=Alice,Bob dealer=Alice", None)
        w.add_conflict(night.id, "thu", "3", KEY[2], 7, "refused", 5, None, json.dumps(result(5)), "past the target")
    assert hub_ledger.reader().kept("thu", "3", KEY[2], 1, 64) == (1, [[7, 0, 5, "finished"]])
    with hub_ledger.write() as w:
        w.add_result(night.id, 1, "thu", result(6, "open"))
    assert hub_ledger.reader().kept("thu", "3", KEY[2], 1, 64) == (1, [[7, 0, 6, "open"]])


def test_corrections_are_rows_with_reasons_and_nothing_is_ever_updated(hub_ledger):
    """A correction is a new row with its reason and time; UPDATE and DELETE are refused by the file itself."""
    night = hub_ledger.night("thu", "n1", "acc", "acc", 9)
    with hub_ledger.write() as w:
        w.add_result(night.id, 1, "thu", result(5))
        w.add_correction(night.id, KEY, "correct", "crib miscounted", ("Alice", "Bob"),
                         (("Alice", 121), ("Bob", 95)), "Alice")
        w.add_correction(night.id, KEY, "restore", "the board was right")
    corrections = hub_ledger.reader().corrections(night.id)
    assert [(c.action, c.reason, c.scores) for c in corrections] == [
        ("correct", "crib miscounted", (("Alice", 121), ("Bob", 95))), ("restore", "the board was right", None)]
    assert all(c.at.endswith("Z") for c in corrections)
    for statement in ("UPDATE results SET status='void'", "DELETE FROM corrections", "DELETE FROM results"):
        with pytest.raises(LedgerError, match="append-only"):
            with hub_ledger.write():
                hub_ledger._conn.execute(statement)
    assert len(hub_ledger.reader().corrections(night.id)) == 2


def test_a_failed_transaction_keeps_nothing_of_it(hub_ledger):
    night = hub_ledger.night("thu", "n1", "acc", "acc", 9)
    with pytest.raises(RuntimeError):
        with hub_ledger.write() as w:
            w.add_entry(night.id, "thu", "3", KEY[2], 7, 1, "peg Bob 2", None)
            raise RuntimeError("stop")
    assert hub_ledger.reader().counts()["entries"] == 0


def test_rounds_and_players_read_back_in_order(hub_ledger):
    night = hub_ledger.night("thu", "n1", "acc", "acc", 9)
    assert hub_ledger.night("thu", "n1", "2/3/4", "acc", 5) == night  # kept as it began
    with hub_ledger.write() as w:
        for name in ("Ann", "Bob", "Cat"):
            w.add_player(night.id, name)
        w.add_player(night.id, "Bob", "remove")
        w.add_round(night.id, 1, [PairingRow("1", ("Ann", "Cat"), False), PairingRow(None, ("Bob",), True)], "start")
    rows = hub_ledger.reader()
    assert [(p.action, p.name) for p in rows.players(night.id)] == [
        ("add", "Ann"), ("add", "Bob"), ("add", "Cat"), ("remove", "Bob")]
    (made,) = rows.rounds(night.id)
    assert (made.number, made.how, made.pairings) == (1, "start", (PairingRow("1", ("Ann", "Cat"), False),
                                                                  PairingRow(None, ("Bob",), True)))


def test_the_file_is_marked_wal_full_and_versioned(tmp_path):
    path = tmp_path / "hub.sqlite3"
    HubLedger(path).close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == HUB_APPLICATION_ID
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "2"
    finally:
        conn.close()
    with HubReader(path) as reader:
        assert reader.counts() == {name: 0 for name in reader.counts()}


def test_one_writer_a_second_is_refused_naming_the_holder(tmp_path):
    """A second writer, in another process, is refused in one line naming who holds it; nothing changes."""
    path = tmp_path / "hub.sqlite3"
    with HubLedger(path, holder="cribbage-board hub"):
        code = ("import sys\nfrom firmware.hub.ledger import HubLedger\nfrom ledger.errors import LedgerInUseError\n"
                "try:\n    HubLedger(sys.argv[1])\nexcept LedgerInUseError as e:\n    print(e)\n")
        said = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": os.getcwd()}).stdout.strip()
        assert said.startswith(f"ledger {path} is in use by cribbage-board hub (pid {os.getpid()})")
        with pytest.raises(LedgerInUseError):
            HubLedger(path)


@pytest.mark.parametrize("make, message", [
    ("board", "is a board's ledger, not a club hub's"),
    ("other", "is another program's SQLite database (tables: cats)"),
    ("folder", "is a folder, not a file"),
    ("file-in-the-way", "is a file, not a folder"),
    ("newer", "newer than this cribbage-board reads"),
])
def test_a_file_that_is_not_ours_is_refused_and_left_alone(tmp_path, make, message):
    """A board's ledger, another program's database, a folder, a file in the way, a newer schema:
    one line naming the path; the file is left as it was and nothing is set aside."""
    path = tmp_path / "hub.sqlite3"
    if make == "board":
        LedgerWriter(path).close()
    elif make == "other":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE cats (name TEXT)")
        conn.commit()
        conn.close()
    elif make == "folder":
        path.mkdir()
    elif make == "file-in-the-way":
        (tmp_path / "sub").write_text("x")
        path = tmp_path / "sub" / "hub.sqlite3"
    elif make == "newer":
        HubLedger(path).close()
        conn = sqlite3.connect(path)
        conn.execute("UPDATE meta SET value='99' WHERE key='schema'")
        conn.commit()
        conn.close()
    before = sorted(os.listdir(tmp_path))
    sizes = {name: os.path.getsize(tmp_path / name) for name in before if (tmp_path / name).is_file()}
    with pytest.raises(LedgerError) as caught:
        HubLedger(path)
    said = str(caught.value)
    assert str(path) in said and message in said and "\n" not in said
    assert sorted(os.listdir(tmp_path)) == before
    assert {name: os.path.getsize(tmp_path / name) for name in before if (tmp_path / name).is_file()} == sizes


@pytest.mark.slow
def test_a_locked_database_is_refused_without_change(tmp_path):
    """Another program holding SQLite's write lock: one line, nothing changed."""
    path = tmp_path / "hub.sqlite3"
    HubLedger(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(LedgerError, match="locked by another program"):
            HubLedger(path)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not [name for name in os.listdir(tmp_path) if "corrupt" in name]


def test_a_read_only_file_is_refused(tmp_path):
    """No permission to write the file: one line with the cause (as root, run without its file override)."""
    path = tmp_path / "hub.sqlite3"
    HubLedger(path).close()
    path.chmod(0o444)
    prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    if prefix and not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is needed to open the file without root's override")
    code = ("import sys\nfrom firmware.hub.ledger import HubLedger\nfrom ledger.errors import LedgerError\n"
            "try:\n    HubLedger(sys.argv[1])\nexcept LedgerError as e:\n    print(e)\n")
    said = subprocess.run([*prefix, sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": os.getcwd()}).stdout.strip()
    assert said == f"ledger {path} cannot be written: permission denied"


def test_real_damage_is_set_aside_and_a_new_file_begun(tmp_path):
    """Only a file SQLite calls not a database is renamed (never deleted) and a new ledger started."""
    path = tmp_path / "hub.sqlite3"
    path.write_bytes(b"this is not a database at all" * 200)
    with HubLedger(path) as ledger:
        assert len(ledger.messages) == 1 and "could not be read" in ledger.messages[0]
        assert ledger.reader().counts()["nights"] == 0
    kept = [name for name in os.listdir(tmp_path) if ".corrupt-" in name]
    assert len(kept) == 1 and (tmp_path / kept[0]).read_bytes().startswith(b"this is not a database")


def test_a_disk_full_write_is_refused_and_nothing_is_kept(tmp_path):
    """SQLite full: DiskFullError naming the path; the transaction leaves nothing."""
    from ledger.errors import DiskFullError

    with HubLedger(tmp_path / "hub.sqlite3") as ledger:
        night = ledger.night("thu", "n1", "acc", "acc", 9)
        pages = ledger._conn.execute("PRAGMA page_count").fetchone()[0]
        ledger._conn.execute(f"PRAGMA max_page_count={pages}")
        with pytest.raises(DiskFullError, match="disk full: nothing saved"):
            with ledger.write() as w:
                for seq in range(2000):
                    w.add_entry(night.id, "thu", "3", KEY[2], 7, seq, "peg Bob 2" * 10, None)
        ledger._conn.execute("PRAGMA max_page_count=1073741823")
        assert ledger.reader().counts()["entries"] == 0


def test_a_schema_1_ledger_is_taken_up_whole_and_gains_its_conflicts(tmp_path):
    """tests/data/hub-schema-1.sqlite3 was written by the hub before schema 2 (a night, a round, two
    entries, a result): opened now, it is schema 2 with everything in it, and a conflict can be noted."""

    path = tmp_path / "hub.sqlite3"
    shutil.copy(os.path.join(os.path.dirname(__file__), "data", "hub-schema-1.sqlite3"), path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "1"
    with HubLedger(path, holder="test") as ledger:
        night = ledger.night("thu", "n1", "acc", "acc", 9)
        rows = ledger.reader()
        assert rows.entry_counts(night.id) == {"3": 2}
        assert [(r.rev, r.status) for r in rows.results(night.id)] == [(5, "finished")]
        assert [r.number for r in rows.rounds(night.id)] == [1]
        assert rows.conflicts(night.id) == []
        with ledger.write() as w:
            assert w.entry_line(*KEY, 1) == "peg Bob 2"
            assert w.add_conflict(night.id, *KEY, "entry", 1, "peg Bob 2", "peg Bob 3", "sent again otherwise")
        assert [(c.kind, c.kept, c.sent) for c in ledger.reader().conflicts(night.id)] == [
            ("entry", "peg Bob 2", "peg Bob 3")]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "2"
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow
def test_the_word_kept_up_commit_by_commit_equals_the_word_read_again(hub_ledger):
    """The hub's writer keeps each board's KeptBoard up to date after its commits (entries out of order and
    past gaps, results in any revision order, results refused): after every commit its word is the word read
    again from the whole ledger, from any floor."""
    import json
    import random

    from firmware.hub.ledger import KeptBoard

    rng = random.Random(5)
    night = hub_ledger.night("thu", "n1", "acc", "acc", 9)
    board = KeptBoard()
    for _ in range(300):
        game = rng.randint(1, 6)
        with hub_ledger.write() as w:
            roll = rng.random()
            if roll < 0.7:
                seq = rng.choice([0, 1, 2, 3, 4, 5, 6, 9])
                if w.add_entry(night.id, "thu", "3", KEY[2], game, seq, f"line {seq}", None):
                    board.entry(game, seq)
            elif roll < 0.9:
                rev, status = rng.randint(1, 9), rng.choice(["finished", "open", "abandoned"])
                if w.add_result(night.id, 1, "thu", {**result(rev, status), "game": game}):
                    board.result(game, rev, status)
            else:
                rev, status = rng.randint(1, 9), rng.choice(["finished", "abandoned"])
                sent = json.dumps({**result(rev, status), "game": game})
                if w.add_conflict(night.id, "thu", "3", KEY[2], game, "refused", rev, None, sent, "impossible"):
                    board.result(game, rev, status, stored=False)
        again = hub_ledger.reader().kept_board("thu", "3", KEY[2])
        for floor in (None, 1, 3, 7):
            assert board.word(floor, 4) == again.word(floor, 4)
    assert board.beyond or any(seq > 0 for seq in board.through.values())  # gaps and runs both came up
