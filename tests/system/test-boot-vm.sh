#!/usr/bin/env bash
# Prove the service on a booted system: tests/system/test-boot-vm.sh [bookworm|trixie] [--arch amd64|arm64] [--power-cuts N]
#
# Builds a Debian root (debootstrap) with Debian's own kernel, systemd, polkit
# and the packages install.sh asks for, and the project's dependencies as
# wheels built on this host, into a disk image; boots it under qemu-system
# (KVM when /dev/kvm can be used) with no network but a port forwarded from
# 127.0.0.1 to the web view; and inside the booted guest, with systemd as
# PID 1, runs systemd/install.sh for real (CRIBBAGE_INSTALL_TARGET=vm) with
# the board on the mock backend through a drop-in (the VM has no strip, OLED
# or buttons), then checks the units, the one writer, kill -9, the watchdog,
# polkit, the web view, the hardening scores, a second install, the stop, the
# kernel's own GPIO, I2C and SPI (gpio-sim, and the I2C and SPI recorders of
# tests/system/vm/kmod, built for the guest's kernel with the image) under the
# board's real drivers and then the whole board on its real backend, the club (the board's unit, with [club] set and the drop-in of
# `cribbage-board club-network`, sends a game to a Mosquitto on this host,
# reached through qemu's guestfwd, and a club hub here counts it; the unit
# reaches no other address, and with the club off it has no network again),
# and last the menu's shut-down, which must power the VM off. With
# --power-cuts N it runs none of those checks after the install, but cuts the
# VM's power (SIGKILL of qemu) N times during a burst of entries from the
# board's unit, and after each boot checks the ledger against what the host
# heard acknowledged before the cut (see power_main and tests/system/README.md),
# ending with "ok: N power cuts: 0 acknowledged entries lost, ..." or
# "FAILED: N power cuts: ..."; the club on through the cuts (the hub in the
# guest as cribbage-hub.service, Mosquitto here; start_power_club), its
# ledger checked against the kept words heard here and every entry of the
# board's checked to reach it, in one more line. Each check is
# one line, "ok: ...", "FAILED: ..." or "skipped: <reason>"; the last line
# is one summary such as
#   vm bookworm amd64: booted, 13 ok, 0 failed, 0 skipped
# and the exit status is non-zero on any failure.
#
# Run as root. The image is built once and cached in ~/.cache/cribbage-vm
# (CRIBBAGE_VM_CACHE names another folder; delete RELEASE-ARCH/ there to
# rebuild it); a run boots a copy-on-write overlay of it, so nothing of a run
# is kept in the image. The guest's serial console, with the install's output
# and the journal of what failed, is kept in RELEASE-ARCH/console.log, the
# club's Mosquitto and hub logs in RELEASE-ARCH/club-*.log. The club's hub
# runs with this tree's venv (.venv/bin/python, or CRIBBAGE_VM_PYTHON); the
# club check says "skipped" without it, Mosquitto or socat. Not part of the
# default test run.
set -euo pipefail

usage() {
    echo "usage: $0 [bookworm|trixie] [--arch amd64|arm64] [--power-cuts N]"
    echo "Boots a Debian VM (cached in \${CRIBBAGE_VM_CACHE:-~/.cache/cribbage-vm}), installs the"
    echo "service there with systemd/install.sh and checks it; with --power-cuts N, cuts its power"
    echo "N times during a burst of entries instead; see tests/system/README.md."
}
bad_cuts() {  # WHAT: one line, exit 2.
    echo "usage: $0 [bookworm|trixie] [--arch amd64|arm64] [--power-cuts N]: --power-cuts needs N, a whole number of cuts from 1 to 1000 ($1)" >&2
    exit 2
}

release=bookworm
arch=amd64
power_cuts=""  # --power-cuts N: N power cuts instead of the checks
power_asked=no
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help)
            usage
            exit 0
            ;;
        --power-cuts)
            [ $# -ge 2 ] || bad_cuts "none given"
            power_cuts=$2
            power_asked=yes
            shift
            ;;
        --power-cuts=*)
            power_cuts=${1#--power-cuts=}
            power_asked=yes
            ;;
        --arch)
            [ $# -ge 2 ] || { usage >&2; exit 2; }
            arch=$2
            shift
            ;;
        --arch=*) arch=${1#--arch=} ;;
        bookworm | trixie) release=$1 ;;
        *)
            usage >&2
            exit 2
            ;;
    esac
    shift
done
case $arch in
    amd64 | arm64) ;;
    *)
        usage >&2
        exit 2
        ;;
esac
if [ "$power_asked" = yes ]; then
    if ! [[ $power_cuts =~ ^[1-9][0-9]{0,3}$ ]] || [ "$power_cuts" -gt 1000 ]; then
        bad_cuts "given: '$power_cuts'"
    fi
fi

src=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CRIBBAGE_VM_CACHE:-$HOME/.cache/cribbage-vm}/$release-$arch
label="vm $release $arch"
debs=${CRIBBAGE_VM_CACHE:-$HOME/.cache/cribbage-vm}/debs-$release-$arch  # debootstrap's downloads, kept across rebuilds
# shellcheck source=tests/system/debian-root.sh
. "$src/tests/system/debian-root.sh"  # say, fail, cleanup, bind, in_root, host_trust, copy_tree
need_root "it uses apt-get, debootstrap, mount and chroot"

# What the guest has besides debootstrap's minimal base: systemd as PID 1 with
# udev, D-Bus and logind (libpam-systemd: debootstrap does not pick
# polkitd's default-logind itself) and polkit, Debian's kernel, the packages install.sh
# installs (so its apt-get finds them there without a network), kmod for
# gpio-sim and the recorders, and curl for a phone's requests to the web view. Changing
# this list, build_image or tests/system/vm/kmod's sources rebuilds the image.
packages=systemd,systemd-sysv,udev,dbus,libpam-systemd,polkitd,kmod,iproute2,procps,ca-certificates,e2fsprogs,python3,python3-venv,python3-dev,gcc,swig,i2c-tools,curl
case $arch in
    amd64)
        packages+=,linux-image-amd64
        qemu=(qemu-system-x86_64 -machine q35 -smp 2 -m 2048)
        console=ttyS0
        # qemu-system-x86 of the installed qemu-system-common's version: test-pi-image.sh may have
        # brought that from bookworm-backports, and apt refuses bookworm's own qemu-system-x86 beside it.
        qemu_common=$(dpkg-query -W -f='${Status} ${Version}' qemu-system-common 2>/dev/null | sed -n 's/^install ok installed //p')
        host_packages "qemu-system-x86${qemu_common:+=$qemu_common}" debootstrap qemu-utils e2fsprogs
        ;;
    arm64)
        packages+=,linux-image-arm64
        qemu=(qemu-system-aarch64 -machine virt -smp 2 -m 2048)
        console=ttyAMA0
        host_packages debootstrap qemu-system-arm qemu-utils e2fsprogs qemu-user-static binfmt-support
        ;;
esac
host_packages mosquitto socat  # the club check: a broker on this host, and qemu's guestfwd runs socat for each connection
# KVM where it works: /dev/kvm alone is not enough (a sandbox can offer one whose
# guests never start), the processor must show vmx or svm too. CRIBBAGE_VM_ACCEL=kvm
# or tcg decides instead.
accel=${CRIBBAGE_VM_ACCEL:-}
if [ -z "$accel" ]; then
    accel=tcg
    if [ "$(dpkg --print-architecture)" = "$arch" ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
        accel=kvm
    fi
fi
if [ "$accel" = kvm ]; then
    qemu+=(-accel kvm -cpu host)
else
    qemu+=(-accel tcg -cpu max)
    accel="tcg (software emulation)"
fi
recipe=$(printf '%s\n' "$packages" "$(sed -n '/^build_image()/,/^}/p' "$0")" "$(cat "$src"/tests/system/vm/kmod/{Kbuild,build.sh,*.c,*.h})" | md5sum | cut -c1-12)

build_image() {  # The cached image: base.img (ext4, the whole root), vmlinuz, initrd.img, wheels in the root.
    local log=$cache/build.log foreign=()
    rm -rf "$cache"
    mkdir -p "$cache"
    root=$(mktemp -d "/var/tmp/cribbage-vm-$release-$arch.XXXXXX")
    [ "$(dpkg --print-architecture)" = "$arch" ] || foreign=(--foreign)
    say "debootstrap $release $arch with Debian's kernel and systemd (log in $log)"
    mkdir -p "$debs"
    debootstrap --arch="$arch" "${foreign[@]}" --variant=minbase --include="$packages" --cache-dir="$debs" \
        "$release" "$root" "$mirror" >"$log" 2>&1 || fail "debootstrap, see $log"
    if [ ${#foreign[@]} -gt 0 ]; then
        update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
        cp /usr/bin/qemu-aarch64-static "$root/usr/bin/"
        chroot "$root" /debootstrap/debootstrap --second-stage >>"$log" 2>&1 || fail "debootstrap second stage, see $log"
    fi
    mount_system
    no_service_starts
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    echo "deb $mirror $release main" >"$root/etc/apt/sources.list"
    host_trust
    # The wheels: every dependency of the project (and lgpio, for the gpio-sim
    # check, and setuptools, which pip builds the project with), built here
    # with the guest's own Python, so that the guest needs no network.
    say "building the wheels with the guest's Python"
    copy_tree "$src" "$root/tmp/cribbage-board"
    # PYPI=1: lgpio's sdist (no wheel for Trixie's Python 3.13) compiles its C library in, as install.sh has it.
    in_root bash -c 'apt-get update -q && python3 -m venv /tmp/wheels-venv &&
        PYPI=1 /tmp/wheels-venv/bin/pip wheel -q -w /var/cache/cribbage-vm/wheels /tmp/cribbage-board lgpio spidev setuptools wheel &&
        rm -f /var/cache/cribbage-vm/wheels/cribbage_board-*.whl' >>"$log" 2>&1 ||
        fail "pip wheel in the root, see $log"
    # The kernel modules of the device checks (tests/system/vm/kmod): the guest kernel's
    # headers and Debian's source of the same kernel, for gpio-sim; the source goes
    # once they are built, the headers stay.
    say "building gpio-sim and the I2C and SPI recorders for the guest's kernel"
    # shellcheck disable=SC2016  # expanded in the root, by its own bash
    in_root bash -c 'set -e
        release=$(basename /lib/modules/*)
        version=$(dpkg-query -W -f "\${Version}" "linux-image-$release")
        source=linux-source-$(echo "$release" | cut -d. -f1,2)
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends make xz-utils \
            "linux-headers-$release=$version" "$source=$version"
        /tmp/cribbage-board/tests/system/vm/kmod/build.sh "$release" "/usr/src/$source.tar.xz"
        apt-get purge -y -q "$source"' >>"$log" 2>&1 || fail "the kernel modules, see $log"
    rm -rf "$root/tmp/cribbage-board" "$root/tmp/wheels-venv"
    cleanup_mounts

    # The guest: no network but the forwarded port (no DNS, no route out:
    # qemu's restrict=on), pip from the wheels, apt's lists as the build left
    # them, a serial console, and the hook that runs the check from the
    # second disk once the system is up.
    rm -f "$root/usr/sbin/policy-rc.d" "$root/usr/bin/qemu-aarch64-static" "$root/etc/pip.conf"
    rm -rf "$root/etc/xdg/pip" "$root"/var/cache/apt/archives/*.deb
    : >"$root/etc/resolv.conf"
    printf '[global]\nno-index = true\nfind-links = /var/cache/cribbage-vm/wheels\n' >"$root/etc/pip.conf"
    echo cribbage-vm >"$root/etc/hostname"
    printf '127.0.0.1 localhost\n127.0.1.1 cribbage-vm\n' >"$root/etc/hosts"
    printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"
    printf '[Match]\nName=e*\n\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\n' \
        >"$root/etc/systemd/network/10-vm.network"
    cat >"$root/etc/systemd/system/cribbage-vm-check.service" <<'EOF'
# test-boot-vm.sh: runs the check that the host put on the second disk, once the system is up.
[Unit]
Description=cribbage-board VM check (tests/system/test-boot-vm.sh)
After=multi-user.target
ConditionPathExists=/dev/vdb

[Service]
Type=exec
ExecStartPre=/bin/mkdir -p /mnt/vm
ExecStartPre=/bin/mount -o ro /dev/vdb /mnt/vm
ExecStart=/bin/bash /mnt/vm/agent.sh
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
    chroot "$root" systemctl enable systemd-networkd.service cribbage-vm-check.service >>"$log" 2>&1 ||
        fail "systemctl enable in the root, see $log"
    cp -L "$root/vmlinuz" "$cache/vmlinuz" 2>/dev/null || cp "$root"/boot/vmlinuz-* "$cache/vmlinuz"
    cp -L "$root/initrd.img" "$cache/initrd.img" 2>/dev/null || cp "$root"/boot/initrd.img-* "$cache/initrd.img"
    say "making the disk image"
    mkfs.ext4 -q -F -L cribbage-vm -d "$root" "$cache/base.img.part" 6G >>"$log" 2>&1 || fail "mkfs.ext4 -d, see $log"
    mv "$cache/base.img.part" "$cache/base.img"
    echo "$recipe" >"$cache/recipe"
    rm -rf --one-file-system "$root"
    root=""
    say "cached the image in $cache"
}

cleanup_mounts() {  # The mounts alone (the root stays).
    local keep=$root
    root=""
    cleanup
    root=$keep
}

qemu_pid=""
run_dir=""
club_pids=()  # the club's Mosquitto and hub on this host
# shellcheck disable=SC2317  # run by the EXIT trap
finish() {
    local pid
    if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
        kill "$qemu_pid" 2>/dev/null || true
        wait "$qemu_pid" 2>/dev/null || true
    fi
    for pid in "${club_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ -n "$run_dir" ]; then
        [ ! -e "$run_dir/mosquitto.log" ] || cp "$run_dir/mosquitto.log" "$cache/club-mosquitto.log"
        [ ! -e "$run_dir/hub.err" ] || cat "$run_dir/hub.out" "$run_dir/hub.err" >"$cache/club-hub.log" 2>/dev/null || true
        rm -rf "$run_dir"
    fi
    cleanup
}
trap finish EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The club, on this host: a Mosquitto on 127.0.0.1 (anonymous: only the guest reaches it, through
# qemu's guestfwd) and a club hub for one round, Ann v Bob at table 1, which the guest's board plays.
club_address=10.0.2.100  # in the guest, qemu's guestfwd to that Mosquitto (restrict=on: the guest reaches nothing else)
club_name=vmclub
club_table=1
club_port=""
hub_port=""
mosquitto=$(command -v mosquitto || command -v /usr/sbin/mosquitto || true)  # this host's, for the club
club_broker_pid=""
start_club_broker() {  # Mosquitto on 127.0.0.1:$club_port, anonymous (only the guest reaches it, through qemu's
    # guestfwd) and without persistence, so that one killed comes back empty; its log appended to mosquitto.log.
    printf '# test-boot-vm.sh: the club'"'"'s broker\nlistener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' \
        "$club_port" >"$run_dir/mosquitto.conf"
    "$mosquitto" -c "$run_dir/mosquitto.conf" >>"$run_dir/mosquitto.log" 2>&1 &
    club_broker_pid=$!
    club_pids+=("$club_broker_pid")
}
club_host_lacks() {  # PYTHON IMPORTS PURPOSE: the "skipped: club: ..." line if this host lacks Mosquitto ($mosquitto),
    # socat, or a PYTHON that imports IMPORTS (to PURPOSE); nothing if it has them all.
    if [ -z "$mosquitto" ]; then
        echo "skipped: club: Mosquitto is not installed on the host (apt-get install mosquitto)"
    elif ! command -v socat >/dev/null; then
        echo "skipped: club: socat is not installed on the host (qemu's guestfwd runs it; apt-get install socat)"
    elif ! "$1" -c "import $2" 2>/dev/null; then
        echo "skipped: club: $1 cannot $3 (make the README's venv with .[test], or set CRIBBAGE_VM_PYTHON)"
    fi
}

start_club() {  # On the data disk: club.env, club-game.txt; or club-none.txt, the guest's line saying why there is no club.
    local data=$run_dir/data py=${CRIBBAGE_VM_PYTHON:-$src/.venv/bin/python} why="" hub_said
    why=$(club_host_lacks "$py" "firmware.hub.service, paho.mqtt.client, pytest" "run the club's hub")
    if [ -z "$why" ] && ! (cd "$src/tests" && "$py" - "vm $release $arch" >"$data/club-game.txt" 2>"$run_dir/club-game.err") <<'EOF'
import sys
from club_hub import game_lines  # a whole six-card game in the record format, as the club tests play it
print("\n".join(game_lines(["Ann", "Bob"], sys.argv[1])))
EOF
    then
        why="FAILED: club: the game's lines could not be made on the host: $(tail -n 1 "$run_dir/club-game.err")"
    elif [ -z "$why" ] && ! (cd "$src" && "$py" - "$data/club-game.txt" >"$run_dir/club-expected.txt" 2>"$run_dir/club-game.err") <<'EOF'
import sys
from scorer.record import replay  # the scorer's own reading of the game, to check the hub's against
game = replay(open(sys.argv[1]).read().splitlines()).book.game
print(" ".join(f"{side.name}={game.state.scores[k]}" for k, side in enumerate(game.sides)))
EOF
    then
        why="FAILED: club: the game's lines do not replay on the host: $(tail -n 1 "$run_dir/club-game.err")"
    fi
    if [ -n "$why" ]; then
        echo "$why" >"$data/club-none.txt"
        return 0
    fi
    club_port=$(free_port)
    hub_port=$(free_port)
    start_club_broker
    (cd "$src" && exec "$py" -m firmware.cli hub --broker "mqtt://127.0.0.1:$club_port" --club "$club_name" \
        --state "$run_dir/hub.sqlite3" --host 127.0.0.1 --port "$hub_port" --night vm --players Ann,Bob \
        --tables "$club_table" --rounds 1 </dev/null >"$run_dir/hub.out" 2>"$run_dir/hub.err") &
    club_pids+=($!)
    if ! hub_said=$(hub_api 60 made); then
        echo "FAILED: club: the hub on the host did not make its round: $hub_said $(tail -n 2 "$run_dir/hub.err" | tr '\n' ' ')" >"$data/club-none.txt"
        club_port=""
        return 0
    fi
    printf 'club_broker=mqtt://%s:1883\nclub_name=%s\nclub_table=%s\n' "$club_address" "$club_name" "$club_table" >"$data/club.env"
    say "the club: Mosquitto on 127.0.0.1:$club_port, the hub on 127.0.0.1:$hub_port ($hub_said); $(wc -l <"$data/club-game.txt") record lines of it for the guest's board"
}

# The club for the power cuts: Mosquitto on this host as for the club check, the hub in the guest
# (the shipped cribbage-hub.service beside the board, so a cut takes both), and here a listener of the
# hub's "kept" words: the hub publishes one after each commit, so every word this host heard names what
# the hub's ledger must still hold after the cut. The listener writes each as it comes (one write(2) a
# line), so what it heard survives the kill of qemu; the guest gets it on the data disk. The broker is
# killed with each cut and starts again empty (persistence false): what the hub had not kept, the
# broker no longer queues for it either, so it can only come again from the board's ledger, as far
# back as the board's club watermark (LEDGER.club) says; and the guest pauses the hub (SIGSTOP) as
# each burst begins (one time in four) or a random 0 to 3 s into it, and the cut comes 0.5 to 8 s after
# the first acknowledgement, so that the hub is behind the board when the power goes.
start_power_club() {  # On the data disk: club.env; or club-none.txt, the guest's line saying why there is no club.
    local data=$run_dir/data py=${CRIBBAGE_VM_PYTHON:-$src/.venv/bin/python} why
    why=$(club_host_lacks "$py" "paho.mqtt.client" "listen to the hub's words")
    if [ -n "$why" ]; then
        echo "$why" >"$data/club-none.txt"
        return 0
    fi
    club_port=$(free_port)
    start_club_broker
    : >"$run_dir/kept-live.jsonl"
    "$py" - "$club_port" "$club_name" "$run_dir/kept-live.jsonl" >"$run_dir/kept.err" 2>&1 <<'PY' &
import os, sys, time
import paho.mqtt.client as mqtt
port, club, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
fd = os.open(out, os.O_WRONLY | os.O_APPEND)

def connected(client, userdata, flags, reason_code, properties):
    client.subscribe(f"cribbage/{club}/table/+/kept", qos=1)

def heard(client, userdata, message):
    if message.payload:  # an empty payload clears a retained word: nothing said
        os.write(fd, message.payload.replace(b"\n", b" ") + b"\n")

client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-boot-vm-kept-listener")
client.on_connect, client.on_message = connected, heard
client.reconnect_delay_set(0.1, 1)  # the broker is killed at each cut and back at once
for _ in range(100):  # Mosquitto starting
    try:
        client.connect("127.0.0.1", port)
        break
    except OSError:
        time.sleep(0.1)
client.loop_forever(retry_first_connection=True)
PY
    club_pids+=($!)
    printf 'club_broker=mqtt://%s:1883\nclub_name=%s\nclub_table=%s\n' "$club_address" "$club_name" "$club_table" >"$data/club.env"
    say "the club for the cuts: Mosquitto on 127.0.0.1:$club_port; the hub's kept words heard into kept-live.jsonl"
}

cut_club_broker() {  # The club's broker goes down with the power too (SIGKILL), and comes back empty.
    kill -KILL "$club_broker_pid" 2>/dev/null || true
    wait "$club_broker_pid" 2>/dev/null || true
    start_club_broker
}

hub_api() {  # SECONDS made|counted: until the hub's round is made, or its game counted; one line saying what the hub has.
    python3 - "$hub_port" "$1" "$2" "$run_dir/club-expected.txt" <<'EOF'
import json, sys, time, urllib.request
port, wait, wanted, expected = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]

def get(path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return json.load(reply)

deadline, rounds, problem = time.monotonic() + wait, None, "no answer"
while True:
    try:
        rounds = get("/api/club/rounds")
        if rounds["over"] if wanted == "counted" else rounds["round"] >= 1:
            break
    except (OSError, ValueError) as error:
        problem = f"no answer ({error})"
    if time.monotonic() > deadline:
        print(f"not {wanted} in {wait:.0f} s: " + (json.dumps(rounds)[:400] if rounds else problem))
        sys.exit(1)
    time.sleep(1)
pairings = [p for each in rounds["list"] for p in each["pairings"]]
if wanted == "made":
    print("; ".join(f"round 1 made, table {p['table']}: {' v '.join(p['players'])}" for p in pairings))
    sys.exit(0)
result = next((p["result"] for p in pairings if p["result"]), None)
if result is None:
    print(f"the night is over, but no pairing has a result: {json.dumps(rounds)[:400]}")
    sys.exit(1)
scores = sorted(result["scores"].items(), key=lambda item: -item[1])
standings = get("/api/club/standings")
said = (f"{' v '.join(f'{name} {score}' for name, score in scores)}, {result['status']}, table {result['table']}, "
        f"game {result['game']} of ledger {result['ledger']}; standings "
        + ", ".join(f"{s['player']} {s['game_points']} pts {s['wins']}-{s['losses']} {s['spread']:+d}" for s in standings))
want = dict(item.split("=") for item in open(expected).read().split())
if {name: str(score) for name, score in result["scores"].items()} != want:
    print(f"the hub counted {said}, but the game's record says {want}")
    sys.exit(1)
print(f"counted: {said}" + (f"; unpaired games: {rounds['unpaired']}" if rounds["unpaired"] else ""))
EOF
}

host_club() {  # The guest's board has played its game: the hub's word, one line ("counted: ..." or why not).
    local said seen
    if [ -z "$hub_port" ]; then
        echo "the host has no hub for this run"
        return
    fi
    said=$(hub_api "${CRIBBAGE_VM_CLUB_WAIT:-300}" counted) || said="$said; the hub's log: $(tail -n 3 "$run_dir/hub.err" | tr '\n' ' ')"
    seen=$(grep -o "New client connected from [^ ]* as cribbage-$club_name-table-$club_table" "$run_dir/mosquitto.log" | head -n 1)
    echo "$said; Mosquitto's log: ${seen:-no connection from the client cribbage-$club_name-table-$club_table}"
}

start_vm() {  # Boot a copy-on-write overlay of the image, with a second disk holding the working tree and the check.
    prepare_run
    start_club
    make_data_disk
    boot_vm
}

prepare_run() {  # The run's folder: the overlay disk (kept across the boots of a run) and the data disk's files.
    run_dir=$(mktemp -d "/var/tmp/cribbage-vm-run.XXXXXX")
    qemu-img create -q -f qcow2 -F raw -b "$cache/base.img" "$run_dir/disk.qcow2"
    copy_tree "$src" "$run_dir/data/src"
    cp "$src/tests/system/vm/agent.sh" "$src/tests/system/vm/driver.py" "$run_dir/data/"
    port=$(free_port)
}

make_data_disk() { mkfs.ext4 -q -F -d "$run_dir/data" "$run_dir/data.img" 256M >/dev/null; }

disk_cache=""  # qemu's default (writeback) for the checks; the power cuts set their own (see power_main)
console_log=$cache/console.log
boot_vm() {  # [ACKS-FILE]: start qemu on the run's disks; with ACKS-FILE, the guest's virtio port cribbage.ack is written there.
    local net="user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$port-10.0.2.15:8121" extra=()
    [ -z "$club_port" ] || net+=",guestfwd=tcp:$club_address:1883-cmd:socat STDIO TCP:127.0.0.1:$club_port"
    [ -z "${1:-}" ] || extra+=(-chardev "file,id=ack,path=$1" -device "virtserialport,chardev=ack,name=cribbage.ack")
    if [ -z "$power_cuts" ]; then
        extra+=(-serial "file:$console_log")
    else  # every boot's console in one file
        extra+=(-chardev "file,id=console,path=$console_log,append=on" -serial chardev:console)
    fi
    exec 3<&- 4<&-
    rm -f "$run_dir/ctl.in" "$run_dir/ctl.out"
    mkfifo "$run_dir/ctl.in" "$run_dir/ctl.out"
    say "booting $release $arch under qemu, $accel; the web view forwarded to 127.0.0.1:$port${club_port:+; the guest reaches the club broker at $club_address:1883}"
    booted_at=$(date +%s)
    "${qemu[@]}" -display none -no-reboot \
        -kernel "$cache/vmlinuz" -initrd "$cache/initrd.img" \
        -append "root=/dev/vda rw console=$console net.ifnames=0 systemd.show_status=0" \
        -drive "file=$run_dir/disk.qcow2,if=virtio,format=qcow2${disk_cache:+,cache=$disk_cache}" \
        -drive "file=$run_dir/data.img,if=virtio,format=raw,readonly=on" \
        -netdev "$net" \
        -device virtio-net-pci,netdev=net0 \
        -device virtio-serial-pci -chardev "pipe,id=ctl,path=$run_dir/ctl" \
        -device virtserialport,chardev=ctl,name=cribbage.ctl \
        "${extra[@]}" &
    qemu_pid=$!
    exec 3<>"$run_dir/ctl.out" 4<>"$run_dir/ctl.in"
}

ok=0 failed=0 skipped=0 booted=no
count() {  # A check's line: print it and count it.
    echo "$1"
    case $1 in
        ok:*) ok=$((ok + 1)) ;;
        FAILED:*) failed=$((failed + 1)) ;;
        skipped:*) skipped=$((skipped + 1)) ;;
    esac
}

host_web() {  # PATH: the web view, fetched from the host through the forwarded port.
    local answer
    if answer=$(python3 - "$port" "$1" <<'EOF'
import sys, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}{sys.argv[2]}"
with urllib.request.urlopen(url, timeout=10) as reply:
    body = reply.read()
    print(f"{url} answered {reply.status}, {len(body)} bytes, {reply.headers.get('content-type')}")
EOF
    ); then
        count "ok: the web view answers the host through qemu's forwarded port: $answer"
    else
        count "FAILED: the web view does not answer the host on 127.0.0.1:$port$1"
    fi
}

host_keep() {  # "NAME BASE64": a file the guest sends (gzip, then base64), kept as recordings/NAME in the cache.
    local name=${1%% *}
    [[ $name =~ ^[a-z0-9][a-z0-9.-]*$ ]] || { echo "  the guest sent a file named '$name': not kept"; return; }
    mkdir -p "$cache/recordings"
    if base64 -d <<<"${1#* }" | gunzip >"$cache/recordings/$name.part"; then
        mv "$cache/recordings/$name.part" "$cache/recordings/$name"
        echo "  kept $cache/recordings/$name ($(wc -c <"$cache/recordings/$name") bytes)"
    else
        rm -f "$cache/recordings/$name.part"
        echo "  the guest's $name did not decode: not kept"
    fi
}

guest_line() {  # The guest's next line (fd 3) into the caller's $line, its \r cut, and the time into its $heard;
    # status 1, with $lost saying why, once qemu has ended or the guest was silent for the caller's $silence s.
    while :; do
        line=""
        if IFS= read -r -t 5 -u 3 line; then
            heard=$(date +%s)
            line=${line%$'\r'}
            return 0
        fi
        if ! kill -0 "$qemu_pid" 2>/dev/null; then
            lost="the VM stopped before the check ended"
            return 1
        elif [ $(($(date +%s) - heard)) -ge "$silence" ]; then
            lost="no word from the guest for $silence s"
            return 1
        fi
    done
}

listen() {  # The guest's lines, and what only the host can check: the web view from outside, the power-off.
    local line heard lost powered_off="" silence=${CRIBBAGE_VM_SILENCE:-900}  # seconds without a line before giving up
    heard=$(date +%s)
    while :; do
        if ! guest_line; then
            count "FAILED: $lost (see $cache/console.log)"
            break
        fi
        case $line in
            "hello "*)
                booted=yes
                say "booted in $(($(date +%s) - booted_at)) s: ${line#hello }"
                ;;
            ok:* | FAILED:* | skipped:*) count "$line" ;;
            "host: web "*)
                host_web "${line#host: web }"
                echo "done" >&4
                ;;
            "host: club"*)
                echo "done $(host_club)" >&4
                ;;
            "host: keep "*)
                host_keep "${line#host: keep }"
                echo "done" >&4
                ;;
            "host: poweroff "*)
                powered_off=${line#host: poweroff }
                echo "done" >&4
                break
                ;;
            "end") break ;;
            *) echo "  $line" ;;
        esac
    done
    [ -n "$powered_off" ] || return 0
    # The guest asked for the power-off: qemu must end by itself, and its console say so.
    for _ in $(seq 120); do
        kill -0 "$qemu_pid" 2>/dev/null || break
        sleep 0.5
    done
    if kill -0 "$qemu_pid" 2>/dev/null; then
        count "FAILED: $powered_off, but the VM is still running 60 s later"
    elif grep -q 'reboot: Power down' "$cache/console.log"; then
        count "ok: $powered_off, and the VM powered off (qemu exited; its console: reboot: Power down)"
    else
        count "FAILED: $powered_off, but qemu ended without the kernel's 'reboot: Power down'"
    fi
}

# The power cuts (--power-cuts N): one overlay disk, booted N + 1 times. At each boot but the last, the guest
# starts a burst of entries from the board's unit and relays each entry the ledger acknowledged to the
# virtio port cribbage.ack, which qemu writes to a file on this host as it comes (a write(2) by qemu: it
# stays in this host's kernel whatever becomes of qemu). A random moment into the burst, qemu is killed
# with SIGKILL: the guest's power is cut, with no shutdown and no sync; what was in its memory (its page
# cache, anything SQLite had not synced) is gone, what it had written to its disk is what qemu had
# written to the overlay. The next boot gets the host's record of every entry acknowledged so far, from
# this host (on the data disk, never from the guest's own disk), and checks the ledger against it.
#
# The overlay's cache mode is cache=none: qemu opens it with O_DIRECT, so each write the guest's disk
# completes has left qemu for this host's disk, not a buffer of qemu's; and the guest is shown a disk with
# a volatile write cache, so its kernel must send a FLUSH for an fsync (SQLite's synchronous=FULL), on
# which qemu writes its own qcow2 metadata (the map of newly allocated clusters, which it otherwise keeps
# in memory) and syncs the file. What the guest flushed is kept across the kill; what it did not flush
# (a new cluster's mapping) may be lost, as from a real disk's cache. cache=unsafe, which ignores
# flushes, could lose flushed data to a kill; writeback (qemu's default) would keep it too but passes
# the guest's data through this host's page cache.
power_failed=""  # the first failure, after which the summary is a FAILED line
power_checked=0
power_heard=0
club_failed=""  # the first failure of the hub's or the club's check after a cut
power_club_checked=0  # their lines: two after each cut with the club on
power_listen() {  # K: the guest's lines of boot K, until it asks for the cut ("cut"), says "end", or is lost ("").
    local k=$1 line heard lost silence=${CRIBBAGE_VM_SILENCE:-900}
    power_next=""
    heard=$(date +%s)
    while :; do
        if ! guest_line; then
            power_failed=${power_failed:-"boot $k: $lost (see $console_log)"}
            return
        fi
        case $line in
            "hello "*)
                booted=yes
                say "boot $k: booted in $(($(date +%s) - booted_at)) s: ${line#hello }"
                ;;
            "power: $k hub "* | "power: $k club "*)
                line=${line#"power: $k "}
                echo "  after power cut $k, the ${line%% *}: ${line#* }"
                power_club_checked=$((power_club_checked + 1))
                [[ ${line#* } == ok:* ]] || club_failed=${club_failed:-"after power cut $k, the ${line%% *}: ${line#* FAILED: }"}
                ;;
            "power: $k "*)
                line=${line#"power: $k "}
                echo "  after power cut $k: $line"
                power_checked=$((power_checked + 1))
                [[ $line == ok:* ]] || power_failed=${power_failed:-"after power cut $k: ${line#FAILED: }"}
                ;;
            ok:* | FAILED:* | skipped:*) count "$line" ;;
            "host: cut $((k + 1))")
                power_next="cut"
                return
                ;;
            end)
                power_next="end"
                return
                ;;
            *) echo "  $line" ;;
        esac
    done
}

whole_lines() {  # FILE: its whole lines only: a line the kill cut short was not heard.
    head -n "$(tr -cd '\n' <"$1" | wc -c)" "$1"
}

power_cut() {  # K ACKS-FILE: once the guest's burst has been heard acknowledging, a random moment later, SIGKILL qemu.
    local k=$1 acks=$2 until delay lines first last
    until=$(($(date +%s) + ${CRIBBAGE_VM_SILENCE:-900}))
    while [ ! -s "$acks" ]; do
        if ! kill -0 "$qemu_pid" 2>/dev/null || [ "$(date +%s)" -ge "$until" ]; then
            power_failed=${power_failed:-"cut $k: no entry heard acknowledged from the burst (see $console_log)"}
            return 1
        fi
        sleep 0.05
    done
    # 0.1 to 4 s; with the club on, 0.5 to 8 s, so that the guest's pause of the hub comes first most times
    if [ -z "$club_port" ]; then
        delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.1 + 3.9 * r / 32767 }')
    else
        delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.5 + 7.5 * r / 32767 }')
    fi
    sleep "$delay"
    kill -KILL "$qemu_pid"
    wait "$qemu_pid" 2>/dev/null || true
    qemu_pid=""
    lines=$(whole_lines "$acks" | tee -a "$run_dir/data/power/acks.tsv" | wc -l)
    first=$(head -n 1 "$acks" | cut -f 1)
    last=$(head -n "$lines" "$acks" | tail -n 1 | cut -f 1)
    power_heard=$((power_heard + lines))
    say "power cut $k: qemu killed (SIGKILL) $delay s after the burst's first acknowledgement; $lines entries heard acknowledged (ids $first-$last), $power_heard in all"
    if [ -n "$club_port" ]; then  # every kept word heard so far, whole lines only, for the next boot's check
        cut_club_broker
        lines=$(whole_lines "$run_dir/kept-live.jsonl" | tee "$run_dir/data/power/kept.jsonl" | wc -l)
        say "power cut $k: $lines kept words heard from the hub so far; the club's Mosquitto killed too (SIGKILL) and started again empty"
    fi
}

power_main() {
    local k acks
    prepare_run
    disk_cache=none  # see above
    console_log=$cache/power-console.log
    : >"$console_log"
    mkdir -p "$run_dir/data/power"
    echo "$power_cuts" >"$run_dir/data/power/cuts"
    : >"$run_dir/data/power/acks.tsv"
    : >"$run_dir/data/power/kept.jsonl"
    start_power_club
    for ((k = 0; k <= power_cuts; k++)); do
        echo "$k" >"$run_dir/data/power/boot"
        make_data_disk
        acks=$run_dir/acks-$k.tsv
        : >"$acks"
        boot_vm "$acks"
        power_listen "$k"
        if [ "$power_next" = cut ]; then
            power_cut $((k + 1)) "$acks" || break
        else
            break
        fi
    done
    if [ -n "$qemu_pid" ]; then  # the last boot's checks are done: its disk is thrown away
        kill -KILL "$qemu_pid" 2>/dev/null || true
        wait "$qemu_pid" 2>/dev/null || true
        qemu_pid=""
    fi
    if [ -z "$power_failed" ] && [ "$power_checked" -ne "$power_cuts" ]; then
        power_failed="$power_checked of $power_cuts boots after a cut checked"
    fi
    if [ -z "$power_failed" ]; then
        count "ok: $power_cuts power cuts: 0 acknowledged entries lost, the ledger opened and passed its integrity check after every boot"
    else
        count "FAILED: $power_cuts power cuts: $power_failed"
    fi
    if [ -z "$club_port" ]; then
        count "$(cat "$run_dir/data/club-none.txt")"
    elif [ -z "$club_failed" ] && [ "$power_club_checked" -ne $((2 * power_cuts)) ]; then
        count "FAILED: the club through $power_cuts power cuts: $((power_club_checked / 2)) of $power_cuts boots after a cut had the hub's and the club's checks"
    elif [ -z "$club_failed" ]; then
        count "ok: the club through $power_cuts power cuts: after every boot the hub's ledger held all its kept words had acknowledged ($(wc -l <"$run_dir/data/power/kept.jsonl") words heard), and every entry the board had acknowledged reached it: the club watermark skipped none the hub lacked"
    else
        count "FAILED: the club through $power_cuts power cuts: $club_failed"
    fi
}

main() {
    local built=cached
    if [ ! -s "$cache/base.img" ] || [ "$(cat "$cache/recipe" 2>/dev/null)" != "$recipe" ]; then
        build_image
        built=cold
    else
        say "the cached image: $cache/base.img"
    fi
    if [ -n "$power_cuts" ]; then
        label+=" power cuts"
        power_main
    else
        start_vm
        listen
        wait "$qemu_pid" 2>/dev/null || true
        qemu_pid=""
    fi
    say "done in $(($(date +%s) - started)) s (the image $built, $accel)"
    [ "$booted" = yes ] || failed=$((failed + 1))
    echo "$label: $([ "$booted" = yes ] && echo booted || echo "not booted"), $ok ok, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}

# All of it in functions, read whole before anything runs: editing this file during a run changes nothing of that run.
main; exit $?
