"""Board layouts as data: bundled boards, serpentine runs, clear errors."""

import copy
import re
import tomllib
import tracemalloc
from importlib import resources

import pytest
from helpers import LAYOUT_CASES, layout_path

from hardware.errors import LayoutError
from hardware.layout import BUNDLED, load_layout, parse_layout

from waits import no_hang


def bundled_data(name="classic-121"):
    return tomllib.loads(resources.files("hardware.layouts").joinpath(f"{name}.toml").read_text())


@pytest.mark.parametrize("name, tracks, leds", [
    ("classic-121", 2, 243), ("three-track-121", 3, 364), ("four-track-121", 4, 485)])
def test_bundled_layouts_use_every_led_once(name, tracks, leds):
    """Each bundled board maps every hole, start hole and the game hole to its own LED."""
    layout = load_layout(name)
    assert len(layout.tracks) == tracks and layout.strip_leds == leds
    used = [h.led for h in layout.all_holes()]
    assert sorted(used) == list(range(leds))


def test_serpentine_runs_reverse_every_other_row():
    """Track 2's first street runs back along the strip, as a serpentine is laid."""
    layout = load_layout("classic-121")
    assert [layout.led(0, h) for h in (1, 2, 30, 31, 60)] == [0, 1, 29, 89, 60]
    assert [layout.led(1, h) for h in (1, 2, 30)] == [59, 58, 30]
    assert layout.led(0, 121) == layout.led(1, 121) == 240
    assert layout.led(0, 0) == 241 and layout.led(1, 0) == 242


def test_neighbouring_holes_are_one_pitch_apart():
    """Consecutive holes inside a street are one pitch apart on the board."""
    layout = load_layout("classic-121")
    for track in layout.tracks:
        for a, b in zip(track, track[1:]):
            if (a.number - 1) // 30 == (b.number - 1) // 30:
                assert abs(a.x - b.x) + abs(a.y - b.y) == 1


def _broken(change):
    data = bundled_data()
    data = copy.deepcopy(data)
    change(data)
    return data


@pytest.mark.parametrize("change, message", [
    (lambda d: d["tracks"][1]["runs"][0].update(leds="0-29"),
     "track 2 run 1: hole 1: LED 0 is already track 1 hole 1"),
    (lambda d: d["tracks"][0]["runs"][0].update(holes="0-29"),
     "track 1 run 1: hole 0 is out of range 1-120"),
    (lambda d: d.update(strip_leds=200),
     "track 1 run 4: hole 91: LED 209 is past the end of the 200-LED strip"),
    (lambda d: d["tracks"][0]["runs"].pop(),
     "track 1: holes 91-120 have no LED"),
    (lambda d: d["tracks"][0]["runs"][0].update(leds="0-28"),
     "track 1 run 1: 30 holes but 29 LEDs"),
    (lambda d: d["tracks"][0]["runs"][1].update(holes="1-30"),
     "track 1 run 2: hole 1 is given twice"),
    (lambda d: d["game_hole"].update(led=0), "the game hole: LED 0 is already track 1 hole 1"),
    (lambda d: d.update(colour="red"), "unknown key 'colour'"),
    (lambda d: d["tracks"].pop(), "give 2, 3 or 4 [[tracks]]"),
    (lambda d: d["tracks"][0]["runs"][0].update(holes="one-thirty"),
     "track 1 run 1: 'one-thirty' is not a range"),
    (lambda d: d["tracks"][0]["runs"][0].update(holes="1-99999999999"),
     "track 1 run 1: '1-99999999999': a run has at most 120 holes"),
    (lambda d: d["tracks"][0]["runs"][0].update(holes="9" * 5000),
     "track 1 run 1: '999999999999999999999999999...9999999999999999999999999999' is not a range"),
    (lambda d: d["tracks"].__setitem__(1, 7), "track 2: give each track as a [[tracks]] table"),
    (lambda d: d["tracks"][0]["runs"].__setitem__(0, "1-30"), "track 1 run 1: give each run as { holes"),
    (lambda d: d["tracks"][0]["runs"][0].update(step=["a", "b"]), "track 1 run 1: step must be [x, y], not ['a', 'b']"),
    (lambda d: d.update({"x" * 5000: 1}), "unknown key 'xxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxx': use"),
])
def test_wrong_layouts_name_the_entry(change, message):
    """Duplicate LEDs, holes out of range, a strip too short: each error names the entry."""
    with pytest.raises(LayoutError, match=re.escape(message)) as caught:
        parse_layout(_broken(change), "board.toml")
    assert len(str(caught.value)) < 200


def test_layout_file_errors(tmp_path):
    """A missing or malformed file is a one-line error naming the file."""
    with pytest.raises(LayoutError, match="nope.toml: cannot read the layout: .*bundled layouts: classic-121"):
        load_layout(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(LayoutError, match="bad.toml: not valid TOML"):
        load_layout(bad)


def test_hole_lookup_errors():
    """Asking for a hole or track off the board is a clear error."""
    layout = load_layout("classic-121")
    with pytest.raises(LayoutError, match="hole 122 is off the board"):
        layout.led(0, 122)
    with pytest.raises(LayoutError, match="has 2 tracks, not track 3"):
        layout.led(2, 1)
    assert set(BUNDLED) == {"classic-121", "three-track-121", "four-track-121"}


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_load_layout_refuses_a_hostile_file(tmp_path, case):
    """load_layout itself: a LayoutError of one line naming the file, the reason and the
    bundled layouts; a huge file is not read whole, a FIFO or /dev/zero does not block."""
    path = layout_path(tmp_path, case)
    tracemalloc.start()
    try:
        with no_hang(), pytest.raises(LayoutError) as caught:
            load_layout(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and LAYOUT_CASES[case][1] in message
    assert message.endswith("(bundled layouts: classic-121, three-track-121, four-track-121)")
    assert "\n" not in message and len(message) < 300
    assert peak < 4 * 1024 * 1024, peak  # at most the 256 KB cap (and a little) was read
