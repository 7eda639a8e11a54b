// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_faketarget: a hostile scalio target, for the VM suite's
 * 46-hostile-target test.  It listens like scalio-target.ko, accepts
 * connections and answers the host module's handshake (ADMIT, HELLO,
 * CHUNKS, SSD_INFO, the one-sided READ of the clock word) and its
 * KEEPALIVEs, but lies in the way each SCENARIO names.  The host module
 * must refuse every lie with an error, never oops, hang or spin.  Same wire
 * structs as the modules (common/scalio_proto.h).
 *
 * Usage: scalio_faketarget PORT SECONDS SCENARIO[=SECONDS]...
 *   Serves one connection per SCENARIO, in order (one vmctl call starts
 *   them all: each costs seconds on the debug lane): each until the host
 *   drops it or SECONDS after it was accepted.  Prints "== SCENARIO" when
 *   it waits for that scenario's connection, "end SCENARIO keepalives N
 *   requests N" when it is over, "done" at the end, and exits 0 (1: it
 *   could not listen or accept, 2: usage).  A connection request while a
 *   scenario's connection is up is kept for the next scenario (the host's
 *   next attach can overtake the end of its last connection); a second
 *   one is rejected (it would be the host's reconnect).
 *
 * Scenarios (each a single lie; "ok" tells none):
 *   ok             a well-formed store: 64 blocks x 8 slots, 128 buckets
 *                  (2 per block), 1 SSD
 *   cm-none cm-magic cm-major cm-qd0 cm-qd-big cm-cid0 cm-cid-big
 *                  malformed accept private data (or none)
 *   hello-short hello-nblocks0 hello-nblocks3 hello-slots5 hello-bsize
 *   hello-nssds0 hello-nssds-big hello-nchunks0 hello-nchunks-big
 *   hello-lease0 hello-lease-big hello-features
 *                  a HELLO answer with a bad geometry or setting
 *   hello-nbuckets0 hello-nbuckets-few hello-nbuckets-npow2
 *   hello-nbuckets-bpb hello-nbuckets-big
 *                  a HELLO answer with a bad bucket count: 0, fewer
 *                  buckets than blocks, not a power of two, more than
 *                  SCALIO_BUCKETS_PER_BLOCK_MAX per block, above
 *                  SCALIO_NR_BUCKETS_MAX (2^24 blocks)
 *   kato-tiny      HELLO tells a 1 ms keep-alive timeout (the host must
 *                  clamp it: at most one KEEPALIVE a second)
 *   chunks-gap chunks-overlap chunks-short-cover chunks-nr-big
 *   chunks-first chunks-len chunks-zero
 *                  a CHUNKS answer that does not tile the table
 *   hello-nblocks-big  2^25 blocks: above SCALIO_NR_BLOCKS_MAX
 *   hello-nchunks-huge 2^31 blocks in 2^31 chunks (64 GiB of host chunk
 *                  table if the host believed it)
 *   hello-nchunks-many 2^24 blocks in 2^17 chunks of 128: a well-formed
 *                  index with more chunks than the host's cap
 *   chunks-one     64 chunks of one block, one chunk per CHUNKS answer,
 *                  each answer 4 s late
 *   chunks-slow chunks-kill
 *                  2^16 chunks of one block in full CHUNKS answers, each
 *                  4 s late: 257 answers, 17 minutes
 *   chunks-rkey    a well-formed store whose second chunk's rkey is wrong:
 *                  the attach succeeds, and a GET's RDMA READ of a block
 *                  of that chunk fails with a remote access error (last:
 *                  the host's reconnect after it must find no scenario)
 *   ssd-index ssd-nqn-unterminated ssd-nqn-bad ssd-short
 *                  a bad SSD_INFO answer
 *   noise-tag noise-stale noise-op noise-flag noise-len noise-status
 *   noise-runt     the HELLO answer is preceded by a copy of it with a tag
 *                  index past the table, a stale use count, another
 *                  opcode, no response flag, a length that lies, a
 *                  positive status, or cut to 8 bytes
 *   noise-replay   the HELLO answer is sent twice
 *   noise-writeimm the HELLO answer is preceded by a zero-byte RDMA WRITE
 *                  with immediate
 *                  (no correct target sends any of these: the host must
 *                  fail the connection, and with it the attach)
 *   oversize       the HELLO answer is one byte larger than a message
 *                  buffer: the host's receive fails, so must the attach
 *   admit-noproof admit-badproof admit-reflect
 *                  ADMIT answered 0 without the target's proof of the
 *                  host's secret, with a wrong one, or with the host's own
 *                  proof sent back as ours (a host with a secret must
 *                  refuse each)
 *   relay          a relay: the host's connect data goes to the real
 *                  target (FT_RELAY, ADDR:PORT, default 10.77.0.1:4800)
 *                  on a connection of our own, its accept data back to
 *                  the host, and the host's ADMIT to it; prints "relay:
 *                  the target answered ADMIT with N" and passes the answer
 *                  on.  The real target must refuse the proof: it was made
 *                  on the host's connection to us, not on ours to it.
 *
 * Otherwise ADMIT is answered with the proof of a target that knows the
 * host's secret: the one in the file FT_KEY (the host's key file; without
 * it a host with a secret refuses every scenario at ADMIT).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../../common/scalio_proto.h"
#include "../../common/scalio_index.h"
#include "verbs_util.h"

#define MSG		SCALIO_MSG_SIZE
#define NRECV		16
#define NSEND		64
#define NR_BLOCKS	64
#define BPB		2	/* buckets per block: seg words per block */
#define SLOTS		8
#define BSIZE		SCALIO_BLOCK_SIZE(SLOTS)
#define SSD_NQN		"nqn.2024-11.io.scalio:faketarget-ssd0"
/* Region: header page, blocks, seg table (BPB words per block). */
#define HDR_OFF		0
#define BLK_OFF		4096
#define SEG_OFF		(BLK_OFF + NR_BLOCKS * BSIZE)
#define REGION		(SEG_OFF + NR_BLOCKS * BPB * 8)

/* relay: our own connection to the real target */
struct relay {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;		/* receive, send */
	struct scalio_cm_rep rep;	/* the target's accept data */
};

struct ft {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen, *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr, *rmr;
	uint8_t *buf;		/* NRECV receive, NSEND send buffers */
	uint8_t *region;	/* what the host reads one-sided */
	unsigned int next_send;
	uint16_t qd, qd_req;
	const char *sc;		/* scenario */
	struct rdma_cm_event *pending;	/* the next scenario's request */
	uint32_t nblocks, nchunks, bpb;	/* what HELLO told */
	unsigned long keepalives, requests;
	bool gone;
	/* admission, as the host sees it through this connection */
	char store[SCALIO_NAME_MAX];
	uint8_t challenge[SCALIO_CHALLENGE_LEN];
	uint16_t client_id;
	struct scalio_conn_bind bind;
	struct relay rl;
};

/* The host's secret (FT_KEY): to answer ADMIT as its target would. */
static uint8_t g_key[SCALIO_SECRET_MAX + 2];
static size_t g_key_len;

static uint8_t *rbuf(struct ft *f, int i) { return f->buf + i * MSG; }
static uint8_t *sbuf(struct ft *f, int i)
{
	return f->buf + NRECV * MSG + i * (MSG + 1);
}

static bool is(const struct ft *f, const char *s) { return !strcmp(f->sc, s); }

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int post_recv(struct ft *f, int i)
{
	return vu_post_recv(f->id->qp, rbuf(f, i), MSG, f->mr->lkey, i);
}

/* SEND @len bytes of @msg (copied into the next send buffer). */
static int send_msg(struct ft *f, const void *msg, uint32_t len)
{
	int i = f->next_send++ % NSEND;

	memcpy(sbuf(f, i), msg, len);
	return vu_post_send(f->id->qp, sbuf(f, i), len, f->mr->lkey, 1000 + i,
			    IBV_WR_SEND, 0);
}

static void rsp_hdr(struct scalio_msg_hdr *h, const struct scalio_msg_hdr *req,
		    uint32_t len, int32_t status)
{
	memset(h, 0, sizeof(*h));
	h->opcode = req->opcode;
	h->flags = cpu_to_le16(SCALIO_MSG_F_RESPONSE);
	h->len = cpu_to_le32(len);
	h->tag = req->tag;
	h->status = cpu_to_le32((uint32_t)status);
}

/*
 * noise-writeimm: a zero-byte RDMA WRITE with immediate (no MR needed).  It
 * takes one of the host's receives and fills nothing.
 */
static void send_writeimm(struct ft *f)
{
	int ret = vu_post_rdma(f->id->qp, IBV_WR_RDMA_WRITE_WITH_IMM, NULL, 0,
			       0, 0, 0, 999, htonl(0x5ca1));

	if (ret)
		printf("noise-writeimm: post failed: %s\n", strerror(-ret));
}

/*
 * noise-*: a malformed or unexpected copy of the HELLO answer @rsp, sent
 * before it (noise-replay: the answer itself again, after it).  No correct
 * target sends any of them: the host must fail the connection.
 */
static void send_noise(struct ft *f, const uint8_t *rsp, uint32_t len)
{
	static uint8_t m[MSG];
	struct scalio_msg_hdr *h = (void *)m;
	uint64_t tag = le64_to_cpu(((const struct scalio_msg_hdr *)rsp)->tag);

	if (is(f, "noise-writeimm")) {
		send_writeimm(f);
		return;
	}
	memcpy(m, rsp, len);
	if (is(f, "noise-tag"))
		h->tag = cpu_to_le64(tag | 0xffff);	/* index past the table */
	else if (is(f, "noise-stale"))
		h->tag = cpu_to_le64(tag + (1ULL << 16)); /* stale use count */
	else if (is(f, "noise-op"))
		h->opcode = cpu_to_le16(SCALIO_MSG_STATS); /* another request's */
	else if (is(f, "noise-flag"))
		h->flags = 0;				/* not a response */
	else if (is(f, "noise-len"))
		h->len = cpu_to_le32(len + 8);		/* longer than sent */
	else if (is(f, "noise-status"))
		h->status = cpu_to_le32(5);		/* not 0 or -errno */
	else if (is(f, "noise-runt"))
		len = 8;
	else
		return;
	send_msg(f, m, len);
}

static void do_hello(struct ft *f, const struct scalio_msg_hdr *req)
{
	static uint8_t m[MSG + 1];
	struct scalio_msg_hello_rep *r = (void *)m;
	uint32_t len = sizeof(*r);

	memset(m, 0, sizeof(m));
	rsp_hdr(&r->hdr, req, len, 0);
	f->nblocks = NR_BLOCKS;
	f->nchunks = 2;
	if (is(f, "hello-nblocks-big")) {
		f->nblocks = 1U << 25;
	} else if (is(f, "hello-nchunks-huge")) {
		f->nblocks = 1U << 31;
		f->nchunks = 1U << 31;
	} else if (is(f, "hello-nchunks-many")) {
		f->nblocks = 1U << 24;
		f->nchunks = 1U << 17;
	} else if (is(f, "hello-nbuckets-big")) {
		f->nblocks = SCALIO_NR_BLOCKS_MAX;
	} else if (is(f, "chunks-one")) {
		f->nchunks = NR_BLOCKS;
	} else if (is(f, "chunks-slow") || is(f, "chunks-kill")) {
		f->nblocks = 1U << 16;
		f->nchunks = 1U << 16;
	}
	/*
	 * BPB buckets per block where that is a valid count; the tables of
	 * 2^31 blocks have none (above SCALIO_NR_BUCKETS_MAX).
	 */
	f->bpb = f->nblocks <= SCALIO_NR_BUCKETS_MAX / BPB ? BPB : 1;
	r->nr_blocks = cpu_to_le32(f->nblocks);
	r->nr_buckets = cpu_to_le32(f->nblocks * f->bpb);
	r->slots_per_block = cpu_to_le32(SLOTS);
	r->block_size = cpu_to_le32(BSIZE);
	r->nr_ssds = cpu_to_le32(1);
	r->nr_chunks = cpu_to_le32(f->nchunks);
	r->features = cpu_to_le32(SCALIO_F_OFFLOAD_READ | SCALIO_F_INLINE_CACHE);
	r->hdr_addr = cpu_to_le64((uintptr_t)f->region + HDR_OFF);
	r->hdr_rkey = cpu_to_le32(f->rmr->rkey);
	r->lease_ticks = cpu_to_le32(2000);
	r->hash_seed = cpu_to_le64(0x5ca1105eedULL);
	r->kato_ms = cpu_to_le32(15000);
	if (is(f, "hello-short"))
		len -= 8;
	else if (is(f, "hello-nblocks0"))
		r->nr_blocks = 0;
	else if (is(f, "hello-nblocks3"))
		r->nr_blocks = cpu_to_le32(3);
	else if (is(f, "hello-slots5"))
		r->slots_per_block = cpu_to_le32(5);
	else if (is(f, "hello-bsize"))
		r->block_size = cpu_to_le32(BSIZE + 64);
	else if (is(f, "hello-nssds0"))
		r->nr_ssds = 0;
	else if (is(f, "hello-nssds-big"))
		r->nr_ssds = cpu_to_le32(SCALIO_MAX_SSDS + 1);
	else if (is(f, "hello-nchunks0"))
		r->nr_chunks = 0;
	else if (is(f, "hello-nchunks-big"))
		r->nr_chunks = cpu_to_le32(NR_BLOCKS + 1);
	else if (is(f, "hello-lease0"))
		r->lease_ticks = 0;
	else if (is(f, "hello-lease-big"))
		r->lease_ticks = cpu_to_le32(1U << 15);
	else if (is(f, "hello-features"))
		r->features |= cpu_to_le32(1U << 7);
	else if (is(f, "hello-nbuckets0"))
		r->nr_buckets = 0;
	else if (is(f, "hello-nbuckets-few"))
		r->nr_buckets = cpu_to_le32(NR_BLOCKS / 2);
	else if (is(f, "hello-nbuckets-npow2"))
		r->nr_buckets = cpu_to_le32(NR_BLOCKS * 3);
	else if (is(f, "hello-nbuckets-bpb"))
		r->nr_buckets = cpu_to_le32(NR_BLOCKS *
					    (SCALIO_BUCKETS_PER_BLOCK_MAX * 2));
	else if (is(f, "hello-nbuckets-big"))
		/* of 2^24 blocks (the most): 32 per block */
		r->nr_buckets = cpu_to_le32(SCALIO_NR_BUCKETS_MAX * 2);
	else if (is(f, "kato-tiny"))
		r->kato_ms = cpu_to_le32(1);
	else if (is(f, "oversize"))
		len = MSG + 1;
	r->hdr.len = cpu_to_le32(len);
	send_noise(f, m, len);
	send_msg(f, m, len);
	if (is(f, "noise-replay"))
		send_msg(f, m, len);
}

/*
 * The chunks HELLO told, as many per answer as a message holds (chunks-one:
 * one): two of 32 blocks for most scenarios (the lies bend the second).
 */
static void do_chunks(struct ft *f, const struct scalio_msg_hdr *req)
{
	static uint8_t m[MSG];
	const struct scalio_msg_chunks_req *cr = (const void *)req;
	struct scalio_msg_chunks_rep *r = (void *)m;
	uint32_t first = le32_to_cpu(cr->first), nr = 0, i, end, per;
	uint32_t len;

	memset(m, 0, sizeof(m));
	per = f->nchunks ? f->nblocks / f->nchunks : 32;
	end = first + (is(f, "chunks-one") ? 1 : SCALIO_CHUNKS_PER_MSG);
	if (end > f->nchunks || end < first)
		end = f->nchunks;
	/* Each answer just in time for the host's 10 s request timeout. */
	if (is(f, "chunks-one") || is(f, "chunks-slow") || is(f, "chunks-kill"))
		sleep(4);
	for (i = first; i < end; i++, nr++) {
		struct scalio_wire_chunk *c = &r->chunk[nr];
		uint32_t fb = i * per;

		c->addr = cpu_to_le64((uintptr_t)f->region + BLK_OFF +
				      (uint64_t)fb * BSIZE);
		c->rkey = cpu_to_le32(f->rmr->rkey);
		c->nr_blocks = cpu_to_le32(per);
		c->first_block = cpu_to_le32(fb);
		c->seg_rkey = cpu_to_le32(f->rmr->rkey);
		/* The seg words of the chunk's blocks' buckets. */
		c->seg_addr = cpu_to_le64((uintptr_t)f->region + SEG_OFF +
					  (uint64_t)fb * f->bpb * 8);
	}
	len = sizeof(*r) + nr * sizeof(r->chunk[0]);
	r->first = cpu_to_le32(first);
	if (nr == 2 && is(f, "chunks-gap"))
		r->chunk[1].first_block = cpu_to_le32(33);
	else if (nr == 2 && is(f, "chunks-overlap"))
		r->chunk[1].first_block = cpu_to_le32(31);
	else if (nr == 2 && is(f, "chunks-short-cover"))
		r->chunk[1].nr_blocks = cpu_to_le32(31);
	else if (nr == 2 && is(f, "chunks-nr-big"))
		r->chunk[1].nr_blocks = cpu_to_le32(NR_BLOCKS);
	else if (is(f, "chunks-first"))
		r->first = cpu_to_le32(first + 1);
	else if (is(f, "chunks-len"))
		nr++;		/* one entry more than sent */
	else if (is(f, "chunks-zero"))
		nr = 0;
	else if (nr == 2 && is(f, "chunks-rkey"))
		/* Same MR index, another key: rxe answers a remote access error. */
		r->chunk[1].rkey = cpu_to_le32(f->rmr->rkey ^ 0xff);
	r->nr = cpu_to_le32(nr);
	rsp_hdr(&r->hdr, req, len, 0);
	send_msg(f, m, len);
}

static void do_ssd_info(struct ft *f, const struct scalio_msg_hdr *req)
{
	static uint8_t m[MSG];
	const struct scalio_msg_ssd_info_req *sr = (const void *)req;
	struct scalio_msg_ssd_info_rep *r = (void *)m;
	uint32_t len = sizeof(*r);

	memset(m, 0, sizeof(m));
	r->index = sr->index;
	r->nsid = cpu_to_le32(1);
	r->capacity_sectors = cpu_to_le64(1 << 21);
	snprintf(r->nqn, sizeof(r->nqn), "%s", SSD_NQN);
	if (is(f, "ssd-index"))
		r->index = cpu_to_le32(le32_to_cpu(sr->index) + 1);
	else if (is(f, "ssd-nqn-unterminated"))
		memset(r->nqn, 'n', sizeof(r->nqn));
	else if (is(f, "ssd-nqn-bad"))
		snprintf(r->nqn, sizeof(r->nqn), "--help /../x");
	else if (is(f, "ssd-short"))
		len = sizeof(*r) - 1;
	rsp_hdr(&r->hdr, req, len, 0);
	send_msg(f, m, len);
}

static int relay_rpc(struct ft *f, const void *msg, uint32_t len, void *out,
		     uint32_t *out_len);

/*
 * ADMIT: as a target that knows the host's secret would answer it (its
 * proof over what this connection shows us), or with the scenario's lie;
 * relay: the real target's answer.
 */
static void do_admit(struct ft *f, const uint8_t *buf, uint32_t len)
{
	const struct scalio_msg_admit_req *req = (const void *)buf;
	static uint8_t out[MSG];
	struct scalio_msg_admit_rep rep;
	uint8_t input[SCALIO_ADMIT_MAC_INPUT_LEN];
	uint32_t out_len = 0;
	int ret;

	if (is(f, "relay")) {
		ret = relay_rpc(f, buf, len, out, &out_len);
		if (ret || out_len < sizeof(struct scalio_msg_hdr)) {
			printf("relay: no answer to ADMIT from the target: %s\n",
			       strerror(ret ? -ret : EPROTO));
			return;
		}
		printf("relay: the target answered ADMIT with %d\n",
		       (int32_t)le32_to_cpu(((struct scalio_msg_hdr *)out)->status));
		fflush(stdout);
		send_msg(f, out, out_len);
		return;
	}
	rsp_hdr(&rep.hdr, &req->hdr, sizeof(rep), 0);
	rep.flags = 0;
	rep.reserved = 0;
	memset(rep.mac, 0, sizeof(rep.mac));
	if (len >= sizeof(*req) && !is(f, "admit-noproof") &&
	    (le32_to_cpu(req->flags) & SCALIO_ADMIT_F_MAC)) {
		rep.flags = cpu_to_le32(SCALIO_ADMIT_F_MAC);
		scalio_admit_mac_input(input, SCALIO_ADMIT_LABEL_TARGET,
				       f->challenge, req->nonce, f->client_id,
				       f->store, req->hostnqn, req->host_id,
				       &f->bind);
		if (is(f, "admit-reflect"))
			memcpy(rep.mac, req->mac, sizeof(rep.mac));
		else if (vu_hmac_sha256(g_key, g_key_len, input, sizeof(input),
					rep.mac))
			printf("admit: no HMAC-SHA256 (AF_ALG)\n");
		if (is(f, "admit-badproof"))
			rep.mac[7] ^= 0x40;
	}
	send_msg(f, &rep, sizeof(rep));
}

static void on_request(struct ft *f, const uint8_t *buf, uint32_t len)
{
	const struct scalio_msg_hdr *req = (const void *)buf;
	struct scalio_msg_hdr rsp;

	f->requests++;
	if (len < sizeof(*req))
		return;
	switch (le16_to_cpu(req->opcode)) {
	case SCALIO_MSG_HELLO:
		do_hello(f, req);
		return;
	case SCALIO_MSG_CHUNKS:
		do_chunks(f, req);
		return;
	case SCALIO_MSG_SSD_INFO:
		do_ssd_info(f, req);
		return;
	case SCALIO_MSG_ADMIT:
		do_admit(f, buf, len);
		return;
	case SCALIO_MSG_KEEPALIVE:
		f->keepalives++;
		rsp_hdr(&rsp, req, sizeof(rsp), 0);
		break;
	default:
		rsp_hdr(&rsp, req, sizeof(rsp), -EOPNOTSUPP);
	}
	send_msg(f, &rsp, sizeof(rsp));
}

static void cm_rep_fill(struct ft *f, struct scalio_cm_rep *rep,
			uint8_t *len)
{
	memset(rep, 0, sizeof(*rep));
	rep->magic = cpu_to_le16(SCALIO_PROTO_MAGIC);
	rep->major = SCALIO_PROTO_MAJOR;
	rep->minor = SCALIO_PROTO_MINOR;
	rep->queue_depth = cpu_to_le16(f->qd);
	rep->client_id = cpu_to_le16(f->client_id);
	memcpy(rep->challenge, f->challenge, sizeof(rep->challenge));
	*len = sizeof(*rep);
	/* The CM pads private data to its fixed size: none reads as zeros. */
	if (is(f, "cm-none"))
		*len = 0;
	else if (is(f, "cm-magic"))
		rep->magic = cpu_to_le16(SCALIO_PROTO_MAGIC + 1);
	else if (is(f, "cm-major"))
		rep->major = SCALIO_PROTO_MAJOR + 1;
	else if (is(f, "cm-qd0"))
		rep->queue_depth = 0;
	else if (is(f, "cm-qd-big"))
		rep->queue_depth = cpu_to_le16(f->qd_req + 1);
	else if (is(f, "cm-cid0"))
		rep->client_id = 0;
	else if (is(f, "cm-cid-big"))
		rep->client_id = cpu_to_le16(SCALIO_MAX_CLIENTS + 1);
}

/* relay: the next CM event of our connection, within 10 s. */
static int relay_event(struct relay *r, enum rdma_cm_event_type want,
		       struct scalio_cm_rep *rep)
{
	struct pollfd pfd = { .fd = r->ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret = 0;

	if (poll(&pfd, 1, 10000) != 1 || rdma_get_cm_event(r->ec, &ev))
		return -ETIMEDOUT;
	if (ev->event != want) {
		printf("relay: %s, waiting for %s\n", rdma_event_str(ev->event),
		       rdma_event_str(want));
		ret = ev->event == RDMA_CM_EVENT_REJECTED ? -ECONNREFUSED :
		      -EPROTO;
	} else if (rep) {
		memset(rep, 0, sizeof(*rep));
		memcpy(rep, ev->param.conn.private_data,
		       ev->param.conn.private_data_len < sizeof(*rep) ?
		       ev->param.conn.private_data_len : sizeof(*rep));
	}
	rdma_ack_cm_event(ev);
	return ret;
}

/*
 * relay: connect to the real target with the host's connect data @req, as
 * if we were the host; its accept data lands in f->rl.rep.
 */
static int relay_connect(struct ft *f, const struct scalio_cm_req *req)
{
	const char *to = getenv("FT_RELAY") ?: "10.77.0.1:4800";
	struct relay *r = &f->rl;
	struct ibv_qp_init_attr qa = { };
	struct rdma_conn_param p = { };
	struct addrinfo *ai;
	char host[64], *port;
	int ret;

	snprintf(host, sizeof(host), "%s", to);
	port = strrchr(host, ':');
	if (!port)
		return -EINVAL;
	*port++ = '\0';
	if (getaddrinfo(host, port, NULL, &ai))
		return -EHOSTUNREACH;
	r->ec = rdma_create_event_channel();
	ret = -errno;
	if (!r->ec || rdma_create_id(r->ec, &r->id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(r->id, NULL, ai->ai_addr, 2000)) {
		freeaddrinfo(ai);
		return ret ?: -EIO;
	}
	freeaddrinfo(ai);
	ret = relay_event(r, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	if (ret || rdma_resolve_route(r->id, 2000))
		return ret ?: -errno;
	ret = relay_event(r, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	if (ret)
		return ret;
	r->pd = ibv_alloc_pd(r->id->verbs);
	r->cq = r->pd ? ibv_create_cq(r->id->verbs, 8, NULL, NULL, 0) : NULL;
	r->buf = aligned_alloc(4096, 2 * MSG);
	if (!r->cq || !r->buf)
		return -ENOMEM;
	r->mr = ibv_reg_mr(r->pd, r->buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE);
	if (!r->mr)
		return -errno;
	qa.send_cq = r->cq;
	qa.recv_cq = r->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(r->id, r->pd, &qa))
		return -errno;
	ret = vu_post_recv(r->id->qp, r->buf, MSG, r->mr->lkey, 0);
	if (ret)
		return ret;
	p.private_data = req;
	p.private_data_len = sizeof(*req);
	p.responder_resources = 16;
	p.initiator_depth = 16;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect(r->id, &p))
		return -errno;
	ret = relay_event(r, RDMA_CM_EVENT_ESTABLISHED, &r->rep);
	if (!ret)
		printf("relay: connected to the target at %s as the host\n", to);
	return ret;
}

/* relay: send @msg to the real target, its answer into @out. */
static int relay_rpc(struct ft *f, const void *msg, uint32_t len, void *out,
		     uint32_t *out_len)
{
	struct relay *r = &f->rl;
	double t0 = now_s();
	struct ibv_wc wc;
	int ret;

	if (!r->id || !r->id->qp || len > MSG)
		return -ENOTCONN;
	memcpy(r->buf + MSG, msg, len);
	ret = vu_post_send(r->id->qp, r->buf + MSG, len, r->mr->lkey, 1,
			   IBV_WR_SEND, 0);
	if (ret)
		return ret;
	while (now_s() - t0 < 10) {
		if (ibv_poll_cq(r->cq, 1, &wc) != 1) {
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return -EIO;
		if (!(wc.opcode & IBV_WC_RECV))
			continue;
		memcpy(out, r->buf, wc.byte_len);
		*out_len = wc.byte_len;
		return 0;
	}
	return -ETIMEDOUT;
}

static void relay_release(struct relay *r)
{
	if (r->id) {
		rdma_disconnect(r->id);
		if (r->id->qp)
			rdma_destroy_qp(r->id);
		rdma_destroy_id(r->id);
	}
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ec)
		rdma_destroy_event_channel(r->ec);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* Set up the accepted @id: PD, CQ, buffers, region, QP; accept it. */
static int accept_conn(struct ft *f, struct rdma_cm_event *ev)
{
	const struct scalio_cm_req *req = ev->param.conn.private_data;
	struct rdma_conn_param p = { };
	struct ibv_qp_init_attr qa = { };
	struct scalio_cm_rep rep;
	struct scalio_index_hdr *ih;
	uint8_t len;
	int i;

	f->id = ev->id;
	if (ev->param.conn.private_data_len < sizeof(*req) ||
	    le16_to_cpu(req->magic) != SCALIO_PROTO_MAGIC) {
		fprintf(stderr, "faketarget: connect without scalio private data\n");
		return -EPROTO;
	}
	f->qd_req = le16_to_cpu(req->queue_depth);
	f->qd = f->qd_req;
	if (f->qd > NRECV)
		f->qd = NRECV;
	memcpy(f->store, req->store, sizeof(f->store));
	f->store[sizeof(f->store) - 1] = '\0';
	f->client_id = 1;
	memset(f->challenge, 0x5a, sizeof(f->challenge));
	if (is(f, "relay")) {
		int ret = relay_connect(f, req);

		if (ret) {
			printf("relay: cannot connect to the target: %s\n",
			       strerror(-ret));
			return ret;
		}
		f->client_id = le16_to_cpu(f->rl.rep.client_id);
		memcpy(f->challenge, f->rl.rep.challenge,
		       sizeof(f->challenge));
		if (f->qd > le16_to_cpu(f->rl.rep.queue_depth))
			f->qd = le16_to_cpu(f->rl.rep.queue_depth);
	}
	f->pd = ibv_alloc_pd(f->id->verbs);
	f->cq = f->pd ? ibv_create_cq(f->id->verbs, 4 * (NRECV + NSEND), NULL,
				      NULL, 0) : NULL;
	f->buf = aligned_alloc(4096, NRECV * MSG + NSEND * (MSG + 1) + 4096);
	f->region = aligned_alloc(4096, REGION + 4096);
	if (!f->cq || !f->buf || !f->region)
		return -ENOMEM;
	memset(f->region, 0, REGION);
	ih = (void *)(f->region + HDR_OFF);
	ih->magic = cpu_to_le64(SCALIO_INDEX_MAGIC);
	ih->version = cpu_to_le32(SCALIO_INDEX_VERSION);
	ih->clock = cpu_to_le64(1000);
	f->mr = ibv_reg_mr(f->pd, f->buf, NRECV * MSG + NSEND * (MSG + 1),
			   IBV_ACCESS_LOCAL_WRITE);
	f->rmr = ibv_reg_mr(f->pd, f->region, REGION,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	if (!f->mr || !f->rmr)
		return -errno;
	qa.send_cq = f->cq;
	qa.recv_cq = f->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = NSEND;
	qa.cap.max_recv_wr = NRECV;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(f->id, f->pd, &qa))
		return -errno;
	for (i = 0; i < NRECV; i++)
		if (post_recv(f, i))
			return -EIO;
	vu_conn_bind(&f->bind, f->id, ev->param.conn.qp_num, 0);
	cm_rep_fill(f, &rep, &len);
	p.private_data = &rep;
	p.private_data_len = len;
	p.responder_resources = 16;
	p.initiator_depth = 16;
	p.rnr_retry_count = 7;
	return rdma_accept(f->id, &p) ? -errno : 0;
}

/* accept_conn(), saying why it failed. */
static int take_conn(struct ft *f, struct rdma_cm_event *ev)
{
	int ret = accept_conn(f, ev);

	if (ret)
		fprintf(stderr, "faketarget: accept: %s\n", strerror(-ret));
	return ret;
}

/* Handle pending CM events without blocking. */
static int cm_events(struct ft *f)
{
	struct rdma_cm_event *ev;
	int ret = 0;

	while (!rdma_get_cm_event(f->ec, &ev)) {
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			/* One connection per scenario; the next one waits. */
			if (f->id && !f->pending) {
				f->pending = ev;	/* acked when served */
				continue;
			}
			if (f->id) {
				struct rdma_cm_id *rid = ev->id;

				/* Destroyed once its event is acked. */
				rdma_reject(rid, NULL, 0);
				rdma_ack_cm_event(ev);
				rdma_destroy_id(rid);
				continue;
			}
			ret = take_conn(f, ev);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			printf("established\n");
			fflush(stdout);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			printf("connection ended: %s\n", rdma_event_str(ev->event));
			f->gone = true;
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
		/* What follows (the next attach) is the next scenario's. */
		if (ret || f->gone)
			return ret;
	}
	return errno == EAGAIN ? 0 : -errno;
}

/* Release the scenario's connection and everything it used. */
static void conn_release(struct ft *f)
{
	if (f->id) {
		rdma_disconnect(f->id);
		if (f->id->qp)
			rdma_destroy_qp(f->id);
		rdma_destroy_id(f->id);
	}
	if (f->rmr)
		ibv_dereg_mr(f->rmr);
	if (f->mr)
		ibv_dereg_mr(f->mr);
	if (f->cq)
		ibv_destroy_cq(f->cq);
	if (f->pd)
		ibv_dealloc_pd(f->pd);
	free(f->buf);
	free(f->region);
	relay_release(&f->rl);
	f->id = NULL;
	f->rmr = NULL;
	f->mr = NULL;
	f->cq = NULL;
	f->pd = NULL;
	f->buf = NULL;
	f->region = NULL;
}

/*
 * Serve scenario f->sc on one connection: wait for it, then until the host
 * drops it or @secs after it was accepted.  Return: 0, or -1 when the CM
 * failed.
 */
static int serve(struct ft *f, double secs)
{
	double t_acc = 0;
	struct ibv_wc wc[16];
	int n, i;

	f->gone = false;
	f->next_send = 0;
	f->keepalives = 0;
	f->requests = 0;
	printf("== %s\n", f->sc);
	fflush(stdout);
	if (f->pending) {
		struct rdma_cm_event *ev = f->pending;
		int ret;

		f->pending = NULL;
		ret = take_conn(f, ev);
		rdma_ack_cm_event(ev);
		if (ret)
			return -1;
	}
	while (!f->gone) {
		struct pollfd pfd = { .fd = f->ec->fd, .events = POLLIN };

		if (cm_events(f))
			return -1;
		if (f->id && f->cq && !t_acc)
			t_acc = now_s();
		if (t_acc && now_s() - t_acc > secs)
			break;
		n = f->cq ? ibv_poll_cq(f->cq, 16, wc) : 0;
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
					printf("completion error: %s\n",
					       ibv_wc_status_str(wc[i].status));
				continue;
			}
			if (!(wc[i].opcode & IBV_WC_RECV))
				continue;
			on_request(f, rbuf(f, wc[i].wr_id), wc[i].byte_len);
			post_recv(f, wc[i].wr_id);
		}
		if (!n)
			poll(&pfd, 1, 1);
	}
	printf("end %s keepalives %lu requests %lu\n", f->sc, f->keepalives,
	       f->requests);
	fflush(stdout);
	conn_release(f);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct ft f = { };
	double secs;
	int a, ret = 0;

	if (argc < 4 || atoi(argv[1]) <= 0 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: %s PORT SECONDS SCENARIO[=SECONDS]...\n",
			argv[0]);
		return 2;
	}
	sin.sin_port = htons(atoi(argv[1]));
	if (getenv("FT_KEY")) {
		FILE *kf = fopen(getenv("FT_KEY"), "re");

		if (kf) {
			g_key_len = fread(g_key, 1, sizeof(g_key) - 1, kf);
			fclose(kf);
		}
		/* As scalioctl reads a key file: trailing blanks cut. */
		while (g_key_len && (g_key[g_key_len - 1] == '\n' ||
				     g_key[g_key_len - 1] == '\r' ||
				     g_key[g_key_len - 1] == ' '))
			g_key_len--;
		if (!g_key_len)
			fprintf(stderr, "faketarget: FT_KEY %s: no secret\n",
				getenv("FT_KEY"));
	}
	f.ec = rdma_create_event_channel();
	if (!f.ec || rdma_create_id(f.ec, &f.listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(f.listen, (struct sockaddr *)&sin) ||
	    rdma_listen(f.listen, 4)) {
		perror("faketarget: listen");
		return 1;
	}
	fcntl(f.ec->fd, F_SETFL, fcntl(f.ec->fd, F_GETFL) | O_NONBLOCK);
	printf("listening on port %s\n", argv[1]);
	fflush(stdout);

	for (a = 3; a < argc && !ret; a++) {
		char *eq = strchr(argv[a], '=');

		secs = atof(argv[2]);
		if (eq) {
			*eq = '\0';
			if (atof(eq + 1) > 0)
				secs = atof(eq + 1);
		}
		f.sc = argv[a];
		if (serve(&f, secs))
			ret = 1;
	}
	conn_release(&f);
	if (f.pending) {
		struct rdma_cm_id *rid = f.pending->id;

		rdma_reject(rid, NULL, 0);
		rdma_ack_cm_event(f.pending);
		rdma_destroy_id(rid);
	}
	printf("done\n");
	rdma_destroy_id(f.listen);
	rdma_destroy_event_channel(f.ec);
	return ret;
}
