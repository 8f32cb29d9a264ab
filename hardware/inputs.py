"""Buttons and the rotary encoder, as one queue of input events.

Real and mock use the same gpiozero code: only the pin factory differs
(real pins on the Pi, ``MockFactory`` pins in tests and the simulator).
Button debounce is our own (gpiozero's ``bounce_time`` does nothing under
the mock), with an injectable clock so it can be tested.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

from .errors import HardwareError


class Timer(Protocol):
    """What the controls need of a hold timer: threading.Timer's start and cancel (ManualTimer's too)."""

    def start(self) -> None: ...

    def cancel(self) -> None: ...

KNOB = "knob"  # the encoder's push switch
ENCODER = "encoder"
COLOUR_BUTTONS = ("red", "blue", "green", "yellow")  # the players' buttons, the first seat's first
BUTTONS = (*COLOUR_BUTTONS, "undo", "menu")  # every push button but the knob
DEFAULT_BUTTONS = dict(zip(BUTTONS, (5, 6, 16, 26, 13, 19)))


@dataclass(frozen=True)
class InputEvent:
    """One thing a player did.

    ``kind``: press, release, click (a release without a hold), hold (held
    past the hold time; no click follows), turn (``steps`` +1 clockwise, -1 back).
    """

    kind: str
    source: str
    steps: int = 0
    duration: float = 0.0


@dataclass(frozen=True)
class InputPins:
    """GPIO (BCM) numbers of the buttons and the encoder, and the timings."""

    buttons: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_BUTTONS))
    encoder_a: int = 17
    encoder_b: int = 27
    encoder_button: int = 22
    debounce_s: float = 0.02
    hold_s: float = 1.0

    def __post_init__(self):
        pins = list(self.buttons.values()) + [self.encoder_a, self.encoder_b, self.encoder_button]
        names = list(self.buttons) + ["encoder a", "encoder b", KNOB]
        seen: dict[int, str] = {}
        for name, pin in zip(names, pins):
            if not isinstance(pin, int) or not 0 <= pin <= 27:
                raise ValueError(f"{name}: GPIO {pin!r} is not a Raspberry Pi GPIO (0-27)")
            if pin in seen:
                raise ValueError(f"{name} and {seen[pin]} are both on GPIO{pin}: give each its own pin")
            seen[pin] = name
        if KNOB in self.buttons:
            raise ValueError(f"{KNOB!r} is the encoder's switch: name the buttons otherwise")
        if not 0 <= self.debounce_s < self.hold_s:
            raise ValueError("debounce_s must be at least 0 and shorter than hold_s")


class Debouncer:
    """Leading-edge debounce: a change is taken at once, then further changes
    are ignored for ``interval`` seconds (contact bounce)."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic):
        self.interval = interval
        self.clock = clock
        self.state = False
        self.changed_at = float("-inf")

    def feed(self, pressed: bool) -> bool:
        """Offer a new pin state; True if it is taken as a real change."""
        now = self.clock()
        if pressed == self.state or now - self.changed_at < self.interval:
            return False
        self.state = pressed
        self.changed_at = now
        return True

    def settled(self) -> bool:
        return self.clock() - self.changed_at >= self.interval


class Controls:
    """The board's buttons and encoder; read events from ``events`` (a queue)."""

    def __init__(
        self,
        pins: InputPins | None = None,
        pin_factory=None,
        clock: Callable[[], float] = time.monotonic,
        settle_timers: bool = True,
        timer: Callable[[float, Callable[[], None]], Timer] | None = None,
    ):
        # DigitalInputDevice, not Button: a Button starts a hold thread that wakes ten
        # times a second for ever; holds are timed here by one timer per press instead.
        from gpiozero import DigitalInputDevice, RotaryEncoder  # the caller picks the pin factory
        from gpiozero.exc import GPIOZeroError

        self.pins = pins or InputPins()
        self.events: queue.Queue[InputEvent] = queue.Queue()
        self.when_event: Callable[[], None] | None = None  # called after each event is queued (a waiter's wake)
        self._clock = clock
        self._settle_timers = settle_timers
        self._timer = timer or _thread_timer  # makes the hold timers (unstarted)
        self._lock = threading.Lock()
        self._buttons = {}
        self._debounce: dict[str, Debouncer] = {}
        self._pressed_at: dict[str, float] = {}
        self._held: set[str] = set()
        self._hold_timers: dict[str, Timer] = {}
        wanted = dict(self.pins.buttons)
        wanted[KNOB] = self.pins.encoder_button
        try:
            for name, pin in wanted.items():
                button = DigitalInputDevice(pin, pull_up=True, pin_factory=pin_factory)
                button.when_activated = lambda name=name: self._edge(name, True)
                button.when_deactivated = lambda name=name: self._edge(name, False)
                self._buttons[name] = button
                self._debounce[name] = Debouncer(self.pins.debounce_s, clock)
            self._encoder = RotaryEncoder(
                self.pins.encoder_a, self.pins.encoder_b, max_steps=0, pin_factory=pin_factory
            )
        except GPIOZeroError as error:
            self.close()
            raise HardwareError(f"buttons and encoder could not be set up: {error}") from None
        self._encoder.when_rotated_clockwise = lambda: self._put(InputEvent("turn", ENCODER, 1))
        self._encoder.when_rotated_counter_clockwise = lambda: self._put(
            InputEvent("turn", ENCODER, -1)
        )

    @property
    def names(self) -> list[str]:
        return list(self._buttons)

    def _put(self, event: InputEvent) -> None:
        self.events.put(event)
        wake = self.when_event
        if wake is not None:
            wake()

    def _edge(self, name: str, pressed: bool) -> None:
        with self._lock:
            if not self._debounce[name].feed(pressed):
                if self._settle_timers:
                    timer = threading.Timer(self.pins.debounce_s, self.settle)
                    timer.daemon = True
                    timer.start()
                return
            self._emit_edge(name, pressed)

    def _emit_edge(self, name: str, pressed: bool) -> None:
        now = self._clock()
        self._cancel_hold(name)
        if pressed:
            self._pressed_at[name] = now
            self._held.discard(name)
            self._put(InputEvent("press", name))
            self._start_hold(name)
            return
        duration = now - self._pressed_at.pop(name, now)
        self._put(InputEvent("release", name, duration=duration))
        if name not in self._held:
            self._put(InputEvent("click", name, duration=duration))
        self._held.discard(name)

    def _start_hold(self, name: str) -> None:
        """Time this press: a hold is due ``hold_s`` after it unless released first."""
        timer = self._timer(self.pins.hold_s, lambda: self._hold(name, timer))
        self._hold_timers[name] = timer
        timer.start()

    def _cancel_hold(self, name: str) -> None:
        timer = self._hold_timers.pop(name, None)
        if timer is not None:
            timer.cancel()

    def _hold(self, name: str, timer: Timer) -> None:
        with self._lock:
            # Only the timer of the press still down counts (not one that fired
            # while its button was being released).
            if self._hold_timers.get(name) is not timer:
                return
            del self._hold_timers[name]
            if self._debounce[name].state and name not in self._held:
                self._held.add(name)
                self._put(InputEvent("hold", name, duration=self.pins.hold_s))

    def settle(self) -> None:
        """Catch up with a button whose last change fell inside the debounce time."""
        with self._lock:
            for name, button in self._buttons.items():
                debounce = self._debounce[name]
                if debounce.settled() and button.is_active != debounce.state:
                    if debounce.feed(button.is_active):
                        self._emit_edge(name, debounce.state)

    def get(self, timeout: float | None = None) -> InputEvent | None:
        """The next event, or None after ``timeout`` seconds."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[InputEvent]:
        """Every event waiting, oldest first."""
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        with self._lock:
            for name in list(self._hold_timers):
                self._cancel_hold(name)
        for button in self._buttons.values():
            button.close()
        encoder = getattr(self, "_encoder", None)
        if encoder is not None:
            encoder.close()
        self._buttons = {}

    def __enter__(self) -> "Controls":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _thread_timer(seconds: float, action: Callable[[], None]) -> threading.Timer:
    """A daemon thread that runs ``action`` after ``seconds`` once started."""
    timer = threading.Timer(seconds, action)
    timer.daemon = True
    return timer


class ManualTimer:
    """A timer on a :class:`ManualClock`: due ``seconds`` after ``start()``, run by ``advance``."""

    def __init__(self, clock: "ManualClock", seconds: float, action: Callable[[], None]):
        self.clock, self.seconds, self.action = clock, seconds, action
        self.due: float | None = None

    def start(self) -> None:
        self.due = self.clock.now + self.seconds
        self.clock.pending.append(self)

    def cancel(self) -> None:
        if self in self.clock.pending:
            self.clock.pending.remove(self)


class ManualClock:
    """A clock that moves only when told: makes debounce and hold timing exact in tests
    and scripts, whatever the machine's load (no real time passes between a press and
    its release)."""

    def __init__(self, start: float = 1000.0):
        self.now = start
        self.pending: list[ManualTimer] = []

    def __call__(self) -> float:
        return self.now

    def timer(self, seconds: float, action: Callable[[], None]) -> ManualTimer:
        """A timer that this clock runs when it is moved past its time."""
        return ManualTimer(self, seconds, action)

    def advance(self, seconds: float) -> None:
        """Move on ``seconds``, running each timer that falls due, in time order, at its time."""
        end = self.now + seconds
        while True:
            # Only started timers are pending: the None check is for mypy.
            due = [(t.due, t) for t in self.pending if t.due is not None and t.due <= end]
            if not due:
                break
            at, first = min(due, key=lambda pair: pair[0])
            self.pending.remove(first)
            self.now = max(self.now, at)
            first.action()
        self.now = end


class MockControls(Controls):
    """Controls on gpiozero ``MockFactory`` pins, with helpers to press, hold and turn.

    The debounce and the hold timers run on a :class:`ManualClock` the helpers
    move on, so a scripted click or hold takes no real time and a click is
    never read as a hold on a busy machine; ``real_timers`` times holds with
    threads as the real board does."""

    def __init__(self, pins: InputPins | None = None, clock: ManualClock | None = None,
                 real_timers: bool = False):
        from gpiozero.pins.mock import MockFactory

        self.factory = MockFactory()
        self.clock = clock or ManualClock()
        super().__init__(pins, self.factory, self.clock, settle_timers=False,
                         timer=None if real_timers else self.clock.timer)

    def _pin(self, name: str):
        if name == KNOB:
            return self.factory.pin(self.pins.encoder_button)
        if name not in self.pins.buttons:
            raise HardwareError(f"no button {name!r}: buttons are {', '.join(self.names)}")
        return self.factory.pin(self.pins.buttons[name])

    def press(self, name: str) -> None:
        self._drive(self._pin(name), low=True)

    def release(self, name: str) -> None:
        self._drive(self._pin(name), low=False)

    @staticmethod
    def _drive(pin, low: bool) -> None:
        """Drive a mock pin, and let it forget its past: a MockPin records every
        change it sees, which a long session would otherwise keep for ever."""
        pin.drive_low() if low else pin.drive_high()
        pin.clear_states()

    def click(self, name: str, seconds: float | None = None) -> None:
        """A short press: down for ``seconds`` (by default halfway between the debounce
        and the hold time), then up, and as long a pause after."""
        if seconds is None:
            seconds = (self.pins.debounce_s + self.pins.hold_s) / 2
        self.press(name)
        self.clock.advance(seconds)
        self.release(name)
        self.clock.advance(seconds)

    def bounce(self, name: str, edges: int = 4) -> None:
        """Contact bounce: a burst of edges within the debounce time, ending pressed."""
        pin = self._pin(name)
        for k in range(edges):
            self._drive(pin, low=k % 2 == 0)
            self.clock.advance(self.pins.debounce_s / (edges + 1))
        self._drive(pin, low=True)

    def hold(self, name: str) -> None:
        """Hold a button past the hold time, then let it go."""
        self.press(name)
        self.clock.advance(self.pins.hold_s)
        if self._timer is _thread_timer:  # real_timers: the hold fires on a thread of its own
            deadline = time.monotonic() + self.pins.hold_s * 5 + 1
            while name not in self._held and time.monotonic() < deadline:
                time.sleep(0.002)
        if name not in self._held:
            raise HardwareError(f"{name} was held but no hold was seen")
        self.release(name)
        self.clock.advance(0.08)

    def turn(self, steps: int) -> None:
        """Turn the encoder ``steps`` detents (positive clockwise)."""
        a = self.factory.pin(self.pins.encoder_a)
        b = self.factory.pin(self.pins.encoder_b)
        first, second = (a, b) if steps > 0 else (b, a)
        for _ in range(abs(steps)):
            self._drive(first, low=True)
            self._drive(second, low=True)
            self._drive(first, low=False)
            self._drive(second, low=False)
