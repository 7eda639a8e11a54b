// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space crc32c() and xxh64() must behave exactly like the
 * kernel's, or the unit tests would check a different format than the
 * modules write.
 */
#include "kselftest_harness.h"
#include "common/scalio_types.h"

/* The CRC-32C check value: crc32c("123456789") with ~0 seed and final ~. */
TEST(crc32c_check_value)
{
	EXPECT_EQ(~crc32c(~0U, "123456789", 9), 0xE3069283U);
	EXPECT_EQ(~crc32c(~0U, "a", 1), 0xC1D04330U);
}

/* Kernel semantics: no inversion inside, so a zero seed stays zero on 0s. */
TEST(crc32c_no_inversion)
{
	static const u8 zeros[16];

	EXPECT_EQ(crc32c(0, zeros, sizeof(zeros)), 0);
	EXPECT_EQ(crc32c(0x12345678, "", 0), 0x12345678);
	EXPECT_TRUE(crc32c(~0U, zeros, sizeof(zeros)) != ~0U);
}

/* RFC 3720 appendix B.4 iSCSI test vectors (32 bytes each). */
TEST(crc32c_rfc3720)
{
	u8 buf[32];
	int i;

	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(~crc32c(~0U, buf, 32), 0x8A9136AAU);
	memset(buf, 0xff, sizeof(buf));
	EXPECT_EQ(~crc32c(~0U, buf, 32), 0x62A8AB43U);
	for (i = 0; i < 32; i++)
		buf[i] = i;
	EXPECT_EQ(~crc32c(~0U, buf, 32), 0x46DD794EU);
	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	EXPECT_EQ(~crc32c(~0U, buf, 32), 0x113FDB5CU);
}

/* Feeding the bytes in pieces gives the same crc as all at once. */
TEST(crc32c_incremental)
{
	const char *s = "The quick brown fox jumps over the lazy dog";
	size_t n = strlen(s), cut;
	u32 whole = crc32c(~0U, s, n);

	for (cut = 0; cut <= n; cut++)
		EXPECT_EQ(crc32c(crc32c(~0U, s, cut), s + cut, n - cut), whole);
}

/* Vectors of the kernel's crypto/testmgr.h xxhash64_tv_template (seed 0). */
TEST(xxh64_vectors)
{
	static const u8 m14[] = { 0x40, 0x8b, 0xb8, 0x41, 0xe4, 0x42, 0x15,
				  0x2d, 0x88, 0xc7, 0x9a, 0x09, 0x1a, 0x9b };

	EXPECT_EQ(xxh64("", 0, 0), 0xef46db3751d8e999ULL);
	EXPECT_EQ(xxh64("\x40", 1, 0), 0xd059eb88aa915c20ULL);
	EXPECT_EQ(xxh64(m14, sizeof(m14), 0), 0x4a37a192a92be8a8ULL);
	EXPECT_TRUE(xxh64(m14, sizeof(m14), 1) != xxh64(m14, sizeof(m14), 0));
}

TEST_HARNESS_MAIN
