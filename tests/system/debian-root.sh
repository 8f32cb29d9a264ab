# Pieces shared by the checks that build a Debian root on this machine:
# tests/system/test-install-arm64.sh (the install in an arm64 chroot) and
# tests/system/test-boot-vm.sh (the service in a booted VM). Sourced, never run.
#
# The sourcing script sets `label` (the start of its FAILED line) and `root`
# (the root being worked on, "" for none) and may add to `mounted`; the trap
# that `cleanup` is meant for undoes the mounts and removes `root`.
# shellcheck shell=bash

# shellcheck disable=SC2034  # used by the scripts that source this
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=""
mounted=()
pip_env=()
started=$(date +%s)

need_root() {  # WHY: stop with exit 2 unless run as root.
    if [ "$(id -u)" -ne 0 ]; then
        echo "$(basename "$0"): run as root ($1)" >&2
        exit 2
    fi
}

say() { echo "[$(($(date +%s) - started))s] $*"; }
fail() {
    echo "${label:?}: FAILED: $*"
    exit 1
}

cleanup() {  # Undo the mounts (last first) and remove the root if nothing is mounted in it.
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
    done
    mounted=()
    if [ -n "$root" ] && ! grep -qF " $root/" /proc/mounts; then
        rm -rf --one-file-system "$root"
    fi
}

bind() {  # SOURCE DEST-in-root [mount options...]: mount and remember for the trap.
    local from=$1 to=$root$2
    shift 2
    mkdir -p "$to"
    mount "$@" "$from" "$to"
    mounted+=("$to")
}

in_root() {  # Run a command in the root with a clean environment (and the host's pip settings).
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "${pip_env[@]}" "$@"
}

host_packages() {  # PACKAGE[=VERSION]...: apt-get install those the host lacks (at VERSION, if given).
    local pkg missing=()
    for pkg in "$@"; do
        dpkg -s "${pkg%%=*}" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]}"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    fi
}

mount_system() {  # /proc, /sys, /dev and /dev/pts of the host in the root, and a /dev/shm of its own.
    bind proc /proc -t proc
    bind sysfs /sys -t sysfs
    bind /dev /dev --bind
    bind /dev/pts /dev/pts --bind
    bind tmpfs /dev/shm -t tmpfs -o mode=1777,nosuid,nodev  # as a booted system has it (--bind is not recursive)
}

no_service_starts() {  # Keep package scripts from starting services in the root (undo: rm the file).
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 0755 "$root/usr/sbin/policy-rc.d"
}

host_trust() {  # A chroot has neither the host's trust store nor its pip settings: copy them in.
    local conf var
    if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
        mkdir -p "$root/usr/local/share/ca-certificates"
        cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
        in_root update-ca-certificates >/dev/null 2>&1 || fail "update-ca-certificates in the root"
    fi
    for conf in /etc/pip.conf /etc/xdg/pip; do
        if [ -e "$conf" ]; then
            mkdir -p "$root$(dirname "$conf")"
            cp -r "$conf" "$root$(dirname "$conf")/"
        fi
    done
    pip_env=()
    while IFS= read -r var; do
        pip_env+=("$var")
    done < <(env | grep -E '^(PIP_[A-Z_]+|SSL_CERT_FILE|REQUESTS_CA_BUNDLE)=' | grep -v '^PIP_FIND_LINKS=' || true)
}

copy_tree() {  # SRC DEST: the working tree (tracked and new files, not the venv or caches).
    mkdir -p "$2"
    git -C "$1" ls-files -co --exclude-standard -z | tar -C "$1" --null -T - -cf - | tar -C "$2" -xf -
}
