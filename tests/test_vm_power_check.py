"""The guest's check after a power cut (tests/system/vm/driver.py power-check), on a ledger made here."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ledger.writer import LedgerWriter
from scorer.record import parse_line, replay

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "tests" / "system" / "vm" / "driver.py"
GAME = ["game six-card seats=Alice,Bob dealer=Alice", "heels", "peg Bob 2", "go Alice", "hand Bob 8"]


def acknowledged(folder: Path) -> list[str]:
    """A ledger in ``folder`` with GAME in it, and its entries as driver.py burst acknowledges them."""
    with LedgerWriter(folder / "ledger.sqlite3") as store:
        for line in GAME:
            store.apply(parse_line(line))
    conn = sqlite3.connect(folder / "ledger.sqlite3")
    rows = conn.execute("SELECT id, game_id, line FROM actions ORDER BY id").fetchall()
    conn.close()
    acks = []
    for n, (row_id, game_id, line) in enumerate(rows, start=1):
        scores = replay(GAME[:1 + n]).book.game.state.scores
        acks.append(f"{row_id}\t{game_id}\t{','.join(map(str, scores))}\t{line}")
    return acks


def driver_env(folder: Path) -> dict[str, str]:
    """driver.py's environment here: the board's ledger and the hub's in ``folder``, booted now."""
    return dict(os.environ, STATE_DIRECTORY=str(folder), PYTHONPATH=str(ROOT),
                CRIBBAGE_VM_HUB_STATE=str(folder / "hub.sqlite3"), CRIBBAGE_VM_BOOTED=str(time.time()))


def run_driver(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DRIVER), *args], capture_output=True, text=True, timeout=60,
                          env=driver_env(folder))


def acks_file(folder: Path, acks: list[str]) -> str:
    """``acks`` written as the host gives them to the guest: acks.tsv in ``folder``, its path."""
    (folder / "acks.tsv").write_text("".join(line + "\n" for line in acks))
    return str(folder / "acks.tsv")


def power_check(folder: Path, acks: list[str]) -> subprocess.CompletedProcess:
    return run_driver(folder, "power-check", acks_file(folder, acks))


def test_power_check_passes_a_ledger_with_every_acknowledged_entry(tmp_path):
    """Every acknowledged entry there and the replay's scores the acknowledged ones: one ok line, exit 0."""
    result = power_check(tmp_path, acknowledged(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok: integrity_check ok, 1 games replayed (4 entries), all 4 acknowledged")


def test_power_check_names_the_first_lost_entry(tmp_path):
    """An acknowledged entry the ledger lacks: FAILED, with the count lost and the first of them."""
    acks = acknowledged(tmp_path)
    acks.append("5\t1\t3,10\tpeg Bob 1")
    result = power_check(tmp_path, acks)
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED: 1 of 5 acknowledged entries lost, the first: entry 5 (game 1: peg Bob 1)")


def test_power_check_replays_to_the_acknowledged_scores(tmp_path):
    """The last acknowledged entry's scores differ from the ledger's replay up to it: FAILED."""
    acks = acknowledged(tmp_path)
    row_id, game_id, scores, line = acks[-1].split("\t")
    acks[-1] = "\t".join([row_id, game_id, "99,99", line])
    result = power_check(tmp_path, acks)
    assert result.returncode == 1
    assert f"the last acknowledged, scores {scores}, but the acknowledgement said 99,99" in result.stdout


# ---- the club through the cuts: driver.py hub-check and club-sync, on ledgers made here ----

CLUB, TABLE = "vmclub", "1"


def club_ledgers(folder: Path, kept_upto: int) -> tuple[list[str], str]:
    """The board's ledger with GAME played for the club (its acknowledgements, as burst writes them),
    and a hub ledger holding the game's line and its entries up to ``kept_upto``: (acks, ledger id)."""
    with LedgerWriter(folder / "ledger.sqlite3") as store:
        store.join_club(CLUB, TABLE)
        for line in GAME:
            store.apply(parse_line(line))
        ledger = store.ledger_id
    conn = sqlite3.connect(folder / "ledger.sqlite3")
    rows = conn.execute("SELECT id, game_id, line FROM actions ORDER BY id").fetchall()
    conn.close()
    acks = [f"{row_id}\t{game_id}\t\t{line}" for row_id, game_id, line in rows]
    from firmware.hub.ledger import HubLedger

    with HubLedger(folder / "hub.sqlite3") as hub:
        night = hub.night(CLUB, "vm", "standard", "acc", 0)
        with hub.write() as w:
            w.add_entry(night.id, CLUB, TABLE, ledger, rows[0][1], 0, GAME[0], None)
            for seq, (_, game_id, line) in enumerate(rows[:kept_upto], start=1):
                w.add_entry(night.id, CLUB, TABLE, ledger, game_id, seq, line, None)
    return acks, ledger


def kept_word(ledger: str, seq: int) -> str:
    return json.dumps({"v": 1, "table": TABLE, "ledger": ledger, "from": 1, "games": [[1, seq, None, None]]})


def test_club_sync_passes_when_the_hub_has_every_acknowledged_entry(tmp_path):
    acks, ledger = club_ledgers(tmp_path, kept_upto=4)
    result = run_driver(tmp_path, "club-sync", acks_file(tmp_path, acks), "5")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"ok: the hub's ledger has all 4 entries the board acknowledged (ledger {ledger}, 1 games)")
    assert "0 of them and their games' lines kept by the hub since this boot (sent again: the cut came first), 0 still lacking" in result.stdout


@pytest.mark.slow
def test_club_sync_names_the_first_entry_the_hub_still_lacks(tmp_path):
    """The hub kept entries 1 and 2 of 4: after the wait, FAILED naming entry 3 and the board's watermark."""
    acks, _ = club_ledgers(tmp_path, kept_upto=2)
    (tmp_path / "ledger.sqlite3.club").write_text("")
    result = run_driver(tmp_path, "club-sync", acks_file(tmp_path, acks), "1")
    assert result.returncode == 1
    assert "the hub still lacks 2 of 5 acknowledged entries and game lines, the first: table 1 game 1 entry 3" in result.stdout
    assert result.stdout.rstrip().endswith("the board's watermark: empty")


def test_hub_check_passes_what_the_hub_kept_and_fails_a_word_beyond_it(tmp_path):
    """Every word's places in the hub's ledger: ok; a word saying entry 3 was kept when it is not: FAILED."""
    _, ledger = club_ledgers(tmp_path, kept_upto=2)
    (tmp_path / "kept.jsonl").write_text(kept_word(ledger, 1) + "\n" + kept_word(ledger, 2) + "\n")
    result = run_driver(tmp_path, "hub-check", str(tmp_path / "kept.jsonl"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all it said it kept before the cut is there (2 kept words heard by the host, 5 line and entry places" in result.stdout
    (tmp_path / "kept.jsonl").write_text(kept_word(ledger, 3) + "\n")
    result = run_driver(tmp_path, "hub-check", str(tmp_path / "kept.jsonl"))
    assert result.returncode == 1
    assert result.stdout.startswith(f"FAILED: the hub's ledger lacks what its word said it kept: table 1 ledger {ledger} game 1 entry 3")


@pytest.mark.slow
def test_club_sync_waits_for_the_entries_the_board_sends_again(tmp_path):
    """The hub lacks entries 3 and 4 when the check begins; they arrive while it waits: ok, saying 2 lacked."""
    acks, ledger = club_ledgers(tmp_path, kept_upto=2)
    check = subprocess.Popen([sys.executable, str(DRIVER), "club-sync", acks_file(tmp_path, acks), "60"],
                             stdout=subprocess.PIPE, text=True, env=driver_env(tmp_path))
    assert check.stdout.readline().startswith("club-sync: the hub lacks 2 of 5; waiting up to 60 s")
    from firmware.hub.ledger import HubLedger

    rows = [line.split("\t") for line in acks]
    with HubLedger(tmp_path / "hub.sqlite3") as hub:
        night = hub.night(CLUB, "vm", "standard", "acc", 0)
        with hub.write() as w:
            for seq in (3, 4):
                w.add_entry(night.id, CLUB, TABLE, ledger, int(rows[seq - 1][1]), seq, rows[seq - 1][3], None)
    out, _ = check.communicate(timeout=60)
    assert check.returncode == 0, out
    assert "2 of them and their games' lines kept by the hub since this boot (sent again: the cut came first), 2 still lacking" in out


# ---- a ledger set aside in the state folder fails both checks, named ----

ASIDE = ["ledger.sqlite3.corrupt-20261202T190001", "ledger.sqlite3.corrupt-20261202T190001-2-wal",
         "hub.sqlite3.kept-20261202T190001"]


@pytest.mark.parametrize("name", ASIDE)
def test_power_check_fails_on_a_ledger_set_aside_and_names_it(tmp_path, name):
    """Every acknowledged entry there, but a file set aside as damaged beside the ledger: FAILED naming it."""
    acks = acknowledged(tmp_path)
    (tmp_path / name).write_bytes(b"set aside")
    result = power_check(tmp_path, acks)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == f"FAILED: the state folder {tmp_path} holds a ledger set aside as damaged: {name}\n"


def test_power_check_fails_on_the_wal_a_board_set_aside_at_start(tmp_path):
    """A -wal with no database beside it, set aside by the board itself when it started: FAILED naming it."""
    acks = acknowledged(tmp_path)
    os.rename(tmp_path / "ledger.sqlite3", tmp_path / "ledger.copy")
    with LedgerWriter(tmp_path / "other" / "lost.sqlite3") as store:  # the -wal of a file no longer there
        store.apply(parse_line(GAME[0]))
        shutil.copyfile(tmp_path / "other" / "lost.sqlite3-wal", tmp_path / "ledger.sqlite3-wal")
    with LedgerWriter(tmp_path / "ledger.sqlite3") as store:
        assert "a -wal with no database beside it was kept as" in store.messages[0]
    os.replace(tmp_path / "ledger.copy", tmp_path / "ledger.sqlite3")
    [aside] = [p.name for p in tmp_path.glob("ledger.sqlite3.corrupt-*")]
    result = power_check(tmp_path, acks)
    assert result.returncode == 1
    assert result.stdout.startswith(f"FAILED: the state folder {tmp_path} holds a ledger set aside as damaged: {aside}")


@pytest.mark.parametrize("name", ASIDE)
def test_hub_check_fails_on_a_ledger_set_aside_and_names_it(tmp_path, name):
    """What the hub kept is there, but a file set aside as damaged in its folder: FAILED naming it."""
    _, ledger = club_ledgers(tmp_path, kept_upto=2)
    (tmp_path / "kept.jsonl").write_text(kept_word(ledger, 2) + "\n")
    (tmp_path / name).write_bytes(b"set aside")
    result = run_driver(tmp_path, "hub-check", str(tmp_path / "kept.jsonl"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == f"FAILED: the state folder {tmp_path} holds a ledger set aside as damaged: {name}\n"
