#!/bin/bash
# The check inside the booted VM of tests/system/test-boot-vm.sh: never run on the host.
#
# The host puts this file, driver.py and the working tree (src/) on the guest's
# second disk, mounted at /mnt/vm; the guest's cribbage-vm-check.service runs
# it once the system is up. Check lines ("ok: ...", "FAILED: ...",
# "skipped: ...") and requests to the host ("host: ...", answered "done") go
# over the virtio port cribbage.ctl; everything else goes to the serial
# console, which the host keeps. The last check powers the VM off.
set -uo pipefail

vm=/mnt/vm
tree=/root/cribbage-board
venv=/opt/cribbage-board/venv
ledger=/var/lib/cribbage-board/ledger.sqlite3
driver=/usr/local/lib/cribbage-vm/driver.py
dropins=/etc/systemd/system/cribbage-board.service.d

for _ in $(seq 100); do
    [ -e /dev/virtio-ports/cribbage.ctl ] && break
    sleep 0.1
done
exec 3<>/dev/virtio-ports/cribbage.ctl

send() { echo "$*" >&3; echo "$*"; }
ok() { send "ok: $*"; }
failed() { send "FAILED: $*"; }
skipped() { send "skipped: $*"; }
note() { send "# $*"; }
ask_host() {  # REQUEST: the host does it and answers "done".
    send "host: $*"
    IFS= read -r -t 120 -u 3 _ || true
}
ask_host_for() {  # SECONDS REQUEST: as ask_host, and print the host's answer (after its "done").
    local answer=""
    echo "host: $2" >&3
    echo "host: $2" >&2
    IFS= read -r -t "$1" -u 3 answer || answer="done no answer from the host in $1 s"
    answer=${answer%$'\r'}
    echo "${answer#done }"
}
prop() { systemctl show -p "$2" --value "$1"; }
wait_for() {  # SECONDS COMMAND...: until COMMAND succeeds; status 1 if it never did.
    local until=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$until" ] || return 1
        sleep 0.2
    done
}
is_active() { [ "$(prop "$1" ActiveState)" = active ]; }
counted() { [ "$(prop cribbage-board NRestarts)" -gt "$1" ]; }  # systemd restarted the board (NRestarts past N)
restarted() { counted "$1" && is_active cribbage-board; }
journal() { journalctl -b -u cribbage-board --no-pager -o short-monotonic | tail -n 30; }
emulated() { [ "$(systemd-detect-virt 2>/dev/null)" = qemu ]; }  # qemu without KVM: every step many times slower
listening() { ss -Hltn "sport = :$1" | grep -q .; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
rows() {  # The ledger's action rows, read-only (as the web view reads): one a line.
    "$venv/bin/python" - "$ledger" <<'EOF'
import sqlite3, sys
conn = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=10)
for row in conn.execute("SELECT id, game_id, line FROM actions ORDER BY id"):
    print(*row, sep="\t")
EOF
}
grown() { [ "$(rows | wc -l)" -ge "$1" ]; }
integrity() {
    "$venv/bin/python" -c 'import sqlite3, sys; print(sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute("PRAGMA integrity_check").fetchone()[0])' "$ledger"
}
driver_says() {  # MODE ARGS...: the last line of driver.py MODE, "ok: ..." or "FAILED: ..." (anything else a failure).
    local said
    said=$("$venv/bin/python" "$driver" "$@" 2>&1 | tail -n 1)
    [[ $said == ok:* || $said == FAILED:* ]] || said="FAILED: driver.py $1 said: $said"
    echo "$said"
}
use_driver() {  # MODE: the board's unit runs driver.py MODE (a drop-in over the mock board's ExecStart); none: the mock board.
    rm -f "$dropins/60-driver.conf"
    if [ "$1" != none ]; then
        printf '# test-boot-vm.sh: the mock controls driven (%s)\n[Service]\nExecStart=\nExecStart=%s/bin/python %s %s\n' \
            "$1" "$venv" "$driver" "$1" >"$dropins/60-driver.conf"
    fi
    systemctl daemon-reload
}
board_sandbox() {  # COMMAND...: run as the board's unit runs (its user, groups and every hardening line), and wait.
    local line props=()
    while IFS= read -r line; do
        props+=(-p "$line")
    done < <(sed -n '/^\[Service\]/,/^\[/p' /etc/systemd/system/cribbage-board.service | grep -E '^[A-Za-z]+=' |
        grep -vE '^(Type|NotifyAccess|ExecStart|WatchdogSec|TimeoutStartSec|TimeoutStopSec|Restart|RestartSec|StateDirectory|StateDirectoryMode|ConfigurationDirectory)=')
    systemd-run --quiet --wait --pipe --collect -p WorkingDirectory=/ "${props[@]}" "$@"
}
dump() { echo "--- $1"; sed 's/^/    /' "$2"; }
security_of() { systemd-analyze security "$1" 2>&1 | grep 'Overall exposure level' | sed 's/.*: //'; }  # UNIT: "0.9 SAFE"
journal_mark() { journalctl -b -n 1 --show-cursor -o cat -q 2>/dev/null | sed -n 's/^-- cursor: //p'; }
unit_log() {  # The board's unit in the journal since the mark (the unit's own words, and systemd's about it).
    journalctl -b -u cribbage-board --no-pager -o cat ${mark:+--after-cursor="$mark"}
}
unit_says() { unit_log | grep -q -- "$1"; }  # PATTERN

send "hello $(uname -r), $(systemctl --version | head -n 1), PID 1 is $(cat /proc/1/comm), system $(systemctl is-system-running --wait 2>/dev/null)"
systemctl --failed --no-legend --plain | sed 's/^/failed unit: /'

# 1. The install, for real on a booted systemd, the board on the mock backend.
install_board() {
    cp -a "$vm/src" "$tree"
    install -D -m 0644 "$vm/driver.py" "$driver"
    mkdir -p "$dropins"
    cat >"$dropins/50-mock.conf" <<EOF
# test-boot-vm.sh: the VM has no LED strip, OLED or buttons: the board runs on the mock backend.
[Service]
ExecStart=
ExecStart=$venv/bin/cribbage-board --backend mock --headless
EOF
    note "the board runs on the mock backend through the drop-in $dropins/50-mock.conf (the VM has no strip, OLED or buttons; no device is faked)"
    echo "--- install.sh"
    if CRIBBAGE_INSTALL_TARGET=vm bash "$tree/systemd/install.sh" 2>&1 | tee /root/install-1.log | sed 's/^/    /'; then
        ok "systemd/install.sh ran on the booted guest (CRIBBAGE_INSTALL_TARGET=vm: $(grep -c '^skipped: ' /root/install-1.log) Pi-only steps skipped, systemctl daemon-reload, enable and restart for real)"
    else
        failed "systemd/install.sh exited non-zero on the booted guest: $(tail -n 1 /root/install-1.log)"
    fi
    grep '^skipped: ' /root/install-1.log | sed 's/^/# install.sh /' >&3
}

club_config_on() {  # CONFIG: its [club] set to the host's club ($club_broker, $club_name, $club_table).
    sed -i -e '/^\[club\]/,/^\[/{' -e "s|^broker = .*|broker = \"$club_broker\"|" -e "s|^name = .*|name = \"$club_name\"|" \
        -e "s|^table = .*|table = \"$club_table\"|" -e '}' "$1"
}

# The power cuts (test-boot-vm.sh --power-cuts N) instead of the checks below. This agent runs at every
# boot of the same disk; the host rewrites the data disk before each boot: power/cuts (N), power/boot
# (K: 0 at the first boot, else the boot after the Kth cut) and power/acks.tsv (every entry the host
# heard acknowledged before the cuts so far, as driver.py burst wrote them). After a cut: the board's
# unit active (the installed unit with the mock drop-in, on the ledger the cut left), then driver.py
# power-check against the host's record, one line to the host ("power: K ok: ..." or "power: K FAILED:
# ..."). Before a cut: a burst of entries from the board's unit, each acknowledged entry relayed live to
# the host's virtio port cribbage.ack; then the host cuts the power whenever it likes.
power_acks=/run/cribbage-vm-acks  # the FIFO driver.py burst writes to (the unit's /run is read-only, a FIFO in it still opens)
hub_env=/etc/cribbage-board/hub.env
power_club=no  # the club on for the cuts: the host put club.env on the data disk
power_burst() {
    local runtime=/run/systemd/system/cribbage-board.service.d  # a runtime drop-in: the power cut takes it away
    mkfifo -m 0600 "$power_acks" && chown cribbage:cribbage "$power_acks"
    # The relay, as root: the only opener of the port, a line passed on as soon as it is written.
    (while :; do cat "$power_acks"; done) >/dev/virtio-ports/cribbage.ack &
    mkdir -p "$runtime"
    printf '# test-boot-vm.sh --power-cuts: the mock controls driven (burst), until the power goes\n[Service]\nExecStart=\nExecStart=%s/bin/python %s burst\n' \
        "$venv" "$driver" >"$runtime/60-driver.conf"
    touch /run/cribbage-vm-burst
    systemctl daemon-reload
    systemctl restart cribbage-board
    if [ "$power_club" = yes ]; then  # the hub falls behind: the board's entries wait for it at the cut
        local pause=$((RANDOM % 4))  # 0: paused as the burst begins; else a random 0 to 3 s into it
        [ "$pause" -eq 0 ] && systemctl kill -s STOP cribbage-hub
        if [ "$pause" -gt 0 ]; then
            (sleep "$((pause - 1)).$((RANDOM % 10))" && systemctl kill -s STOP cribbage-hub) &
        fi
        note "the hub paused (SIGSTOP) $([ "$pause" -eq 0 ] && echo "as the burst began" || echo "about $((pause - 1)) s into it")"
    fi
}
# The club for the cuts, set up once at the first boot as a club sets it up: the board's [club] and
# club-network's drop-in (as install.sh runs it), and the hub on this same machine as the shipped
# cribbage-hub.service (its header's steps), both through the host's Mosquitto (qemu's guestfwd). A
# cut then takes the board and the hub down at once.
power_club_setup() {
    local config=/etc/cribbage-board/config.toml said
    # shellcheck source=/dev/null  # club_broker, club_name, club_table: the host's
    . "$vm/club.env"
    club_config_on "$config"
    said=$("$venv/bin/cribbage-board" club-network --config "$config" 2>&1) ||
        send "power: 0 FAILED: club-network: $said"
    echo "    club-network: $said"
    install -m 0644 "$tree/systemd/cribbage-hub.service" /etc/systemd/system/
    install -m 0644 /dev/null "$hub_env"
    printf 'CLUB_BROKER=%s\nCLUB_NAME=%s\n' "$club_broker" "$club_name" >"$hub_env"
    install -m 0600 /dev/null /etc/cribbage-board/hub.password
    echo "the host's broker is anonymous" >/etc/cribbage-board/hub.password
    systemctl daemon-reload
    systemctl enable --now cribbage-hub 2>&1 | sed 's/^/    /'
    systemctl restart cribbage-board
    note "the club for the cuts: the board's [club] $club_broker club $club_name table $club_table, club-network's drop-in; cribbage-hub.service on this machine"
}
power_club_checks() {  # K: after the Kth cut, the hub's ledger against its words, then the board's entries reaching it.
    local k=$1 check
    if ! wait_for 300 is_active cribbage-hub; then
        send "power: $k FAILED: cribbage-hub is not active within 300 s: $(prop cribbage-hub ActiveState)/$(prop cribbage-hub SubState), $(prop cribbage-hub Result)"
        journalctl -b -u cribbage-hub --no-pager | tail -n 20
        return
    fi
    wait_for 120 test -e /var/lib/cribbage-hub/hub.sqlite3 || true
    check=$(driver_says hub-check "$vm/power/kept.jsonl")
    send "power: $k hub ${check%%: *}: cribbage-hub active; ${check#*: }"
    check=$(driver_says club-sync "$vm/power/acks.tsv" 600)
    send "power: $k club ${check%%: *}: ${check#*: }"
}
power_boot() {
    local cuts boot status check
    cuts=$(cat "$vm/power/cuts")
    boot=$(cat "$vm/power/boot")
    [ ! -s "$vm/club.env" ] || power_club=yes
    if [ "$boot" -eq 0 ]; then
        install_board
        if [ "$power_club" = yes ]; then
            power_club_setup
        else
            send "$(cat "$vm/club-none.txt" 2>/dev/null || echo "skipped: club: the host put no club on the data disk")"
        fi
        sync  # the set-up is the test's, not the board's: on the disk before the first cut
    fi
    if wait_for 300 is_active cribbage-board; then
        status=$(prop cribbage-board StatusText)
        if [ "$boot" -gt 0 ]; then
            if [[ $status != "board ready"* ]]; then
                send "power: $boot FAILED: cribbage-board is active but its StatusText is '$status', not the board's READY status"
            else
                check=$(driver_says power-check "$vm/power/acks.tsv")
                send "power: $boot ${check%%: *}: cribbage-board active ($status; the guest up $(cut -d ' ' -f 1 /proc/uptime) s); ${check#*: }"
            fi
            [ "$power_club" = no ] || power_club_checks "$boot"
        fi
    else
        send "power: $boot FAILED: cribbage-board is not active within 300 s: $(prop cribbage-board ActiveState)/$(prop cribbage-board SubState), $(prop cribbage-board Result)"
        journal
    fi
    if [ "$boot" -lt "$cuts" ]; then
        power_burst
        send "host: cut $((boot + 1))"
        sleep infinity
    fi
    send end
}
if [ -s "$vm/power/cuts" ]; then
    power_boot
    exit 0
fi
install_board

# 2. Both units up, the board's READY=1 reached.
if wait_for 90 is_active cribbage-board && wait_for 30 is_active cribbage-board-web && wait_for 30 listening 8121; then
    status=$(prop cribbage-board StatusText)
    if [[ $status == "board ready"* ]]; then
        ok "cribbage-board ActiveState=active, READY=1 reached (StatusText=$status); cribbage-board-web active, listening on 8121"
    else
        failed "cribbage-board is active but its StatusText is '$status', not the board's READY status"
    fi
else
    failed "the units did not come up: cribbage-board $(prop cribbage-board ActiveState), cribbage-board-web $(prop cribbage-board-web ActiveState)"
    journalctl -b -u cribbage-board -u cribbage-board-web --no-pager | tail -n 40
fi

# 3. A paired phone's entry, relayed by the installed web unit (as cribbage-web) to the installed board
# unit (as cribbage) over the board's socket beside the ledger: entered once, marked as the phone's, the
# same request id again entering nothing; a request without a paired session refused (403), and with
# the board stopped the phone told so (503). The session is made here, its hash written where the
# board keeps paired phones: pairing takes a code from the OLED, which the VM has none of.
phone_post() {  # SESSION TOKEN ID: a phone's POST /api/phone/entry (peg 2) to the web view, as "STATUS BODY";
    # no cookies without SESSION, no token header without TOKEN.
    local args=(-s -m 30 -o /root/phone-answer.json -w '%{http_code}' -H 'Content-Type: application/json') code
    [ -z "$1" ] || args+=(-b "cribbage_phone=$1; cribbage_seat=0")
    [ -z "$2" ] || args+=(-H "X-Phone-Token: $2")
    : >/root/phone-answer.json
    code=$(curl "${args[@]}" --data "{\"id\": \"$3\", \"act\": \"peg\", \"points\": 2}" http://127.0.0.1:8121/api/phone/entry)
    echo "$code $(cat /root/phone-answer.json)"
}
phone_token() { "$venv/bin/python" -c 'import sys; from firmware.wire.relay import header_token; print(header_token(sys.argv[1]))' "$1"; }
game_export() {  # The current game as the ledger exports it (the project's read-only LedgerReader), one line each.
    "$venv/bin/python" - "$ledger" <<'PY'
import sys
from pathlib import Path
from ledger.reader import LedgerReader
reader = LedgerReader(Path(sys.argv[1]))
try:
    print("\n".join(reader.export()))
finally:
    reader.close()
PY
}
phone_check() {
    local sessions=$ledger.phones.json socket=$ledger.phones session token stranger id problems=()
    local away paired again unpaired unknown before after via socket_mode sessions_mode board_user web_user
    session=vm-phone-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    stranger=vm-stranger-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    token=$(phone_token "$session")
    id=vm-$(date +%s%N)
    systemctl stop cribbage-board
    away=$(phone_post "$session" "$token" "$id-away")
    install -o cribbage -g cribbage -m 0600 /dev/null "$sessions"
    printf '{"sessions": {"%s": 0}}\n' "$(printf '%s' "$session" | sha256sum | cut -d ' ' -f 1)" >"$sessions"
    systemctl start cribbage-board
    wait_for 60 test -S "$socket" || problems+=("no socket at $socket 60 s after the board's start")
    socket_mode=$(stat -c '%a %U:%G' "$socket" 2>&1)
    sessions_mode=$(stat -c '%a %U:%G' "$sessions" 2>&1)
    board_user=$(ps -o user:32= -p "$(prop cribbage-board MainPID)")
    web_user=$(ps -o user:32= -p "$(prop cribbage-board-web MainPID)")
    before=$(rows | wc -l)
    paired=$(phone_post "$session" "$token" "$id")
    again=$(phone_post "$session" "$token" "$id")
    unpaired=$(phone_post "" "" "$id-unpaired")
    unknown=$(phone_post "$stranger" "$(phone_token "$stranger")" "$id-unknown")
    after=$(rows | wc -l)
    game_export >/root/phone-export.txt 2>&1
    dump "the game after the phone's entry" /root/phone-export.txt
    via=$(grep -c '# via phone' /root/phone-export.txt)
    [ "$socket_mode" = "660 cribbage:cribbage" ] || problems+=("the board's socket is $socket_mode, not 660 cribbage:cribbage")
    [ "$sessions_mode" = "600 cribbage:cribbage" ] || problems+=("the sessions file is $sessions_mode, not 600 cribbage:cribbage")
    [ "$board_user" = cribbage ] && [ "$web_user" = cribbage-web ] ||
        problems+=("the board runs as '$board_user', the web view as '$web_user'")
    [[ $away == 503\ * ]] || problems+=("with the board stopped: $away (503 wanted)")
    [[ $paired == 200\ * && $paired == *'"ok":true'* ]] || problems+=("the paired phone's entry: $paired")
    [[ $again == 200\ * && $again == *'"again":true'* ]] || problems+=("the same request again: $again")
    [[ $unpaired == 403\ * ]] || problems+=("without a session: $unpaired (403 wanted)")
    [[ $unknown == 403\ * && $unknown == *'"unpaired":true'* ]] ||
        problems+=("a session the board never paired, with its token: $unknown (403 from the board wanted)")
    [ $((after - before)) -eq 1 ] || problems+=("the ledger went from $before to $after entries (one more wanted)")
    [ "$via" -eq 1 ] && grep -q '^peg .*# via phone' /root/phone-export.txt ||
        problems+=("$via lines of the game's export marked '# via phone' (one peg wanted)")
    if [ ${#problems[@]} -eq 0 ]; then
        ok "a paired phone's entry (curl to 127.0.0.1:8121, its cookie and X-Phone-Token) relayed by cribbage-board-web (as $web_user) to cribbage-board (as $board_user) over $socket ($socket_mode): ${paired#200 }; the ledger holds it once ($before -> $after entries), exported as '$(grep '# via phone' /root/phone-export.txt)'; the same id again: ${again%% *}, nothing more entered; no cookie: ${unpaired%% *}; a session never paired: ${unknown%% *} (the board's answer); the board stopped: ${away%% *}"
    else
        failed "a paired phone's entry through the installed units: $(printf '%s; ' "${problems[@]}")"
        journalctl -b -u cribbage-board -u cribbage-board-web --no-pager | tail -n 30
    fi
    # The checks below count on the unit's start limit as install.sh left it: these starts are this check's.
    systemctl reset-failed cribbage-board
}
phone_check

# 4. One writer: the console is refused while the service holds the ledger.
before=$(rows | md5sum)
refusal=$(printf 'game six-card seats=Alice,Bob\npeg Bob 2\nquit\n' |
    timeout 60 runuser -u cribbage -- "$venv/bin/cribbage-board" console --state "$ledger" 2>&1)
code=$?
if [ $code -ne 0 ] && [ "$(rows | md5sum)" = "$before" ]; then
    ok "the console (as cribbage, the ledger's owner) is refused while the service holds the ledger, exit $code: $(echo "$refusal" | grep -v '^$' | tail -n 1)"
else
    failed "the console was not refused while the service runs (exit $code): $(echo "$refusal" | tail -n 3 | tr '\n' ' ')"
fi

# 5. kill -9 during a burst of entries: every entry the ledger had acknowledged is there after the restart.
systemctl stop cribbage-board
use_driver burst
touch /run/cribbage-vm-burst
systemctl start cribbage-board
start_rows=$(rows | wc -l)
if wait_for 60 grown $((start_rows + 50)); then
    restarts=$(prop cribbage-board NRestarts)
    rows >/root/acknowledged.tsv
    systemctl kill -s KILL cribbage-board
    killed=$(now)
    rm -f /run/cribbage-vm-burst
    if wait_for 60 restarted "$restarts"; then
        took=$(since "$killed")
        rows >/root/after.tsv
        missing=$(comm -23 <(sort /root/acknowledged.tsv) <(sort /root/after.tsv) | wc -l)
        check=$(integrity)
        if [ "$missing" -eq 0 ] && [ "$check" = ok ]; then
            ok "systemctl kill -s KILL during a burst on the mock controls: all $(wc -l </root/acknowledged.tsv) entries the ledger had acknowledged are there after the automatic restart ($(wc -l </root/after.tsv) now; restarted in $took s, NRestarts $restarts -> $(prop cribbage-board NRestarts); integrity_check ok)"
        else
            failed "after kill -9: $missing acknowledged entries missing, integrity_check $check"
        fi
    else
        failed "systemd did not restart the board within 60 s of kill -9 ($(prop cribbage-board ActiveState), NRestarts $(prop cribbage-board NRestarts))"
        journal
    fi
else
    failed "the burst did not write 50 entries in 60 s ($(rows | wc -l) rows)"
    journal
fi
rm -f /run/cribbage-vm-burst
use_driver none
systemctl restart cribbage-board
wait_for 60 is_active cribbage-board || failed "the mock board did not come back after the kill check"

# 6. The watchdog: a stopped (SIGSTOP) board is restarted within WatchdogSec and a margin.
watchdog=$(sed -n 's/^WatchdogSec=//p' /etc/systemd/system/cribbage-board.service)
margin=15
restarts=$(prop cribbage-board NRestarts)
pid=$(prop cribbage-board MainPID)
systemctl kill -s STOP cribbage-board
stopped=$(now)
if wait_for $((watchdog + margin)) counted "$restarts"; then
    took=$(since "$stopped")
    why=$(journalctl -b -u cribbage-board --no-pager -o cat | grep -m 1 -i 'watchdog timeout' || echo "no watchdog line in the journal")
    if wait_for 60 is_active cribbage-board; then
        ok "SIGSTOP of the board (pid $pid): restarted by the watchdog $took s after the stop (WatchdogSec=$watchdog, margin $margin s), active again (pid $(prop cribbage-board MainPID)) $(since "$stopped") s after it: $why"
    else
        failed "the watchdog restarted the stopped board ($why), but it is not active again: $(prop cribbage-board ActiveState)"
    fi
else
    failed "the stopped board was not restarted within $((watchdog + margin)) s (WatchdogSec=$watchdog): $(prop cribbage-board ActiveState)/$(prop cribbage-board SubState)"
    journal
fi
wait_for 60 is_active cribbage-board || true

# 7. systemctl stop returns within 1 s. The checks above started the unit often (the installs, the
# drivers, kill -9 and the watchdog's restarts): its StartLimitBurst=5 in StartLimitIntervalSec=120
# may be spent, and a start here refused at once (seen on Trixie); that counter is the checks', not
# the board's, so it is reset first.
systemctl reset-failed cribbage-board
began=$(now)
systemctl stop cribbage-board
took=$(since "$began")
ended="$(prop cribbage-board Result), exit status $(prop cribbage-board ExecMainStatus)"
began=$(now)
started=0
systemctl start cribbage-board || started=$?  # Type=notify: returns at READY=1
start=$(since "$began")
wait_for 60 is_active cribbage-board ||
    failed "the board did not start again after the stop (systemctl start: exit $started after $start s; $(prop cribbage-board ActiveState)/$(prop cribbage-board SubState), $(prop cribbage-board Result))"
if awk -v t="$took" 'BEGIN { exit !(t < 1.0) }'; then
    ok "systemctl stop cribbage-board returned in $took s ($ended; systemctl start took $start s to READY=1)"
elif emulated; then
    skipped "systemctl stop within 1 s: this guest runs under software emulation (no usable KVM on this host), where systemctl start took $start s to READY=1; the stop took $took s ($ended)"
else
    failed "systemctl stop cribbage-board took $took s (1 s at most; $ended)"
    journal
fi

# 8. systemd-analyze security, live.
scores=()
worst=0
for unit in cribbage-board cribbage-board-web; do
    line=$(systemd-analyze security "$unit.service" 2>&1 | grep 'Overall exposure level' | sed 's/.*: //')
    scores+=("$unit $line")
    score=${line%% *}
    awk -v s="${score:-99}" 'BEGIN { exit !(s < 4.0) }' || worst=1
done
if [ $worst -eq 0 ]; then
    ok "systemd-analyze security on the booted guest: ${scores[0]}; ${scores[1]}"
else
    failed "systemd-analyze security: ${scores[0]}; ${scores[1]} (4.0 or more is MEDIUM or worse)"
fi

# 9. A second install.sh changes nothing.
state() {
    md5sum /etc/systemd/system/cribbage-board.service /etc/systemd/system/cribbage-board-web.service \
        /etc/polkit-1/rules.d/50-cribbage-board.rules /etc/cribbage-board/config.toml \
        /etc/modules-load.d/cribbage-board.conf /etc/passwd /etc/group /etc/shadow /etc/gshadow "$dropins"/*.conf
    find /etc/systemd/system -name 'cribbage-board*' -printf '%p -> %l\n' | sort
    "$venv/bin/pip" freeze --all 2>/dev/null | grep -v '^cribbage-board'
    "$venv/bin/cribbage-board" --version
}
state >/root/state-1.txt
rows_before=$(rows | md5sum)
echo "--- install.sh, again"
if CRIBBAGE_INSTALL_TARGET=vm bash "$tree/systemd/install.sh" 2>&1 | tee /root/install-2.log | sed 's/^/    /'; then
    state >/root/state-2.txt
    if ! diff -u /root/state-1.txt /root/state-2.txt >/root/state.diff; then
        failed "the second install.sh changed: $(grep '^[-+][^-+]' /root/state.diff | head -n 4 | tr '\n' ' ')"
    elif ! wait_for 60 is_active cribbage-board || ! wait_for 30 is_active cribbage-board-web; then
        failed "after the second install.sh the units are not both active"
    elif [ "$(rows | md5sum)" != "$rows_before" ]; then
        failed "the second install.sh changed the ledger"
    else
        ok "a second install.sh changed nothing ($(wc -l </root/state-1.txt) files, links and package versions the same, the ledger the same), both units active again"
    fi
else
    failed "the second install.sh exited non-zero: $(tail -n 1 /root/install-2.log)"
fi

# 10. The web view, from the host through qemu's forwarded port.
wait_for 30 listening 8121 || true
ask_host "web /"

# 11. polkit refuses the power-off to another user and to the web view's user.
refused=()
for user in nobody cribbage-web; do
    said=$(systemd-run --quiet --wait --pipe --collect --uid="$user" /usr/bin/systemctl --no-ask-password poweroff 2>&1)
    code=$?
    if [ $code -ne 0 ] && grep -qiE 'access denied|authentication required|not authorized' <<<"$said"; then
        refused+=("$user ($(echo "$said" | tail -n 1))")
    else
        failed "power-off as $user was not refused by polkit (exit $code): $said"
    fi
done
[ ${#refused[@]} -ne 2 ] || ok "polkit refuses the power-off to ${refused[0]} and ${refused[1]}"

# 12. The kernel's own GPIO, I2C and SPI, each in the board unit's own sandbox (the board stopped:
# the runtime folder is the unit's): gpio-sim, and the I2C and SPI recorders (tests/system/vm/kmod), built
# for this kernel with the image. Their device nodes get the groups and modes Raspberry Pi OS's udev
# rules give them (gpio, i2c, spi; 0660).
systemctl stop cribbage-board
"$venv/bin/pip" install -q lgpio spidev >/root/lgpio.log 2>&1 || note "pip install lgpio spidev: $(tail -n 1 /root/lgpio.log)"
if ! "$venv/bin/python" -c 'import lgpio' 2>/dev/null; then
    failed "lgpio's edge FIFO: lgpio is not installable in the guest's venv: $(tail -n 1 /root/lgpio.log)"
elif board_sandbox "$venv/bin/python" -c 'import lgpio, os
thread = lgpio._callback_thread()  # what gpiozero'"'"'s lgpio pins start for their edge callbacks
print(f"lgpio made its edge FIFO .lgd-nfy{thread._notify} in {os.getcwd()}")' >/root/lgpio-fifo.log 2>&1; then
    ok "in the board unit's sandbox (/ read-only) $(tail -n 1 /root/lgpio-fifo.log) (LG_WD, the unit's RuntimeDirectory)"
else
    failed "lgpio's edge FIFO in the board unit's sandbox, which gpiozero's lgpio pins need for every button: $(tail -n 1 /root/lgpio-fifo.log)"
fi
i2c_log=/sys/kernel/debug/cribbage_i2c_rec/transfers
spi_log=/sys/kernel/debug/cribbage_spi_rec/transfers
# shellcheck source=/dev/null  # the guest's own
release=$(. /etc/os-release && echo "$VERSION_CODENAME")
keep() {  # NAME FILE: the file to the host, which keeps it in the cache's recordings/ folder.
    ask_host "keep $1 $(gzip -9c "$2" | base64 -w 0)"
}
devices_up() {  # gpio-sim's chip (28 lines, pulled up: buttons released, encoder at rest), /dev/i2c-1, /dev/spidev0.0.
    local problem=""
    modprobe gpio-sim 2>/root/modprobe.log || problem+="gpio-sim: $(tail -n 1 /root/modprobe.log); "
    modprobe i2c-dev
    modprobe cribbage_i2c_rec bus=1 2>/root/modprobe.log || problem+="cribbage_i2c_rec: $(tail -n 1 /root/modprobe.log); "
    modprobe cribbage_spi_rec bus=0 2>/root/modprobe.log || problem+="cribbage_spi_rec: $(tail -n 1 /root/modprobe.log); "
    [ -z "$problem" ] || { echo "$problem"; return 1; }
    sim=/sys/kernel/config/gpio-sim/cribbage
    mkdir -p "$sim/gpio-bank0"
    echo 28 >"$sim/gpio-bank0/num_lines"
    echo 1 >"$sim/live"
    chip=$(cat "$sim/gpio-bank0/chip_name")
    lines=/sys/devices/platform/$(cat "$sim/dev_name")/$chip
    for n in $(seq 0 27); do echo pull-up >"$lines/sim_gpio$n/pull"; done
    echo spidev >/sys/bus/spi/devices/spi0.0/driver_override
    echo spi0.0 >/sys/bus/spi/drivers/spidev/bind
    udevadm settle
    chgrp gpio "/dev/$chip" && chmod 0660 "/dev/$chip"
    chgrp i2c /dev/i2c-1 && chmod 0660 /dev/i2c-1
    chgrp spi /dev/spidev0.0 && chmod 0660 /dev/spidev0.0
}
pull() { echo "$2" >"$lines/sim_gpio$1/pull"; sleep 0.08; }  # LINE pull-up|pull-down: as a button or the encoder would
# gpiozero knows the Pi by the revision in /proc/device-tree or /proc/cpuinfo: in the board's sandbox this
# guest's /proc/cpuinfo gets the line a Pi 3 Model B's kernel writes (BindReadOnlyPaths), nothing else.
pi_cpuinfo=/run/cribbage-vm-cpuinfo
{ cat /proc/cpuinfo; printf 'Hardware\t: BCM2835\nRevision\t: a02082\nSerial\t\t: 00000000c1bba6e0\nModel\t\t: Raspberry Pi 3 Model B Rev 1.2\n'; } >"$pi_cpuinfo"
as_pi=(-p "BindReadOnlyPaths=$pi_cpuinfo:/proc/cpuinfo")
chip="" lines=""
if ! devices_up >/root/devices.log 2>&1; then
    failed "the kernel's devices: $(tail -n 1 /root/devices.log)"
else
    note "the kernel's devices: /dev/$chip (gpio-sim, 28 lines), /dev/i2c-1 (the I2C recorder, 0x3C), /dev/spidev0.0 (spidev on the SPI recorder), spidev.bufsiz $(cat /sys/module/spidev/parameters/bufsiz)"

    # GPIO: the board's Controls on gpio-sim through gpiozero's lgpio pin factory.
    board_sandbox "${as_pi[@]}" "$venv/bin/python" "$driver" gpio "${chip#gpiochip}" 4 >/root/gpio.log 2>&1 &
    reader=$!
    wait_for 30 grep -q '^reading' /root/gpio.log
    sleep 0.3
    pull 5 pull-down; pull 5 pull-up                                             # red: a click
    pull 17 pull-down; pull 27 pull-down; pull 17 pull-up; pull 27 pull-up       # one clockwise detent
    wait "$reader"
    dump "gpio-sim" /root/gpio.log
    line=$(grep -E '^(ok|FAILED): ' /root/gpio.log | tail -n 1)
    if [[ $line == ok:* ]]; then
        send "$line (in the board unit's sandbox as cribbage, a Pi 3's revision in its /proc/cpuinfo)"
    else
        failed "gpio-sim: ${line:-$(tail -n 1 /root/gpio.log)}"
    fi

    # I2C: luma's ssd1306 through smbus2 on the recorder; the frame rebuilt as the chip would.
    echo >"$i2c_log"
    board_sandbox "$venv/bin/python" "$driver" oled 1 >/root/oled.log 2>&1
    code=$?
    cp "$i2c_log" /root/i2c-oled.txt
    cut -c1-160 /root/oled.log >/root/oled-short.log
    dump "oled" /root/oled-short.log
    if [ $code -ne 0 ]; then
        failed "the OLED through luma on /dev/i2c-1 (exit $code): $(tail -n 1 /root/oled.log)"
    else
        sed -n 's/^drawn: //p' /root/oled.log |
            "$venv/bin/python" -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))' >/root/oled-drawn.pbm
        send "$(driver_says check-oled /root/i2c-oled.txt /root/oled-drawn.pbm)"
        keep "i2c-oled-$release.txt" /root/i2c-oled.txt
        keep "i2c-oled-$release.pbm" /root/oled-drawn.pbm
    fi

    # SPI: the board's SpiStrip through spidev on the recorder; the colours read as a WS2812 would.
    echo >"$spi_log"
    board_sandbox "$venv/bin/python" "$driver" strip >/root/strip.log 2>&1
    code=$?
    cp "$spi_log" /root/spi-strip.txt
    cut -c1-160 /root/strip.log >/root/strip-short.log
    dump "strip" /root/strip-short.log
    if [ $code -ne 0 ]; then
        failed "the LED strip through spidev on /dev/spidev0.0 (exit $code): $(tail -n 1 /root/strip.log)"
    else
        send "$(driver_says check-strip /root/spi-strip.txt /root/strip.log)"
        sed -n 's/^meant: //p' /root/strip.log >/root/spi-strip.json
        keep "spi-strip-$release.txt" /root/spi-strip.txt
        keep "spi-strip-$release.json" /root/spi-strip.json
    fi
    echo >"$spi_log"
    board_sandbox "$venv/bin/python" "$driver" oversize >/root/oversize.log 2>&1
    code=$?
    cp "$spi_log" /root/spi-oversize.txt
    dump "oversize" /root/oversize.log
    if [ $code -ne 0 ]; then
        failed "a frame larger than spidev.bufsiz (exit $code): $(tail -n 1 /root/oversize.log)"
    else
        send "$(driver_says check-oversize /root/spi-oversize.txt /root/oversize.log)"
    fi

    # The whole board: the installed unit on its real backend (lgpio, luma, spidev) as shipped, but for
    # the Pi's revision line in its /proc/cpuinfo (above). One
    # clockwise detent, then a click of red, on the gpio-sim lines: red pegs 1. The OLED and LED frames
    # the recorders took are then held against the mock board's after the same actions from the same
    # ledger.
    printf '# test-boot-vm.sh: the real backend, on gpio-sim and the I2C and SPI recorders.\n[Service]\nExecStart=\nExecStart=%s/bin/cribbage-board --backend real\nBindReadOnlyPaths=%s:/proc/cpuinfo\n' \
        "$venv" "$pi_cpuinfo" >"$dropins/70-real.conf"
    systemctl daemon-reload
    "$venv/bin/python" -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' \
        "$ledger" /root/ledger-before.sqlite3
    before=$(rows | wc -l)
    echo >"$i2c_log"
    echo >"$spi_log"
    mark=$(journal_mark)
    systemctl start cribbage-board
    if ! wait_for 60 is_active cribbage-board; then
        failed "the board's unit on its real backend did not start: $(unit_log | tail -n 3 | tr '\n' ' ')"
    else
        sleep 3  # its first frames drawn
        pull 17 pull-down; pull 27 pull-down; pull 17 pull-up; pull 27 pull-up  # one clockwise detent: 1 dialled
        sleep 0.5
        pull 5 pull-down; pull 5 pull-up                                        # red: peg it
        wait_for 20 grown $((before + 1)) || true
        sleep 4  # the peg's slide and the OLED's word settled
        cp "$i2c_log" /root/i2c-board.txt
        cp "$spi_log" /root/spi-board.txt
        added=$(rows | tail -n +$((before + 1)) | cut -f3 | tr '\n' ';')
        if [ "$added" = "peg Red 1;" ]; then
            ok "the whole board through the kernel: the installed unit (--backend real: gpiozero's lgpio pins on /dev/$chip, luma on /dev/i2c-1, spidev on /dev/spidev0.0; as cribbage, its sandbox as shipped) read a clockwise detent and a click of red on the gpio-sim lines and pegged them: the ledger's new line is \"peg Red 1\""
        else
            failed "the whole board through the kernel: a detent and a click of red on the gpio-sim lines added \"${added:-nothing}\" to the ledger, not \"peg Red 1;\"; the unit said: $(unit_log | tail -n 3 | tr '\n' ' ')"
        fi
        "$venv/bin/python" "$driver" expect /root/ledger-before.sqlite3 /root/board-expected turn:1 click:red >/root/expect.log 2>&1 ||
            note "driver.py expect: $(tail -n 1 /root/expect.log)"
        "$venv/bin/python" "$driver" check-board /root/i2c-board.txt /root/spi-board.txt /root/board-expected >/root/check-board.log 2>&1
        grep -E '^(ok|FAILED): ' /root/check-board.log | while IFS= read -r line; do send "$line"; done
        grep -qE '^(ok|FAILED): ' /root/check-board.log || failed "driver.py check-board: $(tail -n 1 /root/check-board.log)"
        keep "i2c-board-$release.txt" /root/i2c-board.txt
    fi
    systemctl stop cribbage-board
    rm -f "$dropins/70-real.conf"
    systemctl daemon-reload
fi

# 13. The club: with [club] set, `cribbage-board club-network` (as install.sh runs it) writes the unit's
# drop-in; the board's unit, its hardening and that drop-in in force, plays a game for the club, which
# reaches the host's Mosquitto (qemu's guestfwd at 10.0.2.100) and the host's hub counts; from the same
# unit no other address answers (IPAddressDeny: EPERM). The club off again, club-network removes the
# drop-in and the unit has no network, as shipped.
club_check() {
    local config=/etc/cribbage-board/config.toml game_file club_broker="" club_name="" club_table="" broker_at host
    local said code got score_off score_on score_after props_on props_off probes_on probes_off answer line
    local problems=() refused=() allowed="" loopback="" mark="" score allow=""
    game_file=$(dirname "$driver")/club-game.txt
    if [ ! -s "$vm/club.env" ]; then
        send "$(cat "$vm/club-none.txt" 2>/dev/null || echo "skipped: club: the host put no club on the data disk")"
        return
    fi
    # shellcheck source=/dev/null  # club_broker, club_name, club_table: the host's
    . "$vm/club.env"
    broker_at=${club_broker#mqtt://}  # 10.0.2.100:1883
    host=${broker_at%:*}
    systemctl stop cribbage-board
    cp -a "$config" /root/config-without-club.toml
    score_off=$(security_of cribbage-board.service)
    club_config_on "$config"
    got=$("$venv/bin/python" -c 'import sys; from firmware.config import load_config
club = load_config(sys.argv[1]).club; print(club.broker, club.name, club.table)' "$config" 2>&1)
    [ "$got" = "$club_broker $club_name $club_table" ] ||
        problems+=("[club] in $config reads '$got' after the edit, not '$club_broker $club_name $club_table'")
    echo "--- club-network, the club on"
    said=$("$venv/bin/cribbage-board" club-network --config "$config" 2>&1)  # as install.sh runs it
    code=$?
    echo "    $said"
    if [ $code -ne 0 ] || [ ! -f "$dropins/club.conf" ]; then
        problems+=("club-network (exit $code) left no $dropins/club.conf: $said")
    else
        dump "$dropins/club.conf" "$dropins/club.conf"
        allow=$(sed -n 's/^IPAddressAllow=//p' "$dropins/club.conf" | tr '\n' ' ' | sed 's/ $//')
    fi
    systemctl daemon-reload
    score_on=$(security_of cribbage-board.service)
    props_on=$(systemctl show -p PrivateNetwork -p RestrictAddressFamilies -p IPAddressDeny -p IPAddressAllow cribbage-board | tr '\n' ' ')
    echo "    the unit: $props_on"
    install -m 0644 "$vm/club-game.txt" "$game_file"
    rm -f /run/cribbage-vm-club-done
    use_driver club
    mark=$(journal_mark)
    if ! systemctl start cribbage-board; then
        problems+=("the board's unit did not start with the club's drop-in: $(prop cribbage-board Result)")
        journal
    fi
    wait_for 120 unit_says "^club: " || problems+=("the board's unit said nothing of the club in 120 s")
    answer=$(ask_host_for 420 "club: has the hub on the host counted the game of table $club_table?")
    echo "    the host: $answer"
    touch /run/cribbage-vm-club-done  # the console's input ends: its club link sends what is left and says offline
    wait_for 60 unit_says "^club: the console ended" || problems+=("the console in the board's unit did not end its input")
    unit_log >/root/club-on.log
    dump "the board's unit, the club on" /root/club-on.log
    probes_on=$(grep '^probe: ' /root/club-on.log)
    systemctl stop cribbage-board
    while IFS= read -r line; do
        case $line in
            "probe: $broker_at tcp connected "*) allowed=$broker_at ;;
            "probe: $broker_at "*) problems+=("the unit could not reach its broker: $line") ;;
            "probe: 127.0.0.1:"*" tcp connected "*)  # paho's loop wakes itself over 127.0.0.1: the drop-in may allow localhost
                if grep -qE '^IPAddressAllow=.*\blocalhost\b' "$dropins/club.conf" 2>/dev/null; then
                    loopback="${line#probe: } (the drop-in allows localhost)"
                else
                    problems+=("the unit reached ${line#probe: }, which the drop-in does not allow")
                fi
                ;;
            *" EPERM") refused+=("${line#probe: }") ;;
            *) problems+=("the unit reached or tried beyond its broker: ${line#probe: } (EPERM wanted, as IPAddressDeny=any gives)") ;;
        esac
    done <<<"$probes_on"
    [ -n "$allowed" ] || problems+=("no probe of the broker from the unit")
    [ ${#refused[@]} -ge 3 ] || problems+=("only ${#refused[@]} of the 3 addresses beyond the broker and loopback refused with EPERM")
    [[ $answer == counted:* ]] || problems+=("the host's hub: $answer")
    [[ $props_on == *"PrivateNetwork=no"* && $props_on == *AF_INET* && $props_on == *IPAddressAllow=*"$host"* ]] ||
        problems+=("the unit's properties with the drop-in: $props_on")

    # The club off: club-network removes the drop-in; the unit is as private as shipped.
    cp -a /root/config-without-club.toml "$config"
    echo "--- club-network, the club off"
    said=$("$venv/bin/cribbage-board" club-network --config "$config" 2>&1)
    code=$?
    echo "    $said"
    if [ $code -ne 0 ] || [ -e "$dropins/club.conf" ]; then
        problems+=("club off: club-network (exit $code) left $dropins/club.conf: $said")
    fi
    systemctl daemon-reload
    score_after=$(security_of cribbage-board.service)
    props_off=$(systemctl show -p PrivateNetwork -p RestrictAddressFamilies -p IPAddressDeny -p IPAddressAllow cribbage-board | tr '\n' ' ')
    echo "    the unit: $props_off"
    mark=$(journal_mark)
    systemctl start cribbage-board
    wait_for 120 unit_says "^club: off" || problems+=("club off: the board's unit said nothing in 120 s")
    unit_log >/root/club-off.log
    dump "the board's unit, the club off" /root/club-off.log
    probes_off=$(grep -c '^probe: .* socket(AF_INET) refused: EAFNOSUPPORT$' /root/club-off.log)
    systemctl stop cribbage-board
    [[ $props_off == *"PrivateNetwork=yes"* && $props_off == *"RestrictAddressFamilies=AF_UNIX "* ]] ||
        problems+=("club off: the unit's properties: $props_off")
    [ "$probes_off" -ge 4 ] || problems+=("club off: $probes_off of 4 probes refused at socket(AF_INET) (EAFNOSUPPORT): $(grep '^probe: ' /root/club-off.log | tr '\n' ' ')")
    [ "$score_after" = "$score_off" ] || problems+=("club off: the security score is $score_after, not $score_off as before the club")
    rm -f "$game_file"
    use_driver none
    systemctl start cribbage-board
    wait_for 60 is_active cribbage-board || problems+=("the mock board did not come back after the club check")

    if [ ${#problems[@]} -eq 0 ]; then
        ok "club: the board's unit (club-network's drop-in in force: PrivateNetwork=no, IPAddressDeny=any, IPAddressAllow=$allow) sent a game of the club $club_name, table $club_table, to Mosquitto on the host (through qemu's guestfwd); the hub there counted it: ${answer#counted: }; from the same unit other addresses refused: $(printf '%s, ' "${refused[@]}" | sed 's/, $//')${loopback:+; loopback open: $loopback}; club off: club-network removed the drop-in, the unit PrivateNetwork=yes, RestrictAddressFamilies=AF_UNIX again (socket(AF_INET) refused, EAFNOSUPPORT)"
    else
        failed "club: $(printf '%s; ' "${problems[@]}")"
    fi
    score=${score_on%% *}
    if awk -v s="${score:-99}" 'BEGIN { exit !(s < 4.0) }'; then
        ok "systemd-analyze security cribbage-board.service on the booted guest: $score_off without the club's drop-in, $score_on with it (the broker's address alone allowed), $score_after with the club off again"
    else
        failed "systemd-analyze security cribbage-board.service with the club's drop-in: $score_on (4.0 or more is MEDIUM or worse; $score_off without it)"
    fi
}
club_check

# 14. Last: the menu's Shut down, as the board's unit, powers the VM off through logind and polkit.
use_driver shutdown
journalctl -f -n 0 -u cribbage-board -o short-monotonic >/dev/console 2>&1 &  # the board's own words, up to the power-off, on the console the host keeps
ask_host "poweroff the menu's Shut down (Menu > Shut down > Yes on the mock controls, the real power-off: systemctl --no-ask-password poweroff as cribbage in the board's unit)"
systemctl restart cribbage-board
sleep 60
journalctl -b -u cribbage-board --no-pager | tail -n 20
send "FAILED: still running 60 s after the menu's Shut down"
send end
