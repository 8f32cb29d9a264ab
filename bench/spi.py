"""Benchmark: encoding a 243-LED frame for the spi LED driver, beside the time it takes on the wire.

A ratio under 1 means the Pi encodes the next frame faster than the strip
receives the current one. Prints a table.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hardware.layout import load_layout  # noqa: E402
from hardware.leds import FramePipeline  # noqa: E402
from hardware.ws2812 import SPI_CLOCKS, spi_bytes  # noqa: E402

from table import print_table  # noqa: E402


def per_call(function, repeats: int = 300) -> float:
    """Seconds per call, the best of five runs of ``repeats`` calls."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            function()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def main() -> int:
    count = load_layout("classic-121").strip_leds
    rng = random.Random(1)
    frame = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(count)]
    pipeline = FramePipeline(count)
    rows = []
    for hz in SPI_CLOCKS:
        data = spi_bytes(frame, hz)
        wire_s = len(data) * 8 / hz
        encode_s = per_call(lambda: spi_bytes(frame, hz))
        show_s = per_call(lambda: spi_bytes(pipeline.render(frame), hz))
        mhz = f"{hz / 1e6:g} MHz"
        rows.append((f"spi frame, {count} LEDs at {mhz}: bytes, wire time", f"{len(data)} B, {wire_s * 1e3:.2f} ms"))
        rows.append((f"  encode / wire time ({mhz})", f"{encode_s * 1e3:.3f} ms / {wire_s * 1e3:.2f} ms = "
                                                      f"{encode_s / wire_s:.3f}"))
        rows.append((f"  pipeline + encode / wire time ({mhz})", f"{show_s * 1e3:.3f} ms / {wire_s * 1e3:.2f} ms = "
                                                                 f"{show_s / wire_s:.3f}"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
