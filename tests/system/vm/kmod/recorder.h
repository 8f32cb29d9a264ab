/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ring of text lines that a bus recorder keeps and debugfs shows.
 *
 * Each recorded message or transfer is one line of text. When a new line does
 * not fit, the oldest whole lines are dropped and counted; the file shows a
 * "# dropped N" line first whenever any were. Reading the file gives the lines
 * kept at the moment it was opened; writing anything to it empties it.
 */
#ifndef CRIBBAGE_RECORDER_H
#define CRIBBAGE_RECORDER_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

struct recorder {
	struct mutex lock;
	char *ring;		/* size bytes; lines kept from head, used bytes long */
	size_t size;
	size_t head;
	size_t used;
	unsigned long dropped;	/* whole lines dropped since the last clear */
	ktime_t start;		/* the time stamps count from here */
	const char *title;	/* the first comment line */
};

static inline int recorder_init(struct recorder *rec, size_t size, const char *title)
{
	mutex_init(&rec->lock);
	rec->ring = vzalloc(size);
	if (!rec->ring)
		return -ENOMEM;
	rec->size = size;
	rec->head = 0;
	rec->used = 0;
	rec->dropped = 0;
	rec->start = ktime_get();
	rec->title = title;
	return 0;
}

static inline void recorder_free(struct recorder *rec)
{
	vfree(rec->ring);
	rec->ring = NULL;
}

static inline char recorder_at(const struct recorder *rec, size_t offset)
{
	return rec->ring[(rec->head + offset) % rec->size];
}

/* Drops the oldest whole line. Called with the lock held and used > 0. */
static inline void recorder_drop_oldest(struct recorder *rec)
{
	size_t n = 0;

	while (n < rec->used && recorder_at(rec, n) != '\n')
		n++;
	n = min(n + 1, rec->used);
	rec->head = (rec->head + n) % rec->size;
	rec->used -= n;
	rec->dropped++;
}

static inline void recorder_put(struct recorder *rec, const char *text, size_t len)
{
	size_t tail, first;

	tail = (rec->head + rec->used) % rec->size;
	first = min(len, rec->size - tail);
	memcpy(rec->ring + tail, text, first);
	memcpy(rec->ring, text + first, len - first);
	rec->used += len;
}

static const char hex_digits[] = "0123456789abcdef";

/*
 * Keeps one line: "MICROSECONDS " then prefix, then " " and the bytes in
 * hex ("-" for none), unless data is NULL, then a newline. A line longer
 * than the whole ring is kept as "MICROSECONDS too-long LEN".
 */
static inline void recorder_line(struct recorder *rec, const char *prefix, const u8 *data, size_t len)
{
	char stamp[80];
	size_t stamp_len, line_len, i;
	char *line;
	u64 micros = ktime_to_us(ktime_sub(ktime_get(), rec->start));

	stamp_len = scnprintf(stamp, sizeof(stamp), "%llu %s", micros, prefix);
	line_len = stamp_len + (data ? 1 + (len ? 2 * len : 1) : 0) + 1;
	if (line_len > rec->size) {
		stamp_len = scnprintf(stamp, sizeof(stamp), "%llu too-long %zu\n", micros, len);
		data = NULL;
		line_len = stamp_len;
	}
	line = kvmalloc(line_len, GFP_KERNEL);
	if (!line) {
		mutex_lock(&rec->lock);
		rec->dropped++;
		mutex_unlock(&rec->lock);
		return;
	}
	memcpy(line, stamp, stamp_len);
	i = stamp_len;
	if (data) {
		line[i++] = ' ';
		if (!len)
			line[i++] = '-';
		for (; len; len--, data++) {
			line[i++] = hex_digits[*data >> 4];
			line[i++] = hex_digits[*data & 15];
		}
	}
	if (i < line_len)
		line[i++] = '\n';
	mutex_lock(&rec->lock);
	while (rec->used && rec->used + i > rec->size)
		recorder_drop_oldest(rec);
	recorder_put(rec, line, i);
	mutex_unlock(&rec->lock);
	kvfree(line);
}

/* The debugfs file: a copy of the ring taken at open, shown after the comments. */
struct recorder_snapshot {
	char *text;
	size_t len;
};

static inline int recorder_open(struct inode *inode, struct file *file)
{
	struct recorder *rec = inode->i_private;
	struct recorder_snapshot *snap;
	size_t i, n;

	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	mutex_lock(&rec->lock);
	snap->text = kvmalloc(rec->used + 160, GFP_KERNEL);
	if (!snap->text) {
		mutex_unlock(&rec->lock);
		kfree(snap);
		return -ENOMEM;
	}
	n = scnprintf(snap->text, 160, "# %s\n", rec->title);
	if (rec->dropped)
		n += scnprintf(snap->text + n, 160 - n, "# dropped %lu\n", rec->dropped);
	for (i = 0; i < rec->used; i++)
		snap->text[n + i] = recorder_at(rec, i);
	snap->len = n + rec->used;
	mutex_unlock(&rec->lock);
	file->private_data = snap;
	return nonseekable_open(inode, file);
}

static inline ssize_t recorder_read(struct file *file, char __user *buf, size_t count, loff_t *pos)
{
	struct recorder_snapshot *snap = file->private_data;

	return simple_read_from_buffer(buf, count, pos, snap->text, snap->len);
}

static inline ssize_t recorder_write(struct file *file, const char __user *buf, size_t count, loff_t *pos)
{
	struct recorder *rec = file_inode(file)->i_private;

	mutex_lock(&rec->lock);
	rec->head = 0;
	rec->used = 0;
	rec->dropped = 0;
	mutex_unlock(&rec->lock);
	return count;
}

static inline int recorder_release(struct inode *inode, struct file *file)
{
	struct recorder_snapshot *snap = file->private_data;

	kvfree(snap->text);
	kfree(snap);
	return 0;
}

static const struct file_operations recorder_fops = {
	.owner = THIS_MODULE,
	.open = recorder_open,
	.read = recorder_read,
	.write = recorder_write,
	.release = recorder_release,
};

#endif
