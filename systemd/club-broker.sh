#!/usr/bin/env bash
# Set up this machine's Mosquitto for a cribbage club night (docs/club.md), the
# director's first command; the hub is the second (docs/club.md, "Set-up"):
#
#   sudo systemd/club-broker.sh --club thursday 1 2 3 4      # the club's name, then its tables'
#   sudo systemd/club-broker.sh --club thursday --tls 1 2 3 4   # the same over TLS (port 8883)
#
# It installs Debian's mosquitto when it is missing, puts
# systemd/mosquitto-cribbage.conf in /etc/mosquitto/conf.d/cribbage.conf and the
# ACL beside it for the club (a board may publish only its own table's topics),
# makes a broker user for the hub, one for Home Assistant (homeassistant, which
# the ACL lets read the whole club and write its own topics) and one for each
# table (the user's name is the table's name), each with a password of its own,
# and restarts Mosquitto. The passwords are kept in
# /etc/mosquitto/cribbage-passwords.txt (root only). It prints the hub's command,
# Home Assistant's broker settings (the password only the run that makes it)
# and, for each table, the whole [club] section its board's config needs; the
# hub's password is also written to ./hub.password for the director's user
# (mode 0600), for the hub's --password-file, and Home Assistant's to
# ./homeassistant.password. Run it again with more tables to add them: the users
# made before keep their passwords.
#
# A regional event (docs/club.md, "A regional event"): one broker per room, each
# bridged with Mosquitto's own bridge to a central broker, where the hub runs:
#
#   sudo systemd/club-broker.sh --club spring --tls --room north=1,2,3 --room south=4,5   # the centre
#   sudo systemd/club-broker.sh --club spring --room north --bridge-to 192.168.1.20:8883 \
#       --bridge-password-file bridge-north.password --bridge-ca centre-ca.crt 1 2 3   # room north
#
# At the centre, each --room NAME=TABLES makes a login for that room's bridge,
# bridge-NAME, which the ACL (systemd/mosquitto-cribbage-bridge.acl) lets publish
# only those tables' topics; its password is written to ./bridge-NAME.password,
# and the room's own command is printed. Rooms named before are kept (in
# DIR/cribbage-rooms.txt; --room NAME=TABLES again changes a room's tables). In a
# room, --bridge-to makes the room's broker a bridge to the centre
# (systemd/mosquitto-cribbage-bridge.conf: its tables' topics out, the hub's back),
# with users for its tables and Home Assistant, and none for a hub (the room's
# hub is the centre's; a room's Home Assistant reads the room's broker).
#
# Options:
#   --club NAME      the club's name in the topics (needed)
#   --address HOST   the broker's address the boards are given (default: this
#                    machine's first IPv4 address, as hostname -I says it; an
#                    IPv6 address is written in brackets in the boards' URLs)
#   --tls            one TLS listener on 8883 in place of 1883: a CA and the
#                    broker's certificate are made once in DIR/cribbage-tls/, and
#                    each board is given ca_file (copy DIR/cribbage-tls/ca.crt to it)
#   --room NAME=T1,T2,...      at the centre: a room's bridge, and its tables (repeatable)
#   --room NAME --bridge-to HOST[:PORT]   in a room: bridge this broker to the centre's
#                    (PORT: 8883 with --bridge-ca, else 1883; an IPv6 address in brackets)
#   --bridge-password-file FILE   the room's bridge password, as the centre wrote it
#   --bridge-ca FILE the centre's CA (its cribbage-tls/ca.crt): the bridge uses TLS
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
rooms_file="$dir/cribbage-rooms.txt"

fail() { echo "club-broker.sh: $*" >&2; exit 2; }

club="" address="" tls=no tables=() rooms=() bridge_to="" bridge_password_file="" bridge_ca=""
while [ $# -gt 0 ]; do
    case "$1" in
        --club) [ $# -ge 2 ] || fail "--club needs the club's name, e.g. --club thursday"; club="$2"; shift 2 ;;
        --club=*) club="${1#--club=}"; shift ;;
        --address) [ $# -ge 2 ] || fail "--address needs the broker's address, e.g. --address 192.168.1.20"
                   address="$2"; shift 2 ;;
        --address=*) address="${1#--address=}"; shift ;;
        --tls) tls=yes; shift ;;
        --room) [ $# -ge 2 ] || fail "--room needs a room, e.g. --room north=1,2,3 (or --room north with --bridge-to)"
                rooms+=("$2"); shift 2 ;;
        --room=*) rooms+=("${1#--room=}"); shift ;;
        --bridge-to) [ $# -ge 2 ] || fail "--bridge-to needs the centre's broker, e.g. --bridge-to 192.168.1.20:8883"
                     bridge_to="$2"; shift 2 ;;
        --bridge-to=*) bridge_to="${1#--bridge-to=}"; shift ;;
        --bridge-password-file) [ $# -ge 2 ] || fail "--bridge-password-file needs a file, e.g. bridge-north.password"
                                bridge_password_file="$2"; shift 2 ;;
        --bridge-password-file=*) bridge_password_file="${1#--bridge-password-file=}"; shift ;;
        --bridge-ca) [ $# -ge 2 ] || fail "--bridge-ca needs the centre's CA file, e.g. centre-ca.crt"
                     bridge_ca="$2"; shift 2 ;;
        --bridge-ca=*) bridge_ca="${1#--bridge-ca=}"; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        -*) fail "no option '$1': use --club NAME, --address HOST, --tls, --room, --bridge-to, then the tables' names" ;;
        *) tables+=("$1"); shift ;;
    esac
done

# The name rule of firmware/club_settings.py: letters, digits, - and _, up to 32.
name_rule='^[A-Za-z0-9_-]{1,32}$'
[ -n "$club" ] || fail "name the club: sudo $0 --club thursday 1 2 3 4"
[[ "$club" =~ $name_rule ]] || fail "club name '$club': use letters, digits, - and _ (up to 32), e.g. thursday"
check_table() {
    [[ "$1" =~ $name_rule ]] || fail "table name '$1': use letters, digits, - and _ (up to 32), e.g. 3"
    case "$1" in  # the logins that are not tables (firmware/club_settings.py)
        hub | homeassistant | bridge-*) fail "table name '$1' is a reserved user name: name the table otherwise" ;;
    esac
}
for table in "${tables[@]}"; do check_table "$table"; done
check_room() {
    [[ "$1" =~ $name_rule ]] || fail "room name '$1': use letters, digits, - and _ (up to 32), e.g. north"
}

# A room bridged to the centre (--bridge-to), or a broker that may be the centre of rooms (--room NAME=...).
room="" centre_host="" centre_port="" bridge_password=""
declare -A room_tables=()
if [ -n "$bridge_to" ]; then
    if [ ${#rooms[@]} -ne 1 ] || [[ "${rooms[0]}" == *=* ]]; then
        fail "with --bridge-to, name this room once: --room north (its tables are the tables named)"
    fi
    room="${rooms[0]}"
    check_room "$room"
    [ ${#tables[@]} -gt 0 ] || fail "name the room's tables, e.g. sudo $0 --club $club --room $room --bridge-to HOST 1 2 3"
    case "$bridge_to" in
        \[*\]:*) centre_host="${bridge_to%%]:*}" centre_port="${bridge_to##*]:}" ;;
        \[*\]) centre_host="${bridge_to%]}" ;;
        *:*:*) centre_host="$bridge_to" ;;  # an IPv6 address without brackets: no port
        *:*) centre_host="${bridge_to%:*}" centre_port="${bridge_to##*:}" ;;
        *) centre_host="$bridge_to" ;;
    esac
    centre_host="${centre_host#[}"
    [[ "$centre_host" =~ ^[A-Za-z0-9.:_-]{1,253}$ ]] || fail "--bridge-to '$bridge_to': give the centre's host name or IP address"
    [ -n "$centre_port" ] || { if [ -n "$bridge_ca" ]; then centre_port=8883; else centre_port=1883; fi; }
    if ! [[ "$centre_port" =~ ^[0-9]{1,5}$ ]] || [ "$centre_port" -lt 1 ] || [ "$centre_port" -gt 65535 ]; then
        fail "--bridge-to '$bridge_to': the port is a number from 1 to 65535"
    fi
    [ -n "$bridge_password_file" ] || fail "give the bridge's password: --bridge-password-file bridge-$room.password (the centre wrote it)"
    [ -r "$bridge_password_file" ] || fail "cannot read the bridge's password file '$bridge_password_file'"
    IFS= read -r bridge_password < "$bridge_password_file" || true
    [[ "$bridge_password" =~ ^[[:graph:]]{1,256}$ ]] \
        || fail "the bridge's password file '$bridge_password_file': its first line is the password, with no spaces"
    [ -z "$bridge_ca" ] || [ -r "$bridge_ca" ] || fail "cannot read the centre's CA file '$bridge_ca'"
else
    if [ -n "$bridge_password_file" ] || [ -n "$bridge_ca" ]; then
        fail "--bridge-password-file and --bridge-ca are for a room's broker, with --bridge-to HOST"
    fi
    if [ -s "$rooms_file" ]; then  # rooms named before stay
        while read -r name list; do
            [ -z "$name" ] || room_tables["$name"]="$list"
        done < "$rooms_file"
    fi
    for spec in "${rooms[@]}"; do
        [[ "$spec" == *=* ]] || fail "--room '$spec': at the centre, name the room's tables (--room $spec=1,2,3); in a room, add --bridge-to HOST"
        name="${spec%%=*}" list="${spec#*=}"
        check_room "$name"
        [ -n "$list" ] || fail "--room '$spec': name the room's tables, e.g. --room $name=1,2,3"
        IFS=, read -r -a given <<<"$list"
        for table in "${given[@]}"; do check_table "$table"; done
        room_tables["$name"]="$(IFS=,; echo "${given[*]}")"
    done
    declare -A whose=()
    for table in "${tables[@]}"; do whose["$table"]="this broker"; done
    for name in "${!room_tables[@]}"; do
        IFS=, read -r -a given <<<"${room_tables[$name]}"
        for table in "${given[@]}"; do
            [ -z "${whose[$table]:-}" ] || fail "table '$table' is both room $name's and ${whose[$table]}'s: a table has one broker"
            whose["$table"]="room $name"
        done
    done
    [ ${#tables[@]} -gt 0 ] || [ ${#room_tables[@]} -gt 0 ] || fail "name the tables, e.g. sudo $0 --club $club 1 2 3 4"
fi
room_names=()
if [ ${#room_tables[@]} -gt 0 ]; then mapfile -t room_names < <(printf '%s\n' "${!room_tables[@]}" | sort); fi
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
    # Keys on the P-256 curve, as strong as RSA-3072 (128-bit) and far quicker to make, on a Pi
    # Zero 2 and under qemu too (docs/decisions.md); each board's TLS handshake costs the broker less.
    mask="$(umask)"
    umask 077  # the keys are born private
    mkdir -p "$tlsdir"
    if [ ! -s "$tlsdir/ca.crt" ] || [ ! -s "$tlsdir/ca.key" ]; then
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj "/CN=cribbage club $club CA" \
            -keyout "$tlsdir/ca.key" -out "$tlsdir/ca.crt" >/dev/null 2>&1 || fail "openssl could not make the CA"
    fi
    names_address() {
        openssl x509 -in "$tlsdir/broker.crt" -noout -checkhost "$address" 2>/dev/null | grep -q 'does match' \
            || openssl x509 -in "$tlsdir/broker.crt" -noout -checkip "$address" 2>/dev/null | grep -q 'does match'
    }
    if [ ! -s "$tlsdir/broker.crt" ] || ! names_address; then
        names="DNS:localhost,IP:127.0.0.1,DNS:$(hostname)"
        if [[ "$address" =~ ^[0-9.]+$ || "$address" == *:* ]]; then names="$names,IP:$address"; else names="$names,DNS:$address"; fi
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$address" -keyout "$tlsdir/broker.key" \
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
# A template of ours filled in: @CLUB@, @ROOM@, @CENTRE@, @PASSWORD@ and @CA@ taken literally from the
# environment, each line with @TABLE@ written once for each of FILL_TABLES, a "#tls " line only when
# FILL_TLS is yes; the template's opening comment is left out, its other comments kept as they are.
fill() {
    awk '
        function put(text, from, to,   at, out) {
            out = ""
            while ((at = index(text, from)) > 0) { out = out substr(text, 1, at - 1) to; text = substr(text, at + length(from)) }
            return out text
        }
        !begun && /^#/ { next }
        { begun = 1; line = $0 }
        line ~ /^#tls / { if (ENVIRON["FILL_TLS"] != "yes") next; line = substr(line, 6) }
        line ~ /^#/ { print line; next }
        {
            per_table = index(line, "@TABLE@")  # in the template line itself, not in a value put in it
            line = put(line, "@CLUB@", ENVIRON["FILL_CLUB"]); line = put(line, "@ROOM@", ENVIRON["FILL_ROOM"])
            line = put(line, "@CENTRE@", ENVIRON["FILL_CENTRE"]); line = put(line, "@CA@", ENVIRON["FILL_CA"])
            line = put(line, "@PASSWORD@", ENVIRON["FILL_PASSWORD"])
            if (per_table == 0) { print line; next }
            count = split(ENVIRON["FILL_TABLES"], each, " ")
            for (k = 1; k <= count; k++) print put(line, "@TABLE@", each[k])
        }
    ' "$1"
}

bridge_ca_copy="$dir/cribbage-centre-ca.crt"
if [ -n "$room" ] && [ -n "$bridge_ca" ]; then
    cp "$bridge_ca" "$bridge_ca_copy.new" && chmod 0644 "$bridge_ca_copy.new" && mv "$bridge_ca_copy.new" "$bridge_ca_copy"
fi
(
    [ -z "$room" ] || umask 027  # the bridge's password is in it
    sed -e "s|/etc/mosquitto/|$dir/|g" -e "s|^listener 1883\$|$listener|" "$src/systemd/mosquitto-cribbage.conf" \
        > "$dir/conf.d/cribbage.conf.new"
    if [ -n "$room" ]; then
        centre_address="$centre_host:$centre_port"
        printf '\n# The bridge to the centre, room %s (systemd/mosquitto-cribbage-bridge.conf, by club-broker.sh).\n' "$room"
        FILL_CLUB="$club" FILL_ROOM="$room" FILL_CENTRE="$centre_address" FILL_PASSWORD="$bridge_password" \
            FILL_CA="$bridge_ca_copy" FILL_TLS="$([ -n "$bridge_ca" ] && echo yes || echo no)" FILL_TABLES="${tables[*]}" \
            fill "$src/systemd/mosquitto-cribbage-bridge.conf"
    fi >> "$dir/conf.d/cribbage.conf.new"
    mv "$dir/conf.d/cribbage.conf.new" "$dir/conf.d/cribbage.conf"
)
(
    umask 027
    sed -e "s|@CLUB@|$club|g" "$src/systemd/mosquitto-cribbage.acl" > "$dir/cribbage.acl.new"
    for name in "${room_names[@]}"; do
        IFS=, read -r -a given <<<"${room_tables[$name]}"
        printf "\n# Room %s's bridge, tables %s (systemd/mosquitto-cribbage-bridge.acl, by club-broker.sh).\n" \
            "$name" "${given[*]}"
        FILL_CLUB="$club" FILL_ROOM="$name" FILL_TABLES="${given[*]}" fill "$src/systemd/mosquitto-cribbage-bridge.acl"
    done >> "$dir/cribbage.acl.new"
    mv "$dir/cribbage.acl.new" "$dir/cribbage.acl"
)
if [ -z "$room" ]; then
    for name in "${room_names[@]}"; do printf '%s %s\n' "$name" "${room_tables[$name]}"; done > "$rooms_file"
fi

( umask 077; touch "$kept" "$dir/cribbage.passwd" )
password_of() { awk -v user="$1" '$1 == user { print $2; exit }' "$kept"; }
new_password() { python3 -c 'import secrets; print(secrets.token_urlsafe(12))'; }

users=(homeassistant "${tables[@]}")
if [ -z "$room" ]; then
    users=(hub homeassistant "${tables[@]}")
    for name in "${room_names[@]}"; do users+=("bridge-$name"); done
elif grep -q '^hub:' "$dir/cribbage.passwd"; then
    # A room's broker has no hub of its own: only the bridge brings the hub's words (kept, above all).
    mosquitto_passwd -D "$dir/cribbage.passwd" hub >/dev/null 2>&1
fi
made=()  # the users this run makes
for user in "${users[@]}"; do
    password="$(password_of "$user")"
    if [ -z "$password" ]; then
        password="$(new_password)"
        echo "$user $password" >> "$kept"
        made+=("$user")
    fi
    mosquitto_passwd -b "$dir/cribbage.passwd" "$user" "$password" 2>/dev/null
done

if getent group mosquitto >/dev/null; then
    chown root:mosquitto "$dir/cribbage.passwd" "$dir/cribbage.acl" 2>/dev/null || true
    [ "$tls" = no ] || chown root:mosquitto "$tlsdir/broker.key" 2>/dev/null || true
    [ -z "$room" ] || chown root:mosquitto "$dir/conf.d/cribbage.conf" 2>/dev/null || true
fi
chmod 0640 "$dir/cribbage.passwd" "$dir/cribbage.acl"

# Home Assistant's password, for whoever sets up its MQTT integration (as the hub's, below).
( umask 077; password_of homeassistant > homeassistant.password )
[ -z "${SUDO_USER:-}" ] || chown "$SUDO_USER" homeassistant.password
ha_password="in $(pwd)/homeassistant.password"
[[ " ${made[*]} " != *" homeassistant "* ]] || ha_password="$(password_of homeassistant) (also in $(pwd)/homeassistant.password)"
ha_tls=""
[ "$tls" = no ] || ha_tls=", TLS with $tlsdir/ca.crt as the broker's CA"

ca_option="" ca_line=""
if [ "$tls" = yes ]; then
    ca_option=" --ca-file $tlsdir/ca.crt"
    ca_line='ca_file = "/etc/cribbage-board/club-ca.pem"   # a copy of '"$tlsdir/ca.crt"
fi
if [ -z "$room" ]; then
    # The hub's password, for the director's --password-file, and each room's bridge's, for the room.
    ( umask 077; password_of hub > hub.password )
    for name in "${room_names[@]}"; do ( umask 077; password_of "bridge-$name" > "bridge-$name.password" ); done
    if [ -n "${SUDO_USER:-}" ]; then
        chown "$SUDO_USER" hub.password
        for name in "${room_names[@]}"; do chown "$SUDO_USER" "bridge-$name.password"; done
    fi
    echo "broker: $scheme://$host:$port (config $dir/conf.d/cribbage.conf, ACL $dir/cribbage.acl); users: ${users[*]}"
    echo "hub: cribbage-board hub --broker $scheme://localhost:$port --club $club --username hub --password-file $(pwd)/hub.password$ca_option"
    echo "home assistant: MQTT broker $address, port $port, username homeassistant, password $ha_password$ha_tls"
    for name in "${room_names[@]}"; do
        IFS=, read -r -a given <<<"${room_tables[$name]}"
        bridge_option=""
        how="copy $(pwd)/bridge-$name.password there"
        if [ "$tls" = yes ]; then
            bridge_option=" --bridge-ca centre-ca.crt"
            how="$how, and $tlsdir/ca.crt as centre-ca.crt"
        fi
        echo
        echo "room $name: tables ${given[*]}; its broker bridges to this one as bridge-$name. On room $name's broker, $how, then run:"
        echo "  sudo systemd/club-broker.sh --club $club --room $name --bridge-to $host:$port --bridge-password-file bridge-$name.password$bridge_option ${given[*]}"
    done
else
    echo "broker: $scheme://$host:$port (config $dir/conf.d/cribbage.conf, ACL $dir/cribbage.acl); users: ${users[*]}"
    echo "bridge: room $room to the centre at $centre_host:$centre_port$([ -z "$bridge_ca" ] || echo " (TLS)") as bridge-$room:" \
         "tables ${tables[*]}; its state (1 up, 0 down) on cribbage/$club/room/$room/bridge"
    echo "home assistant: MQTT broker $address, port $port, username homeassistant, password $ha_password$ha_tls"
fi
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
