"""The root of every exception cribbage-board raises, below every room: it imports nothing.

``except CribbageBoardError`` catches each of ours and nothing of Python's or a
library's. Each class under it also derives from the builtin it stands for, as
gpiozero's do (``class BadPinFactory(GPIOZeroError, ImportError)``): bad input is a
``ValueError``, a file, device or socket that cannot be used an ``OSError``, a
refusal at run time a ``RuntimeError``. So an ``except ValueError`` written for
Python's own still catches ours as it did, and ``except`` ours catches no more.
"""


class CribbageBoardError(Exception):
    """Any error of cribbage-board's own; its message is one line that says what to do."""
