"""Named tuples declared as ``typing.NamedTuple`` classes, without importing typing.

A class that derives from this module's :class:`NamedTuple` becomes a
``collections.namedtuple`` with its annotated fields, in order, their
defaults, and its methods and docstring, as ``typing.NamedTuple`` makes it::

    class Side(NamedTuple):
        name: str
        seats: tuple[str, ...] = ()

Type checkers read it as ``typing.NamedTuple`` itself. Importing typing would cost
a ``replay`` 35 M instructions (it loads re, functools and contextlib): about as
much as the command's own work past Python's start, 38 M (76 M in all, callgrind,
installed copy, Python 3.11; bench/README.md).
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # as the standard library does, to keep typing unloaded
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # What typing.NamedTuple refuses to have overwritten, and what it leaves out.
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                             "_make", "_replace", "_asdict", "_source"})
    _SPECIAL = frozenset({"__module__", "__name__", "__qualname__", "__annotations__"})

    class _NamedTupleMaker(type):
        """Makes each class declared on NamedTuple a collections.namedtuple (not an instance of this type)."""

        def __new__(mcls, typename, bases, namespace):
            fields = namespace.get("__annotations__", {})
            defaults = [name for name in fields if name in namespace]
            if defaults and defaults != list(fields)[-len(defaults):]:
                raise TypeError(f"{typename}: a field without a default follows {defaults[0]!r}, which has one")
            made = namedtuple(typename, list(fields), defaults=[namespace[name] for name in defaults],
                              module=namespace["__module__"])
            made.__annotations__ = dict(fields)
            made.__qualname__ = namespace.get("__qualname__", typename)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{typename}: cannot overwrite the named tuple's {key}")
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    NamedTuple = type.__new__(_NamedTupleMaker, "NamedTuple", (), {})
