"""The guest's check after a power cut (systemd/vm/driver.py power-check), on a ledger made here."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from ledger.writer import LedgerWriter
from scorer.record import parse_line, replay

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "systemd" / "vm" / "driver.py"
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


def power_check(folder: Path, acks: list[str]) -> subprocess.CompletedProcess:
    (folder / "acks.tsv").write_text("".join(line + "\n" for line in acks))
    env = dict(os.environ, STATE_DIRECTORY=str(folder), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(DRIVER), "power-check", str(folder / "acks.tsv")],
                          capture_output=True, text=True, timeout=60, env=env)


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
