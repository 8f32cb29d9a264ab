"""``cribbage-board club-network``: the installed board's unit may reach its club's broker, and nothing else."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.cli.club_network import allowed, club_network, drop_in_text, name_servers
from firmware.config import load_config

from broker import environment

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "cribbage-board.service"


def club(broker: str):
    return load_config(None, [f"club.broker={broker}", "club.name=thursday", "club.table=3"]).club


def settings(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "firmware.cli", "club-network", *args], capture_output=True,
                          text=True, env=environment(), cwd=ROOT, timeout=60)


def test_a_broker_by_address_opens_the_network_to_that_address_only(tmp_path):
    """[club] broker = mqtt://192.168.1.20:1883: the drop-in gives the board the internet families and
    allows that one address, denying every other; the command says so in one line."""
    drop_in = tmp_path / "cribbage-board.service.d" / "club.conf"
    done = run("--drop-in", str(drop_in), "--set", "club.broker=mqtt://192.168.1.20:1883", "--set",
               "club.name=thursday", "--set", "club.table=3")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.count("\n") == 1 and "may reach mqtt://192.168.1.20:1883 (192.168.1.20)" in done.stdout
    lines = settings(drop_in.read_text())
    assert lines == {"PrivateNetwork": ["no"], "RestrictAddressFamilies": ["AF_UNIX AF_INET AF_INET6"],
                     "IPAddressDeny": ["any"], "IPAddressAllow": ["localhost 192.168.1.20"]}
    again = run("--drop-in", str(drop_in), "--set", "club.broker=mqtt://192.168.1.20:1883", "--set",
                "club.name=thursday", "--set", "club.table=3")
    assert again.returncode == 0 and "already" in again.stdout


@pytest.mark.slow
def test_the_club_off_removes_the_drop_in_and_a_bad_name_is_one_line(tmp_path):
    drop_in = tmp_path / "club.conf"
    drop_in.write_text("[Service]\nPrivateNetwork=no\n")
    off = run("--drop-in", str(drop_in))
    assert off.returncode == 0 and not drop_in.exists() and "removed" in off.stdout
    assert run("--drop-in", str(drop_in)).returncode == 0
    bad = run("--drop-in", str(drop_in), "--set", "club.broker=mqtt://no-such-host.invalid", "--set",
              "club.name=thursday", "--set", "club.table=3")
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
    assert "cannot be resolved" in bad.stderr and "IP address" in bad.stderr and not drop_in.exists()


def test_a_broker_by_name_allows_its_addresses_and_the_name_servers_that_find_it():
    resolv = "# generated\nnameserver 192.168.1.1\nnameserver fe80::1%eth0\nsearch lan\n"
    assert name_servers(resolv) == ["192.168.1.1", "fe80::1"]
    addresses, servers = allowed(club("mqtt://director.lan"), lambda host, port: ["192.168.1.20", "fd00::20"],
                                 resolv)
    assert addresses == ["192.168.1.20", "fd00::20"] and servers == ["192.168.1.1", "fe80::1"]
    text = drop_in_text(club("mqtt://director.lan"), "config.toml", addresses, servers)
    assert settings(text)["IPAddressAllow"] == ["localhost 192.168.1.20 fd00::20", "192.168.1.1 fe80::1"]
    assert allowed(club("mqtt://localhost:1883"), lambda *a: pytest.fail("no lookup"), resolv) == (["localhost"], [])
    assert allowed(club("mqtts://[fd00::20]:8883"), lambda *a: pytest.fail("no lookup"), resolv) == (["fd00::20"], [])


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_the_unit_with_the_drop_in_still_verifies_and_its_exposure_is_reported(tmp_path):
    """systemd-analyze security --offline over a root with the unit: 1.0 alone, more with the club's
    drop-in (the network is what the club needs), and never over 2.0."""
    system = tmp_path / "etc" / "systemd" / "system"
    system.mkdir(parents=True)
    shutil.copy(UNIT, system / UNIT.name)

    def exposure() -> float:
        result = subprocess.run(["systemd-analyze", "security", "--offline=yes", f"--root={tmp_path}", UNIT.name],
                                capture_output=True, text=True, timeout=60)
        line = next(ln for ln in result.stdout.splitlines() if "Overall exposure level" in ln)
        return float(line.split(":")[1].split()[0])

    alone = exposure()
    print(club_network(club("mqtt://192.168.1.20"), "config.toml", system / "cribbage-board.service.d" / "club.conf"))
    joined = exposure()
    assert alone <= 1.0 < joined <= 2.0, (alone, joined)
