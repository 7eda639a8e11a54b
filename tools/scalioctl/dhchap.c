// SPDX-License-Identifier: GPL-2.0
/*
 * The NVMe DH-HMAC-CHAP keys of a host, derived from its scalio secret.
 *
 * One key file per host, the scalio admission secret (16..128 printable
 * bytes), gives both keys of NVMe in-band authentication of the SSD
 * subsystems, so the operator keeps one file on each side:
 *
 *   host key       = HMAC-SHA256(secret, "scalio nvme dhchap host key")
 *   controller key = HMAC-SHA256(secret, "scalio nvme dhchap ctrl key")
 *
 * each written as an NVMe secret representation "DHHC-1:00:<base64 of the
 * 32 key bytes and their CRC-32, little endian>:" (NVMe Base 2.0, 8.13.5.8;
 * 00: the key is used as it is, not transformed).  Distinct labels keep
 * the two NVMe keys apart and apart from the scalio admission MAC, which
 * uses the secret itself.  A host key alone never yields the controller
 * key, nor the secret.
 *
 * HMAC-SHA256 and base64 come from libcrypto (OpenSSL), CRC-32 from zlib;
 * test.sh checks the derivation against Python's hmac.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <zlib.h>

#include "scalioctl.h"

static void dhchap_key(const uint8_t *secret, uint32_t len, const char *label,
		       char out[DHCHAP_KEY_LEN])
{
	uint8_t key[36];
	unsigned int n = 32;
	uLong crc;
	int i;

	if (!HMAC(EVP_sha256(), secret, (int)len, (const uint8_t *)label,
		  strlen(label), key, &n) || n != 32)
		memset(key, 0, sizeof(key));	/* cannot happen: no such key */
	crc = crc32(0L, key, 32);
	for (i = 0; i < 4; i++)
		key[32 + i] = (uint8_t)(crc >> (8 * i));
	memcpy(out, "DHHC-1:00:", 10);
	EVP_EncodeBlock((uint8_t *)out + 10, key, sizeof(key));	/* 48 chars */
	memcpy(out + 58, ":", 2);
	OPENSSL_cleanse(key, sizeof(key));
}

/**
 * dhchap_keys() - the NVMe DH-HMAC-CHAP keys of a scalio secret
 * @secret:	the host's scalio secret (read_secret())
 * @len:	its length
 * @host:	out: the host key (nvmet dhchap_key, nvme dhchap_secret)
 * @ctrl:	out: the controller key (nvmet dhchap_ctrl_key, nvme
 *		dhchap_ctrl_secret)
 */
void dhchap_keys(const uint8_t *secret, uint32_t len, char host[DHCHAP_KEY_LEN],
		 char ctrl[DHCHAP_KEY_LEN])
{
	dhchap_key(secret, len, "scalio nvme dhchap host key", host);
	dhchap_key(secret, len, "scalio nvme dhchap ctrl key", ctrl);
}
