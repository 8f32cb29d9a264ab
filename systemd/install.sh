#!/usr/bin/env bash
# Install cribbage-board as a service on a fresh Raspberry Pi OS (Bookworm).
# Run as root from a clone of the repository:  sudo systemd/install.sh
# It installs the packages it needs, enables SPI and I2C, makes the
# "cribbage" user, installs the app in /opt/cribbage-board/venv, puts the
# default config in /etc/cribbage-board/config.toml (never over an existing
# one), and enables the service. Running it again upgrades in place.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
prefix=/opt/cribbage-board
user=cribbage

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root: sudo $0" >&2
    exit 2
fi
if ! grep -q "Raspberry Pi" /proc/device-tree/model 2>/dev/null; then
    echo "install.sh: this is not a Raspberry Pi; on a PC run the mock board instead (see README.md)" >&2
    exit 2
fi

apt-get update
# gcc and the headers build rpi_ws281x; lgpio is gpiozero's pin library on Bookworm.
apt-get install -y python3-venv python3-dev gcc python3-lgpio i2c-tools

if command -v raspi-config >/dev/null; then
    raspi-config nonint do_spi 0
    raspi-config nonint do_i2c 0
fi

for group in gpio i2c spi; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id "$user" >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/cribbage-board --no-create-home \
        --shell /usr/sbin/nologin --groups gpio,i2c,spi "$user"
else
    usermod -aG gpio,i2c,spi "$user"
fi

# --system-site-packages lets the venv see apt's python3-lgpio.
[ -x "$prefix/venv/bin/python" ] || python3 -m venv --system-site-packages "$prefix/venv"
"$prefix/venv/bin/pip" install --upgrade "$src"

install -d -m 0755 /etc/cribbage-board
if [ ! -e /etc/cribbage-board/config.toml ]; then
    install -m 0644 "$src/firmware/default-config.toml" /etc/cribbage-board/config.toml
fi

install -m 0644 "$src/systemd/cribbage-board.service" /etc/systemd/system/cribbage-board.service
systemctl daemon-reload
systemctl enable cribbage-board.service
systemctl restart cribbage-board.service
echo "cribbage-board is installed and running: journalctl -u cribbage-board -f to watch it."
echo "If SPI or I2C were just enabled, reboot once: sudo reboot"
