// SPDX-License-Identifier: GPL-2.0
/*
 * Operation history recorder (see history.h).
 *
 * Each thread formats its records into a private growing buffer found
 * through a thread-local pointer; the buffers are linked on a global list
 * (taken under a mutex only when a thread records its first op) and
 * written out in one go at close.  Threads may exit before the close:
 * their buffers stay on the list.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"

struct lc_buf {
	struct lc_buf *next;
	char *data;
	size_t len, cap;
	unsigned int thread_no;
};

static pthread_mutex_t lc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lc_buf *lc_bufs;
static FILE *lc_file;
static unsigned int lc_threads;
static int lc_lost;
static int lc_atexit_done;
static __thread struct lc_buf *lc_mine;
static unsigned int lc_gen;		/* bumped by every open */
static __thread unsigned int lc_mine_gen;	/* open lc_mine belongs to */

static void lc_atexit(void)
{
	lc_history_close();
}

int lc_history_open(const char *path)
{
	FILE *f;

	pthread_mutex_lock(&lc_lock);
	if (lc_file) {
		pthread_mutex_unlock(&lc_lock);
		return -EBUSY;
	}
	f = fopen(path, "w");
	if (!f) {
		int err = -errno;

		pthread_mutex_unlock(&lc_lock);
		return err;
	}
	lc_gen++;
	lc_lost = 0;
	lc_threads = 0;
	__atomic_store_n(&lc_file, f, __ATOMIC_RELEASE);
	if (!lc_atexit_done) {
		atexit(lc_atexit);
		lc_atexit_done = 1;
	}
	pthread_mutex_unlock(&lc_lock);
	return 0;
}

int lc_history_enabled(void)
{
	return __atomic_load_n(&lc_file, __ATOMIC_ACQUIRE) != NULL;
}

uint64_t lc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct lc_buf *lc_get_buf(void)
{
	struct lc_buf *b;

	if (lc_mine && lc_mine_gen == lc_gen)
		return lc_mine;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	pthread_mutex_lock(&lc_lock);
	b->thread_no = lc_threads++;
	b->next = lc_bufs;
	lc_bufs = b;
	lc_mine_gen = lc_gen;
	pthread_mutex_unlock(&lc_lock);
	lc_mine = b;
	return b;
}

static int lc_reserve(struct lc_buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->len + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 1 << 16;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

/* Appends the escaped token for @len bytes at @p; room already reserved. */
static void lc_put_token(struct lc_buf *b, const unsigned char *p, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	char *o = b->data + b->len;
	size_t i;

	if (len == 0) {
		*o++ = '%';
	} else if (len == 1 && p[0] == '-') {
		memcpy(o, "%2D", 3);
		o += 3;
	} else {
		for (i = 0; i < len; i++) {
			if (p[i] > ' ' && p[i] <= '~' && p[i] != '%') {
				*o++ = (char)p[i];
			} else {
				*o++ = '%';
				*o++ = hex[p[i] >> 4];
				*o++ = hex[p[i] & 15];
			}
		}
	}
	b->len = (size_t)(o - b->data);
}

int lc_record(const char *client, enum lc_op op, const void *key,
	      size_t klen, const void *val, size_t vlen, enum lc_result res,
	      uint64_t t_invoke, uint64_t t_return)
{
	static const char *const ops[] = { "get", "put", "del" };
	static const char *const results[] = { "ok", "missing", "err" };
	struct lc_buf *b;
	int with_val = op == LC_PUT || (op == LC_GET && res == LC_OK);
	size_t need;
	int n;

	if (!lc_history_enabled())
		return 0;
	if ((unsigned int)op > LC_DEL || (unsigned int)res > LC_ERR)
		return -EINVAL;
	b = lc_get_buf();
	if (!b)
		goto lost;
	need = 64 + (client ? strlen(client) : 16) + 3 * klen +
	       (with_val ? 3 * vlen + 3 : 1) + 64;
	if (lc_reserve(b, need))
		goto lost;
	if (client)
		n = snprintf(b->data + b->len, need, "%s ", client);
	else
		n = snprintf(b->data + b->len, need, "t%u ", b->thread_no);
	b->len += (size_t)n;
	b->len += (size_t)snprintf(b->data + b->len, 8, "%s ", ops[op]);
	lc_put_token(b, key, klen);
	b->data[b->len++] = ' ';
	if (with_val)
		lc_put_token(b, val, vlen);
	else
		b->data[b->len++] = '-';
	if (t_return == LC_NEVER)
		n = snprintf(b->data + b->len, 64, " %s %llu -\n",
			     results[res], (unsigned long long)t_invoke);
	else
		n = snprintf(b->data + b->len, 64, " %s %llu %llu\n",
			     results[res], (unsigned long long)t_invoke,
			     (unsigned long long)t_return);
	b->len += (size_t)n;
	return 0;
lost:
	__atomic_store_n(&lc_lost, 1, __ATOMIC_RELAXED);
	return -ENOMEM;
}

/* Writes one "#% ..." line straight to the file. */
static int lc_directive(const char *a, const char *b, const char *c)
{
	int err = 0;

	if (!a || strpbrk(a, " \t\n") || (b && strpbrk(b, " \t\n")) ||
	    (c && strpbrk(c, " \t\n")))
		return -EINVAL;
	pthread_mutex_lock(&lc_lock);
	if (!lc_file)
		err = -EBADF;
	else if (fprintf(lc_file, "#%% %s%s%s%s%s\n", a, b ? " " : "",
			 b ? b : "", c ? " " : "", c ? c : "") < 0)
		err = -EIO;
	pthread_mutex_unlock(&lc_lock);
	return err;
}

int lc_history_timeline(const char *clock, const char *epoch)
{
	if (!clock || !epoch || !*clock || !*epoch)
		return -EINVAL;
	return lc_directive("timeline", clock, epoch);
}

int lc_history_restart(const char *why)
{
	return lc_directive("restart", why && *why ? why : "?", NULL);
}

int lc_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strcspn(buf, " \t\n");
	buf[n] = '\0';
	return n ? 0 : -EIO;
}

int lc_history_close(void)
{
	struct lc_buf *b, *next;
	int err = 0;

	pthread_mutex_lock(&lc_lock);
	if (!lc_file) {
		pthread_mutex_unlock(&lc_lock);
		return 0;
	}
	for (b = lc_bufs; b; b = next) {
		next = b->next;
		if (b->len && fwrite(b->data, 1, b->len, lc_file) != b->len)
			err = -EIO;
		free(b->data);
		free(b);
	}
	lc_bufs = NULL;
	if (fclose(lc_file) && !err)
		err = -EIO;
	__atomic_store_n(&lc_file, NULL, __ATOMIC_RELEASE);
	if (lc_lost && !err)
		err = -ENOMEM;
	pthread_mutex_unlock(&lc_lock);
	return err;
}
