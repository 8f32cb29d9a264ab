"""The Pi install: install.sh's boot-file edits on temp files, the polkit rule, the scripts' syntax."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "systemd" / "install.sh"
ARM64 = ROOT / "tests" / "system" / "test-install-arm64.sh"
BOOT_VM = ROOT / "tests" / "system" / "test-boot-vm.sh"
VM_AGENT = ROOT / "tests" / "system" / "vm" / "agent.sh"
DEBIAN_ROOT = ROOT / "tests" / "system" / "debian-root.sh"
KMOD_BUILD = ROOT / "tests" / "system" / "vm" / "kmod" / "build.sh"
CLUB_BROKER = ROOT / "systemd" / "club-broker.sh"
HOME_ASSISTANT = ROOT / "tests" / "system" / "test-home-assistant.sh"
PHONE_AUDIT = ROOT / "tests" / "system" / "test-phone-audit.sh"
BUILD_IMAGE = ROOT / "systemd" / "build-image.sh"
GROW_ROOT = ROOT / "systemd" / "image" / "rootfs" / "usr" / "local" / "sbin" / "cribbage-board-grow-root"
PI_IMAGE = ROOT / "tests" / "system" / "test-pi-image.sh"
PI_CHECK = ROOT / "tests" / "system" / "pi" / "check.sh"
SCRIPTS = (INSTALL, ARM64, BOOT_VM, VM_AGENT, KMOD_BUILD, DEBIAN_ROOT, CLUB_BROKER, HOME_ASSISTANT, PHONE_AUDIT,
           BUILD_IMAGE, GROW_ROOT, PI_IMAGE, PI_CHECK)
RULE = ROOT / "systemd" / "50-cribbage-board.rules"
UNIT = ROOT / "systemd" / "cribbage-board.service"
WEB_UNIT = ROOT / "systemd" / "cribbage-board-web.service"

# Raspberry Pi OS Bookworm's stock files, shortened.
CONFIG_TXT = """\
# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=spi=on
dtparam=audio=on
arm_64bit=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host
"""
CMDLINE = "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes rootwait\n"


def shell(function: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run one of install.sh's functions (the file sourced, so main() does not run)."""
    return subprocess.run(
        ["bash", "-c", f'source "{INSTALL}"; {function} "$@"', "install.sh", *args],
        capture_output=True, text=True, timeout=30, env={**os.environ, **(env or {})},
    )


def test_install_scripts_parse():
    """install.sh, club-broker.sh, build-image.sh and its grow-root, the arm64, VM, Pi image, Home Assistant and
    phone audit checks (and the VM's and Pi image's guest sides) pass bash -n (grow-root: sh -n)."""
    for script in SCRIPTS:
        result = subprocess.run(["sh" if script == GROW_ROOT else "bash", "-n", str(script)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (apt-get install shellcheck)")
def test_install_scripts_pass_shellcheck():
    """install.sh, club-broker.sh, the arm64, VM, Home Assistant and phone audit checks (and the VM's guest side)
    have no shellcheck findings."""
    # One shellcheck a script, all at once (one process for all took 4.2 s of CPU, one script after another):
    # each given the files its "# shellcheck source=" lines name, to follow them (and so check them too).
    followed = {path for script in SCRIPTS for path in sourced(script)}
    runs = {script.name: subprocess.Popen(["shellcheck", str(script), *map(str, sourced(script))], cwd=ROOT,
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for script in SCRIPTS if script not in followed}
    said = {name: run.communicate()[0] for name, run in runs.items()}
    assert {name: said[name] for name, run in runs.items() if run.returncode != 0} == {}
    assert followed <= set(SCRIPTS)  # every file sourced is one of the scripts: checked


def sourced(script: Path) -> list[Path]:
    """The files a script's "# shellcheck source=PATH" lines name (/dev/null left out)."""
    named = re.findall(r"^\s*# shellcheck source=(\S+)", script.read_text(), re.MULTILINE)
    return [ROOT / path for path in named if path != "/dev/null"]


def test_cmdline_gets_the_spidev_buffer_once_on_its_one_line(tmp_path):
    """spidev.bufsiz=65536 goes at the end of the single line; a second run changes nothing."""
    cmdline = tmp_path / "cmdline.txt"
    cmdline.write_text(CMDLINE)
    first = shell("cmdline_ensure", str(cmdline), "spidev.bufsiz=65536")
    assert first.returncode == 0, first.stderr
    assert cmdline.read_text() == CMDLINE.rstrip("\n") + " spidev.bufsiz=65536\n"
    again = shell("cmdline_ensure", str(cmdline), "spidev.bufsiz=65536")
    assert again.returncode == 1 and cmdline.read_text().count("spidev.bufsiz") == 1
    assert len(cmdline.read_text().splitlines()) == 1


def test_cmdline_replaces_another_buffer_size_and_handles_no_newline(tmp_path):
    """An older spidev.bufsiz is replaced in place, and a file without a final newline stays one line."""
    cmdline = tmp_path / "cmdline.txt"
    cmdline.write_text("console=tty1 spidev.bufsiz=4096 root=/dev/mmcblk0p2 rootwait")
    assert shell("cmdline_ensure", str(cmdline), "spidev.bufsiz=65536").returncode == 0
    assert cmdline.read_text() == "console=tty1 spidev.bufsiz=65536 root=/dev/mmcblk0p2 rootwait\n"


def test_config_txt_lines_go_under_all_once(tmp_path):
    """dtparam lines are added after an [all] (the stock file ends in [cm5]), once; commented ones do not count."""
    config = tmp_path / "config.txt"
    config.write_text(CONFIG_TXT)
    for line in ("dtparam=spi=on", "dtparam=i2c_arm=on"):
        result = shell("config_txt_ensure", str(config), line)
        assert result.returncode == 0, result.stderr
    assert config.read_text() == CONFIG_TXT + "[all]\ndtparam=spi=on\ndtparam=i2c_arm=on\n"
    before = config.read_text()
    for line in ("dtparam=spi=on", "dtparam=i2c_arm=on"):
        assert shell("config_txt_ensure", str(config), line).returncode == 1
    assert config.read_text() == before


def test_config_txt_without_sections_or_final_newline(tmp_path):
    """A file with no section filter gets no [all]; a missing final newline is mended first."""
    config = tmp_path / "config.txt"
    config.write_text("dtparam=audio=on")
    assert shell("config_txt_ensure", str(config), "core_freq=250").returncode == 0
    assert config.read_text() == "dtparam=audio=on\ncore_freq=250\n"


@pytest.mark.parametrize("model, lines", [
    ("Raspberry Pi 4 Model B Rev 1.5", ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi 400 Rev 1.0", ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi Compute Module 4 Rev 1.1", ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi 3 Model B Plus Rev 1.3", ["core_freq=250", "core_freq_min=250"]),
    ("Raspberry Pi Zero 2 W Rev 1.0", ["core_freq=250", "core_freq_min=250"]),
    ("Raspberry Pi 5 Model B Rev 1.0", []),
    ("Raspberry Pi 500 Rev 1.0", []),
])
def test_core_clock_is_locked_on_pi_3_and_4_only(model, lines):
    """Pi 3/4 get a fixed core clock (their SPI clock follows it); the Pi 5's SPI is on RP1: nothing."""
    result = shell("core_clock_lines", model)
    assert result.stdout.split() == lines
    assert result.returncode == (0 if lines else 1)


def test_boot_dir_prefers_the_override_then_boot_firmware(tmp_path):
    """CRIBBAGE_BOOT_DIR names the boot folder; one without both files is passed over."""
    (tmp_path / "config.txt").write_text(CONFIG_TXT)
    (tmp_path / "cmdline.txt").write_text(CMDLINE)
    found = shell("boot_dir", env={"CRIBBAGE_BOOT_DIR": str(tmp_path)})
    assert found.returncode == 0 and found.stdout.strip() == str(tmp_path)
    (tmp_path / "cmdline.txt").unlink()
    other = shell("boot_dir", env={"CRIBBAGE_BOOT_DIR": str(tmp_path)})
    assert other.stdout.strip() != str(tmp_path)


def test_install_refuses_an_unknown_target_in_one_line():
    """A wrong CRIBBAGE_INSTALL_TARGET (or not being root) stops it at once with exit 2 and one line."""
    result = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, timeout=30,
                            env={**os.environ, "CRIBBAGE_INSTALL_TARGET": "laptop"})
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert ("pi, vm, chroot or image" in result.stderr) if os.geteuid() == 0 else ("run as root" in result.stderr)


@pytest.mark.skipif(os.geteuid() != 0 or Path("/proc/device-tree/model").exists(),
                    reason="needs root on a machine that is not a Pi")
def test_install_refuses_a_pc_without_the_chroot_target():
    """On a PC (no device-tree model) the default target stops before changing anything."""
    env = {k: v for k, v in os.environ.items() if k != "CRIBBAGE_INSTALL_TARGET"}
    result = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, timeout=30, env=env)
    assert result.returncode == 2 and "not a Raspberry Pi" in result.stderr and result.stdout == ""


def test_arm64_script_rejects_an_unknown_release():
    """The arm64 test takes bookworm or trixie, and says so for anything else (before touching the machine)."""
    result = subprocess.run(["bash", str(ARM64), "bullseye"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "bookworm|trixie" in result.stderr


def test_boot_vm_script_says_how_to_run_it():
    """--help prints the usage and exits 0, touching nothing (no root needed, no VM booted)."""
    result = subprocess.run(["bash", str(BOOT_VM), "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("usage: ") and "[bookworm|trixie] [--arch amd64|arm64]" in result.stdout


@pytest.mark.parametrize("argv", [["bullseye"], ["--arch", "i386"], ["--arch"], ["--boot"]])
def test_boot_vm_script_refuses_what_it_does_not_know(argv):
    """An unknown release, architecture or option: the usage on stderr and exit 2, before anything runs."""
    result = subprocess.run(["bash", str(BOOT_VM), *argv], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: ")


@pytest.mark.parametrize("argv", [["--power-cuts"], ["bookworm", "--power-cuts"], ["--power-cuts", "x"],
                                  ["--power-cuts", "0"], ["--power-cuts", "-3"], ["--power-cuts", "1001"],
                                  ["--power-cuts="], ["--power-cuts=2.5"], ["--power-cuts", "05"]])
def test_boot_vm_script_refuses_power_cuts_without_a_number(argv):
    """--power-cuts without N, or with an N that is not a whole number from 1 to 1000: one usage line, exit 2."""
    result = subprocess.run(["bash", str(BOOT_VM), *argv], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: ") and result.stderr.count("\n") == 1
    assert "--power-cuts needs N" in result.stderr


def test_boot_vm_script_takes_power_cuts_in_its_usage():
    """--help names --power-cuts N."""
    result = subprocess.run(["bash", str(BOOT_VM), "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "[--power-cuts N]" in result.stdout


def test_boot_vm_driver_says_its_modes():
    """The guest's driver, given no mode, prints its modes and exits 2 (it imports nothing of the board first)."""
    import sys

    result = subprocess.run([sys.executable, str(ROOT / "tests" / "system" / "vm" / "driver.py")],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "driver.py burst" in result.stderr and "driver.py shutdown" in result.stderr
    assert "driver.py power-check ACKS" in result.stderr


def unit_user(unit: Path) -> str:
    return next(line.split("=", 1)[1] for line in unit.read_text().splitlines() if line.startswith("User="))


def test_polkit_rule_names_the_service_user_and_the_power_off_actions():
    """The rule allows the board unit's user the two logind power-off actions and nothing else;
    it names no other user (the web unit's least of all)."""
    text = RULE.read_text()
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    assert re.findall(r'subject\.user == "([^"]*)"', code) == [unit_user(UNIT)]
    assert unit_user(WEB_UNIT) != unit_user(UNIT) and unit_user(WEB_UNIT) not in code
    actions = set(re.findall(r'"(org\.freedesktop\.[\w.-]+)"', text))
    assert actions == {"org.freedesktop.login1.power-off", "org.freedesktop.login1.power-off-multiple-sessions"}
    assert "/etc/polkit-1/rules.d/50-cribbage-board.rules" in INSTALL.read_text()


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the polkit rule's JavaScript")
def test_polkit_rule_says_yes_only_to_cribbage_powering_off():
    """Run as polkit would: YES for cribbage and power-off(-multiple-sessions), no answer otherwise,
    the web view's user cribbage-web included."""
    harness = """
const rules = [];
const polkit = {Result: {YES: "yes", NO: "no"}, addRule: (f) => rules.push(f)};
eval(require("fs").readFileSync(process.argv[1], "utf8"));
const ask = (id, user) => rules.map((f) => f({id}, {user})).find((r) => r !== undefined) ?? null;
console.log(JSON.stringify([
  ask("org.freedesktop.login1.power-off", "cribbage"),
  ask("org.freedesktop.login1.power-off-multiple-sessions", "cribbage"),
  ask("org.freedesktop.login1.power-off", "pi"),
  ask("org.freedesktop.login1.power-off", "cribbage-web"),
  ask("org.freedesktop.login1.power-off-multiple-sessions", "cribbage-web"),
  ask("org.freedesktop.login1.reboot", "cribbage"),
  ask("org.freedesktop.systemd1.manage-units", "cribbage"),
]));
"""
    result = subprocess.run(["node", "-e", harness, str(RULE)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["yes", "yes", None, None, None, None, None]


def test_unit_hardening_leaves_the_system_bus_reachable():
    """systemctl poweroff needs the D-Bus socket: AF_UNIX allowed, /run/dbus neither hidden nor private."""
    settings = [line.split("=", 1) for line in UNIT.read_text().splitlines() if "=" in line and not line.startswith("#")]
    families = " ".join(value for key, value in settings if key == "RestrictAddressFamilies")
    assert "AF_UNIX" in families.split() and not families.startswith("~")
    for key, value in settings:
        if key in ("InaccessiblePaths", "TemporaryFileSystem", "BindPaths", "BindReadOnlyPaths"):
            assert not any(p.lstrip("-+").rstrip("/") in ("/run", "/run/dbus", "/run/dbus/system_bus_socket")
                           for p in value.split()), f"{key}={value} hides the system bus"
        assert key != "PrivateUsers" or value in ("no", "false"), "PrivateUsers breaks polkit's view of the user"


def test_the_pi_install_steps_install_the_boards_needs_only_from_a_source_a_builder_has():
    """hardware/README.md's pip lines for a Pi and install.sh's own install name no test extra (the
    board's needs and nothing more); systemd/README.md's steps bring the source as an archive a
    builder can make, not a clone of an address the project does not give."""
    from docs_text import section

    pi = section((ROOT / "hardware" / "README.md").read_text(encoding="utf-8"), "Python packages on a Pi")
    installs = re.findall(r"pip install[^`\n]*", pi)
    assert installs and all("[test]" not in line and "-e" not in line.split() for line in installs), installs
    assert ".venv/bin/pip install -q ." in pi
    script = [line for line in INSTALL.read_text(encoding="utf-8").splitlines() if "pip" in line and "install" in line
              and not line.lstrip().startswith("#")]
    assert script and not any("[test]" in line for line in script), script
    steps = section((ROOT / "systemd" / "README.md").read_text(encoding="utf-8"), "Install on Raspberry Pi OS Bookworm or Trixie")
    flat = " ".join(steps.split())
    assert "<this repository>" not in flat and "git clone" not in flat
    for said in ("git archive --format=tar.gz --prefix=cribbage-board/ -o cribbage-board.tar.gz HEAD",
                 "scp cribbage-board.tar.gz", "tar xzf cribbage-board.tar.gz", "sudo cribbage-board/systemd/install.sh"):
        assert said in flat, said


# What the system checks and the shipped scripts start from this tree: each script's own view of the
# tree is "$src" (this checkout) or "$tree" (its copy in the arm64 root or the VM), SRC in Python.
STARTERS = (*SCRIPTS, ROOT / "tests" / "system" / "vm" / "driver.py", ROOT / ".ci" / "run")
UNITS = tuple(sorted((ROOT / "systemd").glob("*.service")))
PACKAGES = ("scorer", "ledger", "hardware", "firmware")


def test_system_checks_name_only_files_the_tree_has():
    """Every file of the tree a system check or shipped script names ("$src/...", "$tree/...",
    SRC / "..." in Python) is there; .venv, which the user makes, is left out."""
    missing = []
    for script in STARTERS:
        text = script.read_text(encoding="utf-8")
        named = re.findall(r'\$\{?(?:src|tree)\}?/([\w./-]*\w)', text)
        named += ["/".join(parts) for parts in
                  (re.findall(r'"([^"]+)"', chain) for chain in re.findall(r'\bSRC((?: / "[^"]+")+)', text))]
        missing += [f"{script.relative_to(ROOT)}: {path}" for path in named
                    if not path.startswith(".venv/") and not (ROOT / path).exists()]
    assert missing == []


def test_system_checks_start_the_board_as_the_package_installs_it():
    """No system check, shipped script or unit starts a bin/cribbage-board of the tree, which
    [project.scripts] replaced: the board is a venv's entry point or python -m firmware.cli."""
    stale = []
    for path in (*STARTERS, *UNITS):
        for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            from_tree = re.search(r'(?:\$\{?(?:src|tree)\}?/|(?:SRC|ROOT) / "|(?<![\w/%}"$.-])(?:\./)?)bin/cribbage-board'
                                  r'|(?:SRC|ROOT) / "bin"', line)
            if from_tree:
                stale.append(f"{path.relative_to(ROOT)}:{line_number}: {line.strip()}")
    assert stale == []


def test_commands_the_system_checks_start_run():
    """Each cribbage-board command a system check, shipped script or unit starts (python -m firmware.cli
    COMMAND or the entry point's COMMAND; the Home Assistant check's console among them) answers --help."""
    import sys

    commands = set()
    for path in (*STARTERS, *UNITS):
        text = path.read_text(encoding="utf-8")
        commands.update(re.findall(r'-m firmware\.cli"?,? "?([a-z][\w-]*)', text))
        commands.update(re.findall(r'/bin/cribbage-board"? ([a-z][\w-]*)', text))
    assert {"console", "hub", "web", "club-network"} <= commands
    runs = {command: subprocess.Popen([sys.executable, "-m", "firmware.cli", command, "--help"], cwd=ROOT,
                                      env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
            for command in sorted(commands)}
    failed = {command: run.communicate(timeout=60)[1] for command, run in runs.items()}
    assert {command: said for command, said in failed.items() if runs[command].returncode != 0} == {}


def test_system_checks_import_what_the_packages_have():
    """Each one-line import of the project's packages in a system check (the VM's driver, the Home
    Assistant check's Python) names a module that is there and names it has."""
    import importlib

    wrong = []
    for script in STARTERS:
        for module, names in re.findall(rf'^\s*from ((?:{"|".join(PACKAGES)})(?:\.\w+)*) import ([\w, ]+?)\s*(?:#.*)?$',
                                        script.read_text(encoding="utf-8"), re.MULTILINE):
            try:
                found = importlib.import_module(module)
            except ImportError as error:
                wrong.append(f"{script.relative_to(ROOT)}: {module}: {error}")
                continue
            wrong += [f"{script.relative_to(ROOT)}: {module}.{name}" for name in names.replace(" ", "").split(",")
                      if not hasattr(found, name) and not _submodule(f"{module}.{name}")]
    assert wrong == []


def _submodule(name: str) -> bool:
    """Whether ``name`` is a module (``from hardware import ws2812`` imports one not yet loaded)."""
    import importlib.util

    return importlib.util.find_spec(name) is not None
