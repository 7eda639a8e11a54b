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
 * SHA-256 (FIPS 180-4) and CRC-32 are here so that scalioctl needs no
 * crypto library; test.sh checks the derivation against Python's hmac.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scalioctl.h"

struct sha256 {
	uint32_t h[8];
	uint8_t buf[64];
	uint64_t len;		/* bytes */
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
	memset(w, 0, sizeof(w));
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
}

static void sha256_update(struct sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n) {
		size_t off = s->len % 64, k = 64 - off < n ? 64 - off : n;

		memcpy(s->buf + off, p, k);
		s->len += k;
		p += k;
		n -= k;
		if (s->len % 64 == 0)
			sha256_block(s, s->buf);
	}
}

static void sha256_final(struct sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, zero = 0, lenb[8];
	int i;

	sha256_update(s, &pad, 1);
	while (s->len % 64 != 56)
		sha256_update(s, &zero, 1);
	for (i = 0; i < 8; i++)
		lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, lenb, 8);
	for (i = 0; i < 32; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
	memset(s, 0, sizeof(*s));
}

/* HMAC-SHA256 (RFC 2104) of @msg under @key. */
static void hmac_sha256(const uint8_t *key, size_t klen, const void *msg,
			size_t mlen, uint8_t out[32])
{
	uint8_t k[64], pad[64];
	struct sha256 s;
	int i;

	memset(k, 0, sizeof(k));
	if (klen > 64) {
		sha256_init(&s);
		sha256_update(&s, key, klen);
		sha256_final(&s, k);
	} else {
		memcpy(k, key, klen);
	}
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&s);
	sha256_update(&s, pad, 64);
	sha256_update(&s, msg, mlen);
	sha256_final(&s, out);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, 64);
	sha256_update(&s, out, 32);
	sha256_final(&s, out);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

/* CRC-32 (IEEE 802.3, as zlib's crc32() and the kernel's ~crc32(~0, ...)). */
static uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffff;
	int b;

	while (n--) {
		crc ^= *p++;
		for (b = 0; b < 8; b++)
			crc = crc >> 1 ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

static void base64(const uint8_t *in, size_t n, char *out)
{
	static const char t[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*out++ = t[in[i] >> 2];
		*out++ = t[(in[i] & 3) << 4 | in[i + 1] >> 4];
		*out++ = t[(in[i + 1] & 15) << 2 | in[i + 2] >> 6];
		*out++ = t[in[i + 2] & 63];
	}
	if (n - i == 1) {
		*out++ = t[in[i] >> 2];
		*out++ = t[(in[i] & 3) << 4];
		*out++ = '=';
		*out++ = '=';
	} else if (n - i == 2) {
		*out++ = t[in[i] >> 2];
		*out++ = t[(in[i] & 3) << 4 | in[i + 1] >> 4];
		*out++ = t[(in[i + 1] & 15) << 2];
		*out++ = '=';
	}
	*out = '\0';
}

static void dhchap_key(const uint8_t *secret, uint32_t len, const char *label,
		       char out[DHCHAP_KEY_LEN])
{
	uint8_t key[36];
	uint32_t crc;
	int i;

	hmac_sha256(secret, len, label, strlen(label), key);
	crc = crc32_ieee(key, 32);
	for (i = 0; i < 4; i++)
		key[32 + i] = (uint8_t)(crc >> (8 * i));
	memcpy(out, "DHHC-1:00:", 10);
	base64(key, sizeof(key), out + 10);	/* 48 characters */
	memcpy(out + 58, ":", 2);
	memset(key, 0, sizeof(key));
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
