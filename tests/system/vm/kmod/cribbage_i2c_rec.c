// SPDX-License-Identifier: GPL-2.0
/*
 * cribbage_i2c_rec: an I2C adapter that records every message it is sent.
 *
 * It registers /dev/i2c-BUS (bus=1 by default, the Pi's header bus) with one
 * device answering at ADDRESS (0x3c, the SSD1306 OLED). Plain I2C transfers
 * (I2C_RDWR) and SMBus calls, which the I2C core turns into plain messages,
 * are both taken. A write to the device is recorded as
 *   MICROSECONDS 3c w HEX
 * a read is answered with zeros and recorded as "MICROSECONDS 3c r HEX", and
 * a message to any other address is not acknowledged, as on a real bus, and
 * recorded as "MICROSECONDS ADDR nak". The lines are in debugfs, at
 * /sys/kernel/debug/cribbage_i2c_rec/transfers; writing to that file empties it.
 */
#include <linux/i2c.h>
#include <linux/module.h>

#include "recorder.h"

static int bus = 1;
module_param(bus, int, 0444);
MODULE_PARM_DESC(bus, "the adapter's bus number: /dev/i2c-BUS (default 1)");

static int address = 0x3c;
module_param(address, int, 0444);
MODULE_PARM_DESC(address, "the 7-bit address that acknowledges (default 0x3c)");

static unsigned int ring_kib = 4096;
module_param(ring_kib, uint, 0444);
MODULE_PARM_DESC(ring_kib, "KiB of recorded lines kept; the oldest are dropped (default 4096)");

static struct recorder rec;
static struct dentry *dir;

static int rec_xfer(struct i2c_adapter *adapter, struct i2c_msg *msgs, int num)
{
	char prefix[8];
	int i;

	for (i = 0; i < num; i++) {
		struct i2c_msg *msg = &msgs[i];

		if (msg->addr != address || (msg->flags & I2C_M_TEN)) {
			scnprintf(prefix, sizeof(prefix), "%02x nak", msg->addr & 0x3ff);
			recorder_line(&rec, prefix, NULL, 0);
			return -ENXIO;
		}
		if (msg->flags & I2C_M_RD) {
			memset(msg->buf, 0, msg->len);
			scnprintf(prefix, sizeof(prefix), "%02x r", msg->addr);
		} else {
			scnprintf(prefix, sizeof(prefix), "%02x w", msg->addr);
		}
		recorder_line(&rec, prefix, msg->buf, msg->len);
	}
	return num;
}

static u32 rec_functionality(struct i2c_adapter *adapter)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm rec_algorithm = {
	.master_xfer = rec_xfer,
	.functionality = rec_functionality,
};

static struct i2c_adapter adapter = {
	.owner = THIS_MODULE,
	.algo = &rec_algorithm,
	.name = "cribbage I2C recorder",
};

static int __init rec_init(void)
{
	int error;

	if (address < 0x03 || address > 0x77)
		return -EINVAL;
	error = recorder_init(&rec, (size_t)ring_kib * 1024, "cribbage_i2c_rec: one line a message");
	if (error)
		return error;
	adapter.nr = bus;
	error = i2c_add_numbered_adapter(&adapter);
	if (error) {
		recorder_free(&rec);
		return error;
	}
	dir = debugfs_create_dir("cribbage_i2c_rec", NULL);
	debugfs_create_file("transfers", 0600, dir, &rec, &recorder_fops);
	return 0;
}

static void __exit rec_exit(void)
{
	debugfs_remove_recursive(dir);
	i2c_del_adapter(&adapter);
	recorder_free(&rec);
}

module_init(rec_init);
module_exit(rec_exit);
MODULE_DESCRIPTION("An I2C adapter that records what is sent to it (cribbage-board's VM check)");
MODULE_LICENSE("GPL");
