"""The Pi image's first boot: the card's cribbage-board.toml read, checked whole, applied, removed.

The boot on emulated Pi hardware is tests/system/test-pi-image.sh; these run ``first_boot`` on folders
standing for the FAT partition and the root, with the commands it runs recorded, not run.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from firmware.cli.first_boot import (
    APPLIED_FILE,
    CARD_FILE,
    ERROR_FILE,
    FirstBootError,
    board_toml,
    check_card,
    first_boot,
    read_card,
    wifi_psk,
    wpa_supplicant_conf,
)
from firmware.config import load_config

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "systemd" / "image" / "cribbage-board.toml"
IMAGE_CONFIG = ROOT / "systemd" / "image" / "config.txt"
INSTALL = ROOT / "systemd" / "install.sh"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFx3p0c0mTT0rLrN0cWmJgZq2Q7bZ8Xx3yQH6kq7Q0aZ me@laptop"
CARD = f"""
[system]
hostname = "pub-board"
timezone = "Europe/London"

[wifi]
name = "The Crown"
password = "fifteen-two"
country = "GB"

[ssh]
user = "ann"
authorized_keys = ["{KEY}"]

[game]
players = ["Ann", "Bob"]
variant = "five-card"

[leds]
max_brightness = 0.3
"""


@pytest.fixture
def zones(tmp_path):
    """A zoneinfo folder with Europe/London and Etc/UTC."""
    folder = tmp_path / "zoneinfo"
    for zone in ("Europe/London", "Etc/UTC"):
        (folder / zone).parent.mkdir(parents=True, exist_ok=True)
        (folder / zone).write_bytes(b"TZif2")
    return folder


@pytest.fixture
def card(tmp_path):
    """(the FAT partition's folder, the root's folder) with the card's file and a time zone in the root."""
    boot, root = tmp_path / "boot", tmp_path / "root"
    boot.mkdir()
    (root / "usr/share/zoneinfo/Europe").mkdir(parents=True)
    (root / "usr/share/zoneinfo/Europe/London").write_bytes(b"TZif2")
    (root / "usr/share/zoneinfo/Etc").mkdir()
    (root / "usr/share/zoneinfo/Etc/UTC").write_bytes(b"TZif2")
    (root / "etc").mkdir()
    (root / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\tcribbage-board\n")
    (boot / CARD_FILE).write_text(CARD)
    return boot, root


def run_recorded(boot: Path, root: Path, fails: tuple[str, ...] = ()) -> tuple[int, list[list[str]]]:
    ran: list[list[str]] = []

    def run(command: list[str]) -> int:
        ran.append(command)
        return 1 if command[0] in fails else 0

    return first_boot(boot, root, run), ran


def test_the_card_is_applied_and_removed_with_its_secrets(card):
    """The board's sections become the board's config, the system's settings their files; the file is
    gone from the card and the note left in its place holds no password or key."""
    boot, root = card
    status, ran = run_recorded(boot, root)
    assert status == 0
    assert not (boot / CARD_FILE).exists() and not (boot / ERROR_FILE).exists()
    note = (boot / APPLIED_FILE).read_text()
    assert "pub-board" in note and "Europe/London" in note and "The Crown" in note and "user ann" in note
    assert "fifteen-two" not in note and "AAAAC3" not in note
    config = load_config(root / "etc/cribbage-board/config.toml")
    assert config.game.players == ("Ann", "Bob") and config.game.variant == "five-card"
    assert config.leds.max_brightness == 0.3
    assert (root / "etc/hostname").read_text() == "pub-board\n"
    assert (root / "etc/hosts").read_text().splitlines() == ["127.0.0.1\tlocalhost", "127.0.1.1\tpub-board"]
    assert (root / "etc/timezone").read_text() == "Europe/London\n"
    assert str((root / "etc/localtime").readlink()) == "../usr/share/zoneinfo/Europe/London"
    wpa = root / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
    assert wpa.stat().st_mode & 0o777 == 0o600 and "fifteen-two" not in wpa.read_text()
    assert f"psk={wifi_psk('The Crown', 'fifteen-two')}" in wpa.read_text()
    assert (root / "home/ann/.ssh/authorized_keys").read_text() == KEY + "\n"
    assert (root / "home/ann/.ssh/authorized_keys").stat().st_mode & 0o777 == 0o600
    assert (root / "etc/sudoers.d/cribbage-board-ann").stat().st_mode & 0o777 == 0o440
    names = [" ".join(command[:3]) for command in ran]
    assert "hostname pub-board" in names
    assert names.index("useradd --create-home --shell") < names.index("ssh-keygen -A")
    assert ["systemctl", "enable", "ssh.service"] in ran
    assert ["systemctl", "enable", "wpa_supplicant@wlan0.service"] in ran


def test_a_mistake_changes_nothing_and_is_said_beside_the_file(card):
    """A value no board takes: the file stays for the builder to mend, the mistake in one line beside it."""
    boot, root = card
    (boot / CARD_FILE).write_text(CARD.replace('variant = "five-card"', 'variant = "chess"'))
    status, ran = run_recorded(boot, root)
    assert status == 1 and ran == []
    assert (boot / CARD_FILE).exists()
    said = (boot / ERROR_FILE).read_text().splitlines()
    assert said[0].startswith(f"{CARD_FILE}: ") and "variant" in said[0] and "chess" in said[0]
    assert "Nothing was changed" in said[1]
    assert not (root / "etc/hostname").exists() and not (root / "etc/cribbage-board").exists()


def test_once_mended_it_applies_and_the_old_mistake_goes(card):
    boot, root = card
    (boot / CARD_FILE).write_text(CARD.replace('country = "GB"', 'country = "gb"'))
    assert run_recorded(boot, root)[0] == 1
    (boot / CARD_FILE).write_text(CARD)
    assert run_recorded(boot, root)[0] == 0
    assert not (boot / ERROR_FILE).exists() and (boot / APPLIED_FILE).exists()


def test_no_card_file_is_nothing_to_do(tmp_path):
    assert run_recorded(tmp_path, tmp_path) == (0, [])


def test_a_step_that_fails_is_said_in_the_note(card):
    boot, root = card
    status, _ = run_recorded(boot, root, fails=("ssh-keygen",))
    assert status == 1
    assert "These steps failed" in (boot / APPLIED_FILE).read_text() and "ssh-keygen -A" in (boot / APPLIED_FILE).read_text()
    assert not (boot / CARD_FILE).exists()  # the secrets are gone all the same


@pytest.mark.parametrize("change, words", [
    (("hostname = \"pub-board\"", "hostname = \"Pub_Board\""), "[system] hostname"),
    (("hostname = \"pub-board\"", "hostname = 7"), "[system] hostname: give text"),
    (("timezone = \"Europe/London\"", "timezone = \"../../../etc/passwd\""), "[system] timezone"),
    (("timezone = \"Europe/London\"", "timezone = \"Mars/Olympus\""), "not a time zone"),
    (("password = \"fifteen-two\"", "password = \"short\""), "8 to 63 characters"),
    (("country = \"GB\"", "country = \"\""), "[wifi] country"),
    (("name = \"The Crown\"", "name = \"\""), "[wifi] name"),
    (("user = \"ann\"", "user = \"root\""), "is taken"),
    ((f'"{KEY}"', '"my password"'), "is not an SSH public key"),
    (("[wifi]", "[wifi]\nssid = \"x\""), "[wifi] has no key 'ssid'"),
    (("players = [\"Ann\", \"Bob\"]", "players = [\"Ann\"]"), "players"),
    (("[system]", "[system]\nhostname2 = 1\n"), "[system] has no key"),
])
def test_each_mistake_is_one_line_naming_what_to_mend(change, words, zones):
    old, new = change
    assert old in CARD
    with pytest.raises(FirstBootError) as raised:
        check_card(tomllib.loads(CARD.replace(old, new, 1)), zones)
    message = str(raised.value)
    assert words in message and "\n" not in message and "Traceback" not in message


def test_the_shipped_card_file_is_valid_and_asks_for_no_ssh(tmp_path, zones):
    """The file the image ships reads as is: a hostname, a time zone, no Wi-Fi, SSH off, the board's game."""
    settings = read_card(TEMPLATE, zones)
    assert settings.hostname == "cribbage-board" and settings.timezone == "Etc/UTC"
    assert settings.wifi_name == "" and settings.ssh_keys == ()
    assert "SSH: off (no key given)" in settings.summary()
    path = tmp_path / "config.toml"
    path.write_text(board_toml(settings.board))
    assert load_config(path).game.variant == "six-card"


def test_wifi_key_is_wpa_passphrase_s():
    """IEEE 802.11i's test vector (passphrase "password", SSID "IEEE"), as wpa_passphrase gives it."""
    assert wifi_psk("IEEE", "password") == "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e"


def test_an_open_network_has_no_key(zones):
    settings = check_card({"wifi": {"name": "Club Guest", "country": "IE"}}, zones)
    text = wpa_supplicant_conf(settings)
    assert "key_mgmt=NONE" in text and "psk" not in text and f"ssid={b'Club Guest'.hex()}" in text


def test_the_image_holds_the_core_clock_as_install_sh_does():
    """systemd/image/config.txt's [pi3], [pi02] and [pi4] lines are install.sh's core_clock_lines for those models."""
    sections: dict[str, list[str]] = {}
    current = ""
    for line in IMAGE_CONFIG.read_text().splitlines():
        if re.fullmatch(r"\[\w+\]", line):
            current = line.strip("[]")
        elif line and not line.startswith("#"):
            sections.setdefault(current, []).append(line)
    models = {"pi3": "Raspberry Pi 3 Model B Rev 1.2", "pi02": "Raspberry Pi Zero 2 W Rev 1.0",
              "pi4": "Raspberry Pi 4 Model B Rev 1.5"}
    for section, model in models.items():
        said = subprocess.run(["bash", "-c", f'source "{INSTALL}"; core_clock_lines "$1"', "-", model],
                              capture_output=True, text=True, check=True).stdout.split()
        assert sections[section] == said, section
    assert {"dtoverlay=cribbage-board", "dtparam=spi=on", "dtparam=i2c_arm=on"} <= set(sections["all"])


def test_a_club_gets_the_board_s_network_drop_in_before_the_board_starts(card):
    """[club] on the card: club-network writes the unit's drop-in, and systemd reloads it before the board starts."""
    boot, root = card
    (boot / CARD_FILE).write_text(CARD + '\n[club]\nbroker = "mqtt://192.168.1.20:1883"\nname = "riverside"\ntable = 3\n')
    status, ran = run_recorded(boot, root)
    assert status == 0
    at = ran.index(["/opt/cribbage-board/venv/bin/cribbage-board", "club-network"])
    assert ran[at + 1] == ["systemctl", "daemon-reload"]
    assert load_config(root / "etc/cribbage-board/config.toml").club.table == "3"
