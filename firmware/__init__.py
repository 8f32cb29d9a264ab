"""The board application: wires inputs to the scorer and the scorer to the LEDs and OLED."""
