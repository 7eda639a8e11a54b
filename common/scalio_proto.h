/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scalio wire protocol between scalio-host and scalio-target (RDMA RC).
 *
 * Connection: the host calls rdma_connect() with struct scalio_cm_req as
 * private data; the target accepts with struct scalio_cm_rep (assigning the
 * client id that the host uses as slot owner, and a fresh random
 * admission challenge) or rejects with struct scalio_cm_rej.  A different
 * major version is rejected; the minor is negotiated as min(host, target).
 *
 * Admission: the first request on a new connection must be ADMIT, naming
 * the host NQN and host id and, if the host has a secret, proving it with
 * HMAC-SHA256(secret, scalio_admit_mac_input()) over the target's
 * challenge, the host's nonce and what both ends see of this connection
 * (struct scalio_conn_bind).  The target answers 0 or -EACCES (NQN not
 * allowed), -ENOKEY (the host has a secret on the target but sent no
 * proof), -EKEYREJECTED (wrong proof, or a proof made on another
 * connection: a relay), and disconnects a refused client.  A host with a
 * secret is admitted only with the target's own proof over the same
 * input (another label) in the answer: the host then knows it reached a
 * target that holds its secret, on this very connection.  Any other request before admission
 * is a protocol violation.  The NQN travels in ADMIT rather than in the
 * connect private data because an IB CM REQ carries only 56 bytes of it
 * (NVMe-oF does the same: its Fabrics Connect command carries the NQN).
 *
 * RPC: every message is one RDMA SEND of at most SCALIO_MSG_SIZE bytes,
 * starting with struct scalio_msg_hdr.  The host may have at most
 * rep.queue_depth requests outstanding; every request gets exactly one
 * response carrying the request's tag.  Both sides keep queue_depth
 * receive buffers posted (the target reposts a receive buffer before it
 * sends the response to the request that used it).
 *
 * Handshake after admission: HELLO (geometry, clock MR), then CHUNKS
 * (paged list of index MRs), then SSD_INFO for each SSD.  Only then may the
 * host touch the index with one-sided operations.
 *
 * Receivers check the received length against the message's fixed part and
 * its length fields before using any of them.
 */
#ifndef _SCALIO_PROTO_H
#define _SCALIO_PROTO_H

#include "scalio_types.h"
#include "../uapi/scalio.h"

#define SCALIO_PROTO_MAGIC	0x5343		/* "SC" */
/*
 * 2: ADMIT and host identity; chunks carry the read-only seg table
 * (index version 2).  3: seg words address 512-byte sectors (index
 * version 3: segments packed in batches).  Minor 1: writes carry the
 * inflight hint (a host sends it only to a target of minor >= 1).  4: seg
 * words per bucket (index version 4; HELLO carries nr_buckets).  5: a
 * segment's records may point to value extents (on-SSD format 5), which a
 * host must follow on a miss; older hosts are refused, not misled.  6:
 * mutual admission bound to the connection (the host's nonce in ADMIT,
 * the target's proof in its answer).  Minor 2: requests carry the host's
 * settle mark (hdr.settled) to a target of SCALIO_F_BLOCK_EPOCH.
 */
#define SCALIO_PROTO_MAJOR	6
#define SCALIO_PROTO_MINOR	2
#define SCALIO_DEFAULT_PORT	4800
#define SCALIO_MSG_SIZE		8192
#define SCALIO_QUEUE_DEPTH_MAX	128
#define SCALIO_HOSTID_LEN	16	/* a UUID, as NVMe's hostid */
#define SCALIO_CHALLENGE_LEN	32
#define SCALIO_MAC_LEN		32	/* HMAC-SHA256 */
/*
 * Local ACK timeout of both ends' QPs, 4.096 us * 2^18 = 1.07 s per try;
 * with the host's retry_count of 7 a peer that stops answering fails the
 * QP after about 8.6 s.  Without it rdma_cm derives the timeout from the
 * RoCE packet lifetime, which differs by kernel (18 in 6.1: 2 to 4 s a
 * try, 17 to 34 s in all; 16 later: about 4 s in all).  Ours rides out a
 * hiccup of a few seconds by retransmission and still declares a dead
 * peer before the host's 10 s RPC timeout, on every kernel; nvme-rdma and
 * nvmet-rdma leave the default (they have no such RPC timeout).
 */
#define SCALIO_RDMA_ACK_TIMEOUT	18

/**
 * struct scalio_cm_req - rdma_connect() private data (host -> target)
 * @magic:	SCALIO_PROTO_MAGIC
 * @major:	SCALIO_PROTO_MAJOR
 * @minor:	SCALIO_PROTO_MINOR
 * @queue_depth: requests the host wants outstanding
 * @reserved:	0
 * @store:	store name, NUL-terminated within SCALIO_NAME_MAX
 * @host_id:	the host's stable identity (a UUID, not all zero): the same
 *		across its reconnects, so the target can finish an old
 *		connection of this host before serving the new one
 *
 * 56 bytes: all an IB CM REQ has room for after the rdma_cm header.
 */
struct scalio_cm_req {
	__le16	magic;
	__u8	major;
	__u8	minor;
	__le16	queue_depth;
	__le16	reserved;
	char	store[SCALIO_NAME_MAX];
	__u8	host_id[SCALIO_HOSTID_LEN];
};

/**
 * struct scalio_cm_rep - accept private data (target -> host)
 * @magic:	SCALIO_PROTO_MAGIC
 * @major:	SCALIO_PROTO_MAJOR
 * @minor:	negotiated minor
 * @queue_depth: granted depth (<= requested)
 * @client_id:	1..SCALIO_MAX_CLIENTS, unique among live connections
 * @reserved:	0
 * @challenge:	random bytes, fresh for every connection: the admission
 *		proof covers them, so a recorded ADMIT is worth nothing
 */
struct scalio_cm_rep {
	__le16	magic;
	__u8	major;
	__u8	minor;
	__le16	queue_depth;
	__le16	client_id;
	__le32	reserved[2];
	__u8	challenge[SCALIO_CHALLENGE_LEN];
};

/**
 * struct scalio_cm_rej - reject private data (target -> host)
 * @magic:	SCALIO_PROTO_MAGIC
 * @status:	positive errno: ENOENT no such store, EPROTO bad version,
 *		EBUSY store disabled, EUSERS no client ids left, EINVAL bad data
 */
struct scalio_cm_rej {
	__le16	magic;
	__le16	status;
};

enum scalio_msg_op {
	SCALIO_MSG_HELLO	= 1,
	SCALIO_MSG_CHUNKS	= 2,
	SCALIO_MSG_SSD_INFO	= 3,
	SCALIO_MSG_GET		= 4,
	SCALIO_MSG_PUT		= 5,
	SCALIO_MSG_DELETE	= 6,
	SCALIO_MSG_STATS	= 7,
	SCALIO_MSG_ADMIT	= 8,
	SCALIO_MSG_KEEPALIVE	= 9,
	SCALIO_MSG_OP_MAX,
};

#define SCALIO_MSG_F_RESPONSE	(1U << 0)

/**
 * struct scalio_msg_hdr - common header of every message
 * @opcode:	enum scalio_msg_op (a response carries the request's opcode)
 * @flags:	SCALIO_MSG_F_*
 * @len:	total message length, header included
 * @tag:	chosen by the host, echoed in the response
 * @status:	response: 0 or a negative errno; request: 0
 * @settled:	request, with SCALIO_F_BLOCK_EPOCH (protocol minor >= 2):
 *		the host's settle mark, the low 32 bits of a tag sequence
 *		number (the tag above its SCALIO_TAG_IDX_BITS): every PUT or
 *		DELETE this host sent on this connection under a smaller
 *		sequence number has been invalidated, or needs no
 *		invalidation.  The target forgets those writes; for the
 *		others, if the connection ends first, it advances the epoch
 *		of their blocks (struct scalio_block_hdr).  0 before that,
 *		and in responses.
 */
struct scalio_msg_hdr {
	__le16	opcode;
	__le16	flags;
	__le32	len;
	__le64	tag;
	__le32	status;
	__le32	settled;
};

/* The tag's low bits name the host's RPC entry, the bits above a sequence. */
#define SCALIO_TAG_IDX_BITS	16

/* The sequence number of a tag, as @settled compares it. */
static inline u32 scalio_tag_seq(u64 tag)
{
	return (u32)(tag >> SCALIO_TAG_IDX_BITS);
}

/* Is sequence number @a before @b (modulo 2^32)? */
static inline bool scalio_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

/* ADMIT request and response flags */
#define SCALIO_ADMIT_F_MAC	(1U << 0)	/* @mac holds a proof */

/**
 * struct scalio_msg_admit_req - ADMIT: who the host is (first request)
 * @hdr:	header
 * @flags:	SCALIO_ADMIT_F_*
 * @reserved:	0
 * @host_id:	as in the connect private data (must be equal)
 * @hostnqn:	host NQN, non-empty, NUL-terminated within SCALIO_NQN_MAX
 * @nonce:	random bytes of the host, fresh for every connection: the
 *		target's proof covers them, so a recorded answer is worth
 *		nothing
 * @mac:	with SCALIO_ADMIT_F_MAC: HMAC-SHA256 keyed with the host's
 *		secret over scalio_admit_mac_input(SCALIO_ADMIT_LABEL_HOST);
 *		else 0
 *
 * The answer is struct scalio_msg_admit_rep.  The secret itself never
 * crosses the wire.
 */
struct scalio_msg_admit_req {
	struct scalio_msg_hdr	hdr;
	__le32	flags;
	__le32	reserved;
	__u8	host_id[SCALIO_HOSTID_LEN];
	char	hostnqn[SCALIO_NQN_MAX];
	__u8	nonce[SCALIO_CHALLENGE_LEN];
	__u8	mac[SCALIO_MAC_LEN];
};

/**
 * struct scalio_msg_admit_rep - the answer to ADMIT
 * @hdr:	header; status 0, -EACCES, -ENOKEY or -EKEYREJECTED (then the
 *		answer may be the bare header)
 * @flags:	SCALIO_ADMIT_F_MAC when the host proved a secret: @mac is
 *		the target's proof of it
 * @reserved:	0
 * @mac:	HMAC-SHA256 keyed with the host's secret over
 *		scalio_admit_mac_input(SCALIO_ADMIT_LABEL_TARGET); else 0
 */
struct scalio_msg_admit_rep {
	struct scalio_msg_hdr	hdr;
	__le32	flags;
	__le32	reserved;
	__u8	mac[SCALIO_MAC_LEN];
};

/**
 * struct scalio_conn_bind - what both ends see of one RDMA connection
 * @host_addr:	the host's IP address (IPv4 as ::ffff:a.b.c.d)
 * @target_addr: the target's
 * @host_qpn:	the host's QP number
 * @target_qpn:	the target's
 *
 * Each end fills it from its own cm_id and QP (the peer's QP number from
 * the CM exchange).  A relay between a host and a target holds two
 * connections, with its own address and QPs in each, so a proof made on
 * one does not check on the other.  Not sent: covered by the proofs.
 */
struct scalio_conn_bind {
	u8	host_addr[16];
	u8	target_addr[16];
	u32	host_qpn;
	u32	target_qpn;
};

/*
 * What the admission MACs cover: a label (which end proves), the
 * connection's challenge, the host's nonce, the client id, the store, the
 * host's NQN and id, and the connection (struct scalio_conn_bind, QP
 * numbers little-endian).  Fixed layout, so both sides build the same
 * bytes.
 */
#define SCALIO_ADMIT_LABEL_HOST		"scalio-admit-h6"
#define SCALIO_ADMIT_LABEL_TARGET	"scalio-admit-t6"
#define SCALIO_ADMIT_MAC_INPUT_LEN	(16 + 2 * SCALIO_CHALLENGE_LEN + 4 + \
					 SCALIO_NAME_MAX + SCALIO_NQN_MAX + \
					 SCALIO_HOSTID_LEN + 2 * 16 + 2 * 4)

/**
 * scalio_admit_mac_input() - lay out the bytes an admission MAC covers
 * @out:	SCALIO_ADMIT_MAC_INPUT_LEN bytes
 * @label:	SCALIO_ADMIT_LABEL_HOST or SCALIO_ADMIT_LABEL_TARGET
 * @challenge:	from struct scalio_cm_rep
 * @nonce:	from struct scalio_msg_admit_req
 * @client_id:	from struct scalio_cm_rep
 * @store:	store name (NUL-terminated, shorter than SCALIO_NAME_MAX)
 * @hostnqn:	host NQN (NUL-terminated, shorter than SCALIO_NQN_MAX)
 * @host_id:	SCALIO_HOSTID_LEN bytes
 * @bind:	the connection as this end sees it
 *
 * Strings are zero-padded to their wire size, so no two different
 * (store, NQN) pairs give the same bytes; the labels differ, so neither
 * end's proof serves as the other's.
 */
void scalio_admit_mac_input(u8 *out, const char *label, const u8 *challenge,
			    const u8 *nonce, u16 client_id, const char *store,
			    const char *hostnqn, const u8 *host_id,
			    const struct scalio_conn_bind *bind);

/**
 * scalio_bind_addr() - an IP address as struct scalio_conn_bind holds it
 * @out:	16 bytes
 * @sa:	AF_INET (stored v4-mapped) or AF_INET6; any other: zeroes
 */
void scalio_bind_addr(u8 *out, const struct sockaddr *sa);

/**
 * scalio_nqn_valid() - is @nqn an acceptable host or subsystem NQN
 * @nqn:	string
 * @len:	bytes available at @nqn
 *
 * Non-empty, NUL-terminated within @len and shorter than SCALIO_NQN_MAX,
 * starting with "nqn.", printable ASCII without blanks or '/'.
 */
bool scalio_nqn_valid(const char *nqn, size_t len);

/*
 * KEEPALIVE: request and response are bare headers.  The target reaps a
 * client that sent nothing for its store's keep-alive timeout (KATO,
 * attr_kato_ms, told in HELLO); hosts send one every KATO / 3 when idle.
 * Limits: SCALIO_KATO_*_MS (uapi/scalio.h).
 */

/* HELLO: request is the bare header. */
struct scalio_msg_hello_rep {
	struct scalio_msg_hdr	hdr;
	__le32	nr_blocks;
	__le32	slots_per_block;
	__le32	block_size;
	__le32	nr_ssds;
	__le32	nr_chunks;
	__le32	features;	/* SCALIO_F_*; a host refuses unknown bits */
	__le64	hdr_addr;	/* struct scalio_index_hdr (clock word) */
	__le32	hdr_rkey;
	__le32	lease_ticks;	/* lease length, target clock ticks */
	__le64	hash_seed;	/* the store's key-hash seed: keep it secret */
	__le32	kato_ms;	/* reaped when silent this long (0: default) */
	__le32	nr_buckets;	/* power of two, nr_blocks..(nr_blocks << 16) */
	__le64	reserved[2];
};

/* CHUNKS: request names the first chunk wanted. */
struct scalio_msg_chunks_req {
	struct scalio_msg_hdr	hdr;
	__le32	first;
	__le32	reserved;
};

/**
 * struct scalio_wire_chunk - one registered piece of the index
 * @addr:	remote address of block @first_block
 * @rkey:	rkey of the MR covering it (read, write, atomic)
 * @nr_blocks:	blocks in this chunk (never split across chunks)
 * @first_block: first block in the chunk
 * @seg_rkey:	rkey of the seg table chunk (read only)
 * @seg_addr:	remote address of the first seg word of block @first_block:
 *		the seg words of the chunk's blocks' buckets, 8 bytes each,
 *		nr_buckets / nr_blocks per block (scalio_bucket_pos())
 */
struct scalio_wire_chunk {
	__le64	addr;
	__le32	rkey;
	__le32	nr_blocks;
	__le32	first_block;
	__le32	seg_rkey;
	__le64	seg_addr;
};

#define SCALIO_CHUNKS_PER_MSG \
	((SCALIO_MSG_SIZE - sizeof(struct scalio_msg_hdr) - 8) / \
	 sizeof(struct scalio_wire_chunk))

struct scalio_msg_chunks_rep {
	struct scalio_msg_hdr	hdr;
	__le32	first;
	__le32	nr;		/* entries that follow */
	struct scalio_wire_chunk chunk[];
};

struct scalio_msg_ssd_info_req {
	struct scalio_msg_hdr	hdr;
	__le32	index;
	__le32	reserved;
};

struct scalio_msg_ssd_info_rep {
	struct scalio_msg_hdr	hdr;
	__le32	index;
	__le32	nsid;
	__le64	capacity_sectors;
	char	nqn[SCALIO_NQN_MAX];
};

/**
 * struct scalio_msg_kv_req - GET, PUT and DELETE requests
 * @hdr:	header
 * @klen:	1..SCALIO_KEY_MAX
 * @flags:	0
 * @vlen:	PUT: 0..SCALIO_VALUE_MAX; GET, DELETE: 0
 * @inflight:	PUT, DELETE (protocol minor >= 1): how many writes to the
 *		key's SSD the host had outstanding on this connection when it
 *		sent this one, itself included; at most the connection's
 *		queue depth.  0: no hint.  GET: 0.  The target's commit
 *		thread waits for that company while it keeps arriving
 *		(bounded by the SSD's write time: common/scalio_batch.h),
 *		so a lone write never waits.
 * @reserved:	0
 * @key:	key bytes (only @klen are meaningful)
 * @value:	PUT only: @vlen bytes
 *
 * hdr.len must equal sizeof(struct scalio_msg_kv_req) + vlen.
 */
struct scalio_msg_kv_req {
	struct scalio_msg_hdr	hdr;
	__u8	klen;
	__u8	flags;
	__le16	vlen;
	__le16	inflight;
	__le16	reserved;
	__u8	key[SCALIO_KEY_MAX];
	__u8	value[];
};

/**
 * struct scalio_msg_kv_rep - response to GET, PUT and DELETE
 * @hdr:	status 0, -ENOENT (GET/DELETE of a missing key), -ENOSPC, -EIO...
 * @seg:	the bucket's seg word the answer is based on
 * @vlen:	GET: value length; else 0
 * @reserved:	0
 * @value:	GET: @vlen bytes
 */
struct scalio_msg_kv_rep {
	struct scalio_msg_hdr	hdr;
	__le64	seg;
	__le16	vlen;
	__le16	reserved[3];
	__u8	value[];
};

/* STATS: request is the bare header; the response carries the counters. */
struct scalio_msg_stats_rep {
	struct scalio_msg_hdr		hdr;
	struct scalio_target_stats	stats;	/* little-endian __u64s */
};

/**
 * scalio_msg_check() - validate a received message before parsing it
 * @buf:	received bytes
 * @byte_len:	what the completion reported
 * @response:	true on the host (expects responses), false on the target
 *
 * Checks the header, that hdr.len equals @byte_len, the opcode, the
 * direction flag, and each opcode's fixed size and length fields (key and
 * value lengths, chunk counts).
 *
 * Return: 0 or -EBADMSG / -EPROTO / -EMSGSIZE.
 */
int scalio_msg_check(const void *buf, u32 byte_len, bool response);

#endif /* _SCALIO_PROTO_H */
