/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HMAC-SHA256 with the kernel crypto API, for the admission proofs of both
 * modules (see struct scalio_msg_admit_req), and what they bind to the
 * connection (struct scalio_conn_bind).  Kernel only.
 */
#ifndef _SCALIO_HMAC_H
#define _SCALIO_HMAC_H

#include <crypto/hash.h>
#include <linux/err.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>

#include "scalio_proto.h"

/**
 * scalio_hmac_sha256() - HMAC-SHA256 of @data keyed with @key
 * @key:	the secret
 * @klen:	its length
 * @data:	message
 * @len:	its length
 * @out:	SCALIO_MAC_LEN bytes
 *
 * Sleeps (allocates a transform: admission is rare).
 *
 * Return: 0 or a negative errno.
 */
static inline int scalio_hmac_sha256(const u8 *key, u32 klen, const u8 *data,
				     u32 len, u8 *out)
{
	struct crypto_shash *tfm;
	int ret;

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = -EINVAL;
	if (crypto_shash_digestsize(tfm) != SCALIO_MAC_LEN)
		goto out;
	ret = crypto_shash_setkey(tfm, key, klen);
	if (!ret)
		ret = crypto_shash_tfm_digest(tfm, data, len, out);
out:
	crypto_free_shash(tfm);
	return ret;
}

/**
 * scalio_bind_addr() - an IP address as struct scalio_conn_bind holds it
 * @out:	16 bytes
 * @sa:	AF_INET (stored v4-mapped) or AF_INET6; any other: zeroes
 */
static inline void scalio_bind_addr(u8 *out, const struct sockaddr *sa)
{
	memset(out, 0, 16);
	if (sa->sa_family == AF_INET) {
		out[10] = 0xff;
		out[11] = 0xff;
		memcpy(out + 12,
		       &((const struct sockaddr_in *)sa)->sin_addr.s_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

#endif /* _SCALIO_HMAC_H */
