#!/bin/bash
# Build the VM check's kernel modules for one kernel: tests/system/vm/kmod/build.sh KERNEL-RELEASE SOURCE-TARBALL
#
# Runs in the guest's root while test-boot-vm.sh builds its image, with the
# kernel's headers (linux-headers-KERNEL-RELEASE) and Debian's source of the
# same kernel (linux-source-X.Y's tarball) installed. Builds, out of tree:
#   cribbage_i2c_rec.ko  the I2C adapter that records (this folder)
#   cribbage_spi_rec.ko  the SPI controller that records (this folder)
#   gpio-sim.ko          the kernel's own gpio-sim, with the interrupt simulator
#                        it selects (drivers/gpio/gpio-sim.c, kernel/irq/irq_sim.c
#                        from the tarball), which Debian's kernel builds neither of;
#                        irq_sim.c calls irq_to_desc(), which the kernel keeps to
#                        itself, so its one handle_simple_irq(irq_to_desc(irq))
#                        becomes generic_handle_irq(irq), the exported call that
#                        runs the same handler
# and installs them in /lib/modules/KERNEL-RELEASE/updates/cribbage/, then depmod.
set -euo pipefail

release=$1
tarball=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cp "$here"/Kbuild "$here"/*.c "$here"/*.h "$work/"
top=$(basename "$tarball" .tar.xz)  # linux-source-X.Y, the folder the tarball holds
tar -xJf "$tarball" -C "$work" "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c"
mv "$work/$top/drivers/gpio/gpio-sim.c" "$work/gpio-sim-main.c"
mv "$work/$top/drivers/gpio/gpiolib.h" "$work/$top/kernel/irq/irq_sim.c" "$work/"
rm -rf "${work:?}/$top"
sed -i 's/handle_simple_irq(irq_to_desc(\([^()]*\)))/generic_handle_irq(\1)/' "$work/irq_sim.c"
make -C "/lib/modules/$release/build" M="$work" modules
grep -q ' undefined!' "$work"/Module.symvers 2>/dev/null && { echo "build.sh: undefined symbols" >&2; exit 1; }
install -d "/lib/modules/$release/updates/cribbage"
install -m 0644 "$work"/*.ko "/lib/modules/$release/updates/cribbage/"
depmod "$release"
echo "built and installed: $(cd "$work" && echo *.ko) for $release"
