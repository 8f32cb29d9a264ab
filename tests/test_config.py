"""The config: the commented default, a file, overrides; one-line errors naming file and key."""

import os
import re

import pytest

from firmware.config import ConfigError, defaults, load_config, parse_override

from waits import no_hang


def test_default_config_loads_and_matches_the_documented_values():
    """The packaged default file is valid and is what the board uses."""
    config = load_config(overrides=[])
    assert config.game.variant == "six-card"
    assert config.leds.colours[0] == (255, 0, 0)
    assert config.display.i2c_address == 0x3C
    assert defaults()["inputs"]["red"] == 5 == config.inputs.red
    assert (config.leds.driver, config.leds.pin, config.leds.spi_hz) == ("auto", 10, 2_400_000)
    assert (config.backend, config.state, config.web.port) == (None, None, 8121)


def test_file_and_overrides(tmp_path):
    """A file changes the defaults; --set changes both."""
    path = tmp_path / "config.toml"
    path.write_text('[game]\nvariant = "five-card"\nplayers = ["Ann", "Bo"]\n[leds]\nmax_brightness = 0.2\n')
    config = load_config(path, ["leds.max_brightness=0.3", "game.muggins=true", "backend=mock"])
    assert config.game.variant == "five-card" and config.game.players == ("Ann", "Bo")
    assert config.leds.max_brightness == 0.3 and config.game.options.muggins is True
    assert config.backend == "mock"
    assert config.sources == ("default config", str(path), "--set leds.max_brightness=0.3",
                              "--set game.muggins=true", "--set backend=mock")


@pytest.mark.parametrize("text, message", [
    ("[leds]\nbrightnes = 0.3\n", "config.toml: unknown key [leds] brightnes: [leds] takes layout, pin"),
    ("[led]\npin = 10\n", "config.toml: unknown section [led]: use [game], [leds], [display], [inputs], [buzzer]"),
    ("[leds]\nmax_brightness = 3\n", "config.toml: [leds] max_brightness = 3: must be a number from 0.01 to 1"),
    ("[game]\nvariant = \"crib\"\n", "config.toml: [game] variant = 'crib': use one of six-card"),
    ("[inputs]\nred = 40\n", "config.toml: [inputs] red = 40: must be a whole number from 0 to 27"),
    ("[leds]\ncolours = [\"red\"]\n", "config.toml: [leds] colours = ['red']: must be 2 to 4 colours"),
    ("[display]\nenabled = 1\n", "config.toml: [display] enabled = 1: must be true or false"),
    ("colour = 1\n", "config.toml: unknown key colour: use backend, state"),
    ("[game\n", "config.toml: not valid TOML"),
    ("[inputs]\nred = 5\nblue = 5\n", "config.toml: [inputs] blue and red are both on GPIO5"),
    ("[inputs]\nred = 10\n", "config.toml: [leds] pin = 10 is also [inputs] red"),
    ("[game]\nvariant = \"three-hand\"\n", "config.toml: [game] variant = 'three-hand' has 3 sides but"),
    ("[game]\nplayers = [\"A\", \"B\"]\nvariant = \"four-hand\"\n",
     "config.toml: [game] players: four-hand needs 4 names"),
    ("[leds]\ndriver = \"pwm\"\n", "config.toml: [leds] driver = 'pwm': use one of 'auto', 'spi', 'ws281x'"),
    ("[leds]\nspi_hz = 3200000\n", "config.toml: [leds] spi_hz = 3200000: use one of 2400000, 4800000, 6400000 (Hz)"),
    ("[leds]\nspi_hz = \"fast\"\n", "config.toml: [leds] spi_hz = 'fast': use one of 2400000"),
    ("[leds]\npin = 18\n",
     'config.toml: [leds] pin = 18: with [leds] driver = "auto" (SPI) the pin must be 10; '
     'for a PWM pin set [leds] driver = "ws281x"'),
    ("[leds]\ndriver = \"spi\"\npin = 12\n", 'config.toml: [leds] pin = 12: with [leds] driver = "spi" (SPI)'),
    ("[leds]\ndriver = \"ws281x\"\npin = 4\n",
     "config.toml: [leds] pin = 4: ws281x drives GPIO10 (SPI) or 12, 13, 18, 19 (PWM)"),
])
def test_bad_config_is_one_line_naming_file_and_key(tmp_path, text, message):
    """Each mistake is one line that names the file and the key."""
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(str(tmp_path / message.split(":", 1)[0]) + ":" + message.split(":", 1)[1])
    assert "\n" not in str(caught.value)


def test_led_driver_and_clock_choices(tmp_path):
    """spi and ws281x can be chosen; ws281x takes a PWM pin; the SPI clock takes the offered clocks."""
    config = load_config(overrides=["leds.driver=\"ws281x\"", "leds.pin=18"])
    assert (config.leds.driver, config.leds.pin) == ("ws281x", 18)
    config = load_config(overrides=["leds.driver=SPI", "leds.spi_hz=6400000"])
    assert (config.leds.driver, config.leds.spi_hz) == ("spi", 6_400_000)


def test_bad_override_and_missing_file(tmp_path):
    """A malformed --set and an unreadable file are clear too."""
    with pytest.raises(ConfigError, match="--set 'leds': use --set section.key=value"):
        load_config(overrides=["leds"])
    with pytest.raises(ConfigError, match="--set leds.gamma=9: \\[leds\\] gamma = 9: must be a number from 1 to 3"):
        load_config(overrides=["leds.gamma=9"])
    with pytest.raises(ConfigError, match="cannot read the config"):
        load_config(tmp_path / "missing.toml")
    assert parse_override("game.players=[\"A\",\"B\"]") == ("game", "players", ["A", "B"])
    assert parse_override("leds.layout=my-board.toml") == ("leds", "layout", "my-board.toml")


def test_cli_exits_2_on_bad_config(tmp_path, capsys):
    """The board stops with exit 2 and the one line."""
    from firmware.cli import main

    path = tmp_path / "config.toml"
    path.write_text("[leds]\nbudget = 1\n")
    assert main(["--backend", "mock", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cribbage-board: {path}: unknown key [leds] budget") and err.count("\n") == 1


@pytest.mark.parametrize("pin, other", [
    (2, "[display] I2C SDA (the OLED)"), (3, "[display] I2C SCL (the OLED)"),
    (11, "[leds] SPI0 SCLK (the strip's SPI driver)"),
])
def test_the_buzzer_keeps_off_the_oled_and_spi_pins(pin, other):
    """An enabled buzzer on the OLED's I2C pins or the strip's SPI pins is refused in one line."""
    with pytest.raises(ConfigError, match=re.escape(f"[buzzer] pin = {pin} is also {other}: give the buzzer its own pin")):
        load_config(overrides=["buzzer.enabled=true", f"buzzer.pin={pin}"])
    load_config(overrides=[f"buzzer.pin={pin}"])  # a buzzer that is off takes no pin



def test_the_sections_are_frozen_and_give_the_hardware_its_own_settings():
    """Each section is a frozen dataclass; the hardware gets typed settings, never the file's keys."""
    import dataclasses

    from hardware.display import DisplaySettings
    from hardware.inputs import InputPins
    from hardware.leds import PowerSettings, StripSettings
    from hardware.wiring import Hookup

    config = load_config(overrides=["leds.max_brightness=0.3", "inputs.hold_ms=1500", "display.rotate=2"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.leds.pin = 18
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.game = None
    assert config.leds.strip == StripSettings("auto", 10, 2_400_000, PowerSettings(0.3, 4000, 2.2))
    assert config.display.settings == DisplaySettings(chip="ssd1306", bus="i2c", i2c_port=1, i2c_address=0x3C, rotate=2)
    pins = config.inputs.pins()
    assert isinstance(pins, InputPins) and pins.hold_s == 1.5 and pins.buttons["undo"] == 13
    assert config.inputs.pins(hold_s=0.05).hold_s == 0.05
    assert config.hookup == Hookup(pins, config.leds.strip, config.display.settings, 12, False, 243, 0)
    assert load_config(overrides=["display.enabled=false"]).hookup.display is None


def test_the_state_path_is_decided_in_one_place(tmp_path, monkeypatch):
    """--state, else the config's state, else $STATE_DIRECTORY, else ~/.local/state (XDG_STATE_HOME)."""
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "service"))
    assert load_config().state_path() == tmp_path / "service" / "ledger.sqlite3"
    config = load_config(overrides=[f"state={tmp_path / 'mine.sqlite3'}"])
    assert config.state_path() == tmp_path / "mine.sqlite3"
    assert config.state_path(tmp_path / "given.sqlite3") == tmp_path / "given.sqlite3"
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert load_config().state_path() == tmp_path / "xdg" / "cribbage-board" / "ledger.sqlite3"


# ---- the declaration and the files it writes ----------------------------------------

def _declared():
    """(section, key, its declaration) for every key the config declares."""
    from firmware.config import declared_keys, sections

    return [(name, key, declared) for name, cls in sections().items() for key, declared in declared_keys(cls).items()]


def test_the_default_file_and_the_reference_are_what_the_declaration_writes():
    """firmware/default-config.toml and docs/configuration.md are written from the declaration
    (python -m firmware.config_files), never by hand: a change to a key shows here until they are."""
    from firmware.config_files import main, written

    for path, text in written().items():
        assert path.read_text(encoding="utf-8") == text, f"run python -m firmware.config_files: {path} is stale"
    assert main(["--check"]) == 0


def test_every_key_has_its_doc_and_is_in_both_files():
    """Each key says what it does and what it takes, and appears in the default file (with its
    default, which load_config reads as the defaults) and in its section's table of the reference."""
    import tomllib
    from dataclasses import replace

    from firmware.config_files import DEFAULT_FILE, REFERENCE, toml_value

    text = DEFAULT_FILE.read_text(encoding="utf-8")
    assert tomllib.loads(text) == defaults()
    assert load_config(DEFAULT_FILE) == replace(load_config(None), sources=("default config", str(DEFAULT_FILE)))
    reference = REFERENCE.read_text(encoding="utf-8")
    tables = {part.split("\n", 1)[0]: part for part in reference.split("\n## ")[1:]}
    declared = _declared()
    assert len(declared) == 2 + 7 + 12 + 7 + 11 + 2 + 1 + 7  # every key: none lost, none made up
    for section, key, declaration in declared:
        assert declaration.doc.strip() and declaration.doc.endswith("."), key
        assert declaration.check.allowed, key
        value = toml_value(declaration.default, declaration.hexadecimal)
        table = tables["[" + section + "]" if section else "Top level"]
        assert f"| `{key}` | `{value}` | {declaration.check.allowed} | " in table, key
        assert re.search(rf"^{key} = {re.escape(value)}$", text, re.MULTILINE), key


@pytest.mark.parametrize("section, key", [(s, k) for s, k, _ in _declared()])
def test_every_key_refuses_a_bad_value_in_one_line(section, key):
    """A value no key takes (a table) is refused in one line naming the key, whichever key."""
    setting = f"{section}.{key}" if section else key
    name = f"[{section}] {key}" if section else key
    with pytest.raises(ConfigError) as caught:
        load_config(None, [f"{setting}={{bad = 1}}"])
    assert str(caught.value).startswith(f"--set {setting}={{bad = 1}}: {name} = {{'bad': 1}}: ")
    assert "\n" not in str(caught.value)


def test_an_unknown_key_names_the_keys_its_section_takes():
    """An unknown key in any section is one line listing that section's keys, from the declaration."""
    from firmware.config import declared_keys, sections

    for name, cls in sections().items():
        setting = f"{name}.nope" if name else "nope"
        with pytest.raises(ConfigError) as caught:
            load_config(None, [f"{setting}=1"])
        takes = f"[{name}] takes" if name else "use"
        assert str(caught.value) == f"--set {setting}=1: unknown key {'[' + name + '] ' if name else ''}nope: " \
                                    f"{takes} {', '.join(declared_keys(cls))}"


@pytest.mark.parametrize("data, message", [
    (b"a = 1\n\xff\xfe = 2\n", "not UTF-8 text (byte 7): save the config as UTF-8"),
    (b"x = " + b"[" * 5000 + b"]" * 5000, "not usable as the config: nested too deeply"),
    (b"#" * (300 * 1024), "the config is larger than 256 KB"),
    (b"[game]\nplayers = [" + b"[" * 200 + b"]" * 200 + b"]", "[game] players = [[[[...]]]]: must be"),
])
def test_config_file_that_cannot_be_used(tmp_path, data, message):
    """A config not UTF-8, nested thousands deep, huge, or with a deep value: a short ConfigError."""
    path = tmp_path / "config.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value) and len(str(caught.value)) < 300



def test_config_that_never_ends_is_capped():
    """/dev/zero as the config is refused at the size cap, not read for ever."""
    with pytest.raises(ConfigError, match="larger than 256 KB"):
        load_config("/dev/zero")



@pytest.mark.parametrize("override", [
    "leds.gamma=" + "[" * 400, "leds.gamma=" + "[" * 5000, "game.dealer=\udcff", "leds.gamma=2\nx=1",
    "game.dealer=" + "x" * 100_000,
])
def test_set_values_that_cannot_be_used(override):
    """--set deep, not UTF-8, more than one line, or huge: a ConfigError shorter than 300 characters."""
    with pytest.raises(ConfigError) as caught:
        load_config(None, [override])
    assert len(str(caught.value)) < 300



@pytest.mark.parametrize("make, message", [
    (os.mkfifo, "cannot read the config: it is a pipe, not a file: give the file itself"),
    (os.mkdir, "cannot read the config: it is a folder, not a file"),
])
def test_config_that_is_a_pipe_or_a_folder(tmp_path, make, message):
    """A FIFO with no writer (which blocked for ever) or a folder as the config: one ConfigError."""
    path = tmp_path / "config.toml"
    make(path)
    with no_hang(), pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: {message}"
