"""The root of every exception of ours, and the scorer's exception tree.

:class:`CribbageBoardError` is the root: every room's exceptions derive from it,
and from the builtin each stands for. Each of the scorer's refusals is a ``ValueError``
whose message fits a small screen and tells the player what to do instead.
"""


class CribbageBoardError(Exception):
    """Any error of cribbage-board's own; its message is one line that says what to do.

    ``except CribbageBoardError`` catches each of ours and nothing of Python's or a
    library's. Each class under it also derives from the builtin it stands for, as
    gpiozero's do: bad input is a ``ValueError``, a file, device or socket that
    cannot be used an ``OSError``, a refusal at run time a ``RuntimeError``.

    >>> issubclass(RuleError, CribbageBoardError), issubclass(RuleError, ValueError)
    (True, True)
    """


class CribbageError(CribbageBoardError, ValueError):
    """Base of every error the scorer raises for bad input.

    >>> from scorer.variants import find_variant
    >>> try:
    ...     find_variant("nine-card")
    ... except CribbageError as error:
    ...     isinstance(error, ValueError)
    True
    """


class CardError(CribbageError):
    """A card that cannot be parsed, or a card given twice."""


class PlayError(CribbageError):
    """A card that cannot be played (it would pass 31)."""


class RuleError(CribbageError):
    """An entry the rules refuse; the game is unchanged."""


class UnknownVariantError(CribbageError):
    """A variant or option name the scorer does not know."""


class SetupError(CribbageError):
    """A game that cannot be set up as asked (seats, dealer, options)."""


class UnknownSeatError(RuleError):
    """A seat that is not in the game."""


class OutOfTurnError(RuleError):
    """An entry made out of order (show order, heels after the play)."""


class ImpossibleScoreError(RuleError):
    """Points that no hand, crib or card can score."""


class GameOverError(RuleError):
    """An entry after the game has ended."""


class NothingToUndoError(RuleError):
    """Undo or redo with nothing to take back or put again."""


class RecordSyntaxError(CribbageError):
    """A game-record line that is not valid syntax.

    >>> from scorer.record import parse_line
    >>> parse_line("peg Bob")
    Traceback (most recent call last):
    ...
    scorer.errors.RecordSyntaxError: peg takes: peg SEAT POINTS
    """

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line
