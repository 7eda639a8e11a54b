// SPDX-License-Identifier: GPL-2.0
/*
 * lwlog: read and replay a dm-log-writes log (the kernel's
 * Documentation/admin-guide/device-mapper/log-writes.rst).
 *
 *   lwlog list LOGDEV
 *   lwlog replay LOGDEV DEV FIRST LAST
 *
 * The log device starts with a super (magic, version, number of entries,
 * the data device's logical block size); entries follow from the second
 * block on, each one block holding a struct log_write_entry (and, for a
 * mark, its name), then nr_sectors blocks of the data written (none for a
 * mark or a discard).  Entries are in the order the writes reached stable
 * media: a FUA write when it completed, a plain write with the next flush.
 *
 * list prints one line per entry, "INDEX SECTOR NR_SECTORS FLAGS [MARK]",
 * sectors in 512-byte units of the data device, FLAGS a string of F
 * (preflush), U (FUA), D (discard), M (mark), m (metadata), or "-".
 * The first line is "# entries N blocksize B".
 *
 * replay applies entries FIRST..LAST (inclusive, 0-based) to DEV: the data
 * of each write at its place, zeroes for a discard; marks and empty
 * flushes write nothing.  Replaying 0..E onto a copy of the device as it
 * was when logging began gives the device as a power cut right after
 * entry E would have left it; FIRST > 0 continues a replay already done
 * up to FIRST - 1.  DEV is fsync'ed at the end.
 *
 * Exit 0 done, 1 error (message on stderr), 2 usage.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LW_MAGIC	0x6a736677736872ULL
#define LW_VERSION	1ULL
#define LW_FLUSH	(1 << 0)
#define LW_FUA		(1 << 1)
#define LW_DISCARD	(1 << 2)
#define LW_MARK		(1 << 3)
#define LW_META		(1 << 4)
#define LW_BS_MAX	65536
#define __packed	__attribute__((packed))

/* On the log device, little-endian (drivers/md/dm-log-writes.c). */
struct lw_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __packed;

struct lw_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
} __packed;

struct lw_log {
	int fd;
	uint32_t bs;		/* data device's logical block size */
	uint64_t nr;		/* entries */
	uint64_t pos;		/* byte offset of the next entry */
	uint64_t idx;		/* its index */
	unsigned char *blk;	/* one block: the entry header */
};

static int die(const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "lwlog: ");
	fprintf(stderr, fmt, arg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	return 1;
}

/* Read exactly @len bytes at @off; false on error or a short device. */
static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = ENODATA;
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

static bool write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = ENOSPC;
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

static int lw_open(struct lw_log *l, const char *path)
{
	struct lw_super s;

	l->fd = open(path, O_RDONLY);
	if (l->fd < 0)
		return die("open %s", path, errno);
	if (!read_at(l->fd, &s, sizeof(s), 0))
		return die("reading the super of %s", path, errno);
	if (le64toh(s.magic) != LW_MAGIC)
		return die("%s: not a dm-log-writes log (bad magic)", path, 0);
	if (le64toh(s.version) != LW_VERSION)
		return die("%s: unknown log version", path, 0);
	l->bs = le32toh(s.sectorsize);
	if (l->bs < 512 || l->bs > LW_BS_MAX || (l->bs & (l->bs - 1)))
		return die("%s: impossible block size in the super", path, 0);
	l->nr = le64toh(s.nr_entries);
	l->pos = l->bs;
	l->idx = 0;
	l->blk = malloc(l->bs);
	if (!l->blk)
		return die("%s", "out of memory", 0);
	return 0;
}

/*
 * Read the next entry's header into @e (host order) and @name (a mark's
 * name, NUL-terminated, "" otherwise); @data_off gets the byte offset of
 * its data.  Return 1 read, 0 no more entries, -1 error.
 */
static int lw_next(struct lw_log *l, struct lw_entry *e, char *name,
		   uint64_t *data_off)
{
	const struct lw_entry *raw = (const void *)l->blk;
	uint64_t len;

	if (l->idx >= l->nr)
		return 0;
	if (!read_at(l->fd, l->blk, l->bs, l->pos)) {
		die("reading entry %s", "header", errno);
		return -1;
	}
	e->sector = le64toh(raw->sector);
	e->nr_sectors = le64toh(raw->nr_sectors);
	e->flags = le64toh(raw->flags);
	e->data_len = le64toh(raw->data_len);
	name[0] = 0;
	if (e->flags & LW_MARK) {
		len = e->data_len;
		if (len > l->bs - sizeof(*raw))
			len = l->bs - sizeof(*raw);
		memcpy(name, l->blk + sizeof(*raw), len);
		name[len] = 0;
	}
	if (e->nr_sectors > (1ULL << 32)) {
		die("entry with an impossible length (%s)", "corrupt log", 0);
		return -1;
	}
	*data_off = l->pos + l->bs;
	l->pos += l->bs;
	if (!(e->flags & (LW_DISCARD | LW_MARK)))
		l->pos += e->nr_sectors * l->bs;
	l->idx++;
	return 1;
}

static void flags_str(uint64_t f, char *s)
{
	char *p = s;

	if (f & LW_FLUSH)
		*p++ = 'F';
	if (f & LW_FUA)
		*p++ = 'U';
	if (f & LW_DISCARD)
		*p++ = 'D';
	if (f & LW_MARK)
		*p++ = 'M';
	if (f & LW_META)
		*p++ = 'm';
	if (p == s)
		*p++ = '-';
	*p = 0;
}

static int cmd_list(const char *log)
{
	struct lw_log l;
	struct lw_entry e;
	char name[LW_BS_MAX], fl[8];
	uint64_t off, spb;
	int r;

	if (lw_open(&l, log))
		return 1;
	spb = l.bs / 512;
	printf("# entries %" PRIu64 " blocksize %u\n", l.nr, l.bs);
	while ((r = lw_next(&l, &e, name, &off)) > 0) {
		flags_str(e.flags, fl);
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %s%s%s\n", l.idx - 1,
		       e.sector * spb, e.nr_sectors * spb, fl,
		       name[0] ? " " : "", name);
	}
	return r < 0;
}

/* Copy @len bytes from the log at @src to the device at @dst. */
static bool copy_data(int lfd, int dfd, uint64_t src, uint64_t dst,
		      uint64_t len, unsigned char *buf, size_t bufsz)
{
	while (len) {
		size_t n = len < bufsz ? (size_t)len : bufsz;

		if (!read_at(lfd, buf, n, src) || !write_at(dfd, buf, n, dst))
			return false;
		src += n;
		dst += n;
		len -= n;
	}
	return true;
}

static bool zero_range(int dfd, uint64_t dst, uint64_t len,
		       unsigned char *buf, size_t bufsz)
{
	memset(buf, 0, bufsz);
	while (len) {
		size_t n = len < bufsz ? (size_t)len : bufsz;

		if (!write_at(dfd, buf, n, dst))
			return false;
		dst += n;
		len -= n;
	}
	return true;
}

static int cmd_replay(const char *log, const char *dev, uint64_t first,
		      uint64_t last)
{
	const size_t bufsz = 1 << 20;
	unsigned char *buf = malloc(bufsz);
	static char name[LW_BS_MAX];
	struct lw_entry e;
	struct lw_log l;
	uint64_t off;
	int dfd, r;

	if (!buf)
		return die("%s", "out of memory", 0);
	if (lw_open(&l, log))
		return 1;
	if (last >= l.nr)
		return die("entry %s is beyond the log's end", "LAST", 0);
	dfd = open(dev, O_RDWR);
	if (dfd < 0)
		return die("open %s", dev, errno);
	while ((r = lw_next(&l, &e, name, &off)) > 0 && l.idx - 1 <= last) {
		uint64_t at = e.sector * l.bs, len = e.nr_sectors * l.bs;

		if (l.idx - 1 < first || (e.flags & LW_MARK) || !len)
			continue;
		if (e.flags & LW_DISCARD) {
			if (!zero_range(dfd, at, len, buf, bufsz))
				return die("zeroing a discard on %s", dev, errno);
		} else if (!copy_data(l.fd, dfd, off, at, len, buf, bufsz)) {
			return die("replaying a write to %s", dev, errno);
		}
	}
	if (r < 0)
		return 1;
	if (fsync(dfd))
		return die("fsync %s", dev, errno);
	close(dfd);
	free(buf);
	return 0;
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s) {
		fprintf(stderr, "lwlog: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "list"))
		return cmd_list(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "replay")) {
		uint64_t first = num(argv[4]), last = num(argv[5]);

		if (first > last) {
			fprintf(stderr, "lwlog: FIRST > LAST\n");
			return 2;
		}
		return cmd_replay(argv[2], argv[3], first, last);
	}
	fprintf(stderr, "usage: lwlog list LOGDEV\n"
			"       lwlog replay LOGDEV DEV FIRST LAST\n");
	return 2;
}
