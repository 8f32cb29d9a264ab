#!/bin/bash
# The check inside the Pi image booted by tests/system/test-pi-image.sh: never run on the host.
#
# The host writes this file and its unit into a copy of the image's root; the unit runs it at
# every boot. Its lines go to the serial console the host reads, each "PI-CHECK ok: ...",
# "PI-CHECK FAILED: ..." or "PI-CHECK skipped: ...", and requests "PI-CHECK host: ..."
# (web PORT: fetch the web view from outside; cut N: cut the power now). What to do comes
# from the kernel's command line: cribbage.check=first (the first boot: every check, then
# the first entry and its cut) or cribbage.check=cut (after a power cut: the entries so
# far, cribbage.expect=N of them, then one more and the next cut, or with
# cribbage.last=1 the power off).
set -uo pipefail

venv=/opt/cribbage-board/venv
ledger=/var/lib/cribbage-board/ledger.sqlite3
console=/dev/ttyS1
[ -w "$console" ] || console=/dev/console

send() { printf 'PI-CHECK %s\r\n' "$*" >"$console"; }
ok() { send "ok: $*"; }
failed() { send "FAILED: $*"; }
skipped() { send "skipped: $*"; }
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^cribbage\.$1=//p"; }
wait_for() {  # SECONDS COMMAND...: until COMMAND succeeds; status 1 if it never did.
    local until=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$until" ] || return 1
        sleep 1
    done
}
active() { [ "$(systemctl show -p ActiveState --value "$1")" = active ]; }
sent_on_spi() { [ "$(cat /sys/bus/spi/devices/spi0.0/statistics/bytes_tx 2>/dev/null || echo 0)" -gt 0 ]; }
score_of() {  # NAME: the seat's score in the live game, as the console's status says it.
    printf 'status\n' | timeout 120 runuser -u cribbage -- "$venv/bin/cribbage-board" console --state "$ledger" 2>&1 |
        awk -v name="$1" '$1 == name { print $2; exit }'
}

first_boot_checks() {
    local host players applied grown
    host=$(hostname)
    players=$(sed -n 's/^players = //p' /etc/cribbage-board/config.toml)
    if [ "$host" = cribbage-test ] && [ "$players" = '["Ann", "Bob"]' ] && [ ! -e /boot/firmware/cribbage-board.toml ] &&
        [ -f /boot/firmware/cribbage-board-applied.txt ] && ! grep -q 'correct horse' /boot/firmware/* /etc/wpa_supplicant/* 2>/dev/null; then
        ok "first boot: cribbage-board.toml applied (hostname $host, players $players, time zone $(cat /etc/timezone)) and removed from the FAT partition; no Wi-Fi password left in clear"
    else
        failed "first boot: hostname '$host', players '$players', FAT files $(find /boot/firmware -maxdepth 1 -name 'cribbage-board*' -printf '%f '); $(journalctl -b -u cribbage-board-first-boot --no-pager | tail -n 5 | tr '\n' ' ')"
    fi
    applied=$(tr -d '\r' </boot/firmware/cribbage-board-applied.txt 2>/dev/null | tr '\n' ' ')
    if grep -q '^ *psk=[0-9a-f]\{64\}$' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf 2>/dev/null &&
        [ "$(stat -c %a /etc/wpa_supplicant/wpa_supplicant-wlan0.conf)" = 600 ] &&
        [ -s /home/pi/.ssh/authorized_keys ] && active ssh.service && [ -n "$(ls /etc/ssh/ssh_host_ed25519_key 2>/dev/null)" ] &&
        [ "$(passwd -S pi | cut -d' ' -f2)" != P ]; then
        ok "first boot: Wi-Fi kept as its key only (wpa_supplicant-wlan0.conf, 0600); SSH on with the card's key for user pi (no password) and host keys of this card's own; note left: $applied"
    else
        failed "first boot: Wi-Fi or SSH not as the card asked: $(find /etc/wpa_supplicant /home/pi/.ssh -maxdepth 1 -printf '%p %m, ' 2>&1) ssh $(systemctl is-active ssh.service)"
    fi
    grown=$(journalctl -b -u cribbage-board-grow-root --no-pager -o cat | grep -o 'grew from.*' || true)
    if [ -e /var/lib/cribbage-board-image/root-grown ] && [ -n "$grown" ]; then
        ok "root file system grown to the card: $grown; $(df -h / | awk 'NR == 2 { print $2 " in all, " $4 " free" }')"
    else
        failed "root file system not grown: $(journalctl -b -u cribbage-board-grow-root --no-pager | tail -n 3 | tr '\n' ' ')"
    fi
}

card_checks() {
    local storage writes
    storage=$(systemd-analyze cat-config systemd/journald.conf 2>/dev/null | sed -n 's/^Storage=//p' | tail -n 1)
    if [ "$storage" = volatile ] && [ -z "$(find /var/log/journal -type f 2>/dev/null)" ] && journalctl --header 2>/dev/null | grep -q '/run/log/journal'; then
        ok "a card that lasts: the journal in RAM (Storage=volatile, /run/log/journal), no journal file under /var/log; /tmp on $(findmnt -no FSTYPE /tmp); the ledger's folder on $(findmnt -no SOURCE -T /var/lib/cribbage-board)"
    else
        failed "the journal is not in RAM: Storage=$storage, $(find /var/log/journal -type f 2>&1 | head -n 3 | tr '\n' ' ')"
    fi
    writes=$(systemctl list-timers --all --no-legend 2>/dev/null | awk '{ print $(NF - 1) }' | grep -E 'apt-daily|dpkg-db-backup|man-db' | tr '\n' ' ')
    if [ -z "$writes" ]; then
        ok "no timers that write to the card (apt-daily, dpkg-db-backup, man-db): timers left $(systemctl list-timers --all --no-legend | awk '{ print $(NF - 1) }' | tr '\n' ' ')"
    else
        failed "timers that write to the card are on: $writes"
    fi
}

device_checks() {
    local i2c compatible web_ip code
    if wait_for 240 active cribbage-board; then
        ok "the board's unit reached READY on --backend real ($(systemctl show -p ExecStart --value cribbage-board | grep -o 'cribbage-board --backend [a-z]*')): active $(awk -v t="$(systemctl show -p ActiveEnterTimestampMonotonic --value cribbage-board)" 'BEGIN { printf "%.0f", t / 1e6 }') s after boot, $(systemctl show -p NRestarts --value cribbage-board) restarts"
    else
        failed "the board's unit is not active: $(journalctl -b -u cribbage-board --no-pager | tail -n 8 | tr '\n' ' ')"
        return
    fi
    i2c=$(i2cdetect -y 1 2>&1 | awk 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "--") printf "%s ", $i }')
    compatible=$(tr '\0' ' ' </sys/bus/i2c/devices/i2c-1/of_node/compatible 2>/dev/null || true)
    if [[ $compatible == *brcm,bcm2835-i2c* ]] && [[ " $i2c " == *" 3c "* ]] &&
        ! journalctl -b -u cribbage-board --no-pager | grep -qi 'oled\|display.*\(fail\|error\)'; then
        ok "luma on /dev/i2c-1 ($compatible): a chip answers at 0x3c (QEMU's ssd0303 on the BCM2835 I2C controller 1) and the board opened its OLED there with no error"
    else
        failed "I2C: /dev/i2c-1 on '$compatible', i2cdetect -y 1 saw '$i2c'; $(journalctl -b -u cribbage-board --no-pager | grep -i 'oled\|display\|i2c' | tail -n 3 | tr '\n' ' ')"
    fi
    web_ip=$(ip -4 -o addr show scope global | awk '{ split($4, a, "/"); print a[1]; exit }')
    if [ -n "$web_ip" ] && wait_for 120 active cribbage-board-web &&
        code=$(wait_for 60 "$venv/bin/python" -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://$web_ip:8121/', timeout=20).status != 200)" && echo 200); then
        ok "the web view answers on the guest's own address: http://$web_ip:8121/ $code ($(ip -o link show | awk -F': ' '$2 != "lo" { print $2 }' | head -n 1), over QEMU's USB network)"
        send "host: web 8121"
        sleep 20
    else
        failed "the web view does not answer on '$web_ip': $(journalctl -b -u cribbage-board-web --no-pager | tail -n 4 | tr '\n' ' ')"
    fi
}

lit_checks() {  # The board's GPIO lines and the strip's frames, once it has a peg to show.
    local chip lines spi_tx spi_err
    mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
    chip=$(gpiodetect 2>/dev/null | grep pinctrl-bcm2835 | head -n 1)
    lines=$(grep -E 'GPIO(5|6|12|13|16|17|19|22|26|27)[^0-9]' /sys/kernel/debug/gpio | sed -E 's/^ *gpio-[0-9]+ \(([A-Z0-9]+) *\|([^)]*)\) *(in|out) *(hi|lo).*/\1 \3 \4 (\2)/' | tr '\n' ',' | sed 's/,$//')
    if [ -n "$chip" ] && grep -Eq 'GPIO12 .*out lo' /sys/kernel/debug/gpio && [ "$(grep -Ec 'GPIO(5|6|13|16|17|19|22|26|27)[^0-9].* in ' /sys/kernel/debug/gpio)" -eq 9 ]; then
        ok "gpiozero's lgpio pins on $chip: the buzzer's output line reads back low as the board set it, the 9 controls are inputs held by the board: $lines"
    else
        failed "GPIO lines not as the board sets them on '$chip': $lines"
        journalctl -b -u cribbage-board --no-pager -o cat | tail -n 12 | while IFS= read -r line; do send "# board: $line"; done
    fi
    wait_for 60 sent_on_spi || true  # the frame with Ann's peg, once the board has drawn it
    spi_tx=$(cat /sys/bus/spi/devices/spi0.0/statistics/bytes_tx 2>/dev/null || echo 0)
    spi_err=$(cat /sys/bus/spi/devices/spi0.0/statistics/errors 2>/dev/null || echo "?")
    if [ -e /dev/spidev0.0 ] && [ "$spi_tx" -gt 0 ] && [ "$spi_err" = 0 ]; then
        ok "the strip's SPI frames written to the BCM2835 SPI controller's /dev/spidev0.0 ($(tr '\0' ' ' </sys/bus/spi/devices/spi0.0/of_node/compatible)): $(cat /sys/bus/spi/devices/spi0.0/statistics/transfers) transfers, $spi_tx bytes, 0 errors"
    else
        failed "SPI: devices: $(find /dev -maxdepth 1 -name 'spidev*' -printf '%f '), bytes_tx $spi_tx, errors $spi_err"
    fi
}

entry_and_cut() {  # N: the entry to make (the Nth), then the power cut.
    local answer
    systemctl stop cribbage-board
    answer=$(printf 'peg Ann 1\n' | timeout 300 runuser -u cribbage -- "$venv/bin/cribbage-board" console --state "$ledger" 2>&1 | grep -m 1 '^  ok: ')
    if [ "$answer" = "  ok: Ann peg 1" ]; then
        score=$(score_of Ann)
        systemctl start cribbage-board
        wait_for 240 active cribbage-board || failed "the board's unit did not come back after the console"
        [ "$1" != 1 ] || lit_checks
        send "host: cut $1 acknowledged: ${answer#  }, Ann $score"
        sleep 600
    else
        failed "the console did not take entry $1: '$answer'"
    fi
}

phase=$(arg check)
case $phase in
    first)
        send "booted: $(tr -d '\0' </proc/device-tree/model), $(uname -r), systemd $(systemctl --version | awk 'NR == 1 { print $2 }'), up $(cut -d' ' -f1 /proc/uptime) s"
        first_boot_checks
        card_checks
        device_checks
        entry_and_cut 1
        ;;
    cut)
        expect=$(arg expect)
        wait_for 240 active cribbage-board || failed "after the power cut the board's unit is not active: $(journalctl -b -u cribbage-board --no-pager | tail -n 5 | tr '\n' ' ')"
        systemctl stop cribbage-board
        integrity=$("$venv/bin/python" -c "import sqlite3, sys; print(sqlite3.connect('file:$ledger?mode=ro', uri=True).execute('pragma integrity_check').fetchone()[0])" 2>&1)
        score=$(score_of Ann)
        if [ "$score" = "$expect" ] && [ "$integrity" = ok ]; then
            ok "after power cut $expect: the $expect acknowledged entries are in the ledger (Ann $score), integrity_check ok"
        else
            failed "after power cut $expect: Ann has '$score', $expect acknowledged; integrity_check '$integrity'"
        fi
        systemctl start cribbage-board
        if [ "$(arg last)" = 1 ]; then
            send "done"
            systemctl poweroff
        else
            entry_and_cut $((expect + 1))
        fi
        ;;
    *) failed "no cribbage.check= on the kernel's command line" ;;
esac
