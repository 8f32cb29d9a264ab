"""firmware.board.pc.simulator: the mock board's snapshots, written only where the user said, never through a link."""

import os

import pytest

from firmware.board.pc.simulator import write_in
from firmware.cli import main


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
