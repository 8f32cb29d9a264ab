"""The card's first boot: ``cribbage-board first-boot`` (:func:`first_boot`).

``cribbage-board.toml`` on the image's FAT partition holds the board's sections and ``[system]``,
``[wifi]`` and ``[ssh]``. :func:`read_card` checks it whole, :func:`apply` writes what it says under
a root folder and returns the commands to run; then the file is overwritten and removed, and a note
without secrets is left. A file with a mistake changes nothing: the mistake is written beside it.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hardware.tomlfile import TomlFileError, read_toml
from ledger.files import replace_durably, sync_folder
from scorer.errors import CribbageBoardError

from ..config import load_config
from ..config_files import toml_value
from ..errors import ConfigError

CARD_FILE = "cribbage-board.toml"
ERROR_FILE = "cribbage-board-error.txt"
APPLIED_FILE = "cribbage-board-applied.txt"
SYSTEM_SECTIONS = ("system", "wifi", "ssh")
HOSTNAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
USER = re.compile(r"[a-z_][a-z0-9_-]{0,30}")
SSH_KEY = re.compile(r"(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com"
                     r"|sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/=]{40,} ?[ -~]{0,200}")
COUNTRY = re.compile(r"[A-Z]{2}")
ZONEINFO = Path("/usr/share/zoneinfo")
RESERVED_USERS = ("root", "cribbage", "cribbage-web", "nobody", "daemon", "sshd")


class FirstBootError(CribbageBoardError, ValueError):
    """The card's file cannot be applied; the message says what to mend."""


@dataclass(frozen=True)
class CardSettings:
    """What the card's file asks for, checked."""

    board: dict = field(default_factory=dict)
    hostname: str = ""
    timezone: str = ""
    wifi_name: str = ""
    wifi_password: str = ""
    wifi_country: str = ""
    ssh_user: str = "pi"
    ssh_keys: tuple[str, ...] = ()

    def summary(self) -> list[str]:
        """What was set, in words, with no secret."""
        lines = []
        if self.board:
            lines.append("board: " + ", ".join(f"[{name}]" for name in self.board) + " in /etc/cribbage-board/config.toml")
        if self.hostname:
            lines.append(f"hostname: {self.hostname} (http://{self.hostname}.local:8121/ for the web view)")
        if self.timezone:
            lines.append(f"time zone: {self.timezone}")
        if self.wifi_name:
            lines.append(f"Wi-Fi: {self.wifi_name!r}, country {self.wifi_country}")
        if self.ssh_keys:
            lines.append(f"SSH: on, user {self.ssh_user}, {len(self.ssh_keys)} key(s)")
        else:
            lines.append("SSH: off (no key given)")
        return lines


def _text(table: dict, section: str, key: str, pattern: re.Pattern | None = None, most: int = 200) -> str:
    value = table.get(key, "")
    if not isinstance(value, str):
        raise FirstBootError(f"[{section}] {key}: give text in quotes")
    if len(value) > most or not value.isprintable():
        raise FirstBootError(f"[{section}] {key}: give at most {most} printable characters")
    if value and pattern is not None and not pattern.fullmatch(value):
        raise FirstBootError(f"[{section}] {key}: {value!r} is not allowed here")
    return value


def _section(data: dict, name: str, keys: tuple[str, ...]) -> dict:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise FirstBootError(f"[{name}] must be a section")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise FirstBootError(f"[{name}] has no key {unknown[0]!r}; it takes {', '.join(keys)}")
    return table


def check_card(data: dict, zoneinfo: Path = ZONEINFO) -> CardSettings:
    """The card file's table, checked whole: the board's sections as the board reads them."""
    system = _section(data, "system", ("hostname", "timezone"))
    wifi = _section(data, "wifi", ("name", "password", "country"))
    ssh = _section(data, "ssh", ("user", "authorized_keys"))
    hostname = _text(system, "system", "hostname", HOSTNAME, 63)
    timezone = _text(system, "system", "timezone", re.compile(r"[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*"), 64)
    if timezone and not (zoneinfo / timezone).is_file():
        raise FirstBootError(f"[system] timezone: {timezone!r} is not a time zone; give one such as Europe/London")
    name = _text(wifi, "wifi", "name", most=32)
    password = _text(wifi, "wifi", "password", most=63)
    country = _text(wifi, "wifi", "country", COUNTRY, 2)
    if name and not country:
        raise FirstBootError("[wifi] country: give the two letters of the country the board is in, such as GB")
    if password and not 8 <= len(password) <= 63:
        raise FirstBootError("[wifi] password: a WPA password has 8 to 63 characters (or leave it empty for an open network)")
    if password and not name:
        raise FirstBootError("[wifi] name: give the network's name with its password")
    user = _text(ssh, "ssh", "user", USER, 31) or "pi"
    if user in RESERVED_USERS:
        raise FirstBootError(f"[ssh] user: {user!r} is taken; choose another name")
    keys = ssh.get("authorized_keys", [])
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys) or len(keys) > 16:
        raise FirstBootError("[ssh] authorized_keys: give up to 16 public keys as a list of texts")
    for key in keys:
        if not SSH_KEY.fullmatch(key.strip()):
            raise FirstBootError(f"[ssh] authorized_keys: {key[:30]!r}... is not an SSH public key (a line of id_ed25519.pub)")
    board = {name: table for name, table in data.items() if name not in SYSTEM_SECTIONS}
    _check_board(board)
    return CardSettings(board, hostname, timezone, name, password, country, user,
                        tuple(key.strip() for key in keys))


def board_toml(board: dict) -> str:
    """The board's sections as a config file."""
    lines = ["# Written at the first boot from the card's cribbage-board.toml; edit it here now.",
             "# Every key, what it does and its default: /opt/cribbage-board/venv/lib/python3*/"
             "site-packages/firmware/default-config.toml"]
    top = {key: value for key, value in board.items() if not isinstance(value, dict)}
    lines += [f"{key} = {toml_value(value)}" for key, value in top.items()]
    for name, table in board.items():
        if isinstance(table, dict):
            lines += ["", f"[{name}]", *(f"{key} = {toml_value(value)}" for key, value in table.items())]
    return "\n".join(lines) + "\n"


def _check_board(board: dict) -> None:
    """The board's part as the board will read it: a config file it would start with."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        try:
            path.write_text(board_toml(board), encoding="utf-8")
        except (TypeError, ValueError) as error:
            raise FirstBootError(f"a board setting cannot be written: {error}") from None
        try:
            load_config(path)
        except ConfigError as error:
            raise FirstBootError(str(error).replace(str(path), CARD_FILE)) from None


def wifi_psk(name: str, password: str) -> str:
    """WPA's pre-shared key for ``password`` on network ``name``, as wpa_passphrase makes it."""
    return hashlib.pbkdf2_hmac("sha1", password.encode(), name.encode(), 4096, 32).hex()


def wpa_supplicant_conf(settings: CardSettings) -> str:
    """wpa_supplicant's file for the card's network: the name in hex, the password as its key only."""
    lines = ["ctrl_interface=DIR=/run/wpa_supplicant", "update_config=0", f"country={settings.wifi_country}",
             "network={", f"    ssid={settings.wifi_name.encode().hex()}"]
    if settings.wifi_password:
        lines += ["    key_mgmt=WPA-PSK", f"    psk={wifi_psk(settings.wifi_name, settings.wifi_password)}"]
    else:
        lines.append("    key_mgmt=NONE")
    return "\n".join(lines + ["}"]) + "\n"


def _write(path: Path, text: str, mode: int | None = 0o644) -> None:
    """``text`` as the whole of ``path``, durably, its folder made if need be (``mode`` None: the mount's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_durably(path, text.encode("utf-8"), mode)


def apply(settings: CardSettings, root: Path) -> list[list[str]]:
    """Write the settings' files under ``root`` (``/`` on the Pi); the commands still to run, in order."""
    etc = root / "etc"
    commands: list[list[str]] = []
    if settings.board:
        _write(etc / "cribbage-board/config.toml", board_toml(settings.board))
    if "club" in settings.board:  # the board's unit may reach the club's broker: its drop-in, loaded before it starts
        commands += [["/opt/cribbage-board/venv/bin/cribbage-board", "club-network"], ["systemctl", "daemon-reload"]]
    if settings.hostname:
        _write(etc / "hostname", settings.hostname + "\n")
        hosts = etc / "hosts"
        kept = [line for line in (hosts.read_text().splitlines() if hosts.exists() else ["127.0.0.1\tlocalhost"])
                if not line.startswith("127.0.1.1")]
        _write(hosts, "\n".join(kept + [f"127.0.1.1\t{settings.hostname}"]) + "\n")
        commands.append(["hostname", settings.hostname])
    if settings.timezone:
        localtime = etc / "localtime"
        localtime.unlink(missing_ok=True)
        localtime.symlink_to(f"../usr/share/zoneinfo/{settings.timezone}")
        _write(etc / "timezone", settings.timezone + "\n")
    if settings.wifi_name:
        _write(etc / "wpa_supplicant/wpa_supplicant-wlan0.conf", wpa_supplicant_conf(settings), 0o600)
        commands += [["systemctl", "enable", "wpa_supplicant@wlan0.service"],
                     ["systemctl", "start", "--no-block", "wpa_supplicant@wlan0.service"]]
    if settings.ssh_keys:
        user = settings.ssh_user
        _write(etc / f"sudoers.d/cribbage-board-{user}", f"{user} ALL=(ALL) NOPASSWD: ALL\n", 0o440)
        commands.append(["useradd", "--create-home", "--shell", "/bin/bash", "--groups", "sudo,gpio,i2c,spi", user])
    return commands


def ssh_on(settings: CardSettings, root: Path) -> list[list[str]]:
    """The user's authorized_keys written (after :func:`apply`'s commands made the user); the commands that
    then turn SSH on: host keys of this card's own, and the service."""
    if not settings.ssh_keys:
        return []
    home = root / "home" / settings.ssh_user
    _write(home / ".ssh/authorized_keys", "\n".join(settings.ssh_keys) + "\n", 0o600)
    return [["chown", "-R", f"{settings.ssh_user}:{settings.ssh_user}", str(home / ".ssh")],
            ["chmod", "0700", str(home / ".ssh")],
            ["ssh-keygen", "-A"],
            ["systemctl", "enable", "ssh.service"],
            ["systemctl", "start", "--no-block", "ssh.service"]]


def read_card(path: Path, zoneinfo: Path = ZONEINFO) -> CardSettings:
    """The card's file, read and checked (time zones against ``zoneinfo``)."""
    try:
        data = read_toml(path, "the card's file")
    except TomlFileError as error:
        raise FirstBootError(str(error)) from None
    return check_card(data, zoneinfo)


def remove_card_file(path: Path) -> None:
    """Overwrite the file (its secrets) on the card, then remove it."""
    size = path.stat().st_size
    with open(path, "r+b") as out:
        out.write(b"\0" * size)
        out.flush()
        os.fsync(out.fileno())
    path.unlink()
    sync_folder(path.parent)


def write_note(boot: Path, name: str, lines: list[str]) -> None:
    """A short file for the builder on the card's FAT partition (its permissions are the mount's)."""
    _write(boot / name, "\r\n".join(lines) + "\r\n", None)


def first_boot(boot: Path, root: Path = Path("/"), run=None) -> int:
    """Apply the card's file from ``boot`` (the FAT partition), if there is one; 0 done or nothing to do,
    1 the file has a mistake (written beside it: nothing changed) or a step failed (said the same way)."""
    import subprocess

    run = run or (lambda command: subprocess.run(command, check=False).returncode)
    card = boot / CARD_FILE
    if not card.exists():
        return 0
    try:
        settings = read_card(card, root / ZONEINFO.relative_to("/"))
    except FirstBootError as error:
        message = f"{CARD_FILE}: {error}"
        write_note(boot, ERROR_FILE, [message, "Nothing was changed. Mend the file on any computer, then boot again."])
        print(message, flush=True)
        return 1
    failed = [" ".join(command) for command in apply(settings, root) if run(command) != 0]
    failed += [" ".join(command) for command in ssh_on(settings, root) if run(command) != 0]  # after the user exists
    remove_card_file(card)
    (boot / ERROR_FILE).unlink(missing_ok=True)
    lines = [f"{CARD_FILE} was applied at the first boot and removed from the card (its secrets with it):",
             *settings.summary()]
    if failed:
        lines.append("These steps failed (see journalctl -u cribbage-board-first-boot): " + "; ".join(failed))
    write_note(boot, APPLIED_FILE, lines)
    for line in lines:
        print(line, flush=True)
    return 1 if failed else 0
