"""The WS2812 SPI encoding, checked by decoding its bytes as the strip's data pin sees them.

The decoder (tests/wire.py, which also reads the test VM's SPI recordings) knows nothing of
the encoder: it expands the bytes into the MOSI level for each SPI clock period (most
significant bit first, SPI mode 0), finds each high pulse, measures it in nanoseconds at the
clock, and holds every pulse against the WS2812B datasheet before rebuilding the colours
(green, red, blue).
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.ws2812 import SPI_CLOCKS, spi_bytes

from wire import PERIOD_TOLERANCE, PULSE_TOLERANCE, RESET, Wire, decode

CLOCKS = (2_400_000, 4_000_000, 4_800_000, 6_400_000)
CLASSIC, FOUR_TRACK = 243, 485


def check(frame, hz: float, sent_at: float | None = None) -> Wire:
    """Encode ``frame`` for ``hz``, decode it at ``sent_at`` (the real clock), check it all."""
    wire = decode(spi_bytes(frame, hz), sent_at or hz)
    assert wire.trail_ns >= RESET, f"only {wire.trail_ns:.0f} ns low after the frame"
    assert wire.lead_ns >= RESET, f"only {wire.lead_ns:.0f} ns low before the frame"
    assert wire.colours() == [tuple(p) for p in frame]
    return wire


def random_frame(count: int, seed: int) -> list[tuple[int, int, int]]:
    rng = random.Random(seed)
    return [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(count)]


FRAMES = {
    "all off": [(0, 0, 0)] * CLASSIC,
    "all on": [(255, 255, 255)] * CLASSIC,
    "random": random_frame(CLASSIC, 1),
    "alternating bits": [(0x55, 0xAA, 0x0F), (0xAA, 0x55, 0xF0)] * 20,
    "one red": [(255, 0, 0)],
    "one green": [(0, 255, 0)],
    "one blue": [(0, 0, 1)],
}


@pytest.mark.parametrize("hz", CLOCKS)
@pytest.mark.parametrize("name", FRAMES)
def test_every_bit_meets_the_datasheet_and_the_colours_come_back(hz, name):
    """Every high pulse is a clean 0 or 1, every period is in range, the resets last 280 us, GRB decodes."""
    check(FRAMES[name], hz)


@pytest.mark.parametrize("hz", CLOCKS)
@pytest.mark.parametrize("off", [0.95, 1.05])
def test_timing_holds_when_the_real_clock_is_5_percent_off(hz, off):
    """A Pi rounds the SPI divider (2.4 MHz is 2.381 MHz): 5 % either way still decodes."""
    check(random_frame(60, 2), hz, sent_at=hz * off)


@pytest.mark.parametrize("hz, source_hz", [
    (2_400_000, 500_000_000),  # Pi 4, core clock locked at 500 MHz
    (2_400_000, 400_000_000),  # Pi 3 B+ / Zero 2 W at 400 MHz
    (2_400_000, 250_000_000),  # Pi 3 with the core clock at its floor
    (2_400_000, 200_000_000),  # Pi 5: RP1's SPI clock
    (4_800_000, 500_000_000),
    (6_400_000, 200_000_000),
])
def test_timing_holds_at_the_clock_a_pi_really_makes(hz, source_hz):
    """The Pi's SPI runs at source / (even divider rounded up): the bytes still meet the datasheet."""
    divider = -(-source_hz // hz)
    divider += divider % 2
    check(random_frame(30, 3), hz, sent_at=source_hz / divider)


def test_worst_errors_per_clock():
    """The worst high-time and period errors of a random 243-LED frame stay inside the datasheet."""
    rows = []
    for hz in CLOCKS:
        wire = check(random_frame(CLASSIC, 4), hz)
        assert max(wire.worst_t0h, wire.worst_t1h) <= PULSE_TOLERANCE
        assert wire.worst_period <= PERIOD_TOLERANCE
        rows.append(f"{hz / 1e6:.1f} MHz: T0H {wire.worst_t0h:.1f} ns, T1H {wire.worst_t1h:.1f} ns, "
                    f"period {wire.worst_period:.1f} ns, reset {wire.trail_ns / 1000:.1f} us")
    print("\n" + "\n".join(rows))


def test_2_4_mhz_sends_three_spi_bits_per_led_bit():
    """At 2.4 MHz a 0 is 100 and a 1 is 110: green 0xFF, red 0x00 read 0xDB6DB6 then 0x924924."""
    data = spi_bytes([(0, 255, 0)], 2_400_000).strip(b"\x00")
    assert data.hex() == "db6db6" + "924924" + "924924"


def test_offered_clocks_are_all_tested():
    """Every clock the config offers is one these tests decode."""
    assert set(SPI_CLOCKS) <= set(CLOCKS) and 2_400_000 in SPI_CLOCKS


def test_frame_sizes_against_the_kernel_buffer():
    """243 LEDs at 2.4 MHz fit the default 4096-byte spidev buffer; 485 do not; all fit 65535."""
    classic = len(spi_bytes([(0, 0, 0)] * CLASSIC, 2_400_000))
    four_track = len(spi_bytes([(0, 0, 0)] * FOUR_TRACK, 2_400_000))
    assert classic < 4096 < four_track
    for hz in CLOCKS:
        assert len(spi_bytes([(0, 0, 0)] * FOUR_TRACK, hz)) < 65535


@pytest.mark.parametrize("hz", [3_200_000, 3_000_000, 2_000_000, 1_000_000, 800_000])
def test_a_clock_that_cannot_make_the_timing_is_refused(hz):
    """A clock with no pattern inside the datasheet is a clear error naming the clocks to use."""
    with pytest.raises(ValueError, match=f"an SPI clock of {hz} Hz cannot make WS2812 timing.*use one of 2400000"):
        spi_bytes([(1, 2, 3)], hz)


@pytest.mark.parametrize("hz", [0, -2_400_000, 2.4e6, "2400000", True, 10**9])
def test_a_clock_that_is_not_a_frequency_is_refused(hz):
    """A clock must be a whole number of Hz in range."""
    with pytest.raises(ValueError, match="give a whole number of Hz"):
        spi_bytes([(1, 2, 3)], hz)


@pytest.mark.parametrize("pixels", [[(256, 0, 0)], [(-1, 0, 0)], [(1, 2)], [(1, 2, 3, 4)], [(0.5, 0, 0)]])
def test_bad_pixels_are_refused(pixels):
    """Each pixel is three whole numbers 0-255."""
    with pytest.raises(ValueError, match="three whole numbers 0-255"):
        spi_bytes(pixels, 2_400_000)


@settings(max_examples=60, deadline=None)
@given(
    frame=st.lists(st.tuples(*[st.integers(0, 255)] * 3), max_size=24),
    hz=st.sampled_from(CLOCKS),
    off=st.floats(0.95, 1.05),
)
def test_any_frame_decodes_back_at_any_clock_within_5_percent(frame, hz, off):
    """Property: any frame, any offered clock, a real clock up to 5 % off: datasheet timing and the same colours."""
    check(frame, hz, sent_at=hz * off)
