// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_msg_check(): accept tables for a valid message of every opcode in
 * both directions, and reject tables: every length off by one, every
 * header field, every per-opcode length and reserved field.
 */
#include "kselftest_harness.h"
#include <stddef.h>
#include "common/scalio_proto.h"

static u64 words[(SCALIO_MSG_SIZE + 64) / 8];
static u8 *const buf = (u8 *)words;
#define H	((struct scalio_msg_hdr *)buf)

static u32 hdr_init(u16 op, bool resp, u32 len)
{
	memset(buf, 0, sizeof(words));
	H->opcode = cpu_to_le16(op);
	H->flags = cpu_to_le16(resp ? SCALIO_MSG_F_RESPONSE : 0);
	H->len = cpu_to_le32(len);
	H->tag = cpu_to_le64(0xfeedfacecafef00dULL);
	return len;
}

/* Build a valid message of @op/@resp with a @vlen/@nr body; return length. */
static u32 make(u16 op, bool resp, u32 var)
{
	u32 len, i;

	if (!resp) {
		struct scalio_msg_kv_req *kv = (void *)buf;

		switch (op) {
		case SCALIO_MSG_HELLO:
		case SCALIO_MSG_STATS:
		case SCALIO_MSG_KEEPALIVE:
			return hdr_init(op, resp, sizeof(struct scalio_msg_hdr));
		case SCALIO_MSG_ADMIT:
			len = hdr_init(op, resp,
				       sizeof(struct scalio_msg_admit_req));
			strcpy(((struct scalio_msg_admit_req *)buf)->hostnqn,
			       "nqn.2014-08.org.nvmexpress:uuid:host1");
			return len;
		case SCALIO_MSG_CHUNKS:
			len = hdr_init(op, resp,
				       sizeof(struct scalio_msg_chunks_req));
			((struct scalio_msg_chunks_req *)buf)->first =
				cpu_to_le32(var);
			return len;
		case SCALIO_MSG_SSD_INFO:
			len = hdr_init(op, resp,
				       sizeof(struct scalio_msg_ssd_info_req));
			((struct scalio_msg_ssd_info_req *)buf)->index =
				cpu_to_le32(var);
			return len;
		default:
			if (op != SCALIO_MSG_PUT)
				var = 0;
			len = hdr_init(op, resp, sizeof(*kv) + var);
			kv->klen = 5;
			memcpy(kv->key, "hello", 5);
			kv->vlen = cpu_to_le16(var);
			memset(kv->value, 'v', var);
			return len;
		}
	}
	switch (op) {
	case SCALIO_MSG_HELLO: {
		struct scalio_msg_hello_rep *m = (void *)buf;

		len = hdr_init(op, resp, sizeof(*m));
		m->nr_blocks = cpu_to_le32(4096);
		m->slots_per_block = cpu_to_le32(8);
		m->block_size = cpu_to_le32(64 + 8 * 128);
		m->nr_ssds = cpu_to_le32(2);
		m->nr_chunks = cpu_to_le32(4);
		m->lease_ticks = cpu_to_le32(2000);
		m->nr_buckets = cpu_to_le32(16384);
		return len;
	}
	case SCALIO_MSG_CHUNKS: {
		struct scalio_msg_chunks_rep *m = (void *)buf;

		len = hdr_init(op, resp, sizeof(*m) + var * sizeof(m->chunk[0]));
		m->nr = cpu_to_le32(var);
		for (i = 0; i < var; i++) {
			m->chunk[i].addr = cpu_to_le64(0x10000 * (i + 1));
			m->chunk[i].rkey = cpu_to_le32(i + 100);
			m->chunk[i].nr_blocks = cpu_to_le32(1024);
			m->chunk[i].first_block = cpu_to_le32(1024 * i);
		}
		return len;
	}
	case SCALIO_MSG_SSD_INFO: {
		struct scalio_msg_ssd_info_rep *m = (void *)buf;

		len = hdr_init(op, resp, sizeof(*m));
		m->nsid = cpu_to_le32(1);
		strcpy(m->nqn, "nqn.2024-11.io.scalio:kv0-ssd0");
		return len;
	}
	case SCALIO_MSG_STATS:
		return hdr_init(op, resp, sizeof(struct scalio_msg_stats_rep));
	case SCALIO_MSG_ADMIT:
		return hdr_init(op, resp, sizeof(struct scalio_msg_admit_rep));
	case SCALIO_MSG_KEEPALIVE:
		return hdr_init(op, resp, sizeof(struct scalio_msg_hdr));
	default: {
		struct scalio_msg_kv_rep *m = (void *)buf;

		if (op != SCALIO_MSG_GET)
			var = 0;
		len = hdr_init(op, resp, sizeof(*m) + var);
		m->seg = cpu_to_le64(0x1234);
		m->vlen = cpu_to_le16(var);
		memset(m->value, 'x', var);
		return len;
	}
	}
}

static int chk(u32 len, bool resp)
{
	return scalio_msg_check(buf, len, resp);
}

/* Set hdr.len too, so only the length itself is wrong. */
static int chk_len(u32 len, bool resp)
{
	H->len = cpu_to_le32(len);
	return scalio_msg_check(buf, len, resp);
}

TEST(sizes)
{
	EXPECT_EQ(sizeof(struct scalio_msg_hdr), 24);
	EXPECT_EQ(sizeof(struct scalio_msg_kv_req), 64);
	EXPECT_EQ(sizeof(struct scalio_msg_kv_rep), 40);
	EXPECT_EQ(sizeof(struct scalio_msg_hello_rep), 96);
	EXPECT_EQ(sizeof(struct scalio_msg_chunks_req), 32);
	EXPECT_EQ(sizeof(struct scalio_msg_chunks_rep), 32);
	EXPECT_EQ(sizeof(struct scalio_msg_ssd_info_req), 32);
	EXPECT_EQ(sizeof(struct scalio_msg_ssd_info_rep), 264);
	EXPECT_EQ(sizeof(struct scalio_msg_stats_rep), 24 + 32 * 8);
	EXPECT_EQ(SCALIO_CHUNKS_PER_MSG, 255);
	EXPECT_EQ(sizeof(struct scalio_msg_admit_req), 336);
	EXPECT_EQ(sizeof(struct scalio_msg_admit_rep), 64);
	/* An IB CM REQ leaves 56 bytes of private data to rdma_cm users. */
	EXPECT_EQ(sizeof(struct scalio_cm_req), 56);
	EXPECT_EQ(sizeof(struct scalio_cm_rep), 48);
}

/* ADMIT: flags, reserved, and the host NQN's shape. */
TEST(admit_requests)
{
	struct scalio_msg_admit_req *a = (void *)buf;
	static const char *const bad[] = {
		"", "nqn.", "nqn", "host1", "nqn.x y", "nqn.a/b", "nqn.\x7f",
		"NQN.upper",
	};
	u32 len, i;

	len = make(SCALIO_MSG_ADMIT, false, 0);
	a->flags = cpu_to_le32(SCALIO_ADMIT_F_MAC);
	EXPECT_EQ(chk(len, false), 0);
	a->flags = cpu_to_le32(2);
	EXPECT_EQ(chk(len, false), -EPROTO);
	len = make(SCALIO_MSG_ADMIT, false, 0);
	a->reserved = cpu_to_le32(1);
	EXPECT_EQ(chk(len, false), -EPROTO);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = make(SCALIO_MSG_ADMIT, false, 0);
		memset(a->hostnqn, 0, sizeof(a->hostnqn));
		strcpy(a->hostnqn, bad[i]);
		EXPECT_EQ(chk(len, false), -EBADMSG);
	}
	/* Unterminated, and the longest terminated one. */
	len = make(SCALIO_MSG_ADMIT, false, 0);
	memset(a->hostnqn, 'n', sizeof(a->hostnqn));
	memcpy(a->hostnqn, "nqn.", 4);
	EXPECT_EQ(chk(len, false), -EBADMSG);
	a->hostnqn[sizeof(a->hostnqn) - 1] = 0;
	EXPECT_EQ(chk(len, false), 0);
	EXPECT_TRUE(scalio_nqn_valid("nqn.2014-08.org.nvmexpress:uuid:1", 224));
	EXPECT_TRUE(!scalio_nqn_valid("nqn.2014-08.org.nvmexpress:uuid:1", 10));
}

/* The MAC input separates every field: no two inputs collide. */
TEST(admit_mac_input)
{
	static u8 a[SCALIO_ADMIT_MAC_INPUT_LEN], b[SCALIO_ADMIT_MAC_INPUT_LEN];
	u8 ch[SCALIO_CHALLENGE_LEN], no[SCALIO_CHALLENGE_LEN];
	u8 id[SCALIO_HOSTID_LEN];
	struct scalio_conn_bind bd = { .host_qpn = 17, .target_qpn = 18 };
	const char *h = SCALIO_ADMIT_LABEL_HOST;
	u32 i;

	memset(ch, 7, sizeof(ch));
	memset(no, 8, sizeof(no));
	memset(id, 9, sizeof(id));
	memset(bd.host_addr, 1, sizeof(bd.host_addr));
	memset(bd.target_addr, 2, sizeof(bd.target_addr));
	EXPECT_EQ(SCALIO_ADMIT_MAC_INPUT_LEN,
		  16 + 32 + 32 + 4 + 32 + 224 + 16 + 16 + 16 + 4 + 4);
	scalio_admit_mac_input(a, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
	scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
	EXPECT_TRUE(!memcmp(a, b, sizeof(a)));
	EXPECT_TRUE(!memcmp(a, "scalio-admit-h6", 15));
	/* The target's proof is over other bytes than the host's. */
	scalio_admit_mac_input(b, SCALIO_ADMIT_LABEL_TARGET, ch, no, 5, "kv",
			       "nqn.h1", id, &bd);
	EXPECT_TRUE(memcmp(a, b, sizeof(a)));
	/* Moving a byte from the store to the NQN changes the input. */
	scalio_admit_mac_input(b, h, ch, no, 5, "kvn", "qn.h1", id, &bd);
	EXPECT_TRUE(memcmp(a, b, sizeof(a)));
	scalio_admit_mac_input(b, h, ch, no, 6, "kv", "nqn.h1", id, &bd);
	EXPECT_TRUE(memcmp(a, b, sizeof(a)));
	ch[31] ^= 1;
	scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
	EXPECT_TRUE(memcmp(a, b, sizeof(a)));
	ch[31] ^= 1;
	no[0] ^= 1;
	scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
	EXPECT_TRUE(memcmp(a, b, sizeof(a)));
	no[0] ^= 1;
	id[0] ^= 1;
	scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
	EXPECT_TRUE(memcmp(a, b, sizeof(a)));
	id[0] ^= 1;
	/* Every byte of the connection counts (a relay changes some). */
	for (i = 0; i < 16; i++) {
		bd.host_addr[i] ^= 1;
		scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
		EXPECT_TRUE(memcmp(a, b, sizeof(a)));
		bd.host_addr[i] ^= 1;
		bd.target_addr[i] ^= 1;
		scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
		EXPECT_TRUE(memcmp(a, b, sizeof(a)));
		bd.target_addr[i] ^= 1;
	}
	for (i = 0; i < 32; i++) {
		bd.host_qpn ^= 1U << i;
		scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
		EXPECT_TRUE(memcmp(a, b, sizeof(a)));
		bd.host_qpn ^= 1U << i;
		bd.target_qpn ^= 1U << i;
		scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
		EXPECT_TRUE(memcmp(a, b, sizeof(a)));
		bd.target_qpn ^= 1U << i;
	}
	/* Swapping the ends' QP numbers is another connection too. */
	bd.host_qpn = 18;
	bd.target_qpn = 17;
	scalio_admit_mac_input(b, h, ch, no, 5, "kv", "nqn.h1", id, &bd);
	EXPECT_TRUE(memcmp(a, b, sizeof(a)));
}

/* Addresses as both ends bind them: IPv4 v4-mapped, IPv6 as is. */
TEST(bind_addr)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = 80 };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct sockaddr other = { .sa_family = AF_UNIX };
	static const u8 m4[16] = { [10] = 0xff, [11] = 0xff, 10, 77, 0, 1 };
	u8 out[16];
	u32 i;

	memcpy(&s4.sin_addr.s_addr, "\x0a\x4d\x00\x01", 4);
	scalio_bind_addr(out, (struct sockaddr *)&s4);
	EXPECT_TRUE(!memcmp(out, m4, 16));
	/* The same address through IPv6 (v4-mapped) binds the same. */
	memcpy(&s6.sin6_addr, m4, 16);
	scalio_bind_addr(out, (struct sockaddr *)&s6);
	EXPECT_TRUE(!memcmp(out, m4, 16));
	memset(out, 7, sizeof(out));
	scalio_bind_addr(out, &other);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(out[i], 0);
}

/* The variable parts to try per opcode: min, typical and max. */
static const u32 req_vars[] = { 0, 1, 72, SCALIO_VALUE_MAX };
static const u32 rep_vars[] = { 0, 1, 3, SCALIO_CHUNKS_PER_MSG };

TEST(accept_all)
{
	u16 op;
	u32 i, len;

	for (op = 1; op < SCALIO_MSG_OP_MAX; op++) {
		for (i = 0; i < 4; i++) {
			len = make(op, false, req_vars[i]);
			EXPECT_EQ(chk(len, false), 0);
			len = make(op, true, op == SCALIO_MSG_GET ?
				   req_vars[i] : rep_vars[i]);
			EXPECT_EQ(chk(len, true), 0);
			/* The tag is opaque and the status may be an errno. */
			H->tag = cpu_to_le64(~0ULL);
			EXPECT_EQ(chk(len, true), 0);
		}
	}
	/* A bare-header error response to any request. */
	for (op = 1; op < SCALIO_MSG_OP_MAX; op++) {
		hdr_init(op, true, 24);
		H->status = cpu_to_le32((u32)-ENOENT);
		EXPECT_EQ(chk(24, true), 0);
		H->status = cpu_to_le32((u32)-4095);
		EXPECT_EQ(chk(24, true), 0);
	}
	/* An error kv response with its body (and no value). */
	make(SCALIO_MSG_GET, true, 0);
	H->status = cpu_to_le32((u32)-ENOENT);
	EXPECT_EQ(chk(40, true), 0);
}

/* Every valid message, with its length one byte short or one too long. */
TEST(length_off_by_one)
{
	u16 op;
	u32 i, len;
	bool resp;
	int r;

	for (op = 1; op < SCALIO_MSG_OP_MAX; op++) {
		for (resp = false; ; resp = true) {
			for (i = 0; i < 4; i++) {
				u32 var = resp && op != SCALIO_MSG_GET ?
					  rep_vars[i] : req_vars[i];

				len = make(op, resp, var);
				r = chk_len(len - 1, resp);
				EXPECT_EQ(r, -EBADMSG);
				len = make(op, resp, var);
				r = chk_len(len + 1, resp);
				EXPECT_TRUE(r == -EBADMSG ||
				      (len + 1 > SCALIO_MSG_SIZE && r == -EMSGSIZE));
				/* hdr.len disagreeing with byte_len. */
				len = make(op, resp, var);
				H->len = cpu_to_le32(len + 1);
				EXPECT_EQ(chk(len, resp), -EBADMSG);
				H->len = cpu_to_le32(len - 1);
				EXPECT_EQ(chk(len, resp), -EBADMSG);
				H->len = 0;
				EXPECT_EQ(chk(len, resp), -EBADMSG);
			}
			if (resp)
				break;
		}
	}
}

TEST(header_fields)
{
	u32 len, b;
	u16 op;

	/* Short and oversized receives. */
	for (len = 0; len < 24; len++) {
		make(SCALIO_MSG_HELLO, false, 0);
		EXPECT_EQ(chk_len(len, false), -EBADMSG);
	}
	make(SCALIO_MSG_GET, true, 0);
	EXPECT_EQ(chk_len(SCALIO_MSG_SIZE + 1, true), -EMSGSIZE);
	EXPECT_EQ(chk_len(~0U, true), -EMSGSIZE);

	for (op = 0; op < 3; op++) {
		static const u16 bad_ops[] = { 0, SCALIO_MSG_OP_MAX, 0xffff };

		len = make(SCALIO_MSG_HELLO, false, 0);
		H->opcode = cpu_to_le16(bad_ops[op]);
		EXPECT_EQ(chk(len, false), -EPROTO);
		len = make(SCALIO_MSG_HELLO, true, 0);
		H->opcode = cpu_to_le16(bad_ops[op]);
		EXPECT_EQ(chk(len, true), -EPROTO);
	}
	for (op = 1; op < SCALIO_MSG_OP_MAX; op++) {
		/* Unknown flag bits, both directions. */
		for (b = 1; b < 16; b++) {
			len = make(op, false, 1);
			H->flags |= cpu_to_le16(1 << b);
			EXPECT_EQ(chk(len, false), -EPROTO);
			len = make(op, true, 1);
			H->flags |= cpu_to_le16(1 << b);
			EXPECT_EQ(chk(len, true), -EPROTO);
		}
		/* Wrong direction. */
		len = make(op, false, 1);
		EXPECT_EQ(chk(len, true), -EPROTO);
		len = make(op, true, 1);
		EXPECT_EQ(chk(len, false), -EPROTO);
		/*
		 * settled: any value in a request (the target judges it), 0
		 * in a response.
		 */
		len = make(op, false, 1);
		H->settled = cpu_to_le32(0xfffffffeU);
		EXPECT_EQ(chk(len, false), 0);
		len = make(op, true, 1);
		H->settled = cpu_to_le32(0x80000000U);
		EXPECT_EQ(chk(len, true), -EPROTO);
		/* Status: 0 in requests, 0 or -1..-4095 in responses. */
		len = make(op, false, 1);
		H->status = cpu_to_le32((u32)-EIO);
		EXPECT_EQ(chk(len, false), -EPROTO);
		len = make(op, true, 1);
		H->status = cpu_to_le32(1);
		EXPECT_EQ(chk(len, true), -EPROTO);
		H->status = cpu_to_le32((u32)-4096);
		EXPECT_EQ(chk(len, true), -EPROTO);
		H->status = cpu_to_le32(0x80000000U);
		EXPECT_EQ(chk(len, true), -EPROTO);
	}
}

TEST(kv_requests)
{
	struct scalio_msg_kv_req *kv = (void *)buf;
	u16 op;
	u32 len;

	for (op = SCALIO_MSG_GET; op <= SCALIO_MSG_DELETE; op++) {
		len = make(op, false, 0);
		kv->klen = 0;
		EXPECT_EQ(chk(len, false), -EBADMSG);
		kv->klen = 33;
		EXPECT_EQ(chk(len, false), -EBADMSG);
		kv->klen = 255;
		EXPECT_EQ(chk(len, false), -EBADMSG);
		kv->klen = 32;
		EXPECT_EQ(chk(len, false), 0);
		kv->klen = 1;
		EXPECT_EQ(chk(len, false), 0);
		kv->flags = 1;
		EXPECT_EQ(chk(len, false), -EPROTO);
		kv->flags = 0;
		kv->reserved = cpu_to_le16(1);
		EXPECT_EQ(chk(len, false), -EPROTO);
		kv->reserved = 0;
		/* The inflight hint: writes only (its bound is the target's). */
		kv->inflight = cpu_to_le16(0xffff);
		EXPECT_EQ(chk(len, false),
			 op == SCALIO_MSG_GET ? -EPROTO : 0);
		kv->inflight = 0;
	}
	/* GET and DELETE carry no value, even with a matching length. */
	len = make(SCALIO_MSG_GET, false, 0);
	kv->vlen = cpu_to_le16(1);
	EXPECT_EQ(chk_len(len + 1, false), -EBADMSG);
	len = make(SCALIO_MSG_DELETE, false, 0);
	kv->vlen = cpu_to_le16(1);
	EXPECT_EQ(chk_len(len + 1, false), -EBADMSG);
	/* PUT: vlen beyond the maximum, with a matching length. */
	len = make(SCALIO_MSG_PUT, false, SCALIO_VALUE_MAX);
	kv->vlen = cpu_to_le16(SCALIO_VALUE_MAX + 1);
	EXPECT_EQ(chk_len(len + 1, false), -EBADMSG);
	kv->vlen = cpu_to_le16(0xffff);
	EXPECT_EQ(chk_len(64 + 0xffff, false), -EMSGSIZE);
	/* PUT vlen disagreeing with the length either way. */
	len = make(SCALIO_MSG_PUT, false, 100);
	kv->vlen = cpu_to_le16(101);
	EXPECT_EQ(chk(len, false), -EBADMSG);
	kv->vlen = cpu_to_le16(99);
	EXPECT_EQ(chk(len, false), -EBADMSG);
	/* CHUNKS and SSD_INFO reserved. */
	len = make(SCALIO_MSG_CHUNKS, false, 0);
	((struct scalio_msg_chunks_req *)buf)->reserved = cpu_to_le32(1);
	EXPECT_EQ(chk(len, false), -EPROTO);
	len = make(SCALIO_MSG_SSD_INFO, false, 0);
	((struct scalio_msg_ssd_info_req *)buf)->reserved = cpu_to_le32(1);
	EXPECT_EQ(chk(len, false), -EPROTO);
}

#define HELLO_BAD(field, val, err) do {				\
	u32 _l = make(SCALIO_MSG_HELLO, true, 0);			\
	((struct scalio_msg_hello_rep *)buf)->field = cpu_to_le32(val); \
	EXPECT_EQ(chk(_l, true), err);					\
} while (0)

TEST(responses)
{
	struct scalio_msg_chunks_rep *cr = (void *)buf;
	struct scalio_msg_kv_rep *kr = (void *)buf;
	struct scalio_msg_ssd_info_rep *si = (void *)buf;
	u32 len;

	HELLO_BAD(nr_blocks, 0, -EBADMSG);
	HELLO_BAD(nr_blocks, 3000, -EBADMSG);
	HELLO_BAD(nr_blocks, 1, -EBADMSG);	/* fewer blocks than chunks */
	HELLO_BAD(nr_blocks, 0x80000000U, -EBADMSG);	/* more than buckets */
	HELLO_BAD(nr_blocks, 16384, 0);
	HELLO_BAD(nr_buckets, 0, -EBADMSG);
	HELLO_BAD(nr_buckets, 12288, -EBADMSG);
	HELLO_BAD(nr_buckets, 2048, -EBADMSG);	/* fewer than blocks */
	HELLO_BAD(nr_buckets, 4096, 0);
	HELLO_BAD(nr_buckets, 1U << 28, 0);	/* 65536 per block */
	HELLO_BAD(nr_buckets, 1U << 29, -EBADMSG);
	HELLO_BAD(slots_per_block, 0, -EBADMSG);
	HELLO_BAD(slots_per_block, 5, -EBADMSG);
	HELLO_BAD(slots_per_block, 32, -EBADMSG);
	HELLO_BAD(block_size, 64 + 8 * 128 + 1, -EBADMSG);
	HELLO_BAD(nr_ssds, 0, -EBADMSG);
	HELLO_BAD(nr_ssds, 17, -EBADMSG);
	HELLO_BAD(nr_ssds, 16, 0);
	HELLO_BAD(nr_chunks, 0, -EBADMSG);
	HELLO_BAD(nr_chunks, 4097, -EBADMSG);
	HELLO_BAD(nr_chunks, 4096, 0);

	/* CHUNKS: nr beyond a message, nr disagreeing with the length. */
	len = make(SCALIO_MSG_CHUNKS, true, SCALIO_CHUNKS_PER_MSG);
	EXPECT_EQ(len, SCALIO_MSG_SIZE);
	cr->nr = cpu_to_le32(SCALIO_CHUNKS_PER_MSG + 1);
	EXPECT_EQ(chk(len, true), -EBADMSG);
	cr->nr = cpu_to_le32(~0U);		/* nr * 32 overflows u32 */
	EXPECT_EQ(chk(len, true), -EBADMSG);
	cr->nr = cpu_to_le32(0x08000001);	/* 0x08000001 * 32 wraps to 32 */
	EXPECT_EQ(chk_len(64, true), -EBADMSG);
	len = make(SCALIO_MSG_CHUNKS, true, 3);
	cr->nr = cpu_to_le32(2);
	EXPECT_EQ(chk(len, true), -EBADMSG);
	cr->nr = cpu_to_le32(4);
	EXPECT_EQ(chk(len, true), -EBADMSG);
	len = make(SCALIO_MSG_CHUNKS, true, 3);
	cr->chunk[2].nr_blocks = 0;
	EXPECT_EQ(chk(len, true), -EBADMSG);
	len = make(SCALIO_MSG_CHUNKS, true, 3);
	cr->chunk[1].first_block = cpu_to_le32(~0U - 1023);
	EXPECT_EQ(chk(len, true), -EBADMSG);
	cr->chunk[1].first_block = cpu_to_le32(~0U - 1024);
	EXPECT_EQ(chk(len, true), 0);
	/* The seg table's address and rkey are not the checker's business. */
	cr->chunk[0].seg_rkey = cpu_to_le32(1);
	cr->chunk[0].seg_addr = cpu_to_le64(~0ULL);
	EXPECT_EQ(chk(len, true), 0);

	/* SSD_INFO: NQN empty or unterminated. */
	len = make(SCALIO_MSG_SSD_INFO, true, 0);
	si->nqn[0] = 0;
	EXPECT_EQ(chk(len, true), -EBADMSG);
	memset(si->nqn, 'n', sizeof(si->nqn));
	EXPECT_EQ(chk(len, true), -EBADMSG);
	si->nqn[sizeof(si->nqn) - 1] = 0;
	EXPECT_EQ(chk(len, true), 0);

	/* kv responses. */
	len = make(SCALIO_MSG_GET, true, 10);
	kr->vlen = cpu_to_le16(11);
	EXPECT_EQ(chk(len, true), -EBADMSG);
	kr->vlen = cpu_to_le16(9);
	EXPECT_EQ(chk(len, true), -EBADMSG);
	len = make(SCALIO_MSG_GET, true, SCALIO_VALUE_MAX);
	kr->vlen = cpu_to_le16(SCALIO_VALUE_MAX + 1);
	EXPECT_EQ(chk_len(len + 1, true), -EBADMSG);
	len = make(SCALIO_MSG_GET, true, 0);
	kr->reserved[2] = cpu_to_le16(1);
	EXPECT_EQ(chk(len, true), -EPROTO);
	len = make(SCALIO_MSG_PUT, true, 0);
	kr->vlen = cpu_to_le16(1);
	EXPECT_EQ(chk_len(41, true), -EBADMSG);
	len = make(SCALIO_MSG_DELETE, true, 0);
	kr->vlen = cpu_to_le16(1);
	EXPECT_EQ(chk_len(41, true), -EBADMSG);
	/* An error response carries no value. */
	len = make(SCALIO_MSG_GET, true, 5);
	H->status = cpu_to_le32((u32)-EIO);
	EXPECT_EQ(chk(len, true), -EBADMSG);
	/* An error response is a bare header or a valid body, nothing else. */
	make(SCALIO_MSG_GET, true, 0);
	H->status = cpu_to_le32((u32)-EIO);
	EXPECT_EQ(chk_len(25, true), -EBADMSG);
	make(SCALIO_MSG_HELLO, true, 0);
	H->status = cpu_to_le32((u32)-EIO);
	EXPECT_EQ(chk_len(95, true), -EBADMSG);
}

TEST_HARNESS_MAIN
