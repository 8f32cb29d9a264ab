"""Benchmark: the discard coach on one hand of six beside the coach of an earlier commit (``--before``,
read with git), in CPU time: cold (the first hand a new process coaches) and warm (every hand after),
side by side on the same deals; the same sums as that coach on every deal and as a brute force (every
starter and every crib counted by ``hand_total``) on the first 20; the Pi Zero 2 W estimate from
startup.py's stated factor. ``--instructions``: the command ``cribbage-board coach`` as installed by
``pip install .`` in a temporary venv, in instructions (callgrind) beside a minimal argparse program, for
this checkout and the earlier commit. Prints a table; exits 1 if any sums differ.

    .venv/bin/python bench/coach.py [HANDS] [--before REV] [--brute N] [--instructions]
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from coach_reference import brute_totals  # noqa: E402

from scorer.cards import deck  # noqa: E402
from scorer.coach import coach  # noqa: E402

from startup import PI_ZERO_2W_FACTOR, instructions  # noqa: E402
from table import print_table  # noqa: E402

HAND = "5H 5D JC 6S 7S KD".split()
BEFORE = "4ccc2d1"  # main before the coach counted by rank pairs (issue 55)
BRUTE = 20
ARGPARSE = "import argparse; parser = argparse.ArgumentParser(); parser.add_argument('cards'); parser.parse_args(['5H'])"
COLD = ("import sys, time; sys.path.insert(0, sys.argv[1]); from {package}.coach import coach; "
        "start = time.process_time(); coach(sys.argv[2:], dealer=True); print(time.process_time() - start)")


def cpu(fn: Callable[[], object]) -> float:
    """CPU seconds of one call (the shared machine's other work does not count)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def extract(rev: str, into: Path) -> Path:
    """The tree of ``rev`` (git archive) in ``into``; its folder."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True)
    except OSError as error:
        raise SystemExit(f"coach: git cannot be run to read {rev}: {error.strerror or error}") from None
    if done.returncode:
        raise SystemExit(f"coach: git cannot read {rev}: {done.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=BytesIO(done.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def earlier_scorer(tree: Path, into: Path) -> Path:
    """``tree``'s scorer package as ``scorer_before`` in ``into`` (its modules import each other relatively)."""
    (into / "scorer_before").symlink_to(tree / "scorer", target_is_directory=True)
    return into


def cold(path: Path, package: str) -> float:
    """CPU seconds of the first hand a new process coaches."""
    code = COLD.format(package=package)
    done = subprocess.run([sys.executable, "-c", code, str(path), *HAND], capture_output=True, text=True, check=True)
    return float(done.stdout)


def sums(ranked) -> dict:
    return {tuple(map(str, d.throw)): (d.hand_sum, d.hand_min, d.hand_max, d.crib_sum) for d in ranked}


def brute(six) -> dict:
    """Each throw's sums by plain loops over every starter and crib, each counted by hand_total
    (tests/coach_reference.py), keyed as :func:`sums` keys them."""
    return {tuple(map(str, throw)): totals for throw, totals in brute_totals(sorted(six)).items()}


def installed(tree: Path, venv: Path) -> Path:
    """``tree`` installed by ``pip install .`` into a new venv, compiled whole as on the Pi; its bin."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    quiet = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    subprocess.run([sys.executable, "-m", "venv", str(venv)], **quiet)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", "."],
                   cwd=tree, **quiet)
    subprocess.run([str(venv / "bin" / "python"), "-m", "compileall", "-q", str(venv / "lib")], **quiet)
    return venv / "bin"


def instruction_rows(before: str, tree: Path, work: Path) -> list[tuple[str, str]]:
    rows = []
    for name, source in (("this checkout", ROOT), (before, tree)):
        bin_dir = installed(source, work / f"venv-{len(rows)}")
        baseline = instructions([str(bin_dir / "python"), "-c", ARGPARSE])
        command = instructions([str(bin_dir / "cribbage-board"), "coach", *HAND, "--dealer"])
        rows.append((f"{name}: a minimal argparse program (python, argparse, one argument parsed)",
                     f"{baseline / 1e6:.1f} M instructions"))
        rows.append((f"{name}: cribbage-board coach {' '.join(HAND)} --dealer (goal at most 3x)",
                     f"{command / 1e6:.1f} M instructions, {command / baseline:.2f}x"))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hands", nargs="?", default="50", help="random deals timed warm (default 50)")
    parser.add_argument("--before", default=BEFORE, help=f"the commit whose coach to time beside (default {BEFORE})")
    parser.add_argument("--brute", default=str(BRUTE), help=f"deals checked by brute force (default {BRUTE})")
    parser.add_argument("--instructions", action="store_true",
                        help="install both with pip into temporary venvs and count the command's instructions")
    args = parser.parse_args(argv)
    try:
        hands, checked = int(args.hands), int(args.brute)
        if hands < 1 or checked < 0:
            raise ValueError
    except ValueError:
        print("coach: give the number of hands to time as a whole number, at least 1 (default 50), "
              "and --brute as a whole number", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as work:
        tree = extract(args.before, Path(work) / "tree")
        path = earlier_scorer(tree, Path(work))
        sys.path.insert(0, str(path))
        old_coach = importlib.import_module("scorer_before.coach").coach
        old_deck = importlib.import_module("scorer_before.cards").deck
        colds: dict[str, list[float]] = {"now": [], "before": []}
        for _ in range(5):
            colds["now"].append(cold(ROOT, "scorer"))
            colds["before"].append(cold(path, "scorer_before"))
        rng = random.Random(2026)
        deals = [rng.sample(range(52), 6) for _ in range(hands)]
        ours, theirs = deck(), old_deck()
        coach([ours[i] for i in deals[0]], dealer=True)  # each has read or built its table, as a web view has
        old_coach([theirs[i] for i in deals[0]], dealer=True)
        warm: dict[str, list[float]] = {"now": [], "before": []}
        differ = 0
        for n, deal in enumerate(deals):
            dealer = bool(n % 2)
            mine, old = [ours[i] for i in deal], [theirs[i] for i in deal]
            runs = [("now", lambda: coach(mine, dealer)), ("before", lambda: old_coach(old, dealer))]
            answers = {}
            for name, run in runs if n % 2 else runs[::-1]:
                start = time.process_time()
                answers[name] = run()
                warm[name].append(time.process_time() - start)
            differ += sums(answers["now"]) != sums(answers["before"])
        brute_differ = sum(sums(coach([ours[i] for i in deal], True)) != brute([ours[i] for i in deal])
                           for deal in deals[:checked])
        counted = instruction_rows(args.before, tree, Path(work)) if args.instructions else []
    low, high = PI_ZERO_2W_FACTOR
    cold_now, cold_before = statistics.median(colds["now"]), statistics.median(colds["before"])
    warm_now, warm_before = statistics.median(warm["now"]), statistics.median(warm["before"])
    ratios = sorted(before / max(now, 1e-9) for now, before in zip(warm["now"], warm["before"]))
    rows = [
        (f"coach {' '.join(HAND)}, cold, this checkout (median of 5)", f"{cold_now * 1000:.1f} ms CPU"),
        (f"coach {' '.join(HAND)}, cold, {args.before} (median of 5)", f"{cold_before * 1000:.1f} ms CPU"),
        (f"coach one deal, warm, this checkout (median of {hands} random deals)", f"{warm_now * 1000:.2f} ms CPU"),
        (f"coach one deal, warm, {args.before} (median of the same {hands})", f"{warm_before * 1000:.2f} ms CPU"),
        (f"coach one deal, warm, this checkout (slowest of {hands})", f"{max(warm['now']) * 1000:.2f} ms CPU"),
        (f"warm, {args.before} / this checkout (goal at least 8x): medians; each deal's lowest-highest",
         f"{warm_before / warm_now:.1f}x; {ratios[0]:.1f}-{ratios[-1]:.1f}x"),
        ("cold, first hand of a process: before / this checkout", f"{cold_before / cold_now:.1f}x"),
        (f"Pi Zero 2 W estimate, cold (x{low}-{high}, startup.py's stated factor; goal under 0.2 s)",
         f"{cold_now * low:.3f}-{cold_now * high:.3f} s"),
        (f"Pi Zero 2 W estimate, warm (x{low}-{high})", f"{warm_now * low:.3f}-{warm_now * high:.3f} s"),
        *counted,
        (f"deals whose sums differ from {args.before}'s coach, of {hands}", str(differ)),
        (f"deals whose sums differ from a brute force (every starter and crib), of {min(checked, hands)}",
         str(brute_differ)),
    ]
    print_table(rows)
    return 1 if differ or brute_differ else 0


if __name__ == "__main__":
    sys.exit(main())
