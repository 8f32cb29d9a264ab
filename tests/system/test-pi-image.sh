#!/usr/bin/env bash
# Prove the Raspberry Pi image on emulated Pi hardware:
#   sudo tests/system/test-pi-image.sh [--rebuild | --image FILE.img.xz | --image FILE.img]
#
# Builds the image with systemd/build-image.sh (or reuses the one made from the same commit, in
# ${CRIBBAGE_IMAGE_CACHE:-/var/cache/cribbage-board-image}/out; a tree with changes is always built
# again; --rebuild forces it; --image checks a given image instead, a release's say, against its
# .sha256 beside it), then on a copy of it, grown to 4 GiB (QEMU's SD card is a power of
# two, and the first boot grows the root to it):
#   - writes a first-boot file (players Ann and Bob, hostname cribbage-test, a time zone, Wi-Fi, an
#     SSH key, the buzzer on) to the FAT partition as a builder would, with mtools;
#   - takes the kernel, initrd, device tree and cmdline.txt from the FAT partition, and applies the
#     image's overlay (overlays/cribbage-board.dtbo) to the Pi 3's tree with fdtoverlay, as the
#     firmware does for config.txt's dtoverlay= (QEMU has no GPU firmware to do it);
#   - puts the check (tests/system/pi/check.sh) and a unit that runs it at every boot into the root;
#   - boots it under qemu-system-aarch64 -M raspi3b (QEMU 9 or newer: on Bookworm this installs
#     qemu-system-arm from bookworm-backports; Trixie's own is new enough), with an SSD0303 at 0x3C
#     on the BCM2835 I2C controller 1 and QEMU's USB network, and hears the check's lines on the
#     serial console (tests/system/pi_image.py); then cuts the power (QEMU killed) right after
#     each of 3 entries made with `cribbage-board console`, and checks each after the next boot.
# The last line is one summary such as
#   pi image raspi3b: booted, 14 ok, 0 failed
# and the exit status is non-zero on any failure. The guest's console is kept in
# CACHE/pi-check/console.log. Run as root; not part of the default test run.
set -euo pipefail

rebuild=no
given=""
case ${1:-} in
    --rebuild) rebuild=yes ;;
    --image)
        [ -f "${2:-}" ] || { echo "usage: $0 [--rebuild | --image FILE.img.xz]: no file '${2:-}'" >&2; exit 2; }
        given=$(realpath "$2")
        ;;
    "") ;;
    *) echo "usage: $0 [--rebuild | --image FILE.img.xz]" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CRIBBAGE_IMAGE_CACHE:-/var/cache/cribbage-board-image}
label="pi image raspi3b"
# shellcheck source=tests/system/debian-root.sh
. "$src/tests/system/debian-root.sh"  # say, fail, host_packages, need_root
need_root "it builds the image, and uses apt-get"
run=$cache/pi-check
trap 'rm -rf "$run/root.img"' EXIT

# 1. QEMU 9 or newer with the raspi3b's I2C, SPI and USB models.
qemu_major() { qemu-system-aarch64 --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p'; }
if [ "$(qemu_major || true)" = "" ] || [ "$(qemu_major)" -lt 9 ]; then
    if grep -q '^VERSION_CODENAME=bookworm' /etc/os-release; then
        if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
                "$mirror" >/etc/apt/sources.list.d/bookworm-backports.sources
        fi
        say "installing qemu-system-arm from bookworm-backports"
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q -t bookworm-backports qemu-system-arm >/dev/null
    else
        host_packages qemu-system-arm
    fi
fi
[ "$(qemu_major)" -ge 9 ] || fail "qemu-system-aarch64 $(qemu_major) is older than 9: its raspi3b I2C and SPI are stubs"
host_packages mtools device-tree-compiler e2fsprogs fdisk xz-utils python3
say "$(qemu-system-aarch64 --version | head -n 1)"

# 2. The image, built or reused.
out=$cache/out
version=$(sed -n 's/^__version__ = "\([^"]*\)".*/\1/p' "$src/firmware/__init__.py")
image=$out/cribbage-board-$version-arm64.img.xz
made_from=$(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)
if [ -n "$given" ]; then
    image=$given
    say "checking the image given: $image"
elif [ "$rebuild" = yes ] || [ ! -s "$image" ] || [[ $made_from == *-dirty ]] || [ "$(cat "$image.from" 2>/dev/null)" != "$made_from" ]; then
    say "building the image from $made_from (systemd/build-image.sh)"
    "$src/systemd/build-image.sh" -o "$out" || fail "systemd/build-image.sh failed"
    echo "$made_from" >"$image.from"
else
    say "reusing $image, made from $made_from"
fi
if [ -f "$image.sha256" ]; then
    (cd "$(dirname "$image")" && sha256sum -c --quiet "$(basename "$image").sha256") || fail "the image does not match its .sha256"
    say "image: $(stat -c %s "$image") bytes packed, sha256 $(cut -d' ' -f1 "$image.sha256")"
elif [ -z "$given" ]; then
    fail "no $image.sha256 beside the image"
fi

# 3. A card: the image unpacked and grown to 4 GiB.
rm -rf "$run" && mkdir -p "$run"
card=$run/card.img
case $image in
    *.xz) xz -dc "$image" >"$card" ;;
    *) cp "$image" "$card" ;;  # an unpacked image given with --image
esac
checks=$run/host-checks  # the host's own check lines, counted with the guest's in the summary
check() {  # ok|FAILED TEXT
    echo "$1: $2" | tee -a "$checks"
}
unpacked=$(stat -c %s "$card")
if [ "$unpacked" -lt 1000000000 ]; then
    packed=""
    [ ! -f "$image.sha256" ] || packed=", $(stat -c %s "$image") packed, sha256 $(cut -d' ' -f1 "$image.sha256")"
    check ok "the image is $unpacked bytes unpacked (under 1 GB)$packed"
else
    check FAILED "the image is $unpacked bytes unpacked, over 1 GB"
fi
truncate -s 4G "$card"
read -r fat_start root_start root_size < <(sfdisk -J "$card" | python3 -c '
import json, sys
parts = json.load(sys.stdin)["partitiontable"]["partitions"]
print(parts[0]["start"], parts[1]["start"], parts[1]["size"])')
fat="$card@@$((fat_start * 512))"
export MTOOLS_SKIP_CHECK=1

# 4. The first-boot file, as a builder edits it on a computer (the SSH key made here, for the test only).
ssh-keygen -q -t ed25519 -N '' -C pi-image-test -f "$run/key" >/dev/null
cat >"$run/cribbage-board.toml" <<EOF
[system]
hostname = "cribbage-test"
timezone = "Europe/London"

[wifi]
name = "TableNet"
password = "correct horse"
country = "GB"

[ssh]
user = "pi"
authorized_keys = ["$(cat "$run/key.pub")"]

[game]
players = ["Ann", "Bob"]
variant = "six-card"

[buzzer]
enabled = true
EOF
mcopy -o -i "$fat" "$run/cribbage-board.toml" ::cribbage-board.toml

# 5. The boot files from the FAT partition; the overlay applied as the firmware would.
for file in config.txt cmdline.txt bcm2837-rpi-3-b.dtb overlays/cribbage-board.dtbo; do
    mcopy -o -i "$fat" "::$file" "$run/$(basename "$file")" || fail "no $file on the FAT partition"
done
kernel=$(mdir -b -i "$fat" :: | sed -n 's|^::/||p' | grep '^vmlinuz-' | sort | tail -n 1)
initrd=$(mdir -b -i "$fat" :: | sed -n 's|^::/||p' | grep '^initrd.img-' | sort | tail -n 1)
{ [ -n "$kernel" ] && [ -n "$initrd" ]; } || fail "no kernel or initrd on the FAT partition"
mcopy -o -i "$fat" "::$kernel" "$run/vmlinuz"
mcopy -o -i "$fat" "::$initrd" "$run/initrd.img"
grep -qx 'dtoverlay=cribbage-board' "$run/config.txt" || fail "config.txt lacks dtoverlay=cribbage-board"
fdtoverlay -i "$run/bcm2837-rpi-3-b.dtb" -o "$run/pi3.dtb" "$run/cribbage-board.dtbo" || fail "the overlay does not apply to the Pi 3's tree"
# QEMU's BCM2835 DMA model stalls a DMA transfer into the SPI controller ("Blocked re-entrant IO on
# MemoryRegion: bcm2835-dma"), and the board's first frame with it: in the emulated tree only, SPI0 is
# left without DMA, so spi-bcm2835 feeds its FIFO by interrupts. A real Pi keeps the tree's DMA.
fdtput -d "$run/pi3.dtb" /soc/spi@7e204000 dmas
fdtput -d "$run/pi3.dtb" /soc/spi@7e204000 dma-names
if [ "$(fdtget "$run/pi3.dtb" /soc/spi@7e204000 status)" = okay ] && grep -qx 'dtparam=i2c_arm=on' "$run/config.txt" &&
    grep -q ' spidev.bufsiz=65536$' "$run/cmdline.txt" && grep -q 'root=LABEL=RASPIROOT' "$run/cmdline.txt" &&
    [ "$(sed -n '/^\[pi3\]/,/^\[/p' "$run/config.txt" | grep -c '^core_freq\(_min\)\?=250$')" -eq 2 ]; then
    check ok "boot files: config.txt has dtoverlay=cribbage-board (SPI0 and a spidev on in the Pi 3's tree once applied), dtparam=i2c_arm=on and [pi3] core_freq=250, core_freq_min=250; cmdline.txt: $(head -n 1 "$run/cmdline.txt")"
else
    check FAILED "boot files: config.txt $(grep -E '^(dtoverlay|dtparam|core_freq|\[)' "$run/config.txt" | tr '\n' ' '); cmdline.txt $(head -n 1 "$run/cmdline.txt")"
fi

# 6. The check in the root: a unit that runs tests/system/pi/check.sh at every boot.
dd if="$card" of="$run/root.img" bs=512 skip="$root_start" count="$root_size" status=none
cat >"$run/cribbage-pi-check.service" <<'EOF'
[Unit]
Description=tests/system/test-pi-image.sh: the check in the guest
After=cribbage-board.service cribbage-board-web.service cribbage-board-first-boot.service

[Service]
Type=exec
ExecStart=/bin/bash /usr/local/lib/cribbage-pi-check/check.sh

[Install]
WantedBy=multi-user.target
EOF
debugfs -w "$run/root.img" >/dev/null 2>"$run/debugfs.log" <<EOF || fail "debugfs could not write the check into the root"
mkdir /usr/local/lib/cribbage-pi-check
write $src/tests/system/pi/check.sh /usr/local/lib/cribbage-pi-check/check.sh
write $run/cribbage-pi-check.service /etc/systemd/system/cribbage-pi-check.service
symlink /etc/systemd/system/multi-user.target.wants/cribbage-pi-check.service /etc/systemd/system/cribbage-pi-check.service
EOF
dd if="$run/root.img" of="$card" bs=512 seek="$root_start" conv=notrunc status=none
rm -f "$run/root.img"

# 7. Boot, check, cut the power three times.
cmdline="$(head -n 1 "$run/cmdline.txt") quiet loglevel=3"
say "booting under qemu-system-aarch64 -M raspi3b (software emulation: minutes a boot)"
status=0
python3 "$src/tests/system/pi_image.py" "$card" "$run/vmlinuz" "$run/initrd.img" "$run/pi3.dtb" "$cmdline" \
    "$run/console.log" --cuts 3 --host-checks "$checks" || status=$?
say "done in $(($(date +%s) - started)) s; the guest's console in $run/console.log"
exit "$status"
