"""The wiring diagram: drawn from the config's pins, with the header's physical pin numbers."""

import xml.etree.ElementTree as ET

import pytest

from firmware.cli import main
from firmware.config import load_config
from hardware.wiring import clashes, physical_pin, wires, wiring_svg

SVG = "{http://www.w3.org/2000/svg}"
# The header's BCM -> physical pin numbers, from the Raspberry Pi pinout (not from the module).
PINOUT = {2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 10: 19, 13: 33, 16: 36, 17: 11, 18: 12, 19: 35,
          22: 15, 23: 16, 26: 37, 27: 13}


def draw(capsys, tmp_path, *options):
    out = tmp_path / "wiring.svg"
    code = main(["wiring", *options, "-o", str(out)])
    captured = capsys.readouterr()
    return code, out, captured


def wires_by_name(path):
    """{what the wire goes to: (physical pin, gpio or None)} from the SVG's wire groups."""
    root = ET.parse(path).getroot()
    found = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "wire":
            gpio = group.get("data-gpio")
            found[group.get("data-to")] = (int(group.get("data-pin")), int(gpio) if gpio else None)
            text = " ".join(t.text or "" for t in group.iter(f"{SVG}text"))
            assert gpio is None or f"GPIO{gpio}" in text
    return found


def test_every_configured_pin_is_drawn_at_its_physical_pin(capsys, tmp_path):
    """The default config: each button, encoder line, OLED line and the strip's data at the right header pin."""
    code, out, captured = draw(capsys, tmp_path)
    assert code == 0, captured.err
    assert "strip data on GPIO10 (pin 19)" in captured.out
    found = wires_by_name(out)
    config = load_config(None).values
    for name in ("red", "blue", "green", "yellow", "undo", "menu"):
        gpio = config["inputs"][name]
        assert found[f"{name} button"] == (PINOUT[gpio], gpio)
    assert found["encoder A (CLK)"] == (PINOUT[config["inputs"]["encoder_a"]], config["inputs"]["encoder_a"])
    assert found["encoder B (DT)"][0] == PINOUT[config["inputs"]["encoder_b"]]
    assert found["encoder push (SW)"][0] == PINOUT[config["inputs"]["encoder_button"]]
    assert found["strip data"] == (19, 10)
    assert found["OLED SDA"] == (3, 2) and found["OLED SCL"] == (5, 3)
    assert found["OLED VCC"] == (1, None) and found["OLED GND"][0] in (6, 9, 14, 20, 25, 30, 34, 39)
    assert found["buttons' ground bus"][0] in (6, 9, 14, 20, 25, 30, 34, 39)


def test_set_moves_a_pin(capsys, tmp_path):
    """--set inputs.red=23 draws the red button at pin 16 and nothing at pin 29."""
    code, out, captured = draw(capsys, tmp_path, "--set", "inputs.red=23")
    assert code == 0, captured.err
    found = wires_by_name(out)
    assert found["red button"] == (16, 23)
    assert 29 not in {pin for pin, _ in found.values()}


def test_config_file_is_read(capsys, tmp_path):
    """--config FILE: its pins are drawn and its name is in the title line."""
    config = tmp_path / "board.toml"
    config.write_text("[inputs]\nundo = 4\n[display]\nenabled = false\n")
    code, out, captured = draw(capsys, tmp_path, "--config", str(config))
    assert code == 0, captured.err
    found = wires_by_name(out)
    assert found["undo button"] == (7, 4)
    assert not any(name.startswith("OLED") for name in found)
    assert str(config) in out.read_text()


def test_ws281x_driver_draws_the_strip_on_leds_pin():
    """leds.driver = "ws281x" wires the strip's data to leds.pin; "auto" and "spi" to GPIO10."""
    values = load_config(None).values
    for driver, pin in (("ws281x", 12), ("spi", 19), ("auto", 19)):
        leds = dict(values["leds"], pin=18, driver=driver)
        config = dict(values, leds=leds)
        strip = [w for w in wires(config) if w.part == "strip"]
        assert [(w.pin, w.gpio) for w in strip] == [(pin, 18 if driver == "ws281x" else 10)]
        ET.fromstring(wiring_svg(config))  # still a well-formed drawing
    leds = {k: v for k, v in values["leds"].items() if k != "driver"}
    assert [w.pin for w in wires(dict(values, leds=leds)) if w.part == "strip"] == [19]


def test_a_pin_used_twice_is_shown_as_a_clash(capsys, tmp_path):
    """A button on the OLED's SDA pin is drawn in red and named on stderr, not hidden."""
    code, out, captured = draw(capsys, tmp_path, "--set", "inputs.menu=2")
    assert code == 0
    assert "pin 3 (GPIO2) is wired to both" in captured.err
    text = out.read_text()
    assert "clash: pin 3 (GPIO2)" in text and "#e00000" in text
    assert clashes(wires(load_config(None).values)) == []


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path):
    """A pin that does not exist, or an output that cannot be written, is one line and exit 2."""
    code, _, captured = draw(capsys, tmp_path, "--set", "inputs.red=40")
    assert code == 2 and len(captured.err.splitlines()) == 1 and "Traceback" not in captured.err
    code = main(["wiring", "-o", str(tmp_path / "no" / "such" / "dir.svg")])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write" in err and len(err.splitlines()) == 1


def test_physical_pin_knows_the_header():
    """BCM -> physical for every header GPIO; a GPIO off the header is a ValueError."""
    for gpio, pin in PINOUT.items():
        assert physical_pin(gpio) == pin
    assert sorted(physical_pin(g) for g in range(28)) == sorted(
        [3, 5, 7, 8, 10, 11, 12, 13, 15, 16, 18, 19, 21, 22, 23, 24, 26, 27, 28, 29, 31, 32, 33, 35, 36, 37, 38, 40])
    with pytest.raises(ValueError):
        physical_pin(28)
