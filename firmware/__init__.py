"""The board application: wires inputs to the scorer and the scorer to the LEDs and OLED."""

__version__ = "0.1.0"  # the one home of the version: pyproject.toml and --version read it
