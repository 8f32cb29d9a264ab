#!/usr/bin/env bash
# Install cribbage-board as a service on Raspberry Pi OS Bookworm or Trixie (64-bit).
# Run as root from the source folder (a clone, or a source archive unpacked):  sudo systemd/install.sh
#
# It installs the packages it needs, enables SPI and I2C, gives spidev a
# buffer that holds a whole LED frame, holds the core clock still on a Pi 3/4
# (their SPI clock follows it), lets the service user power the Pi off (a
# polkit rule), makes the "cribbage" user and the web view's "cribbage-web"
# (in the group cribbage, to read the ledger), installs the app in
# /opt/cribbage-board/venv, puts the default config in
# /etc/cribbage-board/config.toml (never over an existing one), and enables the
# service and its web view (cribbage-board-web, read-only on the config's
# web.port, 8121 by default; the install prints its address and says how to
# turn it off). Running it again upgrades in place and
# changes nothing else.
#
# CRIBBAGE_INSTALL_TARGET=chroot runs it in a root that is not a booted Pi (the
# arm64 test root of tests/system/test-install-arm64.sh): the steps that need a
# booted systemd or the Pi's devices print "skipped: ..." instead of running.
# CRIBBAGE_INSTALL_TARGET=vm runs it on a booted systemd that is not a Pi (the
# VM of tests/system/test-boot-vm.sh): everything runs for real but the Pi's own
# steps (the model check, raspi-config, the boot files), which print "skipped: ...".
# CRIBBAGE_INSTALL_TARGET=image runs it in the root of the Pi image that
# systemd/build-image.sh makes: as chroot, and the image's recipe (systemd/image/)
# brings the packages and the boot files' lines, so apt-get and the boot-file
# edits print "skipped: ..." too.
# CRIBBAGE_WHEELS names a folder of wheels to install the app from, with no index
# (the image's arm64 wheels: nothing compiles on the Pi).
# CRIBBAGE_BOOT_DIR names the folder with config.txt and cmdline.txt when it
# is neither /boot/firmware (Bookworm, Trixie) nor /boot (older releases).
#
# Sourcing this file (". systemd/install.sh") defines the functions without
# running anything; the tests use that to try the boot-file edits on copies.
set -euo pipefail

user=cribbage
web_user=cribbage-web
prefix=/opt/cribbage-board
polkit_rule=/etc/polkit-1/rules.d/50-cribbage-board.rules
system_config=/etc/cribbage-board/config.toml

skip() { echo "skipped: $*"; }

# --- The boot partition's files. Each edit returns 0 if it changed the file, 1 if it was already so.

boot_dir() {  # The folder that holds config.txt and cmdline.txt, or nothing.
    local dir
    for dir in ${CRIBBAGE_BOOT_DIR:-} /boot/firmware /boot; do
        if [ -f "$dir/config.txt" ] && [ -f "$dir/cmdline.txt" ]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

config_txt_ensure() {  # FILE LINE: add LINE to config.txt (under [all]) unless it is already an active line.
    local file=$1 line=$2 section
    if grep -qxF -- "$line" "$file"; then
        return 1
    fi
    if [ -s "$file" ] && [ -n "$(tail -c 1 "$file")" ]; then
        echo >>"$file"  # the last line had no newline
    fi
    # A line after a [pi4] (or any other) filter would apply to that model only.
    section=$(grep -E '^[[:space:]]*\[' "$file" | tail -n 1 | tr -d '[:space:]' || true)
    if [ -n "$section" ] && [ "$section" != "[all]" ]; then
        echo "[all]" >>"$file"
    fi
    echo "$line" >>"$file"
}

cmdline_ensure() {  # FILE NAME=VALUE: set a kernel parameter on cmdline.txt's one line (replacing NAME=other).
    local file=$1 param=$2 key=${2%%=*} first rest word found=0
    local -a words out=()
    first=$(head -n 1 "$file")
    rest=$(tail -n +2 "$file")
    read -r -a words <<<"$first"
    for word in "${words[@]}"; do
        if [ "$word" = "$param" ]; then
            return 1
        elif [ "${word%%=*}" = "$key" ] && [ $found -eq 0 ]; then
            out+=("$param")
            found=1
        else
            out+=("$word")
        fi
    done
    [ $found -eq 1 ] || out+=("$param")
    # The firmware reads only the first line: the parameters stay on it, and
    # whatever followed it is kept as it was.
    {
        printf '%s\n' "${out[*]}"
        [ -z "$rest" ] || printf '%s\n' "$rest"
    } >"$file"
}

pi_model() {  # The board's model from the device tree, e.g. "Raspberry Pi 4 Model B Rev 1.5".
    tr -d '\0' </proc/device-tree/model 2>/dev/null
}

core_clock_lines() {  # MODEL: config.txt lines that hold the VPU core clock still; status 1 if none are needed.
    # On a Pi 3 and 4 the SPI clock is divided from the VPU core clock, which
    # the firmware changes with load (and with temperature): the WS2812 bit
    # timing would drift with it. The Raspberry Pi config.txt docs' core_freq
    # sets the clock and core_freq_min its floor for dynamic clocking; equal
    # values keep it fixed. The Pi 3 (and Zero 2 W, same SoC) runs its core at
    # 250 MHz, the Pi 4 at its default 500 MHz. The Pi 5's SPI is on the RP1
    # chip with a clock of its own: nothing to change there.
    case $1 in
        *"Raspberry Pi 5"* | *"Compute Module 5"*) return 1 ;;  # also "Raspberry Pi 500"
        *"Raspberry Pi 4"* | *"Compute Module 4"*) printf '%s\n' core_freq=500 core_freq_min=500 ;;  # also 400
        *"Raspberry Pi 3"* | *"Zero 2"* | *"Compute Module 3"*) printf '%s\n' core_freq=250 core_freq_min=250 ;;
        *) return 1 ;;
    esac
}

web_port() {  # PYTHON CONFIG: the port the web view takes from CONFIG (web.port), the config read as the board reads it.
    "$1" -m firmware.web.settings --port "$2"
}

web_notice() {  # PYTHON CONFIG: how to reach the web view, and how to turn it off.
    local address port
    if ! port=$(web_port "$1" "$2"); then  # web_port said what is wrong with the config
        echo "install.sh: fix $2 as the line above says, then: sudo systemctl restart cribbage-board-web" >&2
        return 2
    fi
    address=$(hostname -I 2>/dev/null | awk '{print $1}')
    echo "The web view (cribbage-board-web) serves the board read-only on the local network:" \
        "http://${address:-$(hostname).local}:$port/"
    echo "To turn it off: sudo systemctl disable --now cribbage-board-web"
}

make_users() {  # The board's user and the web view's, once: a second run changes nothing.
    local group
    for group in gpio i2c spi; do
        getent group "$group" >/dev/null || groupadd --system "$group"
    done
    if ! id "$user" >/dev/null 2>&1; then
        getent group "$user" >/dev/null || groupadd --system "$user"
        useradd --system --gid "$user" --home-dir /var/lib/cribbage-board --no-create-home \
            --shell /usr/sbin/nologin --groups gpio,i2c,spi "$user"
    else
        usermod -aG gpio,i2c,spi "$user"
    fi
    # The web view's own user, in the board's group to read the ledger (the units
    # say how) and nothing else: no device groups, no power-off (the polkit rule
    # names only $user), no login, no home.
    if ! id "$web_user" >/dev/null 2>&1; then
        useradd --system --gid "$user" --home-dir /nonexistent --no-create-home \
            --shell /usr/sbin/nologin "$web_user"
    fi
}

# --- The install.

main() {
    local src target reboot=0 dir model line lines
    src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    target=${CRIBBAGE_INSTALL_TARGET:-pi}

    if [ "$(id -u)" -ne 0 ]; then
        echo "install.sh: run as root: sudo $0" >&2
        exit 2
    fi
    case $target in
        pi)
            model=$(pi_model || true)
            if [[ "$model" != *"Raspberry Pi"* ]]; then
                echo "install.sh: this is not a Raspberry Pi; on a PC run the mock board instead (see README.md)" >&2
                exit 2
            fi
            echo "install.sh: installing on a $model"
            ;;
        chroot | vm | image)
            model=""
            skip "Raspberry Pi model check (/proc/device-tree/model): CRIBBAGE_INSTALL_TARGET=$target"
            ;;
        *)
            echo "install.sh: CRIBBAGE_INSTALL_TARGET must be pi, vm, chroot or image, not '$target'" >&2
            exit 2
            ;;
    esac

    export DEBIAN_FRONTEND=noninteractive
    if [ "$target" = image ]; then
        skip "apt-get: the image's package list (systemd/image/packages) brought what the board needs"
    else
        apt-get update
        # gcc and the headers build rpi_ws281x and spidev; polkitd reads the power-off rule.
        # swig builds lgpio where pip must (see below).
        apt-get install -y python3-venv python3-dev gcc swig i2c-tools polkitd
        # gpiozero's pin library: Raspberry Pi OS packages it (python3-lgpio), and
        # the venv sees it. Plain Debian does not: then pip brings it, a wheel
        # where PyPI has one (Python 3.11), else built from its sdist; PYPI=1 makes
        # that build compile the lg library in instead of linking a liblgpio.
        if apt-cache show python3-lgpio >/dev/null 2>&1; then
            apt-get install -y python3-lgpio
        else
            echo "install.sh: no python3-lgpio package here (not Raspberry Pi OS): pip installs lgpio"
        fi
    fi

    # SPI (the strip), I2C (the OLED), and a spidev buffer that holds a whole
    # frame in one transfer (4096 bytes by default; see hardware/README.md).
    if [ "$target" = image ]; then
        skip "config.txt and cmdline.txt: the image's /etc/default/raspi-firmware-custom and raspi-extra-cmdline set them"
        install -d /etc/modules-load.d
        echo i2c-dev >/etc/modules-load.d/cribbage-board.conf  # /dev/i2c-1 for the OLED
    elif [ "$target" = pi ] && command -v raspi-config >/dev/null; then
        if [ "$(raspi-config nonint get_spi)" != 0 ]; then raspi-config nonint do_spi 0; reboot=1; fi
        if [ "$(raspi-config nonint get_i2c)" != 0 ]; then raspi-config nonint do_i2c 0; reboot=1; fi
    else
        if [ "$target" != pi ]; then
            skip "raspi-config: it needs a booted Pi; writing the dtparam lines to config.txt instead (if there is one)"
        fi
        if dir=$(boot_dir); then
            for line in dtparam=spi=on dtparam=i2c_arm=on; do
                if config_txt_ensure "$dir/config.txt" "$line"; then echo "config.txt: added $line"; reboot=1; fi
            done
        elif [ "$target" = pi ]; then
            echo "install.sh: no config.txt and cmdline.txt in /boot/firmware or /boot; set CRIBBAGE_BOOT_DIR" >&2
            exit 2
        fi
        install -d /etc/modules-load.d
        echo i2c-dev >/etc/modules-load.d/cribbage-board.conf  # /dev/i2c-1 for the OLED
    fi
    if [ "$target" = image ]; then
        :
    elif dir=$(boot_dir); then
        if cmdline_ensure "$dir/cmdline.txt" spidev.bufsiz=65536; then
            echo "cmdline.txt: set spidev.bufsiz=65536"
            reboot=1
        fi
        if [ -z "$model" ]; then
            skip "core clock lock for SPI: the Pi model is unknown here (no /proc/device-tree/model)"
        elif lines=$(core_clock_lines "$model"); then
            for line in $lines; do
                if config_txt_ensure "$dir/config.txt" "$line"; then echo "config.txt: added $line"; reboot=1; fi
            done
        else
            echo "install.sh: no core clock lock on a $model (its SPI clock does not follow the core clock)"
        fi
    else
        skip "spidev.bufsiz and the core clock: no config.txt and cmdline.txt in /boot/firmware or /boot"
    fi

    make_users
    # The devices for those groups: Raspberry Pi OS's udev rules do it there, plain Debian's do not.
    install -D -m 0644 "$src/systemd/cribbage-board-devices.rules" /etc/udev/rules.d/60-cribbage-board-devices.rules
    if [ "$target" = pi ] || [ "$target" = vm ]; then
        { udevadm control --reload && udevadm trigger --subsystem-match=spidev --subsystem-match=gpio --subsystem-match=i2c-dev; } || true
    fi

    # The board's "Shut down" runs `systemctl --no-ask-password poweroff` as
    # this user; logind asks polkit, and this rule says yes for that user only.
    [ -d "$(dirname "$polkit_rule")" ] || install -d -m 0755 "$(dirname "$polkit_rule")"  # polkitd's own mode stays
    install -m 0644 "$src/systemd/50-cribbage-board.rules" "$polkit_rule"

    # --system-site-packages lets the venv see apt's python3-lgpio.
    [ -x "$prefix/venv/bin/python" ] || python3 -m venv --system-site-packages "$prefix/venv"
    if [ -n "${CRIBBAGE_WHEELS:-}" ]; then
        "$prefix/venv/bin/pip" install --upgrade --no-index --find-links "$CRIBBAGE_WHEELS" cribbage-board
    else
        PYPI=1 "$prefix/venv/bin/pip" install --upgrade "$src"
    fi

    install -d -m 0755 "$(dirname "$system_config")"
    if [ ! -e "$system_config" ]; then
        install -m 0644 "$src/firmware/default-config.toml" "$system_config"
    fi

    install -m 0644 "$src/systemd/cribbage-board.service" /etc/systemd/system/cribbage-board.service
    # The unit has no network; with [club] broker set, a drop-in lets it reach that broker only.
    "$prefix/venv/bin/cribbage-board" club-network --config "$system_config" \
        || echo "install.sh: the board plays on without the club until the line above is mended;" \
                "then: sudo $prefix/venv/bin/cribbage-board club-network" >&2
    # The web view: the board, history and stats on phones at the table (read-only, on web.port).
    install -m 0644 "$src/systemd/cribbage-board-web.service" /etc/systemd/system/cribbage-board-web.service
    if [ "$target" != chroot ] && [ "$target" != image ]; then
        systemctl daemon-reload
        systemctl enable cribbage-board.service cribbage-board-web.service
        systemctl restart cribbage-board.service cribbage-board-web.service
        echo "cribbage-board is installed and running: journalctl -u cribbage-board -f to watch it."
    else
        if command -v systemctl >/dev/null; then
            # works offline: it only makes the links
            systemctl enable cribbage-board.service cribbage-board-web.service
        else
            skip "systemctl enable: systemd is not installed in this root"
        fi
        skip "systemctl daemon-reload and restart: no booted systemd in a chroot"
    fi
    web_notice "$prefix/venv/bin/python" "$system_config" || exit 2
    if [ $reboot -eq 1 ]; then
        echo "SPI, I2C or the spidev buffer changed: reboot once for them to take effect: sudo reboot"
    fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
