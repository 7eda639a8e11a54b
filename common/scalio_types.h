/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and helpers that let the pure-logic files in common/ compile both
 * inside the kernel and in user space (unit tests, fuzzers, tools).
 *
 * User space provides crc32c() and xxh64() with the kernel's semantics:
 * crc32c(seed, buf, len) is the raw reflected CRC-32C (Castagnoli) update
 * without pre- or post-inversion, and xxh64() is lib/xxhash's XXH64.
 * tests/unit/compat.c implements them (xxh64 via libxxhash).
 */
#ifndef _SCALIO_TYPES_H
#define _SCALIO_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/crc32c.h>
#include <linux/xxhash.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <asm/byteorder.h>
#else /* user space */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define cpu_to_le16(x)	htole16(x)
#define cpu_to_le32(x)	htole32(x)
#define cpu_to_le64(x)	htole64(x)
#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)

#ifndef BUILD_BUG_ON
#define BUILD_BUG_ON(c)	_Static_assert(!(c), #c)
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#endif
#ifndef ALIGN
#define ALIGN(x, a)	(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#endif
#ifndef min
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#endif
#ifndef min_t
#define min_t(t, a, b)	min((t)(a), (t)(b))
#endif
#ifndef max_t
#define max_t(t, a, b)	max((t)(a), (t)(b))
#endif
#ifndef __packed
/* user-space builds define __packed on the command line (tests/unit/Makefile) */
#error "define __packed for user-space builds of common/"
#endif
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

u32 crc32c(u32 crc, const void *buf, size_t len);
u64 xxh64(const void *buf, size_t len, u64 seed);
#endif /* __KERNEL__ */

#endif /* _SCALIO_TYPES_H */
