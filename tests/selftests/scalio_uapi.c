// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_uapi: the ioctl interface of /dev/scalio-ctl and
 * /dev/scalio/<store>, one test per failure class, each asserting the exact
 * errno; then a seeded fuzz loop of random ioctl numbers and random bytes.
 *
 * Runs on a host where the store is attached (default kv0; SCALIO_STORE
 * overrides, SCALIO_TRADDR / SCALIO_TRSVCID give the target's address for
 * the duplicate-attach test).  Exits 4 (skip) when the store device is
 * absent.  SCALIO_FUZZ_ITERS and SCALIO_FUZZ_SEED tune the fuzz loop.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../../uapi/scalio.h"

#define KERNEL_PTR	0xffff888000000000ULL	/* never a user address */

static const char *store_name = "kv0";
static char store_path[64];
static const char *traddr = "10.77.0.1";
static unsigned int trsvcid = 4800;
static unsigned int run_id;

static void *uptr(uint64_t v)
{
	return (void *)(uintptr_t)v;
}

static uint64_t u64p(const void *p)
{
	return (uintptr_t)p;
}

/* Key "ua.<run>.<tag>": unique per run, so earlier runs never interfere. */
static uint32_t mkkey(char *buf, const char *tag)
{
	int n = snprintf(buf, SCALIO_KEY_MAX + 1, "ua.%08x.%s", run_id, tag);

	return n > SCALIO_KEY_MAX ? SCALIO_KEY_MAX : (uint32_t)n;
}

static void fill(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static int kv_op(int fd, unsigned long cmd, struct scalio_kv *kv)
{
	return ioctl(fd, cmd, kv) ? -errno : 0;
}

static int put(int fd, const void *key, uint32_t klen, const void *val,
	       uint32_t vlen)
{
	struct scalio_kv kv = {
		.key = u64p(key), .value = u64p(val), .klen = klen,
		.vlen = vlen,
	};

	return kv_op(fd, SCALIO_IOC_PUT, &kv);
}

/* GET into @buf of *@vlen bytes; *@vlen receives the reported length. */
static int get(int fd, const void *key, uint32_t klen, void *buf,
	       uint32_t *vlen)
{
	struct scalio_kv kv = {
		.key = u64p(key), .value = u64p(buf), .klen = klen,
		.vlen = *vlen,
	};
	int ret = kv_op(fd, SCALIO_IOC_GET, &kv);

	*vlen = kv.vlen;
	return ret;
}

static int del(int fd, const void *key, uint32_t klen)
{
	struct scalio_kv kv = { .key = u64p(key), .klen = klen };

	return kv_op(fd, SCALIO_IOC_DELETE, &kv);
}

/* An address that was mapped and is not any more. */
static void *unmapped_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, 4096);
	return p;
}

FIXTURE(kv) {
	int fd;
};

FIXTURE_SETUP(kv)
{
	self->fd = open(store_path, O_RDWR);
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s", store_path, strerror(errno));
	}
}

FIXTURE_TEARDOWN(kv)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(kv, roundtrip)
{
	char key[SCALIO_KEY_MAX + 1], val[100], out[200];
	uint32_t klen = mkkey(key, "rt"), vlen = sizeof(out);

	fill(val, sizeof(val), 1);
	ASSERT_EQ(0, put(self->fd, key, klen, val, sizeof(val)));
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(sizeof(val), vlen);
	ASSERT_EQ(0, memcmp(val, out, sizeof(val)));
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, overwrite)
{
	char key[SCALIO_KEY_MAX + 1], v1[300], v2[1000], v3[5], out[2000];
	uint32_t klen = mkkey(key, "ow"), vlen;

	fill(v1, sizeof(v1), 2);
	fill(v2, sizeof(v2), 3);
	fill(v3, sizeof(v3), 4);
	ASSERT_EQ(0, put(self->fd, key, klen, v1, sizeof(v1)));
	ASSERT_EQ(0, put(self->fd, key, klen, v2, sizeof(v2)));
	vlen = sizeof(out);
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(sizeof(v2), vlen);
	ASSERT_EQ(0, memcmp(v2, out, sizeof(v2)));
	/* A shorter value must shrink the reported length. */
	ASSERT_EQ(0, put(self->fd, key, klen, v3, sizeof(v3)));
	vlen = sizeof(out);
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(sizeof(v3), vlen);
	ASSERT_EQ(0, memcmp(v3, out, sizeof(v3)));
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, delete)
{
	char key[SCALIO_KEY_MAX + 1], val[64], out[64];
	uint32_t klen = mkkey(key, "del"), vlen = sizeof(out);

	fill(val, sizeof(val), 5);
	ASSERT_EQ(0, put(self->fd, key, klen, val, sizeof(val)));
	ASSERT_EQ(0, del(self->fd, key, klen));
	ASSERT_EQ(-ENOENT, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(-ENOENT, del(self->fd, key, klen));
	/* And it can come back. */
	ASSERT_EQ(0, put(self->fd, key, klen, val, 10));
	vlen = sizeof(out);
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(10U, vlen);
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, missing_key_enoent)
{
	char key[SCALIO_KEY_MAX + 1], out[16];
	uint32_t klen = mkkey(key, "never-put"), vlen = sizeof(out);

	ASSERT_EQ(-ENOENT, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(-ENOENT, del(self->fd, key, klen));
}

TEST_F(kv, key_size_0_einval)
{
	char key[4] = "abc", out[8];
	uint32_t vlen = sizeof(out);

	ASSERT_EQ(-EINVAL, put(self->fd, key, 0, "v", 1));
	ASSERT_EQ(-EINVAL, get(self->fd, key, 0, out, &vlen));
	ASSERT_EQ(-EINVAL, del(self->fd, key, 0));
}

TEST_F(kv, key_size_1_ok)
{
	char key[1] = { (char)(run_id | 0x80) }, out[8];
	uint32_t vlen = sizeof(out);

	ASSERT_EQ(0, put(self->fd, key, 1, "one", 3));
	ASSERT_EQ(0, get(self->fd, key, 1, out, &vlen));
	ASSERT_EQ(3U, vlen);
	ASSERT_EQ(0, memcmp(out, "one", 3));
	ASSERT_EQ(0, del(self->fd, key, 1));
}

TEST_F(kv, key_size_32_ok)
{
	char key[SCALIO_KEY_MAX + 1], out[8];
	uint32_t vlen = sizeof(out);

	memset(key, 'k', sizeof(key));
	mkkey(key, "32");
	key[strlen(key)] = 'k';		/* pad to exactly 32 bytes */
	ASSERT_EQ(0, put(self->fd, key, SCALIO_KEY_MAX, "32", 2));
	ASSERT_EQ(0, get(self->fd, key, SCALIO_KEY_MAX, out, &vlen));
	ASSERT_EQ(2U, vlen);
	/* The 31-byte prefix is a different key. */
	vlen = sizeof(out);
	ASSERT_EQ(-ENOENT, get(self->fd, key, SCALIO_KEY_MAX - 1, out, &vlen));
	ASSERT_EQ(0, del(self->fd, key, SCALIO_KEY_MAX));
}

TEST_F(kv, key_size_33_einval)
{
	char key[64], out[8];
	uint32_t vlen = sizeof(out);

	memset(key, 'q', sizeof(key));
	ASSERT_EQ(-EINVAL, put(self->fd, key, SCALIO_KEY_MAX + 1, "v", 1));
	ASSERT_EQ(-EINVAL, get(self->fd, key, SCALIO_KEY_MAX + 1, out, &vlen));
	ASSERT_EQ(-EINVAL, del(self->fd, key, SCALIO_KEY_MAX + 1));
	ASSERT_EQ(-EINVAL, put(self->fd, key, 0xffffffffU, "v", 1));
	vlen = sizeof(out);
	ASSERT_EQ(-EINVAL, get(self->fd, key, 0x80000000U, out, &vlen));
}

TEST_F(kv, value_size_0_ok)
{
	char key[SCALIO_KEY_MAX + 1], out[8] = "xxxxxxx";
	uint32_t klen = mkkey(key, "v0"), vlen = sizeof(out);

	ASSERT_EQ(0, put(self->fd, key, klen, out, 0));
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(0U, vlen);
	/* A zero-sized buffer is enough for an empty value. */
	vlen = 0;
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(0U, vlen);
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, value_size_4096_ok)
{
	static char val[SCALIO_VALUE_MAX], out[SCALIO_VALUE_MAX + 64];
	char key[SCALIO_KEY_MAX + 1];
	uint32_t klen = mkkey(key, "v4096"), vlen = sizeof(out);

	fill(val, sizeof(val), 6);
	ASSERT_EQ(0, put(self->fd, key, klen, val, SCALIO_VALUE_MAX));
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ((uint32_t)SCALIO_VALUE_MAX, vlen);
	ASSERT_EQ(0, memcmp(val, out, SCALIO_VALUE_MAX));
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, value_size_4097_e2big)
{
	static char val[SCALIO_VALUE_MAX + 1], out[64];
	char key[SCALIO_KEY_MAX + 1];
	uint32_t klen = mkkey(key, "v4097"), vlen = sizeof(out);

	fill(val, sizeof(val), 7);
	ASSERT_EQ(0, put(self->fd, key, klen, "old", 3));
	ASSERT_EQ(-E2BIG, put(self->fd, key, klen, val, SCALIO_VALUE_MAX + 1));
	ASSERT_EQ(-E2BIG, put(self->fd, key, klen, val, 0xffffffffU));
	/* The failed PUTs changed nothing. */
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(3U, vlen);
	ASSERT_EQ(0, memcmp(out, "old", 3));
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, get_buffer_too_small_eoverflow)
{
	char key[SCALIO_KEY_MAX + 1], val[100], out[128];
	uint32_t klen = mkkey(key, "ovf"), vlen;
	size_t i;

	fill(val, sizeof(val), 8);
	ASSERT_EQ(0, put(self->fd, key, klen, val, sizeof(val)));
	memset(out, 0xa5, sizeof(out));
	vlen = 10;
	ASSERT_EQ(-EOVERFLOW, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(sizeof(val), vlen);
	/* Nothing beyond the declared buffer size may be written. */
	for (i = 10; i < sizeof(out); i++)
		ASSERT_EQ(0xa5, (unsigned char)out[i]);
	vlen = 0;
	ASSERT_EQ(-EOVERFLOW, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(sizeof(val), vlen);
	vlen = sizeof(val) - 1;
	ASSERT_EQ(-EOVERFLOW, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(sizeof(val), vlen);
	vlen = sizeof(val);
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(sizeof(val), vlen);
	ASSERT_EQ(0, memcmp(val, out, sizeof(val)));
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, null_key_efault)
{
	char out[8];
	uint32_t vlen = sizeof(out);

	ASSERT_EQ(-EFAULT, put(self->fd, NULL, 4, "v", 1));
	ASSERT_EQ(-EFAULT, get(self->fd, NULL, 4, out, &vlen));
	ASSERT_EQ(-EFAULT, del(self->fd, NULL, 4));
}

TEST_F(kv, null_value_efault)
{
	char key[SCALIO_KEY_MAX + 1];
	uint32_t klen = mkkey(key, "nullv"), vlen = 16;

	ASSERT_EQ(-EFAULT, put(self->fd, key, klen, NULL, 16));
	ASSERT_EQ(0, put(self->fd, key, klen, "0123456789abcdef", 16));
	ASSERT_EQ(-EFAULT, get(self->fd, key, klen, NULL, &vlen));
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, null_arg_efault)
{
	struct scalio_multi *nm = NULL;

	ASSERT_EQ(-EFAULT, kv_op(self->fd, SCALIO_IOC_GET, NULL));
	ASSERT_EQ(-EFAULT, kv_op(self->fd, SCALIO_IOC_PUT, NULL));
	ASSERT_EQ(-EFAULT, kv_op(self->fd, SCALIO_IOC_DELETE, NULL));
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_MULTI, nm));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_STATS, NULL));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_INFO, NULL));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_BIND, NULL));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(kv, unmapped_pointers_efault)
{
	char key[SCALIO_KEY_MAX + 1], out[32];
	uint32_t klen = mkkey(key, "unmap"), vlen = sizeof(out);
	char *gone = unmapped_page(), *edge;
	struct scalio_kv *kvp;

	ASSERT_NE(NULL, gone);
	ASSERT_EQ(-EFAULT, put(self->fd, gone, 8, "v", 1));
	ASSERT_EQ(-EFAULT, put(self->fd, uptr(KERNEL_PTR), 8, "v", 1));
	ASSERT_EQ(-EFAULT, del(self->fd, gone, 8));
	ASSERT_EQ(-EFAULT, get(self->fd, gone, 8, out, &vlen));
	ASSERT_EQ(-EFAULT, put(self->fd, key, klen, gone, 100));
	ASSERT_EQ(-EFAULT, put(self->fd, key, klen, uptr(KERNEL_PTR), 100));
	ASSERT_EQ(0, put(self->fd, key, klen, "value", 5));
	vlen = 64;
	ASSERT_EQ(-EFAULT, get(self->fd, key, klen, gone, &vlen));
	vlen = 64;
	ASSERT_EQ(-EFAULT, get(self->fd, key, klen, uptr(KERNEL_PTR), &vlen));

	/* A key that starts mapped and runs into the unmapped page. */
	edge = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, edge);
	ASSERT_EQ(0, munmap(edge + 4096, 4096));
	memcpy(edge + 4096 - 4, "edge", 4);
	ASSERT_EQ(-EFAULT, put(self->fd, edge + 4096 - 4, 8, "v", 1));

	/* The ioctl argument itself. */
	kvp = (struct scalio_kv *)gone;
	ASSERT_EQ(-EFAULT, kv_op(self->fd, SCALIO_IOC_GET, kvp));
	ASSERT_EQ(-EFAULT, kv_op(self->fd, SCALIO_IOC_PUT,
				 uptr(KERNEL_PTR)));
	/* struct straddling the end of the mapping */
	kvp = (struct scalio_kv *)(edge + 4096 - 8);
	ASSERT_EQ(-EFAULT, kv_op(self->fd, SCALIO_IOC_DELETE, kvp));
	munmap(edge, 4096);
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, readonly_get_buffer_efault)
{
	char key[SCALIO_KEY_MAX + 1];
	uint32_t klen = mkkey(key, "ro"), vlen = 4096;
	struct scalio_kv *ro_kv;
	char *ro;

	ASSERT_EQ(0, put(self->fd, key, klen, "read-only target", 16));
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(-EFAULT, get(self->fd, key, klen, ro, &vlen));

	/* GET writes vlen back: a read-only argument struct must fail too. */
	ro_kv = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro_kv);
	ro_kv->key = u64p(key);
	ro_kv->klen = klen;
	ro_kv->value = u64p(ro_kv + 1);
	ro_kv->vlen = 64;
	ASSERT_EQ(0, mprotect(ro_kv, 4096, PROT_READ));
	ASSERT_EQ(-EFAULT, kv_op(self->fd, SCALIO_IOC_GET, ro_kv));
	munmap(ro_kv, 4096);
	munmap(ro, 4096);
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, reserved_nonzero_einval)
{
	char key[SCALIO_KEY_MAX + 1], out[16];
	uint32_t klen = mkkey(key, "resv");
	unsigned long cmds[] = { SCALIO_IOC_PUT, SCALIO_IOC_GET,
				 SCALIO_IOC_DELETE };
	struct scalio_kv kv;
	unsigned int i, r;

	ASSERT_EQ(0, put(self->fd, key, klen, "v", 1));
	for (i = 0; i < 3; i++) {
		for (r = 0; r < 2; r++) {
			memset(&kv, 0, sizeof(kv));
			kv.key = u64p(key);
			kv.klen = klen;
			kv.value = u64p(out);
			kv.vlen = i == 0 ? 1 : sizeof(out);
			if (i == 2) {
				kv.value = 0;
				kv.vlen = 0;
			}
			kv.reserved[r] = 1ULL << (r * 40);
			EXPECT_EQ(-EINVAL, kv_op(self->fd, cmds[i], &kv)) {
				TH_LOG("cmd %u reserved[%u]", i, r);
			}
		}
	}
	/* The key is still there: the DELETE with reserved set did nothing. */
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, flags_nonzero_einval)
{
	char key[SCALIO_KEY_MAX + 1], out[16];
	uint32_t klen = mkkey(key, "flags");
	unsigned long cmds[] = { SCALIO_IOC_PUT, SCALIO_IOC_GET,
				 SCALIO_IOC_DELETE };
	uint32_t flags[] = { 1, 0x80000000U, 0xffffffffU };
	struct scalio_kv kv;
	unsigned int i, f;

	ASSERT_EQ(0, put(self->fd, key, klen, "v", 1));
	for (i = 0; i < 3; i++) {
		for (f = 0; f < 3; f++) {
			memset(&kv, 0, sizeof(kv));
			kv.key = u64p(key);
			kv.klen = klen;
			if (i != 2) {
				kv.value = u64p(out);
				kv.vlen = i == 0 ? 1 : sizeof(out);
			}
			kv.flags = flags[f];
			EXPECT_EQ(-EINVAL, kv_op(self->fd, cmds[i], &kv)) {
				TH_LOG("cmd %u flags %#x", i, flags[f]);
			}
		}
	}
	ASSERT_EQ(0, del(self->fd, key, klen));
}

TEST_F(kv, unknown_ioctl_enotty)
{
	char buf[512] = { 0 };
	int ctl = open(SCALIO_CTL_DEV, O_RDWR);

	ASSERT_EQ(-1, ioctl(self->fd, _IO(SCALIO_IOC_MAGIC, 0x7f)));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IOWR(SCALIO_IOC_MAGIC, 0x17, char[64]), buf));
	ASSERT_EQ(ENOTTY, errno);
	/* The right number with the wrong size is another command. */
	ASSERT_EQ(-1, ioctl(self->fd, _IOWR(SCALIO_IOC_MAGIC, 0x10, char[8]), buf));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IOR(SCALIO_IOC_MAGIC, 0x10,
					   struct scalio_kv), buf));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IO('x', 1)));
	ASSERT_EQ(ENOTTY, errno);
	/* Control commands on a store device and vice versa. */
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_ATTACH, buf));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_DETACH, buf));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_LE(0, ctl);
	ASSERT_EQ(-1, ioctl(ctl, SCALIO_IOC_GET, buf));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(ctl, SCALIO_IOC_STATS, buf));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(ctl, _IO(SCALIO_IOC_MAGIC, 0x03)));
	ASSERT_EQ(ENOTTY, errno);
	close(ctl);
}

static int multi(int fd, struct scalio_multi_op *ops, uint32_t nr,
		 uint32_t *nr_done)
{
	struct scalio_multi m = { .ops = u64p(ops), .nr = nr };
	int ret = ioctl(fd, SCALIO_IOC_MULTI, &m) ? -errno : 0;

	if (nr_done)
		*nr_done = m.nr_done;
	return ret;
}

static void set_op(struct scalio_multi_op *op, uint32_t opcode,
		   const void *key, uint32_t klen, const void *val,
		   uint32_t vlen)
{
	memset(op, 0, sizeof(*op));
	op->opcode = opcode;
	op->kv.key = u64p(key);
	op->kv.klen = klen;
	op->kv.value = u64p(val);
	op->kv.vlen = vlen;
	op->kv.result = 12345;	/* must be overwritten */
}

TEST_F(kv, multi_mixed)
{
	char kput[SCALIO_KEY_MAX + 1], kget[SCALIO_KEY_MAX + 1];
	char kdel[SCALIO_KEY_MAX + 1], kmiss[SCALIO_KEY_MAX + 1];
	static char big[SCALIO_VALUE_MAX + 1];
	char vput[200], vget[300], out1[400], out2[8], out[400];
	uint32_t lput = mkkey(kput, "m.put"), lget = mkkey(kget, "m.get");
	uint32_t ldel = mkkey(kdel, "m.del"), lmiss = mkkey(kmiss, "m.miss");
	struct scalio_multi_op ops[8];
	uint32_t done = 0, vlen;

	fill(vput, sizeof(vput), 9);
	fill(vget, sizeof(vget), 10);
	ASSERT_EQ(0, put(self->fd, kget, lget, vget, sizeof(vget)));
	ASSERT_EQ(0, put(self->fd, kdel, ldel, "gone soon", 9));

	set_op(&ops[0], SCALIO_OP_PUT, kput, lput, vput, sizeof(vput));
	set_op(&ops[1], SCALIO_OP_GET, kget, lget, out1, sizeof(out1));
	set_op(&ops[2], SCALIO_OP_DELETE, kdel, ldel, NULL, 0);
	set_op(&ops[3], SCALIO_OP_GET, kmiss, lmiss, out, sizeof(out));
	set_op(&ops[4], SCALIO_OP_GET, kget, lget, out2, sizeof(out2));
	set_op(&ops[5], SCALIO_OP_PUT, kmiss, 0, "x", 1);
	set_op(&ops[6], 99, kmiss, lmiss, NULL, 0);
	set_op(&ops[7], SCALIO_OP_PUT, kmiss, lmiss, big,
	       SCALIO_VALUE_MAX + 1);
	ASSERT_EQ(0, multi(self->fd, ops, 8, &done));
	ASSERT_EQ(8U, done);
	EXPECT_EQ(0, ops[0].kv.result);
	EXPECT_EQ(0, ops[1].kv.result);
	EXPECT_EQ(sizeof(vget), ops[1].kv.vlen);
	EXPECT_EQ(0, memcmp(out1, vget, sizeof(vget)));
	EXPECT_EQ(0, ops[2].kv.result);
	EXPECT_EQ(-ENOENT, ops[3].kv.result);
	EXPECT_EQ(-EOVERFLOW, ops[4].kv.result);
	EXPECT_EQ(sizeof(vget), ops[4].kv.vlen);
	EXPECT_EQ(-EINVAL, ops[5].kv.result);
	EXPECT_EQ(-EINVAL, ops[6].kv.result);
	EXPECT_EQ(-E2BIG, ops[7].kv.result);

	/* Effects are visible to later single ops. */
	vlen = sizeof(out);
	ASSERT_EQ(0, get(self->fd, kput, lput, out, &vlen));
	ASSERT_EQ(sizeof(vput), vlen);
	ASSERT_EQ(0, memcmp(out, vput, sizeof(vput)));
	vlen = sizeof(out);
	ASSERT_EQ(-ENOENT, get(self->fd, kdel, ldel, out, &vlen));
	vlen = sizeof(out);
	ASSERT_EQ(-ENOENT, get(self->fd, kmiss, lmiss, out, &vlen));
	ASSERT_EQ(0, del(self->fd, kput, lput));
	ASSERT_EQ(0, del(self->fd, kget, lget));
}

TEST_F(kv, multi_max_ok)
{
	static struct scalio_multi_op ops[SCALIO_MULTI_MAX];
	static char keys[SCALIO_MULTI_MAX][SCALIO_KEY_MAX + 1];
	static uint32_t vals[SCALIO_MULTI_MAX], outs[SCALIO_MULTI_MAX];
	uint32_t klen[SCALIO_MULTI_MAX], done, i;
	char tag[16];

	for (i = 0; i < SCALIO_MULTI_MAX; i++) {
		snprintf(tag, sizeof(tag), "mm%u", i);
		klen[i] = mkkey(keys[i], tag);
		vals[i] = i * 2654435761U;
		set_op(&ops[i], SCALIO_OP_PUT, keys[i], klen[i], &vals[i], 4);
	}
	ASSERT_EQ(0, multi(self->fd, ops, SCALIO_MULTI_MAX, &done));
	ASSERT_EQ((uint32_t)SCALIO_MULTI_MAX, done);
	for (i = 0; i < SCALIO_MULTI_MAX; i++)
		ASSERT_EQ(0, ops[i].kv.result);
	for (i = 0; i < SCALIO_MULTI_MAX; i++)
		set_op(&ops[i], SCALIO_OP_GET, keys[i], klen[i], &outs[i], 4);
	ASSERT_EQ(0, multi(self->fd, ops, SCALIO_MULTI_MAX, &done));
	for (i = 0; i < SCALIO_MULTI_MAX; i++) {
		ASSERT_EQ(0, ops[i].kv.result);
		ASSERT_EQ(4U, ops[i].kv.vlen);
		ASSERT_EQ(vals[i], outs[i]);
	}
	for (i = 0; i < SCALIO_MULTI_MAX; i++)
		set_op(&ops[i], SCALIO_OP_DELETE, keys[i], klen[i], NULL, 0);
	ASSERT_EQ(0, multi(self->fd, ops, SCALIO_MULTI_MAX, &done));
	for (i = 0; i < SCALIO_MULTI_MAX; i++)
		ASSERT_EQ(0, ops[i].kv.result);
}

TEST_F(kv, multi_bad_nr_einval)
{
	static struct scalio_multi_op ops[SCALIO_MULTI_MAX + 1];
	char key[SCALIO_KEY_MAX + 1], out[8];
	uint32_t klen = mkkey(key, "mnr"), i, done;
	struct scalio_multi m;

	for (i = 0; i < SCALIO_MULTI_MAX + 1; i++)
		set_op(&ops[i], SCALIO_OP_GET, key, klen, out, sizeof(out));
	ASSERT_EQ(-EINVAL, multi(self->fd, ops, 0, NULL));
	ASSERT_EQ(-EINVAL, multi(self->fd, ops, SCALIO_MULTI_MAX + 1, NULL));
	ASSERT_EQ(-EINVAL, multi(self->fd, ops, 0xffffffffU, NULL));
	ASSERT_EQ(-EINVAL, multi(self->fd, ops, 0x80000001U, NULL));
	/* flags and reserved of the batch itself */
	memset(&m, 0, sizeof(m));
	m.ops = u64p(ops);
	m.nr = 1;
	m.flags = 1;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_MULTI, &m));
	ASSERT_EQ(EINVAL, errno);
	for (i = 0; i < 3; i++) {
		m.flags = 0;
		memset(m.reserved, 0, sizeof(m.reserved));
		m.reserved[i] = 1;
		ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_MULTI, &m));
		ASSERT_EQ(EINVAL, errno);
	}
	/* an array that cannot be read */
	ASSERT_EQ(-EFAULT, multi(self->fd, NULL, 1, NULL));
	ASSERT_EQ(-EFAULT, multi(self->fd, unmapped_page(), 4, NULL));
	ASSERT_EQ(-EFAULT, multi(self->fd, uptr(KERNEL_PTR), 4, NULL));
	/* a well-formed one still works */
	ASSERT_EQ(0, multi(self->fd, ops, 1, &done));
	ASSERT_EQ(1U, done);
	ASSERT_EQ(-ENOENT, ops[0].kv.result);
}

TEST_F(kv, multi_op_fields_einval)
{
	char key[SCALIO_KEY_MAX + 1], out[8];
	uint32_t klen = mkkey(key, "mfld"), done;
	struct scalio_multi_op ops[4];
	char *gone = unmapped_page();

	set_op(&ops[0], SCALIO_OP_GET, key, klen, out, sizeof(out));
	ops[0].pad = 1;
	set_op(&ops[1], SCALIO_OP_GET, key, klen, out, sizeof(out));
	ops[1].kv.flags = 1;
	set_op(&ops[2], SCALIO_OP_GET, key, klen, out, sizeof(out));
	ops[2].kv.reserved[1] = 1;
	set_op(&ops[3], SCALIO_OP_PUT, gone, 8, "v", 1);
	ASSERT_EQ(0, multi(self->fd, ops, 4, &done));
	ASSERT_EQ(4U, done);
	EXPECT_EQ(-EINVAL, ops[0].kv.result);
	EXPECT_EQ(-EINVAL, ops[1].kv.result);
	EXPECT_EQ(-EINVAL, ops[2].kv.result);
	EXPECT_EQ(-EFAULT, ops[3].kv.result);
}

static int stats(int fd, struct scalio_stats *st, uint32_t flags)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->flags = flags;
	return ioctl(fd, SCALIO_IOC_STATS, st) ? -errno : 0;
}

TEST_F(kv, stats_counts)
{
	struct scalio_stats a, b;
	char key[SCALIO_KEY_MAX + 1], out[32];
	uint32_t klen = mkkey(key, "stats"), vlen;
	int i;

	ASSERT_EQ(0, stats(self->fd, &a, SCALIO_STATS_F_TARGET));
	ASSERT_EQ(1U, a.target_valid);
	ASSERT_LE(1U, a.nr_ssds);
	ASSERT_LE(1U, a.nr_blocks);
	ASSERT_EQ(0U, a.nr_blocks & (a.nr_blocks - 1));
	ASSERT_TRUE(a.slots_per_block == 4 || a.slots_per_block == 8 ||
		    a.slots_per_block == 16);
	ASSERT_EQ(0ULL, a.features & ~(SCALIO_F_OFFLOAD_READ |
				       SCALIO_F_INLINE_CACHE |
				       SCALIO_F_FILL_TOKEN |
				       SCALIO_F_BLOCK_EPOCH));
	/*
	 * the target asks for fill tokens and block epochs exactly when
	 * slots cache values
	 */
	ASSERT_EQ(!!(a.features & SCALIO_F_INLINE_CACHE),
		  !!(a.features & SCALIO_F_FILL_TOKEN));
	ASSERT_EQ(!!(a.features & SCALIO_F_INLINE_CACHE),
		  !!(a.features & SCALIO_F_BLOCK_EPOCH));

	ASSERT_EQ(0, put(self->fd, key, klen, "one", 3));
	ASSERT_EQ(0, put(self->fd, key, klen, "two!", 4));
	for (i = 0; i < 3; i++) {
		vlen = sizeof(out);
		ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
		ASSERT_EQ(4U, vlen);
	}
	ASSERT_EQ(0, del(self->fd, key, klen));

	ASSERT_EQ(0, stats(self->fd, &b, SCALIO_STATS_F_TARGET));
	ASSERT_EQ(1U, b.target_valid);
	EXPECT_EQ(a.host.gets + 3, b.host.gets);
	EXPECT_EQ(a.host.puts + 2, b.host.puts);
	EXPECT_EQ(a.host.deletes + 1, b.host.deletes);
	/* Every GET is a hit, a miss or an RPC; nothing goes backwards. */
	EXPECT_LE(a.host.cache_hits, b.host.cache_hits);
	EXPECT_LE(a.host.cache_misses, b.host.cache_misses);
	EXPECT_LE(a.host.errors, b.host.errors);
	/* The connection stayed up: no operation waited for it or failed fast. */
	EXPECT_EQ(a.host.reconnect_waits, b.host.reconnect_waits);
	EXPECT_EQ(a.host.reconnect_wait_ns, b.host.reconnect_wait_ns);
	EXPECT_EQ(a.host.fast_io_fails, b.host.fast_io_fails);
	EXPECT_EQ(a.host.lost_get_retries, b.host.lost_get_retries);
	/* Background fills in flight or over, never more over than handed. */
	EXPECT_LE(b.host.bg_fills, b.host.bg_queued);
	EXPECT_LE(b.host.bg_fill_drops, b.host.bg_fills);
	EXPECT_LE(b.host.opt_misses, b.host.cache_misses);
	/* The target's counters sum all clients: at least ours. */
	EXPECT_LE(a.target.rpc_puts + 2, b.target.rpc_puts);
	EXPECT_LE(a.target.rpc_deletes + 1, b.target.rpc_deletes);
	EXPECT_LE(b.target.log_used_units, b.target.log_total_units);

	/* Host-only stats leave the target part alone. */
	ASSERT_EQ(0, stats(self->fd, &b, 0));
	EXPECT_EQ(0U, b.target_valid);
	/* Unknown flag bits are refused. */
	ASSERT_EQ(-EINVAL, stats(self->fd, &b, 0x80000000U));
	ASSERT_EQ(-EINVAL, stats(self->fd, &b, SCALIO_STATS_F_TARGET | 2));
}

/*
 * struct scalio_stats grows at its end: a caller built before nr_buckets
 * (SCALIO_STATS_SIZE_VER0, in ->size and in the command) gets the fields
 * it knows and not a byte more; any other size is refused.
 */
TEST_F(kv, stats_sizes)
{
	const unsigned long cmd0 = _IOC(_IOC_READ | _IOC_WRITE,
					SCALIO_IOC_MAGIC,
					_IOC_NR(SCALIO_IOC_STATS),
					SCALIO_STATS_SIZE_VER0);
	union {
		struct scalio_stats st;
		uint8_t b[sizeof(struct scalio_stats) + 64];
	} u;
	struct scalio_stats cur;
	size_t i;

	ASSERT_EQ(SCALIO_STATS_SIZE_VER1, sizeof(struct scalio_stats));
	ASSERT_EQ(0, stats(self->fd, &cur, 0));
	/* Buckets: a power of two, at least the blocks, a bounded ratio. */
	ASSERT_LE(cur.nr_blocks, cur.nr_buckets);
	ASSERT_EQ(0U, cur.nr_buckets & (cur.nr_buckets - 1));
	ASSERT_GE(SCALIO_BUCKETS_PER_BLOCK_MAX,
		  cur.nr_buckets / cur.nr_blocks);
	EXPECT_EQ(0U, cur.pad);

	memset(&u, 0xa5, sizeof(u));
	memset(&u.st, 0, SCALIO_STATS_SIZE_VER0);
	u.st.size = SCALIO_STATS_SIZE_VER0;
	ASSERT_EQ(0, ioctl(self->fd, cmd0, &u.st));
	EXPECT_EQ(cur.nr_blocks, u.st.nr_blocks);
	EXPECT_EQ(cur.nr_ssds, u.st.nr_ssds);
	for (i = SCALIO_STATS_SIZE_VER0; i < sizeof(u.b); i++)
		ASSERT_EQ(0xa5, u.b[i]);

	/* ->size must be the command's. */
	memset(&u, 0, sizeof(u));
	u.st.size = SCALIO_STATS_SIZE_VER1;
	ASSERT_EQ(-1, ioctl(self->fd, cmd0, &u.st));
	EXPECT_EQ(EINVAL, errno);
	u.st.size = SCALIO_STATS_SIZE_VER0;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_STATS, &u.st));
	EXPECT_EQ(EINVAL, errno);
	u.st.size = 0;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_STATS, &u.st));
	EXPECT_EQ(EINVAL, errno);
	/* A size it does not know is not a STATS command at all. */
	ASSERT_EQ(-1, ioctl(self->fd, _IOC(_IOC_READ | _IOC_WRITE,
					   SCALIO_IOC_MAGIC,
					   _IOC_NR(SCALIO_IOC_STATS),
					   SCALIO_STATS_SIZE_VER1 + 8), &u.st));
	EXPECT_EQ(ENOTTY, errno);
}

static int scan(int fd, struct scalio_scan *s)
{
	return ioctl(fd, SCALIO_IOC_SCAN, s) ? -errno : 0;
}

/*
 * SCALIO_IOC_SCAN: the cursor runs over the store's buckets in seg table
 * order (0..nr_buckets); each field out of range is refused with its
 * errno and a scan of one position names one bucket of that position.
 */
TEST_F(kv, scan_validation)
{
	static uint8_t buf[SCALIO_SCAN_BUF_MIN] __attribute__((aligned(8)));
	struct scalio_scan s0 = {
		.buf = u64p(buf), .buf_len = sizeof(buf), .max_buckets = 1,
	}, s;
	struct scalio_stats st;
	uint32_t off, i, bpb, want;
	int ret;

	ASSERT_EQ(0, stats(self->fd, &st, 0));
	bpb = st.nr_buckets / st.nr_blocks;

	s = s0;
	s.bucket = st.nr_buckets;
	EXPECT_EQ(-EINVAL, scan(self->fd, &s));
	s = s0;
	s.bucket = 0xffffffffU;
	EXPECT_EQ(-EINVAL, scan(self->fd, &s));
	s = s0;
	s.max_buckets = SCALIO_SCAN_BUCKETS_MAX + 1;
	EXPECT_EQ(-EINVAL, scan(self->fd, &s));
	s = s0;
	s.flags = 1;
	EXPECT_EQ(-EINVAL, scan(self->fd, &s));
	s = s0;
	s.reserved[0] = 1;
	EXPECT_EQ(-EINVAL, scan(self->fd, &s));
	s = s0;
	s.buf_len = SCALIO_SCAN_BUF_MIN + 4;
	EXPECT_EQ(-EINVAL, scan(self->fd, &s));
	s = s0;
	s.buf = KERNEL_PTR;
	EXPECT_EQ(-EFAULT, scan(self->fd, &s));
	EXPECT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SCAN, NULL));
	EXPECT_EQ(EFAULT, errno);

	/*
	 * The first and the last position: one bucket each, every record
	 * of it (position p holds bucket (p % bpb) * nr_blocks + p / bpb).
	 */
	for (i = 0; i < 2; i++) {
		uint32_t pos = i ? st.nr_buckets - 1 : 0;

		s = s0;
		s.bucket = pos;
		ret = scan(self->fd, &s);
		if (ret == -EOVERFLOW)
			continue;	/* that bucket holds more than 8 KiB */
		ASSERT_EQ(0, ret);
		EXPECT_EQ(pos + 1, s.bucket);
		EXPECT_EQ(1U, s.nr_buckets);
		EXPECT_EQ(st.nr_buckets, s.store_buckets);
		want = (pos % bpb) * st.nr_blocks + pos / bpb;
		for (off = 0; off < s.buf_len;) {
			struct scalio_scan_rec r;

			memcpy(&r, buf + off, sizeof(r));
			EXPECT_EQ(want, r.bucket);
			ASSERT_LE(1U, r.klen);
			ASSERT_GE(SCALIO_KEY_MAX, r.klen);
			off += SCALIO_SCAN_REC_SIZE(r.klen, r.vlen);
		}
		EXPECT_EQ(s.buf_len, off);
	}
}

TEST_F(kv, ssd_info_validation)
{
	struct scalio_ssd_info si;
	uint32_t nr;

	memset(&si, 0, sizeof(si));
	ASSERT_EQ(0, ioctl(self->fd, SCALIO_IOC_SSD_INFO, &si));
	nr = si.nr_ssds;
	ASSERT_LE(1U, nr);
	ASSERT_GE(16U, nr);
	ASSERT_LE(1U, si.nsid);
	ASSERT_NE(NULL, memchr(si.nqn, 0, sizeof(si.nqn)));
	ASSERT_NE(0, si.nqn[0]);
	ASSERT_LT(0ULL, si.capacity_sectors);

	memset(&si, 0, sizeof(si));
	si.index = nr;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_INFO, &si));
	ASSERT_EQ(EINVAL, errno);
	si.index = 0xffffffffU;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_INFO, &si));
	ASSERT_EQ(EINVAL, errno);
	memset(&si, 0, sizeof(si));
	si.reserved[3] = 1;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_INFO, &si));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(kv, ssd_bind_validation)
{
	struct scalio_ssd_bind b;
	struct scalio_ssd_info si;

	memset(&si, 0, sizeof(si));
	ASSERT_EQ(0, ioctl(self->fd, SCALIO_IOC_SSD_INFO, &si));

	memset(&b, 0, sizeof(b));
	b.index = si.nr_ssds;
	strcpy(b.path, "/dev/null");
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_BIND, &b));
	ASSERT_EQ(EINVAL, errno);

	b.index = 0;
	b.flags = 1;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_BIND, &b));
	ASSERT_EQ(EINVAL, errno);

	b.flags = 0;
	b.reserved[0] = 1;
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_BIND, &b));
	ASSERT_EQ(EINVAL, errno);

	b.reserved[0] = 0;
	memset(b.path, 'p', sizeof(b.path));	/* unterminated */
	ASSERT_EQ(-1, ioctl(self->fd, SCALIO_IOC_SSD_BIND, &b));
	ASSERT_EQ(EINVAL, errno);

	/* The binding is unchanged. */
	memset(&si, 0, sizeof(si));
	ASSERT_EQ(0, ioctl(self->fd, SCALIO_IOC_SSD_INFO, &si));
}

/* Tests on /dev/scalio-ctl; the store stays attached throughout. */
FIXTURE(ctl) {
	int ctl;
};

FIXTURE_SETUP(ctl)
{
	self->ctl = open(SCALIO_CTL_DEV, O_RDWR);
	ASSERT_LE(0, self->ctl) {
		TH_LOG("open %s: %s", SCALIO_CTL_DEV, strerror(errno));
	}
}

FIXTURE_TEARDOWN(ctl)
{
	if (self->ctl >= 0)
		close(self->ctl);
}

static void init_attach(struct scalio_attach *at, const char *store,
			const char *addr)
{
	memset(at, 0, sizeof(*at));
	snprintf(at->store, sizeof(at->store), "%s", store);
	snprintf(at->traddr, sizeof(at->traddr), "%s", addr);
	at->trsvcid = trsvcid;
	at->timeout_ms = 2000;
}

static int attach(int ctl, struct scalio_attach *at)
{
	return ioctl(ctl, SCALIO_IOC_ATTACH, at) ? -errno : 0;
}

TEST_F(ctl, attach_unterminated_einval)
{
	struct scalio_attach at;

	init_attach(&at, "uapi-none", traddr);
	memset(at.store, 's', sizeof(at.store));
	ASSERT_EQ(-EINVAL, attach(self->ctl, &at));

	init_attach(&at, "uapi-none", traddr);
	memset(at.traddr, '1', sizeof(at.traddr));
	ASSERT_EQ(-EINVAL, attach(self->ctl, &at));
}

TEST_F(ctl, attach_bad_address_einval)
{
	static const char * const bad[] = {
		"", "not-an-ip", "10.77.0", "256.1.1.1", "10.77.0.1 ",
		"10.77.0.1/24", "::g", "1.2.3.4.5",
	};
	struct scalio_attach at;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		init_attach(&at, "uapi-none", bad[i]);
		EXPECT_EQ(-EINVAL, attach(self->ctl, &at)) {
			TH_LOG("traddr '%s'", bad[i]);
		}
	}
	init_attach(&at, "uapi-none", traddr);
	at.trsvcid = 70000;
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
}

TEST_F(ctl, attach_bad_fields_einval)
{
	struct scalio_attach at;
	unsigned int i;

	init_attach(&at, "", traddr);
	ASSERT_EQ(-EINVAL, attach(self->ctl, &at));
	/* Its device would be /dev/scalio-ctl: refused before connecting. */
	init_attach(&at, "ctl", traddr);
	ASSERT_EQ(-EINVAL, attach(self->ctl, &at));
	for (i = 1; i < 32; i++) {
		init_attach(&at, "uapi-none", traddr);
		at.flags = 1U << i;
		EXPECT_EQ(-EINVAL, attach(self->ctl, &at)) {
			TH_LOG("flags bit %u", i);
		}
	}
	init_attach(&at, "uapi-none", traddr);
	at.reserved = 1;
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	init_attach(&at, "uapi-none", traddr);
	at.reserved0 = 1;
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	/* fast_io_fail_ms: only with its flag, and at most the maximum. */
	init_attach(&at, "uapi-none", traddr);
	at.fast_io_fail_ms = 1000;
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	init_attach(&at, "uapi-none", traddr);
	at.flags = SCALIO_ATTACH_F_FAST_IO_FAIL;
	at.fast_io_fail_ms = SCALIO_FAST_IO_FAIL_MAX_MS + 1;
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_ATTACH, NULL));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_ATTACH, unmapped_page()));
	ASSERT_EQ(EFAULT, errno);
}

/* struct scalio_attach_auth: each field checked before any connection. */
TEST_F(ctl, attach_auth_validation)
{
	static struct {
		struct scalio_attach_auth au;
		__u64 tail[2];
	} big;
	struct scalio_attach_auth au;
	struct scalio_attach at;
	unsigned int i;

#define AU_INIT() do {							\
		memset(&au, 0, sizeof(au));				\
		au.size = sizeof(au);					\
		init_attach(&at, "uapi-none", traddr);			\
		at.auth = (uintptr_t)&au;				\
	} while (0)

	AU_INIT();
	au.size = sizeof(au) - 1;
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	AU_INIT();
	au.secret_len = SCALIO_SECRET_MIN - 1;
	memset(au.secret, 's', au.secret_len);
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	AU_INIT();
	au.secret_len = SCALIO_SECRET_MAX + 1;
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	AU_INIT();
	au.secret_len = SCALIO_SECRET_MIN;
	memset(au.secret, 's', au.secret_len + 1);	/* byte past it */
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	for (i = 0; i < 4; i++) {
		AU_INIT();
		au.reserved[i] = 0xff;
		EXPECT_EQ(-EINVAL, attach(self->ctl, &at)) {
			TH_LOG("reserved[%u]", i);
		}
	}
	AU_INIT();
	snprintf(au.hostnqn, sizeof(au.hostnqn), "not-an-nqn");
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	AU_INIT();
	memset(au.hostnqn, 'n', sizeof(au.hostnqn));
	EXPECT_EQ(-EINVAL, attach(self->ctl, &at));
	/* A larger struct with a nonzero tail: E2BIG, as copy_struct_from_user. */
	memset(&big, 0, sizeof(big));
	big.au.size = sizeof(big);
	big.tail[1] = 1;
	init_attach(&at, "uapi-none", traddr);
	at.auth = (uintptr_t)&big;
	EXPECT_EQ(-E2BIG, attach(self->ctl, &at));
	init_attach(&at, "uapi-none", traddr);
	at.auth = (uintptr_t)unmapped_page();
	EXPECT_EQ(-EFAULT, attach(self->ctl, &at));
	/* Valid: it gets as far as the target, which has no such store. */
	AU_INIT();
	snprintf(au.hostnqn, sizeof(au.hostnqn), "nqn.2014-08.org.example:uapi");
	EXPECT_EQ(-ENOENT, attach(self->ctl, &at));
#undef AU_INIT
}

TEST_F(ctl, attach_duplicate_eexist)
{
	struct scalio_attach at;

	init_attach(&at, store_name, traddr);
	ASSERT_EQ(-EEXIST, attach(self->ctl, &at));
}

TEST_F(ctl, detach_while_open_ebusy)
{
	struct scalio_detach dt;
	int fd = open(store_path, O_RDWR);

	ASSERT_LE(0, fd);
	memset(&dt, 0, sizeof(dt));
	snprintf(dt.store, sizeof(dt.store), "%s", store_name);
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_DETACH, &dt));
	ASSERT_EQ(EBUSY, errno);
	close(fd);
	/* Still attached and usable. */
	fd = open(store_path, O_RDWR);
	ASSERT_LE(0, fd);
	close(fd);
}

TEST_F(ctl, detach_validation)
{
	struct scalio_detach dt;

	memset(&dt, 0, sizeof(dt));
	memset(dt.store, 'd', sizeof(dt.store));
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_DETACH, &dt));
	ASSERT_EQ(EINVAL, errno);

	memset(&dt, 0, sizeof(dt));
	snprintf(dt.store, sizeof(dt.store), "%s", store_name);
	dt.flags = 1;
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_DETACH, &dt));
	ASSERT_EQ(EINVAL, errno);

	dt.flags = 0;
	dt.reserved[6] = 1;
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_DETACH, &dt));
	ASSERT_EQ(EINVAL, errno);

	memset(&dt, 0, sizeof(dt));
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_DETACH, &dt));
	ASSERT_EQ(EINVAL, errno);		/* empty name */

	memset(&dt, 0, sizeof(dt));
	strcpy(dt.store, "uapi-never-attached");
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_DETACH, &dt));
	ASSERT_TRUE(errno == ENOENT || errno == ENODEV) {
		TH_LOG("detach of an unknown store: %s", strerror(errno));
	}
	ASSERT_EQ(-1, ioctl(self->ctl, SCALIO_IOC_DETACH, NULL));
	ASSERT_EQ(EFAULT, errno);
}

/*
 * SSD_BIND of the wrong device.  The store is detached with the ioctl (its
 * NVMe-oF controllers stay connected, unlike `scalioctl detach`) and
 * attached again with a raw ATTACH, so that no SSD is bound; then each
 * index is offered every NVMe namespace in turn, including the ones bound
 * to other indexes: only its own may bind (its superblock names the
 * index), every other one fails with EINVAL.  Without that check the
 * first same-sized namespace binds to every index.  The teardown runs
 * `scalioctl attach`, which binds whatever is left unbound.
 */
FIXTURE(bind) {
	int ctl;
};

FIXTURE_SETUP(bind)
{
	self->ctl = open(SCALIO_CTL_DEV, O_RDWR);
	ASSERT_LE(0, self->ctl);
}

FIXTURE_TEARDOWN(bind)
{
	char cmd[256];

	if (self->ctl >= 0)
		close(self->ctl);
	snprintf(cmd, sizeof(cmd), "scalioctl attach %s --addr %s --port %u > /dev/null",
		 store_name, traddr, trsvcid);
	if (system(cmd))
		TH_LOG("repair: '%s' failed", cmd);
}

/* First line of @path into @buf without its newline; length or -1. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return n;
}

/* The host identity and secret `scalioctl attach` would use. */
static int load_auth(struct scalio_attach_auth *au)
{
	char line[256];
	unsigned int i, k = 0;
	int n;

	memset(au, 0, sizeof(*au));
	au->size = sizeof(*au);
	if (read_line("/etc/nvme/hostnqn", au->hostnqn, sizeof(au->hostnqn)) < 0)
		au->hostnqn[0] = '\0';
	if (read_line("/etc/nvme/hostid", line, sizeof(line)) > 0) {
		for (i = 0; line[i] && k < 2 * SCALIO_HOST_ID_LEN; i++) {
			unsigned int v;

			if (line[i] == '-')
				continue;
			if (sscanf(&line[i], "%1x", &v) != 1)
				return -1;
			au->host_id[k / 2] |= v << (k % 2 ? 0 : 4);
			k++;
		}
		if (k != 2 * SCALIO_HOST_ID_LEN)
			return -1;
	}
	n = read_line("/etc/scalio/hostkey", (char *)au->secret,
		      sizeof(au->secret));
	if (n > 0)
		au->secret_len = n;
	return 0;
}

TEST_F(bind, ssd_bind_wrong_ssd_einval)
{
	char devs[16][256], path[300];
	int bound_to[16];
	struct scalio_attach_auth au;
	struct scalio_ssd_info si;
	struct scalio_detach dt;
	struct scalio_attach at;
	unsigned int nr_ssds, nd = 0, i, d, refused = 0;
	struct dirent *de;
	DIR *dir;
	int fd;

	fd = open(store_path, O_RDWR);
	ASSERT_LE(0, fd);
	memset(&si, 0, sizeof(si));
	ASSERT_EQ(0, ioctl(fd, SCALIO_IOC_SSD_INFO, &si));
	close(fd);
	nr_ssds = si.nr_ssds;
	ASSERT_GE(16, nr_ssds);
	if (nr_ssds < 2 || !si.bound)
		SKIP(return, "needs a store of 2+ SSDs with offload reads");

	/* Whole namespaces only (nvme0n1, not the hidden paths nvme0c0n1). */
	dir = opendir("/sys/block");
	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir)) && nd < 16) {
		unsigned int a, b;
		char end;

		if (sscanf(de->d_name, "nvme%un%u%c", &a, &b, &end) == 2)
			snprintf(devs[nd++], sizeof(devs[0]), "%s", de->d_name);
	}
	closedir(dir);
	ASSERT_LE(nr_ssds, nd);

	memset(&dt, 0, sizeof(dt));
	snprintf(dt.store, sizeof(dt.store), "%s", store_name);
	ASSERT_EQ(0, ioctl(self->ctl, SCALIO_IOC_DETACH, &dt));
	ASSERT_EQ(0, load_auth(&au));
	init_attach(&at, store_name, traddr);
	at.auth = (uintptr_t)&au;
	at.timeout_ms = 10000;
	ASSERT_EQ(0, attach(self->ctl, &at));

	fd = open(store_path, O_RDWR);
	ASSERT_LE(0, fd);
	for (i = 0; i < nr_ssds; i++) {
		struct scalio_ssd_bind b;

		bound_to[i] = -1;
		for (d = 0; d < nd && bound_to[i] < 0; d++) {
			memset(&b, 0, sizeof(b));
			b.index = i;
			snprintf(b.path, sizeof(b.path), "/dev/%s", devs[d]);
			if (!ioctl(fd, SCALIO_IOC_SSD_BIND, &b)) {
				bound_to[i] = d;
				break;
			}
			EXPECT_EQ(EINVAL, errno) {
				TH_LOG("ssd %u, %s: %s", i, b.path, strerror(errno));
			}
			refused++;
		}
		ASSERT_LE(0, bound_to[i]) {
			TH_LOG("no namespace bound to ssd %u", i);
		}
	}
	for (i = 1; i < nr_ssds; i++)
		for (d = 0; d < i; d++)
			ASSERT_NE(bound_to[d], bound_to[i]) {
				snprintf(path, sizeof(path), "/dev/%s",
					 devs[bound_to[i]]);
				TH_LOG("ssd %u and ssd %u both bound to %s", d, i,
				       path);
			}
	/* Index 1 was at least offered index 0's namespace. */
	ASSERT_LE(1, refused);
	/* And the store reads and writes through them. */
	{
		static char val[3000], got[3000];	/* not inline */
		char key[32];
		uint32_t klen = mkkey(key, "bind"), glen = sizeof(got);

		fill(val, sizeof(val), 7);
		ASSERT_EQ(0, put(fd, key, klen, val, sizeof(val)));
		ASSERT_EQ(0, get(fd, key, klen, got, &glen));
		ASSERT_EQ(sizeof(val), glen);
		ASSERT_EQ(0, memcmp(val, got, sizeof(val)));
	}
	close(fd);
}

/*
 * Fuzzing.  Random command numbers (mostly near the driver's own) and
 * random bytes for every struct, half of the time with the pointer fields
 * aimed at valid scratch memory so validation beyond the pointers is
 * reached too.  The kernel must answer with one of a few errnos, never
 * crash (the test bed checks the kernel log for oopses afterwards).
 */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static const unsigned long store_cmds[] = {
	SCALIO_IOC_GET, SCALIO_IOC_PUT, SCALIO_IOC_DELETE, SCALIO_IOC_MULTI,
	SCALIO_IOC_STATS, SCALIO_IOC_SSD_INFO, SCALIO_IOC_SSD_BIND,
	SCALIO_IOC_SCAN,
};

static const unsigned long ctl_cmds[] = {
	SCALIO_IOC_ATTACH, SCALIO_IOC_DETACH,
};

static bool allowed_errno(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOTTY: case E2BIG: case EOVERFLOW:
	case ENOENT: case EEXIST: case EBUSY: case ENODEV: case ENOSPC:
	/* SSD_BIND opening a random path */
	case ENAMETOOLONG: case ENOTDIR: case ENOTBLK: case EACCES:
	case ELOOP: case ENXIO:
		return true;
	}
	return false;
}

static unsigned long pick_cmd(bool on_ctl)
{
	uint64_t r = rnd();
	unsigned long base;
	unsigned int type;

	switch (r % 8) {
	case 0: case 1: case 2: case 3:	/* a real command */
		return on_ctl ? ctl_cmds[(r >> 8) % 2] :
				store_cmds[(r >> 8) % ARRAY_SIZE(store_cmds)];
	case 4: case 5:			/* real number, random dir/size */
		base = on_ctl ? ctl_cmds[(r >> 8) % 2] :
				store_cmds[(r >> 8) % ARRAY_SIZE(store_cmds)];
		return _IOC((r >> 16) & 3, SCALIO_IOC_MAGIC, _IOC_NR(base),
			    (r >> 20) & _IOC_SIZEMASK);
	case 6:				/* our magic, random number */
		return _IOC((r >> 16) & 3, SCALIO_IOC_MAGIC, (r >> 24) & 0xff,
			    (r >> 32) & _IOC_SIZEMASK);
	default:
		/*
		 * Any other type, except those the VFS handles itself before
		 * the driver sees them (FIO*, FIFREEZE, FICLONE, FS_IOC_*).
		 */
		type = (r >> 8) & 0xff;
		if (type == 0 || type == 'T' || type == 'X' || type == 'f' ||
		    type == 0x94 || type == 0x12 || type == 0x15)
			type = 'z';
		return _IOC((r >> 16) & 3, type, (r >> 24) & 0xff,
			    (r >> 32) & _IOC_SIZEMASK);
	}
}

/* Aim a pointer field at scratch memory, a bad address, or leave it random. */
static uint64_t fuzz_ptr(char *scratch, size_t len)
{
	switch (rnd() % 6) {
	case 0: case 1: case 2:
		return u64p(scratch + rnd() % (len / 2));
	case 3:
		return 0;
	case 4:
		return KERNEL_PTR + (rnd() & 0xffff);
	default:
		return rnd();
	}
}

static uint32_t fuzz_len(uint32_t max)
{
	switch (rnd() % 4) {
	case 0:
		return (uint32_t)rnd();
	default:
		return (uint32_t)(rnd() % (max + 2));
	}
}

static void fuzz_kv(struct scalio_kv *kv, char *scratch, size_t len)
{
	if (rnd() % 2)
		return;		/* all random */
	kv->key = fuzz_ptr(scratch, len);
	kv->value = fuzz_ptr(scratch, len);
	kv->klen = fuzz_len(SCALIO_KEY_MAX);
	kv->vlen = fuzz_len(SCALIO_VALUE_MAX);
	if (rnd() % 2) {
		kv->flags = 0;
		kv->reserved[0] = kv->reserved[1] = 0;
	}
}

/* Make sure random bytes never name the real store (attach, detach). */
static void spoil_store_name(char *name)
{
	if (!strncmp(name, store_name, strlen(store_name) + 1))
		name[0] ^= 0x40;
}

TEST_F_TIMEOUT(kv, fuzz, 1800)
{
	const size_t scratch_len = 64 * 1024;
	unsigned long iters = 3000, i, bad = 0, ok = 0;
	int ctl = open(SCALIO_CTL_DEV, O_RDWR);
	char key[SCALIO_KEY_MAX + 1], out[16];
	uint32_t klen = mkkey(key, "fz.after"), vlen;
	uint64_t seed;
	char *scratch, *arg;
	const char *s;

	ASSERT_LE(0, ctl);
	s = getenv("SCALIO_FUZZ_ITERS");
	if (s)
		iters = strtoul(s, NULL, 0);
	s = getenv("SCALIO_FUZZ_SEED");
	seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ run_id;
	rng_state = seed ? seed : 1;
	ksft_print_msg("fuzz: %lu iterations, SCALIO_FUZZ_SEED=%llu\n", iters,
		       (unsigned long long)seed);

	scratch = mmap(NULL, scratch_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, scratch);
	/* The argument buffer sits in the scratch's upper half. */
	arg = scratch + scratch_len - 8192;

	for (i = 0; i < iters; i++) {
		bool on_ctl = rnd() % 8 == 0;
		unsigned long cmd = pick_cmd(on_ctl);
		int fd = on_ctl ? ctl : self->fd, ret;
		unsigned int k;
		void *argp;

		for (k = 0; k < 8192 / 8; k++)
			((uint64_t *)arg)[k] = rnd();
		for (k = 0; k < scratch_len / 2 / 8; k += 64)
			((uint64_t *)scratch)[k] = rnd();

		switch (_IOC_NR(cmd)) {
		case _IOC_NR(SCALIO_IOC_GET):
		case _IOC_NR(SCALIO_IOC_PUT):
		case _IOC_NR(SCALIO_IOC_DELETE):
			fuzz_kv((struct scalio_kv *)arg, scratch, scratch_len);
			break;
		case _IOC_NR(SCALIO_IOC_MULTI): {
			struct scalio_multi *m = (struct scalio_multi *)arg;
			struct scalio_multi_op *op = (void *)(arg + 64);

			if (rnd() % 2) {
				m->ops = u64p(op);
				m->nr = 1 + rnd() % 16;
				m->flags = 0;
				memset(m->reserved, 0, sizeof(m->reserved));
				for (k = 0; k < m->nr; k++) {
					op[k].opcode = rnd() % 5;
					op[k].pad = rnd() % 4 ? 0 : (uint32_t)rnd();
					fuzz_kv(&op[k].kv, scratch, scratch_len);
				}
			}
			break;
		}
		case _IOC_NR(SCALIO_IOC_STATS):
			if (rnd() % 2) {
				((struct scalio_stats *)arg)->size =
					sizeof(struct scalio_stats);
				((struct scalio_stats *)arg)->flags = rnd() % 4;
			}
			break;
		case _IOC_NR(SCALIO_IOC_SSD_INFO):
			if (rnd() % 2) {
				struct scalio_ssd_info *si = (void *)arg;

				si->index = rnd() % 20;
				memset(si->reserved, 0, sizeof(si->reserved));
			}
			break;
		case _IOC_NR(SCALIO_IOC_SCAN): {
			struct scalio_scan *sc = (struct scalio_scan *)arg;

			/*
			 * Always set: a random buffer the kernel may fill
			 * could land on this process's own memory.  Inside
			 * the scratch's lower half, or not writable at all.
			 */
			switch (rnd() % 4) {
			case 0:
				sc->buf = 0;
				break;
			case 1:
				sc->buf = KERNEL_PTR + (rnd() & 0xffff);
				break;
			default:
				sc->buf = u64p(scratch);
			}
			sc->buf_len = rnd() % 2 ? SCALIO_SCAN_BUF_MIN :
				      (uint32_t)(rnd() % (scratch_len / 2 + 1));
			if (rnd() % 2)
				sc->bucket = rnd() % 16;
			/* Few buckets: each may be an SSD read. */
			sc->max_buckets = rnd() % 4 ? 1 + rnd() % 4 :
					  (uint32_t)rnd() | 0x10000;
			if (rnd() % 2) {
				sc->flags = 0;
				memset(sc->reserved, 0, sizeof(sc->reserved));
			}
			break;
		}
		case _IOC_NR(SCALIO_IOC_SSD_BIND):
			/* Never a valid block device path: random bytes only. */
			((struct scalio_ssd_bind *)arg)->path[0] = (char)('a' + rnd() % 26);
			break;
		case _IOC_NR(SCALIO_IOC_ATTACH):
		case _IOC_NR(SCALIO_IOC_DETACH):
			break;
		}
		/* Whatever the command, the store name bytes are never ours. */
		spoil_store_name(arg);

		switch (rnd() % 10) {
		case 0:
			argp = NULL;
			break;
		case 1:
			argp = uptr(rnd());
			break;
		default:
			argp = arg;
		}
		ret = ioctl(fd, cmd, argp);
		if (ret == 0) {
			ok++;
			continue;
		}
		if (!allowed_errno(errno)) {
			bad++;
			TH_LOG("iteration %lu: %s cmd %#lx -> %s", i,
			       on_ctl ? "ctl" : "store", cmd, strerror(errno));
		}
	}
	ksft_print_msg("fuzz: %lu ok, %lu unexpected errnos\n", ok, bad);
	EXPECT_EQ(0UL, bad);

	/* The store must still work. */
	ASSERT_EQ(0, put(self->fd, key, klen, "alive", 5));
	vlen = sizeof(out);
	ASSERT_EQ(0, get(self->fd, key, klen, out, &vlen));
	ASSERT_EQ(5U, vlen);
	ASSERT_EQ(0, del(self->fd, key, klen));
	munmap(scratch, scratch_len);
	close(ctl);
}

static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	const char *s;

	/* Line-buffered: the harness forks, and output goes through a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	s = getenv("SCALIO_STORE");
	if (s && *s)
		store_name = s;
	s = getenv("SCALIO_TRADDR");
	if (s && *s)
		traddr = s;
	s = getenv("SCALIO_TRSVCID");
	if (s && *s)
		trsvcid = (unsigned int)strtoul(s, NULL, 0);
	snprintf(store_path, sizeof(store_path), SCALIO_STORE_DEV_FMT,
		 store_name);
	run_id = (unsigned int)getpid() * 2654435761U ^ (unsigned int)time(NULL);

	if (access(store_path, F_OK) || access(SCALIO_CTL_DEV, F_OK)) {
		ksft_print_header();
		ksft_exit_skip("%s or %s absent: store '%s' not attached\n",
			       store_path, SCALIO_CTL_DEV, store_name);
	}
	return test_harness_run(argc, argv);
}
