"""A -wal truncated, or another ledger's -wal copied over it, under a running writer: every entry
acknowledged is read back at the ledger's path after a restart, and nothing is acknowledged after
the change without saying so; against real ``cribbage-board console`` and ``hub`` processes."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from firmware.hub.ledger import HubLedger, HubReader
from ledger.errors import LedgerError
from ledger.wal_guard import WalGuard
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from club_hub import HubProcess, Table, wait_for
from test_ledger_moved import acknowledge, command, entries, start_console

ROOT = Path(__file__).resolve().parent.parent
GAME = ["game six-card seats=A,B dealer=A"] + ["peg A 1" if n % 2 == 0 else "peg B 1" for n in range(8)]
LATER = ["peg A 2", "peg B 2", "peg A 3"]


def change_wal(path: Path, how: str, folder: Path, other_ledger=LedgerWriter, writes=None) -> None:
    """Truncate the -wal beside ``path``, or copy another ledger's -wal (written while that one is open) over it."""
    wal = Path(f"{path}-wal")
    if how == "truncated":
        os.truncate(wal, 0)
        return
    other = folder / "other" / path.name
    other.parent.mkdir()
    with other_ledger(other) as store:
        (writes or _other_game)(store)
        shutil.copyfile(f"{other}-wal", wal)  # cp: the same file at the -wal's name, its bytes another's


def _other_game(store: LedgerWriter) -> None:
    store.apply(parse_line("game six-card seats=C,D dealer=C"))
    for _ in range(12):
        store.apply(parse_line("peg C 1"))


@pytest.mark.slow
@pytest.mark.parametrize("how", ["truncated", "copied"])
@pytest.mark.parametrize("stop", ["quit", "kill"])
def test_a_changed_wal_under_the_console_loses_no_acknowledged_entry(tmp_path, how, stop):
    """8 entries acknowledged, the -wal changed, 3 more tried: each is refused with the one line that says
    where the ledger is whole; quit or killed, the console started again at the path has the 8."""
    path = tmp_path / "board.sqlite3"
    board = start_console(path)
    try:
        said = acknowledge(board, GAME)
        assert said == [s for s in said if s.startswith("  ok:")] and len(said) == 8
        change_wal(path, how, tmp_path)
        refused = acknowledge(board, LATER)
        if stop == "kill":
            board.send_signal(signal.SIGKILL)
        else:
            board.stdin.close()
            board.stdout.read()
        board.wait(timeout=60)
    finally:
        board.kill()
        board.wait()
    [aside] = tmp_path.glob("board.sqlite3.corrupt-*[0-9]")
    what = "was truncated" if how == "truncated" else "was overwritten"
    assert refused[0].startswith(f"! ledger {path}: its -wal {what}"), refused
    assert refused[0].startswith(f"! ledger {path}: its -wal {what} while it was open: what it saved is whole there again")
    assert all(line.startswith(f"! ledger {path}: its -wal {what}") for line in refused)  # nothing more acknowledged
    assert Path(f"{aside}-wal").exists()  # the -wal it could not trust: kept, not removed
    assert entries(path) == GAME[1:]
    again = subprocess.run(command("console", "--state", str(path)), cwd=ROOT, input="status\n",
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert "! " not in again.stdout, again.stdout
    assert entries(path) == GAME[1:]


def test_the_writer_s_own_checkpoints_and_restarts_of_the_wal_are_not_a_change(tmp_path):
    """Past SQLite's automatic checkpoint (the -wal begun again, new salts) the writer writes on."""
    path = tmp_path / "board.sqlite3"
    with LedgerWriter(path) as store:
        store.apply(parse_line("game six-card seats=A,B dealer=A"))
        salts = set()
        for n in range(700):
            store.apply(parse_line("peg A 1" if n % 2 == 0 else "undo"))
            with open(f"{path}-wal", "rb") as wal:
                salts.add(wal.read(32)[16:24])
        assert len(salts) > 1  # SQLite did begin its -wal again
        assert store.wal_changed is None
    with LedgerWriter(path) as again:
        assert again.messages == [] and len(again.export()) == 701


@pytest.mark.parametrize("how", ["truncated", "copied", "replaced", "removed"])
def test_the_guard_sees_each_change(tmp_path, how):
    """Truncated, written over, replaced by another file, removed: each is a change, said in a few words."""
    path = tmp_path / "board.sqlite3"
    with LedgerWriter(path) as store:
        store.apply(parse_line("game six-card seats=A,B dealer=A"))
        guard = WalGuard(path)
        try:
            assert guard.changed() is None
            wal = Path(f"{path}-wal")
            if how == "truncated":
                os.truncate(wal, 100)
            elif how == "copied":
                data = bytearray(wal.read_bytes())
                data[16:24] = bytes(8)  # other salts
                wal.write_bytes(bytes(data))
            elif how == "replaced":
                os.rename(wal, tmp_path / "aside")
                shutil.copyfile(tmp_path / "aside", wal)
            else:
                os.rename(wal, tmp_path / "aside")
            said = guard.changed()
        finally:
            guard.close()
        assert said is not None and said.startswith(
            {"truncated": "was truncated", "copied": "was overwritten", "replaced": "was replaced",
             "removed": "was removed"}[how])
        with pytest.raises(LedgerError, match="its -wal .* while it was open: what it saved is whole there again"):
            store.apply(parse_line("peg A 1"))


def test_a_changed_wal_at_close_is_found_and_said(tmp_path):
    """The -wal changed and nothing written after: close finds it, keeps the ledger whole and says so."""
    path = tmp_path / "board.sqlite3"
    store = LedgerWriter(path)
    for line in GAME:
        store.apply(parse_line(line))
    os.truncate(f"{path}-wal", 0)
    store.close()
    [said] = store.messages
    assert said.startswith(f"ledger {path}: its -wal was truncated") and "whole there again" in said
    with LedgerWriter(path) as again:
        assert again.export() == GAME


# ---- the hub ----------------------------------------------------------------------


def _other_night(hub: HubLedger) -> None:
    night = hub.night("other", "night", "acc", "acc", 3)
    with hub.write():
        for n in range(30):
            hub.add_player(night.id, f"P{n}")


@pytest.mark.slow
@pytest.mark.broker
@pytest.mark.parametrize("how", ["truncated", "copied"])
@pytest.mark.parametrize("stop", ["term", "kill"])
def test_a_changed_wal_under_the_hub_loses_no_acknowledged_entry(tmp_path, broker, how, stop):
    """A table's 20 entries kept, the hub's -wal changed, 10 more sent: the hub says in its journal where its
    ledger is whole and keeps nothing more; stopped or killed, started again, it has the 20."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--tables", "1").start().subscribed()
    table = Table(broker.port, "1")
    try:
        for seq in range(20):
            table.entry(1, seq, "peg Ann 1" if seq else "game six-card seats=Ann,Bob dealer=Ann")
        wait_for(lambda: _entries(hub.state) == 20, "the hub did not keep the 20 entries")
        change_wal(hub.state, how, tmp_path, HubLedger, _other_night)
        for seq in range(20, 30):
            table.entry(1, seq, "peg Bob 1")
        wait_for(lambda: "its -wal" in hub.log(), f"the hub said nothing: {hub.log()}")
        if stop == "kill":
            hub.kill()
        else:
            assert hub.stop() in (0, 2)
    finally:
        table.close()
        hub.stop()
    said = [line for line in hub.log().splitlines() if "its -wal" in line]
    what = "was truncated" if how == "truncated" else "was (truncated|overwritten)"  # another's may be shorter
    assert said and re.search(f"ledger {re.escape(str(hub.state))}: its -wal {what} while it was open: "
                              "what it saved is whole there again", said[0]), said
    assert _entries(hub.state) == 20
    with HubLedger(hub.state) as again:
        assert again.messages == [] and again.reader().counts()["entries"] == 20


def _entries(path: Path) -> int:
    try:
        with HubReader(path) as rows:
            return rows.counts().get("entries", 0)
    except LedgerError:
        return -1
