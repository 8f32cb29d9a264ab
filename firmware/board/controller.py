"""The controller: every input in, ledger entries, the OLED's screen and phones' answers out.

:meth:`Controller.handle` is the one way in, for a press, a script's or a phone's input,
a phone's request and the board loop's news (:mod:`.news`); it returns what the input did
and what the board shows after it (:class:`~.outcome.Handled`). The menus and pickers
are panels on a stack: while one is open, events go to it. The OLED's footer, the
devices' problems and the board's own options are objects of their own.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Union

from hardware.inputs import COLOUR_BUTTONS, KNOB, InputEvent
from ledger.errors import LedgerError
from ledger.sources import EntrySource
from ledger.writer import LedgerWriter
from scorer.errors import CribbageError
from scorer.game import Game, OptionChange, PeggedEntry, Phase
from scorer.record import Command

from .. import WEB_PORT
from ..config import GameSettings
from .board_options import BoardOptions
from .footer import Footer
from .menu import NAMES_NEXT_GAME, MenuTree
from .news import ClubStatus, DeviceBack, DeviceProblem, LedgerRestarted, Look, PhoneRequest, Reminder, Say
from .notices import Notices
from .outcome import NOTHING, Crossed, Did, Handled, Made, Move, Outcome
from .panels import CHECKING_A_COUNT, PAIRING_A_PHONE, Panel
from .picker import CountChecker, checks_a_crib, wrap_pixels
from .scoring import Act, NewGame, Refusal, ScoreInput, Source, decide, player_of
from .screens import Screen, game_status, game_title, scores_screen
from .view import GameView, next_text, show_text, tally_text, won_text

if TYPE_CHECKING:
    from .phones import Paired, PhoneEntry, Phones

Input = Union[InputEvent, ScoreInput, PhoneRequest, Say, DeviceProblem, Reminder, DeviceBack, ClubStatus,
              LedgerRestarted, Look]

REDRAWN = Outcome(redraw=True)  # news that changes only what the board shows
MAX_DIAL = 60
DOUBLE_PRESS_SECONDS = 1.0  # a knob press with nothing dialled this soon after the one before: refused
IN_RAM = "RAM!"  # the status line's mark of a ledger in memory (tmpfs, the Overlay File System): lost at power-off
PLAY_HINT = "colour: play points; knob: "  # the caption in the play, before the show's first count


class OutcomeSoFar:
    """What the input being handled has done so far: the entries made, the last thing said."""

    def __init__(self):
        self.made: list[Made] = []
        self.moves: tuple[Move, ...] = ()
        self.crossed: list[Crossed] = []
        self.won = self.new_game = self.play_over = False
        self.said: tuple[str, bool] | None = None

    def outcome(self) -> Outcome:
        alert = self.said is not None and self.said[1]
        did = Did.ACCEPTED if self.made else Did.REFUSED if alert else Did.NOTHING
        return Outcome(
            did, tuple(self.made), self.moves, tuple(self.crossed), self.won, self.new_game,
            self.play_over, self.said[0] if self.said else "", redraw=True,
        )


class Controller:
    """Turns input events into ledger entries, and keeps what the screen shows.

    Controls, learnt in a minute:
    - turn the knob to dial points; press the knob to peg them as the next count
      of the show (pone's hand, dealer's hand, crib); with 0 dialled that is a
      nineteen (no points), unless it comes within DOUBLE_PRESS_SECONDS of the
      knob's press before: a double press, refused; a press in the play ends the
      play and says so;
    - press a player's colour button to peg the dialled points to that player in
      the play; at the start of a deal, the dealer's button with nothing dialled
      pegs his heels (with 2 dialled it asks: heels, or play points with a press
      again); in the show, with muggins on, it claims missed points;
    - hold a colour button: with muggins on, claim the dialled points for that
      player on the count just made (a hand, the crib or play points);
    - undo button: undo; hold it: redo;
    - hold the knob (or press menu): the menu (firmware/board/menu.py);
    - hold menu: check my count (firmware/board/picker.py), at any time.
    """

    def __init__(
        self,
        store: LedgerWriter,
        settings: GameSettings,
        clock: Callable[[], float] = time.monotonic,
        options: BoardOptions | None = None,
        max_sides: int = 4,
        web_port: int = WEB_PORT,
        phones: Phones | None = None,
    ):
        self.store = store
        self.settings = _with_names_of(settings, store.game)
        self.clock = clock
        self.options = options or BoardOptions()  # the board's own: brightness, palette, tones, display
        self.max_sides = max_sides  # tracks on the board
        self.phones = phones  # the phones paired with seats, or None (no socket for them)
        self.dial = 0
        self.panels: list[Panel] = []
        self.menu = MenuTree(self, phones, web_port)
        self.footer = Footer(clock)
        self.notices = Notices(clock)
        self.shutdown_requested = False
        self.club: ClubStatus | None = None  # the club link's last status, or None without a club
        self._so_far = OutcomeSoFar()  # what the input being handled did (handle() returns it as an Outcome)
        self._view: tuple[tuple, GameView] | None = None  # the last view made, and what it was made of
        self._last_press: tuple[str, float] | None = None  # the board's last click: (button, clock time)
        self._asked: tuple[ScoreInput, int] | None = None  # an input refused as a question, and the dial then
        self._renamed = False  # a player renamed mid-game since the menu opened
        if store.game is None:
            self.start_game()

    # ---- the game --------------------------------------------------------

    @property
    def game(self) -> Game:
        """The ledger's game: there is one from the start (the controller starts one when there is none)."""
        game = self.store.game
        if game is None:
            raise LookupError("the ledger has no game yet")
        return game

    def say(self, text: str, alert: bool = False) -> None:
        """Show a message on the OLED footer; an alert stays until the next accepted entry."""
        self.footer.say(text, alert)
        self._so_far.said = (text, alert)

    def ledger_replaced(self) -> None:
        """The ledger was set aside and started again: carry on with what it holds now."""
        if self.store.game is None:
            self.start_game()

    def _apply(self, action, source: EntrySource | None = None) -> bool:
        """Send one action to the durable ledger; a refusal becomes the message. ``source``: where an
        entry not made on the board came from (it leaves the dial alone, and the OLED names it)."""
        try:
            result = self.store.apply(action, source)
        except (CribbageError, LedgerError) as error:
            self.say(str(error), alert=True)
            return False
        heard = self._so_far
        if isinstance(result, Game):  # the action was a GameHeader
            text = f"New game: {result.variant.name}, {result.dealer} deals"
            heard.moves, heard.crossed, heard.won, heard.new_game = (), [], False, True
        else:
            verb = {Command.UNDO: "Undone: ", Command.REDO: "Redone: "}.get(action, "")
            text = verb + result.describe()
            # An entry or a redo moves its side's peg forward; an undo only takes a move back.
            move = result.move if isinstance(result, PeggedEntry) and action is not Command.UNDO else None
            heard.moves = (Move(move.side, move.start, move.end, self.clock()),) if move else ()
            heard.crossed += [Crossed(move.side, line) for line in move.crossed] if move else []
            heard.won = move is not None and move.ends_game
        heard.made.append(Made(action, result, text))
        if source is None:
            self.say(text)
            self.dial = 0
        else:
            self.say(f"{text} ({source.label()})")
        return True

    def start_game(self, new_match: bool = False, variant: str | None = None) -> bool:
        """Start a game with the current settings (or another variant): the next of the match, or a new match.
        The settings change to that variant only when its game starts."""
        settings = self.settings if variant is None else replace(self.settings, variant=variant)
        try:
            header = settings.header()._replace(new_match=new_match)
        except CribbageError as error:
            self.say(str(error), alert=True)
            return False
        sides = header.variant.sides
        if sides > self.max_sides:
            self.say(f"{header.variant.name} needs a board with {sides} tracks", alert=True)
            return False
        match = self.store.book.match
        if self.store.game is not None and self.store.game.is_over and match is not None and header.same_match(match):
            header = header._replace(dealer=None)  # the loser deals first
        started = self._apply(header)
        if started:
            self.settings = settings
        return started

    # ---- events ----------------------------------------------------------

    def handle(self, given: Input) -> Handled:
        """Act on one input, whoever gave it: a press or a turn, a script's or a phone's scoring
        input, a phone's request off the socket, or the board loop's news (:mod:`.news`). What it
        did (:class:`~.outcome.Outcome`: accepted with the entries made, refused with the reason,
        or nothing; ``redraw`` when the screen or LEDs should change), with the view, the screen
        and a phone's answer after it (:class:`~.outcome.Handled`)."""
        self._so_far = OutcomeSoFar()
        reply = None
        try:
            if isinstance(given, InputEvent):
                outcome = self._press(given)
            elif isinstance(given, ScoreInput):
                self.enter(given)
                outcome = self._so_far.outcome()
            elif isinstance(given, PhoneRequest):
                reply = self._answer_phone(given.body)
                outcome = self._so_far.outcome()
            else:
                outcome = self._news(given)
        finally:
            self._so_far = OutcomeSoFar()
        view = self.view()
        return Handled(outcome, view, self._oled_screen(view), reply, self.panels[-1].screen_name if self.panels else "",
                       bool(self.notices), self.dial, self.shutdown_requested)

    def _press(self, event: InputEvent) -> Outcome:
        """A press, a hold or a turn on the board."""
        if event.kind not in ("turn", "hold", "click") or not self._dispatch(event):
            return NOTHING
        return self._so_far.outcome()

    def _news(self, news: Input) -> Outcome:
        """What the board loop tells: a device's problem or its return, the club, the ledger, a message."""
        if isinstance(news, Look):
            return NOTHING
        if isinstance(news, Say):
            self.say(news.message, alert=news.alert)
        elif isinstance(news, DeviceProblem):
            if news.in_full:
                self.notices.show(news.device, news.message)
            self.say(news.message, alert=True)
        elif isinstance(news, Reminder):
            if not self.footer.alert:
                self.say(news.message, alert=True)
        elif isinstance(news, DeviceBack):
            self.notices.clear(news.device)
            self.say(f"{news.device} working again")
        elif isinstance(news, ClubStatus):
            self.club = news
        elif isinstance(news, LedgerRestarted):
            self.ledger_replaced()
        return REDRAWN

    def _dispatch(self, event: InputEvent) -> bool:
        """Send one event to the open panel or act on it; False when it means nothing here."""
        self.notices.clear()  # an input ends them, and acts as usual
        if self.panels or event.kind != "click" or event.source not in COLOUR_BUTTONS:
            self._asked = None  # only the same press, next, answers a refusal's question
        if self.panels or (event.kind == "hold" and event.source == "menu"):
            self._last_press = None  # a press on a panel is never the first of a double press
        if event.kind == "hold" and event.source == "menu":
            if not (self.panels and self.panels[-1].screen_name in CHECKING_A_COUNT):
                self.check_count()
        elif self.panels:
            self.footer.over_panel = ""
            self.panels[-1].handle(event)
            self.footer.panel_event(self._so_far.said, bool(self.panels))
        elif event.kind == "turn":
            self.dial = max(0, min(MAX_DIAL, self.dial + event.steps))
        elif event.kind == "hold":
            if event.source == "undo":
                self.enter(ScoreInput(Act.REDO, Source.BUTTON))
            elif event.source == KNOB:
                self.open_menu()
            elif event.source in COLOUR_BUTTONS:
                self._claim(COLOUR_BUTTONS.index(event.source))
        elif event.source in (KNOB, "undo", "menu", *COLOUR_BUTTONS):
            since = self._pressed(event)
            if event.source == KNOB:
                self._count_show(since)
            elif event.source == "undo":
                self.enter(ScoreInput(Act.UNDO, Source.BUTTON))
            elif event.source == "menu":
                self.open_menu()
            else:
                self._colour(COLOUR_BUTTONS.index(event.source))
        else:
            return False
        return True

    def _pressed(self, event: InputEvent) -> float | None:
        """Note a click on the board (not on a panel); when the click before it was of the
        same button, how long before (clock seconds), else None."""
        now = self.clock()
        last, self._last_press = self._last_press, (event.source, now)
        return now - last[1] if last is not None and last[0] == event.source else None

    def _count_show(self, since_last: float | None = None) -> bool:
        """The knob pressed: the dial pegged as the next count of the show. With nothing
        dialled soon after the knob's press before, a double press: refused."""
        game = self.game
        if game.next_count() is None:
            self.say("Game over: hold the knob for a new game", alert=True)
            return False
        if self.dial == 0 and since_last is not None and since_last < DOUBLE_PRESS_SECONDS:
            self.say("Double press: a 19 is one press on its own", alert=True)
            return False
        in_play = game.phase in (Phase.HEELS, Phase.PLAY)
        if not self.enter(ScoreInput(Act.COUNT, Source.KNOB)):
            return False
        if in_play:  # the show began with this press: say so, in case it was meant for play points
            self._so_far.play_over = True
            self.say(f"Play over: {self._so_far.made[-1].text} (undo if not)", alert=True)
        return True

    def _colour(self, index: int) -> bool:
        return self.enter(ScoreInput(Act.PEG, Source.BUTTON, index))

    def _claim(self, index: int) -> bool:
        """A colour button held: muggins for that player on the count just made (the crib too)."""
        return self.enter(ScoreInput(Act.CLAIM, Source.BUTTON, index))

    def enter(self, given: ScoreInput, request: str | None = None, player: str | None = None) -> bool:
        """Put one scoring input through the rules and into the ledger (:func:`.scoring.decide`);
        a refusal is said. An input from a phone or a script leaves the dial as it is, and the
        ledger keeps where it came from: its seat's ``player`` (found here when not given) and
        ``request``, the phone's id for it."""
        asked, self._asked = self._asked, None
        if asked == (given, self.dial):  # the press the refusal before asked for, to mean what it said
            given = replace(given, again=True)
        decision = decide(given, self.game, self.dial)
        if isinstance(decision, Refusal):
            if decision.again:
                self._asked = (given, self.dial)
            self.say(decision.message, alert=True)
            return False
        if isinstance(decision, NewGame):
            return self.start_game(new_match=decision.new_match)
        if given.source in (Source.KNOB, Source.BUTTON):
            return self._apply(decision)
        return self._apply(decision, EntrySource(given.source.via, player or player_of(given, self.game), request))

    # ---- panels: the menus and the pickers -------------------------------

    def push(self, panel: Panel) -> None:
        self.panels.append(panel)

    def back(self) -> None:
        if self.panels:
            self.panels.pop()
        if not self.panels:
            self._panels_closed()

    def close_panels(self) -> None:
        self.panels = []
        self._panels_closed()

    def _panels_closed(self) -> None:
        self.footer.panels_closed()
        if self._renamed:  # the board's screen again: say once more when the new names apply
            self._renamed = False
            if self.names_pending():
                self.say(NAMES_NEXT_GAME)

    def open_menu(self) -> None:
        self.footer.over_panel = ""
        self.panels = [self.menu.main()]

    def set_muggins(self, on: bool) -> bool:
        """Muggins on or off at once: an option line in the game's record (what was pegged stays,
        the game goes on) and in the settings, so the next game of the match keeps it. False, and
        said, if the ledger refused it."""
        game = self.game
        if game is not None and game.options.muggins != on:
            try:
                self.store.apply(OptionChange("muggins", on))
            except (CribbageError, LedgerError) as error:
                self.say(str(error), alert=True)
                return False
        self.settings = replace(self.settings, options=self.settings.options._replace(muggins=on))
        return True

    def request_shutdown(self) -> None:
        """The main loop ends and the board saves, goes dark and powers off."""
        self.shutdown_requested = True
        self.say("Shutting down...")

    # ---- phones paired with seats ------------------------------------------

    def _answer_phone(self, body: object) -> dict:
        """The board's answer to one request the web view relayed (:meth:`.phones.Phones.answer`
        checks it): a pairing, a seat, an unpairing, or an entry put through as a press is."""
        if self.phones is None:
            return {"ok": False, "message": "Phones cannot score: the board has no socket for them"}
        asked = self.phones.answer(body)
        if isinstance(asked, dict):
            return asked
        if isinstance(asked, tuple):
            return self._paired(asked)
        answer = self._phone_entry(asked)
        self.phones.keep(asked, answer)
        return answer

    def _paired(self, paired: Paired) -> dict:
        """A phone just paired: its QR code closes, and the OLED says whose phone it is."""
        if self.panels and self.panels[-1].screen_name == PAIRING_A_PHONE:
            self.close_panels()
        seats = self.game.seats
        name = seats[paired.seat] if paired.seat < len(seats) else COLOUR_BUTTONS[paired.seat]
        self.say(f"{name}'s phone paired")
        return {"ok": True, "session": paired.session, "seat": paired.seat, "name": name}

    def _phone_entry(self, entry: PhoneEntry) -> dict:
        """A paired phone's entry through the rules and into the ledger, as a press is; what it did.
        A request the ledger answered before the board restarted pegs nothing more."""
        player = player_of(entry.given, self.game)
        if player is not None:
            try:
                done = self.store.entry_of_request(player, entry.request_id)
            except (LedgerError, sqlite3.Error):
                done = None
            if done is not None:
                return {"ok": True, "text": f"Entered already: {done}", "again": True}
        if self.enter(entry.given, entry.request_id, player):
            answer: dict = {"ok": True, "text": self._so_far.made[-1].text}
            if self.game.history:  # n: where the entry stands in the game's history, as the web view's live
                answer["n"] = len(self.game.history) - 1  # events number it: the phone matches its words to it
            return answer
        said = self._so_far.said
        return {"ok": False, "message": said[0] if said else "nothing entered"}

    def set_player(self, index: int, name: str) -> None:
        """Name the player on a colour button; a game with nothing pegged yet restarts with the name."""
        players = list(self.settings.players)
        old = players[index] if index < len(players) else None
        if index < len(players):
            players[index] = name
        else:
            players.append(name)
        dealer = name if old is not None and self.settings.dealer == old else self.settings.dealer
        self.settings = replace(self.settings, players=tuple(players), dealer=dealer)
        game = self.game
        fresh = game is not None and not game.played and not game.is_over
        if fresh and tuple(game.seats) != self.settings.seats() and len(players) >= game.variant.players:
            self.start_game()
        else:
            # A game under way keeps the names it started with: its entries in the ledger
            # name its seats. Said on the Players menu now, and on the board when it closes.
            self.say(NAMES_NEXT_GAME)
            self._renamed = True

    def names_pending(self) -> bool:
        """Whether names given on the board wait for the next new game (a game is under way)."""
        game = self.game
        if game is None or game.is_over or not game.played:
            return False
        try:
            return tuple(game.seats) != self.settings.seats()
        except CribbageError:  # too few names for the variant: the next game says so
            return True

    # ---- check my count --------------------------------------------------

    def check_count(self) -> None:
        """Check my count: a hand, or the crib when the crib is the count in question."""
        self.footer.over_panel = ""
        self.push(CountChecker(self, self.game.variant.hand_size, checks_a_crib(self.game)))

    def claim_muggins(self, index: int, points: int) -> bool:
        """Claim from the checked count for the player on a colour button."""
        claimed = self.enter(ScoreInput(Act.CLAIM, Source.BUTTON, index, points))
        if claimed:
            self.close_panels()
        return claimed

    def count_checked(self, total: int, text: str) -> None:
        """Leave the checker with the total on the dial, ready to peg."""
        self.close_panels()
        self.dial = min(total, MAX_DIAL)
        self.say(text)

    # ---- what the screen shows ------------------------------------------

    def view(self) -> GameView:
        """The game as the board shows it: one view per change (of the game, its state or the
        club's next game), which the LEDs, the OLED and the terminal board draw."""
        game = self.game
        pairing = self.club.next_game if self.club is not None else ""
        key = (game, game.state, pairing)
        if self._view is None or self._view[0] != key:
            self._view = (key, GameView.of(game, self.store.book.match, pairing))
        return self._view[1]

    def _oled_screen(self, view: GameView) -> Screen:
        """What the OLED shows: :meth:`screen`, or in the large-scores mode (the board's
        ``display_mode`` "scores") the scores, unless a menu or a device problem is up."""
        screen = self.screen(view)
        if self.options.display_mode != "scores" or self.panels or self.notices:
            return screen
        return scores_screen(view, self.dial, screen.footer, screen.alert)

    def screen(self, view: GameView | None = None) -> Screen:
        """What the OLED shows: a device's problem, the open panel, or the game (from ``view``,
        the board's view of it, else one made now)."""
        notice = self.notices.screen()
        if notice is not None:
            return notice
        said = self.footer
        fresh, alert = said.fresh, said.alert
        if self.panels:
            screen = self.panels[-1].screen()
            if said.over_panel:  # a refusal in a picker or menu shows over its footer
                screen = replace(screen, footer=said.over_panel, alert=True)
            return screen
        view = view or self.view()
        game = self.game
        if fresh:
            footer = said.message
        elif view.phase is Phase.HEELS:  # the start of a deal: how to peg his heels, should the cut be a jack
            footer = f"Jack cut? Dial 0, press {COLOUR_BUTTONS[game.seats.index(game.dealer)]}: his heels"
        else:
            footer = game.pegged[-1].describe() if game.pegged else ""
        if view.outcome is not None:
            return Screen(
                title=game_title(view),
                lines=(*wrap_pixels(won_text(view), ""), *wrap_pixels(view.pairing or tally_text(view), "")),
                footer=footer if alert else "hold knob: new game",
                alert=alert,
            )
        mark = IN_RAM if self.store.in_memory else ""  # said in full at start; kept in sight while it lasts
        club = ""
        if self.club is not None:  # the club's connection first; before the first entry, its pairing
            club = self.club.connection
            if not game.pegged and view.pairing and not fresh:
                footer = view.pairing
        return Screen(
            title=game_title(view),
            lines=(game_status(view, club, mark),),
            big=str(self.dial),
            big_caption=PLAY_HINT + next_text(view) if view.in_play else "knob: " + show_text(view),
            footer=footer,
            alert=alert,
        )


def _with_names_of(settings: GameSettings, game: Game | None) -> GameSettings:
    """The settings with the player names of the game in the ledger (names set on the board are
    kept with the game, in its header), the config's names after them for the other seats; and
    muggins as the game has it, when it was changed mid-game (an option line of its record)."""
    if game is None:
        return settings
    seats = list(game.seats)
    taken = {seat.lower() for seat in seats}
    rest = [name for name in settings.players[len(seats):] if name.lower() not in taken]
    settings = replace(settings, players=tuple(seats + rest))
    if game.options != game.start_options:  # changed on the board mid-game (muggins): kept with the game too
        settings = replace(settings, options=settings.options._replace(muggins=game.options.muggins))
    return settings
