#!/usr/bin/env bash
# Prove the Pi install on ARM: tests/system/test-install-arm64.sh [bookworm|trixie]
#
# Builds a Debian arm64 root (debootstrap, run under qemu-user through
# binfmt_misc), copies this working tree in, runs systemd/install.sh there with
# CRIBBAGE_INSTALL_TARGET=chroot (the steps that need a booted systemd or the
# Pi's devices print "skipped: ..."), runs it a second time to show it changes
# nothing (the boot files, the users and groups), then makes the README's venv
# and runs the test suite inside the arm64 root. The last line is one summary such as
#   arm64 bookworm: install ok, 1517 passed, 43 skipped
# and the exit status is non-zero on any failure. Run as root; it takes many
# minutes (the base root is cached in /var/cache/cribbage-board-arm64, so a
# second run skips debootstrap). Not part of the default test run.
set -euo pipefail

release=${1:-bookworm}
case $release in
    bookworm | trixie) ;;
    *)
        echo "usage: $0 [bookworm|trixie]" >&2
        exit 2
        ;;
esac

src=$(cd "$(dirname "$0")/../.." && pwd)
cache=/var/cache/cribbage-board-arm64
base=$cache/$release-base.tar
label="arm64 $release"
# shellcheck source=tests/system/debian-root.sh
. "$src/tests/system/debian-root.sh"  # say, fail, cleanup, bind, in_root, host_trust, copy_tree
need_root "it uses apt-get, mount and chroot"
trap cleanup EXIT

# 1. The host's tools: debootstrap, qemu-user-static, binfmt-support.
host_packages debootstrap qemu-user-static binfmt-support
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if ! grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
    update-binfmts --enable qemu-aarch64
fi
grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || fail "binfmt_misc has no qemu-aarch64 entry"

# 2. The base root, built once and cached as a tarball.
mkdir -p "$cache"
if [ ! -s "$base" ]; then
    build=$(mktemp -d "$cache/build-$release.XXXXXX")
    root=$build
    say "debootstrap $release arm64 (first stage)"
    debootstrap --arch=arm64 --foreign --variant=minbase \
        --include=ca-certificates,python3,systemd "$release" "$build" "$mirror" >"$cache/debootstrap-$release.log" 2>&1 ||
        fail "debootstrap first stage, see $cache/debootstrap-$release.log"
    cp /usr/bin/qemu-aarch64-static "$build/usr/bin/"
    say "debootstrap second stage (under qemu)"
    chroot "$build" /debootstrap/debootstrap --second-stage >>"$cache/debootstrap-$release.log" 2>&1 ||
        fail "debootstrap second stage, see $cache/debootstrap-$release.log"
    tar --numeric-owner -C "$build" -cf "$base.part" . && mv "$base.part" "$base"
    rm -rf --one-file-system "$build"
    root=""
    say "cached the base root in $base"
fi

# 3. A fresh root for this run, with /proc, /sys, /dev, the host's CAs and pip settings.
root=$(mktemp -d "/var/tmp/cribbage-arm64-$release.XXXXXX")
tar --numeric-owner -C "$root" -xf "$base"
# mktemp -d made the root (and the cached tarball's ./) mode 0700: a root's / is 0755, or no
# user but root reaches anything in it (the tests that run as the board's and the web's users).
chmod 0755 "$root"
[ "$(chroot "$root" /usr/bin/uname -m)" = aarch64 ] || fail "the root does not run as aarch64"
# The root a mount point of its own, as a booted system's / is: else `unshare -m` in it cannot make /
# private ("cannot change root filesystem propagation") and the tests of read-only mounts would skip.
bind "$root" / --bind
mount_system
mkdir -p "$cache/pip-$release" "$cache/apt-$release/partial"
bind "$cache/pip-$release" /root/.cache/pip --bind       # wheels built once (rpi_ws281x, spidev, lgpio)
bind "$cache/apt-$release" /var/cache/apt/archives --bind
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
no_service_starts
echo "deb $mirror $release main" >"$root/etc/apt/sources.list"
host_trust

# A stand-in for Raspberry Pi OS's boot partition, so the config.txt and
# cmdline.txt edits run on files shaped like the real ones.
mkdir -p "$root/boot/firmware"
cat >"$root/boot/firmware/config.txt" <<'EOF'
# For more options and information see
# http://rptl.io/configtxt
# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on
dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1
auto_initramfs=1
dtoverlay=vc4-kms-v3d
max_framebuffers=2
disable_fw_kms_setup=1
arm_64bit=1
disable_overscan=1
arm_boost=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host
EOF
printf 'console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes rootwait\n' \
    >"$root/boot/firmware/cmdline.txt"

# 4. The working tree (tracked and new files, not the venv or caches), in /srv (0755), not /root
# (0700): the tests run the venv's python on it as other users (nobody, the board's and the web's),
# so every folder and file in it is readable by all, whatever the umask it was checked out with.
tree=/srv/cribbage-board
copy_tree "$src" "$root$tree"
chmod -R a+rX "$root$tree"

# 5. The install, twice.
log=$cache/install-$release.log
say "systemd/install.sh (CRIBBAGE_INSTALL_TARGET=chroot), log in $log"
in_root env CRIBBAGE_INSTALL_TARGET=chroot bash "$tree/systemd/install.sh" >"$log" 2>&1 ||
    { tail -n 30 "$log"; fail "install.sh exited non-zero"; }
grep '^skipped: ' "$log" || true
grep -E '^(config\.txt|cmdline\.txt): ' "$log" || true
boot_sum=$(cat "$root/boot/firmware/config.txt" "$root/boot/firmware/cmdline.txt" | md5sum)
accounts_sum=$(cat "$root"/etc/{passwd,group,shadow,gshadow} | md5sum)
say "systemd/install.sh again (it must change nothing)"
in_root env CRIBBAGE_INSTALL_TARGET=chroot bash "$tree/systemd/install.sh" >"$log.2" 2>&1 ||
    { tail -n 30 "$log.2"; fail "install.sh exited non-zero the second time"; }

# 6. What the install must have left.
cfg=$root/boot/firmware/config.txt
cmdline=$root/boot/firmware/cmdline.txt
[ "$(cat "$cfg" "$cmdline" | md5sum)" = "$boot_sum" ] || fail "the second install changed config.txt or cmdline.txt"
[ "$(cat "$root"/etc/{passwd,group,shadow,gshadow} | md5sum)" = "$accounts_sum" ] || fail "the second install changed the users or groups"
! grep -q '^SPI, I2C or the spidev buffer changed' "$log.2" || fail "the second install asked for a reboot again"
grep -q '^SPI, I2C or the spidev buffer changed' "$log" || fail "the first install did not ask for a reboot"
{ grep -qx 'dtparam=spi=on' "$cfg" && grep -qx 'dtparam=i2c_arm=on' "$cfg"; } || fail "config.txt lacks dtparam spi/i2c"
[ "$(tail -n 3 "$cfg" | head -n 1)" = "[all]" ] || fail "config.txt: the added lines are not under [all]"
{ [ "$(wc -l <"$cmdline")" -eq 1 ] && grep -q ' spidev.bufsiz=65536$' "$cmdline"; } || fail "cmdline.txt is not one line ending in spidev.bufsiz=65536"
rule=$root/etc/polkit-1/rules.d/50-cribbage-board.rules
[ "$(grep -v '^ *//' "$rule" | grep -o 'subject\.user == "[^"]*"')" = 'subject.user == "cribbage"' ] ||
    fail "the polkit rule does not name the user cribbage, and it alone"
in_root id -nG cribbage | tr ' ' '\n' | sort | tr '\n' ' ' | grep -q 'cribbage gpio i2c spi' || fail "user cribbage lacks its groups"
[ "$(in_root id -nG cribbage-web)" = cribbage ] || fail "user cribbage-web is not in the group cribbage alone"
[ "$(in_root getent passwd cribbage-web | cut -d: -f7)" = /usr/sbin/nologin ] || fail "user cribbage-web can log in"
grep -qx 'User=cribbage-web' "$root/etc/systemd/system/cribbage-board-web.service" || fail "the web unit does not run as cribbage-web"
[ -L "$root/etc/systemd/system/multi-user.target.wants/cribbage-board.service" ] || fail "the unit is not enabled"
[ -L "$root/etc/systemd/system/multi-user.target.wants/cribbage-board-web.service" ] || fail "the web unit is not enabled"
grep -qx 'To turn it off: sudo systemctl disable --now cribbage-board-web' "$log" || fail "the install did not say how to turn the web view off"
[ -f "$root/etc/cribbage-board/config.toml" ] || fail "no /etc/cribbage-board/config.toml"
in_root /opt/cribbage-board/venv/bin/python -c 'import gpiozero, lgpio, spidev, rpi_ws281x, luma.oled
from importlib.metadata import version
print("imports ok:", ", ".join(f"{name} {version(name)}" for name in ("gpiozero", "lgpio", "spidev", "rpi_ws281x", "luma.oled")))' ||
    fail "the installed venv cannot import the Pi libraries"
in_root /opt/cribbage-board/venv/bin/cribbage-board --help >/dev/null || fail "cribbage-board --help fails"
in_root /opt/cribbage-board/venv/bin/python -c 'import starlette, uvicorn' || fail "the installed venv lacks the web view's framework"
say "install ok"

# 7. The README's venv route and the test suite, on arm64. PYPI=1 lets lgpio's
# sdist build with its C library compiled in where PyPI has no wheel (Trixie's
# Python 3.13 on plain Debian, which has no python3-lgpio or liblgpio-dev).
say "README venv route and the test suite (under qemu: slow)"
tests_log=$cache/tests-$release.log
# The tools the tests use, as .ci/run installs them (Mosquitto for the club's tests, shellcheck, strace:
# qemu-user has no ptrace, so its test skips saying so), and node for the polkit rule's test; not
# Chromium: the browser tests skip (too heavy under qemu-user).
in_root apt-get install -y -q --no-install-recommends mosquitto shellcheck strace nodejs >"$tests_log" 2>&1 ||
    { tail -n 30 "$tests_log"; fail "apt-get install of the tests' tools failed"; }
in_root bash -c "cd $tree && umask 022 && python3 -m venv --system-site-packages .venv &&
    PYPI=1 .venv/bin/pip install -q -e '.[test]'" >>"$tests_log" 2>&1 ||
    { tail -n 30 "$tests_log"; fail "pip install -e .[test] failed"; }
status=0
# A worker a core (pyproject's -n 4 is for a machine that mostly waits): under qemu the tests are
# CPU-bound, and more workers would only stretch each test's waits towards their ceilings. The waits'
# ceiling is 120 s, not 30 (tests/waits.py): under qemu-user a board takes 30 s and more to play a game.
# The suite's fast lane (-m "not slow": every test but those marked slow, the boards and servers started as
# processes and the exhaustive counts) is what proves the install: the whole suite reached 5% in 16 minutes
# under qemu-user. CRIBBAGE_ARM64_TESTS="" runs it all.
lane=${CRIBBAGE_ARM64_TESTS-not slow}
in_root bash -c "cd $tree && CRIBBAGE_TEST_CEILING_S=120 .venv/bin/python -m pytest -q -p no:cacheprovider -n $(nproc) ${lane:+-m \"$lane\"}" >>"$tests_log" 2>&1 || status=$?
tail -n 15 "$tests_log"
summary=$(grep -E '^=*.*[0-9]+ (passed|failed|error)' "$tests_log" | tail -n 1 | sed -E 's/^=+ //; s/ in [0-9.]+s.*$//; s/ =+$//')
[ -n "$summary" ] || fail "no pytest summary line (exit $status), see $tests_log"
say "done in $(($(date +%s) - started)) s"
if [ "$status" -ne 0 ]; then
    echo "arm64 $release: install ok, ${lane:-all tests}: $summary"
    exit 1
fi
echo "arm64 $release: install ok, ${lane:-all tests}: $summary"
