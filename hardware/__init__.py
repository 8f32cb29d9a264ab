"""LEDs, display, buttons and encoder behind small interfaces, each with a real
backend and a mock. Knows holes and tracks, not cribbage rules.

Real backends import their libraries (spidev, rpi_ws281x, luma.oled, gpiozero pins)
inside constructors, never at module import.
"""
