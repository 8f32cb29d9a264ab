"""LEDs, display, buttons and encoder, buzzer and power-off behind small interfaces, each
with a real backend and a mock. Knows holes, tracks and pins, not cribbage rules.

:mod:`hardware.backend` opens the devices (``PiBackend``, ``MockBackend``); real
backends import their libraries (spidev, rpi_ws281x, luma.oled, gpiozero pins)
when a device is opened, never at module import.
"""

BACKENDS = ("real", "mock")  # the backends' names, as --backend, CRIBBAGE_BACKEND and the config give them
BUNDLED_LAYOUTS = {2: "classic-121", 3: "three-track-121", 4: "four-track-121"}  # by tracks: hardware/layouts/*.toml
