// SPDX-License-Identifier: GPL-2.0
/*
 * cribbage_spi_rec: an SPI controller that records every transfer it is given.
 *
 * It registers SPI bus BUS (bus=0 by default) with one device, spiBUS.0, that
 * no driver claims by itself: bind spidev to it through sysfs, as
 * Documentation/spi/spidev.rst describes,
 *   echo spidev > /sys/bus/spi/devices/spi0.0/driver_override
 *   echo spi0.0 > /sys/bus/spi/drivers/spidev/bind
 * and /dev/spidev0.0 is there as on a Pi. Each transfer is recorded as
 *   MICROSECONDS HZ BITS MODE HEX
 * (its clock, bits per word and the device's SPI mode bits, then the bytes
 * sent; "-" for none); what it reads back is zeros. The lines are in debugfs,
 * at /sys/kernel/debug/cribbage_spi_rec/transfers; writing to that file
 * empties it.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/spi/spi.h>

#include "recorder.h"

static int bus;
module_param(bus, int, 0444);
MODULE_PARM_DESC(bus, "the controller's bus number: spidevBUS.0 (default 0)");

static unsigned int ring_kib = 4096;
module_param(ring_kib, uint, 0444);
MODULE_PARM_DESC(ring_kib, "KiB of recorded lines kept; the oldest are dropped (default 4096)");

static struct recorder rec;
static struct dentry *dir;
static struct platform_device *parent;
static struct spi_controller *controller;

static int rec_transfer_one(struct spi_controller *ctlr, struct spi_device *spi, struct spi_transfer *xfer)
{
	char prefix[48];

	scnprintf(prefix, sizeof(prefix), "%u %u %u", xfer->speed_hz, xfer->bits_per_word,
		  (unsigned int)(spi->mode & 0xff));
	recorder_line(&rec, prefix, xfer->tx_buf, xfer->tx_buf ? xfer->len : 0);
	if (xfer->rx_buf)
		memset(xfer->rx_buf, 0, xfer->len);
	return 0;
}

static int __init rec_init(void)
{
	struct spi_board_info info = {
		.modalias = "cribbage-spi-rec",
		.max_speed_hz = 125000000,
		.chip_select = 0,
		.mode = SPI_MODE_0,
	};
	int error;

	error = recorder_init(&rec, (size_t)ring_kib * 1024, "cribbage_spi_rec: one line a transfer");
	if (error)
		return error;
	parent = platform_device_register_simple("cribbage_spi_rec", -1, NULL, 0);
	if (IS_ERR(parent)) {
		error = PTR_ERR(parent);
		goto free_ring;
	}
	controller = spi_alloc_host(&parent->dev, 0);
	if (!controller) {
		error = -ENOMEM;
		goto drop_parent;
	}
	controller->bus_num = bus;
	controller->num_chipselect = 1;
	controller->mode_bits = SPI_CPOL | SPI_CPHA | SPI_CS_HIGH | SPI_LSB_FIRST;
	controller->bits_per_word_mask = SPI_BPW_RANGE_MASK(1, 32);
	controller->max_speed_hz = 125000000;
	controller->transfer_one = rec_transfer_one;
	error = spi_register_controller(controller);
	if (error) {
		spi_controller_put(controller);
		goto drop_parent;
	}
	if (!spi_new_device(controller, &info)) {
		error = -ENODEV;
		goto drop_controller;
	}
	dir = debugfs_create_dir("cribbage_spi_rec", NULL);
	debugfs_create_file("transfers", 0600, dir, &rec, &recorder_fops);
	return 0;

drop_controller:
	spi_unregister_controller(controller);
drop_parent:
	platform_device_unregister(parent);
free_ring:
	recorder_free(&rec);
	return error;
}

static void __exit rec_exit(void)
{
	debugfs_remove_recursive(dir);
	spi_unregister_controller(controller);
	platform_device_unregister(parent);
	recorder_free(&rec);
}

module_init(rec_init);
module_exit(rec_exit);
MODULE_DESCRIPTION("An SPI controller that records what is sent through it (cribbage-board's VM check)");
MODULE_LICENSE("GPL");
