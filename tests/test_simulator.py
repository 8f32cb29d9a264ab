"""firmware.board.pc.simulator: the mock board's snapshots, written only where the user said, never through a
link; the strip ``simulate --json`` reads back is where the ledger's pegs are."""

import json
import os

import pytest
from helpers import expected, script_to_win

from firmware.board.pc.simulator import run_script, write_in
from firmware.cli import main
from firmware.config import load_config


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_snapshots_never_follow_a_symlink(tmp_path, capsys):
    """A symlink planted as step-0001-leds.png: replaced by the PNG, the file it pointed at unchanged."""
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    folder = tmp_path / "snaps"
    folder.mkdir()
    (folder / "step-0001-leds.png").symlink_to(outside)
    (folder / "step-0000-oled.png").symlink_to(tmp_path / "not-there.png")
    script = tmp_path / "s.txt"
    script.write_text("click red\n")
    code, out, err = run(capsys, "simulate", str(script), "--snapshots", str(folder))
    assert code == 0, err
    assert outside.read_text() == "keep me" and not (tmp_path / "not-there.png").exists()
    shot = folder / "step-0001-leds.png"
    assert not shot.is_symlink() and shot.read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in folder.iterdir()) == [
        "step-0000-leds.png", "step-0000-oled.png", "step-0001-leds.png", "step-0001-oled.png"]



def test_snapshot_folder_that_is_a_symlink_or_a_file(tmp_path, capsys):
    """The folder itself a symlink or a file: one line, exit 2, nothing written."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "file").write_text("x")
    script = tmp_path / "s.txt"
    script.write_text("click red\n")
    for name, reason in (("link", "is a symbolic link"), ("file", "is not a folder")):
        code, out, err = run(capsys, "simulate", str(script), "--snapshots", str(tmp_path / name))
        assert code == 2 and err == f"cribbage-board: {tmp_path / name}: {reason}: " + (
            "give the folder itself\n" if name == "link" else "give a folder for the snapshots\n")
    assert list((tmp_path / "real").iterdir()) == [] and (tmp_path / "file").read_text() == "x"



def test_write_in_leaves_no_temporary_file_on_failure(tmp_path):
    """A name that is a folder cannot be replaced: the error shows and no temporary file is left."""
    (tmp_path / "shot.png").mkdir()
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(OSError):
            write_in(folder, "shot.png", b"data")
    finally:
        os.close(folder)
    assert [p.name for p in tmp_path.iterdir()] == ["shot.png"]


@pytest.mark.parametrize("script, strip", [
    (["click red"], [{"front": 2, "back": 0}, {"front": 0, "back": None}]),
    (["click red", "turn 2", "click blue", "turn 3", "click red"],
     [{"front": 5, "back": 2}, {"front": 2, "back": 0}]),
    (["click red", "turn 2", "click blue", "turn 3", "click red", "click undo"],
     [{"front": 2, "back": 0}, {"front": 2, "back": 0}]),
    (["turn 12", "click blue", "click undo"], [{"front": 0, "back": None}, {"front": 0, "back": None}]),
])
def test_simulate_json_strip_after_heels_play_and_undo(tmp_path, capsys, script, strip):
    """simulate --json: ``strip`` is what the last frame shows: after heels, play points and an undo."""
    from firmware.cli import main

    path = tmp_path / "script.txt"
    path.write_text("\n".join(script) + "\n")
    assert main(["simulate", str(path), "--json", "--state", str(tmp_path / "l.sqlite3")]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["strip"] == strip == expected(state["sides"])


def test_simulate_strip_at_the_win_after_the_chase(tmp_path):
    """At the win the winner's front peg is in the game hole once the chase has ended."""
    result = run_script(script_to_win(), load_config(), tmp_path / "l.sqlite3")
    assert result["winner"] == "Red" and result["rejected"] == []
    assert result["strip"][0]["front"] == 121 == result["target"]
    assert result["strip"] == expected(result["sides"])


def test_simulate_strip_on_the_second_lap_of_a_181_game(tmp_path):
    """Seven-card (to 181) past 120: the strip reads the front on lap 2 (hole + 120), as the ledger says."""
    config = load_config(overrides=["game.variant=seven-card"])
    result = run_script(script_to_win(target=140), config, tmp_path / "l.sqlite3")
    assert result["target"] == 181 and result["rejected"] == []
    red = result["sides"][0]
    assert red["score"] > 120 and red["back"] > 120
    assert result["strip"] == expected(result["sides"])
