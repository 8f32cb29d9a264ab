#!/usr/bin/env bash
# Set up this machine's Mosquitto for a cribbage club night (docs/club.md), the
# director's first command; the hub is the second (README, "Club night"):
#
#   sudo systemd/club-broker.sh 1 2 3 4      # the tables' names
#
# It installs Debian's mosquitto when it is missing, puts
# systemd/mosquitto-cribbage.conf in /etc/mosquitto/conf.d/cribbage.conf and the
# ACL beside it (a board may publish only its own table's topics), makes a broker
# user for the hub and one for each table (the user's name is the table's name),
# each with a password of its own, and restarts Mosquitto. The passwords are
# kept in /etc/mosquitto/cribbage-passwords.txt (root only) and printed with
# the line each board's config needs; the hub's is also written to
# ./hub.password for the director's user (mode 0600), for the hub's
# --password-file. Run it again with more tables to add them: the users made
# before keep their passwords.
#
# CRIBBAGE_MOSQUITTO_DIR (default /etc/mosquitto) and CRIBBAGE_BROKER_RESTART=no
# let the tests set up a broker in a folder of their own and start it themselves.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
dir="${CRIBBAGE_MOSQUITTO_DIR:-/etc/mosquitto}"
restart="${CRIBBAGE_BROKER_RESTART:-yes}"
kept="$dir/cribbage-passwords.txt"

fail() { echo "club-broker.sh: $*" >&2; exit 2; }

[ $# -gt 0 ] || fail "name the tables, e.g. sudo systemd/club-broker.sh 1 2 3 4"
for table in "$@"; do
    # The name rule of firmware/clubs.py: letters, digits, - and _, up to 32; hub is the hub's.
    [[ "$table" =~ ^[A-Za-z0-9_-]{1,32}$ ]] || fail "table name '$table': use letters, digits, - and _ (up to 32), e.g. 3"
    case "$table" in
        hub | homeassistant) fail "table name '$table' is a reserved user name: name the table otherwise" ;;
    esac
done

if [ "$dir" = /etc/mosquitto ]; then
    [ "$(id -u)" -eq 0 ] || fail "run it as root: sudo $0 $*"
    if ! command -v mosquitto_passwd >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q mosquitto mosquitto-clients >/dev/null \
            || fail "apt-get install mosquitto failed: install Mosquitto, then run this again"
    fi
fi
command -v mosquitto_passwd >/dev/null || fail "mosquitto_passwd not found: apt install mosquitto"

mkdir -p "$dir/conf.d"
sed -e "s|/etc/mosquitto/|$dir/|g" "$src/systemd/mosquitto-cribbage.conf" > "$dir/conf.d/cribbage.conf"
install -m 0640 "$src/systemd/mosquitto-cribbage.acl" "$dir/cribbage.acl"

( umask 077; touch "$kept" "$dir/cribbage.passwd" )
password_of() { awk -v user="$1" '$1 == user { print $2; exit }' "$kept"; }
new_password() { python3 -c 'import secrets; print(secrets.token_urlsafe(12))'; }

for user in hub "$@"; do
    password="$(password_of "$user")"
    if [ -z "$password" ]; then
        password="$(new_password)"
        echo "$user $password" >> "$kept"
    fi
    mosquitto_passwd -b "$dir/cribbage.passwd" "$user" "$password" 2>/dev/null
done

if getent group mosquitto >/dev/null; then
    chown root:mosquitto "$dir/cribbage.passwd" "$dir/cribbage.acl" 2>/dev/null || true
fi
chmod 0640 "$dir/cribbage.passwd" "$dir/cribbage.acl"

# The hub's password, for the director's --password-file.
( umask 077; password_of hub > hub.password )
if [ -n "${SUDO_USER:-}" ]; then chown "$SUDO_USER" hub.password; fi

if [ "$restart" = yes ]; then
    systemctl restart mosquitto || fail "Mosquitto did not restart: see journalctl -u mosquitto"
fi

echo "broker: $dir/conf.d/cribbage.conf, port 1883; users: hub $*"
echo "hub: --username hub --password-file $(pwd)/hub.password"
for table in "$@"; do
    echo "table $table: [club] table = \"$table\", username = \"$table\", password = \"$(password_of "$table")\""
done
