"""Golden images: an OLED screen drawn now against its reference PNG in tests/data/golden."""

from pathlib import Path

from PIL import Image, ImageChops

GOLDEN = Path(__file__).parent / "data" / "golden"
ALLOWED_PIXELS = 64  # a few pixels of font hinting


def assert_matches_golden(image: Image.Image, name: str) -> None:
    """``image`` differs from ``tests/data/golden/NAME.png`` in at most ALLOWED_PIXELS pixels."""
    reference = Image.open(GOLDEN / f"{name}.png").convert("1")
    diff = ImageChops.difference(image.convert("1").convert("L"), reference.convert("L"))
    differing = diff.size[0] * diff.size[1] - diff.histogram()[0]
    assert differing <= ALLOWED_PIXELS, f"{differing} pixels differ from tests/data/golden/{name}.png"
