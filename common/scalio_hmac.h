/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HMAC-SHA256 with the kernel crypto API, for the admission proofs of both
 * modules (see struct scalio_msg_admit_req).  Kernel only.
 */
#ifndef _SCALIO_HMAC_H
#define _SCALIO_HMAC_H

#include <crypto/hash.h>
#include <linux/err.h>

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

#endif /* _SCALIO_HMAC_H */
