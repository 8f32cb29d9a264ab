"""The guest's hands in systemd/test-boot-vm.sh: it runs inside the booted VM, never on the host.

    driver.py burst      as the board's unit (a drop-in's ExecStart): the board on the
                         mock backend, its controls pressed and turned without pause while
                         /run/cribbage-vm-burst exists, READY=1 and the watchdog sent as
                         the board sends them
    driver.py shutdown   as the board's unit: Menu > Shut down > Yes on the mock controls,
                         with the real board's power-off (hardware.power, systemctl through
                         logind as the unit's user), so the VM must power off
    driver.py gpio CHIP SECONDS
                         the board's buttons and encoder read with gpiozero's lgpio pin
                         factory on /dev/gpiochipCHIP, a gpio-sim chip whose lines the
                         caller drives (sim_gpioN/pull) once this says "reading"
    driver.py oled PORT  the OLED opened through luma's real I2C path on /dev/i2c-PORT
                         (i2c-stub at 0x3C), and a frame shown

Each mode prints what it did; gpio and oled end with "ok: ..." or exit non-zero.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

CONFIG = "/etc/cribbage-board/config.toml"
STATE = Path(os.environ.get("STATE_DIRECTORY", "/var/lib/cribbage-board")) / "ledger.sqlite3"
BURST_FLAG = Path("/run/cribbage-vm-burst")
SHUT_DOWN = [("click", "menu"), ("turn", "7"), ("click", "knob"), ("turn", "1"), ("click", "knob")]  # Menu > Shut down > Yes


def board(mode: str):
    """The board on mock devices, as the unit runs it, with READY=1 sent: (simulator, notifier)."""
    from firmware.board.sdnotify import Notifier
    from firmware.config import load_config
    from firmware.pc.simulator import Simulator

    sim = Simulator(load_config(CONFIG), STATE)
    notifier = Notifier()
    notifier.ready(f"test-boot-vm driver: {mode} on the mock controls")
    return sim, notifier


def burst() -> int:
    """Entries without pause while the flag exists (no undo: every entry stays in the ledger)."""
    sim, notifier = board("burst")
    rng = random.Random()
    acted = 0
    while True:
        notifier.watchdog()
        if not BURST_FLAG.exists():
            time.sleep(0.2)
            continue
        if sim.board.controller.game.is_over:
            sim.act("hold", "knob")
            sim.act("click", "knob")  # a new game
        # Points dialled and pegged: each one an entry in the ledger (the knob's own
        # panels, which a random click could open, would record nothing for a while).
        sim.act("turn", str(rng.randint(1, 6)))
        sim.act("click", rng.choice(["red", "blue"]))
        acted += 1
        if acted % 100 == 0:
            print(f"burst: {acted} entries acted", flush=True)


def shutdown() -> int:
    """The menu's Shut down with the real power-off; then wait to be stopped by it."""
    from hardware import power
    from hardware.backend import MockBackend

    class PoweringOff(MockBackend):
        """The mock devices with the real board's power-off."""

        powers_off = True

        def power_off(self) -> None:
            power.power_off()

    sim, notifier = board("shutdown")
    sim.devices.backend = PoweringOff("test-boot-vm", "mock devices, the real power-off")
    for verb, argument in SHUT_DOWN:
        sim.act(verb, argument)
    print("shut down: " + ("the board ended" if sim.ended else "the board did not end"), flush=True)
    while True:  # the power-off stops this unit; if it was refused, the journal says why
        notifier.watchdog()
        time.sleep(1)


def gpio(chip: int, seconds: float) -> int:
    """The board's Controls on /dev/gpiochipCHIP through gpiozero's lgpio pin factory: says
    "reading", then takes events for ``seconds`` while the caller drives the gpio-sim lines
    (a click of red, one clockwise detent), and says what it read."""
    from gpiozero.pins.lgpio import LGPIOFactory

    from firmware.config import load_config
    from hardware.inputs import Controls

    pins = load_config(CONFIG).inputs.pins()
    controls = Controls(pins, pin_factory=LGPIOFactory(chip=chip))
    events = []
    try:
        print("reading", flush=True)
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            event = controls.get(timeout=left)
            if event is not None:
                events.append(event)
    finally:
        controls.close()
    seen = [(e.kind, e.source) + ((e.steps,) if e.kind == "turn" else ()) for e in events]
    red = pins.buttons["red"]
    if ("click", "red") not in [(e.kind, e.source) for e in events] or [e.steps for e in events if e.kind == "turn"] != [1]:
        print(f"FAILED: gpio-sim: expected a click of red (GPIO{red}) and one clockwise detent, read {seen}")
        return 1
    print(f"ok: gpio-sim lines read through gpiozero's lgpio pin factory on /dev/gpiochip{chip}: "
          f"red (GPIO{red}) clicked and one clockwise detent (GPIO{pins.encoder_a}/{pins.encoder_b}), "
          f"as the board's Controls read them: {seen}")
    return 0


def oled(port: int) -> int:
    """The OLED through luma's real I2C path on the stub, and one frame shown."""
    from firmware.board.loop import SAFE_TO_UNPLUG
    from firmware.board.screens import oled_image
    from hardware.display import DisplaySettings, open_display

    display = open_display(DisplaySettings(i2c_port=port, i2c_address=0x3C))
    try:
        display.show(oled_image(SAFE_TO_UNPLUG))
    finally:
        display.close(keep_image=True)
    print(f"oled: luma ssd1306 on /dev/i2c-{port} at 0x3C: opened, a frame shown, closed", flush=True)
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["burst"]:
        return burst()
    if argv[:1] == ["shutdown"]:
        return shutdown()
    if argv[:1] == ["gpio"] and len(argv) == 3:
        return gpio(int(argv[1]), float(argv[2]))
    if argv[:1] == ["oled"] and len(argv) == 2:
        return oled(int(argv[1]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
