#!/usr/bin/env bash
# Build the Raspberry Pi SD-card image: sudo systemd/build-image.sh [-o FOLDER]
#
# Makes cribbage-board-VERSION-arm64.img.xz and its .sha256 in FOLDER (the
# current one by default), for a Pi 3, Zero 2 W or 4, from Debian's packages
# alone (as Debian's raspi images are): a FAT partition RASPIFIRM with the Pi's
# GPU firmware, Debian's arm64 kernel, initrd and device trees, config.txt and
# the first-boot file cribbage-board.toml; an ext4 root RASPIROOT with the board
# and its web view installed by systemd/install.sh (CRIBBAGE_INSTALL_TARGET=image)
# from wheels built for arm64 here, so nothing compiles on the Pi. The recipe is
# systemd/image/ (the package list, config.txt's lines, the first-boot file, the
# units and settings of a card that lasts); systemd/README.md says what is in it.
#
# Three stages, each cached in CRIBBAGE_IMAGE_CACHE (/var/cache/cribbage-board-image):
#   root    Debian's packages (mmdebstrap --arch=arm64, run under qemu-user: slow,
#           about 30 minutes), kept as root-KEY.tar, KEY from the package list,
#           the release and the mirror;
#   wheels  the app's dependencies as arm64 wheels, built in a copy of that root
#           with gcc (which the image never gets), kept as wheels-KEY/;
#   image   this tree's wheel, the install, the settings, and the two file systems,
#           made again each time, every file's time clamped to the tree's last commit
#           (SOURCE_DATE_EPOCH, change times too) and fixed UUIDs.
# DEBIAN_MIRROR names the archive (a snapshot.debian.org/archive/debian/TIME address
# pins every package); the manifest of package versions is written beside the image.
# Run as root on an amd64 or arm64 Debian or Ubuntu host.
set -euo pipefail

usage() { echo "usage: sudo $0 [-o FOLDER]"; }
out=$PWD
while [ $# -gt 0 ]; do
    case $1 in
        -o) [ $# -ge 2 ] || { usage >&2; exit 2; }; out=$2; shift ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
    shift
done
if [ "$(id -u)" -ne 0 ]; then
    echo "build-image.sh: run as root (mmdebstrap, chroot and mkfs): sudo $0" >&2
    exit 2
fi

src=$(cd "$(dirname "$0")/.." && pwd)
recipe=$src/systemd/image
release=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
cache=${CRIBBAGE_IMAGE_CACHE:-/var/cache/cribbage-board-image}
version=$(sed -n 's/^__version__ = "\([^"]*\)".*/\1/p' "$src/firmware/__init__.py")
name=cribbage-board-$version-arm64.img
started=$(date +%s)
work=""
app=""
mounted=()

say() { echo "[$(($(date +%s) - started))s] $*"; }
fail() { echo "build-image.sh: $*" >&2; exit 1; }
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
    done
    if [ -n "$work" ] && ! grep -qF " $work/" /proc/mounts; then rm -rf --one-file-system "$work"; fi
    [ -z "$app" ] || rm -rf "$app"
}
trap cleanup EXIT

host_packages() {  # PACKAGE...: apt-get install those the host lacks.
    local pkg missing=()
    for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]} on this host"
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
    fi
}

mount_system() {  # ROOT: /proc, /sys, /dev of the host in ROOT, for a chroot.
    local dir
    for dir in proc sys dev dev/pts; do
        mkdir -p "$1/$dir"
        case $dir in
            proc) mount -t proc proc "$1/proc" ;;
            sys) mount -t sysfs sysfs "$1/sys" ;;
            *) mount --bind "/$dir" "$1/$dir" ;;
        esac
        mounted+=("$1/$dir")
    done
}

unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || umount -l "${mounted[i]}"; done
    mounted=()
}

in_root() {  # ROOT COMMAND...: run in ROOT with a clean environment.
    local dir=$1
    shift
    chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}

packages() { grep -v '^#' "$recipe/packages" | grep -v '^$' | paste -sd, -; }

host_packages mmdebstrap qemu-user-static binfmt-support arch-test dosfstools mtools fdisk e2fsprogs \
    xz-utils device-tree-compiler python3-venv
if [ "$(dpkg --print-architecture)" != arm64 ]; then
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null || update-binfmts --enable qemu-aarch64
    grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || fail "binfmt_misc has no qemu-aarch64 entry"
fi
mkdir -p "$cache" "$out"

# --- 1. root: Debian's packages, cached.
root_key=$( (echo "$release $mirror $security"; packages) | sha256sum | cut -c1-16)
root_tar=$cache/root-$root_key.tar
if [ ! -s "$root_tar" ]; then
    say "root: mmdebstrap $release arm64 (under qemu-user: about 30 minutes), log in $cache/root-$root_key.log"
    components="main non-free-firmware"
    mmdebstrap --arch=arm64 --variant=apt --components="$components" --include="$(packages)" \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
        --dpkgopt='path-include=/usr/share/locale/locale.alias' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/info/*' \
        "$release" "$cache/root-$root_key.part.tar" \
        "deb $mirror $release $components" \
        "deb $mirror $release-updates $components" \
        "deb $security $release-security $components" >"$cache/root-$root_key.log" 2>&1 ||
        { tail -n 20 "$cache/root-$root_key.log"; fail "mmdebstrap failed, see $cache/root-$root_key.log"; }
    mv "$cache/root-$root_key.part.tar" "$root_tar"
    say "root: cached in $root_tar"
fi

trust() {  # ROOT: this host's CA certificates and pip settings, for the downloads of the wheels stage only.
    local conf
    if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
        mkdir -p "$1/usr/local/share/ca-certificates"
        cp -r /usr/local/share/ca-certificates/. "$1/usr/local/share/ca-certificates/"
        in_root "$1" update-ca-certificates >/dev/null 2>&1 || fail "update-ca-certificates in the wheels' root"
    fi
    for conf in /etc/pip.conf /etc/xdg/pip; do
        [ ! -e "$conf" ] || { mkdir -p "$1$(dirname "$conf")"; cp -r "$conf" "$1$(dirname "$conf")/"; }
    done
}

unpack_root() {  # FOLDER: a fresh copy of the cached root in FOLDER.
    mkdir -p "$1"
    tar --numeric-owner -C "$1" -xf "$root_tar"
    chmod 0755 "$1"
}

# --- 2. wheels: the app's dependencies built for arm64, cached.
app=$(mktemp -d)
{ python3 -m venv "$app/venv" && "$app/venv/bin/pip" -q wheel --no-deps -w "$app/wheel" "$src" >/dev/null; } ||
    fail "could not build the app's wheel from $src"
app_wheel=$(ls "$app"/wheel/cribbage_board-*.whl)
wheels_key=$( (echo "$root_key"; sed -n '/^dependencies = \[/,/^\]/p' "$src/pyproject.toml") | sha256sum | cut -c1-16)
wheels=$cache/wheels-$wheels_key
if [ ! -d "$wheels" ]; then
    work=$(mktemp -d "$cache/wheels-build.XXXXXX")
    say "wheels: the app's dependencies for arm64 (compiled under qemu-user), log in $cache/wheels-$wheels_key.log"
    unpack_root "$work"
    mount_system "$work"
    rm -f "$work/etc/resolv.conf" && cp -L /etc/resolv.conf "$work/etc/resolv.conf"  # the image's is resolved's stub: a dangling link here
    trust "$work"
    mkdir -p "$work/tmp/app" && cp "$app_wheel" "$work/tmp/app/"
    {
        in_root "$work" apt-get update -q &&
            in_root "$work" apt-get install -y -q --no-install-recommends gcc libc6-dev python3-dev swig &&
            in_root "$work" python3 -m venv /tmp/venv &&
            in_root "$work" /tmp/venv/bin/pip install wheel &&  # rpi_ws281x's sdist builds with setup.py bdist_wheel
            in_root "$work" env PYPI=1 PIP_DEFAULT_TIMEOUT=180 /tmp/venv/bin/pip wheel -w /tmp/wheels "/tmp/app/$(basename "$app_wheel")"
    } >"$cache/wheels-$wheels_key.log" 2>&1 || { tail -n 20 "$cache/wheels-$wheels_key.log"; fail "the wheels stage failed"; }
    rm -f "$work"/tmp/wheels/cribbage_board-*.whl
    mv "$work/tmp/wheels" "$wheels.part" && mv "$wheels.part" "$wheels"
    unmount_all
    rm -rf --one-file-system "$work"
    work=""
    say "wheels: cached in $wheels ($(find "$wheels" -name '*.whl' | wc -l) wheels)"
fi

# --- 3. image: the app and the card's settings on a fresh copy of the root, then the file systems.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)}
work=$(mktemp -d "$cache/image-build.XXXXXX")
root=$work/root
say "image: the app, its units and the card's settings"
unpack_root "$root"
mount_system "$root"
cp -a "$recipe/rootfs/." "$root/"
install -m 0644 "$recipe/config.txt" "$root/etc/default/raspi-firmware-custom"
kernel=$(ls "$root/lib/modules")
in_root "$root" env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware "$kernel" >"$work/boot.log" 2>&1 ||
    { cat "$work/boot.log"; fail "raspi-firmware's hook could not write the boot files"; }
mkdir -p "$root/boot/firmware/overlays"
dtc -q -@ -I dts -O dtb -o "$root/boot/firmware/overlays/cribbage-board.dtbo" "$recipe/cribbage-board-overlay.dts"
install -m 0644 "$recipe/cribbage-board.toml" "$root/boot/firmware/cribbage-board.toml"
mkdir -p "$root/tmp/wheels" "$root/tmp/src"
cp "$wheels"/*.whl "$app_wheel" "$root/tmp/wheels/"
git -C "$src" ls-files -co --exclude-standard -z | tar -C "$src" --null -T - -cf - | tar -C "$root/tmp/src" -xf -
# SOURCE_DATE_EPOCH: useradd's day of the last password change in /etc/shadow is the commit's, not today's.
in_root "$root" env CRIBBAGE_INSTALL_TARGET=image CRIBBAGE_WHEELS=/tmp/wheels PIP_NO_COMPILE=1 \
    SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" bash /tmp/src/systemd/install.sh >"$work/install.log" 2>&1 || { tail -n 30 "$work/install.log"; fail "install.sh failed in the image"; }
grep '^skipped: ' "$work/install.log" || true
in_root "$root" systemctl enable cribbage-board-first-boot.service cribbage-board-grow-root.service \
    systemd-networkd.service systemd-resolved.service systemd-timesyncd.service >/dev/null 2>&1
in_root "$root" systemctl disable ssh.service apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
    systemd-networkd-wait-online.service >/dev/null 2>&1 || true
# shellcheck disable=SC2016  # dpkg-query's own ${field} syntax
in_root "$root" dpkg-query -W -f '${Package} ${Version} ${Architecture}\n' >"$work/manifest"
in_root "$root" /opt/cribbage-board/venv/bin/pip freeze --all >>"$work/manifest"
unmount_all

# Kernel modules for hardware no Pi 3, Zero 2 W or 4 has (systemd/image/modules-left-out).
leave_out_modules() {
    local modules=$root/usr/lib/modules/$kernel/kernel line path keep
    local -a keeps=()
    while IFS= read -r line; do
        [[ $line == '!'* ]] && keeps+=("${line#!}")
    done < <(grep -v '^#' "$recipe/modules-left-out")
    while IFS= read -r line; do
        { [ -n "$line" ] && [[ $line != '!'* ]]; } || continue
        for path in "$modules"/$line; do
            [ -e "$path" ] || continue
            for keep in "${keeps[@]}"; do [ "$path" != "$modules/$keep" ] || continue 2; done
            rm -rf "$path"
        done
    done < <(grep -v '^#' "$recipe/modules-left-out")
}
leave_out_modules
in_root "$root" depmod -a "$kernel"

# What no two cards should share, and what only a running Pi should make.
rm -f "$root"/etc/ssh/ssh_host_* "$root/var/lib/dbus/machine-id" "$root/etc/resolv.conf"
ln -s ../run/systemd/resolve/stub-resolv.conf "$root/etc/resolv.conf"
: >"$root/etc/machine-id"
rm -rf "$root"/tmp/* "$root"/var/tmp/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
    "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/debconf/*-old "$root"/var/lib/dpkg/*-old \
    "$root"/root/.cache "$root"/var/log/*.log "$root"/var/log/apt/* "$root"/var/log/journal "$root"/var/cache/ldconfig/aux-cache
# Every time to the tree's last commit, then the app's bytecode made again for those times (what pip
# compiled as it installed names the times before: none kept), so that the same tree gives the same files.
find "$root" -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"
find "$root/opt/cribbage-board/venv" -name __pycache__ -prune -exec rm -rf {} +
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin /opt/cribbage-board/venv/bin/python -m compileall -q \
    -x '/(tests?|test_[^/]*)/' /opt/cribbage-board/venv/lib >/dev/null || true
find "$root" -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"

# mkfs.ext4 -d copies each file's change time, which only the kernel sets (to when this host unpacked
# it), and its access time (moved by a read since the clamp, compileall's): every inode in use (all
# but the free ones dumpe2fs lists) gets SOURCE_DATE_EPOCH for both.
clamp_change_times() {  # EXT4_IMAGE
    local ext=$1
    dumpe2fs "$ext" 2>/dev/null | awk -v when="@$SOURCE_DATE_EPOCH" '
        /^Inodes per group:/ { per = $4 }
        /^Group [0-9]+:/ { group = substr($2, 1, length($2) - 1) + 0 }
        /^  Free inodes:/ {
            split("", free)
            n = split(substr($0, index($0, ":") + 2), ranges, ", ")
            for (i = 1; i <= n; i++) {
                if (ranges[i] == "") continue
                m = split(ranges[i], ends, "-")
                for (k = ends[1] + 0; k <= ends[m] + 0; k++) free[k] = 1
            }
            for (k = group * per + 1; k <= (group + 1) * per; k++)
                if (!(k in free)) print "set_inode_field <" k "> ctime " when "\nset_inode_field <" k "> atime " when
        }' >"$work/ctimes"
    [ -s "$work/ctimes" ] || fail "dumpe2fs listed no inode in use in $ext"
    E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH debugfs -w -f "$work/ctimes" "$ext" >/dev/null 2>"$work/ctimes.log" ||
        { cat "$work/ctimes.log"; fail "debugfs could not set the change times"; }
    ! grep -v '^debugfs [0-9.]* (' "$work/ctimes.log" || fail "debugfs refused a change time"
}

# --- The card: a FAT partition (the firmware's folder) and the ext4 root, on an MBR.
say "image: the file systems"
fat_mib=192  # room for two kernels with their initrds while an upgrade runs (about 70 MB each), and the firmware
fat=$work/fat.img
truncate -s "${fat_mib}M" "$fat"
mkfs.fat -F 32 --invariant -i 43524942 -n RASPIFIRM "$fat" >/dev/null
(cd "$root/boot/firmware" && find . -mindepth 1 -maxdepth 1 -printf '%P\n' | LC_ALL=C sort |
    while IFS= read -r entry; do MTOOLS_SKIP_CHECK=1 mcopy -s -p -m -i "$fat" "$entry" ::; done)
rm -rf "${root:?}"/boot/firmware/* "${root:?}"/boot/firmware/.[!.]* 2>/dev/null || true
touch -d "@$SOURCE_DATE_EPOCH" "$root/boot/firmware"  # emptied: its own time moved
used_mib=$(du -s -B1M --apparent-size "$root" | cut -f1)
root_mib=$(( (used_mib + used_mib / 20 + 64 + 3) / 4 * 4 ))  # small: the first boot grows it to the card
ext=$work/root.img
E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -F -L RASPIROOT -U 5241535f-524f-4f54-8000-435249424247 \
    -E hash_seed=5241535f-524f-4f54-8000-435249424247,root_owner=0:0 -T default -d "$root" "$ext" "${root_mib}M" ||
    fail "mkfs.ext4 -d"
clamp_change_times "$ext"
img=$work/$name
truncate -s "$((4 + fat_mib + root_mib))M" "$img"
sfdisk --quiet "$img" <<PARTS
label: dos
label-id: 0x43524942
unit: sectors
start=8192, size=$((fat_mib * 2048)), type=c
start=$((8192 + fat_mib * 2048)), size=$((root_mib * 2048)), type=83
PARTS
dd if="$fat" of="$img" bs=1M seek=4 conv=notrunc,fsync status=none
dd if="$ext" of="$img" bs=1M seek=$((4 + fat_mib)) conv=notrunc,fsync status=none
say "image: xz"
xz -T2 -6 -c "$img" >"$out/$name.xz.part"
mv "$out/$name.xz.part" "$out/$name.xz"
cp "$work/manifest" "$out/$name.manifest"
(cd "$out" && sha256sum "$name.xz" >"$name.xz.sha256")
say "made $out/$name.xz: $(stat -c %s "$out/$name.xz") bytes packed, $(stat -c %s "$img") unpacked; sha256 $(cut -d' ' -f1 "$out/$name.xz.sha256")"
