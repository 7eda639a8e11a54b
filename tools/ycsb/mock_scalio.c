// SPDX-License-Identifier: GPL-2.0
/*
 * mock_scalio.so - an LD_PRELOAD stand-in for /dev/scalio/<store>, for
 * testing the user-space tools on a machine without the modules.
 *
 * open() of any path under /dev/scalio/ returns a descriptor (of
 * /dev/null) that ioctl() then serves from an in-process, mutex-protected
 * hash map: GET, PUT, DELETE, MULTI and STATS with the argument checks and
 * errno of uapi/scalio.h (EINVAL, ENOENT, EOVERFLOW, EFAULT on NULL).
 * STATS reports the map's own counts: gets, puts, deletes, cache misses
 * (every GET), target rpc_puts/rpc_deletes and keys; everything a real
 * store measures beyond that (SSD I/O, CPU time) is 0.  It exercises the
 * tools' code paths; it measures nothing about scalio.
 *
 * MOCK_SCALIO_CORRUPT=N in the environment flips the last byte of every
 * Nth successful GET's value, to test that readers detect bad values.
 *
 * io_uring: the mock also stands in for liburing's ring functions
 * (io_uring_queue_init/exit, io_uring_submit, __io_uring_get_cqe; the
 * inline helpers of liburing.h work on the rings it sets up in plain
 * memory).  A submit runs every queued SCALIO_URING_CMD_* on a mock
 * descriptor as the module does (cqe->res = a GET's length, 0, or
 * -errno; kv.vlen and kv.result written back) and posts the CQEs in
 * REVERSE order of submission, so a tool that assumes completions come in
 * order is caught.  Any other SQE completes with -EOPNOTSUPP.  Only
 * 64-byte SQEs and 16-byte CQEs, no SQPOLL.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <liburing.h>
#include <scalio.h>

#define MAX_FDS		4096
#define NBUCKETS	(1 << 16)

struct item {
	struct item *next;
	unsigned int klen, vlen;
	unsigned char key[SCALIO_KEY_MAX];
	unsigned char val[SCALIO_VALUE_MAX];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct item *buckets[NBUCKETS];
static unsigned char mock_fd[MAX_FDS];
static struct scalio_host_stats hs;
static struct scalio_target_stats ts;
static unsigned long corrupt_every, nr_gets_ok;

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);

static void resolve(void)
{
	if (!real_open) {
		real_open = dlsym(RTLD_NEXT, "open");
		real_openat = dlsym(RTLD_NEXT, "openat");
		real_close = dlsym(RTLD_NEXT, "close");
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
		if (getenv("MOCK_SCALIO_CORRUPT"))
			corrupt_every = strtoul(getenv("MOCK_SCALIO_CORRUPT"),
						NULL, 10);
	}
}

static int is_store_path(const char *p)
{
	return p && !strncmp(p, "/dev/scalio/", 12) && p[12];
}

static int mock_open(void)
{
	int fd = real_open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd >= MAX_FDS) {
		real_close(fd);
		errno = EMFILE;
		return -1;
	}
	if (fd >= 0)
		mock_fd[fd] = 1;
	return fd;
}

static int mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	resolve();
	if (is_store_path(path))
		return mock_open();
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
	__attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	resolve();
	if (is_store_path(path))
		return mock_open();
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return real_openat(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
	__attribute__((alias("openat")));

int close(int fd)
{
	resolve();
	if (fd >= 0 && fd < MAX_FDS)
		mock_fd[fd] = 0;
	return real_close(fd);
}

static uint32_t hash(const unsigned char *k, unsigned int n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *k++) * 16777619u;
	return h & (NBUCKETS - 1);
}

static struct item **find(const unsigned char *k, unsigned int klen)
{
	struct item **p = &buckets[hash(k, klen)];

	for (; *p; p = &(*p)->next)
		if ((*p)->klen == klen && !memcmp((*p)->key, k, klen))
			return p;
	return p;
}

static int kv_check(const struct scalio_kv *kv, int op)
{
	if (kv->flags || kv->reserved[0] || kv->reserved[1])
		return -EINVAL;
	if (kv->klen < 1 || kv->klen > SCALIO_KEY_MAX)
		return -EINVAL;
	if (!kv->key)
		return -EFAULT;
	if (op == SCALIO_OP_PUT && kv->vlen > SCALIO_VALUE_MAX)
		return -EINVAL;
	if (op != SCALIO_OP_DELETE && kv->vlen && !kv->value)
		return -EFAULT;
	return 0;
}

/* One op on the map, under the lock.  Returns 0 or -errno. */
static int do_op(int op, struct scalio_kv *kv)
{
	const unsigned char *key = (const void *)(uintptr_t)kv->key;
	struct item **p, *it;
	int r = kv_check(kv, op);

	if (r)
		return r;
	p = find(key, kv->klen);
	switch (op) {
	case SCALIO_OP_GET:
		hs.gets++;
		hs.cache_misses++;
		ts.rpc_gets++;
		if (!*p)
			return -ENOENT;
		if ((*p)->vlen > kv->vlen) {
			kv->vlen = (*p)->vlen;
			return -EOVERFLOW;
		}
		memcpy((void *)(uintptr_t)kv->value, (*p)->val, (*p)->vlen);
		kv->vlen = (*p)->vlen;
		if (corrupt_every && kv->vlen && ++nr_gets_ok % corrupt_every == 0)
			((unsigned char *)(uintptr_t)kv->value)[kv->vlen - 1] ^= 1;
		return 0;
	case SCALIO_OP_PUT:
		hs.puts++;
		ts.rpc_puts++;
		it = *p;
		if (!it) {
			it = calloc(1, sizeof(*it));
			if (!it)
				return -ENOMEM;
			it->klen = kv->klen;
			memcpy(it->key, key, kv->klen);
			*p = it;
			ts.keys++;
		}
		memcpy(it->val, (const void *)(uintptr_t)kv->value, kv->vlen);
		it->vlen = kv->vlen;
		return 0;
	case SCALIO_OP_DELETE:
		hs.deletes++;
		ts.rpc_deletes++;
		if (!*p)
			return -ENOENT;
		it = *p;
		*p = it->next;
		free(it);
		ts.keys--;
		return 0;
	}
	return -EINVAL;
}

static int mock_ioctl(unsigned long req, void *arg)
{
	struct scalio_multi *m;
	struct scalio_multi_op *mo;
	struct scalio_stats *st;
	unsigned int i;
	int r = 0;

	if (!arg)
		return -EFAULT;
	pthread_mutex_lock(&lock);
	switch (req) {
	case SCALIO_IOC_GET:
		r = do_op(SCALIO_OP_GET, arg);
		break;
	case SCALIO_IOC_PUT:
		r = do_op(SCALIO_OP_PUT, arg);
		break;
	case SCALIO_IOC_DELETE:
		r = do_op(SCALIO_OP_DELETE, arg);
		break;
	case SCALIO_IOC_MULTI:
		m = arg;
		if (m->flags || m->reserved[0] || m->reserved[1] ||
		    m->reserved[2] || m->nr < 1 || m->nr > SCALIO_MULTI_MAX) {
			r = -EINVAL;
			break;
		}
		mo = (void *)(uintptr_t)m->ops;
		if (!mo) {
			r = -EFAULT;
			break;
		}
		for (i = 0; i < m->nr; i++)
			mo[i].kv.result = mo[i].pad ? -EINVAL :
					  do_op((int)mo[i].opcode, &mo[i].kv);
		m->nr_done = m->nr;
		break;
	case SCALIO_IOC_STATS:
		st = arg;
		if (st->size != sizeof(*st) || st->flags & ~SCALIO_STATS_F_TARGET) {
			r = -EINVAL;
			break;
		}
		st->features = 0;
		st->nr_ssds = 1;
		st->nr_blocks = 4096;
		st->nr_buckets = 4096;
		st->slots_per_block = 8;
		st->host = hs;
		st->target_valid = !!(st->flags & SCALIO_STATS_F_TARGET);
		if (st->target_valid)
			st->target = ts;
		else
			memset(&st->target, 0, sizeof(st->target));
		break;
	default:
		r = -ENOTTY;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int r;

	resolve();
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd < 0 || fd >= MAX_FDS || !mock_fd[fd])
		return real_ioctl(fd, req, arg);
	r = mock_ioctl(req, arg);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ io_uring */

/* The "kernel" side of a fake ring, in plain memory. */
struct fake_ring {
	unsigned int sq_head, sq_tail, sq_flags, sq_dropped;
	unsigned int cq_head, cq_tail, cq_flags, cq_overflow;
	unsigned int entries;
};

int io_uring_queue_init(unsigned int entries, struct io_uring *ring,
			unsigned int flags)
{
	struct fake_ring *f;
	unsigned int n = 1;

	if (!entries || entries > 32768 || flags)
		return -EINVAL;
	while (n < entries)
		n <<= 1;
	memset(ring, 0, sizeof(*ring));
	f = calloc(1, sizeof(*f));
	ring->sq.sqes = calloc(n, sizeof(struct io_uring_sqe));
	ring->cq.cqes = calloc(2 * n, sizeof(struct io_uring_cqe));
	if (!f || !ring->sq.sqes || !ring->cq.cqes) {
		free(f);
		free(ring->sq.sqes);
		free(ring->cq.cqes);
		return -ENOMEM;
	}
	f->entries = n;
	ring->sq.khead = &f->sq_head;
	ring->sq.ktail = &f->sq_tail;
	ring->sq.kflags = &f->sq_flags;
	ring->sq.kdropped = &f->sq_dropped;
	ring->sq.ring_mask = n - 1;
	ring->sq.ring_entries = n;
	ring->sq.kring_mask = &ring->sq.ring_mask;
	ring->sq.kring_entries = &ring->sq.ring_entries;
	ring->cq.khead = &f->cq_head;
	ring->cq.ktail = &f->cq_tail;
	ring->cq.kflags = &f->cq_flags;
	ring->cq.koverflow = &f->cq_overflow;
	ring->cq.ring_mask = 2 * n - 1;
	ring->cq.ring_entries = 2 * n;
	ring->cq.kring_mask = &ring->cq.ring_mask;
	ring->cq.kring_entries = &ring->cq.ring_entries;
	ring->sq.ring_ptr = f;
	ring->ring_fd = -1;
	ring->enter_ring_fd = -1;
	ring->features = IORING_FEAT_EXT_ARG;
	return 0;
}

int io_uring_queue_init_params(unsigned int entries, struct io_uring *ring,
			       struct io_uring_params *p)
{
	return io_uring_queue_init(entries, ring, p ? p->flags : 0);
}

void io_uring_queue_exit(struct io_uring *ring)
{
	free(ring->sq.ring_ptr);
	free(ring->sq.sqes);
	free(ring->cq.cqes);
	memset(ring, 0, sizeof(*ring));
	ring->ring_fd = -1;
}

/* One SQE, as the module's ->uring_cmd and completion would do it. */
static int mock_uring_cmd(const struct io_uring_sqe *sqe)
{
	const struct scalio_uring_cmd *uc = (const void *)sqe->cmd;
	struct scalio_kv *kv;
	int op, r;

	if (sqe->opcode != IORING_OP_URING_CMD || sqe->fd < 0 ||
	    sqe->fd >= MAX_FDS || !mock_fd[sqe->fd])
		return -EOPNOTSUPP;
	switch (sqe->cmd_op) {
	case SCALIO_URING_CMD_GET:
		op = SCALIO_OP_GET;
		break;
	case SCALIO_URING_CMD_PUT:
		op = SCALIO_OP_PUT;
		break;
	case SCALIO_URING_CMD_DELETE:
		op = SCALIO_OP_DELETE;
		break;
	default:
		return -ENOTTY;
	}
	if (uc->flags || uc->reserved || sqe->uring_cmd_flags)
		return -EINVAL;
	kv = (void *)(uintptr_t)uc->kv;
	if (!kv)
		return -EFAULT;
	if (op == SCALIO_OP_DELETE && (kv->value || kv->vlen))
		return -EINVAL;
	pthread_mutex_lock(&lock);
	r = do_op(op, kv);
	pthread_mutex_unlock(&lock);
	kv->result = r;
	return op == SCALIO_OP_GET && !r ? (int)kv->vlen : r;
}

int io_uring_submit(struct io_uring *ring)
{
	struct fake_ring *f = ring->sq.ring_ptr;
	unsigned int n = ring->sq.sqe_tail - ring->sq.sqe_head, i;
	unsigned int tail = f->cq_tail;
	struct io_uring_cqe *cqe;

	resolve();
	if (tail + n - f->cq_head > ring->cq.ring_entries)
		return -EBUSY;	/* the kernel would overflow; tools must reap */
	for (i = 0; i < n; i++) {
		const struct io_uring_sqe *sqe = &ring->sq.sqes[
			(ring->sq.sqe_head + i) & ring->sq.ring_mask];

		/* Reverse order: the last SQE of the batch completes first. */
		cqe = &ring->cq.cqes[(tail + n - 1 - i) & ring->cq.ring_mask];
		cqe->user_data = sqe->user_data;
		cqe->res = mock_uring_cmd(sqe);
		cqe->flags = 0;
	}
	ring->sq.sqe_head += n;
	__atomic_store_n(&f->sq_head, ring->sq.sqe_head, __ATOMIC_RELEASE);
	__atomic_store_n(&f->cq_tail, tail + n, __ATOMIC_RELEASE);
	return (int)n;
}

int io_uring_submit_and_wait(struct io_uring *ring, unsigned int wait_nr)
{
	(void)wait_nr;		/* everything completes at submission */
	return io_uring_submit(ring);
}

/* Nothing is ever pending past a submit: waiting for more is a tool bug. */
int __io_uring_get_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
		       unsigned int submit, unsigned int wait_nr,
		       sigset_t *sigmask)
{
	struct fake_ring *f = ring->sq.ring_ptr;

	(void)sigmask;
	(void)wait_nr;
	if (submit)
		io_uring_submit(ring);
	*cqe_ptr = NULL;
	if (f->cq_tail != f->cq_head) {
		*cqe_ptr = &ring->cq.cqes[f->cq_head & ring->cq.ring_mask];
		return 0;
	}
	return -EAGAIN;		/* as liburing: nothing there, none coming */
}
