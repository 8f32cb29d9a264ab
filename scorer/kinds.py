"""Closed sets of named values (what an entry records, a deal's phase, skunk lines, result kinds).

A :class:`Kind` subclass lists its members as upper-case class attributes
with their values; each becomes the one instance of the class that stands for
it, as an enum member does::

    class Phase(Kind):
        PLAY = "play"
        SHOW = "show"

    Phase.PLAY.value == "play"; Phase("play") is Phase.PLAY; list(Phase) == [Phase.PLAY, Phase.SHOW]

Members are compared by identity, hashable, immutable, and say their class
and name in their repr. The standard library's ``enum`` does the same, but
loading it (with the functools it imports) costs a replay of the example game
much of its run; this does what the rules need in a few lines, and type checkers
read a Kind as the ``enum.Enum`` it behaves as.
"""

from __future__ import annotations

# Measured (bench/startup.py on an installed copy, Python 3.11, December 2026): with
# enum.Enum as Kind at run time, `replay example-game.txt` ran 87.9 M instructions
# against 76.2 M with this class, 2.30x `python -c pass` against 2.00x (its target:
# 2x); `count` and `--version` the same (they load no Kind). So enum stays unloaded.
TYPE_CHECKING = False  # as the standard library does, to keep typing (and enum) unloaded
if TYPE_CHECKING:  # type checkers read a Kind as the enum it behaves as
    from enum import Enum as Kind

    __all__ = ["Kind"]
else:
    class _Closed(type):
        """The type of a Kind: its members made when the class is, found by value, in order."""

        def __new__(mcls, name: str, bases: tuple, namespace: dict):
            cls = super().__new__(mcls, name, bases, namespace)
            members: dict[object, Kind] = {}
            for key, value in namespace.items():
                if key.isupper() and not key.startswith("_"):
                    member = object.__new__(cls)
                    object.__setattr__(member, "name", key)
                    object.__setattr__(member, "value", value)
                    type.__setattr__(cls, key, member)
                    members[value] = member
            type.__setattr__(cls, "_members", members)
            return cls

        def __call__(cls, value):
            """The member whose value is ``value``; ValueError if there is none."""
            try:
                return cls._members[value]
            except (KeyError, TypeError):
                raise ValueError(f"{value!r} is not a valid {cls.__name__}") from None

        def __iter__(cls):
            return iter(cls._members.values())

        def __len__(cls) -> int:
            return len(cls._members)

        def __setattr__(cls, name: str, value) -> None:
            raise AttributeError(f"{cls.__name__} is a closed set: cannot assign to {name!r}")

    class Kind(metaclass=_Closed):
        """A member of a closed set: its ``name`` (the attribute) and its ``value``."""

        __slots__ = ("name", "value")

        def __setattr__(self, name: str, value: object) -> None:
            raise AttributeError(f"{type(self).__name__}.{self.name} cannot change: cannot assign to {name!r}")

        def __reduce__(self):
            return type(self), (self.value,)

        def __repr__(self) -> str:
            return f"<{type(self).__name__}.{self.name}: {self.value!r}>"
