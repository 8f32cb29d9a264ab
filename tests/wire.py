"""What went down the wires, read back as the chips read it: I2C to the OLED, SPI to the LED strip.

The recordings come from the test VM's recording I2C adapter and SPI controller (a debugfs
file each): text, one line per I2C message or SPI transfer, fields split by single spaces::

    MICROSECONDS ADDR w DATA     an I2C write: ADDR two lowercase hex digits, DATA lowercase hex
    MICROSECONDS ADDR r DATA     an I2C read: DATA the bytes the adapter answered
    MICROSECONDS ADDR nak        an I2C message no device acknowledged
    MICROSECONDS HZ BITS MODE DATA   an SPI transfer: speed_hz, bits_per_word, the mode bits, tx bytes

DATA is ``-`` when there are no bytes. Lines starting with ``#`` are comments; one that says
lines were dropped (``# dropped N``, ``... N lines dropped``) means the ring buffer lost the
oldest lines, and is an error rather than a partial stream read as a whole one.

:class:`Ssd1306` replays the I2C writes as an SSD1306 (Solomon Systech datasheet rev 1.1) and
gives the picture the panel shows; :func:`decode` reads SPI bytes as a WS2812B reads its data pin
and :func:`strip_frames` does so for each recorded transfer. Every problem, from a malformed line
to a pulse outside the datasheet, is a :class:`WireError` (an AssertionError, so a test shows it
as a failed check) with a one-line message naming the recording's line where there is one.

Standard library only: the VM's check script imports this file from the tree's tests folder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Iterable, NamedTuple, Sequence

WIDTH, HEIGHT, PAGES = 128, 64, 8
OLED_ADDRESS = 0x3C


class WireError(AssertionError):
    """A recording that is malformed or incomplete, or bytes a chip would not read as meant."""


# -- the recordings -------------------------------------------------------------------------------

class I2cMessage(NamedTuple):
    """One recorded I2C message: ``direction`` is "w", "r" or "nak" (then ``data`` is empty)."""

    line: int  # its line number in the recording, from 1
    us: int
    address: int
    direction: str
    data: bytes


class SpiTransfer(NamedTuple):
    """One recorded SPI transfer: its clock, word size, mode bits and the bytes sent."""

    line: int
    us: int
    hz: int
    bits: int
    mode: int
    data: bytes


_DECIMAL = re.compile(r"[0-9]+")
_HEX = re.compile(r"(?:[0-9a-f]{2})+")
_ADDRESS = re.compile(r"[0-7][0-9a-f]")
_DROPPED = (re.compile(r"\bdropped\s+([0-9]+)\b"), re.compile(r"\b([0-9]+)\s+lines?\s+dropped\b"))


def _problem(number: int, text: str, what: str) -> WireError:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return WireError(f"line {number}: {what}: {shown!r}")


def _data(number: int, line: str, field_text: str) -> bytes:
    if field_text == "-":
        return b""
    if not _HEX.fullmatch(field_text):
        raise _problem(number, line, "DATA must be lowercase hex, two digits a byte, or - for none")
    return bytes.fromhex(field_text)


def _records(text: str) -> Iterable[tuple[int, str, list[str], int]]:
    """Each record line of a recording: (line number, line, fields, microseconds); comments checked
    for dropped lines, timestamps for order."""
    last = 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            for pattern in _DROPPED:
                found = pattern.search(line)
                if found and int(found.group(1)):
                    raise _problem(number, line, f"the recorder dropped {int(found.group(1))} lines, "
                                                 "so the stream is incomplete")
            if "dropped" in line and not any(p.search(line) for p in _DROPPED):
                raise _problem(number, line, "a comment about dropped lines without a count")
            continue
        fields = line.split(" ")
        if "" in fields and line:
            raise _problem(number, line, "fields are separated by single spaces")
        if not _DECIMAL.fullmatch(fields[0]):
            raise _problem(number, line, "MICROSECONDS must be a decimal number")
        us = int(fields[0])
        if us < last:
            raise _problem(number, line, f"the time goes back from {last} us")
        last = us
        yield number, line, fields, us


def parse_i2c(text: str) -> list[I2cMessage]:
    """The messages of an I2C recording; WireError naming the first malformed line."""
    messages = []
    for number, line, fields, us in _records(text):
        if len(fields) < 3 or not _ADDRESS.fullmatch(fields[1]):
            raise _problem(number, line, "expected MICROSECONDS ADDR DIR [DATA], ADDR two lowercase hex digits "
                                         "up to 7f")
        direction = fields[2]
        if direction == "nak":
            if len(fields) != 3:
                raise _problem(number, line, "a nak has no DATA field")
            data = b""
        elif direction in ("w", "r"):
            if len(fields) != 4:
                raise _problem(number, line, f"a {direction} line has four fields: MICROSECONDS ADDR DIR DATA")
            data = _data(number, line, fields[3])
        else:
            raise _problem(number, line, f"DIR {direction!r} is none of w, r, nak")
        messages.append(I2cMessage(number, us, int(fields[1], 16), direction, data))
    return messages


def parse_spi(text: str) -> list[SpiTransfer]:
    """The transfers of an SPI recording; WireError naming the first malformed line."""
    transfers = []
    for number, line, fields, us in _records(text):
        if len(fields) != 5 or not all(_DECIMAL.fullmatch(f) for f in fields[1:4]):
            raise _problem(number, line, "expected MICROSECONDS HZ BITS MODE DATA, the first four decimal")
        hz, bits, mode = (int(f) for f in fields[1:4])
        if hz == 0 or not 1 <= bits <= 32:
            raise _problem(number, line, "HZ must be above 0 and BITS 1 to 32")
        transfers.append(SpiTransfer(number, us, hz, bits, mode, _data(number, line, fields[4])))
    return transfers


# -- the SSD1306 -----------------------------------------------------------------------------------

def _command_table() -> dict[int, tuple[str, int]]:
    """Every command byte of the datasheet's command table (its section 9): name and argument bytes."""
    table = {
        0x81: ("contrast", 1), 0xA4: ("entire display off", 0), 0xA5: ("entire display on", 0),
        0xA6: ("normal display", 0), 0xA7: ("inverse display", 0), 0xAE: ("display off", 0),
        0xAF: ("display on", 0),
        0x26: ("right horizontal scroll setup", 6), 0x27: ("left horizontal scroll setup", 6),
        0x29: ("vertical and right horizontal scroll setup", 5),
        0x2A: ("vertical and left horizontal scroll setup", 5),
        0x2E: ("deactivate scroll", 0), 0x2F: ("activate scroll", 0), 0xA3: ("vertical scroll area", 2),
        0x20: ("memory addressing mode", 1), 0x21: ("column address", 2), 0x22: ("page address", 2),
        0xA0: ("segment remap off", 0), 0xA1: ("segment remap on", 0), 0xA8: ("multiplex ratio", 1),
        0xC0: ("COM scan normal", 0), 0xC8: ("COM scan remapped", 0), 0xD3: ("display offset", 1),
        0xDA: ("COM pins configuration", 1),
        0xD5: ("clock divide and oscillator", 1), 0xD9: ("pre-charge period", 1), 0xDB: ("VCOMH deselect level", 1),
        0x8D: ("charge pump", 1), 0xE3: ("NOP", 0),
    }
    table.update({b: ("lower column start (page mode)", 0) for b in range(0x00, 0x10)})
    table.update({b: ("higher column start (page mode)", 0) for b in range(0x10, 0x20)})
    table.update({b: ("display start line", 0) for b in range(0x40, 0x80)})
    table.update({b: ("page start (page mode)", 0) for b in range(0xB0, 0xB8)})
    return table


COMMANDS = _command_table()
HORIZONTAL, VERTICAL, PAGE = 0, 1, 2  # memory addressing modes (command 0x20)
COM_PINS_128X64 = 0x12  # alternative COM pins, no left/right remap: what 128x64 modules are wired for


@dataclass
class _Pending:
    command: int
    line: int
    arguments: list[int] = field(default_factory=list)

    @property
    def needed(self) -> int:
        return COMMANDS[self.command][1]


class Ssd1306:
    """An SSD1306 on the I2C bus at ``address``, fed the recorded messages as the chip takes them.

    After the slave address each write holds control bytes (Co bit 7, D/C# bit 6, bits 5-0 zero):
    0x00 a stream of command bytes to the end of the message, 0x40 a stream of GDDRAM data, 0x80
    one command byte then another control byte, 0xC0 one data byte then another control byte. A
    command's argument bytes are command bytes too; luma sends a command and its arguments in one
    message (``write_i2c_block_data(addr, 0x00, [cmd, args...])``, one I2C write ``00 cmd args``).
    The datasheet does not say that a STOP ends a command, and drivers that send the argument in a
    message of its own (Adafruit_SSD1306's ``ssd1306_command1``) work on real chips, but from luma a
    command cut off at the end of its message means a lost or truncated message: so it is an error
    unless ``split_commands`` is set, and then the command takes its arguments from the next
    command bytes. A command still waiting for arguments when :meth:`frame` is asked is an error.

    Reads (the status byte) change nothing; a nak at the address is an error (the chip saw none of
    it); messages to other addresses are left alone. An unknown command byte, an invalid argument
    (addressing mode 3, a multiplex ratio below 16, a COM pins value that is none of 0x02, 0x12,
    0x22, 0x32, a backwards column or page range) and a command the datasheet gives only for page
    addressing mode (0x00-0x1F, 0xB0-0xB7) sent in another mode are errors, as is writing GDDRAM
    while a scroll runs (the datasheet forbids it). Argument bits the datasheet leaves unused are
    ignored as the chip ignores them.
    """

    def __init__(self, address: int = OLED_ADDRESS, split_commands: bool = False):
        self.address = address
        self.split_commands = split_commands
        # The reset state (datasheet section 9 and 10): display off, page addressing, no remap.
        self.display_on = False
        self.charge_pump = False  # 0x8D with bit 2 set (0x14) turns it on
        self.inverse = False  # 0xA7
        self.entire_on = False  # 0xA5: every pixel lit, whatever GDDRAM holds
        self.contrast = 0x7F
        self.addressing_mode = PAGE
        self.columns = (0, WIDTH - 1)  # the column window (0x21), horizontal and vertical modes
        self.pages = (0, PAGES - 1)  # the page window (0x22)
        self.page_column_start = 0  # page mode's column start (0x00-0x1F)
        self.column, self.page = 0, 0  # the GDDRAM pointer
        self.segment_remap = False  # 0xA1: column 127 drives SEG0
        self.com_remap = False  # 0xC8: scan from COM[N-1] to COM0
        self.start_line = 0  # 0x40-0x7F
        self.display_offset = 0  # 0xD3
        self.multiplex = 64  # 0xA8 argument + 1
        self.com_pins = COM_PINS_128X64  # 0xDA
        self.clock, self.precharge, self.vcomh = 0x80, 0x22, 0x20
        self.scroll_setup: tuple[int, ...] | None = None
        self.scroll_area = (0, HEIGHT)
        self.scrolling = False
        self.ram = bytearray(WIDTH * PAGES)  # page p, column c at p * 128 + c; bit 0 the top row
        self.written = bytearray(WIDTH * PAGES)  # 1 where the recording wrote the byte
        self._pending: _Pending | None = None

    def feed(self, messages: Iterable[I2cMessage]) -> Ssd1306:
        """Take the recorded messages in order; returns the model."""
        for message in messages:
            if message.address != self.address or message.direction == "r":
                continue
            if message.direction == "nak":
                raise WireError(f"line {message.line}: {self.address:#04x} did not acknowledge: "
                                "the display saw nothing of that message")
            self._message(message)
        return self

    def _message(self, message: I2cMessage) -> None:
        data, index = message.data, 0
        while index < len(data):
            control = data[index]
            index += 1
            if control & 0x3F:
                raise WireError(f"line {message.line}: byte {index - 1} ({control:#04x}) is not a control byte: "
                                "bits 5-0 of a control byte are 0 (0x00, 0x40, 0x80 or 0xC0)")
            is_data = bool(control & 0x40)
            if control & 0x80:  # Co = 1: one byte, then another control byte
                if index == len(data):
                    raise WireError(f"line {message.line}: control byte {control:#04x} ends the message: "
                                    "the byte it announces is missing")
                self._byte(data[index], is_data, message.line)
                index += 1
                continue
            for byte in data[index:]:  # Co = 0: the rest of the message is one stream
                self._byte(byte, is_data, message.line)
            break
        if self._pending is not None and not self.split_commands:
            pending = self._pending
            raise WireError(f"line {message.line}: command {pending.command:#04x} ({COMMANDS[pending.command][0]}) "
                            f"needs {pending.needed} argument bytes but the message ends after "
                            f"{len(pending.arguments)}")

    def _byte(self, byte: int, is_data: bool, line: int) -> None:
        pending = self._pending
        if is_data:
            if pending is not None:
                raise WireError(f"line {line}: a data byte while command {pending.command:#04x} "
                                f"({COMMANDS[pending.command][0]}) waits for {pending.needed - len(pending.arguments)} "
                                "more argument bytes")
            self._write(byte, line)
        elif pending is not None:
            pending.arguments.append(byte)
            if len(pending.arguments) == pending.needed:
                self._pending = None
                self._command(pending.command, pending.arguments, line)
        elif byte not in COMMANDS:
            raise WireError(f"line {line}: {byte:#04x} is not an SSD1306 command")
        elif COMMANDS[byte][1]:
            self._pending = _Pending(byte, line)
        else:
            self._command(byte, [], line)

    def _page_mode_only(self, command: int, line: int) -> None:
        if self.addressing_mode != PAGE:
            raise WireError(f"line {line}: command {command:#04x} ({COMMANDS[command][0]}) is for page addressing "
                            f"mode, and the chip is in {('horizontal', 'vertical')[self.addressing_mode]} mode")

    def _command(self, command: int, args: list[int], line: int) -> None:
        where = f"line {line}: command {command:#04x} ({COMMANDS[command][0]})"
        if command <= 0x0F:
            self._page_mode_only(command, line)
            self.page_column_start = (self.page_column_start & 0x70) | command
            self.column = self.page_column_start
        elif command <= 0x1F:
            self._page_mode_only(command, line)
            if command & 0x08:
                raise WireError(f"{where}: a higher nibble of {command & 0x0F} puts the column beyond 127")
            self.page_column_start = ((command & 0x07) << 4) | (self.page_column_start & 0x0F)
            self.column = self.page_column_start
        elif command == 0x20:
            if args[0] & 0x03 == 0x03:
                raise WireError(f"{where}: {args[0]:#04x} selects mode 3, which the datasheet calls invalid")
            self.addressing_mode = args[0] & 0x03
        elif command == 0x21:
            start, end = args[0] & 0x7F, args[1] & 0x7F
            if start > end:
                raise WireError(f"{where}: columns {start} to {end} run backwards")
            self.columns, self.column = (start, end), start
        elif command == 0x22:
            start, end = args[0] & 0x07, args[1] & 0x07
            if start > end:
                raise WireError(f"{where}: pages {start} to {end} run backwards")
            self.pages, self.page = (start, end), start
        elif 0x40 <= command <= 0x7F:
            self.start_line = command & 0x3F
        elif 0xB0 <= command <= 0xB7:
            self._page_mode_only(command, line)
            self.page = command & 0x07
        elif command == 0x81:
            self.contrast = args[0]
        elif command == 0x8D:
            self.charge_pump = bool(args[0] & 0x04)
        elif command in (0xA0, 0xA1):
            self.segment_remap = command == 0xA1
        elif command in (0xA4, 0xA5):
            self.entire_on = command == 0xA5
        elif command in (0xA6, 0xA7):
            self.inverse = command == 0xA7
        elif command in (0xAE, 0xAF):
            self.display_on = command == 0xAF
        elif command == 0xA8:
            if args[0] & 0x3F < 15:
                raise WireError(f"{where}: {args[0]:#04x} is {(args[0] & 0x3F) + 1} MUX; the datasheet allows 16 to 64")
            self.multiplex = (args[0] & 0x3F) + 1
        elif command in (0xC0, 0xC8):
            self.com_remap = command == 0xC8
        elif command == 0xD3:
            self.display_offset = args[0] & 0x3F
        elif command == 0xDA:
            if args[0] & 0xCF != 0x02:
                raise WireError(f"{where}: {args[0]:#04x} is none of 0x02, 0x12, 0x22, 0x32")
            self.com_pins = args[0]
        elif command == 0xD5:
            self.clock = args[0]
        elif command == 0xD9:
            self.precharge = args[0]
        elif command == 0xDB:
            self.vcomh = args[0]
        elif command in (0x26, 0x27, 0x29, 0x2A):
            self.scroll_setup = (command, *args)
        elif command == 0xA3:
            self.scroll_area = (args[0] & 0x3F, args[1] & 0x7F)
        elif command == 0x2E:
            self.scrolling = False
        elif command == 0x2F:
            if self.scroll_setup is None:
                raise WireError(f"{where}: no scroll was set up (0x26, 0x27, 0x29 or 0x2A first)")
            self.scrolling = True
            self.written[:] = bytes(len(self.written))  # a scroll moves GDDRAM: it must be written again
        # 0xE3 is a NOP.

    def _write(self, byte: int, line: int) -> None:
        """One GDDRAM byte at the pointer, then the pointer moves as the addressing mode says (datasheet 10.1.3)."""
        if self.scrolling:
            raise WireError(f"line {line}: GDDRAM written while a scroll runs (0x2F): the datasheet forbids it")
        offset = self.page * WIDTH + self.column
        self.ram[offset] = byte
        self.written[offset] = 1
        (first_column, last_column), (first_page, last_page) = self.columns, self.pages
        if self.addressing_mode == PAGE:  # the page never changes; the column goes back to its start
            self.column = self.page_column_start if self.column >= WIDTH - 1 else self.column + 1
        elif self.addressing_mode == HORIZONTAL:
            if self.column >= last_column:
                self.column = first_column
                self.page = first_page if self.page >= last_page else self.page + 1
            else:
                self.column += 1
        elif self.page >= last_page:  # vertical
            self.page = first_page
            self.column = first_column if self.column >= last_column else self.column + 1
        else:
            self.page += 1

    def ram_pixel(self, column: int, row: int) -> int:
        """GDDRAM's bit for ``column`` (0-127) and RAM row ``row`` (0-63): page row // 8, bit row % 8."""
        return self.ram[(row // 8) * WIDTH + column] >> (row % 8) & 1

    def frame(self) -> list[bytes]:
        """The picture the panel shows: 64 rows (top first) of 128 pixels, 1 lit, 0 dark.

        The module is taken as a typical 128x64 one: COM pins 0x12, mounted so that segment remap
        (0xA1) and COM scan remapped (0xC8) show GDDRAM column c at x = c and RAM row r at y = r;
        with 0xA0 the columns come out mirrored, with 0xC0 the rows. A panel row shows row k of
        the scan (k below the multiplex ratio N; COMs beyond it stay dark) on COM (k - offset) mod
        64 (the datasheet's offset table without remap), from RAM row (k + start line) mod 64; 0xC8 mirrors the COM
        order. A display that is off (0xAE) is all dark; 0xA5 lights every driven row; 0xA7 inverts.
        WireError if the picture cannot be known: a command still waits for arguments, a scroll runs,
        the COM pins are not 0x12 (on a 128x64 module the rows would come out interleaved), 0xC8
        with a multiplex ratio below 64 and an offset (not in the datasheet's tables), or a shown
        GDDRAM byte was never written (its content after power-up is random).
        """
        if self._pending is not None:
            pending = self._pending
            raise WireError(f"line {pending.line}: the recording ends inside command {pending.command:#04x} "
                            f"({COMMANDS[pending.command][0]}), {len(pending.arguments)} of its "
                            f"{pending.needed} argument bytes sent")
        if self.scrolling:
            raise WireError("a scroll runs (0x2F): the picture moves, so no one frame is shown")
        if self.com_pins != COM_PINS_128X64:
            raise WireError(f"COM pins configuration {self.com_pins:#04x}: a 128x64 module is wired for 0x12 "
                            "(alternative, no left/right remap); with this value its rows come out scrambled")
        n, offset = self.multiplex, self.display_offset
        if self.com_remap and n < HEIGHT and offset:
            raise WireError(f"COM scan remapped with {n} MUX and offset {offset}: the datasheet's tables do not "
                            "show where the rows go")
        rows = [bytearray(WIDTH) for _ in range(HEIGHT)]
        if not self.display_on:
            return [bytes(row) for row in rows]
        for k in range(n):
            com = (k - offset) % HEIGHT
            if self.com_remap:
                com = (n - 1 - com) % HEIGHT
            row = rows[HEIGHT - 1 - com]  # COM63 is the module's top row
            if self.entire_on:
                row[:] = b"\x01" * WIDTH
                continue
            ram_row = (k + self.start_line) % HEIGHT
            page = ram_row // 8
            for column in range(WIDTH):
                if not self.written[page * WIDTH + column]:
                    raise WireError(f"GDDRAM page {page} column {column} is shown but was never written "
                                    "(after power-up it holds anything)")
                segment = WIDTH - 1 - column if self.segment_remap else column
                row[WIDTH - 1 - segment] = self.ram_pixel(column, ram_row) ^ self.inverse  # SEG127 is x = 0
        return [bytes(row) for row in rows]


def oled(text: str, address: int = OLED_ADDRESS, split_commands: bool = False) -> Ssd1306:
    """An SSD1306 at ``address`` fed the whole I2C recording ``text``."""
    return Ssd1306(address, split_commands).feed(parse_i2c(text))


# -- comparing pictures ----------------------------------------------------------------------------

def read_pbm(data: bytes) -> list[bytes]:
    """The rows of a binary PBM ("P4") image as 1 (lit) and 0 (dark).

    PBM's 1 is black; the board draws lit pixels white (Pillow's mode "1" value 255, written to
    PBM as 0 bits), so a lit pixel is a 0 bit in the file."""
    tokens: list[bytes] = []
    index = 0
    while len(tokens) < 3:
        while index < len(data) and data[index:index + 1].isspace():
            index += 1
        if data[index:index + 1] == b"#":
            index = data.find(b"\n", index)
            if index < 0:
                break
            continue
        start = index
        while index < len(data) and not data[index:index + 1].isspace() and data[index:index + 1] != b"#":
            index += 1
        if start == index:
            break
        tokens.append(data[start:index])
    if len(tokens) < 3 or tokens[0] != b"P4" or not all(t.isdigit() for t in tokens[1:]):
        raise WireError("not a binary PBM image: expected P4, a width and a height")
    width, height = int(tokens[1]), int(tokens[2])
    raster = data[index + 1:]
    stride = (width + 7) // 8
    if len(raster) != stride * height:
        raise WireError(f"a {width}x{height} PBM has {stride * height} bytes of pixels, not {len(raster)}")
    return [bytes(1 - (raster[y * stride + x // 8] >> (7 - x % 8) & 1) for x in range(width)) for y in range(height)]


Picture = Sequence[Sequence[int]] | bytes  # rows of 0/1 (top first), or a binary PBM file's bytes


def _rows(picture: Picture, what: str) -> list[bytes]:
    rows = read_pbm(picture) if isinstance(picture, bytes) else [bytes(1 if v else 0 for v in row) for row in picture]
    if len(rows) != HEIGHT or any(len(row) != WIDTH for row in rows):
        raise WireError(f"the {what} picture is not {WIDTH}x{HEIGHT}")
    return rows


def differences(frame: Picture, expected: Picture) -> list[tuple[int, int]]:
    """The pixels (x, y) where two 128x64 pictures differ; each is rows of 0/1 or a PBM file's bytes."""
    got, want = _rows(frame, "shown"), _rows(expected, "expected")
    return [(x, y) for y in range(HEIGHT) if got[y] != want[y] for x in range(WIDTH) if got[y][x] != want[y][x]]


def describe(found: list[tuple[int, int]], frame: Picture, limit: int = 6) -> str:
    """One line naming the first few differing pixels and what the panel shows there."""
    if not found:
        return "the pictures are the same"
    got = _rows(frame, "shown")
    named = ", ".join(f"({x}, {y}) {'lit' if got[y][x] else 'dark'}" for x, y in found[:limit])
    more = f" and {len(found) - limit} more" if len(found) > limit else ""
    return f"{len(found)} pixels differ from the expected picture: {named}{more}"


def check_oled(recording: str, expected: Picture, address: int = OLED_ADDRESS) -> Ssd1306:
    """The recording replayed on an SSD1306 shows ``expected``, lit with its charge pump on; else WireError."""
    chip = oled(recording, address)
    if not chip.display_on or not chip.charge_pump:
        raise WireError(f"the display is {'on' if chip.display_on else 'off'} and its charge pump "
                        f"{'on' if chip.charge_pump else 'off'}: the panel stays dark")
    frame = chip.frame()
    found = differences(frame, expected)
    if found:
        raise WireError(describe(found, frame))
    return chip


# -- the WS2812 strip ------------------------------------------------------------------------------

# The WS2812B datasheet, in nanoseconds (written out here, not taken from the encoder).
T0H, T1H, PULSE_TOLERANCE = 400.0, 800.0, 150.0
PERIOD, PERIOD_TOLERANCE = 1250.0, 600.0
RESET = 280_000.0
SPI_MODE_BITS = {0x01: "CPHA", 0x02: "CPOL", 0x04: "CS_HIGH", 0x08: "LSB_FIRST", 0x10: "3WIRE", 0x20: "LOOP",
                 0x40: "NO_CS", 0x80: "READY"}  # linux/spi/spi.h


@dataclass
class Wire:
    """What the strip's data pin saw: the data bits and the worst timing errors."""

    bits: list[int]
    worst_t0h: float  # largest |high - 400 ns| over the 0 bits
    worst_t1h: float
    worst_period: float  # largest |rise to next rise - 1250 ns|
    lead_ns: float  # low before the first pulse
    trail_ns: float  # low after the last pulse

    def colours(self) -> list[tuple[int, int, int]]:
        """The bits as RGB colours, read 24 at a time in the strip's order: green, red, blue."""
        if len(self.bits) % 24:
            raise WireError(f"{len(self.bits)} bits is not a whole number of LEDs")
        values = [int("".join(map(str, self.bits[i:i + 8])), 2) for i in range(0, len(self.bits), 8)]
        return [(values[i + 1], values[i], values[i + 2]) for i in range(0, len(values), 3)]


def decode(data: bytes, hz: float) -> Wire:
    """Read ``data`` sent at ``hz`` the way a WS2812B does; WireError at the first bad pulse.

    The bytes become the MOSI level for each SPI clock period (most significant bit first, SPI
    mode 0); each high pulse is measured in nanoseconds at the clock and held against the datasheet.
    """
    line = "".join(f"{byte:08b}" for byte in data)  # the MOSI level for each clock period
    period_ns = 1e9 / hz
    pulses = [(m.start(), m.end()) for m in re.finditer("1+", line)]
    bits, worst = [], {0: 0.0, 1: 0.0, "period": 0.0}
    for index, (rise, fall) in enumerate(pulses):
        high = (fall - rise) * period_ns
        if abs(high - T0H) <= PULSE_TOLERANCE:
            bit = 0
        elif abs(high - T1H) <= PULSE_TOLERANCE:
            bit = 1
        else:
            raise WireError(f"pulse {index} is {high:.0f} ns high: neither a 0 nor a 1")
        worst[bit] = max(worst[bit], abs(high - (T1H if bit else T0H)))
        if index + 1 < len(pulses):
            period = (pulses[index + 1][0] - rise) * period_ns
            if abs(period - PERIOD) > PERIOD_TOLERANCE:
                raise WireError(f"bit {index} lasts {period:.0f} ns, not 1250 +/- 600")
            worst["period"] = max(worst["period"], abs(period - PERIOD))
        bits.append(bit)
    lead = (pulses[0][0] if pulses else len(line)) * period_ns
    trail = (len(line) - (pulses[-1][1] if pulses else 0)) * period_ns
    return Wire(bits, worst[0], worst[1], worst["period"], lead, trail)


def strip_frames(transfers: Iterable[SpiTransfer], hz: int | None = None) -> list[list[tuple[int, int, int]]]:
    """Each transfer's colours, read at its recorded clock as a WS2812B reads them.

    A transfer must be SPI mode 0 (no mode bit set: MSB first), 8 bits a word, at ``hz`` when
    given, meet the datasheet's timing and start and end with at least 280 us low; else WireError
    naming its line."""
    frames = []
    for transfer in transfers:
        where = f"line {transfer.line}"
        if transfer.mode:
            names = [name for bit, name in SPI_MODE_BITS.items() if transfer.mode & bit]
            names += [f"{transfer.mode & ~0xFF:#x}"] if transfer.mode & ~0xFF else []
            raise WireError(f"{where}: SPI mode bits {transfer.mode} ({', '.join(names)}): the strip's bytes "
                            "are made for mode 0, most significant bit first")
        if transfer.bits != 8:
            raise WireError(f"{where}: {transfer.bits} bits a word, not 8")
        if hz is not None and transfer.hz != hz:
            raise WireError(f"{where}: sent at {transfer.hz} Hz, not {hz}")
        try:
            wire = decode(transfer.data, transfer.hz)
            colours = wire.colours()
        except WireError as error:
            raise WireError(f"{where}, read at {transfer.hz} Hz: {error}") from None
        for what, low in (("before", wire.lead_ns), ("after", wire.trail_ns)):
            if low < RESET:
                raise WireError(f"{where}: only {low / 1000:.1f} us low {what} the frame, not the 280 us of a reset")
        frames.append(colours)
    return frames


def read_colours(text: str) -> tuple[int | None, list[list[tuple[int, int, int]]]]:
    """The colours a strip was meant to show, from JSON ``{"hz": 2400000, "frames": [[[r, g, b], ...], ...]}``:
    (hz or None, one frame per transfer, as the strip was given them after brightness and gamma)."""
    try:
        document = json.loads(text)
        hz = document.get("hz")
        frames = [[(int(r), int(g), int(b)) for r, g, b in frame] for frame in document["frames"]]
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise WireError(f"the colours are not JSON with a list of frames of [r, g, b]: {error}") from None
    if hz is not None and (isinstance(hz, bool) or not isinstance(hz, int)):
        raise WireError(f"hz {hz!r} is not a whole number of Hz")
    return hz, frames


def check_strip(recording: str, meant: str) -> list[list[tuple[int, int, int]]]:
    """The SPI recording decodes to the colours of the JSON ``meant`` (:func:`read_colours`); else WireError."""
    hz, frames = read_colours(meant)
    got = strip_frames(parse_spi(recording), hz)
    if len(got) != len(frames):
        raise WireError(f"{len(got)} transfers recorded, {len(frames)} frames meant")
    for number, (shown, wanted) in enumerate(zip(got, frames)):
        if len(shown) != len(wanted):
            raise WireError(f"transfer {number} carries {len(shown)} LEDs, {len(wanted)} meant")
        wrong = [led for led, (a, b) in enumerate(zip(shown, wanted)) if a != b]
        if wrong:
            first = wrong[0]
            raise WireError(f"transfer {number}: {len(wrong)} LEDs differ, the first LED {first} "
                            f"{shown[first]} where {wanted[first]} was meant")
    return got
