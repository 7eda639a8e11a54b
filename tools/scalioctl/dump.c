// SPDX-License-Identifier: GPL-2.0
/*
 * The export file format (dump.h, Documentation/export.rst): writer and
 * reader.  Every field is little-endian.  The reader trusts nothing: each
 * length is bounded before it is used, each frame is checked (its own
 * xxh64) before any of its pairs is handed out, and the file's end is the
 * trailer (counts and an xxh64 of everything before it), nothing after.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

static bool zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* ---- writer */

static int w_out(struct dump_writer *w, const void *p, size_t n)
{
	if (fwrite(p, 1, n, w->f) != n)
		return errno ? -errno : -EIO;
	XXH64_update(w->file_sum, p, n);
	w->bytes += n;
	return 0;
}

int dump_write_open(struct dump_writer *w, FILE *f,
		    const struct dump_info *info)
{
	uint8_t h[DUMP_HDR_LEN] = { 0 };

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->file_sum = XXH64_createState();
	w->frame = malloc(DUMP_FRAME_HDR_LEN + DUMP_FRAME_MAX_BYTES);
	if (!w->file_sum || !w->frame)
		return -ENOMEM;
	XXH64_reset(w->file_sum, 0);
	memcpy(h, DUMP_MAGIC, 8);
	dump_put32(h + 8, DUMP_VERSION);
	dump_put32(h + 12, DUMP_HDR_LEN);
	dump_put32(h + 16, 0);
	dump_put32(h + 20, info->nr_blocks);
	dump_put32(h + 24, info->nr_ssds);
	dump_put32(h + 28, info->slots);
	dump_put64(h + 32, info->features);
	dump_put64(h + 40, info->time);
	memcpy(h + 48, info->store, strnlen(info->store, 31));
	dump_put64(h + 120, XXH64(h, 120, 0));
	return w_out(w, h, sizeof(h));
}

static int w_flush(struct dump_writer *w)
{
	uint8_t *h = w->frame;

	if (!w->nr)
		return 0;
	memcpy(h, DUMP_FRAME_MAGIC, 4);
	dump_put32(h + 4, w->nr);
	dump_put32(h + 8, w->len);
	dump_put32(h + 12, 0);
	/* Over the header's first 16 bytes and the payload. */
	dump_put64(h + 16, XXH64(h, 16, 0) ^
		      XXH64(h + DUMP_FRAME_HDR_LEN, w->len, 0));
	w->frames++;
	w->pairs += w->nr;
	w->nr = 0;
	return w_out(w, h, DUMP_FRAME_HDR_LEN + (size_t)w->len);
}

int dump_write_pair(struct dump_writer *w, const void *key, uint32_t klen,
		    const void *value, uint32_t vlen)
{
	uint8_t *p;
	int ret;

	if (!klen || klen > 32 || vlen > 4096)
		return -EINVAL;
	if (w->nr == DUMP_FRAME_PAIRS) {
		ret = w_flush(w);
		if (ret)
			return ret;
	}
	if (!w->nr)
		w->len = 0;
	p = w->frame + DUMP_FRAME_HDR_LEN + w->len;
	p[0] = (uint8_t)klen;
	p[1] = 0;
	p[2] = (uint8_t)vlen;
	p[3] = (uint8_t)(vlen >> 8);
	memcpy(p + DUMP_PAIR_HDR_LEN, key, klen);
	if (vlen)
		memcpy(p + DUMP_PAIR_HDR_LEN + klen, value, vlen);
	w->len += DUMP_PAIR_HDR_LEN + klen + vlen;
	w->nr++;
	return 0;
}

int dump_write_finish(struct dump_writer *w)
{
	uint8_t t[DUMP_TRAILER_LEN] = { 0 };
	int ret = w_flush(w);

	if (ret)
		return ret;
	memcpy(t, DUMP_TRAILER_MAGIC, 4);
	dump_put64(t + 8, w->frames);
	dump_put64(t + 16, w->pairs);
	dump_put64(t + 24, XXH64_digest(w->file_sum));
	dump_put64(t + 32, XXH64(t, 32, 0));
	ret = w_out(w, t, sizeof(t));
	if (!ret && fflush(w->f))
		ret = errno ? -errno : -EIO;
	return ret;
}

void dump_write_free(struct dump_writer *w)
{
	XXH64_freeState(w->file_sum);
	free(w->frame);
	w->file_sum = NULL;
	w->frame = NULL;
}

/* ---- reader */

static int r_fail(struct dump_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int r_fail(struct dump_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Read exactly @n bytes.  Return: 0, 1 at a clean end of file before the
 * first byte (only if @eof_ok), -1 (truncated or unreadable; r->err).
 */
static int r_in(struct dump_reader *r, void *p, size_t n, const char *what)
{
	size_t got = fread(p, 1, n, r->f);

	if (got != n) {
		if (ferror(r->f))
			return r_fail(r, "read error in %s at byte %llu: %s", what,
				      (unsigned long long)(r->off + got),
				      strerror(errno));
		return r_fail(r, "truncated: the file ends in %s at byte %llu (%zu of its %zu bytes)",
			      what, (unsigned long long)(r->off + got), got, n);
	}
	r->off += n;
	return 0;
}

int dump_read_open(struct dump_reader *r, FILE *f)
{
	uint8_t h[DUMP_HDR_LEN];
	uint32_t hlen;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->file_sum = XXH64_createState();
	r->payload = malloc(DUMP_FRAME_MAX_BYTES);
	if (!r->file_sum || !r->payload)
		return r_fail(r, "out of memory");
	XXH64_reset(r->file_sum, 0);
	if (r_in(r, h, 16, "the header"))
		return -1;
	if (memcmp(h, DUMP_MAGIC, 8))
		return r_fail(r, "not a scalio export file (no %s magic)",
			      DUMP_MAGIC);
	r->info.version = dump_get32(h + 8);
	if (r->info.version != DUMP_VERSION)
		return r_fail(r, "export format version %u: this scalioctl reads version %u",
			      r->info.version, DUMP_VERSION);
	hlen = dump_get32(h + 12);
	if (hlen != DUMP_HDR_LEN)
		return r_fail(r, "damaged header: length %u, version %u has %u",
			      hlen, DUMP_VERSION, DUMP_HDR_LEN);
	if (r_in(r, h + 16, DUMP_HDR_LEN - 16, "the header"))
		return -1;
	if (dump_get64(h + 120) != XXH64(h, 120, 0))
		return r_fail(r, "damaged header: checksum mismatch");
	if (dump_get32(h + 16))
		return r_fail(r, "header flags %#x unknown to this scalioctl",
			      dump_get32(h + 16));
	if (!zero(h + 80, 40) || h[79])
		return r_fail(r, "damaged header: reserved bytes not zero");
	r->info.nr_blocks = dump_get32(h + 20);
	r->info.nr_ssds = dump_get32(h + 24);
	r->info.slots = dump_get32(h + 28);
	r->info.features = dump_get64(h + 32);
	r->info.time = dump_get64(h + 40);
	memcpy(r->info.store, h + 48, 32);
	XXH64_update(r->file_sum, h, DUMP_HDR_LEN);
	return 0;
}

/* The pairs of a frame fill its payload exactly, each well-formed. */
static int r_check_pairs(struct dump_reader *r)
{
	uint32_t pos = 0, i;
	struct dump_pair p;

	for (i = 0; i < r->nr; i++)
		if (dump_frame_next(r, &pos, &p) != 1)
			return r_fail(r, "damaged frame %llu at byte %llu: pair %u malformed",
				      (unsigned long long)r->frames,
				      (unsigned long long)(r->off - r->len), i);
	if (pos != r->len)
		return r_fail(r, "damaged frame %llu: %u bytes after its %u pairs",
			      (unsigned long long)r->frames, r->len - pos, r->nr);
	return 0;
}

int dump_read_frame(struct dump_reader *r)
{
	uint8_t h[DUMP_TRAILER_LEN];
	uint64_t at = r->off;
	int c;

	if (r_in(r, h, 4, "a frame header"))
		return -1;
	if (!memcmp(h, DUMP_TRAILER_MAGIC, 4)) {
		if (r_in(r, h + 4, DUMP_TRAILER_LEN - 4, "the trailer"))
			return -1;
		if (dump_get64(h + 32) != XXH64(h, 32, 0))
			return r_fail(r, "damaged trailer at byte %llu: checksum mismatch",
				      (unsigned long long)at);
		if (dump_get64(h + 8) != r->frames || dump_get64(h + 16) != r->pairs)
			return r_fail(r, "the trailer counts %llu frames and %llu pairs, the file holds %llu and %llu",
				      (unsigned long long)dump_get64(h + 8),
				      (unsigned long long)dump_get64(h + 16),
				      (unsigned long long)r->frames,
				      (unsigned long long)r->pairs);
		if (dump_get64(h + 24) != XXH64_digest(r->file_sum))
			return r_fail(r, "file checksum mismatch: the file was changed after it was written");
		c = fgetc(r->f);
		if (c != EOF)
			return r_fail(r, "data after the trailer at byte %llu",
				      (unsigned long long)r->off);
		return 0;
	}
	if (memcmp(h, DUMP_FRAME_MAGIC, 4))
		return r_fail(r, "damaged file at byte %llu: neither a frame nor the trailer",
			      (unsigned long long)at);
	if (r_in(r, h + 4, DUMP_FRAME_HDR_LEN - 4, "a frame header"))
		return -1;
	r->nr = dump_get32(h + 4);
	r->len = dump_get32(h + 8);
	if (!r->nr || r->nr > DUMP_FRAME_PAIRS || dump_get32(h + 12) ||
	    r->len > DUMP_FRAME_MAX_BYTES ||
	    r->len < r->nr * (DUMP_PAIR_HDR_LEN + 1))
		return r_fail(r, "damaged frame header at byte %llu (%u pairs, %u bytes)",
			      (unsigned long long)at, r->nr, r->len);
	if (r_in(r, r->payload, r->len, "a frame"))
		return -1;
	if (dump_get64(h + 16) != (XXH64(h, 16, 0) ^ XXH64(r->payload, r->len, 0)))
		return r_fail(r, "damaged frame at byte %llu: checksum mismatch",
			      (unsigned long long)at);
	if (r_check_pairs(r))
		return -1;
	XXH64_update(r->file_sum, h, DUMP_FRAME_HDR_LEN);
	XXH64_update(r->file_sum, r->payload, r->len);
	r->frames++;
	r->pairs += r->nr;
	return 1;
}

int dump_frame_next(const struct dump_reader *r, uint32_t *pos,
		    struct dump_pair *p)
{
	const uint8_t *q = r->payload + *pos;
	uint32_t left = r->len - *pos;

	if (!left)
		return 0;
	if (left < DUMP_PAIR_HDR_LEN)
		return -1;
	p->klen = q[0];
	p->vlen = (uint32_t)q[2] | (uint32_t)q[3] << 8;
	if (!p->klen || p->klen > 32 || q[1] || p->vlen > 4096 ||
	    left - DUMP_PAIR_HDR_LEN < p->klen + p->vlen)
		return -1;
	p->key = q + DUMP_PAIR_HDR_LEN;
	p->value = p->key + p->klen;
	*pos += DUMP_PAIR_HDR_LEN + p->klen + p->vlen;
	return 1;
}

void dump_read_free(struct dump_reader *r)
{
	XXH64_freeState(r->file_sum);
	free(r->payload);
	r->file_sum = NULL;
	r->payload = NULL;
}
