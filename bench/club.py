"""Benchmark: the club hub for a regional event, 40, 200 and 1,000 tables at 10x a player's pace, side by side
with a minimal paho -> SQLite subscriber on the same messages.

For each size, on a fresh real Mosquitto (tests/broker.py) and a fresh ledger:

- the real ``cribbage-board hub`` (a process of its own: 2 players a table, one round, so every table
  plays its round-1 pairing again and again) and the baseline, bench/club_baseline.py (paho -> SQLite: WAL,
  ``synchronous=FULL``, one commit a message, QoS 1, acknowledged after the commit), both subscribed with
  a persistent session to the same stream;
- the tables: paho clients (a persistent session each, QoS 1, as a board publishes: every entry of a game,
  then its result), driven by one selector loop per publisher process (``--publishers``, by default one
  per 250 tables) so the load generator keeps its pace; it is measured (messages a second achieved against
  the target, how late each message left against its plan);
- the live phase (``--seconds``): each table one message every 25 s / ``--pace`` (2.5 s at 10x), the tables
  staggered across the interval and each at another point of its game when the run begins. Timed, on the
  clock every process of the machine shares (``time.monotonic()``):
  entry -> the first event on ``/club/events`` that shows it (the table's ``entries`` reaches its count);
  result -> the first event whose standings count it (the table's first player's games reach 1: each player
  sits at one table, so this names the very result), for the game the night's one round places at each
  table, its first (a later game of the same pairing is unpaired: kept, never counted, so not timed);
  for the baseline, entry and result -> its commit. The hub's and the baseline's CPU (user + system over the
  phase's wall time, in % of one core), their peak memory (VmHWM), the events a second and the bytes of each
  event's data line;
- the drain: both stopped (their sessions kept), ``--drain`` messages published by the tables and queued by
  the broker; then the baseline started and timed until its table holds them all, then the hub until its
  ledger does (from the process's start: a restarted hub's start-up is part of what a room waits for);
- the check: every entry and result published is in the hub's ledger once (firmware.hub.ledger.HubReader: per table,
  per key) and in the baseline's table; else the run stops, saying so: the figures would not stand.

``/club/events`` in both forms: ``event: message`` (each event the whole live part) or ``event: snapshot``
(the whole, on connecting or when a viewer fell behind) then ``event: delta`` (``base``: the version it
applies to; only the changed tables, and the changed standings rows with their ``place``). The reader keeps
tables by "table" and standings rows by "player", updated by each; a delta whose base is not the version
it holds is counted (it should not happen).

A hub that does not start (or stops) at a size is said in its column, and that size runs with the
baseline alone, so the load generator's pace is still shown.

Estimates for a Pi 4 and a Pi Zero 2 W hub: the hub's CPU here times a single-core slowdown factor, and
that factor's method is printed with it (see ``pi_factors``).

Run: ``.venv/bin/python bench/club.py`` (about 7 minutes: 40, 200 and 1000 tables, 60 s each);
``--tables 40,200``, ``--seconds 20``, ``--drain 2000`` for shorter runs.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # before bench/: its ledger.py would hide the ledger package

from firmware.hub.ledger import HubReader  # noqa: E402

from broker import Mosquitto  # noqa: E402
from club_load import Baseline, Hub, HubFailed, Publishers, cpu_seconds, load, peak_mb, watcher  # noqa: E402

PACE_S = 25.0  # a player's pace: a six-card game is about 36 entries in 15 minutes, an entry every 25 s at a table
TABLES_A_PUBLISHER = 250
# The goals (issue: a regional event), at 1,000 tables and 10x.
GOAL_P99_S = 1.0
GOAL_CPU = 0.5
GOAL_HWM_MB = 150
GOAL_EVENT_BYTES = 16 * 1024
GOAL_DRAIN = 2.0  # the hub drains at least 2x as fast as the baseline
# The broker as the club runs it (systemd/mosquitto-cribbage.conf) saves its queues every 60 s, not every 1 s
# as the tests' does: at 1,000 sessions that save would be the broker's main work. Its in-flight window too.
BROKER_MORE = "autosave_interval 60\nmax_inflight_messages 200\n"


def hub_total(reader: HubReader) -> int:
    counts = reader.counts()
    return counts["entries"] + counts["results"]


# ---- one size --------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def lag_figures(lags: list[float], missing: int, ceiling: float) -> dict:
    """p50 and p99 of ``lags``; a message that never showed counts as past ``ceiling``."""
    every = sorted(lags) + [math.inf] * missing
    if not every:
        return {"n": 0}
    return {"n": len(every), "p50": percentile(every, 50), "p99": percentile(every, 99), "missing": missing,
            "ceiling": ceiling}


def wait_total(count, expected: int, timeout: float, alive=lambda: None) -> tuple[float | None, float | None]:
    """Poll ``count()`` until it reaches ``expected``: (when the first row appeared, when the last did)."""
    first = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive()
        now, got = time.monotonic(), count()
        if first is None and got > 0:
            first = now
        if got >= expected:
            return first, now
        time.sleep(0.02)
    return first, None


def run_size(tables: int, args, label: str = "", root: Path = ROOT) -> dict:
    """One size, on its own broker and ledgers, the hub run from checkout ``root``; its figures."""
    folder = Path(tempfile.mkdtemp(prefix=f"club-bench-{tables}-"))
    width = len(str(2 * tables))
    players = [f"P{n:0{width}d}" for n in range(1, 2 * tables + 1)]
    names = [str(n) for n in range(1, tables + 1)]
    interval = PACE_S / args.pace
    out = {"tables": tables, "label": label, "load_before": load(), "target_rate": tables / interval}
    with Mosquitto(folder / "broker", more=BROKER_MORE) as broker:
        baseline = Baseline(folder, broker.port)
        baseline.start()
        baseline.wait_subscribed()
        hub = Hub(folder, broker.url, players, names, root)
        hub.start()
        pairings = None
        try:
            pairings = hub.pairings(60 + tables * 0.1)
        except HubFailed as failed:
            out["hub_failed"] = str(failed)
            hub.stop()
        if pairings is None:
            pairings = {name: players[2 * k:2 * k + 2] for k, name in enumerate(names)}
        publishers = Publishers(broker.port, pairings, args.publishers or math.ceil(tables / TABLES_A_PUBLISHER))
        watch = None
        try:
            if "hub_failed" not in out:
                context = multiprocessing.get_context("spawn")
                ours, theirs = context.Pipe()
                watch = context.Process(target=watcher, args=(theirs, hub.base + "/club/events"), daemon=True)
                watch.start()
                ready = ours.recv() if ours.poll(90) else ("ready", "no first event within 90 s")
                if ready[1]:
                    raise SystemExit(f"bench/club.py: /club/events: {ready[1]}")
            try:
                prologue(out, hub, baseline, publishers)
                live(out, args, hub, baseline, publishers, pairings, interval, ours if watch else None)
                if watch is not None:
                    ours.send(("stop",))
                    watch.join(10)
                drain(out, args, hub, baseline, publishers)
            except HubFailed as failed:  # the rest of the size runs without it
                out["hub_failed"] = str(failed)
                hub.stop()
                if baseline.process.poll() is None:
                    baseline.stop()
                if "drain_records" not in out:
                    drain(out, args, hub, baseline, publishers)
            accepted(out, hub, baseline, publishers)
        finally:
            publishers.close()
            hub.stop()
            if baseline.process and baseline.process.poll() is None:
                baseline.process.kill()
            if watch is not None and watch.is_alive():
                watch.kill()
    out["load_after"] = load()
    out["rounds"] = round_time(len(players)) if args.round_timing else None
    return out


def prologue(out: dict, hub: Hub, baseline: Baseline, publishers: Publishers) -> None:
    """Each table's first game up to where its live phase starts, sent and kept by both before the clock
    starts: the live phase's results then follow all their entries, and are counted."""
    out["prologue_records"] = publishers.prologue()
    count = len(out["prologue_records"])
    wait_total(baseline.total, count, 120 + count / 100)
    if "hub_failed" not in out:
        deadline = time.monotonic() + 60
        while not hub.state.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        with HubReader(hub.state) as reader:
            wait_total(lambda: hub_total(reader), count, 120 + count / 100, hub.alive)


def live(out: dict, args, hub: Hub, baseline: Baseline, publishers: Publishers, pairings, interval: float,
         watch) -> None:
    """The live phase: the tables at their pace for ``args.seconds``, the hub and the baseline side by side."""
    running = "hub_failed" not in out
    began = time.monotonic() + 1.0
    cpu = {}

    def at_start() -> None:
        time.sleep(max(0.0, began - time.monotonic()))
        cpu.update(hub=cpu_seconds(hub.process.pid) if running else 0.0, baseline=cpu_seconds(baseline.process.pid))

    records, publisher_cpu = publishers.live(began, args.seconds, interval, at_start)
    wall = time.monotonic() - began
    out["hub_cpu"] = (cpu_seconds(hub.process.pid) - cpu["hub"]) / wall if running else None
    out["baseline_cpu"] = (cpu_seconds(baseline.process.pid) - cpu["baseline"]) / wall
    out["publisher_cpu"] = publisher_cpu / wall
    out["sent"] = len(records)
    # all of a phase's messages are due within it: one sent after its end is the generator falling behind
    out["rate"] = len(records) / max(args.seconds, max((when for _, _, _, when, _, _ in records), default=0) - began)
    lateness = [when - due for _, _, _, when, _, due in records]
    out["late_p99"], out["late_max"] = percentile(lateness, 99), max(lateness)
    out["live_records"] = records
    ceiling = max(30.0, args.seconds)
    if running:
        entries, games = {}, {}
        for kind, table, ordinal, _, _, _ in records:
            if kind == "entry":
                entries[table] = max(entries.get(table, 0), ordinal)
            elif ordinal == 1:  # the game the night's one round places at the table; a later one is unpaired
                games[pairings[table][0]] = 1
        watch.send(("collect", entries, games, time.monotonic() + ceiling))
        if not watch.poll(ceiling + 60):
            raise SystemExit("bench/club.py: the events reader did not answer")
        reached_entries, reached_games, events, gaps, error, reader_cpu = watch.recv()
        lags = {"entry": [], "result": []}
        missing = {"entry": 0, "result": 0}
        for kind, table, ordinal, when, _, _ in records:
            if kind == "result" and ordinal > 1:
                continue  # never counted in the standings: its pairing's place in the round is taken
            seen = reached_entries.get(table, []) if kind == "entry" else reached_games.get(pairings[table][0], [])
            if len(seen) >= ordinal:
                lags[kind].append(seen[ordinal - 1] - when)
            else:
                missing[kind] += 1
        out["entry"] = lag_figures(lags["entry"], missing["entry"], ceiling)
        out["result"] = lag_figures(lags["result"], missing["result"], ceiling)
        in_phase = [each for each in events if began <= each[0] <= began + wall]
        sizes = [size for _, _, size in in_phase] or [0]
        out["events_rate"] = len(in_phase) / wall
        out["event_bytes"] = (statistics.mean(sizes), max(sizes))
        out["event_kinds"] = sorted({kind for _, kind, _ in events})
        out["gaps"], out["reader_error"], out["reader_cpu"] = gaps, error, reader_cpu
        out["hub_hwm"] = peak_mb(hub.process.pid)
        out["hub_cpu_per_message"] = out["hub_cpu"] * wall / max(len(records), 1)
    # the baseline: everything committed (it may be far behind: a commit a message), then stopped, its session
    # kept for the drain
    wait_total(baseline.total, len(out["prologue_records"]) + len(records), max(ceiling, len(records) / 100))
    out["baseline_hwm"] = peak_mb(baseline.process.pid)
    committed = baseline.stop()
    lags = {"entry": [], "result": []}
    missing = {"entry": 0, "result": 0}
    for kind, table, _, when, key, _ in records:
        at = committed.get((kind, table, *key))
        if at is None:
            missing[kind] += 1
        else:
            lags[kind].append(at - when)
    out["baseline_entry"] = lag_figures(lags["entry"], missing["entry"], ceiling)
    out["baseline_result"] = lag_figures(lags["result"], missing["result"], ceiling)
    if running:
        hub.alive()


def drain(out: dict, args, hub: Hub, baseline: Baseline, publishers: Publishers) -> None:
    """Both away, ``args.drain`` messages queued for them; each started alone and timed until it has all."""
    running = "hub_failed" not in out
    hub.stop()
    before = len(out["prologue_records"]) + out["sent"]
    out["drain_records"] = publishers.burst(args.drain) if args.drain else []
    expected = before + len(out["drain_records"])
    out["drained"] = len(out["drain_records"])
    if not args.drain:
        return
    timeout = 60 + args.drain / 20
    began = baseline.start()
    first, last = wait_total(lambda: baseline.total() - before, expected - before, timeout)
    out["baseline_drain"] = (last - began if last else None, first - began if first else None)
    out["baseline_drain_hwm"] = peak_mb(baseline.process.pid)
    baseline.stop()
    if not running:
        return
    began = hub.start()
    deadline = time.monotonic() + 60
    while not hub.state.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    with HubReader(hub.state) as reader:
        first, last = wait_total(lambda: hub_total(reader) - before, expected - before, timeout, hub.alive)
    out["hub_drain"] = (last - began if last else None, first - began if first else None)
    out["hub_drain_hwm"] = peak_mb(hub.process.pid)


def accepted(out: dict, hub: Hub, baseline: Baseline, publishers: Publishers) -> None:
    """Every entry and result published is in each ledger once; else stop, saying so."""
    records = out["prologue_records"] + out["live_records"] + out["drain_records"]
    entries: dict[str, int] = {}
    results = set()
    for kind, table, _, _, key, _ in records:
        if kind == "entry":
            entries[table] = entries.get(table, 0) + 1
        else:
            results.add((table, *key))
    problems = []
    if "hub_failed" not in out:
        with HubReader(hub.state) as reader:
            night = reader.nights()[0].id
            kept_entries = reader.entry_counts(night)
            kept_results = [(row.table, row.ledger, row.game, row.rev) for row in reader.results(night)]
            conflicts = reader.counts()["conflicts"]
        if kept_entries != entries:
            problems.append(f"the hub kept {sum(kept_entries.values())} entries of {sum(entries.values())} sent "
                            f"({sum(kept_entries.get(t) != n for t, n in entries.items())} tables differ)")
        if sorted(kept_results) != sorted(results):
            problems.append(f"the hub kept {len(kept_results)} results of {len(results)} sent")
        if conflicts:
            problems.append(f"the hub noted {conflicts} conflicts")
    base_entries, base_results = baseline.counts()
    if base_entries != entries or base_results != results:
        problems.append(f"the baseline kept {sum(base_entries.values())} entries and {len(base_results)} results of "
                        f"{sum(entries.values())} and {len(results)} sent")
    if problems:
        raise SystemExit(f"bench/club.py, {out['tables']} tables: " + "; ".join(problems)
                         + ": the figures do not stand")
    out["accepted"] = (sum(entries.values()), len(results))


def round_time(count: int, rounds: int = 3) -> str:
    """The slowest of the first ``rounds`` rounds of a 9-round night for ``count`` players (standings shuffled
    between), in this process."""
    from scorer.pairings import pair_round

    names, past, slowest = [f"P{n:04d}" for n in range(count)], [], 0.0
    try:
        for number in range(rounds):
            began = time.perf_counter()
            past.append(pair_round(names, past, 8 - number))
            slowest = max(slowest, time.perf_counter() - began)
            random.Random(number).shuffle(names)
    except Exception as error:  # RecursionError, say: a row says it
        return f"{type(error).__name__} after {time.perf_counter() - began:.1f} s"
    return f"{slowest * 1000:.0f} ms"


# ---- the Pi estimates ------------------------------------------------------------

# The Computer Language Benchmarks Game's n-body, its plain Python program (#1), 5,000,000 steps: 158.3 s
# on a Raspberry Pi 4 at 1.5 GHz, performance governor (published: chaitanyamehta.github.io, "Performance
# Analysis of Languages on Raspberry Pi"; the Python version is not given). nbody_seconds() runs the same
# loop here, in this run.
NBODY_PI4_S, NBODY_PI4_STEPS = 158.3, 5_000_000
# One core of a Zero 2 W (Cortex-A53, 1.0 GHz) against one of a Pi 4: sysbench cpu, one thread (leoncode.co.uk,
# "Raspberry Pi CPU Benchmarks"): Pi 4 1477.83 events/s, Pi 3B+ (the same Cortex-A53, 1.4 GHz) 687.45,
# scaled to 1.0 GHz: 491. So 3.0x.
ZERO2W_OVER_PI4 = 1477.83 / (687.45 / 1.4)
# n-body is float arithmetic in a loop; the hub's work is dicts, strings, JSON and SQLite, which lean on the
# caches, and the A72's (1 MB L2, no L3) are smaller: the high end assumes twice the n-body ratio (not measured).
MEMORY_BOUND = 2.0


def nbody_seconds(steps: int) -> float:
    """The n-body loop (as the Benchmarks Game's Python #1 writes it) for ``steps`` steps: its CPU time here
    (not wall time: other work on this shared machine would count)."""
    solar = 4 * math.pi * math.pi
    year = 365.24
    bodies = [([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], solar)] + [
        (list(position), [v * year for v in velocity], mass * solar) for position, velocity, mass in (
            ((4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01),
             (1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05), 9.54791938424326609e-04),
            ((8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01),
             (-2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05), 2.85885980666130812e-04),
            ((1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01),
             (2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05), 4.36624404335156298e-05),
            ((1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01),
             (2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05), 5.15138902046611451e-05))]
    pairs = [(bodies[i], other) for i in range(len(bodies) - 1) for other in bodies[i + 1:]]
    dt = 0.01
    began = time.process_time()
    for _ in range(steps):
        for (([x1, y1, z1], v1, m1), ([x2, y2, z2], v2, m2)) in pairs:
            dx, dy, dz = x1 - x2, y1 - y2, z1 - z2
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** (-1.5))
            b1m, b2m = m1 * mag, m2 * mag
            v1[0] -= dx * b2m
            v1[1] -= dy * b2m
            v1[2] -= dz * b2m
            v2[0] += dx * b1m
            v2[1] += dy * b1m
            v2[2] += dz * b1m
        for (r, [vx, vy, vz], _m) in bodies:
            r[0] += dt * vx
            r[1] += dt * vy
            r[2] += dt * vz
    return time.process_time() - began


def pi_factors(steps: int) -> dict:
    """How many times slower than one core here one core of each Pi runs the hub's Python: (low, high)."""
    here = nbody_seconds(steps) * NBODY_PI4_STEPS / steps
    pi4 = NBODY_PI4_S / here
    return {"here_s": here, "Pi 4": (pi4, pi4 * MEMORY_BOUND),
            "Pi Zero 2 W": (pi4 * ZERO2W_OVER_PI4, pi4 * ZERO2W_OVER_PI4 * MEMORY_BOUND)}


# ---- the table -------------------------------------------------------------------


def ms(seconds: float) -> str:
    return "never" if math.isinf(seconds) else f"{seconds * 1000:,.0f}"


def lag_cell(figures: dict | None) -> str:
    if not figures or not figures.get("n"):
        return "-"
    cell = f"{ms(figures['p50'])} / {ms(figures['p99'])} ms ({figures['n']:,})"
    if figures["missing"]:
        cell += f", {figures['missing']:,} not within {figures['ceiling']:.0f} s"
    return cell


def ratio(a, b) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def grid(sizes: list[dict], args) -> list[tuple[str, list[str], str]]:
    """(what, a cell per size, the goal at 1,000 tables) rows."""
    rows = []

    def row(what: str, cell, goal: str = "") -> None:
        rows.append((what, [cell(s) for s in sizes], goal))

    def hub(cell):
        return lambda s: "-" if "hub_failed" in s else cell(s)

    row("load average before / after", lambda s: f"{s['load_before']} / {s['load_after']}")
    if any("hub_failed" in s for s in sizes):
        row("the hub", lambda s: f"failed: {s['hub_failed']}" if "hub_failed" in s else "ran")
    row("tables' messages a second: achieved / target",
        lambda s: f"{s['rate']:.1f} / {s['target_rate']:.1f} ({s['sent']:,} sent)")
    row("  a message's lateness against its plan, p99 / max",
        lambda s: f"{s['late_p99'] * 1000:.0f} / {s['late_max'] * 1000:.0f} ms")
    row("  the publishers' CPU (% of one core)", lambda s: f"{s['publisher_cpu'] * 100:.1f} %")
    row("entry -> /club/events, p50 / p99 (n)", hub(lambda s: lag_cell(s["entry"])),
        f"p99 < {GOAL_P99_S * 1000:.0f} ms")
    row("result -> /club/events (standings), a table's placed game, p50 / p99 (n)", hub(lambda s: lag_cell(s["result"])),
        f"p99 < {GOAL_P99_S * 1000:.0f} ms")
    row("  baseline: entry -> commit, p50 / p99 (n)", lambda s: lag_cell(s["baseline_entry"]))
    row("  baseline: result -> commit, p50 / p99 (n)", lambda s: lag_cell(s["baseline_result"]))
    row("hub CPU (% of one core) : baseline",
        hub(lambda s: f"{s['hub_cpu'] * 100:.1f} % : {s['baseline_cpu'] * 100:.1f} % "
                      f"({ratio(s['hub_cpu'], s['baseline_cpu'])})"), f"< {GOAL_CPU * 100:.0f} %")
    row("  hub CPU a message", hub(lambda s: f"{s['hub_cpu_per_message'] * 1000:.2f} ms"))
    row("hub VmHWM : baseline", hub(lambda s: f"{s['hub_hwm']:.1f} MB : {s['baseline_hwm']:.1f} MB"),
        f"< {GOAL_HWM_MB} MB")
    row("events a second; their form", hub(lambda s: f"{s['events_rate']:.1f}; " + ", ".join(s["event_kinds"])
                                           + (f"; {s['gaps']} deltas on a base not held" if s["gaps"] else "")))
    row("bytes an event (data line), mean / max",
        hub(lambda s: f"{s['event_bytes'][0]:,.0f} / {s['event_bytes'][1]:,}"), f"<= {GOAL_EVENT_BYTES:,}")
    row("  the events reader's CPU (% of one core)", hub(lambda s: f"{s['reader_cpu'] * 100:.1f} %"))

    def drained(s, who):
        total, first = s.get(f"{who}_drain") or (None, None)
        if total is None:
            return f"not all within {60 + args.drain / 20:.0f} s"
        return f"{total:.2f} s ({s['drained'] / total:,.0f} /s; first row at {first:.2f} s)"

    if args.drain:
        row(f"drain {args.drain:,} queued: hub, from its start", hub(lambda s: drained(s, "hub")))
        row(f"drain {args.drain:,} queued: baseline, from its start", lambda s: drained(s, "baseline"))
        row("  drain time, hub / baseline", hub(lambda s: ratio((s.get("hub_drain") or (None,))[0],
                                                                 (s.get("baseline_drain") or (None,))[0])),
            f"<= {1 / GOAL_DRAIN:.1f}x (2x as fast)")
        row("  VmHWM after the drain, hub : baseline",
            hub(lambda s: f"{s['hub_drain_hwm']:.1f} MB : {s['baseline_drain_hwm']:.1f} MB"))
    row("accepted: entries / results, in each ledger once", lambda s: f"{s['accepted'][0]:,} / {s['accepted'][1]:,}"
        + ("" if "hub_failed" not in s else " (baseline only)"))
    if args.round_timing:
        row("making a round of all the players (9-round night, slowest of the first 3), apart",
            lambda s: s["rounds"])
    return rows


def print_grid(header: list[str], rows: list[tuple[str, list[str], str]]) -> None:
    """A Markdown table, aligned: what, a column per size, the goal."""
    lines = [header] + [[what, *cells, goal] for what, cells, goal in rows]
    widths = [max(len(line[k]) for line in lines) for k in range(len(header))]
    for number, line in enumerate(lines):
        print("| " + " | ".join(cell.ljust(width) for cell, width in zip(line, widths)) + " |")
        if number == 0:
            print("|" + "|".join("-" * (width + 2) for width in widths) + "|")


def estimates(sizes: list[dict], factors: dict, interval: float) -> None:
    """The Pi rows: the hub's CPU here times each board's single-core factor, and the method."""
    ran = [s for s in sizes if "hub_failed" not in s]
    print()
    print(f"Pi estimates: the hub's CPU here x how many times slower one core of the board runs CPython. "
          f"n-body ({NBODY_PI4_STEPS:,} steps of the Benchmarks Game's Python #1 loop): {factors['here_s']:.1f} s "
          f"of CPU here (timed in this run), {NBODY_PI4_S} s on a Pi 4 at 1.5 GHz (published); the high end is "
          f"{MEMORY_BOUND:g}x that (the hub's dicts, JSON and SQLite lean on caches the Cortex-A72 has less of; "
          f"assumed). A Zero 2 W core: the Pi 4's x {ZERO2W_OVER_PI4:.1f} (sysbench cpu, one thread). Memory: "
          "about the same on arm64; a Zero 2 W has 512 MB in all. The SD card's fsync is slower than this disk's: "
          "the lags would be longer still.")
    if not ran:
        return
    print()
    rows = []
    for board in ("Pi 4", "Pi Zero 2 W"):
        low, high = factors[board]
        rows.append((f"{board} ({low:.1f}-{high:.1f}x): the hub's CPU, % of one core",
                     [f"{s['hub_cpu'] * low * 100:.0f}-{s['hub_cpu'] * high * 100:.0f} %" for s in ran], ""))
        cells = []
        for s in ran:
            if not s["hub_cpu_per_message"]:  # a short run: the hub's CPU below the kernel's clock tick
                cells.append("too little CPU to measure: run longer")
                continue
            fast, slow = (GOAL_CPU / (s["hub_cpu_per_message"] * f) for f in (low, high))  # messages a second
            cells.append(f"{slow * interval:,.0f}-{fast * interval:,.0f} ({slow * PACE_S:,.0f}-{fast * PACE_S:,.0f})")
        what = f"{board}: tables under {GOAL_CPU * 100:.0f} % of a core at {PACE_S / interval:g}x (at a player's pace)"
        rows.append((what, cells, "at this size's CPU a message; it grows with the tables: a bound"))
    print_grid(["", *[f"{s['tables']:,} tables" + (f", {s['label']}" if s.get("label") else "") for s in ran], ""], rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="40,200,1000",
                        help="the sizes, a comma-separated list (default 40,200,1000)")
    parser.add_argument("--seconds", type=float, default=60.0, help="the live phase's length at each size (default 60)")
    parser.add_argument("--pace", type=float, default=10.0, help="times a player's pace (default 10: a message a table "
                                                                 "every 2.5 s)")
    parser.add_argument("--drain", type=int, default=10_000, help="messages queued while the hub is away (default "
                                                                  "10000; 0: no drain)")
    parser.add_argument("--publishers", type=int, default=0,
                        help=f"publisher processes (default one per {TABLES_A_PUBLISHER} tables)")
    parser.add_argument("--nbody-steps", type=int, default=100_000,
                        help="n-body steps timed for the Pi estimates (default 100000, about a second)")
    parser.add_argument("--hub", action="append", default=[], metavar="LABEL=DIR",
                        help="run the hub from checkout DIR (python -m firmware.cli there), its column LABEL; "
                             "given more than once, each size runs each hub in turn (default: this checkout)")
    parser.add_argument("--busy", type=int, default=0,
                        help="busy loops (sh: while :; do :; done) running beside the whole run (default 0)")
    parser.add_argument("--no-round-timing", dest="round_timing", action="store_false",
                        help="leave out making a round of all the players in this process")
    args = parser.parse_args(argv)
    try:
        counts = [int(each) for each in args.tables.split(",")]
    except ValueError:
        parser.error("--tables: whole numbers, comma-separated (40,200,1000)")
    if any(count < 1 for count in counts) or args.seconds <= 0 or args.pace <= 0 or args.drain < 0:
        parser.error("--tables, --seconds and --pace above 0, --drain at least 0")
    hubs = []
    for each in args.hub:
        label, _, folder = each.partition("=")
        if not folder or not (Path(folder) / "firmware" / "cli").is_dir():
            parser.error(f"--hub {each}: LABEL=DIR, DIR a checkout of the project")
        hubs.append((label, Path(folder).resolve()))
    print(f"bench/club.py --tables {args.tables} --seconds {args.seconds:g} --pace {args.pace:g} "
          f"--drain {args.drain} --busy {args.busy}" + "".join(f" --hub {label}={root}" for label, root in hubs)
          + f"; load average {load()}", flush=True)
    busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(args.busy)]
    try:
        factors = pi_factors(args.nbody_steps)
        sizes = []
        for count in counts:
            for label, root in hubs or [("", ROOT)]:
                sizes.append(run_size(count, args, label, root))
                print(f"{count} tables{' (' + label + ')' if label else ''} done; load average {load()}",
                      file=sys.stderr, flush=True)
    finally:
        for each in busy:
            each.kill()
            each.wait()
    print()
    print_grid(["", *[f"{s['tables']:,} tables" + (f", {s['label']}" if s.get("label") else "") for s in sizes],
                "goal (1,000 tables)"], grid(sizes, args))
    estimates(sizes, factors, PACE_S / args.pace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
