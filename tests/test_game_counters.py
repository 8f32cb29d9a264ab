"""Game counters: a short row of holes a side, lit one per match game won; every hole keeps its LED."""

import os
import re
import tomllib
import xml.etree.ElementTree as ET
from functools import cache
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.board.frames import OFF, LedStyle, led_frame, light_game_counters
from firmware.board.pc.simulator import Simulator
from firmware.board.pc.terminal import board_geometry, choose_plan, compose
from firmware.config import ConfigError, load_config
from hardware.errors import LayoutError
from hardware.layout import BUNDLED, MAX_GAME_COUNTERS, load_layout, parse_layout
from hardware.template import board_svg, strip_pieces, template_drawing
from hardware.template_pdf import instruction_paragraphs, tile
from hardware.wiring import wiring_svg

SVG = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ.get("CRIBBAGE_SCREENSHOTS") or Path(__file__).resolve().parent / "output") / "counters"
RED, BLUE = (255, 0, 0), (0, 80, 255)
COUNTS = (0, 1, 3, MAX_GAME_COUNTERS)


@cache
def _bundled_text(name):
    return resources.files("hardware.layouts").joinpath(f"{name}.toml").read_text()


def bundled_data(name):
    return tomllib.loads(_bundled_text(name))


def hole_places(layout):
    """Every scoring hole (start and game holes too): its LED and its place."""
    return [(h.track, h.number, h.led, h.x, h.y) for h in layout.all_holes() if not h.counter]


# ---- the layout ----------------------------------------------------------------

@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("name", BUNDLED)
def test_each_layout_has_a_row_of_counters_a_side_after_the_holes_leds(name, count):
    """N counters a track (none for 0), numbered 1..N, on the LEDs after the file's strip_leds, each LED once."""
    layout, base = load_layout(name, count), bundled_data(name)["strip_leds"]
    tracks = len(layout.tracks)
    assert layout.strip_leds == base + tracks * count and layout.counter_leds == tracks * count
    assert layout.hole_leds == base
    if count == 0:
        assert layout.counters == ()
    else:
        assert len(layout.counters) == tracks
        for t, row in enumerate(layout.counters):
            assert [c.number for c in row] == list(range(1, count + 1))
            assert all(c.counter and c.track == t for c in row)
    counter_leds = sorted(c.led for row in layout.counters for c in row)
    assert counter_leds == list(range(base, base + tracks * count))
    assert sorted(h.led for h in layout.all_holes()) == list(range(layout.strip_leds))


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("name", BUNDLED)
def test_no_hole_moves_for_the_counters(name, count):
    """Every hole, start hole and the game hole keeps its LED and place, whatever the count; with 0
    the layout is the one the file always gave (its strip_leds, no counters)."""
    before = load_layout(name)
    assert before == load_layout(name, 0) and before.strip_leds == bundled_data(name)["strip_leds"]
    assert before.counters == () and not any(h.counter for h in before.all_holes())
    after = load_layout(name, count)
    assert hole_places(after) == hole_places(before)
    assert after.tracks == before.tracks and after.starts == before.starts and after.game_hole == before.game_hole


def test_the_classic_rows_run_left_of_the_start_holes_and_wire_as_a_serpentine():
    """Track 1's row from two holes left of its start hole, leftwards, LEDs 243-245; track 2's
    below it, wired back (248-246), so the strip steps down between the rows."""
    layout = load_layout("classic-121", 3)
    assert [(c.x, c.y, c.led) for c in layout.counters[0]] == [(-4, 0, 243), (-5, 0, 244), (-6, 0, 245)]
    assert [(c.x, c.y, c.led) for c in layout.counters[1]] == [(-4, 1, 248), (-5, 1, 247), (-6, 1, 246)]


def test_a_track_places_its_own_row():
    """counters = { at, step } on a track puts its row there (in hole pitches)."""
    data = bundled_data("classic-121")
    data["tracks"][0]["counters"] = {"at": [31, 0], "step": [1, 0]}
    data["tracks"][1]["counters"] = {"at": [31, 1]}  # step defaults to leftwards
    layout = parse_layout(data, "mine.toml", 2)
    assert [(c.x, c.y) for c in layout.counters[0]] == [(31, 0), (32, 0)]
    assert [(c.x, c.y) for c in layout.counters[1]] == [(31, 1), (30, 1)]


@pytest.mark.parametrize("counters, count, message", [
    ({"at": [0, 0]}, 2, "mine.toml: track 1 counters: game counter 1 falls on track 1 hole 1: "
                        "place the row with counters = { at = [x, y], step = [dx, dy] }"),
    ({"at": [-2, 1], "step": [1, 0]}, 1, "mine.toml: track 1 counters: game counter 1 falls on track 2 start hole"),
    ("left", 0, "mine.toml: track 1 counters: give them as counters = { at = [x, y], step = [-1, 0] }"),
    ({"at": "left"}, 3, "mine.toml: track 1 counters: at must be [x, y], not 'left'"),
])
def test_a_misplaced_row_is_one_clear_line(counters, count, message):
    """A row on a hole, or counters given wrongly (even with none wanted), names the track and what is wrong."""
    data = bundled_data("classic-121")
    data["tracks"][0]["counters"] = counters
    with pytest.raises(LayoutError) as caught:
        parse_layout(data, "mine.toml", count)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


CLASSIC_HOLES = hole_places(load_layout("classic-121"))
TOML_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-50, 50) | st.floats(-50, 50, allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["at", "step", "x"]), inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(placed=TOML_VALUES, count=st.integers(0, MAX_GAME_COUNTERS))
def test_any_counters_entry_gives_a_layout_or_one_line(placed, count):
    """Whatever a track's counters entry holds, the layout is built with every hole on its LED, or
    refused with a LayoutError of one line naming the track: never another exception."""
    data = bundled_data("classic-121")
    data["tracks"][0]["counters"] = placed
    try:
        layout = parse_layout(data, "mine.toml", count)
    except LayoutError as error:
        assert str(error).startswith("mine.toml: track 1 counters: ") and "\n" not in str(error)
        return
    assert hole_places(layout) == CLASSIC_HOLES
    assert sorted(h.led for h in layout.all_holes()) == list(range(layout.strip_leds))


@pytest.mark.parametrize("count", [-1, 10, 2.5, True, "3"])
def test_a_bad_count_for_the_layout_is_refused(count):
    """load_layout refuses a count that is not 0 to 9, in one line."""
    with pytest.raises(LayoutError, match=r"^classic-121 \(bundled\): game counters: .* is not a whole number "
                                          r"from 0 to 9$"):
        load_layout("classic-121", count)


# ---- the config ----------------------------------------------------------------

def test_the_config_says_how_many_and_none_by_default():
    """[leds] game_counters: 0 by default (the board built before is unchanged), N gives the layout N a side."""
    assert load_config(None).leds.game_counters == 0 and load_config(None).layout.counters == ()
    config = load_config(None, ["leds.game_counters=4", "leds.layout=three-track-121"])
    assert config.layout.counter_leds == 12 and config.layout.strip_leds == 364 + 12


@pytest.mark.parametrize("value", ["-1", "10", "2.5", '"three"', "true"])
def test_a_bad_game_counters_value_is_one_line_naming_file_and_key(tmp_path, value):
    """A count not 0 to 9 stops with one line: the file, the key, the value and what it must be."""
    path = tmp_path / "config.toml"
    path.write_text(f"[leds]\ngame_counters = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    shown = repr(tomllib.loads(f"v = {value}")["v"])
    assert str(caught.value) == f"{path}: [leds] game_counters = {shown}: must be a whole number from 0 to 9"
    with pytest.raises(ConfigError, match=r"^--set leds.game_counters=12: \[leds\] game_counters = 12: "
                                          r"must be a whole number from 0 to 9$"):
        load_config(None, ["leds.game_counters=12"])


def test_the_default_config_documents_the_key():
    """The commented default file gives game_counters = 0 and says what it does."""
    text = (ROOT / "firmware" / "default-config.toml").read_text()
    assert "\ngame_counters = 0\n" in text and "0 (none) keeps a board built" in text


# ---- the drilling template -------------------------------------------------------

def _by_class(svg, tag, cls):
    return [e for e in ET.fromstring(svg).iter(SVG + tag) if e.get("class") == cls]


@pytest.mark.parametrize("name", BUNDLED)
def test_the_template_drills_numbers_and_labels_the_counters(name):
    """A purple circle on every counter's place, its game number once over each column, "games" over
    the first row; the legend gives their LEDs; nothing of them with none."""
    layout = load_layout(name, 3)
    pitch = layout.pitch_mm
    svg = board_svg(layout)
    circles = {(round(float(c.get("cx")), 2), round(float(c.get("cy")), 2))
               for c in _by_class(svg, "circle", "game-counter")}
    assert circles == {(round(c.x * pitch, 2), round(c.y * pitch, 2)) for row in layout.counters for c in row}
    numbers = _by_class(svg, "text", "game-counter-number")
    assert sorted(n.text for n in numbers) == ["1", "2", "3"]
    for number in numbers:  # over its counter of the first row
        counter = layout.counters[0][int(number.text) - 1]
        assert float(number.get("x")) == pytest.approx(counter.x * pitch, abs=0.01)
        assert float(number.get("y")) < counter.y * pitch
    label = _by_class(svg, "text", "game-counter-label")
    assert [t.text for t in label] == ["games"] and float(label[0].get("y")) < min(float(n.get("y")) for n in numbers)
    legend = " ".join(t.text for t in _by_class(svg, "text", "legend"))
    first = bundled_data(name)["strip_leds"]
    assert f"LED {first}" in [t.text for t in _by_class(svg, "text", "led-number")]  # where their strip starts
    assert "Game counters (purple): 3 a side" in legend
    assert f"(LED {first} to LED {layout.strip_leds - 1}), {layout.strip_leds} LEDs in all" in legend
    plain = board_svg(load_layout(name))
    assert "game-counter" not in plain and "Game counters" not in plain


def test_the_pdf_instructions_carry_the_counters_legend():
    """The PDF prints the legend on page 1: the counters' paragraph is there."""
    drawing = template_drawing(load_layout("classic-121", 2), legend=False)
    paragraphs = [text for text, _, _ in instruction_paragraphs(drawing, tile(drawing, "a4"))]
    assert any(p.startswith("Game counters (purple): 2 a side") and "LED 243 to LED 246" in p for p in paragraphs)


def test_board_template_draws_the_counters_asked_for(tmp_path, capsys):
    """board-template --game-counters N: the SVG has them and the line says so; a bad N is one line, exit 2."""
    from firmware.cli import main

    out = tmp_path / "board.svg"
    assert main(["board-template", "--game-counters", "2", "-o", str(out)]) == 0
    assert len(_by_class(out.read_text(), "circle", "game-counter")) == 4
    assert "classic-121, 2 game counters a side (247 LEDs)" in capsys.readouterr().out
    assert main(["board-template", "--game-counters", "12", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("classic-121 (bundled): game counters: 12 is not a whole number from 0 to 9")
    assert err.count("\n") == 1


@pytest.mark.slow
def test_the_template_with_counters_is_saved_for_review():
    """The classic template with 3 counters a side goes to tests/output/counters for a look."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in ("classic-121", "four-track-121"):
        svg = board_svg(load_layout(name, 3), {91: "skunk line (91)", 61: "double skunk (61)"})
        ET.fromstring(svg)
        (SHOTS / f"template-{name}-3.svg").write_text(svg, encoding="utf-8")


# ---- the wiring diagram and the parts list -------------------------------------------

def test_the_wiring_diagram_counts_the_strips_leds_and_the_counters():
    """The power panel gives the strip's LEDs, the counters' among them, from the config."""
    def said(config):
        found = _by_class(wiring_svg(config.hookup), "text", "strip-leds")
        return [t.text for t in found]

    assert said(load_config(None)) == ["243 LEDs"]
    assert said(load_config(None, ["leds.game_counters=3"])) == [
        "249 LEDs: 243 holes, then 6 game counters (LED 243 on)"]
    assert said(load_config(None, ["leds.game_counters=2", "leds.layout=four-track-121"])) == [
        "493 LEDs: 485 holes, then 8 game counters (LED 485 on)"]


def test_the_parts_list_counts_the_counters_leds_and_bridges():
    """The parts list's strip and bridge rows say what counters add, and the layouts agree:
    N LEDs a track, and a bridge a track from two a side."""
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert "game counters (`[leds] game_counters = N`) add N LEDs a track at the strip's end" in readme
    assert "game counters add one a track (two or more a side)" in readme
    for name in BUNDLED:
        before = load_layout(name)
        for count in range(2, MAX_GAME_COUNTERS + 1):
            after = load_layout(name, count)
            assert after.strip_leds - before.strip_leds == count * len(after.tracks)
            assert len(strip_pieces(after)) - len(strip_pieces(before)) == len(after.tracks)


# ---- the LEDs ---------------------------------------------------------------------

def test_light_game_counters_lights_one_per_win_in_the_sides_colour():
    """Wins (2, 0): Red's first two counters in red, the rest dark; more wins than counters light
    the whole row; a layout without counters is left as it is."""
    layout, style = load_layout("classic-121", 3), LedStyle()
    frame = [OFF] * layout.strip_leds
    light_game_counters(layout, frame, (2, 0), style)
    assert [frame[c.led] for c in layout.counters[0]] == [RED, RED, OFF]
    assert [frame[c.led] for c in layout.counters[1]] == [OFF, OFF, OFF]
    light_game_counters(layout, frame, (2, 7), style)
    assert [frame[c.led] for c in layout.counters[1]] == [BLUE, BLUE, BLUE]
    plain = load_layout("classic-121")
    frame = [OFF] * plain.strip_leds
    light_game_counters(plain, frame, (2, 1), style)
    assert frame == [OFF] * plain.strip_leds


@pytest.mark.parametrize("name", BUNDLED)
def test_a_frame_with_counters_keeps_every_hole_on_its_led(name):
    """The pegs' frame on a layout with counters is the frame without, then the counters' LEDs, dark."""
    from firmware.board.frames import BoardView

    sides = len(load_layout(name).tracks)
    view = BoardView(121, (40, 95, 7, 0)[:sides], (30, 80, 3, 0)[:sides], 0, None)
    before = led_frame(load_layout(name), view)
    after = led_frame(load_layout(name, 3), view)
    assert after[:len(before)] == before and set(after[len(before):]) == {OFF}


def _dial_and(sim, points, button):
    if points == 0 and button == "knob":
        _pause(sim, 1.1)  # a nineteen is a press on its own, not a double press
    sim.act("turn", str(points - sim.board.controller.dial))
    sim.act("click", button)


def _pause(sim, seconds: float) -> None:
    """What ``sim.act("wait", ...)`` does to the board's clock and the buttons' clock, without its real sleep
    (4.4 s a won game here): the board times a double press by its clock alone (firmware.board.controller)."""
    sim.clock.skip(seconds)
    sim.controls.clock.advance(seconds)
    sim.board.step(0)


def _dealer_wins(sim):
    """Three deals in which the first dealer's side counts 28 in hand and crib and its opponent 0
    (then 28 as pone): the first dealer reaches 121 in the third deal's show."""
    for counts in ([0, 28, 28], [28, 0, 0], [0, 28, 28]):
        for points in counts:
            if sim.board.controller.game.is_over:
                return
            _dial_and(sim, points, "knob")
    assert sim.board.controller.game.is_over


def _next_game(sim):
    sim.act("hold", "knob")  # the menu, on "New game"
    sim.act("click", "knob")
    assert not sim.board.controller.game.is_over


def _counters_shown(sim):
    frame, layout = sim.shown_frame(), sim.devices.layout
    return [[frame[c.led] for c in row] for row in layout.counters]


@pytest.mark.slow
def test_a_match_game_won_lights_the_winners_next_counter(tmp_path):
    """Through the mock pins: Red wins game 1 (its counter 1), Blue game 2 (its 1), Red game 3 (its 2);
    the counters follow the scorebook's tally, keep across a restart, and New match puts them out."""
    state = tmp_path / "ledger.sqlite3"
    config = load_config(None, ["leds.game_counters=3"])
    sim = Simulator(config, state)
    try:
        assert _counters_shown(sim) == [[OFF] * 3, [OFF] * 3]
        _dealer_wins(sim)  # Red deals first
        assert sim.board.controller.game.outcome.winner == "Red"
        assert _counters_shown(sim) == [[RED, OFF, OFF], [OFF] * 3]
        sim.snapshot(SHOTS, "red-won-game-1")
        _next_game(sim)  # Blue lost: Blue deals first
        assert _counters_shown(sim) == [[RED, OFF, OFF], [OFF] * 3]
        _dealer_wins(sim)
        assert _counters_shown(sim) == [[RED, OFF, OFF], [BLUE, OFF, OFF]]
        _next_game(sim)
        _dealer_wins(sim)
        assert [t.wins for t in sim.store.book.match.tally()] == [2, 1]
        assert _counters_shown(sim) == [[RED, RED, OFF], [BLUE, OFF, OFF]]
        sim.snapshot(SHOTS, "red-2-blue-1")
    finally:
        sim.close()
    again = Simulator(config, state)
    try:
        assert _counters_shown(again) == [[RED, RED, OFF], [BLUE, OFF, OFF]]  # the tally from the ledger
        again.act("hold", "knob")
        again.act("turn", "1")  # New match
        again.act("click", "knob")
        assert again.board.controller.screen().title == "New match? Tally to 0"
        again.act("turn", "1")  # Yes
        again.act("click", "knob")
        assert again.store.book.match.games_played() == 0
        assert _counters_shown(again) == [[OFF] * 3, [OFF] * 3]
    finally:
        again.close()


@pytest.mark.slow
def test_the_snapshot_shows_the_counters(tmp_path):
    """The LED board PNG has a dot for each counter: a red one after Red's win."""
    from PIL import Image

    sim = Simulator(load_config(None, ["leds.game_counters=3"]), tmp_path / "l.sqlite3")
    try:
        _dealer_wins(sim)
        sim.snapshot(tmp_path, "won")
        layout = sim.devices.layout
    finally:
        sim.close()
    image = Image.open(tmp_path / "won-leds.png").convert("RGB")
    min_x, min_y, _, _ = layout.bounds()
    first = layout.counters[0][0]
    centre = (int((first.x - min_x + 1) * 14), int((first.y - min_y + 1) * 14))
    assert image.getpixel(centre) == RED
    second = layout.counters[0][1]
    assert image.getpixel((int((second.x - min_x + 1) * 14), int((second.y - min_y + 1) * 14))) == OFF


# ---- the terminal board ---------------------------------------------------------------

@pytest.mark.parametrize("name", BUNDLED)
def test_every_layout_with_the_most_counters_fits_80x24(name):
    """With 9 counters a side each bundled layout still has a way to be drawn in 80x24."""
    plan = choose_plan(load_layout(name, MAX_GAME_COUNTERS), 80, 24)
    assert plan is not None and plan.width <= 80 and plan.height <= 24


def test_the_terminal_draws_each_counter_and_labels_the_row():
    """A cell for every counter LED, left of the start holes; "games" over the first row; hole labels as before."""
    layout = load_layout("classic-121", 3)
    geometry, plain = board_geometry(layout, 2), board_geometry(load_layout("classic-121"), 2)
    for row in layout.counters:
        for counter in row:
            assert counter.led in geometry.cells
            assert geometry.cells[counter.led][1] < geometry.cells[layout.starts[0].led][1]
    texts = [text for _, _, text in geometry.labels]
    assert "games" in texts and sorted(t for t in texts if t != "games") == sorted(t for _, _, t in plain.labels)
    (row, col, _), = [label for label in geometry.labels if label[2] == "games"]
    first_row = [geometry.cells[c.led] for c in layout.counters[0]]
    assert row < min(r for r, _ in first_row) and col == min(c for _, c in first_row)


@pytest.mark.slow
def test_the_80x24_board_shows_a_won_game_on_its_counter(tmp_path):
    """After Red's win the terminal shows Red's first counter lit (●), its others and Blue's unlit (·)."""
    sim = Simulator(load_config(None, ["leds.game_counters=3"]), tmp_path / "l.sqlite3")
    try:
        _dealer_wins(sim)
        lines = compose(sim, 80, 24, colour=False).lines()
        geometry = board_geometry(sim.devices.layout, choose_plan(sim.devices.layout, 80, 24).hx)
        cells = [[geometry.cells[c.led] for c in row] for row in sim.devices.layout.counters]
    finally:
        sim.close()
    shown = [[lines[1 + r][c] for r, c in row] for row in cells]
    assert shown == [["●", "·", "·"], ["·", "·", "·"]]
    assert re.search(r"\bgames\b", lines[1])
