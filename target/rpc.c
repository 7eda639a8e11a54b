// SPDX-License-Identifier: GPL-2.0
/*
 * scalio target RPC: receive buffers, request validation and dispatch, and
 * responses.
 *
 * Every connection keeps queue_depth receive buffers posted.  A received
 * request is validated (scalio_msg_check() and the checks below), copied
 * into a request context (struct scalio_tgt_rpc) and its buffer is reposted
 * before anything else happens, so the client may send its next request as
 * soon as it has our response.  PUT and DELETE go to the store's group
 * commit and are answered from its done() callback in the commit kthread;
 * GET and the handshake messages run in a work item because they sleep.
 * Each request gets exactly one SEND in response; the context is free
 * again when that SEND completed.
 *
 * A client that sends something malformed, or more requests than its queue
 * depth, or anything but ADMIT before it is admitted, is disconnected.  A
 * connection serves at most one handshake request (ADMIT, HELLO, CHUNKS,
 * SSD_INFO) at a time: another one meanwhile is answered -EBUSY.
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "rdma.h"
#include "trace.h"

static void scalio_tgt_rpc_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void scalio_tgt_rpc_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void scalio_tgt_rpc_work(struct work_struct *w);
static void scalio_tgt_rpc_start(struct scalio_tgt_rpc *rpc,
				 struct scalio_tgt_rbuf *rb);

static inline struct ib_device *scalio_tgt_conn_ibdev(struct scalio_tgt_conn *conn)
{
	return conn->rdev->ibdev;
}

static inline u16 scalio_tgt_rpc_op(const struct scalio_tgt_rpc *rpc)
{
	const struct scalio_msg_hdr *h = (const void *)rpc->req;

	return le16_to_cpu(h->opcode);
}

static inline u64 scalio_tgt_rpc_tag(const struct scalio_tgt_rpc *rpc)
{
	const struct scalio_msg_hdr *h = (const void *)rpc->req;

	return le64_to_cpu(h->tag);
}

/* The host's settle mark (settle.c): every request carries one. */
static inline u32 scalio_tgt_rpc_settled(const struct scalio_tgt_rpc *rpc)
{
	const struct scalio_msg_hdr *h = (const void *)rpc->req;

	return le32_to_cpu(h->settled);
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */

/**
 * scalio_tgt_rpc_free() - unmap and free the buffers of a connection
 * @conn:	connection whose QP is gone (or never got past INIT)
 *
 * Safe on a partially allocated connection.
 */
static void scalio_tgt_rpc_free(struct scalio_tgt_conn *conn)
{
	struct ib_device *ibdev = scalio_tgt_conn_ibdev(conn);
	u32 i;

	if (conn->rbufs) {
		for (i = 0; i < conn->queue_depth; i++) {
			struct scalio_tgt_rbuf *rb = &conn->rbufs[i];

			if (!rb->buf)
				continue;
			ib_dma_unmap_single(ibdev, rb->dma, SCALIO_MSG_SIZE,
					    DMA_FROM_DEVICE);
			kfree(rb->buf);
		}
		kfree(conn->rbufs);
		conn->rbufs = NULL;
	}
	if (conn->rpcs) {
		for (i = 0; i < conn->nr_rpcs; i++) {
			struct scalio_tgt_rpc *rpc = &conn->rpcs[i];

			kfree(rpc->req);
			if (!rpc->rsp)
				continue;
			ib_dma_unmap_single(ibdev, rpc->rsp_dma,
					    SCALIO_MSG_SIZE, DMA_TO_DEVICE);
			kfree(rpc->rsp);
		}
		kfree(conn->rpcs);
		conn->rpcs = NULL;
	}
	kfree(conn->flows);
	conn->flows = NULL;
	INIT_LIST_HEAD(&conn->free_rpcs);
	INIT_LIST_HEAD(&conn->parked);
}

/* Allocate and DMA-map one buffer; NULL on failure (nothing to undo). */
static void *scalio_tgt_rpc_map_buf(struct ib_device *ibdev, u64 *dma,
				    enum dma_data_direction dir, gfp_t gfp)
{
	/* Zeroed: what a peer can make us send or parse is never old heap. */
	void *buf = kzalloc(SCALIO_MSG_SIZE, gfp);

	if (!buf)
		return NULL;
	*dma = ib_dma_map_single(ibdev, buf, SCALIO_MSG_SIZE, dir);
	if (ib_dma_mapping_error(ibdev, *dma)) {
		kfree(buf);
		return NULL;
	}
	return buf;
}

/*
 * Give an rpc its request and response buffers on its first use.  Free
 * rpcs are reused last-in first-out, so a client holds buffers for about
 * as many requests as it keeps in flight, not for its whole queue depth.
 * Any context (a CQ handler, the commit kthread): no sleeping.
 */
static int scalio_tgt_rpc_bufs(struct scalio_tgt_rpc *rpc)
{
	struct ib_device *ibdev = scalio_tgt_conn_ibdev(rpc->conn);
	gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;

	if (rpc->req)
		return 0;
	rpc->rsp = scalio_tgt_rpc_map_buf(ibdev, &rpc->rsp_dma, DMA_TO_DEVICE,
					  gfp);
	if (!rpc->rsp)
		return -ENOMEM;
	rpc->req = kmalloc(SCALIO_RPC_REQ_MAX, gfp);
	if (!rpc->req) {
		ib_dma_unmap_single(ibdev, rpc->rsp_dma, SCALIO_MSG_SIZE,
				    DMA_TO_DEVICE);
		kfree(rpc->rsp);
		rpc->rsp = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * scalio_tgt_rpc_alloc() - allocate the receive buffers and request contexts
 * @conn:	new connection (queue_depth, nr_rpcs, rdev set)
 *
 * Return: 0 or -ENOMEM (everything undone).
 */
static int scalio_tgt_rpc_alloc(struct scalio_tgt_conn *conn)
{
	struct ib_device *ibdev = scalio_tgt_conn_ibdev(conn);
	u32 i;

	conn->rbufs = kcalloc(conn->queue_depth, sizeof(*conn->rbufs),
			      GFP_KERNEL);
	if (!conn->rbufs)
		goto out_free;
	for (i = 0; i < conn->queue_depth; i++) {
		struct scalio_tgt_rbuf *rb = &conn->rbufs[i];

		rb->conn = conn;
		rb->cqe.done = scalio_tgt_rpc_recv_done;
		INIT_LIST_HEAD(&rb->entry);
		rb->buf = scalio_tgt_rpc_map_buf(ibdev, &rb->dma,
						 DMA_FROM_DEVICE, GFP_KERNEL);
		if (!rb->buf)
			goto out_free;
	}

	/* its queues at the store's commit threads (fair shares) */
	conn->flows = scalio_tgt_flows_alloc(GFP_KERNEL);
	if (!conn->flows)
		goto out_free;
	conn->rpcs = kcalloc(conn->nr_rpcs, sizeof(*conn->rpcs), GFP_KERNEL);
	if (!conn->rpcs)
		goto out_free;
	for (i = 0; i < conn->nr_rpcs; i++) {
		struct scalio_tgt_rpc *rpc = &conn->rpcs[i];

		rpc->conn = conn;
		rpc->cqe.done = scalio_tgt_rpc_send_done;
		INIT_WORK(&rpc->work, scalio_tgt_rpc_work);
		/* Buffers come with the first use: scalio_tgt_rpc_bufs(). */
		list_add_tail(&rpc->entry, &conn->free_rpcs);
	}
	return 0;

out_free:
	scalio_tgt_rpc_free(conn);
	return -ENOMEM;
}

static int scalio_tgt_rpc_post_recv(struct scalio_tgt_conn *conn,
				    struct scalio_tgt_rbuf *rb)
{
	struct ib_sge sge = {
		.addr	= rb->dma,
		.length	= SCALIO_MSG_SIZE,
		.lkey	= conn->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rb->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};
	unsigned long flags;
	int ret = -ENOTCONN;

	ib_dma_sync_single_for_device(scalio_tgt_conn_ibdev(conn), rb->dma,
				      SCALIO_MSG_SIZE, DMA_FROM_DEVICE);
	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state == SCALIO_CONN_LIVE)
		ret = ib_post_recv(conn->qp, &wr, NULL);
	spin_unlock_irqrestore(&conn->lock, flags);
	return ret;
}

/**
 * scalio_tgt_rpc_post_recvs() - post every receive buffer of a new connection
 * @conn:	connection whose QP is in INIT
 *
 * Return: 0 or a negative errno.
 */
static int scalio_tgt_rpc_post_recvs(struct scalio_tgt_conn *conn)
{
	u32 i;
	int ret;

	for (i = 0; i < conn->queue_depth; i++) {
		ret = scalio_tgt_rpc_post_recv(conn, &conn->rbufs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Request contexts and responses                                      */
/* ------------------------------------------------------------------ */

static void scalio_tgt_rpc_violation(struct scalio_tgt_conn *conn,
				     const char *why, int err)
{
	pr_warn_ratelimited("store %s, client %u: %s (%d), disconnecting\n",
			    conn->st->name, conn->client_id, why, err);
	scalio_tgt_conn_disconnect(conn);
}

/*
 * Give an rpc back.  While the connection is live a request parked for
 * want of a free rpc takes it over (with its connection reference);
 * otherwise the rpc's reference on the connection goes.
 */
static void scalio_tgt_rpc_put(struct scalio_tgt_rpc *rpc)
{
	struct scalio_tgt_conn *conn = rpc->conn;
	struct scalio_tgt_rbuf *rb = NULL;
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state == SCALIO_CONN_LIVE && !list_empty(&conn->parked)) {
		rb = list_first_entry(&conn->parked, struct scalio_tgt_rbuf,
				      entry);
		list_del_init(&rb->entry);
	} else {
		list_add(&rpc->entry, &conn->free_rpcs);
	}
	spin_unlock_irqrestore(&conn->lock, flags);

	if (rb)
		scalio_tgt_rpc_start(rpc, rb);
	else
		scalio_tgt_conn_put(conn);
}

/* Drop a request without answering it (the connection is going away). */
static void scalio_tgt_rpc_drop(struct scalio_tgt_rpc *rpc)
{
	struct scalio_tgt_conn *conn = rpc->conn;
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->nr_active--;
	spin_unlock_irqrestore(&conn->lock, flags);
	scalio_tgt_rpc_put(rpc);
}

/* Start a response of @len bytes: zeroed, header echoing the request. */
static void *scalio_tgt_rpc_rsp(struct scalio_tgt_rpc *rpc, size_t len)
{
	const struct scalio_msg_hdr *req = (const void *)rpc->req;
	struct scalio_msg_hdr *h = rpc->rsp;

	memset(rpc->rsp, 0, len);
	h->opcode = req->opcode;
	h->flags = cpu_to_le16(SCALIO_MSG_F_RESPONSE);
	h->tag = req->tag;
	return rpc->rsp;
}

/**
 * scalio_tgt_rpc_respond() - send the response built in rpc->rsp
 * @rpc:	request context; owned by the send completion afterwards
 * @status:	0 or a negative errno
 * @len:	response length
 *
 * Any context (the commit kthread, a work item, a CQ handler).  Do not
 * touch @rpc or its connection after this returns.
 */
static void scalio_tgt_rpc_respond(struct scalio_tgt_rpc *rpc, int status,
				   u32 len)
{
	struct scalio_tgt_conn *conn = rpc->conn;
	struct scalio_msg_hdr *h = rpc->rsp;
	struct ib_sge sge = {
		.addr	= rpc->rsp_dma,
		.length	= len,
		.lkey	= conn->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &rpc->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};
	unsigned long flags;
	int ret = -ENOTCONN;

	/* The wire carries 0 or -1..-4095 only. */
	if (status > 0 || status < -4095)
		status = -EIO;
	h->len = cpu_to_le32(len);
	h->status = cpu_to_le32((u32)status);
	ib_dma_sync_single_for_device(scalio_tgt_conn_ibdev(conn), rpc->rsp_dma,
				      len, DMA_TO_DEVICE);

	/* The client cannot send its next handshake step before this. */
	if (rpc->ctrl) {
		rpc->ctrl = false;
		clear_bit(0, &conn->ctrl_busy);
	}
	spin_lock_irqsave(&conn->lock, flags);
	conn->nr_active--;
	if (conn->state == SCALIO_CONN_LIVE)
		ret = ib_post_send(conn->qp, &wr, NULL);
	if (!ret && !conn->sends_inflight++)
		conn->tx_progress = jiffies;
	spin_unlock_irqrestore(&conn->lock, flags);

	if (ret) {
		if (ret != -ENOTCONN) {
			pr_err_ratelimited("client %u: cannot send a response: %d\n",
					   conn->client_id, ret);
			scalio_tgt_conn_disconnect(conn);
		}
		scalio_tgt_rpc_put(rpc);
	}
}

/* An error response to a non-KV request is a bare header. */
static void scalio_tgt_rpc_respond_err(struct scalio_tgt_rpc *rpc, int err)
{
	scalio_tgt_rpc_rsp(rpc, sizeof(struct scalio_msg_hdr));
	scalio_tgt_rpc_respond(rpc, err, sizeof(struct scalio_msg_hdr));
}

static void scalio_tgt_rpc_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_tgt_rpc *rpc = container_of(wc->wr_cqe,
						  struct scalio_tgt_rpc,
						  cqe);
	struct scalio_tgt_conn *conn = rpc->conn;
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->sends_inflight--;
	conn->tx_progress = jiffies;
	spin_unlock_irqrestore(&conn->lock, flags);
	/* A refused host has its answer: now it goes. */
	if (READ_ONCE(conn->refused))
		scalio_tgt_conn_disconnect(conn);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("client %u: response failed: %s (%d)\n",
					    rpc->conn->client_id,
					    ib_wc_status_msg(wc->status),
					    wc->status);
		scalio_tgt_conn_disconnect(rpc->conn);
	}
	scalio_tgt_rpc_put(rpc);
}

/* ------------------------------------------------------------------ */
/* Handlers                                                            */
/* ------------------------------------------------------------------ */

/* Runs in the commit kthread once the batch is durable (or failed). */
static void scalio_tgt_rpc_write_done(struct scalio_tgt_treq *t, int status)
{
	struct scalio_tgt_rpc *rpc = container_of(t, struct scalio_tgt_rpc,
						  treq);
	struct scalio_tgt_store *st = rpc->conn->st;
	struct scalio_msg_kv_rep *rep;
	u64 t0 = ktime_get_ns();

	rep = scalio_tgt_rpc_rsp(rpc, sizeof(*rep));
	if (!status) {
		rep->seg = cpu_to_le64(t->seg);
		/* owed until the host says it invalidated (settle.c) */
		scalio_tgt_settle_record(rpc->conn, scalio_tgt_rpc_tag(rpc),
					 t->bucket);
	}
	scalio_tgt_stat_add(st, SCALIO_TS_CPU_NS_RPC, ktime_get_ns() - t0);
	trace_scalio_tgt_rpc_write(st, rpc->conn->client_id, t->op, status,
				   t->taken_ns ? t->taken_ns - t->arrival_ns : 0,
				   t0 - t->arrival_ns);
	scalio_tgt_rpc_respond(rpc, status, sizeof(*rep));
}

static void scalio_tgt_rpc_write(struct scalio_tgt_rpc *rpc, u16 op)
{
	const struct scalio_msg_kv_req *m = (const void *)rpc->req;
	struct scalio_tgt_treq *t = &rpc->treq;
	struct scalio_tgt_store *st = rpc->conn->st;

	memset(t, 0, sizeof(*t));
	INIT_LIST_HEAD(&t->entry);
	t->op = op;
	t->klen = m->klen;
	t->vlen = le16_to_cpu(m->vlen);
	t->inflight = le16_to_cpu(m->inflight);
	memcpy(t->key, m->key, m->klen);
	/* The value stays in rpc->req, ours until done() ran. */
	t->value = m->value;
	t->arrival_ns = ktime_get_ns();
	t->done = scalio_tgt_rpc_write_done;
	t->flows = rpc->conn->flows;

	scalio_tgt_stat_add(st, op == SCALIO_MSG_PUT ? SCALIO_TS_RPC_PUTS :
			    SCALIO_TS_RPC_DELETES, 1);
	scalio_tgt_store_write(st, t);
}

static void scalio_tgt_rpc_get(struct scalio_tgt_rpc *rpc)
{
	const struct scalio_msg_kv_req *m = (const void *)rpc->req;
	struct scalio_tgt_store *st = rpc->conn->st;
	struct scalio_msg_kv_rep *rep;
	u64 t0 = ktime_get_ns(), t_io, seg = 0;
	u32 vlen = 0;
	int ret;

	rep = scalio_tgt_rpc_rsp(rpc, sizeof(*rep));
	t_io = ktime_get_ns();
	ret = scalio_tgt_store_read(st, m->key, m->klen, rep->value, &vlen,
				    &seg);
	/* Waiting for the SSD is not CPU time of the handler. */
	t_io = ktime_get_ns() - t_io;
	if (!ret && vlen > SCALIO_VALUE_MAX)
		ret = -EIO;
	if (ret)
		vlen = 0;
	if (!ret || ret == -ENOENT)
		rep->seg = cpu_to_le64(seg);
	rep->vlen = cpu_to_le16(vlen);
	scalio_tgt_stat_add(st, SCALIO_TS_CPU_NS_RPC,
			    ktime_get_ns() - t0 - t_io);
	/* Arguments are evaluated even when the event is off: hash only on. */
	if (trace_scalio_tgt_rpc_get_enabled())
		trace_scalio_tgt_rpc_get(st, rpc->conn->client_id,
					 scalio_key_hash(st->hash_seed, m->key,
							 min_t(u32, m->klen,
							       SCALIO_KEY_MAX)),
					 ret, vlen, ktime_get_ns() - t0);
	scalio_tgt_rpc_respond(rpc, ret, sizeof(*rep) + vlen);
}

#ifdef SCALIO_TEST_HOOKS
/*
 * Hold an admitted connection this long before it is identified: tests
 * remove its host from allowed_hosts in that window.
 */
static unsigned int scalio_tgt_debug_admit_delay_ms;
module_param_named(debug_admit_delay_ms, scalio_tgt_debug_admit_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(debug_admit_delay_ms,
		 "TESTING ONLY: sleep this many ms between deciding an ADMIT and identifying the client");

static void scalio_tgt_admit_hook(struct scalio_tgt_conn *conn)
{
	unsigned int ms = READ_ONCE(scalio_tgt_debug_admit_delay_ms);

	if (!ms)
		return;
	pr_info("store %s: test hook: client %u admitted, held %u ms before it is identified\n",
		conn->st->name, conn->client_id, ms);
	msleep(ms);
}
#else
static inline void scalio_tgt_admit_hook(struct scalio_tgt_conn *conn) { }
#endif

static void scalio_tgt_rpc_admit(struct scalio_tgt_rpc *rpc)
{
	const struct scalio_msg_admit_req *m = (const void *)rpc->req;
	struct scalio_tgt_conn *conn = rpc->conn;
	struct scalio_tgt_store *st = conn->st;
	bool proof = le32_to_cpu(m->flags) & SCALIO_ADMIT_F_MAC;
	enum scalio_tgt_admit_how how = SCALIO_TGT_ADMIT_SECRET;
	struct scalio_msg_admit_rep *rep;
	u8 tmac[SCALIO_MAC_LEN];
	int ret, tries = 0;
	u64 gen;

	if (memcmp(m->host_id, conn->host_id, sizeof(conn->host_id))) {
		pr_warn_ratelimited("store %s: host %s refused: host id differs from the connect data\n",
				    st->name, m->hostnqn);
		ret = -EINVAL;
	} else {
		/*
		 * Decided again if a host is removed before it counts, or
		 * later if the accept is not finished yet (microseconds).
		 */
		for (;;) {
			gen = scalio_tgt_ctl_hosts_gen(conn);
			ret = scalio_tgt_admit(st, m->hostnqn, conn->host_id,
					       conn->challenge, m->nonce,
					       conn->client_id, &conn->bind,
					       proof ? m->mac : NULL, tmac,
					       &how);
			if (ret)
				break;
			if (!tries)
				scalio_tgt_admit_hook(conn);
			ret = scalio_tgt_ctl_identify(conn, m->hostnqn, gen);
			if (ret != -EAGAIN)
				break;
			if (++tries == 50) {
				ret = -EBUSY;	/* the host retries */
				break;
			}
			msleep(20);
		}
	}
	trace_scalio_tgt_admit(st, conn->client_id, m->hostnqn, proof, ret);
	if (ret) {
		WRITE_ONCE(conn->refused, true);
		scalio_tgt_rpc_respond_err(rpc, ret);
		return;
	}
	WRITE_ONCE(conn->admit, SCALIO_ADMIT_DONE);
	/* Every time, once decided: an operator must see who gets in so. */
	if (how == SCALIO_TGT_ADMIT_ANY_HOST)
		pr_warn("store %s: host %s admitted without a secret: attr_allow_any_host is set\n",
			st->name, m->hostnqn);
	else if (how == SCALIO_TGT_ADMIT_NQN_ALONE)
		pr_warn("store %s: host %s admitted by its NQN alone: no secret is set for it\n",
			st->name, m->hostnqn);
	pr_info("store %s: client %u admitted: host %s%s\n", st->name,
		conn->client_id, m->hostnqn,
		how == SCALIO_TGT_ADMIT_SECRET ? " (secret proven; ours sent back)" :
		"");
	rep = scalio_tgt_rpc_rsp(rpc, sizeof(*rep));
	if (how == SCALIO_TGT_ADMIT_SECRET) {
		rep->flags = cpu_to_le32(SCALIO_ADMIT_F_MAC);
		memcpy(rep->mac, tmac, sizeof(rep->mac));
	}
	memzero_explicit(tmac, sizeof(tmac));
	scalio_tgt_rpc_respond(rpc, 0, sizeof(*rep));
}

static void scalio_tgt_rpc_hello(struct scalio_tgt_rpc *rpc)
{
	struct scalio_tgt_conn *conn = rpc->conn;
	struct scalio_tgt_store *st = conn->st;
	struct scalio_tgt_index *idx = &st->index;
	struct scalio_msg_hello_rep *rep;
	u32 features = 0;
	u64 lease, t0;
	int ret;

	/* May sleep until the connection's index MRs are valid. */
	ret = scalio_tgt_conn_register(conn);
	if (ret) {
		scalio_tgt_rpc_respond_err(rpc, ret);
		return;
	}
	/*
	 * A reconnecting client invalidates the keys of writes its lost
	 * connection left unsettled right after this handshake: they must
	 * all be answered (durable, seg updated) by then.  Busy: it retries.
	 */
	ret = scalio_tgt_store_write_barrier(st,
					     msecs_to_jiffies(SCALIO_HELLO_BARRIER_MS));
	if (ret) {
		scalio_tgt_rpc_respond_err(rpc,
					   ret == -ETIMEDOUT ? -EBUSY : ret);
		return;
	}

	t0 = ktime_get_ns();
	if (st->offload_read)
		features |= SCALIO_F_OFFLOAD_READ;
	/*
	 * Fill tokens: every host of a caching store must publish
	 * with them, and a host that does not know the bit refuses the HELLO
	 * (scalio_host_hello()), so all attached hosts switch together.
	 */
	if (st->inline_cache)
		features |= SCALIO_F_INLINE_CACHE | SCALIO_F_FILL_TOKEN |
			    SCALIO_F_BLOCK_EPOCH;
	lease = div_u64((u64)st->lease_ms * SCALIO_CLOCK_HZ, 1000);
	lease = clamp_t(u64, lease, 1, U32_MAX);

	rep = scalio_tgt_rpc_rsp(rpc, sizeof(*rep));
	rep->nr_blocks = cpu_to_le32(idx->nr_blocks);
	rep->slots_per_block = cpu_to_le32(idx->slots);
	rep->block_size = cpu_to_le32(idx->block_size);
	rep->nr_ssds = cpu_to_le32(st->nr_ssds);
	rep->nr_chunks = cpu_to_le32(idx->nr_chunks);
	rep->features = cpu_to_le32(features);
	rep->hdr_addr = cpu_to_le64(0);	/* zero-based */
	rep->hdr_rkey = cpu_to_le32(conn->mrs[SCALIO_REGION_HDR(conn->rdev->nr_chunks)].rkey);
	rep->lease_ticks = cpu_to_le32((u32)lease);
	rep->hash_seed = cpu_to_le64(st->hash_seed);
	rep->kato_ms = cpu_to_le32(st->kato_ms);
	rep->nr_buckets = cpu_to_le32(idx->nr_buckets);
	scalio_tgt_stat_add(st, SCALIO_TS_CPU_NS_RPC, ktime_get_ns() - t0);
	scalio_tgt_rpc_respond(rpc, 0, sizeof(*rep));
}

static void scalio_tgt_rpc_chunks(struct scalio_tgt_rpc *rpc)
{
	const struct scalio_msg_chunks_req *m = (const void *)rpc->req;
	struct scalio_tgt_conn *conn = rpc->conn;
	struct scalio_tgt_rdev *rdev = conn->rdev;
	struct scalio_tgt_index *idx = &conn->st->index;
	struct scalio_msg_chunks_rep *rep;
	u32 first = le32_to_cpu(m->first), nr, i;
	u64 t0;
	int ret;

	ret = scalio_tgt_conn_register(conn);
	if (ret) {
		scalio_tgt_rpc_respond_err(rpc, ret);
		return;
	}
	/* first == nr_chunks is a valid, empty page. */
	if (first > rdev->nr_chunks) {
		scalio_tgt_rpc_respond_err(rpc, -EINVAL);
		return;
	}

	t0 = ktime_get_ns();
	nr = min_t(u32, rdev->nr_chunks - first, SCALIO_CHUNKS_PER_MSG);
	rep = scalio_tgt_rpc_rsp(rpc, struct_size(rep, chunk, nr));
	rep->first = cpu_to_le32(first);
	rep->nr = cpu_to_le32(nr);
	for (i = 0; i < nr; i++) {
		const struct scalio_tgt_index_chunk *ic = &idx->chunks[first + i];
		const struct scalio_tgt_cmr *mr = &conn->mrs[first + i];
		const struct scalio_tgt_cmr *smr =
			&conn->mrs[SCALIO_REGION_SEG(rdev->nr_chunks,
						     first + i)];

		/* Zero-based MRs (scalio_tgt_conn_alloc_mrs()). */
		rep->chunk[i].addr = cpu_to_le64(0);
		rep->chunk[i].rkey = cpu_to_le32(mr->rkey);
		rep->chunk[i].seg_addr = cpu_to_le64(0);
		rep->chunk[i].seg_rkey = cpu_to_le32(smr->rkey);
		rep->chunk[i].nr_blocks = cpu_to_le32(ic->nr_blocks);
		rep->chunk[i].first_block = cpu_to_le32(ic->first_block);
	}
	scalio_tgt_stat_add(conn->st, SCALIO_TS_CPU_NS_RPC,
			    ktime_get_ns() - t0);
	scalio_tgt_rpc_respond(rpc, 0, struct_size(rep, chunk, nr));
}

static void scalio_tgt_rpc_ssd_info(struct scalio_tgt_rpc *rpc)
{
	const struct scalio_msg_ssd_info_req *m = (const void *)rpc->req;
	struct scalio_tgt_store *st = rpc->conn->st;
	struct scalio_msg_ssd_info_rep *rep;
	u32 index = le32_to_cpu(m->index);
	struct scalio_tgt_ssd *ssd;
	u64 t0 = ktime_get_ns();

	if (index >= st->nr_ssds || index >= SCALIO_MAX_SSDS ||
	    !st->ssds[index]) {
		scalio_tgt_rpc_respond_err(rpc, -EINVAL);
		return;
	}
	ssd = st->ssds[index];
	if (!ssd->nqn[0]) {
		scalio_tgt_rpc_respond_err(rpc, -ENOENT);
		return;
	}

	rep = scalio_tgt_rpc_rsp(rpc, sizeof(*rep));
	rep->index = cpu_to_le32(index);
	rep->nsid = cpu_to_le32(ssd->nsid);
	rep->capacity_sectors = cpu_to_le64(ssd->capacity_sectors);
	strscpy(rep->nqn, ssd->nqn, sizeof(rep->nqn));
	scalio_tgt_stat_add(st, SCALIO_TS_CPU_NS_RPC, ktime_get_ns() - t0);
	scalio_tgt_rpc_respond(rpc, 0, sizeof(*rep));
}

static void scalio_tgt_rpc_stats(struct scalio_tgt_rpc *rpc)
{
	struct scalio_tgt_store *st = rpc->conn->st;
	struct scalio_msg_stats_rep *rep;
	struct scalio_target_stats s;
	const u64 *src = (const u64 *)&s;
	__le64 *dst;
	u64 t0 = ktime_get_ns();
	u32 i;

	BUILD_BUG_ON(sizeof(s) % sizeof(u64));
	memset(&s, 0, sizeof(s));
	scalio_tgt_store_stats(st, &s);

	rep = scalio_tgt_rpc_rsp(rpc, sizeof(*rep));
	dst = (__le64 *)&rep->stats;
	for (i = 0; i < sizeof(s) / sizeof(u64); i++)
		dst[i] = cpu_to_le64(src[i]);
	scalio_tgt_stat_add(st, SCALIO_TS_CPU_NS_RPC, ktime_get_ns() - t0);
	scalio_tgt_rpc_respond(rpc, 0, sizeof(*rep));
}

static void scalio_tgt_rpc_work(struct work_struct *w)
{
	struct scalio_tgt_rpc *rpc = container_of(w, struct scalio_tgt_rpc,
						  work);

	switch (scalio_tgt_rpc_op(rpc)) {
	case SCALIO_MSG_GET:
		scalio_tgt_rpc_get(rpc);
		break;
	case SCALIO_MSG_ADMIT:
		scalio_tgt_rpc_admit(rpc);
		break;
	case SCALIO_MSG_HELLO:
		scalio_tgt_rpc_hello(rpc);
		break;
	case SCALIO_MSG_CHUNKS:
		scalio_tgt_rpc_chunks(rpc);
		break;
	case SCALIO_MSG_SSD_INFO:
		scalio_tgt_rpc_ssd_info(rpc);
		break;
	case SCALIO_MSG_STATS:
		scalio_tgt_rpc_stats(rpc);
		break;
	default:
		/* scalio_tgt_rpc_dispatch() only queues the opcodes above. */
		scalio_tgt_rpc_respond_err(rpc, -EOPNOTSUPP);
		break;
	}
}

/*
 * What the handlers rely on beyond scalio_msg_check(): bounds of the key
 * and value lengths and the exact request length.
 */
static int scalio_tgt_rpc_validate(const struct scalio_tgt_rpc *rpc, u16 op)
{
	const struct scalio_msg_kv_req *m = (const void *)rpc->req;
	u32 vlen;

	switch (op) {
	case SCALIO_MSG_GET:
	case SCALIO_MSG_PUT:
	case SCALIO_MSG_DELETE:
		if (rpc->req_len < sizeof(*m))
			return -EBADMSG;
		vlen = le16_to_cpu(m->vlen);
		if (!m->klen || m->klen > SCALIO_KEY_MAX ||
		    vlen > SCALIO_VALUE_MAX ||
		    (op != SCALIO_MSG_PUT && vlen) ||
		    rpc->req_len != sizeof(*m) + vlen)
			return -EBADMSG;
		/*
		 * The commit thread waits for the company a hint announces:
		 * no client may announce more than it may have outstanding
		 * (scalio_msg_check() already refused a hint on a GET).
		 */
		if (le16_to_cpu(m->inflight) > rpc->conn->queue_depth)
			return -EPROTO;
		return 0;
	case SCALIO_MSG_CHUNKS:
		return rpc->req_len == sizeof(struct scalio_msg_chunks_req) ?
		       0 : -EBADMSG;
	case SCALIO_MSG_SSD_INFO:
		return rpc->req_len == sizeof(struct scalio_msg_ssd_info_req) ?
		       0 : -EBADMSG;
	case SCALIO_MSG_ADMIT:
		return rpc->req_len == sizeof(struct scalio_msg_admit_req) ?
		       0 : -EBADMSG;
	case SCALIO_MSG_HELLO:
	case SCALIO_MSG_STATS:
	case SCALIO_MSG_KEEPALIVE:
		return 0;
	}
	return -EPROTO;
}

/*
 * Admission gate: ADMIT first and once, nothing else before it is done.
 * Return: 0, or -EACCES for a protocol violation.
 */
static int scalio_tgt_rpc_gate(struct scalio_tgt_conn *conn, u16 op)
{
	if (op == SCALIO_MSG_ADMIT)
		return cmpxchg(&conn->admit, SCALIO_ADMIT_NONE,
			       SCALIO_ADMIT_PENDING) == SCALIO_ADMIT_NONE ?
		       0 : -EACCES;
	return READ_ONCE(conn->admit) == SCALIO_ADMIT_DONE ? 0 : -EACCES;
}

static bool scalio_tgt_rpc_is_ctrl(u16 op)
{
	return op == SCALIO_MSG_ADMIT || op == SCALIO_MSG_HELLO ||
	       op == SCALIO_MSG_CHUNKS || op == SCALIO_MSG_SSD_INFO;
}

static void scalio_tgt_rpc_dispatch(struct scalio_tgt_rpc *rpc)
{
	struct scalio_tgt_conn *conn = rpc->conn;
	u16 op = scalio_tgt_rpc_op(rpc);
	int ret;

	ret = scalio_tgt_rpc_validate(rpc, op);
	if (ret) {
		scalio_tgt_rpc_violation(conn, "invalid request", ret);
		scalio_tgt_rpc_drop(rpc);
		return;
	}
	ret = scalio_tgt_rpc_gate(conn, op);
	if (ret) {
		scalio_tgt_rpc_violation(conn, op == SCALIO_MSG_ADMIT ?
					 "a second ADMIT" :
					 "a request before admission", ret);
		scalio_tgt_rpc_drop(rpc);
		return;
	}
	scalio_tgt_settle_mark(conn, scalio_tgt_rpc_settled(rpc));
	if (scalio_tgt_rpc_is_ctrl(op)) {
		if (test_and_set_bit(0, &conn->ctrl_busy)) {
			scalio_tgt_rpc_respond_err(rpc, -EBUSY);
			return;
		}
		rpc->ctrl = true;
	}

	switch (op) {
	case SCALIO_MSG_PUT:
	case SCALIO_MSG_DELETE:
		scalio_tgt_rpc_write(rpc, op);
		break;
	case SCALIO_MSG_GET:
		scalio_tgt_stat_add(conn->st, SCALIO_TS_RPC_GETS, 1);
		queue_work(conn->rs->wq, &rpc->work);
		break;
	case SCALIO_MSG_KEEPALIVE:
		scalio_tgt_rpc_respond_err(rpc, 0);
		break;
	default:
		scalio_tgt_stat_add(conn->st, SCALIO_TS_RPC_OTHER, 1);
		queue_work(conn->rs->wq, &rpc->work);
		break;
	}
}

/*
 * Take a received request into @rpc (which holds a connection reference),
 * give the receive buffer back to the HCA, and run the request.
 */
static void scalio_tgt_rpc_start(struct scalio_tgt_rpc *rpc,
				 struct scalio_tgt_rbuf *rb)
{
	struct scalio_tgt_conn *conn = rpc->conn;
	int ret;

	if (scalio_tgt_rpc_bufs(rpc)) {
		scalio_tgt_rpc_violation(conn, "no memory for a request",
					 -ENOMEM);
		scalio_tgt_rpc_drop(rpc);
		return;
	}
	memcpy(rpc->req, rb->buf, rb->byte_len);
	rpc->req_len = rb->byte_len;

	ret = scalio_tgt_rpc_post_recv(conn, rb);
	if (ret) {
		if (ret != -ENOTCONN) {
			pr_err_ratelimited("client %u: cannot repost a receive: %d\n",
					   conn->client_id, ret);
			scalio_tgt_conn_disconnect(conn);
		}
		scalio_tgt_rpc_drop(rpc);
		return;
	}
	scalio_tgt_rpc_dispatch(rpc);
}

static void scalio_tgt_rpc_handle_recv(struct scalio_tgt_conn *conn,
				       struct scalio_tgt_rbuf *rb)
{
	struct scalio_tgt_rpc *rpc = NULL;
	unsigned long flags;
	int ret;

	ib_dma_sync_single_for_cpu(scalio_tgt_conn_ibdev(conn), rb->dma,
				   SCALIO_MSG_SIZE, DMA_FROM_DEVICE);
	ret = scalio_msg_check(rb->buf, rb->byte_len, false);
	if (ret) {
		scalio_tgt_rpc_violation(conn, "malformed message", ret);
		return;
	}
	if (rb->byte_len > SCALIO_RPC_REQ_MAX) {
		scalio_tgt_rpc_violation(conn, "oversized request", -EMSGSIZE);
		return;
	}

	WRITE_ONCE(conn->last_rx, jiffies);
	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state != SCALIO_CONN_LIVE) {
		spin_unlock_irqrestore(&conn->lock, flags);
		return;
	}
	if (conn->nr_active >= conn->queue_depth) {
		spin_unlock_irqrestore(&conn->lock, flags);
		scalio_tgt_rpc_violation(conn, "more requests than the queue depth",
					 -EOVERFLOW);
		return;
	}
	conn->nr_active++;
	if (!list_empty(&conn->free_rpcs)) {
		rpc = list_first_entry(&conn->free_rpcs, struct scalio_tgt_rpc,
				       entry);
		list_del_init(&rpc->entry);
	} else {
		/*
		 * Every rpc waits for its SEND completion: the client got
		 * our answers before we saw them complete.  Wait for one.
		 */
		list_add_tail(&rb->entry, &conn->parked);
	}
	spin_unlock_irqrestore(&conn->lock, flags);

	if (rpc) {
		kref_get(&conn->ref);
		scalio_tgt_rpc_start(rpc, rb);
	}
}

static void scalio_tgt_rpc_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_tgt_rbuf *rb = container_of(wc->wr_cqe,
						  struct scalio_tgt_rbuf,
						  cqe);
	struct scalio_tgt_conn *conn = rb->conn;
	u64 t0 = ktime_get_ns();

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("client %u: receive failed: %s (%d)\n",
					    conn->client_id,
					    ib_wc_status_msg(wc->status),
					    wc->status);
		scalio_tgt_conn_disconnect(conn);
		return;
	}
	/*
	 * The protocol never invalidates anything: a client that does is
	 * hostile or broken, and may have killed another client's index MR.
	 */
	if (unlikely(wc->wc_flags & IB_WC_WITH_INVALIDATE)) {
		scalio_tgt_rdev_invalidated(conn->rdev, wc->ex.invalidate_rkey);
		scalio_tgt_rpc_violation(conn, "SEND with invalidate", -EACCES);
		return;
	}
	/*
	 * Only a SEND fills the buffer.  An RDMA WRITE with immediate into an
	 * index MR takes a receive too, and its byte_len would have us parse
	 * whatever the buffer held before: an old request, or heap memory.
	 */
	if (unlikely(wc->opcode != IB_WC_RECV)) {
		scalio_tgt_rpc_violation(conn, "RDMA WRITE with immediate",
					 -EACCES);
		return;
	}
	rb->byte_len = wc->byte_len;
	scalio_tgt_rpc_handle_recv(conn, rb);
	/* The CQ (and so conn and its store) outlives this handler. */
	scalio_tgt_stat_add(conn->st, SCALIO_TS_CPU_NS_RPC,
			    ktime_get_ns() - t0);
}

const struct scalio_tgt_msg_ops scalio_tgt_rpc_ops = {
	.alloc		= scalio_tgt_rpc_alloc,
	.post_recvs	= scalio_tgt_rpc_post_recvs,
	.free		= scalio_tgt_rpc_free,
};
