// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_uring: GET, PUT and DELETE as IORING_OP_URING_CMD on
 * /dev/scalio/<store> (uapi/scalio.h, SCALIO_URING_CMD_*).
 *
 *   - many operations in flight from one thread, every value checked (also
 *     against the synchronous ioctls), the CQE carrying result and length;
 *   - each bad field gets its exact errno, in the CQE;
 *   - 128-byte SQEs (the rest of the payload must be zero) and 32-byte
 *     CQEs (big_cqe[0] = the value's length, also with -EOVERFLOW);
 *   - a ring closed, a process exiting and a process SIGKILLed with
 *     operations in flight: no hang, and the store keeps working (the VM
 *     suite's 15-uring then detaches the store, which succeeds only if no
 *     command still holds the device, and checks the kernel logs).
 *
 * Runs on a host where the store is attached (default kv0; SCALIO_STORE
 * overrides).  Exits 4 (skip) when the store device is absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>

#include "kselftest_harness.h"
#include "../../uapi/scalio.h"

#define NKEYS	256		/* keys of the bulk test */
/* No time limit of our own: every op is bounded by the module's timeouts. */
#define NO_LIMIT	3600
#define DEPTH	256		/* ring entries: ops in flight at once */

static const char *store_name = "kv0";
static char store_path[64];
static unsigned int run_id;

/* Key "ur.<run>.<tag>.<n>". */
static uint32_t mkkey(char *buf, const char *tag, unsigned int n)
{
	int len = snprintf(buf, SCALIO_KEY_MAX + 1, "ur.%08x.%s.%u", run_id,
			   tag, n);

	return len > SCALIO_KEY_MAX ? SCALIO_KEY_MAX : (uint32_t)len;
}

/* Value of key @n, version @ver: length and bytes both depend on them. */
static uint32_t mkval(unsigned char *buf, unsigned int n, unsigned int ver)
{
	uint32_t len = 1 + (n * 37 + ver * 101) % 300, i;

	if (n % 17 == 0)
		len = 3000 + n % 1000;	/* some too large for the inline cache */
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(n * 131 + ver * 29 + i * 7);
	return len;
}

static uint64_t u64p(const void *p)
{
	return (uintptr_t)p;
}

/* One op: its kv (which must live until the CQE), key and buffer. */
struct op {
	struct scalio_kv kv;
	struct scalio_uring_cmd uc;
	char key[SCALIO_KEY_MAX + 1];
	unsigned char val[SCALIO_VALUE_MAX];
	uint32_t cmd_op;
	int res;
	uint64_t res2;
	int done;
};

/* Queue @o on @ring (flushing the SQ when full). */
static void queue_op(struct io_uring *ring, int fd, struct op *o)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe) {
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	if (!sqe)
		abort();
	memset(sqe, 0, (ring->flags & IORING_SETUP_SQE128) ? 128 : 64);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = o->cmd_op;
	sqe->user_data = u64p(o);
	o->uc.kv = u64p(&o->kv);
	memcpy(sqe->cmd, &o->uc, sizeof(o->uc));
	o->done = 0;
}

/* Reap @n completions into their ops. */
static int reap(struct io_uring *ring, unsigned int n)
{
	struct io_uring_cqe *cqe;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret)
			return ret;
		struct op *o = (struct op *)(uintptr_t)cqe->user_data;

		o->res = cqe->res;
		o->res2 = (ring->flags & IORING_SETUP_CQE32) ?
			  cqe->big_cqe[0] : 0;
		o->done++;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

/* Submit every op of @ops at once (DEPTH at a time) and reap them all. */
static int run_ops(struct io_uring *ring, int fd, struct op *ops,
		   unsigned int n)
{
	unsigned int i, inflight = 0;
	int ret;

	for (i = 0; i < n; i++) {
		if (inflight == DEPTH) {
			io_uring_submit(ring);
			ret = reap(ring, 1);
			if (ret)
				return ret;
			inflight--;
		}
		queue_op(ring, fd, &ops[i]);
		inflight++;
	}
	io_uring_submit(ring);
	return reap(ring, inflight);
}

static void set_put(struct op *o, const char *tag, unsigned int n,
		    unsigned int ver)
{
	memset(&o->kv, 0, sizeof(o->kv));
	memset(&o->uc, 0, sizeof(o->uc));
	o->cmd_op = SCALIO_URING_CMD_PUT;
	o->kv.klen = mkkey(o->key, tag, n);
	o->kv.key = u64p(o->key);
	o->kv.vlen = mkval(o->val, n, ver);
	o->kv.value = u64p(o->val);
}

static void set_get(struct op *o, const char *tag, unsigned int n)
{
	memset(&o->kv, 0, sizeof(o->kv));
	memset(&o->uc, 0, sizeof(o->uc));
	o->cmd_op = SCALIO_URING_CMD_GET;
	o->kv.klen = mkkey(o->key, tag, n);
	o->kv.key = u64p(o->key);
	o->kv.vlen = sizeof(o->val);
	o->kv.value = u64p(o->val);
	o->kv.result = 12345;	/* must be overwritten */
	memset(o->val, 0xee, sizeof(o->val));
}

static void set_del(struct op *o, const char *tag, unsigned int n)
{
	memset(&o->kv, 0, sizeof(o->kv));
	memset(&o->uc, 0, sizeof(o->uc));
	o->cmd_op = SCALIO_URING_CMD_DELETE;
	o->kv.klen = mkkey(o->key, tag, n);
	o->kv.key = u64p(o->key);
}

/* Synchronous GET by ioctl, for cross-checking. */
static int sync_get(int fd, const char *key, uint32_t klen,
		    unsigned char *buf, uint32_t *vlen)
{
	struct scalio_kv kv = {
		.key = u64p(key), .klen = klen, .value = u64p(buf),
		.vlen = SCALIO_VALUE_MAX,
	};
	int ret = ioctl(fd, SCALIO_IOC_GET, &kv) ? -errno : 0;

	*vlen = kv.vlen;
	return ret;
}

FIXTURE(ur) {
	int fd;
	struct io_uring ring;
	struct op *ops;
};

static void open_ring(struct __test_metadata *_metadata,
		     FIXTURE_DATA(ur) *self, unsigned int flags)
{
	int ret;

	self->fd = open(store_path, O_RDWR);
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s", store_path, strerror(errno));
	}
	ret = io_uring_queue_init(DEPTH, &self->ring, flags);
	ASSERT_EQ(0, ret) {
		TH_LOG("io_uring_queue_init: %s", strerror(-ret));
	}
	self->ops = calloc(NKEYS, sizeof(*self->ops));
	ASSERT_NE(NULL, self->ops);
}

FIXTURE_SETUP(ur)
{
	open_ring(_metadata, self, 0);
}

FIXTURE_TEARDOWN(ur)
{
	io_uring_queue_exit(&self->ring);
	free(self->ops);
	close(self->fd);
}

/* Check GET op @o (key @n) found version @ver, or -ENOENT if @ver < 0. */
static void check_get(struct __test_metadata *_metadata, int fd,
		      struct op *o, unsigned int n, int ver)
{
	unsigned char want[SCALIO_VALUE_MAX], sync[SCALIO_VALUE_MAX];
	uint32_t wlen, slen;

	ASSERT_EQ(1, o->done);
	if (ver < 0) {
		ASSERT_EQ(-ENOENT, o->res) {
			TH_LOG("key %u: res %d, expected -ENOENT", n, o->res);
		}
		ASSERT_EQ(-ENOENT, o->kv.result);
		if (n % 8)
			return;
		ASSERT_EQ(-ENOENT, sync_get(fd, o->key, o->kv.klen, sync,
					    &slen));
		return;
	}
	wlen = mkval(want, n, (unsigned int)ver);
	ASSERT_EQ((int)wlen, o->res) {
		TH_LOG("key %u: res %d, expected the length %u", n, o->res,
		       wlen);
	}
	ASSERT_EQ(wlen, o->kv.vlen);
	ASSERT_EQ(0, o->kv.result);
	ASSERT_EQ(0, memcmp(want, o->val, wlen)) {
		TH_LOG("key %u: wrong value", n);
	}
	ASSERT_EQ(0xee, o->val[wlen]);	/* nothing written past it */
	if (n % 8)
		return;		/* cross-check a sample with the ioctl */
	ASSERT_EQ(0, sync_get(fd, o->key, o->kv.klen, sync, &slen));
	ASSERT_EQ(wlen, slen);
	ASSERT_EQ(0, memcmp(want, sync, wlen));
}

TEST_F_TIMEOUT(ur, many_in_flight, NO_LIMIT)
{
	unsigned int i;
	int ver[NKEYS];

	/* PUT every key, DEPTH in flight. */
	for (i = 0; i < NKEYS; i++)
		set_put(&self->ops[i], "m", i, 1);
	ASSERT_EQ(0, run_ops(&self->ring, self->fd, self->ops, NKEYS));
	for (i = 0; i < NKEYS; i++) {
		ASSERT_EQ(1, self->ops[i].done);
		ASSERT_EQ(0, self->ops[i].res) {
			TH_LOG("PUT %u: %s", i, strerror(-self->ops[i].res));
		}
		ver[i] = 1;
	}
	/* GET them all back. */
	for (i = 0; i < NKEYS; i++)
		set_get(&self->ops[i], "m", i);
	ASSERT_EQ(0, run_ops(&self->ring, self->fd, self->ops, NKEYS));
	for (i = 0; i < NKEYS; i++)
		check_get(_metadata, self->fd, &self->ops[i], i, ver[i]);
	/* Mixed: overwrite every 2nd key, delete every 3rd. */
	for (i = 0; i < NKEYS; i++) {
		if (i % 3 == 0) {
			set_del(&self->ops[i], "m", i);
			ver[i] = -1;
		} else if (i % 2 == 0) {
			set_put(&self->ops[i], "m", i, 2);
			ver[i] = 2;
		} else {
			set_get(&self->ops[i], "m", i);
		}
	}
	ASSERT_EQ(0, run_ops(&self->ring, self->fd, self->ops, NKEYS));
	for (i = 0; i < NKEYS; i++) {
		if (i % 3 && i % 2) {
			check_get(_metadata, self->fd, &self->ops[i], i, 1);
		} else {
			ASSERT_EQ(0, self->ops[i].res);
		}
	}
	for (i = 0; i < NKEYS; i++)
		set_get(&self->ops[i], "m", i);
	ASSERT_EQ(0, run_ops(&self->ring, self->fd, self->ops, NKEYS));
	for (i = 0; i < NKEYS; i++)
		check_get(_metadata, self->fd, &self->ops[i], i, ver[i]);
	/* DELETE of a missing key: -ENOENT; then clean up. */
	for (i = 0; i < NKEYS; i++)
		set_del(&self->ops[i], "m", i);
	ASSERT_EQ(0, run_ops(&self->ring, self->fd, self->ops, NKEYS));
	for (i = 0; i < NKEYS; i++)
		ASSERT_EQ(i % 3 ? 0 : -ENOENT, self->ops[i].res);
}

/* Run one op alone and return its CQE result. */
static int one(struct io_uring *ring, int fd, struct op *o)
{
	if (run_ops(ring, fd, o, 1))
		return -9999;
	return o->res;
}

TEST_F_TIMEOUT(ur, bad_fields, NO_LIMIT)
{
	struct op *o = &self->ops[0];
	void *unmapped;

	unmapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	munmap(unmapped, 4096);

	set_put(o, "bad", 0, 1);
	o->cmd_op = _IOWR(SCALIO_IOC_MAGIC, 0x2f, struct scalio_uring_cmd);
	EXPECT_EQ(-ENOTTY, one(&self->ring, self->fd, o));
	o->cmd_op = SCALIO_IOC_PUT;	/* an ioctl number is not a cmd_op */
	EXPECT_EQ(-ENOTTY, one(&self->ring, self->fd, o));

	set_put(o, "bad", 0, 1);
	o->uc.flags = 1;
	EXPECT_EQ(-EINVAL, one(&self->ring, self->fd, o));
	set_put(o, "bad", 0, 1);
	o->uc.reserved = 0xffffffff;
	EXPECT_EQ(-EINVAL, one(&self->ring, self->fd, o));

	/* kv pointer: checked before anything runs. */
	set_put(o, "bad", 0, 1);
	o->uc.kv = 0;
	{	/* queue_op() sets uc.kv: build this one by hand */
		struct io_uring_sqe *sqe = io_uring_get_sqe(&self->ring);
		struct io_uring_cqe *cqe;

		ASSERT_NE(NULL, sqe);
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = self->fd;
		sqe->cmd_op = SCALIO_URING_CMD_GET;
		memcpy(sqe->cmd, &o->uc, sizeof(o->uc));
		ASSERT_EQ(1, io_uring_submit(&self->ring));
		ASSERT_EQ(0, io_uring_wait_cqe(&self->ring, &cqe));
		EXPECT_EQ(-EFAULT, cqe->res);
		io_uring_cqe_seen(&self->ring, cqe);
	}

	/* kv fields, as the ioctls check them. */
	set_put(o, "bad", 0, 1);
	o->kv.klen = 0;
	EXPECT_EQ(-EINVAL, one(&self->ring, self->fd, o));
	set_put(o, "bad", 0, 1);
	o->kv.klen = SCALIO_KEY_MAX + 1;
	EXPECT_EQ(-EINVAL, one(&self->ring, self->fd, o));
	set_put(o, "bad", 0, 1);
	o->kv.vlen = SCALIO_VALUE_MAX + 1;
	EXPECT_EQ(-E2BIG, one(&self->ring, self->fd, o));
	set_put(o, "bad", 0, 1);
	o->kv.flags = 1;
	EXPECT_EQ(-EINVAL, one(&self->ring, self->fd, o));
	set_put(o, "bad", 0, 1);
	o->kv.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, one(&self->ring, self->fd, o));
	set_del(o, "bad", 0);
	o->kv.vlen = 1;
	EXPECT_EQ(-EINVAL, one(&self->ring, self->fd, o));
	set_put(o, "bad", 0, 1);
	o->kv.key = u64p(unmapped);
	EXPECT_EQ(-EFAULT, one(&self->ring, self->fd, o));
	set_put(o, "bad", 0, 1);
	o->kv.value = u64p(unmapped);
	EXPECT_EQ(-EFAULT, one(&self->ring, self->fd, o));

	/* GET: a buffer too small, then one that is not mapped. */
	set_put(o, "bad", 1, 1);
	ASSERT_EQ(0, one(&self->ring, self->fd, o));
	set_get(o, "bad", 1);
	o->kv.vlen = 0;
	EXPECT_EQ(-EOVERFLOW, one(&self->ring, self->fd, o));
	EXPECT_EQ(mkval(self->ops[1].val, 1, 1), o->kv.vlen);
	EXPECT_EQ(-EOVERFLOW, o->kv.result);
	set_get(o, "bad", 1);
	o->kv.value = u64p(unmapped);
	EXPECT_EQ(-EFAULT, one(&self->ring, self->fd, o));
	set_del(o, "bad", 1);
	EXPECT_EQ(0, one(&self->ring, self->fd, o));

	/* uring_cmd_flags: registered buffers are not supported. */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&self->ring);
		struct io_uring_cqe *cqe;
		struct iovec iov = { self->ops[1].val, 4096 };

		ASSERT_EQ(0, io_uring_register_buffers(&self->ring, &iov, 1));
		set_put(o, "bad", 0, 1);
		o->uc.kv = u64p(&o->kv);
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = self->fd;
		sqe->cmd_op = SCALIO_URING_CMD_PUT;
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		memcpy(sqe->cmd, &o->uc, sizeof(o->uc));
		ASSERT_EQ(1, io_uring_submit(&self->ring));
		ASSERT_EQ(0, io_uring_wait_cqe(&self->ring, &cqe));
		EXPECT_EQ(-EINVAL, cqe->res);
		io_uring_cqe_seen(&self->ring, cqe);
		io_uring_unregister_buffers(&self->ring);
	}
	/* None of the bad PUTs stored anything. */
	set_get(o, "bad", 0);
	EXPECT_EQ(-ENOENT, one(&self->ring, self->fd, o));
}

/* 128-byte SQEs and 32-byte CQEs. */
FIXTURE(big) {
	int fd;
	struct io_uring ring;
	struct op *ops;
};

FIXTURE_SETUP(big)
{
	open_ring(_metadata, (FIXTURE_DATA(ur) *)self,
		 IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
}

FIXTURE_TEARDOWN(big)
{
	io_uring_queue_exit(&self->ring);
	free(self->ops);
	close(self->fd);
}

TEST_F_TIMEOUT(big, sqe128_cqe32, NO_LIMIT)
{
	struct op *o = &self->ops[0];
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	uint32_t len;

	set_put(o, "big", 7, 3);
	len = o->kv.vlen;
	ASSERT_EQ(0, one(&self->ring, self->fd, o));
	set_get(o, "big", 7);
	ASSERT_EQ((int)len, one(&self->ring, self->fd, o));
	EXPECT_EQ(len, o->res2);	/* big_cqe[0]: the length */
	set_get(o, "big", 7);
	o->kv.vlen = 1;
	EXPECT_EQ(-EOVERFLOW, one(&self->ring, self->fd, o));
	EXPECT_EQ(len, o->res2);	/* the size needed */
	EXPECT_EQ(len, o->kv.vlen);

	/* A nonzero byte in the 64 extra bytes of the payload. */
	set_get(o, "big", 7);
	o->uc.kv = u64p(&o->kv);
	sqe = io_uring_get_sqe(&self->ring);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = self->fd;
	sqe->cmd_op = SCALIO_URING_CMD_GET;
	memcpy(sqe->cmd, &o->uc, sizeof(o->uc));
	sqe->cmd[79] = 1;
	ASSERT_EQ(1, io_uring_submit(&self->ring));
	ASSERT_EQ(0, io_uring_wait_cqe(&self->ring, &cqe));
	EXPECT_EQ(-EINVAL, cqe->res);
	io_uring_cqe_seen(&self->ring, cqe);

	set_del(o, "big", 7);
	EXPECT_EQ(0, one(&self->ring, self->fd, o));
}

/* Queue @n PUTs of tag @tag and submit them; do not wait. */
static void fire(struct io_uring *ring, int fd, struct op *ops, unsigned int n,
		 const char *tag)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i % 2)
			set_get(&ops[i], tag, i / 2);
		else
			set_put(&ops[i], tag, i / 2, 1);
		queue_op(ring, fd, &ops[i]);
	}
	io_uring_submit(ring);
}

/* After an abandoned batch of tag @tag: the store still answers. */
static void store_works(struct __test_metadata *_metadata, int fd,
			const char *tag)
{
	unsigned char buf[SCALIO_VALUE_MAX], want[SCALIO_VALUE_MAX];
	char key[SCALIO_KEY_MAX + 1];
	uint32_t klen, vlen, wlen;
	unsigned int i;
	int ret;

	/* Each PUT either happened (with its value) or not at all. */
	for (i = 0; i < DEPTH / 2; i++) {
		klen = mkkey(key, tag, i);
		ret = sync_get(fd, key, klen, buf, &vlen);
		if (ret == -ENOENT)
			continue;
		ASSERT_EQ(0, ret);
		wlen = mkval(want, i, 1);
		ASSERT_EQ(wlen, vlen);
		ASSERT_EQ(0, memcmp(want, buf, wlen));
		struct scalio_kv kv = { .key = u64p(key), .klen = klen };

		ASSERT_EQ(0, ioctl(fd, SCALIO_IOC_DELETE, &kv));
	}
}

TEST_F_TIMEOUT(ur, ring_closed_in_flight, NO_LIMIT)
{
	/*
	 * Late completions still copy into these: never freed (the test
	 * process ends soon after).
	 */
	struct op *ops = calloc(DEPTH, sizeof(*ops));

	ASSERT_NE(NULL, ops);
	fire(&self->ring, self->fd, ops, DEPTH, "rc");
	/* Ring and device go away with up to DEPTH ops in flight. */
	io_uring_queue_exit(&self->ring);
	close(self->fd);
	self->fd = open(store_path, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, io_uring_queue_init(DEPTH, &self->ring, 0));
	store_works(_metadata, self->fd, "rc");
}

/* A child submits ops, then exits (@kill: is SIGKILLed) with them in flight. */
static void child_abandons(struct __test_metadata *_metadata, int fd,
			   struct op *ops, const char *tag, int kill_it)
{
	int p[2], status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct io_uring ring;
		int cfd = open(store_path, O_RDWR);

		if (cfd < 0 || io_uring_queue_init(DEPTH, &ring, 0))
			_exit(1);
		fire(&ring, cfd, ops, DEPTH, tag);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		if (kill_it)
			pause();
		_exit(0);	/* ring and device still open, ops in flight */
	}
	close(p[1]);
	ASSERT_EQ(1, read(p[0], &c, 1));
	close(p[0]);
	if (kill_it)
		ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (kill_it) {
		ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	} else {
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	store_works(_metadata, fd, tag);
}

TEST_F_TIMEOUT(ur, process_exits_in_flight, NO_LIMIT)
{
	child_abandons(_metadata, self->fd, self->ops, "ex", 0);
}

TEST_F_TIMEOUT(ur, process_killed_in_flight, NO_LIMIT)
{
	child_abandons(_metadata, self->fd, self->ops, "kl", 1);
}

int main(int argc, char **argv)
{
	const char *s = getenv("SCALIO_STORE");

	if (s && *s)
		store_name = s;
	snprintf(store_path, sizeof(store_path), SCALIO_STORE_DEV_FMT,
		 store_name);
	if (access(store_path, F_OK)) {
		printf("# SKIP: %s absent (store not attached)\n", store_path);
		return 4;
	}
	run_id = (unsigned int)time(NULL) ^ ((unsigned int)getpid() << 16);
	return test_harness_run(argc, argv);
}
