"""The simulator's scripts: one physical action a line (``#`` comments), read by :func:`parse_script`."""

from __future__ import annotations

from hardware.inputs import BUTTONS as PUSH_BUTTONS
from hardware.inputs import COLOUR_BUTTONS, KNOB
from scorer.errors import RecordSyntaxError

from ...wire.acts import PHONE_ACT_NAMES

SCRIPT_BUTTONS = (*PUSH_BUTTONS, KNOB)  # what click, hold, down and up take

# Bounds that keep a script finite: its time grows with its detents, its presses
# and the hold time of its holds (bench/README.md has what each costs).
MAX_TURN = 1000  # detents in one turn line
MAX_DETENTS = 100_000  # detents in the whole script
MAX_WAIT = 60.0  # seconds in one wait line
MAX_TOTAL_WAIT = 300.0  # seconds of waits in the whole script
MAX_ACTIONS = 20_000  # actions in the whole script


def parse_script(lines) -> list[tuple[int, str, str]]:
    """(line number, verb, argument) for each action; RecordSyntaxError for a bad
    line, or at the line that takes the script past one of the bounds above.

    A script::

        turn 8          # the encoder, 8 detents clockwise (negative: back)
        click knob      # a short press (press is the same); knob, red, blue, green,
        click red       #   yellow, undo, menu
        hold undo       # held past the hold time
        down red        # the button alone down, or up
        up red
        wait 0.5        # let real time pass (animations)
        enter blue hand 8   # a seat's entry as a paired phone makes it (peg, hand, crib, heels, claim, undo, go)
    """
    actions = []
    detents = 0
    waited = 0.0
    for number, text in enumerate(lines, start=1):
        words = text.split("#", 1)[0].split()
        if not words:
            continue
        verb = words[0].lower()
        verb = "click" if verb == "press" else verb
        if verb in ("click", "hold", "down", "up"):
            if len(words) != 2 or words[1].lower() not in SCRIPT_BUTTONS:
                raise RecordSyntaxError(f"{verb} takes one of {', '.join(SCRIPT_BUTTONS)}", number)
            actions.append((number, verb, words[1].lower()))
        elif verb == "enter":
            actions.append((number, verb, _script_entry(words, number)))
        elif verb in ("turn", "wait"):
            value = _script_number(words, verb, number)
            if verb == "turn":
                detents += abs(value)
                if detents > MAX_DETENTS:
                    raise RecordSyntaxError(
                        f"the script turns more than {MAX_DETENTS} detents in all: split it", number)
                argument = str(value)
            else:
                waited += value
                if waited > MAX_TOTAL_WAIT:
                    raise RecordSyntaxError(
                        f"the script waits more than {MAX_TOTAL_WAIT:g} seconds in all: split it", number)
                argument = repr(value)
            actions.append((number, verb, argument))
        else:
            name = words[0] if len(words[0]) <= 24 else words[0][:24] + "..."
            raise RecordSyntaxError(
                f"unknown action {name!r}: use click, hold, down, up, turn, wait or enter", number
            )
        if len(actions) > MAX_ACTIONS:
            raise RecordSyntaxError(f"the script has more than {MAX_ACTIONS} actions: split it", number)
    return actions


def _script_entry(words: list[str], number: int) -> str:
    """An enter line's seat, entry and points, checked: "blue hand 8"."""
    usage = f"use enter SEAT ENTRY [POINTS]: a seat of {', '.join(COLOUR_BUTTONS)}, an entry of {', '.join(PHONE_ACT_NAMES)}"
    if not 3 <= len(words) <= 4:
        raise RecordSyntaxError(usage, number)
    seat, act = words[1].lower(), words[2].lower()
    points = words[3] if len(words) == 4 else "0"
    if seat not in COLOUR_BUTTONS or act not in PHONE_ACT_NAMES or not (points.isascii() and points.isdigit()) \
            or not 0 <= int(points) <= 60:
        raise RecordSyntaxError(usage + ", points 0 to 60", number)
    return f"{seat} {act} {int(points)}"


def _script_number(words: list[str], verb: str, number: int):
    """The detents of a turn line (an int) or the seconds of a wait line (a float)."""
    text = words[1] if len(words) == 2 else ""
    try:
        if not text.isascii() or "_" in text:
            raise ValueError
        value = int(text) if verb == "turn" else float(text)
    except ValueError:
        value = None
    if verb == "turn" and (value is None or not -MAX_TURN <= value <= MAX_TURN):
        raise RecordSyntaxError(
            f"use turn N, N from -{MAX_TURN} to {MAX_TURN} detents (negative turns back)", number)
    if verb == "wait" and (value is None or not 0 <= value <= MAX_WAIT):
        raise RecordSyntaxError(f"use wait SECONDS, from 0 to {MAX_WAIT:g}", number)
    return value
