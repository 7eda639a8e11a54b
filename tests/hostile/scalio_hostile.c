// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_hostile: a client that breaks every rule of the scalio wire
 * protocol on purpose (Documentation/protocol.rst), for the VM suite's
 * 45-hostile test.  It speaks the protocol itself with librdmacm and
 * libibverbs, from user space, using the same wire structs as the modules
 * (common/scalio_proto.h, common/scalio_index.h).
 *
 * Every attack connects on its own, does its damage and disconnects; the
 * test then checks that the target is alive and a well-behaved host still
 * reads every key.  The exit status says whether the attack could be
 * carried out (0), or the target refused it where the protocol says it
 * must (also 0: refusals are printed); 1 means the program itself failed
 * (cannot connect at all, for instance), 2 is a usage error.
 *
 * Usage: scalio_hostile ADDR PORT STORE ATTACK [N]
 *   connect-bad   malformed connect private data, one variant a connect
 *   admit-bad     ADMIT as an unlisted host NQN, and with a wrong HMAC
 *   rpc-bad       each malformed RPC, one per connection
 *   scribble      RDMA WRITE garbage over every byte of every index chunk,
 *                 then try the read-only seg table and header
 *   inval         SEND-with-invalidate of every rkey it was given
 *   inval-key K   SEND-with-invalidate of K, another client's rkey
 *   norecv        requests without ever posting a receive
 *   writeimm      RDMA WRITE with immediate, which takes a receive of the
 *                 target's without filling its buffer
 *   hold N SECS [refused] [STOP]
 *                 N connections that are not admitted, held SECS seconds
 *                 (refused: each sends a refused ADMIT and never takes the
 *                 answer), or with STOP until file STOP exists and the
 *                 target has dropped one of them; says how many the
 *                 target dropped meanwhile
 *   cycles N      N connect + HELLO + disconnect cycles
 *   flood N STOP PAUSE
 *                 N admitted connections under host ids of their own,
 *                 each keeping its queue full of PUTs until file STOP
 *                 exists, idle while file PAUSE exists (47-fair)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/if_alg.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* The wire headers compile in user space (common/scalio_types.h). */
#include "../../common/scalio_proto.h"
#include "../../common/scalio_index.h"
#include "verbs_util.h"

#define MSG	SCALIO_MSG_SIZE
#define NBUF	8		/* send and receive buffers */
#define GARBAGE	(64 * 1024)	/* bytes per RDMA WRITE */
#define HOLD_MAX	16	/* connections of the hold attack */
#define WRITEIMM_ID	99	/* wr_id of writeimm's WRITE (receives: < NBUF) */

struct hc {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;		/* NBUF receive, NBUF send, garbage */
	uint16_t qd;
	uint16_t client_id;
	uint8_t challenge[SCALIO_CHALLENGE_LEN];
	struct scalio_conn_bind bind;	/* for ADMIT */
	bool norepost;		/* norecv: do not repost a used receive */
	bool dropped;		/* the target disconnected (DISCONNECTED seen) */
	uint64_t tag;
	/* from HELLO / CHUNKS */
	uint32_t nr_chunks;
	uint64_t hdr_addr;
	uint32_t hdr_rkey;
	struct scalio_wire_chunk chunks[64];
};

static const char *g_addr, *g_port, *g_store;
/* Admission: the host VM's NQN and secret, our own host id. */
static char g_nqn[SCALIO_NQN_MAX];
static char g_secret[SCALIO_SECRET_MAX + 2];
static size_t g_secret_len;
/*
 * Not the host module's id: an admitted connection with the same id and
 * NQN would retire host1's own connection.
 */
static uint8_t g_host_id[SCALIO_HOSTID_LEN] = {
	0x68, 0x6f, 0x73, 0x74, 0x69, 0x6c, 0x65, 0x2d,
	0x40, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x45,
};

static uint8_t *rbuf(struct hc *c, int i) { return c->buf + i * MSG; }
static uint8_t *sbuf(struct hc *c, int i) { return c->buf + (NBUF + i) * MSG; }
static uint8_t *gbuf(struct hc *c) { return c->buf + 2 * NBUF * MSG; }

static int cm_wait(struct hc *c, enum rdma_cm_event_type want,
		   struct rdma_cm_event *copy)
{
	struct rdma_cm_event *ev;
	int ret;

	if (rdma_get_cm_event(c->ec, &ev))
		return -errno;
	ret = ev->event == want ? 0 : -ECONNREFUSED;
	if (ret)
		fprintf(stderr, "  cm event %s (status %d), wanted %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
	if (copy)
		*copy = *ev;
	if (ev->event == RDMA_CM_EVENT_REJECTED &&
	    ev->param.conn.private_data_len >= sizeof(struct scalio_cm_rej)) {
		const struct scalio_cm_rej *rej = ev->param.conn.private_data;

		fprintf(stderr, "  rejected: status %u\n",
			le16_to_cpu(rej->status));
	}
	rdma_ack_cm_event(ev);
	return ret;
}

static void hc_close(struct hc *c)
{
	if (c->id && c->id->qp) {
		rdma_disconnect(c->id);
		rdma_destroy_qp(c->id);
	}
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ec)
		rdma_destroy_event_channel(c->ec);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int post_recv(struct hc *c, int i)
{
	return vu_post_recv(c->id->qp, rbuf(c, i), MSG, c->mr->lkey, i);
}

/*
 * Connect with @priv (@len bytes) as private data.  @recvs: post the
 * receive buffers.  Return 0, or -ECONNREFUSED when the target refused.
 */
static int hc_connect(struct hc *c, const void *priv, uint8_t len, bool recvs)
{
	struct rdma_conn_param p = { };
	struct ibv_qp_init_attr qa = { };
	struct rdma_cm_event ev;
	struct addrinfo *ai;
	int i, ret;

	memset(c, 0, sizeof(*c));
	c->qd = 4;
	c->ec = rdma_create_event_channel();
	if (!c->ec || rdma_create_id(c->ec, &c->id, NULL, RDMA_PS_TCP))
		return -errno;
	if (getaddrinfo(g_addr, g_port, NULL, &ai))
		return -EINVAL;
	ret = rdma_resolve_addr(c->id, NULL, ai->ai_addr, 2000);
	freeaddrinfo(ai);
	if (ret || cm_wait(c, RDMA_CM_EVENT_ADDR_RESOLVED, NULL))
		return -EHOSTUNREACH;
	if (rdma_resolve_route(c->id, 2000) ||
	    cm_wait(c, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return -EHOSTUNREACH;

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = c->pd ? ibv_create_cq(c->id->verbs, 64, NULL, NULL, 0) : NULL;
	c->buf = aligned_alloc(4096, 2 * NBUF * MSG + GARBAGE);
	if (!c->cq || !c->buf)
		return -ENOMEM;
	c->mr = ibv_reg_mr(c->pd, c->buf, 2 * NBUF * MSG + GARBAGE,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return -errno;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 32;
	qa.cap.max_recv_wr = NBUF;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return -errno;
	for (i = 0; recvs && i < NBUF; i++)
		if (post_recv(c, i))
			return -EIO;

	p.private_data = priv;
	p.private_data_len = len;
	p.responder_resources = 16;
	p.initiator_depth = 16;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect(c->id, &p))
		return -errno;
	ret = cm_wait(c, RDMA_CM_EVENT_ESTABLISHED, &ev);
	if (ret)
		return ret;
	/* From now on the channel is only looked at: see hc_dropped(). */
	fcntl(c->ec->fd, F_SETFL, fcntl(c->ec->fd, F_GETFL) | O_NONBLOCK);
	if (ev.param.conn.private_data_len >= sizeof(struct scalio_cm_rep)) {
		const struct scalio_cm_rep *rep = ev.param.conn.private_data;

		c->qd = le16_to_cpu(rep->queue_depth);
		c->client_id = le16_to_cpu(rep->client_id);
		memcpy(c->challenge, rep->challenge, sizeof(c->challenge));
	}
	vu_conn_bind(&c->bind, c->id, ev.param.conn.qp_num, 1);
	return 0;
}

static void cm_req_fill(struct scalio_cm_req *r, uint16_t qd)
{
	memset(r, 0, sizeof(*r));
	r->magic = cpu_to_le16(SCALIO_PROTO_MAGIC);
	r->major = SCALIO_PROTO_MAJOR;
	r->minor = SCALIO_PROTO_MINOR;
	r->queue_depth = cpu_to_le16(qd);
	snprintf(r->store, sizeof(r->store), "%s", g_store);
	memcpy(r->host_id, g_host_id, sizeof(r->host_id));
}

static int rpc(struct hc *c, uint32_t len, void **rsp);
static struct scalio_msg_hdr *req_hdr(struct hc *c, int i, uint16_t op,
				      uint32_t len);

/* Read a one-line file into @buf, trailing blanks cut; its length or -1. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
		     buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

enum admit_how { ADMIT_OK, ADMIT_UNLISTED, ADMIT_BADMAC };

/*
 * ADMIT as the host VM (@how ADMIT_OK), as a host NQN not in
 * allowed_hosts, or with a proof made with a wrong secret.
 * Return: the response's status, or -errno.
 */
static int admit_build(struct hc *c, enum admit_how how);

static int admit(struct hc *c, enum admit_how how)
{
	int len = admit_build(c, how);

	return len < 0 ? len : rpc(c, len, NULL);
}

/* Build the ADMIT in send buffer 0; its length, or -errno. */
static int admit_build(struct hc *c, enum admit_how how)
{
	struct scalio_msg_admit_req *m;
	uint8_t input[SCALIO_ADMIT_MAC_INPUT_LEN];
	const char *nqn = g_nqn;
	int ret;
	size_t i;

	if (how == ADMIT_UNLISTED)
		nqn = "nqn.2014-08.org.nvmexpress:uuid:deadbeef-0000-4000-8000-000000000bad";
	m = (void *)req_hdr(c, 0, SCALIO_MSG_ADMIT, sizeof(*m));
	memcpy(m->host_id, g_host_id, sizeof(m->host_id));
	snprintf(m->hostnqn, sizeof(m->hostnqn), "%s", nqn);
	for (i = 0; i < sizeof(m->nonce); i++)
		m->nonce[i] = rand();
	if (g_secret_len || how == ADMIT_BADMAC) {
		scalio_admit_mac_input(input, SCALIO_ADMIT_LABEL_HOST,
				       c->challenge, m->nonce, c->client_id,
				       g_store, nqn, g_host_id, &c->bind);
		ret = how == ADMIT_BADMAC ?
		      vu_hmac_sha256("not-the-secret-at-all", 21, input,
				  sizeof(input), m->mac) :
		      vu_hmac_sha256(g_secret, g_secret_len, input,
				  sizeof(input), m->mac);
		if (ret) {
			fprintf(stderr, "  HMAC-SHA256 via AF_ALG: %s\n",
				strerror(-ret));
			return ret;
		}
		m->flags = cpu_to_le32(SCALIO_ADMIT_F_MAC);
	}
	return sizeof(*m);
}

/* Connect asking for queue depth @qd, and ADMIT as the host VM. */
static int hc_open_qd(struct hc *c, uint16_t qd)
{
	struct scalio_cm_req r;
	int ret;

	cm_req_fill(&r, qd);
	ret = hc_connect(c, &r, sizeof(r), true);
	if (!ret) {
		ret = admit(c, ADMIT_OK);
		if (ret)
			fprintf(stderr, "  ADMIT refused: %d\n", ret);
	}
	return ret;
}

static int hc_open(struct hc *c)
{
	return hc_open_qd(c, 4);
}

/*
 * Has the target disconnected @c?  Looks at the CM channel (non-blocking
 * once connected) for DISCONNECTED; once seen, stays true.
 */
static bool hc_dropped(struct hc *c)
{
	struct rdma_cm_event *ev;

	while (!c->dropped && c->ec && !rdma_get_cm_event(c->ec, &ev)) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			c->dropped = true;
		rdma_ack_cm_event(ev);
	}
	return c->dropped;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Give the target up to @ms to drop @c, as an attack that must be
 * dropped for it does before it checks with a request: return as soon
 * as the target has (DISCONNECTED), else after @ms.
 */
static void wait_dropped(struct hc *c, int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!hc_dropped(c) && ms_since(&t0) <= ms)
		usleep(1000);
}

/*
 * Wait for one completion: 0, -EREMOTEIO (an error completion), -EIO,
 * -ETIMEDOUT after @ms, or -ECONNRESET once the target has disconnected
 * and nothing is left to complete.  A completion the target caused
 * before its disconnect is in the CQ before DISCONNECTED reaches us (the
 * CM's request follows the RC packets on the wire, and takes the longer
 * way up), so the CQ is polled once more after DISCONNECTED: a dropped
 * connection ends the wait at once instead of after @ms, and an answer
 * is still seen.
 */
static int poll_one(struct hc *c, struct ibv_wc *wc, int ms)
{
	struct timespec t0;
	bool gone;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		gone = hc_dropped(c);
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n)
			return wc->status == IBV_WC_SUCCESS ? 0 : -EREMOTEIO;
		if (gone)
			return -ECONNRESET;
		if (ms_since(&t0) > ms)
			return -ETIMEDOUT;
		usleep(100);
	}
}

/* Post a SEND of @len bytes from send buffer @i; flags: extra wr options. */
static int send_raw(struct hc *c, int i, uint32_t len,
		    enum ibv_wr_opcode op, uint32_t inv_rkey)
{
	return vu_post_send(c->id->qp, sbuf(c, i), len, c->mr->lkey, 1000 + i,
			    op, inv_rkey);
}

static struct scalio_msg_hdr *req_hdr(struct hc *c, int i, uint16_t op,
				      uint32_t len)
{
	struct scalio_msg_hdr *h = (void *)sbuf(c, i);

	memset(h, 0, len < MSG ? len : MSG);
	h->opcode = cpu_to_le16(op);
	h->len = cpu_to_le32(len);
	h->tag = cpu_to_le64(++c->tag);
	return h;
}

/*
 * Send request buffer 0 (@len bytes) and wait for its response.
 * Return: the response's status, or -errno when the exchange failed.
 */
static int rpc(struct hc *c, uint32_t len, void **rsp)
{
	struct ibv_wc wc;
	int ret, got_send = 0, got_recv = 0, st = 0;

	ret = send_raw(c, 0, len, IBV_WR_SEND, 0);
	if (ret)
		return ret;
	while (!got_send || !got_recv) {
		ret = poll_one(c, &wc, 10000);
		if (ret)
			return ret;
		if (wc.opcode & IBV_WC_RECV) {
			const struct scalio_msg_hdr *h =
				(void *)rbuf(c, wc.wr_id);

			got_recv = 1;
			st = (int32_t)le32_to_cpu(h->status);
			if (rsp)
				*rsp = rbuf(c, wc.wr_id);
			if (!c->norepost)
				post_recv(c, wc.wr_id);
		} else {
			got_send = 1;
		}
	}
	return st;
}

static int hello(struct hc *c)
{
	struct scalio_msg_hello_rep *rep;
	void *r;
	int ret;

	req_hdr(c, 0, SCALIO_MSG_HELLO, sizeof(struct scalio_msg_hdr));
	ret = rpc(c, sizeof(struct scalio_msg_hdr), &r);
	if (ret)
		return ret;
	rep = r;
	c->nr_chunks = le32_to_cpu(rep->nr_chunks);
	c->hdr_addr = le64_to_cpu(rep->hdr_addr);
	c->hdr_rkey = le32_to_cpu(rep->hdr_rkey);
	if (c->nr_chunks > 64)
		c->nr_chunks = 64;	/* plenty for the bed's stores */
	return 0;
}

static int chunks(struct hc *c)
{
	struct scalio_msg_chunks_req *m;
	struct scalio_msg_chunks_rep *rep;
	uint32_t got = 0, nr;
	void *r;
	int ret;

	while (got < c->nr_chunks) {
		m = (void *)req_hdr(c, 0, SCALIO_MSG_CHUNKS, sizeof(*m));
		m->first = cpu_to_le32(got);
		ret = rpc(c, sizeof(*m), &r);
		if (ret)
			return ret;
		rep = r;
		nr = le32_to_cpu(rep->nr);
		if (!nr || nr > c->nr_chunks - got)
			return -EPROTO;
		memcpy(&c->chunks[got], rep->chunk, nr * sizeof(rep->chunk[0]));
		got += nr;
	}
	return 0;
}

static int handshake_qd(struct hc *c, uint16_t qd)
{
	int ret = hc_open_qd(c, qd);

	if (!ret)
		ret = hello(c);
	if (!ret)
		ret = chunks(c);
	if (ret)
		fprintf(stderr, "  handshake failed: %d\n", ret);
	return ret;
}

static int handshake(struct hc *c)
{
	return handshake_qd(c, 4);
}

static int rdma_op(struct hc *c, enum ibv_wr_opcode op, uint64_t raddr,
		   uint32_t rkey, uint32_t len)
{
	struct ibv_wc wc;
	int ret;

	ret = vu_post_rdma(c->id->qp, op, gbuf(c), len, c->mr->lkey, raddr,
			   rkey, 7, 0);
	return ret ? ret : poll_one(c, &wc, 10000);
}

static void garbage(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)random();
}

/* ---- attacks ---------------------------------------------------------- */

static int attack_connect_bad(void)
{
	struct scalio_cm_req r;
	struct hc c;
	int v, ret, fails = 0;

	for (v = 0; v < 8; v++) {
		uint8_t len = sizeof(r);

		cm_req_fill(&r, 4);
		switch (v) {
		case 0: len = 4; break;				/* short */
		case 1: r.magic = cpu_to_le16(0xdead); break;
		case 2: r.major = 99; break;
		case 3: memset(r.store, 'A', sizeof(r.store)); break;
		case 4: r.queue_depth = 0; break;
		case 5: snprintf(r.store, sizeof(r.store), "nosuchstore"); break;
		case 6: r.queue_depth = cpu_to_le16(0xffff); break;
		case 7: memset(r.host_id, 0, sizeof(r.host_id)); break;
		}
		ret = hc_connect(&c, &r, len, true);
		printf("connect-bad variant %d: %s\n", v,
		       ret ? "refused" : "accepted");
		/* Only the huge queue depth is a legal request (clamped). */
		if (!ret && v != 6)
			fails++;
		if (ret && v == 6)
			fails++;
		hc_close(&c);
	}
	return fails ? 1 : 0;
}

/*
 * One malformed request per connection; the target must disconnect us
 * (our next RPC fails) and nothing else.  Returns 1 if the target
 * answered a malformed request as if it were fine.
 */
static int attack_rpc_bad(void)
{
	struct scalio_msg_kv_req *kv;
	struct scalio_msg_hdr *h;
	struct hc c;
	int v, ret, fails = 0, i;

	for (v = 0; v < 10; v++) {
		uint32_t len = sizeof(*kv);

		if (hc_open(&c)) {
			fprintf(stderr, "rpc-bad: cannot connect\n");
			return 1;
		}
		kv = (void *)req_hdr(&c, 0, SCALIO_MSG_GET, sizeof(*kv));
		kv->klen = 4;
		memcpy(kv->key, "abcd", 4);
		h = &kv->hdr;
		switch (v) {
		case 0: h->len = cpu_to_le32(len + 8); break;	/* len != bytes */
		case 1: len = MSG + 1; h->len = cpu_to_le32(len); break;
		case 2: h->opcode = cpu_to_le16(77); break;
		case 3: h->flags = cpu_to_le16(SCALIO_MSG_F_RESPONSE); break;
		case 4: kv->klen = 0; break;
		case 5: kv->klen = 33; break;
		case 6:
			h->opcode = cpu_to_le16(SCALIO_MSG_PUT);
			kv->vlen = cpu_to_le16(4097);
			len = sizeof(*kv) + 4097;
			h->len = cpu_to_le32(len);
			break;
		case 7: h->status = cpu_to_le32(-5); break;
		case 8: break;	/* more requests than the depth, below */
		case 9:
			/* Announcing more company than we may have. */
			h->opcode = cpu_to_le16(SCALIO_MSG_PUT);
			kv->inflight = cpu_to_le16(c.qd + 1);
			break;
		}
		if (v == 8) {
			/* qd + 2 GETs back to back without waiting. */
			for (i = 0; i < c.qd + 2 && i < NBUF; i++) {
				memcpy(sbuf(&c, i), sbuf(&c, 0), len);
				((struct scalio_msg_hdr *)sbuf(&c, i))->tag =
					cpu_to_le64(++c.tag);
				send_raw(&c, i, len, IBV_WR_SEND, 0);
			}
			wait_dropped(&c, 2000);
			/* Drop what the first qd requests got back. */
			{
				struct ibv_wc wc;

				while (ibv_poll_cq(c.cq, 1, &wc) > 0)
					;
			}
			/* Now a fine HELLO must fail: we were disconnected. */
			req_hdr(&c, 0, SCALIO_MSG_HELLO,
				sizeof(struct scalio_msg_hdr));
			ret = rpc(&c, sizeof(struct scalio_msg_hdr), NULL);
		} else {
			ret = rpc(&c, len, NULL);
		}
		printf("rpc-bad variant %d: %s (%d)\n", v,
		       ret < 0 && ret != -ENOENT ? "refused" : "ANSWERED", ret);
		/*
		 * Over the depth is not a sure violation: the target keeps
		 * only qd receives posted, so an extra SEND waits in RNR
		 * until it reposts one, and fast GETs may never overlap.
		 * Surviving it is what counts there.
		 */
		if ((ret == 0 || ret == -ENOENT) && v != 8)
			fails++;
		hc_close(&c);
	}
	return fails ? 1 : 0;
}

/* RDMA WRITE garbage over every byte of every index chunk. */
static int attack_scribble(void)
{
	struct hc c;
	uint64_t total = 0;
	uint32_t i, nb;
	int ret;

	srandom(time(NULL));
	if (handshake(&c))
		return 1;
	for (i = 0; i < c.nr_chunks; i++) {
		const struct scalio_wire_chunk *w = &c.chunks[i];
		uint64_t a = le64_to_cpu(w->addr), off, n;

		nb = le32_to_cpu(w->nr_blocks);
		/* Write until the target refuses (end of the MR). */
		for (off = 0;; off += n) {
			n = GARBAGE;
			garbage(gbuf(&c), n);
			ret = rdma_op(&c, IBV_WR_RDMA_WRITE, a + off,
				      le32_to_cpu(w->rkey), n);
			if (ret)
				break;
			total += n;
		}
		/* The tail below 64 KiB, 4 KiB at a time, on a new QP. */
		hc_close(&c);
		if (handshake(&c))
			return 1;
		for (;; off += 4096) {
			garbage(gbuf(&c), 4096);
			ret = rdma_op(&c, IBV_WR_RDMA_WRITE, a + off,
				      le32_to_cpu(c.chunks[i].rkey), 4096);
			if (ret)
				break;
			total += 4096;
		}
		printf("scribble: chunk %u (%u blocks): %llu bytes of garbage\n",
		       i, nb, (unsigned long long)off);
		hc_close(&c);
		if (handshake(&c))
			return 1;
	}
	printf("scribble: %llu bytes written in all\n",
	       (unsigned long long)total);

	/* The read-only seg table and header must refuse a WRITE. */
	if (c.nr_chunks) {
		ret = rdma_op(&c, IBV_WR_RDMA_WRITE,
			      le64_to_cpu(c.chunks[0].seg_addr),
			      le32_to_cpu(c.chunks[0].seg_rkey), 8);
		printf("scribble: WRITE to the seg table: %s\n",
		       ret ? "refused" : "ACCEPTED");
		if (!ret) {
			hc_close(&c);
			return 1;
		}
		hc_close(&c);
		if (handshake(&c))
			return 1;
	}
	ret = rdma_op(&c, IBV_WR_RDMA_WRITE, c.hdr_addr, c.hdr_rkey, 8);
	printf("scribble: WRITE to the header: %s\n",
	       ret ? "refused" : "ACCEPTED");
	hc_close(&c);
	return ret ? 0 : 1;
}

/*
 * On handshaken connection @c, SEND a HELLO with invalidate of @rkey; the
 * target must drop the connection.  Return: what a later HELLO got (0: the
 * connection is STILL SERVED, else the error that says it was dropped).
 */
static int send_inval(struct hc *c, uint32_t rkey)
{
	struct ibv_wc wc;

	req_hdr(c, 0, SCALIO_MSG_HELLO, sizeof(struct scalio_msg_hdr));
	if (!send_raw(c, 0, sizeof(struct scalio_msg_hdr),
		      IBV_WR_SEND_WITH_INV, rkey))
		poll_one(c, &wc, 10000);
	/* The target must drop us: a later request gets nothing. */
	wait_dropped(c, 1000);
	req_hdr(c, 0, SCALIO_MSG_HELLO, sizeof(struct scalio_msg_hdr));
	return rpc(c, sizeof(struct scalio_msg_hdr), NULL);
}

/*
 * SEND-with-invalidate of every rkey a connection is given, one per
 * connection: each connection handshakes (its own keys) and invalidates
 * its key number i.  The target must drop it; the others are untouched.
 */
static int attack_inval(void)
{
	uint32_t keys[2 * 64 + 1], nk, i = 0, j;
	struct hc c;
	int ret;

	do {
		if (handshake(&c))
			return 1;
		nk = 0;
		keys[nk++] = c.hdr_rkey;
		for (j = 0; j < c.nr_chunks; j++) {
			keys[nk++] = le32_to_cpu(c.chunks[j].rkey);
			keys[nk++] = le32_to_cpu(c.chunks[j].seg_rkey);
		}
		ret = send_inval(&c, keys[i]);
		printf("inval: own rkey %u of %u (0x%x): %s (%d)\n", i + 1, nk,
		       keys[i], ret ? "disconnected" : "STILL SERVED", ret);
		hc_close(&c);
		if (!ret)
			return 1;
	} while (++i < nk);
	return 0;
}

/*
 * SEND-with-invalidate of @rkey, a key given to another client (the test
 * finds it in the target's debug log).  The target must drop this
 * connection and, having found the key's owner, that client's too: the
 * test checks the owner.
 */
static int attack_inval_key(uint32_t rkey)
{
	struct hc c;
	int ret;

	if (handshake(&c))
		return 1;
	ret = send_inval(&c, rkey);
	printf("inval-key: another client's rkey 0x%x: %s (%d)\n", rkey,
	       ret ? "disconnected" : "STILL SERVED", ret);
	hc_close(&c);
	return ret ? 0 : 1;
}

/*
 * READ 8 bytes of region @what of the index from a fresh connection with
 * @rkey, or (@rkey NULL) with that connection's own key; print how the
 * target took it.  A refused access puts the QP in error, hence a new
 * connection for each try.  Return: the READ's result, or 1 when the
 * handshake failed.
 */
enum region { R_CHUNK, R_SEG, R_HDR };

static int read_with(enum region what, const uint32_t *rkey,
		     const char *whose)
{
	static const char *const name[] = { "index", "seg table", "header" };
	uint64_t addr;
	uint32_t own;
	struct hc c;
	int ret;

	if (handshake(&c))
		return 1;
	if (!c.nr_chunks) {
		fprintf(stderr, "stale: the store has no index chunk\n");
		hc_close(&c);
		return 1;
	}
	switch (what) {
	case R_CHUNK:
		addr = le64_to_cpu(c.chunks[0].addr);
		own = le32_to_cpu(c.chunks[0].rkey);
		break;
	case R_SEG:
		addr = le64_to_cpu(c.chunks[0].seg_addr);
		own = le32_to_cpu(c.chunks[0].seg_rkey);
		break;
	default:
		addr = c.hdr_addr;
		own = c.hdr_rkey;
		break;
	}
	ret = rdma_op(&c, IBV_WR_RDMA_READ, addr, rkey ? *rkey : own, 8);
	printf("stale: READ of the %s with %s key 0x%x (own 0x%x): %s (%d)\n",
	       name[what], whose, rkey ? *rkey : own, own,
	       ret ? "refused" : "done", ret);
	hc_close(&c);
	return ret;
}

/*
 * Keys that outlive their connection: READ the index, the seg table and
 * the header with the keys of a connection that has ended, each from a
 * new connection of the same client (same host id: its ADMIT waits until
 * the old connection is gone).  The target must have deregistered them
 * (and a new connection's QP is in another protection domain anyway):
 * every READ is refused, while the same READs with a connection's own
 * keys work.
 */
static int attack_stale(void)
{
	uint32_t old[3];
	int fails = 0;
	struct hc c;

	if (handshake(&c))
		return 1;
	if (!c.nr_chunks) {
		hc_close(&c);
		return 1;
	}
	old[R_CHUNK] = le32_to_cpu(c.chunks[0].rkey);
	old[R_SEG] = le32_to_cpu(c.chunks[0].seg_rkey);
	old[R_HDR] = c.hdr_rkey;
	hc_close(&c);

	for (int r = R_CHUNK; r <= R_HDR; r++) {
		/* 0: done, < 0: refused, 1: no connection. */
		if (read_with(r, NULL, "its own") != 0)
			fails++;
		if (read_with(r, &old[r], "an ended connection's") >= 0)
			fails++;
	}
	return fails ? 1 : 0;
}

/* Requests, but no receive buffer ever posted: responses cannot land. */
static int attack_norecv(void)
{
	struct scalio_cm_req r;
	struct hc c;
	int i;

	cm_req_fill(&r, 4);
	if (hc_connect(&c, &r, sizeof(r), false))
		return 1;
	/* One receive, for the ADMIT response; none after it. */
	c.norepost = true;
	if (post_recv(&c, 0) || admit(&c, ADMIT_OK)) {
		hc_close(&c);
		return 1;
	}
	for (i = 0; i < 4; i++) {
		req_hdr(&c, i, SCALIO_MSG_HELLO, sizeof(struct scalio_msg_hdr));
		send_raw(&c, i, sizeof(struct scalio_msg_hdr), IBV_WR_SEND, 0);
	}
	wait_dropped(&c, 5000);
	printf("norecv: 4 requests sent, no receive posted, %s\n",
	       c.dropped ? "dropped by the target" : "disconnecting");
	hc_close(&c);
	return 0;
}

/*
 * Admission refusals: an NQN not in allowed_hosts (-EACCES) and a proof
 * made with a wrong secret (-EKEYREJECTED).  Each must be refused with
 * that status and the connection dropped: a HELLO after it gets nothing.
 */
static int attack_admit_bad(void)
{
	static const struct {
		enum admit_how how;
		int want;
		const char *what;
	} v[] = {
		{ ADMIT_UNLISTED, -EACCES, "unlisted host NQN" },
		{ ADMIT_BADMAC, -EKEYREJECTED, "wrong HMAC" },
	};
	struct scalio_cm_req r;
	struct hc c;
	uint8_t mac[32];
	int i, ret, ret2, fails = 0;

	/*
	 * The wrong-HMAC variant needs an HMAC of our own: without AF_ALG
	 * the ADMIT is never sent, and that says nothing about the target.
	 */
	ret = vu_hmac_sha256("k", 1, (const uint8_t *)"x", 1, mac);
	if (ret) {
		fprintf(stderr, "admit-bad: cannot run: HMAC-SHA256 via AF_ALG: %s (the kernel needs CONFIG_CRYPTO_USER_API_HASH)\n",
			strerror(-ret));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		cm_req_fill(&r, 4);
		if (hc_connect(&c, &r, sizeof(r), true)) {
			fprintf(stderr, "admit-bad: cannot connect\n");
			return 1;
		}
		ret = admit(&c, v[i].how);
		wait_dropped(&c, 1000);
		req_hdr(&c, 0, SCALIO_MSG_HELLO, sizeof(struct scalio_msg_hdr));
		ret2 = rpc(&c, sizeof(struct scalio_msg_hdr), NULL);
		printf("admit-bad: %s: ADMIT %d (want %d), then HELLO %d: %s\n",
		       v[i].what, ret, v[i].want, ret2,
		       ret == v[i].want && ret2 < 0 && ret2 != -EACCES ?
		       "refused, disconnected" : "LET THROUGH");
		if (ret != v[i].want || ret2 >= 0 || ret2 == -EACCES)
			fails++;
		hc_close(&c);
	}
	return fails ? 1 : 0;
}

/*
 * RDMA WRITE with immediate into the index.  It takes one of the target's
 * posted receives but writes nothing into that buffer, and its completion
 * says how many bytes the WRITE carried (our choice).  A target that
 * parses the buffer would run whatever it held before: here our own last
 * request (a HELLO: with queue depth 1 the target has one receive
 * buffer); on a busy target old heap memory, other clients' requests
 * among it.  The target must drop the connection instead: no answer, and
 * a HELLO after it gets nothing.
 */
static int attack_writeimm(void)
{
	const uint32_t len = sizeof(struct scalio_msg_hdr);
	const struct scalio_msg_hdr *answer = NULL;
	struct ibv_wc wc;
	uint64_t hello_tag;
	bool wrote = false;
	struct hc c;
	int ret;

	if (handshake_qd(&c, 1))
		return 1;
	if (c.qd != 1 || !c.nr_chunks) {
		fprintf(stderr, "writeimm: granted queue depth %u, %u chunks\n",
			c.qd, c.nr_chunks);
		hc_close(&c);
		return 1;
	}
	/* The one receive buffer now holds this HELLO. */
	req_hdr(&c, 0, SCALIO_MSG_HELLO, len);
	hello_tag = c.tag;
	ret = rpc(&c, len, NULL);
	if (ret) {
		fprintf(stderr, "writeimm: HELLO failed: %d\n", ret);
		hc_close(&c);
		return 1;
	}
	/* Zeros over block 0's header, which is reserved and zero. */
	memset(gbuf(&c), 0, len);
	ret = vu_post_rdma(c.id->qp, IBV_WR_RDMA_WRITE_WITH_IMM, gbuf(&c), len,
			   c.mr->lkey, le64_to_cpu(c.chunks[0].addr),
			   le32_to_cpu(c.chunks[0].rkey), WRITEIMM_ID,
			   htonl(0x5ca1));
	if (ret) {
		fprintf(stderr, "writeimm: post: %s\n", strerror(-ret));
		hc_close(&c);
		return 1;
	}
	/*
	 * Our WRITE's completion, and an answer if the target gives one (in
	 * either order; an error completion says only wr_id and status).
	 */
	for (;;) {
		ret = poll_one(&c, &wc, 5000);
		if (ret == -ETIMEDOUT || ret == -EIO || ret == -ECONNRESET)
			break;
		if (wc.wr_id == WRITEIMM_ID) {
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "writeimm: cannot run: the WRITE failed: %s\n",
					ibv_wc_status_str(wc.status));
				hc_close(&c);
				return 1;
			}
			wrote = true;
		} else if (wc.wr_id < NBUF && wc.status == IBV_WC_SUCCESS) {
			answer = (const void *)rbuf(&c, wc.wr_id);
		}
		if (wrote && answer)
			break;
	}
	if (!wrote) {
		fprintf(stderr, "writeimm: cannot run: no completion for the WRITE\n");
		hc_close(&c);
		return 1;
	}
	if (answer) {
		printf("writeimm: the target ANSWERED a request it never received (tag %llu%s, status %d)\n",
		       (unsigned long long)le64_to_cpu(answer->tag),
		       le64_to_cpu(answer->tag) == hello_tag ?
		       ": our last HELLO, parsed again" : "",
		       (int32_t)le32_to_cpu(answer->status));
		hc_close(&c);
		return 1;
	}
	wait_dropped(&c, 1000);
	req_hdr(&c, 0, SCALIO_MSG_HELLO, len);
	ret = rpc(&c, len, NULL);
	printf("writeimm: no answer to the WRITE with immediate, then HELLO %d: %s\n",
	       ret, ret < 0 ? "disconnected" : "STILL SERVED");
	hc_close(&c);
	return ret < 0 ? 0 : 1;
}

/*
 * Hold @n connections that are not admitted for @secs seconds, and report
 * how many of them the target dropped meanwhile.  @refused: each sends an
 * ADMIT the target refuses (an unlisted host NQN) and posts no receive
 * for the answer, so the target can never finish sending it; else none
 * sends anything.  45-hostile sets attr_max_clients to @n and attaches
 * host1 while they are held: the target must make room for it by
 * dropping the oldest of them.  @stop (or NULL): once that file exists
 * (the attach is done) and the target has dropped one of them, there is
 * nothing left to wait for; without a drop the hold lasts @secs.
 */
static int attack_hold(int n, int secs, bool refused, const char *stop)
{
	struct scalio_cm_req r;
	struct hc c[HOLD_MAX];
	bool gone[HOLD_MAX] = { };
	struct rdma_cm_event *ev;
	int i, t, held, dropped = 0;

	if (n < 1 || n > HOLD_MAX || secs < 1) {
		fprintf(stderr, "hold: 1..%d connections, 1 s or more\n",
			HOLD_MAX);
		return 2;
	}
	for (held = 0; held < n; held++) {
		cm_req_fill(&r, 1);
		if (hc_connect(&c[held], &r, sizeof(r), !refused)) {
			fprintf(stderr, "hold: connection %d refused\n", held);
			hc_close(&c[held]);
			break;
		}
		if (refused) {
			int len = admit_build(&c[held], ADMIT_UNLISTED);

			if (len < 0 || send_raw(&c[held], 0, len, IBV_WR_SEND, 0)) {
				fprintf(stderr, "hold: ADMIT %d not sent\n", held);
				hc_close(&c[held]);
				break;
			}
		}
		/* Look for DISCONNECTED without blocking. */
		fcntl(c[held].ec->fd, F_SETFL,
		      fcntl(c[held].ec->fd, F_GETFL) | O_NONBLOCK);
	}
	if (held == n)
		printf("hold: holding %d connections%s\n", n,
		       refused ? ", each with a refused ADMIT it never takes the answer to" : "");
	for (t = 0; held == n && t < 10 * secs; t++) {
		if (stop && dropped && !access(stop, F_OK))
			break;
		for (i = 0; i < n; i++) {
			if (gone[i] || rdma_get_cm_event(c[i].ec, &ev))
				continue;
			if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
				gone[i] = true;
				dropped++;
				printf("hold: connection %d (client %u) dropped by the target\n",
				       i, c[i].client_id);
			}
			rdma_ack_cm_event(ev);
		}
		usleep(100000);
	}
	if (held == n)
		printf("hold: %d of %d dropped by the target in %d.%d s\n",
		       dropped, n, t / 10, t % 10);
	for (i = 0; i < held; i++)
		hc_close(&c[i]);
	return held == n ? 0 : 1;
}

/*
 * flood: @n connections of this host (its NQN and secret), each under a
 * host id of its own, each keeping its whole queue depth of PUTs in
 * flight until @stop exists; none is sent while @pause exists (the
 * measuring side switches it: scalio_hotkey put -P).  Prints how many
 * connections were admitted and how many refused with -EUSERS
 * (attr_max_host_clients), and the PUTs answered.  47-fair runs it.
 */
static int flood_put(struct hc *c, int j, uint64_t *seq)
{
	struct scalio_msg_kv_req *m;
	uint32_t vlen = 256;

	m = (void *)req_hdr(c, j, SCALIO_MSG_PUT, sizeof(*m) + vlen);
	/* the send buffer in the tag's low byte: free again at the answer */
	m->hdr.tag = cpu_to_le64((c->tag << 8) | j);
	m->klen = snprintf((char *)m->key, sizeof(m->key), "flood.%u.%llu",
			   c->client_id, (unsigned long long)(*seq)++ % 4096);
	m->vlen = cpu_to_le16(vlen);
	m->inflight = cpu_to_le16(c->qd);
	memset(m->value, 'f', vlen);
	return send_raw(c, j, sizeof(*m) + vlen, IBV_WR_SEND, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int attack_flood(int n, const char *stop, const char *pause)
{
	static uint64_t sent[HOLD_MAX][NBUF];
	uint64_t *lat = NULL, nlat = 0, cap = 0;
	struct hc c[HOLD_MAX];
	bool up[HOLD_MAX] = { };
	unsigned int busy[HOLD_MAX] = { };	/* send buffers in use, a bit each */
	uint64_t seq = 0, ok = 0, err = 0;
	int i, j, ret, admitted = 0, refused = 0, other = 0;
	struct ibv_wc wc;
	bool paused;

	if (n < 1 || n > HOLD_MAX) {
		fprintf(stderr, "flood: 1..%d connections\n", HOLD_MAX);
		return 2;
	}
	for (i = 0; i < n; i++) {
		g_host_id[SCALIO_HOSTID_LEN - 1] = 0x50 + i;
		ret = hc_open_qd(&c[i], NBUF);
		if (!ret && c[i].qd > NBUF)
			ret = -EPROTO;
		if (ret == -EUSERS)
			refused++;
		else if (ret)
			other++;
		else
			up[i] = true;
		if (!up[i])
			hc_close(&c[i]);
		else
			admitted++;
	}
	printf("flood: %d connections admitted, %d refused with EUSERS, %d failed otherwise\n",
	       admitted, refused, other);
	while (admitted && access(stop, F_OK)) {
		paused = !access(pause, F_OK);
		for (i = 0; i < n; i++) {
			if (!up[i])
				continue;
			while (ibv_poll_cq(c[i].cq, 1, &wc) > 0) {
				const struct scalio_msg_hdr *h;

				if (wc.status != IBV_WC_SUCCESS) {
					up[i] = false;	/* dropped */
					break;
				}
				if (!(wc.opcode & IBV_WC_RECV))
					continue;
				h = (void *)rbuf(&c[i], wc.wr_id);
				if (h->status)
					err++;
				else
					ok++;
				j = le64_to_cpu(h->tag) & 0xff;
				if (j < NBUF && (busy[i] & (1U << j))) {
					if (nlat == cap) {
						cap = cap ? 2 * cap : 65536;
						lat = realloc(lat, cap * sizeof(*lat));
						if (!lat)
							return 1;
					}
					lat[nlat++] = mono_ns() - sent[i][j];
					busy[i] &= ~(1U << j);
				}
				post_recv(&c[i], wc.wr_id);
			}
			for (j = 0; up[i] && !paused && j < c[i].qd; j++) {
				if (busy[i] & (1U << j))
					continue;
				sent[i][j] = mono_ns();
				if (flood_put(&c[i], j, &seq))
					up[i] = false;
				else
					busy[i] |= 1U << j;
			}
		}
		usleep(paused ? 10000 : 100);
	}
	for (i = 0, j = 0; i < n; i++)
		j += up[i];
	printf("flood: %llu PUTs answered ok, %llu with an error; %d of %d connections still up\n",
	       (unsigned long long)ok, (unsigned long long)err, j, admitted);
	if (nlat) {
		qsort(lat, nlat, sizeof(*lat), cmp_u64);
		printf("flood: PUT latency p50 %.2f ms p99 %.2f ms over %llu PUTs\n",
		       lat[nlat / 2] / 1e6, lat[nlat * 99 / 100] / 1e6,
		       (unsigned long long)nlat);
	}
	free(lat);
	for (i = 0; i < n; i++)
		if (up[i])
			hc_close(&c[i]);
	return admitted ? 0 : 1;
}

static int attack_cycles(int n)
{
	struct hc c;
	int i, ok = 0;

	for (i = 0; i < n; i++) {
		if (!hc_open(&c) && (i % 2 || !hello(&c)))
			ok++;
		hc_close(&c);
	}
	printf("cycles: %d of %d connects succeeded\n", ok, n);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr,
			"Usage: scalio_hostile ADDR PORT STORE ATTACK [N]\n"
			"  ATTACK: connect-bad admit-bad rpc-bad scribble inval inval-key RKEY\n"
			"          stale norecv writeimm hold N SECS [refused] [STOP] cycles\n"
			"          flood N STOPFILE PAUSEFILE\n");
		return 2;
	}
	g_addr = argv[1];
	g_port = argv[2];
	g_store = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (read_line("/etc/nvme/hostnqn", g_nqn, sizeof(g_nqn)) <= 0) {
		fprintf(stderr, "no host NQN in /etc/nvme/hostnqn\n");
		return 1;
	}
	if (read_line("/etc/scalio/hostkey", g_secret, sizeof(g_secret)) > 0)
		g_secret_len = strlen(g_secret);
	if (!strcmp(argv[4], "admit-bad"))
		return attack_admit_bad();
	if (!strcmp(argv[4], "connect-bad"))
		return attack_connect_bad();
	if (!strcmp(argv[4], "rpc-bad"))
		return attack_rpc_bad();
	if (!strcmp(argv[4], "scribble"))
		return attack_scribble();
	if (!strcmp(argv[4], "inval"))
		return attack_inval();
	if (!strcmp(argv[4], "inval-key") && argc > 5)
		return attack_inval_key(strtoul(argv[5], NULL, 0));
	if (!strcmp(argv[4], "stale"))
		return attack_stale();
	if (!strcmp(argv[4], "norecv"))
		return attack_norecv();
	if (!strcmp(argv[4], "writeimm"))
		return attack_writeimm();
	if (!strcmp(argv[4], "hold") && argc > 6) {
		bool refused = argc > 7 && !strcmp(argv[7], "refused");
		int stop = 7 + refused;

		return attack_hold(atoi(argv[5]), atoi(argv[6]), refused,
				   argc > stop ? argv[stop] : NULL);
	}
	if (!strcmp(argv[4], "flood") && argc > 7)
		return attack_flood(atoi(argv[5]), argv[6], argv[7]);
	if (!strcmp(argv[4], "cycles"))
		return attack_cycles(argc > 5 ? atoi(argv[5]) : 100);
	fprintf(stderr, "unknown attack %s\n", argv[4]);
	return 2;
}
