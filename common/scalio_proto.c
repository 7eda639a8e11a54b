// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of received RPC messages.  Both modules run every received
 * buffer through scalio_msg_check() before looking at any field beyond the
 * header, so the parsers that follow may rely on the fixed part and the
 * length fields being consistent with what was actually received.
 *
 * Pure logic: compiled into both modules and the user-space unit tests.
 */
#include "scalio_proto.h"
#include "scalio_index.h"

/* A response status is 0 or a negative errno (-1 .. -4095). */
#define SCALIO_MSG_ERRNO_MAX	4095

static int scalio_msg_check_kv_req(const void *buf, u32 len, u16 op)
{
	const struct scalio_msg_kv_req *m = buf;
	u32 vlen;

	if (len < sizeof(*m))
		return -EBADMSG;
	vlen = le16_to_cpu(m->vlen);
	if (!m->klen || m->klen > SCALIO_KEY_MAX)
		return -EBADMSG;
	if (m->flags || m->reserved)
		return -EPROTO;
	if (op == SCALIO_MSG_GET && m->inflight)
		return -EPROTO;
	if (op == SCALIO_MSG_PUT) {
		if (vlen > SCALIO_VALUE_MAX)
			return -EBADMSG;
	} else if (vlen) {
		return -EBADMSG;
	}
	if (len != sizeof(*m) + vlen)
		return -EBADMSG;
	return 0;
}

static int scalio_msg_check_req(const void *buf, u32 len, u16 op)
{
	const struct scalio_msg_chunks_req *cr = buf;
	const struct scalio_msg_ssd_info_req *sr = buf;

	const struct scalio_msg_admit_req *ar = buf;

	switch (op) {
	case SCALIO_MSG_HELLO:
	case SCALIO_MSG_STATS:
	case SCALIO_MSG_KEEPALIVE:
		return len == sizeof(struct scalio_msg_hdr) ? 0 : -EBADMSG;
	case SCALIO_MSG_ADMIT:
		if (len != sizeof(*ar))
			return -EBADMSG;
		if (!scalio_nqn_valid(ar->hostnqn, sizeof(ar->hostnqn)))
			return -EBADMSG;
		if ((le32_to_cpu(ar->flags) & ~SCALIO_ADMIT_F_MAC) ||
		    ar->reserved)
			return -EPROTO;
		return 0;
	case SCALIO_MSG_CHUNKS:
		if (len != sizeof(*cr))
			return -EBADMSG;
		return cr->reserved ? -EPROTO : 0;
	case SCALIO_MSG_SSD_INFO:
		if (len != sizeof(*sr))
			return -EBADMSG;
		return sr->reserved ? -EPROTO : 0;
	case SCALIO_MSG_GET:
	case SCALIO_MSG_PUT:
	case SCALIO_MSG_DELETE:
		return scalio_msg_check_kv_req(buf, len, op);
	}
	return -EPROTO;
}

static int scalio_msg_check_hello_rep(const struct scalio_msg_hello_rep *m,
				      u32 len)
{
	u32 nr_blocks, slots, nr_ssds, nr_chunks;

	if (len != sizeof(*m))
		return -EBADMSG;
	nr_blocks = le32_to_cpu(m->nr_blocks);
	slots = le32_to_cpu(m->slots_per_block);
	nr_ssds = le32_to_cpu(m->nr_ssds);
	nr_chunks = le32_to_cpu(m->nr_chunks);
	if (!nr_blocks || (nr_blocks & (nr_blocks - 1)))
		return -EBADMSG;
	if (!scalio_slots_valid(slots))
		return -EBADMSG;
	if (le32_to_cpu(m->block_size) != SCALIO_BLOCK_SIZE(slots))
		return -EBADMSG;
	if (!nr_ssds || nr_ssds > SCALIO_MAX_SSDS)
		return -EBADMSG;
	if (!nr_chunks || nr_chunks > nr_blocks)
		return -EBADMSG;
	if (!scalio_buckets_valid(le32_to_cpu(m->nr_buckets), nr_blocks))
		return -EBADMSG;
	return 0;
}

static int scalio_msg_check_chunks_rep(const struct scalio_msg_chunks_rep *m,
				       u32 len)
{
	u32 nr, i, first, n;

	if (len < sizeof(*m))
		return -EBADMSG;
	nr = le32_to_cpu(m->nr);
	if (nr > SCALIO_CHUNKS_PER_MSG ||
	    len != sizeof(*m) + nr * sizeof(m->chunk[0]))
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		first = le32_to_cpu(m->chunk[i].first_block);
		n = le32_to_cpu(m->chunk[i].nr_blocks);
		if (!n || first > ~0U - n)
			return -EBADMSG;
	}
	return 0;
}

static int scalio_msg_check_kv_rep(const struct scalio_msg_kv_rep *m,
				   u32 len, u16 op, bool error)
{
	u32 vlen, i;

	if (len < sizeof(*m))
		return -EBADMSG;
	vlen = le16_to_cpu(m->vlen);
	if (vlen > SCALIO_VALUE_MAX)
		return -EBADMSG;
	if (vlen && (op != SCALIO_MSG_GET || error))
		return -EBADMSG;
	if (len != sizeof(*m) + vlen)
		return -EBADMSG;
	for (i = 0; i < ARRAY_SIZE(m->reserved); i++)
		if (m->reserved[i])
			return -EPROTO;
	return 0;
}

static int scalio_msg_check_rep(const void *buf, u32 len, u16 op, bool error)
{
	const struct scalio_msg_ssd_info_rep *si = buf;
	const struct scalio_msg_admit_rep *ar = buf;

	/* An error response may be a bare header: there is nothing to parse. */
	if (error && len == sizeof(struct scalio_msg_hdr))
		return 0;

	switch (op) {
	case SCALIO_MSG_HELLO:
		return scalio_msg_check_hello_rep(buf, len);
	case SCALIO_MSG_CHUNKS:
		return scalio_msg_check_chunks_rep(buf, len);
	case SCALIO_MSG_SSD_INFO:
		if (len != sizeof(*si))
			return -EBADMSG;
		/* The NQN must be a non-empty, NUL-terminated string. */
		if (!si->nqn[0] || !memchr(si->nqn, 0, sizeof(si->nqn)))
			return -EBADMSG;
		return 0;
	case SCALIO_MSG_GET:
	case SCALIO_MSG_PUT:
	case SCALIO_MSG_DELETE:
		return scalio_msg_check_kv_rep(buf, len, op, error);
	case SCALIO_MSG_STATS:
		return len == sizeof(struct scalio_msg_stats_rep) ? 0 : -EBADMSG;
	case SCALIO_MSG_ADMIT:
		if (len != sizeof(*ar))
			return -EBADMSG;
		if ((le32_to_cpu(ar->flags) & ~SCALIO_ADMIT_F_MAC) ||
		    ar->reserved)
			return -EPROTO;
		return 0;
	case SCALIO_MSG_KEEPALIVE:
		return len == sizeof(struct scalio_msg_hdr) ? 0 : -EBADMSG;
	}
	return -EPROTO;
}

/**
 * scalio_msg_check() - validate a received message before parsing it
 * @buf:	received bytes (8-byte aligned)
 * @byte_len:	what the completion reported
 * @response:	true on the host (expects responses), false on the target
 *
 * Header: @byte_len at most SCALIO_MSG_SIZE (-EMSGSIZE) and at least a
 * header, hdr.len == @byte_len (-EBADMSG); a known opcode, only known flag
 * bits, the direction flag matching @response, settled 0 in a response,
 * status 0 in a request and 0 or -1..-4095 in a response (-EPROTO).
 *
 * Body: each opcode's exact size; GET/DELETE requests klen 1..32 and vlen
 * 0, PUT klen 1..32, vlen <= SCALIO_VALUE_MAX and hdr.len == sizeof(req) +
 * vlen; CHUNKS responses nr <= SCALIO_CHUNKS_PER_MSG matching hdr.len;
 * GET responses vlen matching hdr.len; a sane geometry in HELLO, a
 * terminated NQN in SSD_INFO, ADMIT answers of their size (-EBADMSG); flags and reserved fields zero
 * (-EPROTO).  An error response (status != 0) may be a bare header; if it
 * has a body, the body is checked and carries no value.
 *
 * Return: 0 or -EBADMSG / -EPROTO / -EMSGSIZE.
 */
int scalio_msg_check(const void *buf, u32 byte_len, bool response)
{
	const struct scalio_msg_hdr *h = buf;
	u16 op, flags;
	s32 status;

	BUILD_BUG_ON(sizeof(struct scalio_msg_hdr) != 24);
	BUILD_BUG_ON(sizeof(struct scalio_msg_kv_req) != 64);
	BUILD_BUG_ON(sizeof(struct scalio_msg_kv_rep) != 40);
	BUILD_BUG_ON(sizeof(struct scalio_msg_chunks_rep) != 32);
	BUILD_BUG_ON(sizeof(struct scalio_wire_chunk) != 32);
	BUILD_BUG_ON(sizeof(struct scalio_msg_admit_req) != 336);
	BUILD_BUG_ON(sizeof(struct scalio_msg_admit_rep) != 64);
	BUILD_BUG_ON(sizeof(struct scalio_cm_req) != 56);
	BUILD_BUG_ON(sizeof(struct scalio_cm_rep) != 48);
	BUILD_BUG_ON(sizeof(struct scalio_msg_kv_req) + SCALIO_VALUE_MAX >
		     SCALIO_MSG_SIZE);
	BUILD_BUG_ON(sizeof(struct scalio_msg_kv_rep) + SCALIO_VALUE_MAX >
		     SCALIO_MSG_SIZE);
	BUILD_BUG_ON(sizeof(struct scalio_msg_chunks_rep) +
		     SCALIO_CHUNKS_PER_MSG * sizeof(struct scalio_wire_chunk) >
		     SCALIO_MSG_SIZE);

	if (byte_len > SCALIO_MSG_SIZE)
		return -EMSGSIZE;
	if (byte_len < sizeof(*h))
		return -EBADMSG;
	if (le32_to_cpu(h->len) != byte_len)
		return -EBADMSG;
	op = le16_to_cpu(h->opcode);
	flags = le16_to_cpu(h->flags);
	status = (s32)le32_to_cpu(h->status);
	if (!op || op >= SCALIO_MSG_OP_MAX)
		return -EPROTO;
	if (flags & ~SCALIO_MSG_F_RESPONSE)
		return -EPROTO;
	if (!!(flags & SCALIO_MSG_F_RESPONSE) != response)
		return -EPROTO;
	/* A request's settle mark is the target's to judge, not a format error. */
	if (response && h->settled)
		return -EPROTO;
	if (!response)
		return status ? -EPROTO : scalio_msg_check_req(buf, byte_len, op);
	if (status > 0 || status < -SCALIO_MSG_ERRNO_MAX)
		return -EPROTO;
	return scalio_msg_check_rep(buf, byte_len, op, status != 0);
}

bool scalio_nqn_valid(const char *nqn, size_t len)
{
	size_t i, n;

	if (len > SCALIO_NQN_MAX)
		len = SCALIO_NQN_MAX;
	n = strnlen(nqn, len);
	if (n == len || n < 5 || memcmp(nqn, "nqn.", 4))
		return false;
	for (i = 0; i < n; i++)
		if (nqn[i] <= ' ' || nqn[i] > '~' || nqn[i] == '/')
			return false;
	return true;
}

void scalio_admit_mac_input(u8 *out, const char *label, const u8 *challenge,
			    const u8 *nonce, u16 client_id, const char *store,
			    const char *hostnqn, const u8 *host_id,
			    const struct scalio_conn_bind *bind)
{
	__le16 cid = cpu_to_le16(client_id);
	__le32 qpn;
	size_t off = 0;

	BUILD_BUG_ON(sizeof(SCALIO_ADMIT_LABEL_HOST) > 16);
	BUILD_BUG_ON(sizeof(SCALIO_ADMIT_LABEL_TARGET) > 16);
	memset(out, 0, SCALIO_ADMIT_MAC_INPUT_LEN);
	memcpy(out, label, strnlen(label, 16));
	off += 16;
	memcpy(out + off, challenge, SCALIO_CHALLENGE_LEN);
	off += SCALIO_CHALLENGE_LEN;
	memcpy(out + off, nonce, SCALIO_CHALLENGE_LEN);
	off += SCALIO_CHALLENGE_LEN;
	memcpy(out + off, &cid, sizeof(cid));
	off += 4;
	memcpy(out + off, store, strnlen(store, SCALIO_NAME_MAX - 1));
	off += SCALIO_NAME_MAX;
	memcpy(out + off, hostnqn, strnlen(hostnqn, SCALIO_NQN_MAX - 1));
	off += SCALIO_NQN_MAX;
	memcpy(out + off, host_id, SCALIO_HOSTID_LEN);
	off += SCALIO_HOSTID_LEN;
	memcpy(out + off, bind->host_addr, 16);
	off += 16;
	memcpy(out + off, bind->target_addr, 16);
	off += 16;
	qpn = cpu_to_le32(bind->host_qpn);
	memcpy(out + off, &qpn, 4);
	off += 4;
	qpn = cpu_to_le32(bind->target_qpn);
	memcpy(out + off, &qpn, 4);
}

void scalio_bind_addr(u8 *out, const struct sockaddr *sa)
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
