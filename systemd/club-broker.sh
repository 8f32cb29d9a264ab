#!/usr/bin/env bash
# Set up this machine's Mosquitto for a cribbage club night (docs/club.md), the
# director's first command; the hub is the second (README, "Club night"):
#
#   sudo systemd/club-broker.sh --club thursday 1 2 3 4      # the club's name, then its tables'
#   sudo systemd/club-broker.sh --club thursday --tls 1 2 3 4   # the same over TLS (port 8883)
#
# It installs Debian's mosquitto when it is missing, puts
# systemd/mosquitto-cribbage.conf in /etc/mosquitto/conf.d/cribbage.conf and the
# ACL beside it for the club (a board may publish only its own table's topics),
# makes a broker user for the hub and one for each table (the user's name is the
# table's name), each with a password of its own, and restarts Mosquitto. The
# passwords are kept in /etc/mosquitto/cribbage-passwords.txt (root only). It
# prints the hub's command and, for each table, the whole [club] section its
# board's config needs; the hub's password is also written to ./hub.password for
# the director's user (mode 0600), for the hub's --password-file. Run it again
# with more tables to add them: the users made before keep their passwords.
#
# Options:
#   --club NAME      the club's name in the topics (needed)
#   --address HOST   the broker's address the boards are given (default: this
#                    machine's first IPv4 address, as hostname -I says it; an
#                    IPv6 address is written in brackets in the boards' URLs)
#   --tls            one TLS listener on 8883 in place of 1883: a CA and the
#                    broker's certificate are made once in DIR/cribbage-tls/, and
#                    each board is given ca_file (copy DIR/cribbage-tls/ca.crt to it)
#
# Where there is no systemd (a container, another init), it sets everything up,
# prints it, and says how to start Mosquitto instead of restarting it.
#
# Environment:
#   CRIBBAGE_MOSQUITTO_DIR=DIR   write everything under DIR instead of /etc/mosquitto
#                                (DIR/conf.d/cribbage.conf, for a mosquitto.conf of
#                                your own to include); root is not needed then
#   CRIBBAGE_BROKER_RESTART=no   leave Mosquitto alone (start or restart it yourself)
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
dir="${CRIBBAGE_MOSQUITTO_DIR:-/etc/mosquitto}"
restart="${CRIBBAGE_BROKER_RESTART:-yes}"
kept="$dir/cribbage-passwords.txt"
tlsdir="$dir/cribbage-tls"

fail() { echo "club-broker.sh: $*" >&2; exit 2; }

club="" address="" tls=no tables=()
while [ $# -gt 0 ]; do
    case "$1" in
        --club) [ $# -ge 2 ] || fail "--club needs the club's name, e.g. --club thursday"; club="$2"; shift 2 ;;
        --club=*) club="${1#--club=}"; shift ;;
        --address) [ $# -ge 2 ] || fail "--address needs the broker's address, e.g. --address 192.168.1.20"
                   address="$2"; shift 2 ;;
        --address=*) address="${1#--address=}"; shift ;;
        --tls) tls=yes; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        -*) fail "no option '$1': use --club NAME, --address HOST, --tls, then the tables' names" ;;
        *) tables+=("$1"); shift ;;
    esac
done

# The name rule of firmware/clubs.py: letters, digits, - and _, up to 32.
name_rule='^[A-Za-z0-9_-]{1,32}$'
[ -n "$club" ] || fail "name the club: sudo $0 --club thursday 1 2 3 4"
[[ "$club" =~ $name_rule ]] || fail "club name '$club': use letters, digits, - and _ (up to 32), e.g. thursday"
[ ${#tables[@]} -gt 0 ] || fail "name the tables, e.g. sudo $0 --club $club 1 2 3 4"
for table in "${tables[@]}"; do
    [[ "$table" =~ $name_rule ]] || fail "table name '$table': use letters, digits, - and _ (up to 32), e.g. 3"
    case "$table" in
        hub | homeassistant) fail "table name '$table' is a reserved user name: name the table otherwise" ;;
    esac
done
if [ -z "$address" ]; then  # this machine's first IPv4 address, else its first address, else its name
    found="$( (hostname -I 2>/dev/null || true) | tr ' ' '\n' | grep -v '^$' || true)"
    address="$(grep -m 1 -E '^[0-9.]+$' <<<"$found" || head -n 1 <<<"$found")"
    [ -n "$address" ] || address="$(hostname)"
fi
address="${address#[}" address="${address%]}"
[[ "$address" =~ ^[A-Za-z0-9.:_-]{1,253}$ ]] || fail "address '$address': give a host name or an IP address"
host="$address"
[[ "$address" != *:* ]] || host="[$address]"  # an IPv6 address, in a URL

if [ "$dir" = /etc/mosquitto ]; then
    [ "$(id -u)" -eq 0 ] || fail "run it as root: sudo $0 --club $club ${tables[*]}"
    if ! command -v mosquitto_passwd >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q mosquitto mosquitto-clients >/dev/null \
            || fail "apt-get install mosquitto failed: install Mosquitto, then run this again"
    fi
fi
command -v mosquitto_passwd >/dev/null || fail "mosquitto_passwd not found: apt install mosquitto"
[ "$tls" = no ] || command -v openssl >/dev/null || fail "openssl not found: apt install openssl (for --tls)"

mkdir -p "$dir/conf.d"
if [ "$tls" = yes ]; then
    port=8883 scheme=mqtts
    # One CA for the club, made once (the boards keep its certificate); the broker's own
    # certificate is made again when it does not name the address the boards are given.
    mask="$(umask)"
    umask 077  # the keys are born private
    mkdir -p "$tlsdir"
    if [ ! -s "$tlsdir/ca.crt" ] || [ ! -s "$tlsdir/ca.key" ]; then
        openssl req -x509 -newkey rsa:3072 -nodes -days 3650 -subj "/CN=cribbage club $club CA" \
            -keyout "$tlsdir/ca.key" -out "$tlsdir/ca.crt" >/dev/null 2>&1 || fail "openssl could not make the CA"
    fi
    names_address() {
        openssl x509 -in "$tlsdir/broker.crt" -noout -checkhost "$address" 2>/dev/null | grep -q 'does match' \
            || openssl x509 -in "$tlsdir/broker.crt" -noout -checkip "$address" 2>/dev/null | grep -q 'does match'
    }
    if [ ! -s "$tlsdir/broker.crt" ] || ! names_address; then
        names="DNS:localhost,IP:127.0.0.1,DNS:$(hostname)"
        if [[ "$address" =~ ^[0-9.]+$ || "$address" == *:* ]]; then names="$names,IP:$address"; else names="$names,DNS:$address"; fi
        openssl req -newkey rsa:3072 -nodes -subj "/CN=$address" -keyout "$tlsdir/broker.key" \
            -out "$tlsdir/broker.csr" >/dev/null 2>&1 || fail "openssl could not make the broker's key"
        printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$names" > "$tlsdir/broker.ext"
        openssl x509 -req -in "$tlsdir/broker.csr" -CA "$tlsdir/ca.crt" -CAkey "$tlsdir/ca.key" -CAcreateserial \
            -days 3650 -extfile "$tlsdir/broker.ext" -out "$tlsdir/broker.crt" >/dev/null 2>&1 \
            || fail "openssl could not sign the broker's certificate"
        rm -f "$tlsdir/broker.csr" "$tlsdir/broker.ext"
    fi
    chmod 0644 "$tlsdir/ca.crt" "$tlsdir/broker.crt"
    chmod 0640 "$tlsdir/broker.key"
    chmod 0600 "$tlsdir/ca.key"
    chmod 0755 "$tlsdir"
    umask "$mask"
    listener="listener 8883\ncafile $tlsdir/ca.crt\ncertfile $tlsdir/broker.crt\nkeyfile $tlsdir/broker.key\ntls_version tlsv1.2"
else
    port=1883 scheme=mqtt
    listener="listener 1883"
fi
sed -e "s|/etc/mosquitto/|$dir/|g" -e "s|^listener 1883\$|$listener|" "$src/systemd/mosquitto-cribbage.conf" \
    > "$dir/conf.d/cribbage.conf"
( umask 027; sed -e "s|@CLUB@|$club|g" "$src/systemd/mosquitto-cribbage.acl" > "$dir/cribbage.acl" )

( umask 077; touch "$kept" "$dir/cribbage.passwd" )
password_of() { awk -v user="$1" '$1 == user { print $2; exit }' "$kept"; }
new_password() { python3 -c 'import secrets; print(secrets.token_urlsafe(12))'; }

for user in hub "${tables[@]}"; do
    password="$(password_of "$user")"
    if [ -z "$password" ]; then
        password="$(new_password)"
        echo "$user $password" >> "$kept"
    fi
    mosquitto_passwd -b "$dir/cribbage.passwd" "$user" "$password" 2>/dev/null
done

if getent group mosquitto >/dev/null; then
    chown root:mosquitto "$dir/cribbage.passwd" "$dir/cribbage.acl" 2>/dev/null || true
    [ "$tls" = no ] || chown root:mosquitto "$tlsdir/broker.key" 2>/dev/null || true
fi
chmod 0640 "$dir/cribbage.passwd" "$dir/cribbage.acl"

# The hub's password, for the director's --password-file.
( umask 077; password_of hub > hub.password )
if [ -n "${SUDO_USER:-}" ]; then chown "$SUDO_USER" hub.password; fi

ca_option="" ca_line=""
if [ "$tls" = yes ]; then
    ca_option=" --ca-file $tlsdir/ca.crt"
    ca_line='ca_file = "/etc/cribbage-board/club-ca.pem"   # a copy of '"$tlsdir/ca.crt"
fi
echo "broker: $scheme://$host:$port (config $dir/conf.d/cribbage.conf, ACL $dir/cribbage.acl); users: hub ${tables[*]}"
echo "hub: cribbage-board hub --broker $scheme://localhost:$port --club $club --username hub --password-file $(pwd)/hub.password$ca_option"
for table in "${tables[@]}"; do
    echo
    echo "[club]   # table $table: in /etc/cribbage-board/config.toml on its board"
    echo "broker = \"$scheme://$host:$port\""
    echo "name = \"$club\""
    echo "table = \"$table\""
    echo "username = \"$table\""
    echo "password = \"$(password_of "$table")\""
    [ -z "$ca_line" ] || echo "$ca_line"
done
echo
if [ "$restart" != yes ]; then
    echo "Mosquitto was left alone (CRIBBAGE_BROKER_RESTART=$restart): start or restart it to take this up."
elif [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    systemctl restart mosquitto || fail "Mosquitto did not restart: see journalctl -u mosquitto"
    echo "Mosquitto restarted with it."
else
    # Debian's /etc/mosquitto/mosquitto.conf includes conf.d/; a folder of one's own may have no such file,
    # and conf.d/cribbage.conf is a whole config by itself (its sessions then kept in memory only).
    config="$dir/mosquitto.conf"
    grep -qs "^include_dir $dir/conf.d" "$config" || config="$dir/conf.d/cribbage.conf"
    echo "No systemd here to restart Mosquitto: start it with  mosquitto -d -c $config" \
         "(or stop the one running first: pkill -x mosquitto)."
fi
