"""A ledger in RAM is said (issue 30, item 3): tmpfs, ramfs, an overlay over one (Raspberry Pi
OS's Overlay File System), in one line from the board, the console and the hub; the game goes on."""

import subprocess
import sys
from pathlib import Path

import pytest

from firmware.hub.ledger import HubLedger
from ledger.memory import memory_cause, memory_warning, mount_of, parse_mountinfo
from ledger.writer import LedgerWriter

ROOT = Path(__file__).resolve().parent.parent

DISK = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683792k
27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/mmcblk0p2 rw,discard
29 27 0:40 / /run rw,nosuid - tmpfs tmpfs rw,mode=755
30 27 0:41 / /home/pi/ram\\040disk rw - ramfs ramfs rw
31 27 179:1 / /boot/firmware rw,relatime - vfat /dev/mmcblk0p1 rw
"""

# Raspberry Pi OS with the Overlay File System on (raspi-config, Performance Options): the root is an
# overlay whose upper layer is the tmpfs at /media/root-rw.
OVERLAY_ROOT = """\
22 1 0:5 / /proc rw - proc proc rw
19 1 0:20 / /media/root-rw rw,relatime - tmpfs tmpfs-root rw
20 1 179:2 / /media/root-ro ro,relatime - ext4 /dev/mmcblk0p2 ro
1 0 0:21 / / rw,relatime - overlay overlayroot rw,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay,workdir=/media/root-rw/overlay-workdir
"""

# A container's root: an overlay whose upper layer is on the host's disk, out of sight.
CONTAINER = """\
600 500 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/l/A,upperdir=/var/lib/docker/d/diff,workdir=/var/lib/docker/d/work
"""


def test_the_mount_that_holds_a_path_is_the_longest_point_above_it():
    mounts = parse_mountinfo(DISK)
    assert mount_of("/home/pi/.local/state/cribbage-board/ledger.sqlite3", mounts).fstype == "ext4"
    assert mount_of("/dev/shm/ledger.sqlite3", mounts).fstype == "tmpfs"
    assert mount_of("/dev/shmx/ledger.sqlite3", mounts).fstype == "ext4"  # a point is a whole name
    assert mount_of("/home/pi/ram disk/l.sqlite3", mounts).fstype == "ramfs"  # \040 is a space
    assert mount_of("/", mounts).fstype == "ext4"


@pytest.mark.parametrize("mountinfo, cmdline, path, cause", [
    (DISK, "", "/home/pi/l.sqlite3", None),
    (DISK, "", "/dev/shm/l.sqlite3", "tmpfs"),
    (DISK, "", "/run/cribbage/l.sqlite3", "tmpfs"),
    (DISK, "", "/home/pi/ram disk/l.sqlite3", "ramfs"),
    (DISK, "", "/boot/firmware/l.sqlite3", None),
    (OVERLAY_ROOT, "console=tty1 overlayroot=tmpfs root=PARTUUID=1", "/home/pi/l.sqlite3", "upper layer is tmpfs"),
    (OVERLAY_ROOT.replace("19 1 0:20 / /media/root-rw", "19 1 0:20 / /elsewhere"),  # the upper layer out of sight
     "console=tty1 overlayroot=tmpfs", "/home/pi/l.sqlite3", "overlayroot=tmpfs"),
    (CONTAINER, "", "/tmp/l.sqlite3", None),
    (DISK + "40 27 0:60 / /home/pi/s rw - overlay overlay rw,lowerdir=/a,upperdir=/dev/shm/up,workdir=/dev/shm/w\n",
     "", "/home/pi/s/l.sqlite3", "upper layer is tmpfs"),
])
def test_a_folder_in_memory_is_told_from_one_on_a_disk(mountinfo, cmdline, path, cause):
    found = memory_cause(path, parse_mountinfo(mountinfo), cmdline)
    if cause is None:
        assert found is None
    else:
        assert found is not None and cause in found


def test_the_warning_is_one_line_that_says_what_is_lost_and_what_to_do(tmp_path):
    mountinfo, cmdline = tmp_path / "mountinfo", tmp_path / "cmdline"
    mountinfo.write_text(DISK)
    cmdline.write_text("console=tty1\n")
    said = memory_warning("/dev/shm/cribbage/ledger.sqlite3", mountinfo, cmdline)  # a folder not made yet
    assert said is not None and "\n" not in said
    assert "lost at power-off" in said and "tmpfs" in said and "/dev/shm/cribbage/ledger.sqlite3" in said
    assert "--state" in said
    assert memory_warning("/home/pi/ledger.sqlite3", mountinfo, cmdline) is None
    assert memory_warning("/dev/shm/l.sqlite3", tmp_path / "missing", cmdline) is None  # not Linux: nothing said
    mountinfo.write_bytes(b"\xff\xfe garbage\n" + DISK.encode())  # bytes that are not text: read as they are
    assert memory_warning("/dev/shm/l.sqlite3", mountinfo, cmdline) is not None


SHM = Path("/dev/shm")
on_tmpfs = pytest.mark.skipif(
    not SHM.is_dir() or memory_warning(SHM / "probe") is None, reason="/dev/shm is not a tmpfs here")


@on_tmpfs
def test_the_board_ledger_and_the_hub_ledger_in_ram_say_so_and_still_write(tmp_path):
    folder = Path(subprocess.check_output(["mktemp", "-d", "-p", str(SHM)], text=True).strip())
    try:
        with LedgerWriter(folder / "ledger.sqlite3") as store:
            assert store.in_memory and store.in_memory in store.messages
            from scorer.record import parse_line
            store.apply(parse_line("game six-card seats=A,B"))
            store.apply(parse_line("peg A 3"))
        with LedgerWriter(tmp_path / "ledger.sqlite3") as store:  # a disk here: nothing said
            assert store.in_memory is None and store.messages == []
        with HubLedger(folder / "hub.sqlite3") as hub:
            assert hub.in_memory and any("lost at power-off" in m for m in hub.messages)
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=True)


@on_tmpfs
def test_the_console_says_a_ledger_in_ram_in_one_line_and_the_game_goes_on():
    folder = Path(subprocess.check_output(["mktemp", "-d", "-p", str(SHM)], text=True).strip())
    try:
        result = subprocess.run(
            [sys.executable, "-m", "firmware.cli", "console", "--state", str(folder / "l.sqlite3")],
            input="game six-card seats=A,B\npeg A 3\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=True)
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stdout.splitlines() if "lost at power-off" in line]
    assert len(said) == 1 and said[0].startswith("! ledger ") and "tmpfs" in said[0]
    assert "ok: A peg 3" in result.stdout and "Traceback" not in result.stderr


@on_tmpfs
def test_the_board_says_it_at_start_and_keeps_ram_on_the_oleds_status(tmp_path):
    """The mock board on a ledger in /dev/shm: the whole line on the OLED at start, then "RAM!"
    stays on the status line while the game goes on; on a disk, neither."""
    from firmware.board.pc.simulator import Simulator
    from firmware.config import load_config

    folder = Path(subprocess.check_output(["mktemp", "-d", "-p", str(SHM)], text=True).strip())
    try:
        sim = Simulator(load_config(), folder / "l.sqlite3")
        try:
            controller = sim.board.controller
            assert "lost at power-off" in controller.footer.message and controller.footer.alert
            sim.act("turn", "3")
            sim.act("click", "red")  # the game goes on: pegged and written
            assert controller.game.state.scores[0] == 3
            screen = controller.screen()
            assert screen.lines[0].startswith("RAM! ") and "deal 1" in screen.lines[0]
        finally:
            sim.close()
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=True)
    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        assert "RAM!" not in sim.board.controller.screen().lines[0]
        assert "power-off" not in sim.board.controller.footer.message
    finally:
        sim.close()
