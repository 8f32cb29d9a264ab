"""The guest's hands in tests/system/test-boot-vm.sh: it runs inside the booted VM, never on the host.

    driver.py burst      as the board's unit (a drop-in's ExecStart): the board on the
                         mock backend, its controls pressed and turned without pause while
                         /run/cribbage-vm-burst exists, READY=1 and the watchdog sent as
                         the board sends them; if the FIFO /run/cribbage-vm-acks exists
                         (the power cuts), each entry the ledger acknowledged (its row
                         committed) is written there at once as one line, "ID<TAB>GAME
                         <TAB>SCORES<TAB>LINE" (SCORES the game's scores after it, "a,b"),
                         for the host to hear live
    driver.py power-check ACKS
                         as root, beside the running board, after a power cut: no file
                         set aside in the state folder (a damaged ledger, a -wal not its
                         ledger's own: FAILED naming it), the ledger
                         read only (PRAGMA integrity_check, every game replayed with the
                         project's own replay, nothing rejected) and every entry of ACKS
                         (the host's record of what was acknowledged, lines as above)
                         there, the same row, and the game replayed up to the last one
                         acknowledged of each game has the scores acknowledged; one line,
                         "ok: ..." or "FAILED: ..." naming the first loss
    driver.py hub-check KEPT
                         as root, beside the running hub, after a power cut: no file set
                         aside in the hub's state folder (as power-check), the hub's
                         ledger read only (PRAGMA integrity_check, opened by the project's
                         HubReader) and every entry and result that a "kept" word of KEPT
                         (the hub's words to the tables, one JSON payload a line, as the
                         host heard them from its broker before the cut) says the hub had
                         kept is in it; one line, "ok: ..." or "FAILED: ..."
    driver.py club-sync ACKS SECONDS
                         as root, beside the running board and hub, after a power cut:
                         waits up to SECONDS until the hub's ledger holds every entry of
                         ACKS (the board's acknowledged entries, lines as for power-check)
                         and its game's line, under the board's ledger id, table, game and
                         place, with the same text; so the board's club watermark made it
                         skip none the hub lacked; one line, "ok: ..." or "FAILED: ..."
                         naming the first entry the hub still lacks
    driver.py shutdown   as the board's unit: Menu > Shut down > Yes on the mock controls,
                         with the real board's power-off (hardware.power, systemctl through
                         logind as the unit's user), so the VM must power off
    driver.py club       as the board's unit: what the unit may reach, tried from inside it
                         (see probe): the club's broker, if
                         [club] names one, then addresses it must not reach; then, with [club]
                         set, the console's own code (firmware.board.pc.console.run_console, which
                         opens the club link from the config's [club] as the board does) fed
                         the game in club-game.txt beside this file, its input held open
                         (the link sending) until /run/cribbage-vm-club-done exists; READY=1
                         and the watchdog sent as the board sends them
    driver.py probe HOST:PORT...
                         from wherever it runs: for each, "probe: HOST:PORT tcp R udp R",
                         R a TCP connection's outcome (connected, timed out, ECONNREFUSED,
                         ...) and a UDP datagram's (sent, EPERM, ...); IPAddressDeny drops
                         a denied packet as it leaves: a UDP send fails with EPERM, a TCP
                         connection's SYN is only dropped, so it times out
    driver.py gpio CHIP SECONDS
                         the board's buttons and encoder read with gpiozero's lgpio pin
                         factory on /dev/gpiochipCHIP, a gpio-sim chip whose lines the
                         caller drives (sim_gpioN/pull) once this says "reading"
    driver.py oled PORT  in the board unit's sandbox: the OLED opened through luma's real
                         I2C path on /dev/i2c-PORT (the I2C recorder at 0x3C), a frame
                         shown; prints "drawn: HEX", the image as a PBM (P4) file
    driver.py strip      in the board unit's sandbox: the board's SpiStrip on
                         /dev/spidev0.0 (the SPI recorder), 243 LEDs shown one frame and
                         closed (all off); prints "meant: JSON", the colours it sent
    driver.py oversize   in the board unit's sandbox: a frame of 485 LEDs, more than the
                         kernel's default spidev buffer: the SpiStrip asked to open for it,
                         spidev's writebytes2 of its bytes and a plain write() of them;
                         prints "oversize: JSON", what each did
    driver.py check-oled RECORDING IMAGE
                         as root: the I2C recording read as an SSD1306 reads it
                         (tests/wire.py), its frame compared pixel for pixel with IMAGE
                         (PBM)
    driver.py check-strip RECORDING LOG
                         as root: the SPI recording read as a WS2812 strip reads it
                         (tests/wire.py) against the colours LOG (strip's output) meant
    driver.py check-oversize RECORDING LOG
                         as root: the oversize frame's pieces in the SPI recording against
                         what LOG (oversize's output) says was sent and refused
    driver.py expect LEDGER OUT ACTION...
                         as root: the mock board on a copy of the ledger LEDGER given each
                         ACTION ("turn:1", "click:red") as the real board was; writes
                         OUT.pbm (its OLED) and OUT.json (its LED frame)
    driver.py check-board I2C SPI EXPECTED
                         as root: the OLED frames of the I2C recording (one of them, as the
                         board's word after a peg lasts 4 s) and the last LED frame of the
                         SPI recording against EXPECTED.pbm and EXPECTED.json

Each mode prints what it did; gpio and the checks end with "ok: ..." or "FAILED: ...".
"""

from __future__ import annotations

import errno
import io
import json
import os
import random
import socket
import sys
import threading
import time
from pathlib import Path

CONFIG = "/etc/cribbage-board/config.toml"
TREE = Path("/root/cribbage-board")  # the working tree, as agent.sh copied it
STATE = Path(os.environ.get("STATE_DIRECTORY", "/var/lib/cribbage-board")) / "ledger.sqlite3"
BURST_FLAG = Path("/run/cribbage-vm-burst")
ACKS = Path("/run/cribbage-vm-acks")  # the power cuts: a FIFO that agent.sh relays to the host's virtio port
CLUB_GAME = Path(__file__).with_name("club-game.txt")  # a whole game in the record format, put here by agent.sh
CLUB_DONE = Path("/run/cribbage-vm-club-done")  # made by agent.sh once the host's hub has counted the game
HUB_STATE = Path(os.environ.get("CRIBBAGE_VM_HUB_STATE", "/var/lib/cribbage-hub/hub.sqlite3"))  # cribbage-hub.service's
# Beyond the broker: qemu's host side, the Internet, the guest's own web view at its own address and on loopback.
OUTSIDE = [("10.0.2.2", 80), ("1.1.1.1", 80), ("10.0.2.15", 8121), ("127.0.0.1", 8121)]
SHUT_DOWN = [("click", "menu"), ("turn", "7"), ("click", "knob"), ("turn", "1"), ("click", "knob")]  # Menu > Shut down > Yes


def board(mode: str):
    """The board on mock devices, as the unit runs it, with READY=1 sent: (simulator, notifier)."""
    from firmware.board.pc.simulator import Simulator
    from firmware.board.sdnotify import Notifier
    from firmware.config import load_config

    sim = Simulator(load_config(CONFIG), STATE)
    notifier = Notifier()
    notifier.ready(f"test-boot-vm driver: {mode} on the mock controls")
    return sim, notifier


def burst() -> int:
    """Entries without pause while the flag exists (no undo: every entry stays in the ledger)."""
    sim, notifier = board("burst")
    rng = random.Random()
    acted = 0
    acks = open(ACKS, "w", buffering=1) if ACKS.exists() else None  # a FIFO: waits for its reader
    said = _last_id(sim) if acks else 0
    while True:
        notifier.watchdog()
        if not BURST_FLAG.exists():
            time.sleep(0.2)
            continue
        if sim.board.controller.game.is_over:
            sim.act("hold", "knob")
            sim.act("click", "knob")  # a new game
        # Points dialled and pegged: each one an entry in the ledger (the knob's own
        # panels, which a random click could open, would record nothing for a while).
        sim.act("turn", str(rng.randint(1, 6)))
        sim.act("click", rng.choice(["red", "blue"]))
        acted += 1
        if acks is not None:
            said = _acknowledge(sim, acks, said)
        if acted % 100 == 0:
            print(f"burst: {acted} entries acted", flush=True)


def _last_id(sim) -> int:
    return sim.store._conn.execute("SELECT coalesce(max(id), 0) FROM actions").fetchone()[0]


def _acknowledge(sim, acks, said: int) -> int:
    """Write each entry committed since row ``said`` (read on the writer's own connection:
    what it has committed, synchronous=FULL) to ``acks``; the last row's id."""
    rows = sim.store._conn.execute("SELECT id, game_id, line FROM actions WHERE id > ? ORDER BY id", (said,)).fetchall()
    game = sim.board.controller.game
    scores = ",".join(str(score) for score in game.state.scores) if game is not None else ""
    for row_id, game_id, line in rows:
        acks.write(f"{row_id}\t{game_id}\t{scores if row_id == rows[-1][0] else ''}\t{line}\n")
    return rows[-1][0] if rows else said


def power_check(acks_file: str) -> int:
    """After a power cut: the ledger sound and replaying, every acknowledged entry in it (see the module's doc)."""
    import sqlite3

    from ledger.reader import LedgerReader
    from scorer.record import replay

    acked = _acked_rows(acks_file)
    if _set_aside(STATE):
        return 1
    conn = sqlite3.connect(f"file:{STATE}?mode=ro", uri=True, timeout=30)
    integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    if integrity != "ok":
        print(f"FAILED: PRAGMA integrity_check: {integrity}")
        return 1
    rows = {row_id: (game_id, line) for row_id, game_id, line in conn.execute("SELECT id, game_id, line FROM actions")}
    conn.close()
    reader = LedgerReader(STATE)  # the project's own read-only reader, as the web view and export read
    try:
        games = {game_id: reader.export(game_id) for game_id in reader.game_ids()}
    finally:
        reader.close()
    for game_id, lines in games.items():
        result = replay(lines)
        if result.rejected:
            print(f"FAILED: game {game_id} of the ledger does not replay: {result.rejected[0]}")
            return 1
    for row_id, game_id, _, line in acked:
        if rows.get(row_id) != (game_id, line):
            lost = sum(1 for r, g, _, ln in acked if rows.get(r) != (g, ln))
            print(f"FAILED: {lost} of {len(acked)} acknowledged entries lost, the first: entry {row_id} "
                  f"(game {game_id}: {line}); the ledger has {rows.get(row_id) or 'no such entry'}")
            return 1
    checked = []
    for game_id in sorted({game_id for _, game_id, _, _ in acked}):
        last = max(row_id for row_id, g, _, _ in acked if g == game_id)
        scores = next(s for r, g, s, _ in acked if r == last)
        if not scores:  # acknowledged among others of one action: its scores are on the last of them
            scores = next(s for r, g, s, _ in sorted(acked, reverse=True) if g == game_id and s)
        upto = sum(1 for r, (g, _) in rows.items() if g == game_id and r <= last)
        game = replay(games[game_id][:1 + upto]).book.game
        got = ",".join(str(score) for score in game.state.scores)
        if got != scores:
            print(f"FAILED: game {game_id} replayed up to entry {last}, the last acknowledged, "
                  f"scores {got}, but the acknowledgement said {scores}")
            return 1
        checked.append(f"game {game_id} {got}")
    print(f"ok: integrity_check ok, {len(games)} games replayed ({len(rows)} entries), all {len(acked)} "
          f"acknowledged entries there; replayed up to the last acknowledged: {'; '.join(checked[-3:]) or 'none yet'}")
    return 0


def _set_aside(ledger: Path) -> bool:
    """Whether the ledger's folder holds a file a writer set aside (a damaged ledger, a -wal not its
    ledger's own, a ledger kept after it was deleted while open); if so, one FAILED line naming them."""
    from ledger.paths import set_aside_files

    found = set_aside_files(ledger.parent)
    if found:
        print(f"FAILED: the state folder {ledger.parent} holds a ledger set aside as damaged: "
              f"{', '.join(path.name for path in found)}")
    return bool(found)


def _acked_rows(acks_file: str) -> list[tuple[int, int, str, str]]:
    """The host's record of acknowledged entries: (id, game, scores, line), whole lines only."""
    acked = []
    for text in Path(acks_file).read_text().splitlines():
        fields = text.split("\t")
        if len(fields) == 4 and fields[0].isdigit() and fields[1].isdigit():
            acked.append((int(fields[0]), int(fields[1]), fields[2], fields[3]))
    return acked


def hub_check(kept_file: str) -> int:
    """After a power cut under the hub: its ledger sound, and all it said it kept still in it."""
    import json
    import sqlite3

    from firmware.hub.ledger import HubReader

    words = []
    for text in Path(kept_file).read_text().splitlines():
        try:
            word = json.loads(text)
        except ValueError:
            print(f"FAILED: a kept word the host heard is not JSON: {text[:120]!r}")
            return 1
        words.append(word)
    if _set_aside(HUB_STATE):
        return 1
    conn = sqlite3.connect(f"file:{HUB_STATE}?mode=ro", uri=True, timeout=30)
    integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    if integrity != "ok":
        print(f"FAILED: the hub's ledger: PRAGMA integrity_check: {integrity}")
        return 1
    entries = {tuple(row) for row in conn.execute("SELECT tbl, ledger, game, seq FROM entries")}
    results = {}
    for tbl, ledger, game, rev in conn.execute(
            "SELECT tbl, ledger, game, rev FROM results UNION ALL "
            "SELECT tbl, ledger, game, number FROM conflicts WHERE kind = 'refused'"):
        results[tbl, ledger, game] = max(rev, results.get((tbl, ledger, game), rev))
    conn.close()
    with HubReader(HUB_STATE) as reader:  # the project's own reader
        counts = reader.counts()
    said_entries = said_results = 0
    for word in words:
        table, ledger = word["table"], word["ledger"]
        for game, seq, rev, _status in word["games"]:
            for place in range(seq + 1):
                said_entries += 1
                if (table, ledger, game, place) not in entries:
                    print(f"FAILED: the hub's ledger lacks what its word said it kept: table {table} ledger "
                          f"{ledger} game {game} {'its line' if place == 0 else f'entry {place}'} (the word "
                          f"said kept through {seq}); {len(entries)} entries in it")
                    return 1
            if rev is not None:
                said_results += 1
                if results.get((table, ledger, game), -1) < rev:
                    print(f"FAILED: the hub's ledger lacks the result its word said it kept: table {table} ledger "
                          f"{ledger} game {game} revision {rev}")
                    return 1
    print(f"ok: the hub's ledger: integrity_check ok, opened by HubReader ({counts.get('entries', 0)} entries, "
          f"{counts.get('results', 0)} results); all it said it kept before the cut is there ({len(words)} kept "
          f"words heard by the host, {said_entries} line and entry places and {said_results} results acknowledged)")
    return 0


def club_sync(acks_file: str, seconds: float) -> int:
    """After a power cut with the club on: every acknowledged entry of the board reaches the hub."""
    import sqlite3

    from ledger.schema import ledger_id

    acked = _acked_rows(acks_file)
    board = sqlite3.connect(f"file:{STATE}?mode=ro", uri=True, timeout=30)
    ledger = ledger_id(board)
    clubs = {game: (club, tbl) for game, club, tbl in board.execute("SELECT game_id, club, tbl FROM club_games")}
    place: dict[int, int] = {}  # each entry's place in its game (1: its first entry), as the link numbers it
    counted: dict[int, int] = {}
    for row_id, game in board.execute("SELECT id, game_id FROM actions ORDER BY id"):
        counted[game] = place[row_id] = counted.get(game, 0) + 1
    board.close()
    wanted: dict[tuple, str] = {}
    for row_id, game, _, line in acked:
        if game not in clubs:
            print(f"FAILED: entry {row_id} (game {game}: {line}) was acknowledged in a game the board's ledger "
                  f"does not mark as the club's: its link would never send it")
            return 1
        club, tbl = clubs[game]
        wanted[(club, tbl, ledger, game, place[row_id])] = line
        wanted.setdefault((club, tbl, ledger, game, 0), None)  # the game's line: any text
    from ledger.single_writer import stamp

    booted = stamp(float(os.environ.get("CRIBBAGE_VM_BOOTED") or time.time() - _uptime()))
    began = time.monotonic()
    lacked = None  # entries and game lines the hub lacked when the check began: sent again since the boot
    while True:
        hub = sqlite3.connect(f"file:{HUB_STATE}?mode=ro", uri=True, timeout=30)
        rows = hub.execute("SELECT club, tbl, ledger, game, seq, line, received FROM entries WHERE ledger = ?",
                           (ledger,)).fetchall()
        have = {(c, t, lg, g, s): text for c, t, lg, g, s, text, _ in rows}
        since_boot = {(c, t, lg, g, s) for c, t, lg, g, s, _, received in rows if received >= booted}
        hub.close()
        missing = [key for key in wanted if key not in have]
        wrong = [key for key, line in wanted.items() if key in have and line is not None and have[key] != line]
        if wrong:
            club, tbl, _, game, seq = wrong[0]
            print(f"FAILED: the hub keeps table {tbl} game {game} entry {seq} as {have[wrong[0]]!r}, the board "
                  f"acknowledged {wanted[wrong[0]]!r}")
            return 1
        took = time.monotonic() - began
        if lacked is None:
            lacked = len(missing)
            if missing:
                print(f"club-sync: the hub lacks {lacked} of {len(wanted)}; waiting up to {seconds:.0f} s", flush=True)
        if not missing:
            print(f"ok: the hub's ledger has all {len(acked)} entries the board acknowledged (ledger {ledger}, "
                  f"{len({key[3] for key in wanted})} games), {took:.1f} s after the check began; {len(since_boot & wanted.keys())} of "
                  f"them and their games' lines kept by the hub since this boot (sent again: the cut came first), "
                  f"{lacked} still lacking when the check began; the board's watermark: {_watermark()}")
            return 0
        if took > seconds:
            club, tbl, _, game, seq = sorted(missing, key=lambda key: (key[3], key[4]))[0]
            print(f"FAILED: {seconds:.0f} s after the boot's check began the hub still lacks {len(missing)} of "
                  f"{len(wanted)} acknowledged entries and game lines, the first: table {tbl} game {game} "
                  f"{'its line' if seq == 0 else f'entry {seq}'}; the board's watermark: {_watermark()}")
            return 1
        time.sleep(2)


def _uptime() -> float:
    with open("/proc/uptime") as uptime:
        return float(uptime.read().split()[0])


def _watermark() -> str:
    """The club watermark beside the board's ledger, as one short line."""
    from firmware.board.club.outbox import WATERMARK_SUFFIX

    path = STATE.with_name(STATE.name + WATERMARK_SUFFIX)
    try:
        text = path.read_text(errors="replace").strip()
    except OSError as error:
        return f"none ({error.strerror})"
    return " ".join(text.split())[:160] or "empty"


def shutdown() -> int:
    """The menu's Shut down with the real power-off; then wait to be stopped by it."""
    from hardware import power
    from hardware.backend import MockBackend

    class PoweringOff(MockBackend):
        """The mock devices with the real board's power-off."""

        powers_off = True

        def power_off(self) -> None:
            power.power_off()

    sim, notifier = board("shutdown")
    sim.devices.backend = PoweringOff("test-boot-vm", "mock devices, the real power-off")
    for verb, argument in SHUT_DOWN:
        sim.act(verb, argument)
    print("shut down: " + ("the board ended" if sim.ended else "the board did not end"), flush=True)
    while True:  # the power-off stops this unit; if it was refused, the journal says why
        notifier.watchdog()
        time.sleep(1)


def _errno(error: OSError) -> str:
    return errno.errorcode.get(error.errno, str(error)) if error.errno else str(error)


def probe(host: str, port: int) -> str:
    """host:port tried from this process: "tcp R udp R" (see the module's doc)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    said = []
    for kind, name in ((socket.SOCK_STREAM, "tcp"), (socket.SOCK_DGRAM, "udp")):
        try:
            sock = socket.socket(family, kind)
        except OSError as error:
            said.append(f"{name} socket({family.name}) refused: {_errno(error)}")
            continue
        sock.settimeout(5)
        try:
            if kind == socket.SOCK_STREAM:
                sock.connect((host, port))
                said.append(f"{name} connected")
            else:
                sock.sendto(b"test-boot-vm probe", (host, port))
                said.append(f"{name} sent")
        except socket.timeout:
            said.append(f"{name} timed out")
        except OSError as error:
            said.append(f"{name} {_errno(error)}")
        finally:
            sock.close()
    return " ".join(said)


def probes(targets: list[tuple[str, int]]) -> None:
    for host, port in targets:
        print(f"probe: {host}:{port} {probe(host, port)}", flush=True)


class HeldOpen:
    """Standard input for the console: the game's lines, then nothing (the input held open, the club
    link left to send) until ``CLUB_DONE`` exists; then end of input."""

    def __init__(self, lines: list[str]):
        self.lines = [line + "\n" for line in lines]

    def isatty(self) -> bool:
        return False

    def readline(self, size: int = -1) -> str:
        if self.lines:
            return self.lines.pop(0)
        while not CLUB_DONE.exists():
            time.sleep(0.2)
        return ""


def club() -> int:
    """What the unit may reach; then, with [club] set, the console's club link, fed a whole game."""
    from firmware.board.pc.console import run_console
    from firmware.board.sdnotify import Notifier
    from firmware.config import load_config

    sys.stdout.reconfigure(line_buffering=True)  # the journal hears each line as it is said
    config = load_config(CONFIG)
    notifier = Notifier()
    notifier.ready("test-boot-vm driver: club")

    def alive() -> None:
        while True:
            notifier.watchdog()
            time.sleep(2)

    threading.Thread(target=alive, name="watchdog", daemon=True).start()
    targets = list(OUTSIDE)
    if config.club.enabled:
        broker = config.club.address()
        targets.insert(0, (broker.host, broker.port))
    probes(targets)
    if not config.club.enabled:
        print("club: off in the config", flush=True)
    else:
        print(f"club: {config.club.broker} club {config.club.name} table {config.club.table}: "
              f"the console fed {CLUB_GAME.name}", flush=True)
        status = run_console(STATE, stdin=HeldOpen(CLUB_GAME.read_text().splitlines()), stdout=sys.stdout,
                             club=config.club)
        print(f"club: the console ended, status {status}", flush=True)
    while True:  # until stopped
        time.sleep(1)


def gpio(chip: int, seconds: float) -> int:
    """The board's Controls on /dev/gpiochipCHIP through gpiozero's lgpio pin factory: says
    "reading", then takes events for ``seconds`` while the caller drives the gpio-sim lines
    (a click of red, one clockwise detent), and says what it read."""
    from gpiozero.pins.lgpio import LGPIOFactory

    from firmware.config import load_config
    from hardware.inputs import Controls

    pins = load_config(CONFIG).inputs.pins()
    controls = Controls(pins, pin_factory=LGPIOFactory(chip=chip))
    events = []
    try:
        print("reading", flush=True)
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            event = controls.get(timeout=left)
            if event is not None:
                events.append(event)
    finally:
        controls.close()
    seen = [(e.kind, e.source) + ((e.steps,) if e.kind == "turn" else ()) for e in events]
    red = pins.buttons["red"]
    if ("click", "red") not in [(e.kind, e.source) for e in events] or [e.steps for e in events if e.kind == "turn"] != [1]:
        print(f"FAILED: gpio-sim: expected a click of red (GPIO{red}) and one clockwise detent, read {seen}")
        return 1
    print(f"ok: gpio-sim lines read through gpiozero's lgpio pin factory on /dev/gpiochip{chip}: "
          f"red (GPIO{red}) clicked and one clockwise detent (GPIO{pins.encoder_a}/{pins.encoder_b}), "
          f"as the board's Controls read them: {seen}")
    return 0


def _pbm(image) -> bytes:
    """A 1-bit PIL image as a binary PBM (P4) file."""
    out = io.BytesIO()
    image.convert("1").save(out, format="PPM")
    return out.getvalue()


def oled(port: int) -> int:
    """The OLED through luma's real I2C path on the recorder, and one frame shown."""
    from firmware.board.loop import SAFE_TO_UNPLUG
    from firmware.board.screens import oled_image
    from hardware.display import DisplaySettings, open_display

    image = oled_image(SAFE_TO_UNPLUG)
    display = open_display(DisplaySettings(i2c_port=port, i2c_address=0x3C))
    try:
        display.show(image)
    finally:
        display.close(keep_image=True)
    print(f"oled: luma ssd1306 on /dev/i2c-{port} at 0x3C: opened, a frame shown, closed", flush=True)
    print(f"drawn: {_pbm(image).hex()}", flush=True)
    return 0


STRIP_LEDS, OVERSIZE_LEDS = 243, 485  # classic-121 and four-track-121


def strip() -> int:
    """The board's SpiStrip on /dev/spidev0.0: one frame, then closed (all off)."""
    from hardware.leds import PowerSettings, SpiStrip

    rng = random.Random(121)
    frame = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(STRIP_LEDS)]
    leds = SpiStrip(STRIP_LEDS, PowerSettings(max_brightness=1.0, budget_ma=100_000, gamma=1.0))
    try:
        leds.show(frame)
    finally:
        leds.close()
    print(f"strip: SpiStrip on {leds.path}: {STRIP_LEDS} LEDs at {leds.hz} Hz shown, then closed", flush=True)
    print(f"meant: {json.dumps({'hz': leds.hz, 'frames': [frame, [(0, 0, 0)] * STRIP_LEDS]})}", flush=True)
    return 0


def oversize() -> int:
    """A frame of 485 LEDs, more than the kernel's default spidev buffer: the board's SpiStrip
    asked to open for it, spidev's writebytes2 of its bytes, and a plain write() of them."""
    import spidev

    from hardware import ws2812
    from hardware.errors import HardwareError
    from hardware.leds import SpiStrip, spi_bufsiz

    try:
        SpiStrip(OVERSIZE_LEDS).close()
        answer = "opened"
    except HardwareError as error:
        answer = f"refused: {error}"
    data = ws2812.spi_bytes([(0, 0, 255)] * OVERSIZE_LEDS, ws2812.DEFAULT_HZ)
    device = spidev.SpiDev()
    device.open(0, 0)
    device.mode, device.bits_per_word, device.max_speed_hz = 0, 8, ws2812.DEFAULT_HZ
    device.writebytes2(data)
    device.close()
    fd = os.open("/dev/spidev0.0", os.O_WRONLY)
    try:
        os.write(fd, data)
        written = "written"
    except OSError as error:
        written = f"refused: {errno.errorcode.get(error.errno or 0, error.errno)}"
    finally:
        os.close(fd)
    said = {"leds": OVERSIZE_LEDS, "bytes": len(data), "bufsiz": spi_bufsiz(), "strip": answer, "write": written}
    print(f"oversize: {json.dumps(said)}", flush=True)
    return 0


def _wire():
    """tests/wire.py, the decoders, from the working tree agent.sh copied."""
    sys.path.insert(0, str(TREE / "tests"))
    import wire

    return wire


def _said(log: str, prefix: str) -> str:
    """What a mode printed after ``prefix`` in its log (the last such line)."""
    lines = [line[len(prefix):] for line in Path(log).read_text().splitlines() if line.startswith(prefix)]
    if not lines:
        raise SystemExit(f"FAILED: {log} has no line starting {prefix!r}")
    return lines[-1]


def check_oled(recording: str, image: str) -> int:
    """The I2C recording as an SSD1306 takes it, against the image drawn."""
    wire = _wire()
    text = Path(recording).read_text()
    messages = wire.parse_i2c(text)
    try:
        chip = wire.check_oled(text, Path(image).read_bytes())
    except wire.WireError as error:
        print(f"FAILED: the I2C recorder's {len(messages)} messages to 0x3C, read as an SSD1306 reads them: {error}")
        return 1
    data = sum(len(m.data) for m in messages)
    print(f"ok: I2C through the kernel: luma's ssd1306 in the board unit's sandbox wrote {len(messages)} messages "
          f"({data} bytes) to 0x3C on the I2C recorder's /dev/i2c-1, SMBus block writes and plain I2C alike; "
          f"read as an SSD1306 reads them (its commands, then its page-addressed GDDRAM), the panel is on, its "
          f"charge pump on, contrast {chip.contrast}, and its 128x64 pixels equal the image the board drew, "
          f"pixel for pixel")
    return 0


def check_strip(recording: str, log: str) -> int:
    """The SPI recording as a WS2812 strip takes it, against the colours meant."""
    wire = _wire()
    text = Path(recording).read_text()
    transfers = wire.parse_spi(text)
    try:
        frames = wire.check_strip(text, _said(log, "meant: "))
    except wire.WireError as error:
        print(f"FAILED: the SPI recorder's {len(transfers)} transfers, read as a WS2812 strip reads them: {error}")
        return 1
    sizes = ", ".join(str(len(t.data)) for t in transfers)
    print(f"ok: SPI through the kernel: the board's SpiStrip in the board unit's sandbox sent {len(transfers)} "
          f"transfers ({sizes} bytes) through /dev/spidev0.0 to the SPI recorder at {transfers[0].hz} Hz, mode 0, "
          f"8 bits; read against the WS2812B datasheet's timing, the first is the {len(frames[0])} colours meant, "
          f"the second all off (the strip closed)")
    return 0


def check_oversize(recording: str, log: str) -> int:
    """A frame larger than spidev's buffer: refused by the SpiStrip, cut in pieces by writebytes2,
    refused by the kernel in one write()."""
    from hardware import ws2812

    wire = _wire()
    said = json.loads(_said(log, "oversize: "))
    transfers = wire.parse_spi(Path(recording).read_text())
    data = ws2812.spi_bytes([(0, 0, 255)] * said["leds"], ws2812.DEFAULT_HZ)
    pieces = [t.data for t in transfers]
    bufsiz = said["bufsiz"]
    problems = []
    if not said["strip"].startswith("refused: ") or "spidev.bufsiz" not in said["strip"]:
        problems.append(f"the SpiStrip for {said['leds']} LEDs: {said['strip']}")
    if said["write"] != "refused: EMSGSIZE":
        problems.append(f"a write() of {len(data)} bytes: {said['write']}, not EMSGSIZE")
    if b"".join(pieces) != data or any(len(p) > bufsiz for p in pieces) or len(pieces) < 2:
        problems.append(f"writebytes2 of {len(data)} bytes reached the recorder as {[len(p) for p in pieces]} bytes")
    if problems:
        print(f"FAILED: a frame larger than spidev.bufsiz ({bufsiz}): " + "; ".join(problems))
        return 1
    gap = transfers[1].us - transfers[0].us
    led, bit = divmod((len(pieces[0]) - ws2812.reset_bytes(ws2812.DEFAULT_HZ)) * 8 // ws2812.pattern(ws2812.DEFAULT_HZ).bits, 24)
    print(f"ok: a frame larger than the kernel's spidev.bufsiz ({bufsiz}): {said['leds']} LEDs are {len(data)} bytes; "
          f"the board's SpiStrip refuses to open for it (\"{said['strip'][len('refused: '):]}\"); the kernel refuses "
          f"it as one write() (EMSGSIZE); spidev's writebytes2 sends it as {len(pieces)} transfers of "
          f"{' and '.join(str(len(p)) for p in pieces)} bytes, {gap} us apart here, the first ending at bit {bit} "
          f"of LED {led}, where a strip would latch the frame if the gap were 280 us or more")
    return 0


def expect(ledger: str, out: str, actions: list[str]) -> int:
    """The mock board on a copy of ``ledger``, given ``actions``: its OLED and LED frame, settled."""
    import shutil

    from firmware.board.pc.simulator import Simulator
    from firmware.config import load_config

    copy = Path(out + ".sqlite3")
    shutil.copyfile(ledger, copy)
    sim = Simulator(load_config(CONFIG), copy)
    try:
        for action in actions:
            verb, _, argument = action.partition(":")
            sim.act(verb, argument)
        sim.finish_animation()
        Path(out + ".pbm").write_bytes(_pbm(sim.devices.display.image))
        frame = sim.devices.strip.last_frame
        Path(out + ".json").write_text(json.dumps({"hz": None, "frames": [frame]}))
    finally:
        sim.close()
    print(f"expect: the mock board on a copy of {ledger} after {' '.join(actions)}: {out}.pbm and {out}.json")
    return 0


def check_board(i2c: str, spi: str, expected: str) -> int:
    """The real board's last OLED and LED frames, as the recorders took them, against the mock board's."""
    wire = _wire()
    code = 0
    try:
        expected_image = Path(expected + ".pbm").read_bytes()
        chip, frames, best = wire.Ssd1306(), 0, None
        for message in wire.parse_i2c(Path(i2c).read_text()):
            chip.feed([message])
            if message.direction != "w" or message.data[:1] != b"\x40":
                continue  # a frame is whole after each of luma's data writes
            frames += 1
            found = wire.differences(chip.frame(), expected_image)
            if best is None or len(found) <= len(best[1]):
                best = (frames, found, chip.frame())
        if best is None:
            raise wire.WireError("the I2C recorder took no frame from the board")
        if best[1]:
            raise wire.WireError(f"none of its {frames} frames is the mock board's; the nearest, frame {best[0]}: "
                                 + wire.describe(best[1], best[2]))
        print(f"ok: the board's OLED through the kernel: frame {best[0]} of the {frames} the I2C recorder took from "
              "the installed board, read as an SSD1306 reads it, equals the mock board's OLED after the same detent "
              "and click, pixel for pixel: the new score on the panel")
    except wire.WireError as error:
        print(f"FAILED: the board's OLED through the kernel: {error}")
        code = 1
    try:
        transfers = wire.parse_spi(Path(spi).read_text())
        if not transfers:
            raise wire.WireError("the SPI recorder took no transfer from the board")
        shown = wire.strip_frames(transfers[-1:])[0]
        _hz, (meant,) = wire.read_colours(Path(expected + ".json").read_text())
        wrong = [n for n, (a, b) in enumerate(zip(shown, meant)) if a != b]
        if wrong or len(shown) != len(meant):
            raise wire.WireError(f"{len(wrong)} of {len(meant)} LEDs differ from the mock board's frame "
                                 f"(LED {wrong[0] if wrong else len(shown)} first)")
        lit = sum(1 for colour in shown if colour != (0, 0, 0))
        print(f"ok: the board's LEDs through the kernel: the last of {len(transfers)} frames the SPI recorder took "
              f"from the installed board ({len(transfers[-1].data)} bytes at {transfers[-1].hz} Hz) decodes, "
              f"against the WS2812B datasheet, to the mock board's frame after the same detent and click, "
              f"all {len(shown)} LEDs ({lit} lit): the new hole is lit")
    except wire.WireError as error:
        print(f"FAILED: the board's LEDs through the kernel: {error}")
        code = 1
    return code


def main(argv: list[str]) -> int:
    if argv[:1] == ["burst"]:
        return burst()
    if argv[:1] == ["power-check"] and len(argv) == 2:
        return power_check(argv[1])
    if argv[:1] == ["hub-check"] and len(argv) == 2:
        return hub_check(argv[1])
    if argv[:1] == ["club-sync"] and len(argv) == 3:
        return club_sync(argv[1], float(argv[2]))
    if argv[:1] == ["shutdown"]:
        return shutdown()
    if argv[:1] == ["club"]:
        return club()
    if argv[:1] == ["probe"] and len(argv) > 1:
        probes([(where.rpartition(":")[0], int(where.rpartition(":")[2])) for where in argv[1:]])
        return 0
    if argv[:1] == ["gpio"] and len(argv) == 3:
        return gpio(int(argv[1]), float(argv[2]))
    if argv[:1] == ["oled"] and len(argv) == 2:
        return oled(int(argv[1]))
    if argv == ["strip"]:
        return strip()
    if argv == ["oversize"]:
        return oversize()
    if argv[:1] == ["check-oled"] and len(argv) == 3:
        return check_oled(argv[1], argv[2])
    if argv[:1] == ["check-strip"] and len(argv) == 3:
        return check_strip(argv[1], argv[2])
    if argv[:1] == ["check-oversize"] and len(argv) == 3:
        return check_oversize(argv[1], argv[2])
    if argv[:1] == ["expect"] and len(argv) >= 4:
        return expect(argv[1], argv[2], argv[3:])
    if argv[:1] == ["check-board"] and len(argv) == 4:
        return check_board(argv[1], argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
