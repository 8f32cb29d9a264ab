"""The wiring diagram: drawn from the config's pins, with the header's physical pin numbers."""

import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from docs_text import section

from firmware.cli import main
from firmware.config import load_config
from firmware.errors import ConfigError
from hardware.leds import StripSettings
from hardware.wiring import buzzer_ground, clashes, physical_pin, wires, wiring_svg

SVG = "{http://www.w3.org/2000/svg}"
# The header's BCM -> physical pin numbers, from the Raspberry Pi pinout (not from the module).
PINOUT = {2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 10: 19, 12: 32, 13: 33, 16: 36, 17: 11, 18: 12, 19: 35,
          20: 38, 22: 15, 23: 16, 25: 22, 26: 37, 27: 13}
GROUND = (6, 9, 14, 20, 25, 30, 34, 39)
README = Path(__file__).resolve().parent.parent / "hardware" / "README.md"


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
    inputs = load_config(None).inputs
    for name in ("red", "blue", "green", "yellow", "undo", "menu"):
        gpio = getattr(inputs, name)
        assert found[f"{name} button"] == (PINOUT[gpio], gpio)
    assert found["encoder A (CLK)"] == (PINOUT[inputs.encoder_a], inputs.encoder_a)
    assert found["encoder B (DT)"][0] == PINOUT[inputs.encoder_b]
    assert found["encoder push (SW)"][0] == PINOUT[inputs.encoder_button]
    assert found["strip data"] == (19, 10)
    assert found["OLED SDA"] == (3, 2) and found["OLED SCL"] == (5, 3)
    assert found["OLED VCC"] == (1, None) and found["OLED GND"][0] in (6, 9, 14, 20, 25, 30, 34, 39)
    assert found["buttons' ground bus"][0] in GROUND


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
    hookup = load_config(None).hookup
    for driver, pin in (("ws281x", 12), ("spi", 19), ("auto", 19)):
        drawn = replace(hookup, strip=replace(hookup.strip, pin=18, driver=driver))
        strip = [w for w in wires(drawn) if w.part == "strip"]
        assert [(w.pin, w.gpio) for w in strip] == [(pin, 18 if driver == "ws281x" else 10)]
        ET.fromstring(wiring_svg(drawn))  # still a well-formed drawing
    assert StripSettings(pin=18).data_gpio == 10  # the driver left as it is: auto, which is spi


def test_a_pin_used_twice_is_refused_by_the_config_and_drawn_as_a_clash(capsys, tmp_path):
    """A button on the OLED's SDA pin: the config refuses it in one line naming both (the pins
    come from the wiring), and a hookup built with it is drawn in red, not hidden."""
    code, out, captured = draw(capsys, tmp_path, "--set", "inputs.menu=2")
    assert code == 2 and not out.exists()
    assert captured.err == ("cribbage-board: --set inputs.menu=2: [inputs] menu = 2 is also "
                            "[display] I2C SDA (the OLED): give the button its own pin\n")
    hookup = load_config(None).hookup
    clashing = replace(hookup, pins=replace(hookup.pins, buttons={**hookup.pins.buttons, "menu": 2}))
    assert clashes(wires(clashing)) == ["pin 3 (GPIO2) is wired to both menu button and OLED SDA"]
    text = wiring_svg(clashing)
    assert "clash: pin 3 (GPIO2)" in text and "#e00000" in text
    assert clashes(wires(hookup)) == []


@pytest.mark.parametrize("setting, message", [
    ("inputs.red=11", "[inputs] red = 11 is also [leds] SPI0 SCLK (the strip's SPI driver): give the button its own pin"),
    ("display.bus=spi", "[leds] pin = 10 is also [display] SPI DIN (MOSI) (the OLED): give the strip its own pin"),
    ("inputs.encoder_b=3", "[inputs] encoder_b = 3 is also [display] I2C SCL (the OLED): give the encoder its own pin"),
])
def test_every_pin_the_wiring_shares_is_refused(setting, message):
    """The config refuses each GPIO that hardware.wiring finds two parts on, with the pins the
    strip's SPI driver takes; an OLED that is off takes none."""
    with pytest.raises(ConfigError) as caught:
        load_config(None, [setting])
    assert str(caught.value) == f"--set {setting}: {message}"
    load_config(None, ["display.enabled=false", "inputs.encoder_b=3"])


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


def groups(path):
    """{data-to: the wire's <g> element} from the SVG."""
    root = ET.parse(path).getroot()
    return {g.get("data-to"): g for g in root.iter(f"{SVG}g") if g.get("class") == "wire"}


def texts(element):
    return " ".join(t.text or "" for t in element.iter(f"{SVG}text"))


def pin_centres(path):
    """{physical pin: (x, y)} of the header's pin circles."""
    root = ET.parse(path).getroot()
    return {int(c.get("data-pin")): (float(c.get("cx")), float(c.get("cy")))
            for c in root.iter(f"{SVG}circle") if c.get("class") == "pin"}


def lines(group):
    return [tuple(float(line.get(k)) for k in ("x1", "y1", "x2", "y2")) for line in group.iter(f"{SVG}line")]


def test_an_enabled_buzzer_is_drawn_from_its_pin_through_its_resistor_to_ground(capsys, tmp_path):
    """buzzer.enabled: GPIO12 at pin 32, 100 ohm, a passive piezo, its other leg joined to the GND pin beside it."""
    code, out, captured = draw(capsys, tmp_path, "--set", "buzzer.enabled=true")
    assert code == 0, captured.err
    assert "buzzer on GPIO12 (pin 32)" in captured.out
    found = wires_by_name(out)
    assert found["buzzer +"] == (PINOUT[12], 12)
    ground = found["buzzer - (GND)"]
    assert ground[1] is None and ground[0] in GROUND
    others = {pin for name, (pin, _) in found.items() if not name.startswith("buzzer")}
    assert ground[0] not in others  # a GND pin of its own, so the drawings do not overlap
    drawn = groups(out)
    label = texts(drawn["buzzer +"])
    assert "passive piezo buzzer (GPIO12)" in label and "100 \u03a9" in label and f"pin {ground[0]}" in label
    # The other leg reaches the GND pin's row, where that pin's wire ends.
    centres = pin_centres(out)
    ground_y = centres[ground[0]][1]
    legs = [(x1, y2) for x1, y1, x2, y2 in lines(drawn["buzzer +"]) if x1 == x2 and y2 == ground_y]
    assert len(legs) == 1
    leg_x = legs[0][0]
    assert any(y1 == y2 == ground_y and leg_x in (x1, x2) for x1, y1, x2, y2 in lines(drawn["buzzer - (GND)"]))
    legend = texts(ET.parse(out).getroot())
    assert f"GPIO12 (pin 32) through 100 \u03a9, its other leg to GND (pin {ground[0]})" in legend


def test_the_drawn_buzzer_agrees_with_the_hardware_readme():
    """hardware/README.md's buzzer row names the pin, the resistor and the GND pin the diagram draws."""
    text = README.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| buzzer"))
    gpio, pin, ohms, ground = re.search(r"GPIO(\d+) \| (\d+) \|.*?(\d+) ohm.*?GND \(pin (\d+)\)", row).groups()
    hookup = replace(load_config(None).hookup, buzzer=True)
    assert int(gpio) == hookup.buzzer_pin
    drawn = {w.to: w for w in wires(hookup) if w.part == "buzzer"}
    assert drawn["buzzer +"].pin == int(pin) and drawn["buzzer - (GND)"].pin == int(ground)
    svg = wiring_svg(hookup)
    assert f"through {ohms} \u03a9" in svg
    parts = next(line for line in text.splitlines() if "passive piezo buzzer" in line)
    assert f"{ohms} ohm in series" in parts and "transistor" not in parts


def test_a_buzzer_on_the_left_is_grounded_by_symbol_and_named_at_its_gnd_pin(capsys, tmp_path):
    """A buzzer whose GND pin is not beside it: ground symbols at both ends and each names the other."""
    code, out, captured = draw(capsys, tmp_path, "--set", "buzzer.enabled=true", "--set", "buzzer.pin=4")
    assert code == 0, captured.err
    found = wires_by_name(out)
    assert found["buzzer +"] == (PINOUT[4], 4)
    ground = found["buzzer - (GND)"][0]
    assert ground in GROUND
    drawn = groups(out)
    assert f"other leg to GND, pin {ground}" in texts(drawn["buzzer +"])
    assert "buzzer's other leg (GND)" in texts(drawn["buzzer - (GND)"])


def test_a_disabled_buzzer_is_left_out_and_the_legend_says_how_to_draw_it(capsys, tmp_path):
    """The default config (buzzer off): no buzzer wire, and the legend and the terminal name --set buzzer.enabled=true."""
    code, out, captured = draw(capsys, tmp_path)
    assert code == 0, captured.err
    assert not any(name.startswith("buzzer") for name in wires_by_name(out))
    root = ET.parse(out).getroot()
    legend = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "legend-buzzer"]
    assert len(legend) == 1 and "--set buzzer.enabled=true" in legend[0] and "GPIO12 (pin 32)" in legend[0]
    assert "--set buzzer.enabled=true" in captured.out


def test_a_buzzer_on_the_oled_pin_or_a_button_is_refused(capsys, tmp_path):
    """The OLED's SDA pin or a button's pin: the config check's one line, exit 2, nothing drawn."""
    code, _, captured = draw(capsys, tmp_path, "--set", "buzzer.enabled=true", "--set", "buzzer.pin=2")
    assert code == 2 and len(captured.err.splitlines()) == 1 and "[display] I2C SDA (the OLED)" in captured.err
    code, _, captured = draw(capsys, tmp_path, "--set", "buzzer.enabled=true", "--set", "buzzer.pin=5")
    assert code == 2 and len(captured.err.splitlines()) == 1 and "[buzzer] pin = 5" in captured.err


def test_the_buzzer_ground_is_a_gnd_pin_no_other_wire_uses():
    """For every free GPIO on the header the buzzer's GND pin is a GND pin of its own."""
    hookup = load_config(None).hookup
    taken = {w.gpio for w in wires(hookup) if w.gpio is not None}
    for gpio in sorted(set(range(28)) - taken):
        with_buzzer = replace(hookup, buzzer_pin=gpio, buzzer=True)
        found = wires(with_buzzer)
        ground = next(w.pin for w in found if w.to == "buzzer - (GND)")
        assert ground in GROUND and ground == buzzer_ground(PINOUT.get(gpio, physical_pin(gpio)))
        assert [w.pin for w in found].count(ground) == 1, gpio
        ET.fromstring(wiring_svg(with_buzzer))


def _parts_rows() -> list[list[str]]:
    rows = [line for line in section(README.read_text(encoding="utf-8"), "Parts").splitlines()
            if line.startswith("| ")]
    assert rows[0] == "| part | qty | for | notes |"
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]


def test_the_parts_list_gives_every_part_a_quantity_and_lacks_none_the_build_needs():
    """hardware/README.md's parts table: a quantity for every part, and the fuse and its holder, the
    power jack or terminal, the 74AHCT125's 0.1 uF, perfboard and connectors, each Pi's own supply."""
    rows = _parts_rows()
    assert all(len(row) == 4 and row[1] and (re.search(r"\d", row[1]) or row[1].startswith("see")) for row in rows)
    named = {row[0]: row for row in rows}
    text = " ".join(" | ".join(row) for row in rows)
    for needed in ("7.5 A blade fuse", "fuse holder", "DC jack", "screw terminal", "0.1 uF (100 nF)",
                   "74AHCT125", "perfboard", "JST SM", "jumper wires", "1000 uF", "330 ohm"):
        assert needed in text, needed
    supplies = named["the Pi's own official supply"][3]
    for model, rating in (("Pi 5 and 500", "5.1 V 5 A"), ("Pi 4 and 400", "5.1 V 3 A"),
                          ("Pi 3B+ and Zero 2 W", "5.1 V 2.5 A")):
        assert re.search(rf"{re.escape(model)}: [^;]*{rating}", supplies), model


def test_the_parts_list_counts_each_layouts_strip_and_bridges():
    """The strip's LEDs and metres, and the bridges between its pieces, as the bundled layouts have them."""
    from hardware.layout import load_layout
    from hardware.template import strip_pieces

    text = " ".join(" | ".join(row) for row in _parts_rows())
    for name, tracks in (("classic-121", "two"), ("three-track-121", "three"), ("four-track-121", "four")):
        layout = load_layout(name)
        leds = len(layout.all_holes())
        assert f"{leds} LEDs ({leds / 60:.2f} m) for {tracks}" in text or f"{leds} ({leds / 60:.2f} m) for {tracks}" in text
        assert f"{len(strip_pieces(layout)) - 1} for {tracks}" in text


def test_the_power_section_is_honest_about_headroom():
    """The strip's supply against the config's LED budget (a third spare, as it says), the Pi on its own
    official supply (a Pi 4's is 3 A, not 'about 1 A'), and one supply for both sized for both."""
    budget_a = load_config(None).leds.budget_ma / 1000
    power = " ".join(section(README.read_text(encoding="utf-8"), "Power").split())
    supply = float(re.search(r"\*\*The strip\*\* \(and the 74AHCT125\) has its own 5 V supply, (\d+) A", power).group(1))
    assert f"{budget_a:g} A of budget leaves {supply - budget_a:g} A of headroom, a third of the supply" in power
    assert (supply - budget_a) / supply >= 1 / 3
    assert "a Pi 4 or 400 its 15.3 W USB-C supply (5.1 V 3 A" in power and "Its 5 V pins (2 and 4) stay unconnected" in power
    both = float(re.search(r"a 5 V (\d+) A \(\d+ W\) supply", power).group(1))
    assert both - (budget_a + 3) >= 3  # the strip's budget, a Pi 4's official 3 A, and 3 A to spare
    assert "not on a Pi 5" in power
    assert "**Connect GND first, never hot-plug the strip.**" in power


def test_the_wiring_diagram_says_which_supply_feeds_what():
    """The diagram feeds no Pi from pin 2: the Pi has its own supply (each model's, as the parts list
    names it), only the grounds are joined; the fuse, the 0.1 uF and 'GND first' are on it."""
    from hardware.wiring import PI_SUPPLIES, SUPPLY_5V

    hookup = load_config(None).hookup
    assert SUPPLY_5V not in {wire.pin for wire in wires(hookup)}
    svg = wiring_svg(hookup)
    for said in ("pin 2 (5 V) unconnected", f"own official USB supply ({PI_SUPPLIES})", "fuse 7.5 A on +",
                 "0.1 \u00b5F across", "Connect GND first", "never plug or unplug the strip while it is powered"):
        assert said in svg, said
    parts = " ".join(" | ".join(row) for row in _parts_rows())
    for supply in PI_SUPPLIES.split("; "):
        model, rating = supply.split(": ")
        volts_amps = re.search(r"5\.1 V [\d.]+ A", rating).group(0)
        assert re.search(rf"{re.escape(model)}: [^;|]*{volts_amps}", parts), supply


def test_the_enclosure_section_gives_the_top_and_where_everything_goes():
    """An Enclosure section: the top's size as the template draws it for each layout, the material,
    the strip's mounting and stand-off, diffusers, where the Pi and the supply go, the Pi's green light."""
    from hardware.layout import load_layout
    from hardware.template import template_drawing

    enclosure = " ".join(section(README.read_text(encoding="utf-8"), "Enclosure").split())
    for name in ("classic-121", "three-track-121", "four-track-121"):
        drawing = template_drawing(load_layout(name), legend=False)
        assert f"{drawing.width:.0f} x {drawing.height:.0f} mm" in enclosure, name
    for said in ("plywood or MDF", "acrylic", "**Diffusers**", "opal", "backer board", "stand-offs",
                 "2-4 mm below the diffuser", "The Pi on its M2.5 stand-offs", "the strip supply at the other end",
                 "fuse holder on the back wall", "ventilation", "green activity light"):
        assert said in enclosure, said


def _feeds_drawn(svg: str) -> list[int]:
    """The LEDs the diagram's power panel feeds the strip at."""
    return [int(node.get("data-led")) for node in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")
            if node.get("class") == "feed"]


def test_the_wiring_diagram_feeds_the_strip_where_the_parts_list_does():
    """The diagram's feed points are the parts list's: for two tracks LEDs 0, 121 and 242 (three feed
    points: a terminal each, a JST pair for each past the first, the middle at LED 121); one more a
    track for three and four tracks, as the parts list says; the Power section names the same LEDs."""
    from hardware.layout import load_layout
    from hardware.wiring import FEED_EVERY, feed_points

    parts = " ".join(" | ".join(row) for row in _parts_rows())
    power = " ".join(section(README.read_text(encoding="utf-8"), "Power").split())
    drawn = _feeds_drawn(wiring_svg(load_config(None).hookup))
    assert drawn == list(feed_points(243)) == [0, 121, 242]
    said = re.search(r"the strip's three feed points \(LEDs (\d+), (\d+) and (\d+)\)", parts)
    assert [int(n) for n in said.groups()] == drawn
    assert "a lead to each of the strip's three feed points" in parts
    jst = re.search(r"2-pin JST SM connector pairs \| (\d+) \(one for each feed point past the first: for two tracks "
                    r"the middle, LED (\d+), and the far end\)", parts)
    assert int(jst.group(1)) == len(drawn) - 1 and int(jst.group(2)) == drawn[1]
    assert f"LEDs {drawn[0]}, {drawn[1]} and {drawn[2]} for two tracks" in power
    assert f"every {FEED_EVERY} LEDs at most" in power and f"every {FEED_EVERY} LEDs at most" in parts
    assert "four for three tracks, five for four" in parts
    for name, count in (("three-track-121", 4), ("four-track-121", 5)):
        leds = len(load_layout(name).all_holes())
        hookup = load_config(None, [f"leds.layout={name}"]).hookup
        assert _feeds_drawn(wiring_svg(hookup)) == list(feed_points(leds)) and len(feed_points(leds)) == count
    hookup = load_config(None).hookup
    assert "5 V and GND at 3 feed points" in wiring_svg(hookup)
    unknown = wiring_svg(replace(hookup, strip_leds=0))  # a strip of no length said: its two ends, unnamed
    assert "5 V and GND at both ends" in unknown and _feeds_drawn(unknown) == []
