"""tests/wire.py: the bus recordings parsed, the SSD1306 model and the WS2812 reading checked against
every recording pair in tests/data/recordings (and errors planted in them), and the model's corners."""

import json
import re
from pathlib import Path

import pytest
from PIL import Image

from wire import (
    COMMANDS,
    I2cMessage,
    SpiTransfer,
    Ssd1306,
    WireError,
    check_oled,
    check_strip,
    describe,
    differences,
    oled,
    parse_i2c,
    parse_spi,
    read_colours,
    read_pbm,
    strip_frames,
)

RECORDINGS = Path(__file__).parent / "data" / "recordings"
PARTNER = {"i2c": ".pbm", "spi": ".json"}  # each recording's partner: the picture or the colours meant
OLEDS = sorted(p.stem for p in RECORDINGS.glob("i2c-*.txt"))
STRIPS = sorted(p.stem for p in RECORDINGS.glob("spi-*.txt"))
FRAME_AT = "0021007f220007"  # luma before each frame: columns 0-127, pages 0-7


def recording(name: str) -> list[str]:
    return (RECORDINGS / f"{name}.txt").read_text().splitlines()


def picture(name: str) -> bytes:
    return (RECORDINGS / f"{name}.pbm").read_bytes()


def last_line(lines: list[str], data_prefix: str, address: str = "3c") -> int:
    """The index of the last write to ``address`` whose data starts with ``data_prefix``."""
    found = [i for i, line in enumerate(lines) if line.split(" ")[1:3] == [address, "w"]
             and line.split(" ")[3].startswith(data_prefix)]
    assert found, f"no write to {address} starting {data_prefix}"
    return found[-1]


def with_data(line: str, data: str) -> str:
    return " ".join(line.split(" ")[:-1] + [data])


def i2c(*data: str, address: str = "3c") -> str:
    """A recording of writes to ``address``, one a data hex string, 10 us apart."""
    return "\n".join(f"{10 * n} {address} w {hexes.replace(' ', '')}" for n, hexes in enumerate(data))


LUMA_INIT = "00 ae d580 a83f d300 40 8d14 2000 a1 c8 da12 d9f1 db40 a4 a6"
BLANK = "40" + "00" * 1024  # every GDDRAM byte, from column 0 page 0 (page mode wraps within a page: horizontal)


def lit(chip: Ssd1306) -> list[tuple[int, int]]:
    """The lit pixels of the chip's picture, (x, y)."""
    return [(x, y) for y, row in enumerate(chip.frame()) for x, value in enumerate(row) if value]


def one_pixel(*commands: str) -> Ssd1306:
    """Blank GDDRAM written, GDDRAM column 3 row 10 (page 1, bit 2) set, then ``commands``, display on."""
    return oled(i2c("00 2000 21007f 220007", BLANK, "00 2103 03 2201 01", "40 04", "00 af", *commands))


# -- the recordings folder -------------------------------------------------------------------------

def test_every_recording_has_its_partner():
    """Each i2c-NAME.txt has its .pbm and each spi-NAME.txt its .json, and back: none is skipped unread."""
    problems = []
    for path in sorted(RECORDINGS.iterdir()):
        if path.suffix not in (".txt", ".pbm", ".json"):
            continue
        kind = path.stem.split("-")[0]
        if kind not in PARTNER or path.suffix not in (".txt", PARTNER[kind]):
            problems.append(f"{path.name}: neither i2c-NAME.txt/.pbm nor spi-NAME.txt/.json")
            continue
        partner = path.with_suffix(PARTNER[kind] if path.suffix == ".txt" else ".txt")
        if not partner.exists():
            problems.append(f"{path.name} has no {partner.name}")
    assert not problems, "; ".join(problems)
    assert OLEDS and STRIPS, "no recording pairs to test"


# -- the recordings, as recorded -------------------------------------------------------------------

@pytest.mark.parametrize("name", OLEDS)
def test_the_oled_recording_shows_the_image_the_board_drew(name):
    """Replayed on the SSD1306 model, the recording shows the board's image pixel for pixel, lit, pump on."""
    chip = check_oled("\n".join(recording(name)), picture(name))
    assert chip.display_on and chip.charge_pump and not chip.inverse and not chip.entire_on
    assert differences(chip.frame(), picture(name)) == []


@pytest.mark.parametrize("name", OLEDS)
def test_the_pbm_reads_as_pillow_reads_it(name):
    """read_pbm agrees with Pillow: a lit (white) pixel is 1."""
    image = Image.open(RECORDINGS / f"{name}.pbm")
    assert image.mode == "1" and image.size == (128, 64)
    rows = read_pbm(picture(name))
    assert [[1 if image.getpixel((x, y)) else 0 for x in range(128)] for y in range(64)] == [list(r) for r in rows]
    assert 0 < sum(map(sum, rows)) < 128 * 64  # a picture, not a blank


@pytest.mark.parametrize("name", STRIPS)
def test_the_strip_recording_carries_the_colours_the_board_meant(name):
    """Each transfer, read at its recorded clock as a WS2812B reads it, is the frame the JSON gives."""
    meant = (RECORDINGS / f"{name}.json").read_text()
    hz, frames = read_colours(meant)
    assert check_strip("\n".join(recording(name)), meant) == frames
    assert all(len(frame) == 243 for frame in frames) and any(any(c) for frame in frames for c in frame)


# -- errors planted in the OLED recordings ---------------------------------------------------------

@pytest.mark.parametrize("name", OLEDS)
@pytest.mark.parametrize("page, column, bit", [(3, 77, 5), (0, 0, 0), (7, 127, 7), (4, 9, 1)])
def test_a_flipped_bit_in_the_frame_is_one_pixel_at_its_place(name, page, column, bit):
    """One GDDRAM bit flipped in the last frame: exactly one pixel differs, at x = column, y = page * 8 + bit."""
    lines = recording(name)
    at = last_line(lines, "40")
    assert lines[at - 1].split(" ")[3] == FRAME_AT
    data = bytearray.fromhex(lines[at].split(" ")[3])
    data[1 + page * 128 + column] ^= 1 << bit
    lines[at] = with_data(lines[at], data.hex())
    assert differences(oled("\n".join(lines)).frame(), picture(name)) == [(column, page * 8 + bit)]


@pytest.mark.parametrize("name", OLEDS)
def test_a_frame_started_one_page_down_is_seen(name):
    """PAGEADDR 1-7 instead of 0-7: page 0 keeps the picture before, pages 1-7 get the image's pages 0-6,
    and its page 7 wraps round to page 1 (horizontal mode wraps within the window)."""
    lines = recording(name)
    at = last_line(lines, "40") - 1
    before = oled("\n".join(lines[:at])).frame()
    lines[at] = with_data(lines[at], FRAME_AT.replace("220007", "220107"))
    got = oled("\n".join(lines)).frame()
    want = read_pbm(picture(name))
    assert differences(got, picture(name))
    assert got == before[:8] + want[56:64] + want[8:56]


@pytest.mark.parametrize("name", OLEDS)
def test_frame_data_shifted_by_128_bytes_is_seen(name):
    """The frame's data rotated by one page (128 bytes): the picture moves up 8 rows, its top at the bottom."""
    lines = recording(name)
    at = last_line(lines, "40")
    data = lines[at].split(" ")[3][2:]
    lines[at] = with_data(lines[at], "40" + data[256:] + data[:256])
    got = oled("\n".join(lines)).frame()
    want = read_pbm(picture(name))
    assert differences(got, picture(name)) and got == want[8:] + want[:8]


@pytest.mark.parametrize("name", OLEDS)
def test_a_command_cut_short_is_an_error(name):
    """The contrast command without its argument byte: an error naming the line."""
    lines = recording(name)
    at = last_line(lines, "0081")
    lines[at] = with_data(lines[at], "0081")
    with pytest.raises(WireError, match=fr"^line {at + 1}: command 0x81 \(contrast\) needs 1 argument bytes "
                                        "but the message ends after 0$"):
        oled("\n".join(lines))


@pytest.mark.parametrize("name", OLEDS)
@pytest.mark.parametrize("byte", [0x23, 0x80, 0xA2, 0xAD, 0xC4, 0xD6, 0xFF])
def test_an_unknown_command_byte_is_an_error(name, byte):
    """A byte outside the datasheet's command table, where luma sends the contrast: an error naming it."""
    assert byte not in COMMANDS
    lines = recording(name)
    at = last_line(lines, "0081")
    lines[at] = with_data(lines[at], f"00{byte:02x}")
    with pytest.raises(WireError, match=f"^line {at + 1}: {byte:#04x} is not an SSD1306 command$"):
        oled("\n".join(lines))


@pytest.mark.parametrize("name", OLEDS + STRIPS)
@pytest.mark.parametrize("comment", ["# dropped 3", "# cribbage_i2c_rec: bus 1, 3 lines dropped", "#dropped 12"])
def test_dropped_lines_are_an_error(name, comment):
    """A recording whose ring buffer lost lines is refused, never read as the whole stream."""
    lines = recording(name)
    lines.insert(1, comment)
    parse = parse_i2c if name.startswith("i2c") else parse_spi
    with pytest.raises(WireError, match=r"^line 2: the recorder dropped [0-9]+ lines, so the stream is incomplete"):
        parse("\n".join(lines))


@pytest.mark.parametrize("comment", ["# dropped 0", "# cribbage_i2c_rec: bus 1, 0 lines dropped", "# bus 1"])
def test_a_comment_that_drops_nothing_is_only_a_comment(comment):
    """A comment saying nothing was dropped, or nothing about dropping, is skipped."""
    assert parse_i2c(f"{comment}\n5 3c w 00af") == [I2cMessage(2, 5, 0x3C, "w", b"\x00\xaf")]


def test_a_comment_about_dropping_without_a_count_is_an_error():
    """A comment about dropped lines must say how many."""
    with pytest.raises(WireError, match="^line 1: a comment about dropped lines without a count"):
        parse_i2c("# some dropped\n5 3c w 00af")


# -- parsing ---------------------------------------------------------------------------------------

def test_i2c_lines_give_address_direction_and_data():
    """w, r (data as answered), nak (no data), - for none, comments skipped, line numbers kept."""
    text = "# cribbage_i2c_rec: bus 1\n1523 3c w 00ae\n1530 3c w 40ff00\n1600 50 nak\n1610 50 r 0102\n1620 7f w -\n"
    assert parse_i2c(text) == [
        I2cMessage(2, 1523, 0x3C, "w", b"\x00\xae"),
        I2cMessage(3, 1530, 0x3C, "w", b"\x40\xff\x00"),
        I2cMessage(4, 1600, 0x50, "nak", b""),
        I2cMessage(5, 1610, 0x50, "r", b"\x01\x02"),
        I2cMessage(6, 1620, 0x7F, "w", b""),
    ]


def test_spi_lines_give_clock_bits_mode_and_data():
    """HZ, BITS and MODE as decimal, DATA as hex or - for none."""
    text = "# cribbage_spi_rec\n98765 2400000 8 0 0000db6db6\n98800 4800000 16 11 -\n"
    assert parse_spi(text) == [SpiTransfer(2, 98765, 2_400_000, 8, 0, bytes.fromhex("0000db6db6")),
                               SpiTransfer(3, 98800, 4_800_000, 16, 11, b"")]


@pytest.mark.parametrize("bad, why", [
    ("1530 3c w 40FF", "DATA must be lowercase hex"),
    ("1530 3c w 40f", "DATA must be lowercase hex"),
    ("1530 3c w", "a w line has four fields"),
    ("1530 3c r", "a r line has four fields"),
    ("1530 3c w 40 ff", "a w line has four fields"),
    ("1530 3c  w 40ff", "fields are separated by single spaces"),
    ("1530 3C w 40ff", "expected MICROSECONDS ADDR DIR"),
    ("1530 80 w 40ff", "expected MICROSECONDS ADDR DIR"),
    ("1530 3c4 w 40ff", "expected MICROSECONDS ADDR DIR"),
    ("1530 3c nak 00", "a nak has no DATA field"),
    ("1530 3c x 00", "DIR 'x' is none of w, r, nak"),
    ("15.3 3c w 00", "MICROSECONDS must be a decimal number"),
    ("", "MICROSECONDS must be a decimal number"),
    ("1000 3c w 00ae", "the time goes back from 1523 us"),
])
def test_a_malformed_i2c_line_is_named_by_its_number(bad, why):
    """Each malformed I2C line is a one-line error naming its line number."""
    lines = ["# cribbage_i2c_rec", "1523 3c w 00ae", bad, "1600 3c w 00af"]
    with pytest.raises(WireError, match=f"^line 3: {why}"):
        parse_i2c("\n".join(lines))


@pytest.mark.parametrize("bad, why", [
    ("9 2400000 8 0", "expected MICROSECONDS HZ BITS MODE DATA"),
    ("9 2.4e6 8 0 00", "expected MICROSECONDS HZ BITS MODE DATA"),
    ("9 2400000 8 -1 00", "expected MICROSECONDS HZ BITS MODE DATA"),
    ("9 0 8 0 00", "HZ must be above 0 and BITS 1 to 32"),
    ("9 2400000 0 0 00", "HZ must be above 0 and BITS 1 to 32"),
    ("9 2400000 8 0 0g", "DATA must be lowercase hex"),
])
def test_a_malformed_spi_line_is_named_by_its_number(bad, why):
    """Each malformed SPI line is a one-line error naming its line number."""
    with pytest.raises(WireError, match=f"^line 2: {why}"):
        parse_spi("\n".join(["1 2400000 8 0 00", bad]))


def test_a_long_bad_line_is_shown_cut_short():
    """The error quotes the start of the line, not kilobytes of hex."""
    with pytest.raises(WireError) as caught:
        parse_i2c("1 3c w 40" + "AB" * 1000)
    assert len(str(caught.value)) < 200 and str(caught.value).endswith("...'")


# -- the SSD1306 model -----------------------------------------------------------------------------

def test_horizontal_mode_wraps_in_the_column_and_page_window():
    """0x20 0x00: column by column to the window's end, then the next page; after the last page, the first."""
    chip = oled(i2c("00 2000 2110 11 2202 03", "40 01 02 03 04 05"))
    assert [chip.ram[p * 128 + c] for p, c in [(2, 16), (2, 17), (3, 16), (3, 17)]] == [5, 2, 3, 4]
    assert (chip.page, chip.column) == (2, 17)


def test_vertical_mode_goes_down_the_pages_first():
    """0x20 0x01: page by page to the window's end, then the next column; after the last column, the first."""
    chip = oled(i2c("00 2001 2105 06 2206 07", "40 01 02 03 04 05"))
    assert [chip.ram[p * 128 + c] for p, c in [(6, 5), (7, 5), (6, 6), (7, 6)]] == [5, 2, 3, 4]


def test_page_mode_stays_on_its_page():
    """0x20 0x02 (the reset mode): 0xB2 page 2, 0x0E 0x17 column 126; past column 127 back to column 126."""
    chip = oled(i2c("00 b2 0e 17", "40 01 02 03"))
    assert (chip.ram[2 * 128 + 126], chip.ram[2 * 128 + 127], chip.ram[3 * 128]) == (3, 2, 0)


@pytest.mark.parametrize("command", ["b3", "05", "12"])
def test_page_mode_commands_in_horizontal_mode_are_an_error(command):
    """0x00-0x1F and 0xB0-0xB7 are for page addressing mode only."""
    with pytest.raises(WireError, match=f"^line 1: command 0x{command} .* is for page addressing mode, and the chip "
                                        "is in horizontal mode$"):
        oled(i2c(f"00 2000 {command}"))


def test_single_byte_control_bytes_and_streams_mix_in_one_message():
    """0x80 one command, 0xC0 one data byte, then 0x00 a command stream to the end."""
    chip = oled(i2c("80 a5 c0 ff 80 81 80 cf 00 af a7"))
    assert (chip.entire_on, chip.ram[0], chip.contrast, chip.display_on, chip.inverse) == (True, 0xFF, 0xCF, True, True)


@pytest.mark.parametrize("message, why", [
    ("01 af", r"byte 0 \(0x01\) is not a control byte"),
    ("80 af 20", r"byte 2 \(0x20\) is not a control byte"),
    ("80 af 80", "control byte 0x80 ends the message: the byte it announces is missing"),
    ("80 81 c0 ff", r"a data byte while command 0x81 \(contrast\) waits for 1 more argument bytes"),
    ("00 2003", r"command 0x20 \(memory addressing mode\): 0x03 selects mode 3"),
    ("00 a80e", "15 MUX; the datasheet allows 16 to 64"),
    ("00 da42", "0x42 is none of 0x02, 0x12, 0x22, 0x32"),
    ("00 210504", "columns 5 to 4 run backwards"),
    ("00 220301", "pages 3 to 1 run backwards"),
    ("00 2f", "no scroll was set up"),
    ("00 18", "a higher nibble of 8 puts the column beyond 127"),
    ("80 26 80 00 80 00 80 00 80 07 80 00 80 ff 80 2f 40 00", "GDDRAM written while a scroll runs"),
])
def test_what_the_datasheet_does_not_allow_is_an_error(message, why):
    """Malformed control bytes and arguments the datasheet does not allow name their line."""
    with pytest.raises(WireError, match=f"^line 1: .*{why}"):
        oled(i2c(message))


def test_a_command_split_over_messages_is_an_error_unless_allowed():
    """Contrast and its argument in two messages: an error by default; with split_commands, the contrast."""
    text = i2c("00 81", "00 cf")
    with pytest.raises(WireError, match="^line 1: command 0x81"):
        oled(text)
    assert oled(text, split_commands=True).contrast == 0xCF
    chip = oled(i2c(BLANK, "00 af 22"), split_commands=True)
    with pytest.raises(WireError, match=r"^line 2: the recording ends inside command 0x22 \(page address\), "
                                        "0 of its 2 argument bytes sent$"):
        chip.frame()


@pytest.mark.parametrize("remap, scan, where", [
    ("a1", "c8", (3, 10)),  # what luma sends: the image as drawn
    ("a0", "c8", (124, 10)),  # columns mirrored
    ("a1", "c0", (3, 53)),  # rows mirrored
    ("a0", "c0", (124, 53)),  # turned half round
])
def test_segment_remap_and_com_scan_place_a_pixel(remap, scan, where):
    """On a 128x64 module, A1 + C8 shows GDDRAM column c at x = c and RAM row r at y = r."""
    assert lit(one_pixel(f"00 {remap} {scan}")) == [where]


@pytest.mark.parametrize("command, scan, y", [
    ("45", "c8", 5), ("45", "c0", 58),  # display start line 5: RAM row 10 is scan row 5
    ("d305", "c8", 5), ("d305", "c0", 58),  # offset 5: scan row 10 moves 5 COMs towards COM0
    ("4a d336", "c8", 10), ("7f d301", "c8", 10),  # they add up, modulo 64
])
def test_start_line_and_offset_move_the_rows(command, scan, y):
    """GDDRAM row 10 of column 3, moved by the display start line and the display offset."""
    assert lit(one_pixel(f"00 a1 {scan} {command}")) == [(3, y)]


@pytest.mark.parametrize("scan", ["c0", "c8"])
def test_a_multiplex_ratio_below_64_leaves_rows_dark(scan):
    """48 MUX: 48 rows driven, 16 COMs dark; with all pixels on (0xA5) only those rows light."""
    chip = one_pixel(f"00 a1 {scan} a82f a5")
    rows = [y for y, row in enumerate(chip.frame()) if any(row)]
    assert rows == list(range(16, 64)) and all(all(row) for row in chip.frame()[16:])


def test_remapped_scan_with_a_short_multiplex_and_an_offset_is_not_guessed():
    """C8, under 64 MUX and an offset: no picture made up."""
    with pytest.raises(WireError, match="COM scan remapped with 48 MUX and offset 4"):
        one_pixel("00 a1 c8 a82f d304").frame()


@pytest.mark.parametrize("pins", ["02", "22", "32"])
def test_com_pins_other_than_0x12_are_reported_not_guessed(pins):
    """A 128x64 module is wired for 0x12: another COM pins value scrambles its rows, so no picture is made up."""
    chip = one_pixel(f"00 a1 c8 da{pins}")
    assert chip.com_pins == int(pins, 16)
    with pytest.raises(WireError, match=f"COM pins configuration 0x{pins}: a 128x64 module is wired for 0x12"):
        chip.frame()


def test_inverse_entire_on_and_display_off():
    """0xA7 inverts, 0xA5 lights all (over the inverse), 0xAE darkens all."""
    assert len(lit(one_pixel("00 a1 c8 a7"))) == 128 * 64 - 1 and (3, 10) not in lit(one_pixel("00 a1 c8 a7"))
    assert len(lit(one_pixel("00 a1 c8 a7 a5"))) == 128 * 64
    chip = one_pixel("00 a1 c8 ae")
    assert not chip.display_on and lit(chip) == []


def test_gddram_never_written_is_not_taken_as_dark():
    """luma's init alone, display on: the panel would show whatever GDDRAM held at power-up."""
    chip = oled(i2c(LUMA_INIT, "00 af"))
    with pytest.raises(WireError, match="GDDRAM page 0 column 0 is shown but was never written"):
        chip.frame()


def test_a_scroll_leaves_no_one_frame():
    """A running scroll has no one frame; after it stops, GDDRAM must be written again."""
    chip = oled(i2c("00 2000", BLANK, "00 af 26 00 00 00 07 00 ff 2f"))
    with pytest.raises(WireError, match="a scroll runs"):
        chip.frame()
    chip = oled(i2c("00 2000", BLANK, "00 af 26 00 00 00 07 00 ff 2f 2e"))
    with pytest.raises(WireError, match="never written"):  # the scroll moved GDDRAM: it must be rewritten
        chip.frame()


def test_reset_state_and_luma_init():
    """The reset values, then what luma's init sets: 64 MUX, horizontal mode, A1, C8, 0x12, pump on, off."""
    chip = Ssd1306()
    assert (chip.addressing_mode, chip.contrast, chip.display_on, chip.charge_pump, chip.com_pins) == (2, 0x7F, False,
                                                                                                       False, 0x12)
    chip = oled(i2c(LUMA_INIT))
    assert (chip.addressing_mode, chip.multiplex, chip.segment_remap, chip.com_remap, chip.charge_pump,
            chip.display_on, chip.start_line, chip.display_offset) == (0, 64, True, True, True, False, 0, 0)


def test_other_addresses_and_reads_are_left_alone_and_a_nak_is_an_error():
    """Only writes to 0x3C reach the model; a nak there is an error."""
    chip = oled(i2c("00 af") + "\n20 50 w 00a5\n30 3c r 40\n40 50 nak")
    assert chip.display_on and not chip.entire_on
    with pytest.raises(WireError, match="^line 2: 0x3c did not acknowledge"):
        oled(i2c("00 af") + "\n20 3c nak")


# -- pictures --------------------------------------------------------------------------------------

def test_differences_and_their_description():
    """differences lists (x, y) row by row; describe names the first few."""
    blank = [[0] * 128 for _ in range(64)]
    other = [row[:] for row in blank]
    for x, y in [(1, 2), (127, 63), (5, 0)]:
        other[y][x] = 1
    found = differences(other, blank)
    assert found == [(5, 0), (1, 2), (127, 63)]
    assert describe(found, other, limit=2) == ("3 pixels differ from the expected picture: (5, 0) lit, (1, 2) lit "
                                               "and 1 more")
    with pytest.raises(WireError, match="the expected picture is not 128x64"):
        differences(blank, blank[:63])


def test_check_oled_names_the_first_pixels_that_differ():
    """check_oled passes a match and names the first pixel of a mismatch, or a dark panel."""
    chip_text = i2c(LUMA_INIT, "0081cf", "00" + "21007f220007", BLANK, "00af")
    expected = [[0] * 128 for _ in range(64)]
    assert check_oled(chip_text, expected).display_on
    expected[7][9] = 1
    with pytest.raises(WireError, match=r"^1 pixels differ from the expected picture: \(9, 7\) dark$"):
        check_oled(chip_text, expected)
    with pytest.raises(WireError, match="the display is off and its charge pump on"):
        check_oled(chip_text.replace("00af", "00ae"), expected)


@pytest.mark.parametrize("data, why", [
    (b"P1\n128 64\n", "not a binary PBM"),
    (b"P4\n128\n", "not a binary PBM"),
    (b"P4\n128 64\n" + bytes(10), "a 128x64 PBM has 1024 bytes of pixels, not 10"),
])
def test_a_bad_pbm_is_an_error(data, why):
    """Not P4, a header cut short, or the wrong number of pixel bytes: an error."""
    with pytest.raises(WireError, match=why):
        read_pbm(data)


def test_pbm_header_comments_are_skipped():
    """Comments in the PBM header are skipped; lit pixels are 0 bits."""
    rows = read_pbm(b"P4\n# made by hand\n16 # wide\n2\n" + bytes([0x7F, 0xFF, 0xFF, 0xFE]))
    assert rows == [bytes([1] + [0] * 15), bytes([0] * 15 + [1])]


# -- errors planted in the strip recordings --------------------------------------------------------

def strip_case(name: str) -> tuple[list[str], int, bytearray, int]:
    """The recording's lines, the index of its first transfer line, that transfer's bytes and its leading
    zero bytes (the reset before the first LED, whose first bit always starts high)."""
    lines = recording(name)
    at = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    fields = lines[at].split(" ")
    assert fields[1] == "2400000", "the planted bits are placed for 2.4 MHz: 3 SPI bits a data bit"
    data = bytearray.fromhex(fields[4])
    lead = len(data) - len(data.lstrip(b"\0"))
    return lines, at, data, lead


def meant_frames(name: str) -> tuple[list[tuple[int, int, int]], list[list[tuple[int, int, int]]]]:
    """The frames a strip recording's JSON says were meant: the first, where errors are planted, and the rest."""
    _, frames = read_colours((RECORDINGS / f"{name}.json").read_text())
    return frames[0], frames[1:]


def data_bit(colours: list[tuple[int, int, int]], index: int) -> int:
    """Data bit ``index`` of a frame as the strip reads it: 24 an LED, green, red, blue, each MSB first."""
    red, green, blue = colours[index // 24]
    return (green, red, blue)[index % 24 // 8] >> (7 - index % 8) & 1


def flipped(colours: list[tuple[int, int, int]], index: int) -> list[tuple[int, int, int]]:
    """The frame with data bit ``index`` flipped (numbered as :func:`data_bit` numbers them)."""
    rgb = list(colours[index // 24])
    rgb[(1, 0, 2)[index % 24 // 8]] ^= 0x80 >> index % 8  # the wire's order is green, red, blue
    return colours[:index // 24] + [tuple(rgb)] + colours[index // 24 + 1:]


@pytest.mark.parametrize("name", STRIPS)
@pytest.mark.parametrize("led, channel, bit", [(0, 0, 0), (103, 2, 3), (242, 1, 7), (19, 0, 2)])
def test_a_flipped_data_bit_changes_that_led_only(name, led, channel, bit):
    """At 2.4 MHz a data bit is 1x0 on the wire: flipping the middle SPI bit flips that one colour bit."""
    lines, at, data, lead = strip_case(name)
    spi_bit = lead * 8 + 3 * (led * 24 + channel * 8 + bit) + 1
    data[spi_bit // 8] ^= 0x80 >> spi_bit % 8
    lines[at] = with_data(lines[at], data.hex())
    meant, rest = meant_frames(name)
    assert strip_frames(parse_spi("\n".join(lines))) == [flipped(meant, led * 24 + channel * 8 + bit), *rest]


@pytest.mark.parametrize("name", STRIPS)
@pytest.mark.parametrize("led, channel, bit", [(5, 1, 4), (103, 0, 5), (103, 2, 1), (103, 2, 3)])
@pytest.mark.parametrize("which", [0, 2])
def test_a_flipped_edge_bit_is_caught_or_reads_as_that_bit(name, led, channel, bit, which):
    """At 2.4 MHz a 0 is 100 on the wire and a 1 is 110. The first SPI bit lost: a 0's pulse goes, so
    the bit before it lasts 2500 ns; a 1 becomes 010, a 0 on time. The last SPI bit set: a 1 runs into
    the next bit's pulse (3 + 1 or 2 SPI bits high, neither); a 0 (101) starts the next bit's pulse an
    SPI bit early: a next 0 reads as a 1, a next 1 is 1250 ns high (neither)."""
    lines, at, data, lead = strip_case(name)
    meant, rest = meant_frames(name)
    index = led * 24 + channel * 8 + bit
    value, after = data_bit(meant, index), data_bit(meant, index + 1)
    spi_bit = lead * 8 + 3 * index + which
    data[spi_bit // 8] ^= 0x80 >> spi_bit % 8
    lines[at] = with_data(lines[at], data.hex())
    if which == 0 and value:  # 110 -> 010: a 0, on time
        assert strip_frames(parse_spi("\n".join(lines))) == [flipped(meant, index), *rest]
        return
    if which == 2 and not value and not after:  # 101 100: the next pulse is 2 SPI bits, a 1
        assert strip_frames(parse_spi("\n".join(lines))) == [flipped(meant, index + 1), *rest]
        return
    if which == 0:
        why = f"bit {index - 1} lasts 2500 ns, not 1250 \\+/- 600$"
    elif value:
        why = f"pulse {index} is {(3 + 1 + after) * 1e9 / 2.4e6:.0f} ns high: neither a 0 nor a 1$"
    else:
        why = f"pulse {index + 1} is 1250 ns high: neither a 0 nor a 1$"
    with pytest.raises(WireError, match=f"^line {at + 1}, read at 2400000 Hz: " + why):
        strip_frames(parse_spi("\n".join(lines)))


@pytest.mark.parametrize("name", STRIPS)
@pytest.mark.parametrize("hz", [1_200_000, 4_800_000, 3_200_000])
def test_bytes_read_at_another_clock_fail_the_timing(name, hz):
    """The transfer's bytes said to be sent at another clock: the pulses no longer meet the datasheet."""
    lines, at, _, _ = strip_case(name)
    lines[at] = lines[at].replace(" 2400000 ", f" {hz} ", 1)
    with pytest.raises(WireError, match=f"^line {at + 1}, read at {hz} Hz: "):
        strip_frames(parse_spi("\n".join(lines)))


@pytest.mark.parametrize("name", STRIPS)
def test_a_clock_other_than_the_one_meant_is_caught(name):
    """2 % off still meets the timing, but the JSON's hz says which clock the board set."""
    lines, at, _, _ = strip_case(name)
    lines[at] = lines[at].replace(" 2400000 ", " 2450000 ", 1)
    meant = (RECORDINGS / f"{name}.json").read_text()
    assert strip_frames(parse_spi("\n".join(lines)))  # decodes
    with pytest.raises(WireError, match=f"^line {at + 1}: sent at 2450000 Hz, not 2400000$"):
        check_strip("\n".join(lines), meant)


@pytest.mark.parametrize("name", STRIPS)
@pytest.mark.parametrize("mode, names", [(1, "CPHA"), (2, "CPOL"), (3, "CPHA, CPOL"), (8, "LSB_FIRST"),
                                         (4, "CS_HIGH"), (0x800, "0x800")])
def test_a_mode_other_than_0_is_refused(name, mode, names):
    """Any SPI mode bit set is refused, naming the bits."""
    lines, at, _, _ = strip_case(name)
    lines[at] = lines[at].replace(" 2400000 8 0 ", f" 2400000 8 {mode} ", 1)
    with pytest.raises(WireError, match=fr"^line {at + 1}: SPI mode bits {mode} \({names}\): "):
        strip_frames(parse_spi("\n".join(lines)))


@pytest.mark.parametrize("name", STRIPS)
def test_words_other_than_8_bits_are_refused(name):
    """The strip's bytes are 8-bit words."""
    lines, at, _, _ = strip_case(name)
    lines[at] = lines[at].replace(" 2400000 8 0 ", " 2400000 16 0 ", 1)
    with pytest.raises(WireError, match=f"^line {at + 1}: 16 bits a word, not 8$"):
        strip_frames(parse_spi("\n".join(lines)))


@pytest.mark.parametrize("name", STRIPS)
@pytest.mark.parametrize("end", ["before", "after"])
def test_a_frame_without_its_reset_is_refused(name, end):
    """Cut to 10 zero bytes (33 us) at one end: not the 280 us low that resets or latches the strip."""
    lines, at, data, lead = strip_case(name)
    data = data[lead - 10:] if end == "before" else data.rstrip(b"\0") + bytes(10)
    lines[at] = with_data(lines[at], data.hex())
    with pytest.raises(WireError, match=f"^line {at + 1}: only 3[0-9].[0-9] us low {end} the frame"):
        strip_frames(parse_spi("\n".join(lines)))


def test_colours_that_differ_from_those_meant_are_named():
    """check_strip names the first LED that differs, and a count that differs."""
    name = STRIPS[0]
    meant = json.loads((RECORDINGS / f"{name}.json").read_text())
    sent = tuple(meant["frames"][0][7])
    meant["frames"][0][7] = [(c + 1) % 256 for c in sent]
    changed = tuple(meant["frames"][0][7])
    with pytest.raises(WireError, match=re.escape(f"transfer 0: 1 LEDs differ, the first LED 7 {sent} where "
                                                  f"{changed} was meant")):
        check_strip("\n".join(recording(name)), json.dumps(meant))
    count = len(meant["frames"])
    meant["frames"].append([])
    with pytest.raises(WireError, match=f"^{count} transfers recorded, {count + 1} frames meant$"):
        check_strip("\n".join(recording(name)), json.dumps(meant))


@pytest.mark.parametrize("text", ["[]", '{"frames": [[[1, 2]]]}', '{"hz": "fast", "frames": []}', "nope"])
def test_bad_colours_json_is_an_error(text):
    """Colours JSON that is not {hz, frames of [r, g, b]} is an error."""
    with pytest.raises(WireError):
        read_colours(text)
