"""One exception root: every exception class the project defines, found by walking its modules,
derives from ``CribbageBoardError`` and from the builtin it stands for (as gpiozero's do)."""

from __future__ import annotations

import builtins
import importlib
import inspect
import pkgutil

import pytest

from firmware.config import load_config
from firmware.errors import ConfigError
from ledger.errors import LedgerError, LedgerInUseError
from ledger.writer import LedgerWriter
from scorer.errors import CribbageBoardError, CribbageError, UnknownSeatError
from scorer.game import Entry, Game
from scorer.variants import find_variant

ROOMS = ("scorer", "ledger", "hardware", "firmware")
BUILTIN_ERRORS = {cls for cls in vars(builtins).values()
                  if isinstance(cls, type) and issubclass(cls, Exception) and cls is not Exception}
# Each was a ValueError (or a RuntimeError) before the root: an ``except`` written for that still catches it.
WERE_VALUE_ERRORS = {"CribbageError", "ResultError", "PairingError", "TomlFileError", "LayoutError", "ConfigError",
                     "PayloadError", "DirectorError", "BrokerError"}


def project_modules() -> list[str]:
    """The dotted name of every module of the rooms (no ``__main__``, which would run a command)."""
    names = []
    for room in ROOMS:
        package = importlib.import_module(room)
        names.append(room)
        names += [info.name for info in pkgutil.walk_packages(package.__path__, f"{room}.")
                  if not info.name.endswith("__main__")]
    return names


def project_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class a project module defines (not one it imports): "module.Class" -> class."""
    found = {}
    for name in project_modules():
        module = importlib.import_module(name)
        for cls in vars(module).values():
            if inspect.isclass(cls) and issubclass(cls, BaseException) and cls.__module__ == name:
                found[f"{name}.{cls.__qualname__}"] = cls
    return found


EXCEPTIONS = project_exceptions()


def test_the_walk_finds_every_room_s_exceptions():
    """The walk reads every room (a test that found nothing would pass anything)."""
    rooms = {name.split(".")[0] for name in EXCEPTIONS}
    assert rooms == set(ROOMS)
    assert len(EXCEPTIONS) >= 30
    assert {"firmware.wire.schema.ImpossibleResult", "ledger.errors.Damaged", "hardware.power.PowerOffError",
            "firmware.web.follow.LedgerUnavailable"} <= set(EXCEPTIONS)


@pytest.mark.parametrize("name", sorted(EXCEPTIONS))
def test_every_exception_derives_from_the_root(name):
    assert issubclass(EXCEPTIONS[name], CribbageBoardError)


@pytest.mark.parametrize("name", sorted(set(EXCEPTIONS) - {"scorer.errors.CribbageBoardError"}))
def test_every_exception_also_derives_from_the_builtin_it_stands_for(name):
    """Leaves and branches alike (a branch such as LedgerError is raised itself): a builtin other than
    Exception, so ``except OSError`` or ``except ValueError`` written for Python's own still catches it."""
    cls = EXCEPTIONS[name]
    assert set(cls.__mro__) & BUILTIN_ERRORS, f"{name} derives from no builtin but Exception"


def test_the_root_is_no_builtin_but_exception():
    """``except CribbageBoardError`` catches ours alone; ``except ValueError`` does not catch a ledger's."""
    assert CribbageBoardError.__mro__[1:] == (Exception, BaseException, object)
    assert not issubclass(LedgerError, ValueError)


def test_what_was_a_value_error_still_is():
    by_name = {cls.__name__: cls for cls in EXCEPTIONS.values()}
    for name in WERE_VALUE_ERRORS:
        assert issubclass(by_name[name], ValueError), name
    assert issubclass(by_name["PowerOffError"], RuntimeError)


def test_a_bad_config_is_a_config_error_a_value_error_and_ours(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text("[leds]\ngamma = 9\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, CribbageBoardError)
    assert "gamma" in str(caught.value)


def test_a_locked_ledger_is_ledger_in_use_an_os_error_and_ours(tmp_path):
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path, holder="first"):
        with pytest.raises(LedgerInUseError, match="in use by first") as caught:
            LedgerWriter(path)
    assert isinstance(caught.value, LedgerError) and isinstance(caught.value, OSError)
    assert isinstance(caught.value, CribbageBoardError)


def test_a_second_writer_with_the_lock_file_gone_is_still_in_use(tmp_path):
    """The ledger file's own flock refuses it, and the writer's ``except OSError`` (said as a lock
    failure) lets that LedgerInUseError through as it is, though a LedgerError is an OSError too."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path, holder="first"):
        (tmp_path / "ledger.sqlite3.lock").unlink()
        with pytest.raises(LedgerInUseError, match="its lock file .* was removed or replaced"):
            LedgerWriter(path)


def test_a_refused_entry_is_a_rule_error_a_value_error_and_ours():
    game = Game(find_variant("six-card"), ["Alice", "Bob"], "Alice")
    with pytest.raises(UnknownSeatError) as caught:
        game.push(Entry.peg("Carol", 2))
    assert isinstance(caught.value, CribbageError) and isinstance(caught.value, ValueError)
    assert isinstance(caught.value, CribbageBoardError)
