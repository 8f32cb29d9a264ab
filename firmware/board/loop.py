"""The board's main loop: it waits for inputs, feeds each to the controller, and drives the LEDs, the OLED and the buzzer.

The loop sleeps on its own wake event (no busy polling): set by a press, a phone's
request, a stop, the club link and the ledger check; it also wakes for animation
frames, device retries and the systemd watchdog. Every input and every piece of news
goes through :meth:`Controller.handle`, and the loop draws what it returns; after a
slide or a win chase, one more frame: the settled board. Devices that fail are left
out and tried again (:mod:`firmware.board.devices`).
"""

from __future__ import annotations

import threading
import time
import traceback
from collections import deque
from pathlib import Path
from typing import Callable

from hardware.power import PowerOffError
from ledger.errors import LedgerError
from ledger.writer import LedgerWriter

from ..config import Config
from ..journal import journal
from ..wire.relay import socket_path
from .board_options import BoardOptions
from .controller import Controller, Input
from .controls import UNPLUG_WHEN
from .devices import DEVICE_ERRORS, DEVICE_NAMES, Devices, close_quietly
from .frames import LedStyle, Slide, led_frame, light_game_counters, next_blink
from .news import LOOK, ClubStatus, DeviceBack, DeviceProblem, LedgerRestarted, PhoneRequest, Reminder, Say
from .outcome import Handled, Move, Outcome
from .phones import Phones, PhoneServer, sessions_path
from .screens import Screen, oled_image
from .sdnotify import Notifier
from .signals import StopSignals
from .tunes import TUNES, sound_for
from .view import GameView

SLIDE_SECONDS_PER_HOLE = 0.02
SLIDE_MAX_SECONDS = 0.6
CELEBRATE_SECONDS = 4.0
FRAME_SECONDS = 0.02
IDLE_WAKE_SECONDS = 5.0

SHUTTING_DOWN = Screen(title="Shutting down...", lines=("Saving the scores", "and turning the", "LEDs off"))
SAFE_TO_UNPLUG = Screen(  # controls.UNPLUG_WHEN, in lines the OLED holds
    title="Scores saved",
    lines=("Powering off. Unplug", "once the Pi's green", "light stays off, not", "when the LEDs go dark"),
)
MOCK_STOPPED = Screen(title="Scores saved", lines=("The mock board has", "stopped."))
PHONE_FAILED = "The board could not take this request: nothing was entered"
POWER_OFF_FAILED = Screen(
    title="Power-off refused",
    lines=("Scores saved; Pi on.", "Fix: sudo systemd/", "install.sh (polkit", "rule); see journal"),
)


class Board:
    """The running board: it opens the devices, the ledger's check, the club link and the phones'
    socket, feeds every input to the controller (:meth:`feed`) and draws what comes back."""

    def __init__(
        self,
        config: Config,
        store: LedgerWriter,
        devices: Devices,
        clock: Callable[[], float] = time.monotonic,
        notifier: Notifier | None = None,
        log: Callable[[str], None] = journal,
    ):
        self.config = config
        self.store = store
        self.devices = devices
        self.clock = clock
        self.notifier = notifier or Notifier({})
        self.log = log
        self.wake = threading.Event()  # set to wake the loop: an input queued, a stop, the club, the ledger check
        self.club = None  # the club link (firmware.board.club.link), when [club] names a broker
        if config.club.enabled:
            from .club.link import open_link

            self.club = open_link(config.club, store, log=log, changed=self._club_changed)
        self._club_shown: ClubStatus | None = None
        phones, self.phone_server = self._open_phones(store.path, clock)
        self._use_palette(config.leds.palette)
        self.options = BoardOptions(config.leds.palette, config.buzzer.enabled, config.display.mode,
                                    on_brightness=self._set_brightness, on_palette=self._use_palette)
        self.controller = Controller(store, config.game, clock, self.options, max_sides=len(devices.layout.tracks),
                                     web_port=config.web.port, phones=phones)
        self._shutting_down = False
        self._stop = threading.Event()
        self._signals = StopSignals(self.stop)
        self._last_image: bytes | None = None
        self._last_screen: Screen | None = None  # the screen that image is of: not drawn again
        self._motion_shown = False  # the strip's last frame is a slide or chase frame
        self._retry_at = {kind: clock() + devices.retry_s for kind in devices.missing()}
        self._next_ping = clock()
        self.moves: tuple[Move, ...] = ()  # the last entry's moved pegs: the slide
        self.finished_at: float | None = None  # when the game was won: the win chase
        self.outcomes: deque[Outcome] = deque(maxlen=64)  # what the latest inputs did (the simulator reads them)
        self.frames_shown = 0
        self.ledger_check: threading.Thread | None = None
        self._ledger_damage: str | None = None
        self._club_status()
        for message in store.messages + devices.warnings:
            self.feed(Say(message, alert=True))
        for kind in devices.missing():
            self._show_problem(kind)
        sides, tracks = len(self.look().view.names), len(devices.layout.tracks)
        if sides > tracks:
            self.feed(Say(f"this game has {sides} sides; the board shows {tracks}", alert=True))

    # ---- phones ----------------------------------------------------------

    def _open_phones(self, ledger: Path, clock: Callable[[], float]) -> tuple[Phones | None, PhoneServer | None]:
        """The paired phones and the socket the web view relays them through; without the socket
        (its folder read-only, say) the board runs on and says why phones cannot pair."""
        phones = Phones(sessions_path(ledger), clock, log=self.log)
        try:
            server = PhoneServer(socket_path(ledger), self.wake.set)
        except OSError as error:
            self.log(f"no socket for phones at {socket_path(ledger)} ({error.strerror or error}): phones cannot score")
            return None, None
        return phones, server

    def _serve_phones(self) -> bool:
        """Feed the controller the phones' requests waiting on the socket, and reply to each with
        its answer; True if any came. No request stops the board: one the controller fails on is
        refused in words, and the journal says why."""
        if self.phone_server is None:
            return False
        waiting = self.phone_server.waiting()
        for request in waiting:
            answer = {"ok": False, "message": PHONE_FAILED}
            try:
                answer = self.feed(PhoneRequest(request.body)).reply or answer
            except Exception as error:  # noqa: BLE001 - a phone's request never ends the main loop
                where = traceback.extract_tb(error.__traceback__)[-1]
                self.log(f"a phone's request failed ({type(error).__name__} at {Path(where.filename).name}:"
                         f"{where.lineno}: {error}): refused, nothing entered")
            finally:
                request.reply(answer)
        return bool(waiting)

    # ---- the controller --------------------------------------------------

    def feed(self, given: Input) -> Handled:
        """Hand one input to the controller; show what it did (the slide, the win chase, the tone)."""
        handled = self.controller.handle(given)
        self.show_outcome(handled.outcome)
        self._shutting_down |= handled.shutdown
        return handled

    def look(self) -> Handled:
        """What the board shows now, as the controller says it (nothing is entered)."""
        return self.controller.handle(LOOK)

    @property
    def shutting_down(self) -> bool:
        """The menu's Shut down was chosen: the loop ends, and the board saves, goes dark and powers off."""
        return self._shutting_down

    # ---- animation -------------------------------------------------------

    def animating(self, now: float) -> bool:
        return self._slide(now) is not None or self._celebrating(now) is not None

    def needs_frame(self, now: float) -> bool:
        """A frame is due: an animation runs, or its last frame is still on the strip."""
        return self.animating(now) or self._motion_shown

    def settles_at(self, now: float) -> float | None:
        """When the running slide or win chase ends (clock time); None when all is still."""
        ends = []
        for move in self.moves[:1]:
            ends.append(move.at + self._slide_seconds(move))
        if self.finished_at is not None:
            ends.append(self.finished_at + CELEBRATE_SECONDS)
        ends = [end for end in ends if end > now]
        return max(ends) if ends else None

    def _slide_seconds(self, move) -> float:
        return min(SLIDE_MAX_SECONDS, SLIDE_SECONDS_PER_HOLE * (move.end - move.start))

    def _slide(self, now: float) -> Slide | None:
        for move in self.moves[:1]:
            seconds = self._slide_seconds(move)
            progress = (now - move.at) / seconds if seconds else 1.0
            if progress < 1.0:
                return Slide(move.side, move.start, move.end, progress)
        return None

    def _celebrating(self, now: float) -> float | None:
        finished = self.finished_at
        if finished is not None and now - finished < CELEBRATE_SECONDS:
            return now - finished
        return None

    # ---- drawing ---------------------------------------------------------

    def draw(self, now: float | None = None, settled: bool = False) -> None:
        """Show the current state on the LEDs and (if changed) the OLED;
        ``settled`` draws the pegs where they end, without animation."""
        now = self.clock() if now is None else now
        shown = self.look()
        self._show_leds(shown.view, now, settled)
        self._show_screen(shown.screen)

    def view(self) -> GameView:
        """The game as the board shows it (the LEDs, the OLED and the terminal board draw it)."""
        return self.look().view

    def oled_screen(self) -> Screen:
        """What the OLED shows now."""
        return self.look().screen

    def _show_leds(self, view: GameView, now: float, settled: bool) -> None:
        strip = self.devices.strip
        if strip is None:
            return
        slide, celebrate = (None, None) if settled else (self._slide(now), self._celebrating(now))
        frame = led_frame(self.devices.layout, view.board, self.style, slide, celebrate, now=now)
        if self.devices.layout.counters:  # the match's wins on the game counters
            light_game_counters(self.devices.layout, frame, view.wins, self.style)
        try:
            strip.show(frame)
        except DEVICE_ERRORS as error:
            self._device_failed("strip", f"LED strip failed ({error}); scores are safe", now)
            return
        self.frames_shown += 1
        self._motion_shown = slide is not None or celebrate is not None

    def _show_screen(self, screen: Screen) -> None:
        """Draw a screen on the OLED, unless it already shows exactly that (the screen it shows is not
        drawn again: an animation's frames leave the OLED alone)."""
        display = self.devices.display
        if display is None or screen == self._last_screen:
            return
        image = oled_image(screen)
        data = image.tobytes()
        if data == self._last_image:
            self._last_screen = screen
            return
        try:
            display.show(image)
            self._last_image, self._last_screen = data, screen
        except DEVICE_ERRORS as error:
            self._device_failed("display", f"OLED stopped ({error}); carrying on without it", self.clock())

    def _use_palette(self, palette: str) -> None:
        """Light the LEDs in a palette from the next frame on (the menu's Palette, at once):
        its colours; with the colour-blind one the back peg blinks."""
        leds = self.config.leds
        blink = palette == "colour-blind"
        self.style = LedStyle(leds.colours_of(palette), leds.back_peg, leds.marks, blink_back=blink)
        self._blink_at = float("inf") if not blink else next_blink(self.clock())

    def _set_brightness(self, level: float) -> None:
        if self.devices.strip is not None:
            self.devices.strip.set_brightness(level)

    # ---- devices that fail and come back ---------------------------------

    def _show_problem(self, kind: str) -> None:
        """The problem in full on the OLED (until the next input), and in the footer after that."""
        # An OLED cannot show its own problem; a buzzer's is the footer's.
        self.feed(DeviceProblem(DEVICE_NAMES[kind], self.devices.problems[kind], kind in ("strip", "controls")))

    def _device_failed(self, kind: str, problem: str, now: float) -> None:
        self.devices.drop(kind, problem)
        if kind == "strip":
            self._motion_shown = False
        elif kind == "display":
            self._last_image = self._last_screen = None
        self._retry_at[kind] = now + self.devices.retry_s
        self.log(f"{problem}; trying again every {self.devices.retry_s:g} s")
        self._show_problem(kind)

    def _retry_devices(self, now: float) -> None:
        """Try again each missing device whose time has come."""
        for kind in self.devices.missing():
            if now < self._retry_at[kind]:
                continue
            before = self.devices.problems[kind]
            if self.devices.open(kind):
                self._device_back(kind)
            else:
                self._retry_at[kind] = now + self.devices.retry_s
                self._remind(kind, before)

    def open_later(self) -> None:
        """Open the devices left until READY=1 (the OLED) and show the screen on them;
        one that cannot start is said and retried, as at start."""
        later, self.devices.later = self.devices.later, []
        for kind in later:
            if not self.devices.open(kind):
                self._retry_at[kind] = self.clock() + self.devices.retry_s
                self.log(f"{self.devices.problems[kind]}; trying again every {self.devices.retry_s:g} s")
                self._show_problem(kind)
        if later:
            self._show_screen(self.oled_screen())

    def _device_back(self, kind: str) -> None:
        self._retry_at.pop(kind, None)
        name = DEVICE_NAMES[kind]
        self.log(f"{name} working again")
        strip = self.devices.strip
        if kind == "strip" and strip is not None:
            strip.set_brightness(self.options.brightness)
        self._last_image = self._last_screen = None
        self.feed(DeviceBack(name))
        self.draw()

    def _remind(self, kind: str, before: str) -> None:
        """A retry failed: say the problem again if it changed or the screen no longer shows it."""
        problem = self.devices.problems[kind]
        if problem != before:
            self.log(f"{problem}; trying again every {self.devices.retry_s:g} s")
            self._show_problem(kind)
        else:
            self.feed(Reminder(problem))
        self._show_screen(self.oled_screen())

    # ---- the ledger's integrity check ------------------------------------

    def start_ledger_check(self) -> None:
        """Check the whole ledger file in a thread of its own (a ledger opened with
        ``check="later"``); damage found is set aside by the main loop's next step."""
        if not getattr(self.store, "check_pending", False):
            return
        self.ledger_check = threading.Thread(target=self._check_ledger, name="ledger check", daemon=True)
        self.ledger_check.start()

    def _check_ledger(self) -> None:
        problem = self.store.check()
        if problem is None:
            return
        self._ledger_damage = problem
        self.wake.set()

    def _set_ledger_aside(self, problem: str) -> bool:
        """The check found damage (``problem``): set the file aside as an open would, and say so."""
        self._ledger_damage = None
        self.log(f"ledger {self.store.path}: {problem}")
        try:
            self.store.set_aside(problem)
        except LedgerError as error:
            self.log(str(error))
            self.feed(Say(str(error), alert=True))
            return True
        for message in self.store.messages:
            self.log(message)
        self.moves, self.finished_at = (), None
        self.feed(LedgerRestarted())
        for message in self.store.messages:
            self.feed(Say(message, alert=True))
        return True

    # ---- running ---------------------------------------------------------

    def step(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for input, handle all that came, retry devices, draw if needed."""
        changed = self._handle_input(timeout)
        changed |= self._serve_phones()
        changed |= self._club_status()
        if self._ledger_damage is not None:
            changed = self._set_ledger_aside(self._ledger_damage) or changed
        now = self.clock()
        self._retry_devices(now)
        blink = now >= self._blink_at
        if blink:
            self._blink_at = next_blink(now)
        if changed or blink or self.needs_frame(now):
            self.draw(now)
        return changed

    def _handle_input(self, timeout: float) -> bool:
        """Sleep on the wake event unless an input waits, then handle every input queued;
        True if anything changed."""
        controls = self.devices.controls
        if controls is not None:
            controls.when_event = self.wake.set  # each time: the buttons may be new, opened again after a failure
        if controls is None or controls.events.empty():
            self.wake.wait(timeout)
        self.wake.clear()  # before the queue is read: an input queued from now on wakes the next wait
        if controls is None:
            return False
        changed = False
        event = controls.get(0)
        while event is not None:
            changed |= self.feed(event).outcome.redraw
            event = controls.get(0)
        return changed

    def _club_status(self) -> bool:
        """Tell the controller the club link's connection and next game when they changed; True if they did."""
        if self.club is None:
            return False
        refused = self.club.refusals()
        for notice in refused:
            self.feed(DeviceProblem("club", notice, True))
        shown = ClubStatus(self.club.connection(), self.club.next_game())
        if shown == self._club_shown:
            return bool(refused)
        self._club_shown = shown
        self.feed(shown)
        return True

    def show_outcome(self, outcome: Outcome) -> None:
        """What an input did, as the board shows it: the slide, the win chase, the tone."""
        self.outcomes.append(outcome)
        if outcome.accepted:
            self.moves = outcome.moves
            self.finished_at = self.clock() if outcome.won else None
        self._sound(outcome)

    # ---- the buzzer ------------------------------------------------------

    def _sound(self, outcome: Outcome) -> None:
        """Play the tone for what an input did (see tunes.sound_for), if there is a buzzer."""
        buzzer = self.devices.buzzer
        if buzzer is None or not self.options.tones:  # tones turned off in the Options menu
            return
        tone = sound_for(outcome)
        if tone is None:
            return
        try:
            buzzer.play(TUNES[tone], tone)
        except DEVICE_ERRORS as error:
            self._device_failed("buzzer", f"buzzer failed ({error}); playing on without sound", self.clock())

    def wake_in(self, now: float) -> float:
        """How long the loop may sleep: until the next frame, device retry or watchdog ping."""
        wake = now + (FRAME_SECONDS if self.needs_frame(now) else IDLE_WAKE_SECONDS)
        wake = min([wake, self._blink_at, *(self._retry_at[kind] for kind in self.devices.missing())])
        if self.notifier.watchdog_interval:
            wake = min(wake, self._next_ping)
        return max(0.0, wake - now)

    def _ping_watchdog(self, now: float) -> None:
        interval = self.notifier.watchdog_interval
        if interval and now >= self._next_ping:
            self.notifier.watchdog()
            self._next_ping = now + interval / 2

    def _club_changed(self) -> None:
        """The club's connection or pairing changed (the link's thread): wake the loop to show it."""
        self.wake.set()

    def stop(self) -> None:
        """End the main loop from another thread: it wakes at once and closes down."""
        self._stop.set()
        self.wake.set()

    @property
    def stopped_by(self) -> int | None:
        """The signal (SIGTERM, SIGINT) that ended the loop, if one did."""
        return self._signals.received

    def _running(self) -> bool:
        return not (self._signals.received or self._stop.is_set() or self._shutting_down)

    def run(self) -> int:
        """The main loop, until SIGTERM/SIGINT, a shutdown from the menu, or stop().

        A signal wakes the loop at once (:class:`~firmware.board.signals.StopSignals`)."""
        with self._signals:  # a second signal while closing is noted, never a KeyboardInterrupt
            try:
                self.draw()
                self.notifier.ready(f"board ready: {self.view().variant}")
                self.open_later()
                self.start_ledger_check()
                self._next_ping = self.clock()
                while self._running():
                    now = self.clock()
                    self._ping_watchdog(now)
                    self.step(self.wake_in(now))
                return 0
            finally:
                self.notifier.stopping()
                if self._shutting_down:
                    self.shut_down()
                else:
                    self.close()

    # ---- ending ----------------------------------------------------------

    def shut_down(self) -> None:
        """The menu's Shut down: save and go dark, say when it is safe, then power off.

        The OLED keeps the last message. On the mock board (no ``power_off``)
        the program just ends.
        """
        self.log("shutting down: closing the ledger, LEDs off")
        self._show_screen(SHUTTING_DOWN)
        unclosed = self._release(keep_display=True)
        power = self.devices.power_off
        if unclosed:
            what = ", ".join(unclosed)
            self.log(f"{what} did not close; powering off anyway")
            self._show_screen(Screen(title="Shutting down...", lines=(f"{what} did not", "close: see journal")))
        elif power is None:
            self._show_screen(MOCK_STOPPED)
        else:
            self.log(f"ledger closed, LEDs dark: powering off; unplug once {UNPLUG_WHEN}")
            self._show_screen(SAFE_TO_UNPLUG)
        if power is not None:
            self._request_power_off(power)
        self._leave_display(keep_image=power is not None)

    def _request_power_off(self, power: Callable[[], None]) -> None:
        try:
            power()
        except PowerOffError as error:
            self.log(str(error))
            self._show_screen(POWER_OFF_FAILED)
            return
        self.log("power-off requested")

    def _release(self, keep_display: bool = False) -> list[str]:
        """Close the ledger, the buttons and the strip (LEDs off), and the OLED
        unless ``keep_display``; the names of those that failed to close.
        (Each close is safe to repeat.)"""
        closers: dict[str, Callable[[], object]] = {"club link": self.club.close} if self.club is not None else {}
        if self.phone_server is not None:
            closers["phones' socket"] = self.phone_server.close
        closers["ledger"] = self.store.close
        for kind in ("controls", "strip", "buzzer") + (() if keep_display else ("display",)):
            device = getattr(self.devices, kind)
            if device is not None:
                closers[DEVICE_NAMES[kind]] = device.close
        said = len(self.store.messages)
        failed = [name for name, closer in closers.items() if not close_quietly(closer)]
        for message in self.store.messages[said:]:  # what closing did (a ledger moved meanwhile: where it is kept)
            self.log(message)
        return failed

    def _leave_display(self, keep_image: bool) -> None:
        """Release the OLED; with ``keep_image`` it goes on showing the last message.
        (A closed display closes no further: a later close() leaves it as it is.)"""
        display = self.devices.display
        if display is not None:
            close_quietly(lambda: display.close(keep_image=keep_image))

    def close(self) -> None:
        """LEDs off, OLED cleared, pins and ledger released."""
        self._release()

