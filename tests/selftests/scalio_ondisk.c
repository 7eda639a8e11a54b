// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_ondisk DEV: print where the on-SSD structures of a scalio SSD are
 * (common/scalio_format.h), for the corruption tests to damage them with
 * dd.  Reads only.  One line per structure, "name key=value ...":
 *
 *   sb unit=0 ok=1 ...           superblock and copy (magic and version)
 *   ckpt slot=A unit=2 seq=.. tail=.. next=.. newest=1
 *   entry idx=B unit=U len=L gen=G records=R off=O
 *                                      (newest checkpoint, non-empty
 *                                       buckets; R from the segment's
 *                                       header, -1 if unreadable or not
 *                                       a segment header; U the unit
 *                                       the segment starts in, L the
 *                                       units it spans, O its byte
 *                                       offset on the device)
 *   batch seq=S unit=U units=N segs=K vals=V
 *                                      (the chain after the newest
 *                                       checkpoint: magic + seq only)
 *   vals batch=S unit=U nr=V sectors=N off=O
 *                                      (its value extents: O the byte
 *                                       offset of the first one)
 *   vptr key=K pos=P len=L             (after an entry: a record of its
 *                                       segment whose value is stored
 *                                       apart, P the extent's byte offset)
 *   seg batch=S unit=U bucket=B records=R units=N off=O
 *
 * No crc is checked: this locates structures, it does not validate them
 * (the kernel does).  The geometry comes from whichever superblock has the
 * magic, so the tool still works when one of the two is damaged.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define __packed __attribute__((packed))
#include "../../common/scalio_format.h"
#include "../../common/scalio_index.h"

static int fd;
static unsigned char unit[SCALIO_UNIT_SIZE];

static int rd(unsigned long long u, void *buf, size_t units)
{
	size_t len = units * SCALIO_UNIT_SIZE;

	return pread(fd, buf, len, (off_t)(u * SCALIO_UNIT_SIZE)) ==
	       (ssize_t)len ? 0 : -1;
}


/*
 * "vptr key=K pos=P len=L" for each record of the segment @w names that
 * points to a value extent (keys printed as they are: the tests use
 * printable ones).  Bounds come from the segment header, unchecked.
 */
static void vptrs(unsigned long long w)
{
	static unsigned char seg[255 * SCALIO_UNIT_SIZE];
	const struct scalio_seg_hdr *sh;
	unsigned int len, p;

	if (rd(scalio_seg_unit(w), seg, scalio_seg_len(w)))
		return;
	sh = (const void *)(seg + scalio_seg_offset(w));
	len = le32_to_cpu(sh->len);
	if (len > sizeof(seg) - scalio_seg_offset(w))
		return;
	for (p = sizeof(*sh); p + sizeof(struct scalio_rec_hdr) <= len;) {
		const struct scalio_rec_hdr *rh = (const void *)((const char *)sh + p);
		unsigned int klen = rh->klen, vlen = le16_to_cpu(rh->vlen);
		struct scalio_vptr v;

		if (p + sizeof(*rh) + klen + vlen > len)
			return;
		if ((rh->flags & SCALIO_REC_VPTR) && vlen == sizeof(v)) {
			memcpy(&v, (const char *)(rh + 1) + klen, sizeof(v));
			printf("vptr key=%.*s pos=%llu len=%u\n", (int)klen,
			       (const char *)(rh + 1),
			       (unsigned long long)le64_to_cpu(v.pos),
			       le32_to_cpu(v.len));
		}
		p += sizeof(*rh) + klen + vlen;
	}
}

int main(int argc, char **argv)
{
	struct scalio_sb sb = { 0 }, s;
	const struct scalio_ckpt_hdr *h = (const void *)unit;
	unsigned long long best_unit = 0, best_seq = 0, tail = 0, next = 0;
	unsigned long long start, end, pos, ckpt_units;
	const struct scalio_batch_hdr *bh = (const void *)unit;
	int have = 0, i, slot;

	if (argc != 2) {
		fprintf(stderr, "usage: scalio_ondisk DEV\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < 2; i++) {
		if (rd(i, unit, 1))
			return 1;
		memcpy(&s, unit, sizeof(s));
		printf("sb unit=%d magic=%d version=%u\n", i,
		       le64_to_cpu(s.magic) == SCALIO_SB_MAGIC,
		       le32_to_cpu(s.version));
		if (!have && le64_to_cpu(s.magic) == SCALIO_SB_MAGIC) {
			sb = s;
			have = 1;
		}
	}
	if (!have)
		return 1;
	ckpt_units = le64_to_cpu(sb.ckpt_units);
	start = le64_to_cpu(sb.log_start);
	end = start + le64_to_cpu(sb.log_units);
	if (!ckpt_units || ckpt_units > 65536)
		return 1;
	printf("geometry ckpt_units=%llu log_start=%llu log_end=%llu\n",
	       ckpt_units, start, end);
	for (slot = 0; slot < 2; slot++) {
		unsigned long long u = SCALIO_CKPT_UNIT + slot * ckpt_units;

		if (rd(u, unit, 1))
			return 1;
		printf("ckpt slot=%c unit=%llu magic=%d seq=%llu tail=%llu next=%llu\n",
		       'A' + slot, u,
		       le64_to_cpu(h->magic) == SCALIO_CKPT_MAGIC,
		       (unsigned long long)le64_to_cpu(h->seq),
		       (unsigned long long)le64_to_cpu(h->log_tail),
		       (unsigned long long)le64_to_cpu(h->next_batch));
		if (le64_to_cpu(h->magic) == SCALIO_CKPT_MAGIC &&
		    le64_to_cpu(h->seq) > best_seq) {
			best_seq = le64_to_cpu(h->seq);
			best_unit = u;
			tail = le64_to_cpu(h->log_tail);
			next = le64_to_cpu(h->next_batch);
		}
	}
	if (!best_seq)
		return 0;
	printf("newest unit=%llu seq=%llu\n", best_unit, best_seq);
	{
		size_t bytes = ckpt_units * SCALIO_UNIT_SIZE;
		unsigned char *ck = malloc(bytes);
		const struct scalio_ckpt_hdr *c = (const void *)ck;
		const struct scalio_ckpt_entry *e = (const void *)(c + 1);
		unsigned int n, k;

		if (!ck || rd(best_unit, ck, ckpt_units))
			return 1;
		n = le32_to_cpu(c->nr_entries);
		if (scalio_ckpt_bytes(n) > bytes)
			n = 0;
		for (k = 0; k < n; k++) {
			unsigned long long w = le64_to_cpu(e[k].seg);
			const struct scalio_seg_hdr *sh = (const void *)unit;
			long long recs = -1;

			if (!w)
				continue;
			sh = (const void *)(unit + scalio_seg_offset(w));
			if (!rd(scalio_seg_unit(w), unit, 1) &&
			    le32_to_cpu(sh->magic) == SCALIO_SEG_MAGIC)
				recs = le32_to_cpu(sh->nr_records);
			printf("entry idx=%u unit=%u len=%u gen=%llu records=%lld off=%llu\n",
			       k, scalio_seg_unit(w), scalio_seg_len(w),
			       (unsigned long long)le64_to_cpu(e[k].gen), recs,
			       (unsigned long long)scalio_seg_sector(w) *
			       SCALIO_SECTOR_SIZE);
			if (recs > 0)
				vptrs(w);
		}
		free(ck);
	}
	/* The chain: batch @next at @tail, or at the log start after a wrap. */
	for (pos = tail; pos >= start && pos < end;) {
		unsigned long long n, off;
		unsigned int segs, vals, vsecs, k;

		if (rd(pos, unit, 1))
			return 1;
		if (le64_to_cpu(bh->magic) != SCALIO_BATCH_MAGIC ||
		    le64_to_cpu(bh->seq) != next) {
			if (pos == start)
				break;
			pos = start;
			continue;
		}
		n = le32_to_cpu(bh->nr_units);
		segs = le32_to_cpu(bh->nr_segs);
		vals = le32_to_cpu(bh->nr_vals);
		vsecs = le32_to_cpu(bh->val_sectors);
		printf("batch seq=%llu unit=%llu units=%llu segs=%u vals=%u\n",
		       next, pos, n, segs, vals);
		if (!n || n > SCALIO_BATCH_MAX_UNITS || pos + n > end)
			break;
		if (vals)
			printf("vals batch=%llu unit=%llu nr=%u sectors=%u off=%llu\n",
			       next, pos, vals, vsecs,
			       pos * SCALIO_UNIT_SIZE + SCALIO_SECTOR_SIZE);
		/*
		 * Segments are packed on sectors after the header sector and
		 * the value extents' sectors.
		 */
		for (off = 1 + vsecs, k = 0;
		     k < segs && off < n * SCALIO_SECTORS_PER_UNIT; k++) {
			unsigned long long at = pos * SCALIO_SECTORS_PER_UNIT + off;
			const struct scalio_seg_hdr *sh = (const void *)(unit +
				(at % SCALIO_SECTORS_PER_UNIT) * SCALIO_SECTOR_SIZE);
			unsigned int len;

			if (rd(at / SCALIO_SECTORS_PER_UNIT, unit, 1))
				return 1;
			len = le32_to_cpu(sh->len);
			printf("seg batch=%llu unit=%llu bucket=%u records=%u units=%u off=%llu\n",
			       next, at / SCALIO_SECTORS_PER_UNIT,
			       le32_to_cpu(sh->bucket),
			       le32_to_cpu(sh->nr_records),
			       scalio_seg_span(at, len), at * SCALIO_SECTOR_SIZE);
			if (!len || len > SCALIO_SEG_MAX_BYTES)
				break;
			off += (len + SCALIO_SECTOR_SIZE - 1) / SCALIO_SECTOR_SIZE;
		}
		pos = pos + n == end ? start : pos + n;
		next++;
	}
	return 0;
}
