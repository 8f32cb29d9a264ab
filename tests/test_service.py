"""The systemd unit (verified, no warnings) and the sd_notify helper (against a socket)."""

import os
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import pytest

from firmware.board.sdnotify import Notifier

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "cribbage-board.service"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_unit_verifies_without_any_warning(tmp_path):
    """systemd-analyze verify passes with empty output (ExecStart pointed at a stand-in)."""
    fake = tmp_path / "opt" / "cribbage-board" / "venv" / "bin" / "cribbage-board"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    unit = tmp_path / "cribbage-board.service"
    unit.write_text(UNIT.read_text().replace("/opt/cribbage-board", str(tmp_path / "opt" / "cribbage-board")))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""


def test_unit_settings():
    """Type=notify, a watchdog, restart on failure, a dedicated user with the device groups, state dir."""
    lines = {line.split("=", 1)[0]: line.split("=", 1)[1] for line in UNIT.read_text().splitlines()
             if "=" in line and not line.startswith("#")}
    assert lines["Type"] == "notify" and lines["Restart"] == "on-failure"
    assert int(lines["WatchdogSec"]) > 0
    assert lines["User"] == "cribbage" and set(lines["SupplementaryGroups"].split()) == {"gpio", "i2c", "spi"}
    assert lines["StateDirectory"] == "cribbage-board"
    assert "--backend real" in lines["ExecStart"]


def test_lgpio_gets_a_writable_work_folder():
    """lgpio makes its edge FIFOs in LG_WD: the unit points it at a runtime folder of its own,
    since the unit's / is read-only (ProtectSystem=strict) and the buttons would fail there."""
    lines = [line for line in UNIT.read_text().splitlines() if "=" in line and not line.startswith("#")]
    assert "ProtectSystem=strict" in lines
    assert "RuntimeDirectory=cribbage-board" in lines and "RuntimeDirectoryMode=0700" in lines
    assert "Environment=LG_WD=/run/cribbage-board" in lines


def test_install_script_is_valid_bash():
    """The install script parses."""
    subprocess.run(["bash", "-n", str(ROOT / "systemd" / "install.sh")], check=True)


@pytest.fixture
def notify_socket(tmp_path):
    path = tmp_path / "notify"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(60)  # generous: a slow machine (qemu arm64) only waits longer
    try:
        yield path, server
    finally:
        server.close()


def test_sd_notify_sends_ready_watchdog_and_stopping(notify_socket):
    """Messages arrive on $NOTIFY_SOCKET as systemd expects them."""
    path, server = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "30000000",
                         "WATCHDOG_PID": str(os.getpid())})
    assert notifier.enabled and notifier.watchdog_interval == 30.0
    assert notifier.ready("board ready")
    assert server.recv(256) == b"READY=1\nSTATUS=board ready"
    notifier.watchdog()
    assert server.recv(256) == b"WATCHDOG=1"
    notifier.stopping()
    assert server.recv(256) == b"STOPPING=1"
    notifier.close()


def test_sd_notify_is_a_no_op_outside_systemd():
    """Without NOTIFY_SOCKET nothing is sent and nothing fails."""
    notifier = Notifier({})
    assert not notifier.enabled and not notifier.ready() and notifier.watchdog_interval is None


def test_watchdog_for_another_process_is_ignored(notify_socket):
    """WATCHDOG_PID naming another process means the watchdog is not ours."""
    path, _ = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"})
    assert notifier.watchdog_interval is None


@pytest.mark.slow
def test_board_is_ready_then_stops_cleanly_on_sigterm(tmp_path, notify_socket):
    """The board says READY=1 once up, and on SIGTERM says STOPPING=1, closes the ledger and exits 0."""
    import signal
    import sys

    path, server = notify_socket
    env = dict(os.environ, NOTIFY_SOCKET=str(path), WATCHDOG_USEC="2000000")
    env.pop("WATCHDOG_PID", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli", "--backend", "mock", "--headless",
         "--state", str(tmp_path / "ledger.sqlite3")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        messages = [server.recv(256)]
        assert messages[0].startswith(b"READY=1\nSTATUS=board ready: six-card")
        messages.append(server.recv(256))
        assert messages[1] == b"WATCHDOG=1"
        child.send_signal(signal.SIGTERM)
        assert server.recv(256) == b"STOPPING=1"
        out, err = child.communicate(timeout=20)
        assert child.returncode == 0, err
        assert "mock hardware (argument)" in err and "Traceback" not in err
        ledger = tmp_path / "ledger.sqlite3"  # closed cleanly: the lock let go, the -wal folded in
        assert not Path(f"{ledger}.lock").exists() and not Path(f"{ledger}-wal").exists()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


WEB_UNIT = ROOT / "systemd" / "cribbage-board-web.service"


def _settings(unit: Path) -> dict[str, list[str]]:
    """Each key of a unit file with all its values, in order."""
    found: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_web_unit_verifies_without_any_warning(tmp_path):
    """systemd-analyze verify passes the web unit with empty output (ExecStart pointed at a stand-in)."""
    fake = tmp_path / "opt" / "cribbage-board" / "venv" / "bin" / "cribbage-board"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    unit = tmp_path / "cribbage-board-web.service"
    unit.write_text(WEB_UNIT.read_text().replace("/opt/cribbage-board", str(tmp_path / "opt" / "cribbage-board")))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""


def exposure(unit: Path) -> float:
    """The overall exposure ``systemd-analyze security --offline=yes`` gives a unit."""
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(unit)],
                            capture_output=True, text=True, timeout=60)
    line = next(ln for ln in result.stdout.splitlines() if "Overall exposure level" in ln)
    return float(line.split(":")[1].split()[0])


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_units_are_hardened():
    """systemd-analyze security rates the web unit's exposure and the board's 1.0 or lower."""
    assert exposure(WEB_UNIT) <= 1.0
    assert exposure(UNIT) <= 1.0


def test_web_unit_reads_the_ledger_and_reaches_the_network_only():
    """The web unit serves the board's ledger read-only on the config's port: its own user in the board's
    group, no writable state folder, the internet address families and AF_UNIX for the board's socket with
    the system bus out of reach, everything else shut; the board keeps PrivateNetwork, and its files are
    readable by its group and no one else."""
    web, board = _settings(WEB_UNIT), _settings(UNIT)
    assert board["PrivateNetwork"] == ["yes"] and "PrivateNetwork" not in web
    exec_start = web["ExecStart"][0].split()
    assert exec_start[:2] == ["/opt/cribbage-board/venv/bin/cribbage-board", "web"]
    ledger = exec_start[exec_start.index("--state") + 1]
    assert ledger == "/var/lib/cribbage-board/ledger.sqlite3"
    assert "--port" not in exec_start  # the config's web.port, which the board's phone view shows too
    assert web["User"] == ["cribbage-web"] and board["User"] == ["cribbage"]
    assert web["Group"] == board["Group"] == ["cribbage"]
    assert board["StateDirectoryMode"] == ["0750"] and board["UMask"] == ["0027"]  # group: read, others: none
    assert "StateDirectory" not in web and "ReadWritePaths" not in web  # both would make the ledger writable
    assert web["ProtectSystem"] == ["strict"] and "/var/lib/cribbage-board" in web["ReadOnlyPaths"]
    # the network, and one local socket: the board's for paired phones; never the system bus
    assert web["RestrictAddressFamilies"] == ["AF_INET AF_INET6 AF_UNIX"]
    assert web["InaccessiblePaths"] == ["-/run/dbus -/var/run/dbus"]
    for key in ("NoNewPrivileges", "PrivateDevices", "ProtectHome", "PrivateTmp", "RestrictSUIDSGID",
                "ProtectKernelTunables", "ProtectKernelModules", "MemoryDenyWriteExecute", "LockPersonality"):
        assert web[key] == ["yes"], key
    assert web["CapabilityBoundingSet"] == [""] and web["Restart"] == ["on-failure"]
    assert web["IPAddressDeny"] == ["any"] and "localhost" in web["IPAddressAllow"][0].split()
    assert "SupplementaryGroups" not in web and "DeviceAllow" not in web  # no GPIO, I2C or SPI


def test_web_unit_limits_are_explicit():
    """The web unit's own limits: descriptors for 1,100 idle connections and the real ones (systemd's
    default soft limit, 1,024, is not enough), memory, threads."""
    web = _settings(WEB_UNIT)
    assert int(web["LimitNOFILE"][0]) >= 1100 + 1024  # the idle ones, and all the default allowed besides
    assert web["MemoryMax"] == ["160M"] and int(web["TasksMax"][0]) > 0


def web_notice(config: Path) -> subprocess.CompletedProcess:
    """install.sh's web_notice run with this Python (which has the project) on CONFIG."""
    import sys

    script = f'source "{ROOT / "systemd" / "install.sh"}"; web_notice "$1" "$2"'
    return subprocess.run(["bash", "-c", script, "install.sh", sys.executable, str(config)],
                          capture_output=True, text=True, timeout=60)


def test_install_enables_the_web_unit_and_says_how_to_turn_it_off(tmp_path):
    """install.sh copies and enables cribbage-board-web.service and prints the disable command."""
    text = (ROOT / "systemd" / "install.sh").read_text()
    assert 'install -m 0644 "$src/systemd/cribbage-board-web.service" /etc/systemd/system/' in text
    assert text.count("enable cribbage-board.service cribbage-board-web.service") == 2  # a Pi and a chroot
    config = tmp_path / "config.toml"
    config.write_bytes((ROOT / "firmware" / "default-config.toml").read_bytes())
    result = web_notice(config)
    assert result.returncode == 0, result.stderr
    assert ":8121/" in result.stdout
    assert result.stdout.splitlines()[-1] == "To turn it off: sudo systemctl disable --now cribbage-board-web"


def test_install_prints_the_web_address_with_the_configs_port(tmp_path):
    """web_notice reads web.port through the web view's own settings code: 9090 when the config says so,
    8121 when the config has no [web]; install.sh hard-codes no port."""
    from firmware.web.settings import web_settings

    config = tmp_path / "config.toml"
    config.write_text("[leds]\nlayout = \"classic-121\"\n\n[web]\n# the phones' port\nport = 9090\n")
    result = web_notice(config)
    assert result.returncode == 0, result.stderr
    assert web_settings(str(config), None)[2] == 9090
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("The web view"))
    assert line.endswith(":9090/") and "http://" in line
    config.write_text("[display]\nenabled = false\n")
    result = web_notice(config)
    assert result.returncode == 0 and ":8121/" in result.stdout, result.stderr
    code = [line for line in (ROOT / "systemd" / "install.sh").read_text().splitlines()
            if not line.lstrip().startswith("#")]
    assert not any("8121" in line for line in code)


def test_install_says_what_to_fix_when_the_web_port_is_not_one(tmp_path):
    """A web.port that is not a port, or a config that does not read: the settings' line, what to do, status 2."""
    config = tmp_path / "config.toml"
    for text in ("[web]\nport = 70000\n", "[web\nport = 1\n"):
        config.write_text(text)
        result = web_notice(config)
        assert result.returncode == 2 and result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 2 and lines[0].startswith(str(config)) and "Traceback" not in result.stderr
        assert lines[1] == f"install.sh: fix {config} as the line above says, then: sudo systemctl restart cribbage-board-web"


def test_the_port_helper_prints_the_port_or_one_line(tmp_path, capsys):
    """python -m firmware.web.settings --port CONFIG: the port alone; anything else is its usage line, status 2."""
    from firmware.web.settings import main

    config = tmp_path / "config.toml"
    config.write_text("[web]\nport = 8200\n")
    assert main(["--port", str(config)]) == 0 and capsys.readouterr().out == "8200\n"
    for argv in ([], ["--host"], ["--port", str(config), "extra"]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == "usage: python -m firmware.web.settings --port [CONFIG]\n"


def _undo_block(readme: str) -> str:
    """The shell block under systemd/README.md's "### Undo" heading."""
    section = readme.split("### Undo", 1)[1]
    return section.split("```sh", 1)[1].split("```", 1)[0]


def test_service_readme_covers_what_install_sh_installs_and_undo_takes_it_all_back():
    """Every unit install.sh installs and enables, its users and the web port are in systemd/README.md,
    and the README's Undo disables and removes each unit and file and deletes each user install.sh makes."""
    import re

    from firmware.web.settings import web_settings

    script = (ROOT / "systemd" / "install.sh").read_text()
    readme = (ROOT / "systemd" / "README.md").read_text()
    undo = _undo_block(readme)
    enabled = set()
    for line in script.splitlines():
        if re.match(r"\s*systemctl enable ", line):
            enabled |= set(line.split("enable", 1)[1].split("#", 1)[0].split())
    assert enabled == {"cribbage-board.service", "cribbage-board-web.service"}
    installed = set(re.findall(r'^\s*install -m \d+ "\$src/[^"]+" (/etc/\S+)', script, re.M))
    for variable in re.findall(r'^\s*install -m \d+ "\$src/[^"]+" "\$(\w+)"', script, re.M):  # "$polkit_rule"
        installed.add(re.search(rf"^{variable}=(\S+)$", script, re.M).group(1))
    installed |= set(re.findall(r">(/etc/modules-load\.d/\S+)", script))
    assert "/etc/systemd/system/cribbage-board-web.service" in installed
    disable = next(line for line in undo.splitlines() if "systemctl disable --now" in line)
    for unit in enabled:
        name = unit.removesuffix(".service")
        assert f"`{unit}`" in readme and f"journalctl -u {name}" in readme
        assert name in disable.split()
        assert f"/etc/systemd/system/{unit}" in undo
    assert "/etc/modules-load.d/cribbage-board.conf" in installed and "/etc/cribbage-board/config.toml" in installed
    for path in installed - {"/etc/cribbage-board/config.toml"}:
        assert path in undo, path
    assert "/etc/cribbage-board " in undo  # the config with its folder and "sudo rm -r /opt/cribbage-board" in undo
    users = re.findall(r"^(\w+)=(cribbage[\w-]*)$", script, re.M)
    assert dict(users) == {"user": "cribbage", "web_user": "cribbage-web"}
    for _, name in users:
        assert f"userdel {name}" in undo and f"`{name}`" in readme
    assert undo.index("userdel cribbage-web") < undo.index("userdel cribbage ")  # its group is cribbage's
    port = web_settings(str(ROOT / "firmware" / "default-config.toml"), None)[2]
    assert f"`web.port` ({port} by default)" in readme


HUB_UNIT = ROOT / "systemd" / "cribbage-hub.service"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_hub_unit_verifies_and_is_hardened(tmp_path):
    """The club hub's unit: systemd-analyze verify says nothing, its exposure is 1.0 or lower, and
    its only writable place is its own state folder (a dynamic user; the password a credential)."""
    fake = tmp_path / "opt" / "cribbage-board" / "venv" / "bin" / "cribbage-board"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    unit = tmp_path / "cribbage-hub.service"
    unit.write_text(HUB_UNIT.read_text().replace("/opt/cribbage-board", str(tmp_path / "opt" / "cribbage-board")))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "" and result.stdout == "", result.stderr
    assert exposure(HUB_UNIT) <= 1.0
    hub = _settings(HUB_UNIT)
    assert hub["DynamicUser"] == ["yes"] and hub["StateDirectory"] == ["cribbage-hub"]
    assert hub["LoadCredential"] == ["broker-password:/etc/cribbage-board/hub.password"]
    assert "--password-file %d/broker-password" in hub["ExecStart"][0]
    assert "--state /var/lib/cribbage-hub/hub.sqlite3" in hub["ExecStart"][0]


def test_a_filtered_system_call_fails_rather_than_kills():
    """Every shipped unit with a SystemCallFilter sets SystemCallErrorNumber=EPERM: a call outside the
    filter fails that one call, which the program reports, instead of SIGSYS killing the process."""
    units = sorted((ROOT / "systemd").glob("*.service"))
    filtered = {unit.name: _settings(unit) for unit in units if "SystemCallFilter" in _settings(unit)}
    assert {"cribbage-board.service", "cribbage-board-web.service", "cribbage-hub.service"} <= set(filtered)
    assert {name: settings.get("SystemCallErrorNumber") for name, settings in filtered.items()
            if settings.get("SystemCallErrorNumber") != ["EPERM"]} == {}
