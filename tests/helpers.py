"""Plain helpers the test modules share (their fixtures are in conftest.py): a record replayed, a simulated
board, what this machine lacks for a read-only mount or a real browser, the ledger writer in memory, and
record lines written to a ledger on a clock that ticks."""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

import pytest

from firmware.board.pc.simulator import Simulator
from firmware.config import load_config
from scorer.record import GameHeader, Scorebook, parse_line, replay
from scorer.report import state_dict


def play(record: str) -> dict:
    """Replay a record given as indented text; return the JSON state."""
    result = replay(textwrap.dedent(record).strip().splitlines())
    return state_dict(result.book, result.rejected)


def make(tmp_path: Path, *overrides: str) -> Simulator:
    """A simulated board with the default config and ``overrides`` ("section.key=value"), its ledger in tmp_path."""
    return Simulator(load_config(overrides=list(overrides)), tmp_path / "ledger.sqlite3")


def script_to_win(target=121):
    """Red deals first and plays until ``target``; the script ends with Red's count that reaches it."""
    lines, red = ["click red"], 2  # his heels
    red_deal = [("blue", 2, None), ("red", 3, "red"), ("knob", 8, None), ("knob", 12, "red"), ("knob", 4, "red")]
    blue_deal = [("red", 2, "red"), ("blue", 1, None), ("knob", 10, "red"), ("knob", 6, None), ("knob", 2, None)]
    for button, points, to_red in (red_deal + blue_deal) * 6:
        lines += [f"turn {points}", f"click {button}"]
        red += points if to_red else 0
        if red >= target:
            return lines
    raise AssertionError(f"the script does not reach {target}")


@functools.cache
def read_only_mount_problem() -> str | None:
    """Why a read-only bind mount cannot be made here (None if it can): it needs root, unshare and a mount
    namespace, which a chroot refuses (tests/system/test-install-arm64.sh)."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return "needs root and unshare for a read-only bind mount (as the web unit's ReadOnlyPaths=)"
    folder = tempfile.mkdtemp(prefix="cribbage-romount-")
    try:
        done = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind {folder} {folder} && "
                               f"mount -o remount,bind,ro {folder} && ! touch {folder}/x 2>/dev/null"],
                              capture_output=True, text=True, timeout=60)
        return None if done.returncode == 0 else \
            f"this sandbox forbids mount namespaces (unshare -m): {done.stderr.strip()}".rstrip(": ")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def _browser_problem() -> str | None:
    """Why the browser tests cannot run here (None if they can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:  # pragma: no cover
        selenium = None
    if CHROMIUM and CHROMEDRIVER and selenium:
        return None
    return ("the browser tests need Chromium, chromedriver and selenium: "
            "apt-get install chromium chromium-driver (and pip install -e '.[test]' for selenium)")


BROWSER_PROBLEM = _browser_problem()
# The marks of a module of browser tests: the marker (-m "not browser" leaves them out) and the skip.
BROWSER_MARKS = [pytest.mark.browser, pytest.mark.skipif(BROWSER_PROBLEM is not None, reason=BROWSER_PROBLEM or "")]


T = TypeVar("T")


def heavy_first(items: Sequence[T], heavy: Callable[[T], bool], workers: int,
                together: Callable[[T], bool] = lambda item: False, sharers: int = 2) -> list[T]:
    """``items`` reordered so that each of ``workers`` xdist workers (worksteal) begins with its share of
    the ``heavy`` ones; unchanged under 2 workers. The heavy ones that are also ``together`` (they share
    a costly resource a worker makes once, as the browser tests share its Chromium) are dealt to the first
    ``sharers`` workers only, the other heavy ones to the workers with the fewest so far.

    worksteal hands each worker a contiguous slice of the collection (the first ``len // workers``, then
    a share of the rest, and so on), and an idle worker later steals the back half of the longest queue.
    Dealing the heavy items round the slices' fronts and filling each slice with the light ones in their
    order keeps a module's light tests together on one worker. Where the heavy ones are more than the
    slices hold (a run of the heavy tests alone), the slices are longer and the light ones follow."""
    if workers < 2 or len(items) < workers:
        return list(items)
    chosen = [heavy(item) for item in items]
    fronts: list[list[T]] = [[] for _ in range(workers)]
    shared = [item for item, is_heavy in zip(items, chosen) if is_heavy and together(item)]
    for index, item in enumerate(shared):
        fronts[index % min(sharers, workers)].append(item)
    for item in (item for item, is_heavy in zip(items, chosen) if is_heavy and not together(item)):
        min(fronts, key=len).append(item)
    light = iter([item for item, is_heavy in zip(items, chosen) if not is_heavy])
    left, ordered = len(items), []
    for worker, front in enumerate(fronts):
        size = left // (workers - worker)
        ordered += front + list(itertools.islice(light, max(0, size - len(front))))
        left -= size
    ordered += list(light)
    return ordered


# Hostile layout files: load_layout itself (test_layout.py) and the commands that read one (test_cli.py).
LAYOUT_CASES = {  # name: (what to put at the path, a piece of the one line said)
    "not UTF-8": (b'name = "\xff"\n', "not UTF-8 text (byte 9): save the layout as UTF-8"),
    "50 MB": (50 * 1024 * 1024, "the layout is larger than 256 KB: is it the right file?"),
    "nested 5,000 deep": (b"x = " + b"[" * 5000 + b"]" * 5000, "not usable as the layout: nested too deeply"),
    "/dev/zero": ("/dev/zero", "the layout is larger than 256 KB"),
    "a folder": ("folder", "cannot read the layout: it is a folder, not a file"),
    "missing": ("missing", "cannot read the layout: No such file or directory"),
    "a FIFO": ("fifo", "cannot read the layout: it is a pipe, not a file"),
}



def layout_path(tmp_path, case):
    """The path of a hostile layout case, made in tmp_path."""
    what = LAYOUT_CASES[case][0]
    path = tmp_path / "layout.toml"
    if what == "/dev/zero":
        return "/dev/zero"
    if isinstance(what, bytes):
        path.write_bytes(what)
    elif isinstance(what, int):
        with open(path, "wb") as file:  # really written, not sparse: 50 MB of TOML comments
            line = b"#" * 1023 + b"\n"
            for _ in range(what // 1024):
                file.write(line)
    elif what == "folder":
        path.mkdir()
    elif what == "fifo":
        os.mkfifo(path)  # no writer: a blocking open would wait for ever
    return str(path)


class MemoryLedger:
    """The ledger writer as the controller uses it (``game``, ``book``, ``apply``, ``in_memory``: see
    firmware/board/controller.py), kept in a Scorebook in memory, for the controller's tests without SQLite.
    ``apply`` checks a game line's names as LedgerWriter.apply does; ``refuse``: a LedgerError the next
    apply raises, changing nothing (as the writer does when a write fails); ``sources``: where each entry
    came from (None: the board's own controls)."""

    in_memory = None  # the writer's warning of a ledger in RAM: none here

    def __init__(self) -> None:
        self.book = Scorebook()
        self.sources: list = []
        self.refuse: Exception | None = None

    @property
    def game(self):
        return self.book.game

    def apply(self, action, source=None):
        if self.refuse is not None:
            error, self.refuse = self.refuse, None
            raise error
        if isinstance(action, GameHeader):
            action = action.with_names_checked()
        result = self.book.apply(action)
        self.sources.append(source)
        return result

    def export(self) -> list[str]:
        """The current game's record lines, as LedgerWriter.export gives them."""
        return self.book.game.record_lines() if self.book.game else []


# ---- ledgers written in a test ----------------------------------------------------

ISO = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"
FIVE_CARD_WIN = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]  # B on 3: skunked


class FakeClock:
    """Clock time that moves only when a test says so (``clock.now += 5``)."""

    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class Ticks:
    """A clock for the store: 2026-12-02T19:00:00Z, then one second and 5 ms later at each reading."""

    def __init__(self):
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return 1_796_238_000.0 + self.readings * 1.005


def stamp(seconds: float) -> str:
    """The ISO 8601 form the ledger keeps for a time in seconds since the epoch."""
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(round(seconds * 1000)) % 1000:03d}Z"


def apply_all(store, lines):
    """Apply record lines to a store, each acknowledged in turn."""
    for line in lines:
        store.apply(parse_line(line))


# ---- what the board says and shows ---------------------------------------------

# The controller's refusal of a second knob press within a second of the first.
DOUBLE = "Double press: a 19 is one press on its own"


def expected(sides):
    """What the strip should show for the ledger's sides: the back peg is lit apart from the front
    once the side has scored (at 0-0 both pegs share the start hole and only the front is lit)."""
    return [{"front": s["score"], "back": s["back"] if s["score"] else None} for s in sides]
