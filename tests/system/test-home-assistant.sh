#!/usr/bin/env bash
# Prove the board's Home Assistant discovery with a real Home Assistant: tests/system/test-home-assistant.sh
#
# Installs Home Assistant (CRIBBAGE_HA_VERSION, by default the newest release
# that runs on this machine's Python 3.11) in a venv of its own, kept in
# ${CRIBBAGE_HA_CACHE:-~/.cache/cribbage-board-home-assistant} (outside git:
# delete it to install again); its first start there also installs the
# integrations' own requirements, from PyPI. Then, in a folder of its own that
# is removed at the end (CRIBBAGE_HA_KEEP=yes keeps it and says where):
#
# - sets up the club's broker as a director would: systemd/club-broker.sh
#   (its Mosquitto folder there, Mosquitto left alone), and runs Mosquitto on
#   the config it wrote, the listener moved to a free port of 127.0.0.1;
# - starts Home Assistant on a free port of 127.0.0.1, makes its owner
#   through the onboarding API and a long-lived access token over its
#   websocket, and sets up its MQTT integration through the config flow, as
#   the homeassistant login club-broker.sh made (discovery on, as by default);
# - plays through `cribbage-board console` with [club] set as club-broker.sh
#   printed it for table 3 and homeassistant = true: a game of four players,
#   a game of two others, then a new ledger with no game, then a game of
#   three on it; after each, it reads every entity of the board through the
#   entity registry and the REST API and checks that it follows the game
#   (each side's score, name and attributes, the next count, the sides the
#   game lacks removed; with no game, the scores unknown with no attributes
#   and the next count "no game");
# - stops Home Assistant and fails on any WARNING or ERROR its MQTT,
#   sensor or template code logged.
#
# Each check is one line, "ok: ..." or "FAILED: ..."; the last line is one
# summary such as
#   home assistant 2024.3.3: 6 ok, 0 failed
# and the exit status is non-zero on any failure. Home Assistant's log is
# printed on a failure to start, and a board that ended early is named with
# its last lines. The board is this tree's code, `python -m firmware.cli`
# with the tree first on its path, run by this tree's venv's Python
# (.venv/bin/python, or CRIBBAGE_HA_BOARD_PYTHON: any Python with the
# board's dependencies installed). Needs Mosquitto
# (apt install mosquitto) and python3 3.11 or newer with venv; not part of
# the default test run (it downloads and runs Home Assistant, a few minutes).
set -euo pipefail

src="$(cd "$(dirname "$0")/../.." && pwd)"
version="${CRIBBAGE_HA_VERSION:-2024.3.3}"  # the newest release whose Requires-Python admits 3.11
cache="${CRIBBAGE_HA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cribbage-board-home-assistant}"
venv="$cache/venv-$version"
board_python="${CRIBBAGE_HA_BOARD_PYTHON:-$src/.venv/bin/python}"

fail() { echo "test-home-assistant.sh: $*" >&2; exit 2; }

case "${1:-}" in
    "") ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "no arguments: run it as tests/system/test-home-assistant.sh (see --help)" ;;
esac
mosquitto="$(command -v mosquitto || echo /usr/sbin/mosquitto)"
[ -x "$mosquitto" ] || fail "mosquitto not found: apt install mosquitto"
command -v mosquitto_passwd >/dev/null || [ -x /usr/bin/mosquitto_passwd ] || fail "mosquitto_passwd not found: apt install mosquitto"
[ -x "$board_python" ] || fail "no $board_python: make the tree's venv (python3 -m venv .venv && .venv/bin/pip install -e .)"
# The board is this tree's firmware.cli run by that Python (PYTHONPATH and the working folder the tree);
# its club link needs paho-mqtt there.
(cd "$src" && PYTHONPATH="$src" "$board_python" -m firmware.cli console --help >/dev/null) \
    || fail "$board_python cannot run this tree's board (python -m firmware.cli console --help failed)"
"$board_python" -c 'import paho.mqtt.client' 2>/dev/null \
    || fail "$board_python has no paho-mqtt: give it the board's dependencies (pip install -e .)"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || fail "Home Assistant $version needs Python 3.11 or newer"

if ! "$venv/bin/python" -c 'import homeassistant' 2>/dev/null; then
    echo "installing Home Assistant $version in $venv (once)"
    mkdir -p "$cache"
    rm -rf "$venv"
    python3 -m venv "$venv.new"
    # josepy 2 dropped what the acme of Home Assistant's cloud imports (and every HTTP request imports it)
    "$venv.new/bin/pip" install -q "homeassistant==$version" "josepy<2" >"$cache/pip.log" 2>&1 \
        || fail "pip could not install homeassistant==$version: see $cache/pip.log"
    mv "$venv.new" "$venv"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/cribbage-ha.XXXXXX")"
pids=()
finish() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "${CRIBBAGE_HA_KEEP:-no}" = yes ]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap finish EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The club's broker, as club-broker.sh sets it up.
mkdir -p "$work/director"
(cd "$work/director" && CRIBBAGE_MOSQUITTO_DIR="$work/director/etc" CRIBBAGE_BROKER_RESTART=no \
    bash "$src/systemd/club-broker.sh" --club thursday --address 127.0.0.1 3) > "$work/club-broker.txt" \
    || fail "club-broker.sh failed: $(cat "$work/club-broker.txt")"
broker_port="$(free_port)"
{
    echo "persistence false"
    echo "user root"  # when run as root: no change of user (the files are root's)
    sed -e "s/^listener 1883\$/listener $broker_port 127.0.0.1/" "$work/director/etc/conf.d/cribbage.conf"
} > "$work/mosquitto.conf"
"$mosquitto" -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
pids+=("$!")

# Home Assistant: its core settings, its HTTP server on loopback, its log.
ha_port="$(free_port)"
mkdir -p "$work/ha"
cat > "$work/ha/configuration.yaml" <<EOF
homeassistant:
  name: Cribbage check
  latitude: 52.2
  longitude: 0.1
  elevation: 0
  unit_system: metric
  time_zone: UTC
  currency: EUR
  country: GB
http:
  server_host: 127.0.0.1
  server_port: $ha_port
logger:
  default: warning
EOF
"$venv/bin/python" -m homeassistant -c "$work/ha" --log-file "$work/ha.log" > "$work/hass.out" 2>&1 &
hass_pid="$!"
pids+=("$hass_pid")

status=0
CRIBBAGE_SRC="$src" BOARD_PYTHON="$board_python" WORK="$work" HA_PORT="$ha_port" BROKER_PORT="$broker_port" \
    "$venv/bin/python" - <<'EOF' || status=$?
"""Home Assistant's owner and token, its MQTT integration, then the games and the checks."""

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

SRC, WORK = Path(os.environ["CRIBBAGE_SRC"]), Path(os.environ["WORK"])
HA = f"http://127.0.0.1:{os.environ['HA_PORT']}"
BROKER_PORT = int(os.environ["BROKER_PORT"])
NODE = "cribbage-thursday-table-3"
sys.path.insert(0, str(SRC))
from scorer.record import Scorebook, parse_line  # noqa: E402  (pure: no package of the board's venv)
from scorer.report import state_dict  # noqa: E402

results = {"ok": 0, "failed": 0}


def say(ok: bool, what: str) -> None:
    results["ok" if ok else "failed"] += 1
    print(f"{'ok' if ok else 'FAILED'}: {what}", flush=True)


def club_settings() -> dict[str, str]:
    """Table 3's [club] section and Home Assistant's password, as club-broker.sh printed them."""
    text = (WORK / "club-broker.txt").read_text()
    section = dict(re.findall(r'^(\w+) = "([^"]*)"', text.split("[club]", 1)[1], re.M))
    section["homeassistant"] = (WORK / "director" / "homeassistant.password").read_text().strip()
    return section


async def started(session) -> None:
    """Until Home Assistant answers (its first start installs the integrations' requirements)."""
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        try:
            async with session.get(f"{HA}/api/onboarding") as answer:
                if answer.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(2)
    raise SystemExit("FAILED: Home Assistant did not answer on its port in 15 minutes")


async def token(session) -> str:
    """The owner made through onboarding, its access token, then a long-lived one over the websocket."""
    client_id = f"{HA}/"
    async with session.post(f"{HA}/api/onboarding/users", json={
            "client_id": client_id, "name": "Director", "username": "director", "password": "club-night-check",
            "language": "en"}) as answer:
        code = (await answer.json())["auth_code"]
    async with session.post(f"{HA}/auth/token", data={
            "grant_type": "authorization_code", "code": code, "client_id": client_id}) as answer:
        access = (await answer.json())["access_token"]
    async with session.ws_connect(f"{HA}/api/websocket") as ws:
        await ws.receive_json()  # auth_required
        await ws.send_json({"type": "auth", "access_token": access})
        assert (await ws.receive_json())["type"] == "auth_ok"
        await ws.send_json({"id": 1, "type": "auth/long_lived_access_token", "client_name": "cribbage check",
                            "lifespan": 1})
        return (await ws.receive_json())["result"]


async def mqtt_integration(session, headers, settings) -> bool:
    """The MQTT integration set up through its config flow, as the homeassistant login."""
    async with session.post(f"{HA}/api/config/config_entries/flow", headers=headers,
                            json={"handler": "mqtt", "show_advanced_options": False}) as answer:
        step = await answer.json()
    async with session.post(f"{HA}/api/config/config_entries/flow/{step['flow_id']}", headers=headers, json={
            "broker": "127.0.0.1", "port": BROKER_PORT, "username": "homeassistant",
            "password": settings["homeassistant"]}) as answer:
        done = await answer.json()
    ok = done.get("type") == "create_entry"
    say(ok, f"MQTT integration set up as homeassistant on port {BROKER_PORT}" + ("" if ok else f": {done}"))
    return ok


async def entities(session, headers, token_) -> dict[str, dict]:
    """The board's entities by unique id: each one's state (None: not in the state machine)."""
    async with session.ws_connect(f"{HA}/api/websocket") as ws:
        await ws.receive_json()
        await ws.send_json({"type": "auth", "access_token": token_})
        await ws.receive_json()
        await ws.send_json({"id": 1, "type": "config/entity_registry/list"})
        registry = (await ws.receive_json())["result"]
    found = {}
    for entry in registry:
        if entry.get("platform") == "mqtt" and entry["unique_id"].startswith(NODE):
            async with session.get(f"{HA}/api/states/{entry['entity_id']}", headers=headers) as answer:
                found[entry["unique_id"]] = await answer.json() if answer.status == 200 else None
    return found


def expected(lines: list[str]) -> dict[str, tuple]:
    """What each of the board's entities should show after ``lines`` on a new ledger: by unique id,
    (state, attributes, the end of its name); a side the game lacks is absent."""
    book = Scorebook()
    for line in lines:
        book.apply(parse_line(line))
    if book.game is None:
        return {}
    game = state_dict(book)
    upcoming = game["next"]
    shown = {f"{NODE}_next": (f"{upcoming['seat']} {upcoming['count']}" if upcoming else
                              f"{game['winner']} won" if game["winner"] else "no game", None, "Next count")}
    for index, side in enumerate(game["sides"]):
        shown[f"{NODE}_side{index + 1}"] = (str(side["score"]), {
            "player": side["name"], "back_peg": side["back"], "dealer": game["dealer"], "winner": game["winner"]},
            f"{side['name']} score")
    return shown


def differences(found: dict[str, dict], wanted: dict[str, tuple], sides_before: int) -> list[str]:
    """What of ``found`` does not follow ``wanted``; no game: the sides of the game before unknown."""
    wrong = []
    if not wanted:  # no game: the entities stay, unknown, with no attributes
        for index in range(1, sides_before + 1):
            entity = found.get(f"{NODE}_side{index}")
            attributes = {key: value for key, value in (entity or {}).get("attributes", {}).items()
                          if key not in ("friendly_name", "icon", "unit_of_measurement")}
            if not entity or entity["state"] != "unknown" or attributes:
                wrong.append(f"side{index}: {entity and (entity['state'], attributes)}, not unknown and no attributes")
        entity = found.get(f"{NODE}_next")
        if not entity or entity["state"] != "no game":
            wrong.append(f"next: {entity and entity['state']}, not 'no game'")
        return wrong
    for unique_id, (state, attributes, name) in wanted.items():
        entity = found.get(unique_id)
        if entity is None:
            wrong.append(f"{unique_id}: no such entity")
            continue
        if entity["state"] != state:
            wrong.append(f"{unique_id}: {entity['state']!r}, not {state!r}")
        if not entity["attributes"].get("friendly_name", "").endswith(name):
            wrong.append(f"{unique_id}: named {entity['attributes'].get('friendly_name')!r}, not ...{name!r}")
        if attributes is not None:
            have = {key: entity["attributes"].get(key) for key in attributes}
            if have != attributes:
                wrong.append(f"{unique_id}: attributes {have}, not {attributes}")
    for unique_id in set(found) - set(wanted):
        if found[unique_id] is not None:
            wrong.append(f"{unique_id}: still there ({found[unique_id]['state']!r}) for a game without it")
    return wrong


class Board:
    """`cribbage-board console` on a ledger of its own, in table 3 of club thursday, fed line by line."""

    def __init__(self, ledger: Path, settings: dict[str, str]):
        args = [f"club.{key}={settings[key]}" for key in ("broker", "name", "table", "username", "password")]
        args[0] = f"club.broker=mqtt://127.0.0.1:{BROKER_PORT}"
        # The tree's code on the board's Python: python -m puts the working folder first on sys.path, then
        # PYTHONPATH, so both are this tree (not whatever copy that Python has installed).
        command = [os.environ["BOARD_PYTHON"], "-m", "firmware.cli", "console", "--state", str(ledger)]
        for arg in [*args, "club.homeassistant=true"]:
            command += ["--set", arg]
        env = {**os.environ, "PYTHONPATH": str(SRC)}
        self.log = WORK / f"{ledger.stem}.out"
        self.out = open(self.log, "w")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=self.out, stderr=subprocess.STDOUT,
                                        text=True, env=env, cwd=SRC)

    def ended(self) -> str:
        """Empty while the board runs; once it has ended, its exit status and the last lines it wrote."""
        if self.process.poll() is None:
            return ""
        self.out.flush()
        said = " | ".join(self.log.read_text().splitlines()[-5:])
        return f"the board ended with status {self.process.returncode}: {said}"

    def enter(self, lines: list[str]) -> None:
        """Each line to the console; nothing once the board has ended (the next check names its end)."""
        for line in lines:
            if self.process.poll() is not None:
                return
            try:
                self.process.stdin.write(line + "\n")
                self.process.stdin.flush()
            except BrokenPipeError:
                return

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except BrokenPipeError:  # the board ended first: its end is in a check line already
            pass
        self.process.wait(60)
        self.out.close()


async def follows(session, headers, token_, board: Board, what: str, lines: list[str],
                  sides_before: int = 0) -> None:
    """Until the board's entities follow ``lines`` (60 s at most, less if the board has ended): one
    check line, which names the board's end and last words when it ended."""
    wanted = expected(lines)
    deadline = time.monotonic() + 60
    while True:
        wrong = differences(await entities(session, headers, token_), wanted, sides_before)
        if not wrong or time.monotonic() > deadline or board.ended():
            break
        await asyncio.sleep(1)
    if wrong and board.ended():
        wrong.append(board.ended())
    say(not wrong, what + ("" if not wrong else ": " + "; ".join(wrong)))


async def main() -> int:
    settings = club_settings()
    async with aiohttp.ClientSession() as session:
        await started(session)
        token_ = await token(session)
        headers = {"Authorization": f"Bearer {token_}"}
        if not await mqtt_integration(session, headers, settings):
            return 1
        first = Board(WORK / "first.sqlite3", settings)
        try:
            four = ["game four-hand-individual seats=Ann,Bob,Cy,Di dealer=Ann", "heels", "peg Bob 2", "peg Cy 3"]
            first.enter(four)
            await follows(session, headers, token_, first, "a game of four: four scores, named after their players",
                          four)
            two = ["game six-card seats=Ed,Fa dealer=Ed", "heels", "peg Fa 2", "peg Ed 2", "go Fa"]
            first.enter(two)
            await follows(session, headers, token_, first,
                          "then a game of two: two scores, renamed; sides 3 and 4 removed", four + two)
        finally:
            first.close()
        second = Board(WORK / "second.sqlite3", settings)
        try:
            await follows(session, headers, token_, second, "a new ledger with no game: scores unknown, no attributes, "
                          "'no game'", [], sides_before=2)
            three = ["game three-hand seats=Gil,Hal,Ivy dealer=Gil", "peg Hal 2", "peg Ivy 1", "peg Gil 2"]
            second.enter(three)
            await follows(session, headers, token_, second, "then a game of three on it: three scores", three)
        finally:
            second.close()
    return 0 if results["failed"] == 0 else 1


status = asyncio.run(main())
(WORK / "results.json").write_text(json.dumps(results))
sys.exit(status)
EOF

# Stop Home Assistant (its log complete), then read what its MQTT, sensor and template code said.
kill "$hass_pid" 2>/dev/null || true
wait "$hass_pid" 2>/dev/null || true
ok=0 failed=0
if [ -s "$work/results.json" ]; then
    ok="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ok"])' "$work/results.json")"
    failed="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["failed"])' "$work/results.json")"
elif [ "$status" -ne 0 ]; then
    failed=1
    echo "FAILED: the check stopped early; Home Assistant's log:"
    tail -n 40 "$work/ha.log" 2>/dev/null || true
fi
logged="$(grep -E '^[0-9-]+ [0-9:.]+ (WARNING|ERROR|CRITICAL) \([^)]*\) \[homeassistant\.(components\.(mqtt|sensor|template)|helpers\.template)' \
    "$work/ha.log" || true)"
if [ -z "$logged" ]; then
    ok=$((ok + 1))
    echo "ok: no warning or error from Home Assistant's MQTT, sensor or template code"
else
    failed=$((failed + 1))
    echo "FAILED: Home Assistant's MQTT, sensor or template code logged:"
    printf '%s\n' "$logged" | cut -c 1-400
fi
echo "home assistant $version: $ok ok, $failed failed"
[ "$failed" -eq 0 ]
