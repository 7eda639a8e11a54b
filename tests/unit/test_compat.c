// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space crc32c() and xxh64() must behave exactly like the
 * kernel's, or the unit tests would check a different format than the
 * modules write.
 */
#include "harness.h"
#include "common/scalio_types.h"

/* The CRC-32C check value: crc32c("123456789") with ~0 seed and final ~. */
static void crc32c_check_value(void)
{
	CHECK_EQ(~crc32c(~0U, "123456789", 9), 0xE3069283U);
	CHECK_EQ(~crc32c(~0U, "a", 1), 0xC1D04330U);
}

/* Kernel semantics: no inversion inside, so a zero seed stays zero on 0s. */
static void crc32c_no_inversion(void)
{
	static const u8 zeros[16];

	CHECK_EQ(crc32c(0, zeros, sizeof(zeros)), 0);
	CHECK_EQ(crc32c(0x12345678, "", 0), 0x12345678);
	CHECK(crc32c(~0U, zeros, sizeof(zeros)) != ~0U);
}

/* RFC 3720 appendix B.4 iSCSI test vectors (32 bytes each). */
static void crc32c_rfc3720(void)
{
	u8 buf[32];
	int i;

	memset(buf, 0, sizeof(buf));
	CHECK_EQ(~crc32c(~0U, buf, 32), 0x8A9136AAU);
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(~crc32c(~0U, buf, 32), 0x62A8AB43U);
	for (i = 0; i < 32; i++)
		buf[i] = i;
	CHECK_EQ(~crc32c(~0U, buf, 32), 0x46DD794EU);
	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	CHECK_EQ(~crc32c(~0U, buf, 32), 0x113FDB5CU);
}

/* Feeding the bytes in pieces gives the same crc as all at once. */
static void crc32c_incremental(void)
{
	const char *s = "The quick brown fox jumps over the lazy dog";
	size_t n = strlen(s), cut;
	u32 whole = crc32c(~0U, s, n);

	for (cut = 0; cut <= n; cut++)
		CHECK_EQ(crc32c(crc32c(~0U, s, cut), s + cut, n - cut), whole);
}

/* Vectors of the kernel's crypto/testmgr.h xxhash64_tv_template (seed 0). */
static void xxh64_vectors(void)
{
	static const u8 m14[] = { 0x40, 0x8b, 0xb8, 0x41, 0xe4, 0x42, 0x15,
				  0x2d, 0x88, 0xc7, 0x9a, 0x09, 0x1a, 0x9b };

	CHECK_EQ(xxh64("", 0, 0), 0xef46db3751d8e999ULL);
	CHECK_EQ(xxh64("\x40", 1, 0), 0xd059eb88aa915c20ULL);
	CHECK_EQ(xxh64(m14, sizeof(m14), 0), 0x4a37a192a92be8a8ULL);
	CHECK(xxh64(m14, sizeof(m14), 1) != xxh64(m14, sizeof(m14), 0));
}

static const struct t_case cases[] = {
	T_CASE(crc32c_check_value),
	T_CASE(crc32c_no_inversion),
	T_CASE(crc32c_rfc3720),
	T_CASE(crc32c_incremental),
	T_CASE(xxh64_vectors),
};

T_MAIN(cases)
