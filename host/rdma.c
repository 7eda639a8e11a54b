// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-host transport: the verbs side of one RC connection per store.
 *
 * The connection carries two kinds of traffic on one QP:
 *   - tagged RPCs (SEND/RECV): a tag table of queue_depth entries, each
 *     with its own DMA-mapped send buffer; responses land in posted receive
 *     buffers and are copied into the tag's private buffer before the
 *     receive is reposted;
 *   - one-sided READ, WRITE and compare-and-swap on the target's index,
 *     from DMA-mapped bounce pages (struct scalio_host_io) taken from a pool.
 * Every work request has its own ib_cqe; completions wake the waiting
 * thread.  A waiter never hangs: RPCs time out, and a lost connection
 * (disconnect, fatal completion, timeout of a one-sided op) moves the QP to
 * the error state, which flushes every posted request, and fails every
 * RPC waiter with -ENOTCONN.  A message no correct target sends (malformed,
 * a runt, an answer to no request in flight) fails the connection too, as
 * nvme-rdma starts error recovery on a completion it cannot match; the
 * waiters then get -EPROTO.
 *
 * This file knows nothing of the protocol above it nor of the connection's
 * lifecycle (conn.c): a failure only marks the connection dead and queues
 * conn->fail_work, which conn.c set up.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/slab.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>

#include "scalio_host.h"

/* ------------------------------------------------------------------ */
/* failure                                                             */

/* Drop one reference of an RPC entry; conn->rpc_lock held. */
static void __scalio_host_rpc_unref(struct scalio_host_conn *conn,
				    struct scalio_host_rpc *rpc)
{
	if (WARN_ON_ONCE(atomic_read(&rpc->refs) <= 0))
		return;
	if (atomic_dec_and_test(&rpc->refs)) {
		rpc->state = SCALIO_RPC_FREE;
		list_add_tail(&rpc->entry, &conn->rpc_free);
		wake_up(&conn->rpc_wq);
	}
}

/**
 * scalio_host_rpc_fail_all() - fail every RPC still waiting for its response
 * @conn:	connection that is gone (its QP stopped)
 *
 * The waiters get -EPROTO when the target broke the protocol on it
 * (scalio_host_conn_violation()), else -ENOTCONN.
 */
void scalio_host_rpc_fail_all(struct scalio_host_conn *conn)
{
	int err = scalio_host_conn_dead_err(conn);
	unsigned long flags;
	u32 i;

	if (!conn->rpcs)
		goto wake;
	spin_lock_irqsave(&conn->rpc_lock, flags);
	for (i = 0; i < conn->qd_req; i++) {
		struct scalio_host_rpc *rpc = &conn->rpcs[i];

		if (!rpc->rsp_pending)
			continue;
		rpc->rsp_pending = false;
		if (rpc->state == SCALIO_RPC_WAITING) {
			rpc->status = err;
			rpc->state = SCALIO_RPC_DONE;
			complete(&rpc->done);
		}
		__scalio_host_rpc_unref(conn, rpc);
	}
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
wake:
	wake_up_all(&conn->rpc_wq);
	wake_up_all(&conn->io_wq);
}

/**
 * scalio_host_conn_fail() - declare a connection lost (one-shot)
 * @conn:	connection
 *
 * Safe from any context; the work that disconnects and fails the waiters
 * runs in process context.
 */
void scalio_host_conn_fail(struct scalio_host_conn *conn)
{
	if (test_and_set_bit(SCALIO_CONN_DEAD, &conn->flags))
		return;
	pr_warn("%s: connection lost\n", conn->hs->name);
	queue_work(system_wq, &conn->fail_work);
}

/**
 * scalio_host_conn_violation() - fail a connection whose target broke the protocol
 * @conn:	connection
 * @why:	what the target sent, for the log
 * @val:	a number that goes with it (tag, length)
 *
 * On a live connection every response answers a request still in flight:
 * a timed-out request fails the connection, so no late answer can be
 * legitimate.  Dropping what does not fit and carrying on would let a
 * broken or hostile target keep the host busy; its waiters would wait out
 * the RPC timeout instead of learning at once.
 */
static void scalio_host_conn_violation(struct scalio_host_conn *conn, const char *why,
				       u64 val)
{
	pr_warn_ratelimited("%s: protocol violation by the target: %s (%llu)\n",
			    conn->hs->name, why, val);
	set_bit(SCALIO_CONN_PROTO_ERR, &conn->flags);
	scalio_host_conn_fail(conn);
}

/* ------------------------------------------------------------------ */
/* buffers                                                             */

/* Unmap (if mapped) and free one buffer of the connection. */
static void scalio_host_buf_free(struct scalio_host_conn *conn, u64 dma, void *buf,
				 size_t len, enum dma_data_direction dir)
{
	if (dma)
		ib_dma_unmap_single(conn->dev, dma, len, dir);
	kfree(buf);
}

/* Free every buffer of the connection; nothing may reference them. */
void scalio_host_conn_free_bufs(struct scalio_host_conn *conn)
{
	u32 i;

	for (i = 0; conn->rpcs && i < conn->qd_req; i++) {
		scalio_host_buf_free(conn, conn->rpcs[i].req_dma, conn->rpcs[i].req,
				     SCALIO_MSG_SIZE, DMA_TO_DEVICE);
		kfree(conn->rpcs[i].rsp);
	}
	for (i = 0; conn->recvs && i < conn->qd_req; i++)
		scalio_host_buf_free(conn, conn->recvs[i].dma, conn->recvs[i].buf,
				     SCALIO_MSG_SIZE, DMA_FROM_DEVICE);
	for (i = 0; conn->ios && i < SCALIO_HOST_NR_IO; i++)
		scalio_host_buf_free(conn, conn->ios[i].dma, conn->ios[i].buf,
				     SCALIO_IO_SIZE, DMA_BIDIRECTIONAL);
	kfree(conn->rpcs);
	conn->rpcs = NULL;
	kfree(conn->recvs);
	conn->recvs = NULL;
	kfree(conn->ios);
	conn->ios = NULL;
	INIT_LIST_HEAD(&conn->rpc_free);
	INIT_LIST_HEAD(&conn->io_free);
}

static void scalio_host_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void scalio_host_recv_done(struct ib_cq *cq, struct ib_wc *wc);

static int scalio_host_map(struct scalio_host_conn *conn, void *buf, size_t len,
			   enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(conn->dev, buf, len, dir);
	if (ib_dma_mapping_error(conn->dev, *dma)) {
		*dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * scalio_host_conn_alloc_bufs() - allocate and map the tag table, the receive
 * buffers and the bounce pages for conn->qd_req tags
 * @conn:	connection with its device set
 *
 * Return: 0 or -ENOMEM (nothing left allocated).
 */
int scalio_host_conn_alloc_bufs(struct scalio_host_conn *conn)
{
	u32 i;
	int ret;

	conn->rpcs = kcalloc(conn->qd_req, sizeof(*conn->rpcs), GFP_KERNEL);
	conn->recvs = kcalloc(conn->qd_req, sizeof(*conn->recvs), GFP_KERNEL);
	conn->ios = kcalloc(SCALIO_HOST_NR_IO, sizeof(*conn->ios), GFP_KERNEL);
	if (!conn->rpcs || !conn->recvs || !conn->ios)
		goto nomem;

	for (i = 0; i < conn->qd_req; i++) {
		struct scalio_host_rpc *rpc = &conn->rpcs[i];
		struct scalio_host_recv *rv = &conn->recvs[i];

		rpc->conn = conn;
		rpc->idx = i;
		rpc->send_cqe.done = scalio_host_send_done;
		init_completion(&rpc->done);
		rpc->req = kzalloc(SCALIO_MSG_SIZE, GFP_KERNEL);
		rpc->rsp = kzalloc(SCALIO_MSG_SIZE, GFP_KERNEL);
		if (!rpc->req || !rpc->rsp)
			goto nomem;
		ret = scalio_host_map(conn, rpc->req, SCALIO_MSG_SIZE,
				      DMA_TO_DEVICE, &rpc->req_dma);
		if (ret)
			goto nomem;

		rv->conn = conn;
		rv->cqe.done = scalio_host_recv_done;
		rv->buf = kzalloc(SCALIO_MSG_SIZE, GFP_KERNEL);
		if (!rv->buf)
			goto nomem;
		ret = scalio_host_map(conn, rv->buf, SCALIO_MSG_SIZE,
				      DMA_FROM_DEVICE, &rv->dma);
		if (ret)
			goto nomem;
	}
	for (i = 0; i < SCALIO_HOST_NR_IO; i++) {
		struct scalio_host_io *io = &conn->ios[i];

		io->buf = kzalloc(SCALIO_IO_SIZE, GFP_KERNEL);
		if (!io->buf)
			goto nomem;
		ret = scalio_host_map(conn, io->buf, SCALIO_IO_SIZE,
				      DMA_BIDIRECTIONAL, &io->dma);
		if (ret)
			goto nomem;
		list_add_tail(&io->entry, &conn->io_free);
	}
	return 0;

nomem:
	scalio_host_conn_free_bufs(conn);
	return -ENOMEM;
}

/* Post (or repost) one receive buffer. */
int scalio_host_post_recv(struct scalio_host_conn *conn, struct scalio_host_recv *rv)
{
	struct ib_sge sge = {
		.addr	= rv->dma,
		.length	= SCALIO_MSG_SIZE,
		.lkey	= conn->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rv->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	ib_dma_sync_single_for_device(conn->dev, rv->dma, SCALIO_MSG_SIZE,
				      DMA_FROM_DEVICE);
	return ib_post_recv(conn->qp, &wr, NULL);
}

/* ------------------------------------------------------------------ */
/* RPC                                                                 */

static void scalio_host_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_host_rpc *rpc = container_of(wc->wr_cqe, struct scalio_host_rpc,
					      send_cqe);
	struct scalio_host_conn *conn = rpc->conn;
	unsigned long flags;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_err("%s: SEND failed: %s\n", conn->hs->name,
			       ib_wc_status_msg(wc->status));
		scalio_host_conn_fail(conn);
	}
	spin_lock_irqsave(&conn->rpc_lock, flags);
	__scalio_host_rpc_unref(conn, rpc);
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

/*
 * Hand a checked response to the entry waiting for it.  Everything the
 * response names (tag index, use count, opcode) is checked against the
 * table before anything is written.
 */
static void scalio_host_rpc_deliver(struct scalio_host_conn *conn, const void *buf,
				    u32 len)
{
	const struct scalio_msg_hdr *hdr = buf;
	u64 tag = le64_to_cpu(hdr->tag);
	u32 idx = tag & ((1U << SCALIO_TAG_IDX_BITS) - 1);
	u64 seq = tag >> SCALIO_TAG_IDX_BITS;
	struct scalio_host_rpc *rpc;
	unsigned long flags;

	if (idx >= conn->qd_req) {
		scalio_host_conn_violation(conn, "response with bad tag", tag);
		return;
	}
	rpc = &conn->rpcs[idx];
	spin_lock_irqsave(&conn->rpc_lock, flags);
	if (!rpc->rsp_pending || rpc->seq != seq ||
	    rpc->opcode != le16_to_cpu(hdr->opcode)) {
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
		scalio_host_conn_violation(conn, "unexpected response, tag", tag);
		return;
	}
	rpc->rsp_pending = false;
	if (rpc->state == SCALIO_RPC_WAITING) {
		memcpy(rpc->rsp, buf, len);
		rpc->rsp_len = len;
		rpc->status = 0;
		rpc->state = SCALIO_RPC_DONE;
		complete(&rpc->done);
	}
	__scalio_host_rpc_unref(conn, rpc);
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

static void scalio_host_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_host_recv *rv = container_of(wc->wr_cqe, struct scalio_host_recv,
					      cqe);
	struct scalio_host_conn *conn = rv->conn;
	int ret;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_err("%s: RECV failed: %s\n", conn->hs->name,
			       ib_wc_status_msg(wc->status));
			scalio_host_conn_fail(conn);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(conn->dev, rv->dma, SCALIO_MSG_SIZE,
				   DMA_FROM_DEVICE);
	if (wc->opcode != IB_WC_RECV) {
		/* It took a receive but filled nothing: the buffer is old. */
		scalio_host_conn_violation(conn, "RDMA WRITE with immediate",
					   wc->byte_len);
	} else if (wc->byte_len < sizeof(struct scalio_msg_hdr) ||
		   wc->byte_len > SCALIO_MSG_SIZE) {
		scalio_host_conn_violation(conn, "runt or oversized message",
					   wc->byte_len);
	} else if (scalio_msg_check(rv->buf, wc->byte_len, true)) {
		const struct scalio_msg_hdr *hdr = rv->buf;

		scalio_host_conn_violation(conn, "malformed message, opcode",
					   le16_to_cpu(hdr->opcode));
	} else {
		scalio_host_rpc_deliver(conn, rv->buf, wc->byte_len);
	}

	if (scalio_host_conn_dead(conn))
		return;
	ret = scalio_host_post_recv(conn, rv);
	if (ret) {
		pr_err("%s: cannot repost receive: %d\n", conn->hs->name, ret);
		scalio_host_conn_fail(conn);
	}
}

/*
 * The settle mark a request carries (hdr.settled): every write of this
 * host sent under a smaller sequence number has had its invalidation done,
 * or never needs one.  conn->rpc_lock held.
 */
static u32 scalio_host_settle_mark(struct scalio_host_conn *conn)
{
	struct scalio_host_settle *first;
	u32 mark = conn->rpc_seq;

	first = list_first_entry_or_null(&conn->unsettled,
					 struct scalio_host_settle, entry);
	if (first)
		mark = first->seq;
	if (conn->debt && scalio_seq_before(conn->debt_seq, mark))
		mark = conn->debt_seq;
	return mark;
}

/**
 * scalio_host_settle_done() - a write's invalidation is settled
 * @conn:	connection
 * @settle:	the write's entry (listed or not)
 *
 * Done, not needed, or owed: an owed one was recorded by
 * scalio_host_inval_defer() first, which holds the mark back until the
 * debt is paid.
 */
void scalio_host_settle_done(struct scalio_host_conn *conn,
			     struct scalio_host_settle *settle)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->rpc_lock, flags);
	if (settle->listed) {
		list_del(&settle->entry);
		settle->listed = false;
	}
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

/**
 * scalio_host_settle_debt() - hold the settle mark back for an owed invalidation
 * @conn:	connection
 * @settle:	the write whose invalidation is owed
 * @owed:	true: it is owed from now on; false: every debt is paid
 *
 * The caller holds hs->inval_lock, so that recording a debt and finding
 * the list of debts empty cannot interleave.
 */
void scalio_host_settle_debt(struct scalio_host_conn *conn,
			     const struct scalio_host_settle *settle, bool owed)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->rpc_lock, flags);
	if (!owed) {
		conn->debt = false;
	} else if (settle && settle->listed &&
		   (!conn->debt || scalio_seq_before(settle->seq,
						     conn->debt_seq))) {
		/* Not listed: never sent, so the target cannot owe for it. */
		conn->debt_seq = settle->seq;
		conn->debt = true;
	}
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

/**
 * scalio_host_rpc_get() - take a free tag, waiting for one if necessary
 * @conn:	connection
 *
 * Return: the entry, whose ->req buffer the caller fills after the header,
 * or ERR_PTR(-ENOTCONN / -ETIMEDOUT / -EINTR).
 */
struct scalio_host_rpc *scalio_host_rpc_get(struct scalio_host_conn *conn)
{
	struct scalio_host_rpc *rpc = NULL;
	unsigned long flags;
	long left = msecs_to_jiffies(SCALIO_RPC_TIMEOUT_MS);

	for (;;) {
		if (scalio_host_conn_dead(conn))
			return ERR_PTR(scalio_host_conn_dead_err(conn));
		spin_lock_irqsave(&conn->rpc_lock, flags);
		rpc = list_first_entry_or_null(&conn->rpc_free,
					       struct scalio_host_rpc, entry);
		if (rpc) {
			list_del_init(&rpc->entry);
			atomic_set(&rpc->refs, 1);	/* the caller's */
			rpc->state = SCALIO_RPC_DONE;
			rpc->settle = NULL;
		}
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
		if (rpc)
			return rpc;
		left = wait_event_killable_timeout(conn->rpc_wq,
						   !list_empty(&conn->rpc_free) ||
				scalio_host_conn_dead(conn), left);
		if (left < 0)
			return ERR_PTR(-EINTR);
		if (!left)
			return ERR_PTR(-ETIMEDOUT);
	}
}

/**
 * scalio_host_kv_rpc_get() - take a tag and start a key-value request in it
 * @conn:	connection
 * @key:	the key (at most SCALIO_KEY_MAX bytes, checked by the caller)
 * @klen:	key length
 *
 * Return: the tag with a zeroed struct scalio_msg_kv_req naming @key in
 * ->req, or what scalio_host_rpc_get() fails with.
 */
struct scalio_host_rpc *scalio_host_kv_rpc_get(struct scalio_host_conn *conn, const u8 *key,
					       u32 klen)
{
	struct scalio_msg_kv_req *req;
	struct scalio_host_rpc *rpc;

	rpc = scalio_host_rpc_get(conn);
	if (IS_ERR(rpc))
		return rpc;
	req = rpc->req;
	memset(req, 0, sizeof(*req));
	req->klen = klen;
	memcpy(req->key, key, klen);
	return rpc;
}

/**
 * scalio_host_rpc_put() - give a tag back after using its response
 * @conn:	connection
 * @rpc:	entry from scalio_host_rpc_get()
 */
void scalio_host_rpc_put(struct scalio_host_conn *conn, struct scalio_host_rpc *rpc)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->rpc_lock, flags);
	__scalio_host_rpc_unref(conn, rpc);
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

/*
 * Send the request in @rpc->req and wait for its answer for @tmo jiffies,
 * killably if @killable.  A wait that ends without the answer abandons
 * the tag and fails the connection.
 */
static int __scalio_host_rpc_exec(struct scalio_host_conn *conn,
				  struct scalio_host_rpc *rpc, u16 opcode,
				  u32 len, long tmo, bool killable)
{
	struct scalio_msg_hdr *hdr = rpc->req;
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	unsigned long flags;
	u32 settled;
	long left;
	int ret;

	if (WARN_ON_ONCE(len < sizeof(*hdr) || len > SCALIO_MSG_SIZE))
		return -EINVAL;

	spin_lock_irqsave(&conn->rpc_lock, flags);
	rpc->seq = conn->rpc_seq++;
	if (rpc->settle) {
		rpc->settle->seq = rpc->seq;
		list_add_tail(&rpc->settle->entry, &conn->unsettled);
		rpc->settle->listed = true;
	}
	settled = scalio_host_settle_mark(conn);
	rpc->opcode = opcode;
	rpc->state = SCALIO_RPC_WAITING;
	rpc->rsp_pending = true;
	rpc->posted = false;
	rpc->status = 0;
	rpc->rsp_len = 0;
	atomic_add(2, &rpc->refs);	/* send completion + response */
	reinit_completion(&rpc->done);
	spin_unlock_irqrestore(&conn->rpc_lock, flags);

	hdr->opcode = cpu_to_le16(opcode);
	hdr->flags = 0;
	hdr->len = cpu_to_le32(len);
	hdr->tag = cpu_to_le64(((u64)rpc->seq << SCALIO_TAG_IDX_BITS) |
			       rpc->idx);
	hdr->status = 0;
	/* Only a target of minor >= 2 reads it; older ones want 0. */
	hdr->settled = READ_ONCE(conn->peer_minor) >= 2 ?
		       cpu_to_le32(settled) : 0;
	ib_dma_sync_single_for_device(conn->dev, rpc->req_dma, len,
				      DMA_TO_DEVICE);

	sge.addr = rpc->req_dma;
	sge.length = len;
	sge.lkey = conn->pd->local_dma_lkey;
	wr.wr_cqe = &rpc->send_cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;

	ret = -ENOTCONN;
	if (!scalio_host_conn_dead(conn))
		ret = ib_post_send(conn->qp, &wr, NULL);
	/* From here the target may see it: a write's outcome is unknown. */
	rpc->posted = !ret;
	/* A KV operation's wait (not the control plane's: HELLO, stats...) */
	if (!ret && (opcode == SCALIO_MSG_GET || opcode == SCALIO_MSG_PUT ||
		     opcode == SCALIO_MSG_DELETE))
		scalio_host_hstat_inc(conn->hs, SCALIO_HS_WAITS);
	if (ret) {
		spin_lock_irqsave(&conn->rpc_lock, flags);
		if (rpc->rsp_pending) {
			rpc->rsp_pending = false;
			__scalio_host_rpc_unref(conn, rpc);
		}
		rpc->state = SCALIO_RPC_DONE;
		__scalio_host_rpc_unref(conn, rpc);	/* no send completion */
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
		if (ret != -ENOTCONN)
			scalio_host_conn_fail(conn);
		return scalio_host_conn_dead_err(conn);
	}

	if (killable)
		left = wait_for_completion_killable_timeout(&rpc->done, tmo);
	else
		left = wait_for_completion_timeout(&rpc->done, tmo);
	if (left <= 0) {
		spin_lock_irqsave(&conn->rpc_lock, flags);
		if (rpc->state == SCALIO_RPC_WAITING) {
			rpc->state = SCALIO_RPC_ABANDONED;
			spin_unlock_irqrestore(&conn->rpc_lock, flags);
			if (!left)
				pr_warn_ratelimited("%s: RPC %u timed out\n",
						    conn->hs->name, opcode);
			/*
			 * As nvme does on a timeout: start over on a new
			 * connection.  A write without an answer may still
			 * commit; the reconnect's HELLO waits until it has,
			 * and only then are its owed invalidations paid.
			 */
			scalio_host_conn_fail(conn);
			return left ? -EINTR : -ETIMEDOUT;
		}
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
	}
	return rpc->status;
}

/**
 * scalio_host_rpc_exec() - send the request in @rpc->req and wait for its answer
 * @conn:	connection
 * @rpc:	entry from scalio_host_rpc_get(), request body filled after the header
 * @opcode:	enum scalio_msg_op
 * @len:	total request length, header included
 *
 * Fills the header.  On success the checked response is in @rpc->rsp
 * (@rpc->rsp_len bytes) until scalio_host_rpc_put().  The response's own status
 * is the caller's to interpret.
 *
 * Return: 0, -ENOTCONN (connection lost), -EPROTO (lost because the target
 * broke the protocol), -ETIMEDOUT (no answer in time; the connection is
 * failed, and the tag stays reserved until its end).
 */
int scalio_host_rpc_exec(struct scalio_host_conn *conn, struct scalio_host_rpc *rpc,
			 u16 opcode, u32 len)
{
	return __scalio_host_rpc_exec(conn, rpc, opcode, len,
				      msecs_to_jiffies(SCALIO_RPC_TIMEOUT_MS),
				      false);
}

/**
 * scalio_host_rpc_exec_by() - a control request of the handshake
 * @conn:	connection
 * @rpc:	entry from scalio_host_rpc_get(), request body filled after the header
 * @opcode:	enum scalio_msg_op
 * @len:	total request length, header included
 * @end:	jiffies by which the whole exchange this request is part of
 *		must be over
 *
 * As scalio_host_rpc_exec(), but the wait is killable and ends at @end if
 * that comes before the request's own timeout: a target that answers each
 * request just in time cannot stretch an attach or a reconnect without
 * bound.
 *
 * Return: as scalio_host_rpc_exec(), or -EINTR (a fatal signal: the
 * connection is failed as on a timeout); -ETIMEDOUT, without sending,
 * if @end has passed.
 */
int scalio_host_rpc_exec_by(struct scalio_host_conn *conn, struct scalio_host_rpc *rpc,
			    u16 opcode, u32 len, unsigned long end)
{
	long tmo = msecs_to_jiffies(SCALIO_RPC_TIMEOUT_MS);

	if (!time_before(jiffies, end))
		return -ETIMEDOUT;
	tmo = min_t(long, tmo, end - jiffies);
	return __scalio_host_rpc_exec(conn, rpc, opcode, len, max(tmo, 1L),
				      true);
}

/* The response's status: 0 or a negative errno in range, else -EPROTO. */
int scalio_host_rpc_status(const struct scalio_host_rpc *rpc)
{
	const struct scalio_msg_hdr *hdr = rpc->rsp;
	s32 st = (s32)le32_to_cpu(hdr->status);

	if (st > 0 || st < -MAX_ERRNO)
		return -EPROTO;
	return st;
}

/* ------------------------------------------------------------------ */
/* one-sided operations                                                */

/**
 * scalio_host_io_get() - take a bounce page from the pool
 * @conn:	connection
 *
 * Return: the page or NULL if the connection is dead (or we were killed).
 */
struct scalio_host_io *scalio_host_io_get(struct scalio_host_conn *conn)
{
	struct scalio_host_io *io = NULL;

	for (;;) {
		if (scalio_host_conn_dead(conn))
			return NULL;
		spin_lock(&conn->io_lock);
		io = list_first_entry_or_null(&conn->io_free,
					      struct scalio_host_io, entry);
		if (io)
			list_del_init(&io->entry);
		spin_unlock(&conn->io_lock);
		if (io)
			return io;
		if (wait_event_killable(conn->io_wq,
					!list_empty(&conn->io_free) ||
					scalio_host_conn_dead(conn)))
			return NULL;
	}
}

void scalio_host_io_put(struct scalio_host_conn *conn, struct scalio_host_io *io)
{
	spin_lock(&conn->io_lock);
	list_add(&io->entry, &conn->io_free);
	spin_unlock(&conn->io_lock);
	wake_up(&conn->io_wq);
}

/*
 * One wait for a whole chain: every work request of the chain is signaled
 * (an unsignaled one that fails still completes, and then needs a cqe) and
 * completes here; the waiter wakes when the last one has.  The first
 * failure is kept: the QP flushes everything after it.
 */
static void scalio_host_chain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_host_chain *ch = container_of(wc->wr_cqe, struct scalio_host_chain,
					       cqe);

	if (wc->status != IB_WC_SUCCESS && ch->status == IB_WC_SUCCESS)
		ch->status = wc->status;
	if (atomic_dec_and_test(&ch->pending))
		complete(&ch->done);
}

/**
 * scalio_host_chain_init() - start an empty chain of one-sided operations
 * @ch:		the chain (on the caller's stack)
 * @conn:	connection (io_rwsem held for reading by the caller)
 * @io:		bounce page the operations read into and write from
 */
void scalio_host_chain_init(struct scalio_host_chain *ch, struct scalio_host_conn *conn,
			    struct scalio_host_io *io)
{
	ch->conn = conn;
	ch->io = io;
	ch->n = 0;
	ch->cas = false;
	ch->broken = false;
}

/* Append a request (its opcode-specific fields are the caller's). */
static union scalio_host_chain_wr *scalio_host_chain_add(struct scalio_host_chain *ch,
							 enum ib_wr_opcode op, u32 off,
					       u32 len, int flags)
{
	union scalio_host_chain_wr *cw = &ch->wr[ch->n];
	struct ib_sge *sge = &ch->sge[ch->n];
	struct ib_send_wr *wr = &cw->rdma.wr;

	/* A CAS decides what comes next: nothing is chained behind it. */
	if (WARN_ON_ONCE(ch->n >= SCALIO_CHAIN_MAX || ch->cas ||
			 off + len > SCALIO_IO_SIZE)) {
		ch->broken = true;
		return NULL;
	}
	memset(cw, 0, sizeof(*cw));
	sge->addr = ch->io->dma + off;
	sge->length = len;
	sge->lkey = ch->conn->pd->local_dma_lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = IB_SEND_SIGNALED | flags;
	wr->wr_cqe = &ch->cqe;
	if (ch->n)
		ch->wr[ch->n - 1].rdma.wr.next = wr;
	ch->n++;
	ib_dma_sync_single_for_device(ch->conn->dev, sge->addr, len,
				      op == IB_WR_RDMA_WRITE ?
				      DMA_TO_DEVICE : DMA_FROM_DEVICE);
	return cw;
}

/**
 * scalio_host_chain_read() - add an RDMA READ of @len bytes at @raddr into the
 * bounce page at @off
 * @ch:		chain
 * @off:	offset in the bounce page
 * @len:	bytes
 * @raddr:	remote address
 * @rkey:	its rkey
 * @fence:	start only after every earlier READ and atomic of the chain
 *		completed (IB_SEND_FENCE)
 */
void scalio_host_chain_read(struct scalio_host_chain *ch, u32 off, u32 len, u64 raddr,
			    u32 rkey, bool fence)
{
	union scalio_host_chain_wr *cw = scalio_host_chain_add(ch, IB_WR_RDMA_READ, off,
						     len, fence ?
						     IB_SEND_FENCE : 0);

	if (!cw)
		return;
	cw->rdma.remote_addr = raddr;
	cw->rdma.rkey = rkey;
	scalio_host_hstat_inc(ch->conn->hs, SCALIO_HS_RDMA_READS);
}

/**
 * scalio_host_chain_write() - add an RDMA WRITE of @len bytes of the bounce
 * page at @off to @raddr
 * @ch:		chain
 * @off:	offset in the bounce page
 * @len:	bytes
 * @raddr:	remote address
 * @rkey:	its rkey
 */
void scalio_host_chain_write(struct scalio_host_chain *ch, u32 off, u32 len, u64 raddr,
			     u32 rkey)
{
	union scalio_host_chain_wr *cw = scalio_host_chain_add(ch, IB_WR_RDMA_WRITE, off,
						     len, 0);

	if (!cw)
		return;
	cw->rdma.remote_addr = raddr;
	cw->rdma.rkey = rkey;
}

/**
 * scalio_host_chain_cas() - end the chain with a remote 64-bit compare-and-swap
 * @ch:		chain
 * @raddr:	remote address (8-byte aligned)
 * @rkey:	its rkey
 * @compare:	expected value
 * @swap:	new value
 *
 * The value found is scalio_host_chain_cas_old() after scalio_host_chain_exec().
 */
void scalio_host_chain_cas(struct scalio_host_chain *ch, u64 raddr, u32 rkey,
			   u64 compare, u64 swap)
{
	union scalio_host_chain_wr *cw = scalio_host_chain_add(ch,
						     IB_WR_ATOMIC_CMP_AND_SWP,
						     SCALIO_IO_ATOMIC_OFF,
						     sizeof(u64), 0);

	if (!cw)
		return;
	cw->atomic.remote_addr = raddr;
	cw->atomic.rkey = rkey;
	cw->atomic.compare_add = compare;
	cw->atomic.swap = swap;
	ch->cas = true;
	ch->compare = compare;
	scalio_host_hstat_inc(ch->conn->hs, SCALIO_HS_RDMA_CAS);
}

/*
 * Name the requests of a chain that timed out: on soft-RoCE under load a
 * depth-64 run has stalled this way (rarely, root cause not known yet);
 * which requests were waiting, and whether one was fenced, is the first
 * thing to know about it.
 */
static void scalio_host_chain_report(const struct scalio_host_chain *ch)
{
	char ops[SCALIO_CHAIN_MAX * 8 + 1];
	unsigned int i, len = 0;

	ops[0] = '\0';
	for (i = 0; i < ch->n; i++) {
		const struct ib_send_wr *wr = &ch->wr[i].rdma.wr;
		const char *op = wr->opcode == IB_WR_RDMA_READ ? " R" :
				 wr->opcode == IB_WR_RDMA_WRITE ? " W" :
				 wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
				 " CAS" : " ?";

		len += scnprintf(ops + len, sizeof(ops) - len, "%s%s", op,
				 wr->send_flags & IB_SEND_FENCE ? "+F" : "");
	}
	pr_err("%s: one-sided operation timed out (chain:%s)\n",
	       ch->conn->hs->name, ops);
}

/**
 * scalio_host_chain_exec() - post the chain as one list and wait for it once
 * @ch:		chain of at least one operation
 *
 * The responder executes the chain's requests in order (one RC QP), so a
 * READ sees an earlier WRITE of the chain and a CAS lands after it; a READ
 * added with @fence starts only after the earlier READs returned.  If the
 * target does not answer in time the connection is failed, which flushes
 * the chain: we still wait for that flush, because the requests point at
 * our stack and at the bounce page.
 *
 * Return: 0, -ENOTCONN (a request failed: the connection is failed),
 * -EPROTO (the connection was failed for the target's protocol violation),
 * -ETIMEDOUT, or -EINVAL for a chain that was built wrong.
 */
int scalio_host_chain_exec(struct scalio_host_chain *ch)
{
	struct scalio_host_conn *conn = ch->conn;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr *wr;
	unsigned int i, posted;
	int ret;

	if (WARN_ON_ONCE(!ch->n) || ch->broken)
		return -EINVAL;
	if (scalio_host_conn_dead(conn))
		return scalio_host_conn_dead_err(conn);
	scalio_host_hstat_inc(conn->hs, ch->io->bg ? SCALIO_HS_BG_WAITS :
						     SCALIO_HS_WAITS);
	ch->cqe.done = scalio_host_chain_done;
	ch->status = IB_WC_SUCCESS;
	atomic_set(&ch->pending, ch->n);
	init_completion(&ch->done);
	ret = ib_post_send(conn->qp, &ch->wr[0].rdma.wr, &bad);
	if (ret) {
		pr_err_ratelimited("%s: post failed: %d\n", conn->hs->name,
				   ret);
		scalio_host_conn_fail(conn);
		posted = 0;
		for (wr = &ch->wr[0].rdma.wr; wr && wr != bad; wr = wr->next)
			posted++;
		/* Those posted complete (flushed): wait for them. */
		if (atomic_sub_and_test(ch->n - posted, &ch->pending))
			complete(&ch->done);
		if (posted)
			wait_for_completion(&ch->done);
		return scalio_host_conn_dead_err(conn);
	}
	if (!wait_for_completion_timeout(&ch->done,
					 msecs_to_jiffies(SCALIO_RPC_TIMEOUT_MS))) {
		struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

		scalio_host_chain_report(ch);
		scalio_host_conn_fail(conn);
		/*
		 * Flush the requests ourselves rather than rely on the failure
		 * work, which may wait for teardown_lock held by a reconnect
		 * attempt that is us.  We hold io_rwsem: the QP stays.
		 */
		ib_modify_qp(conn->qp, &attr, IB_QP_STATE);
		wait_for_completion(&ch->done);
		return -ETIMEDOUT;
	}
	if (ch->status != IB_WC_SUCCESS) {
		if (ch->status != IB_WC_WR_FLUSH_ERR)
			pr_err_ratelimited("%s: one-sided op failed: %s\n",
					   conn->hs->name,
					   ib_wc_status_msg(ch->status));
		scalio_host_conn_fail(conn);
		return scalio_host_conn_dead_err(conn);
	}
	for (i = 0; i < ch->n; i++)
		if (ch->wr[i].rdma.wr.opcode != IB_WR_RDMA_WRITE)
			ib_dma_sync_single_for_cpu(conn->dev,
						   ch->sge[i].addr,
						   ch->sge[i].length,
						   DMA_FROM_DEVICE);
	if (ch->cas && scalio_host_chain_cas_old(ch) != ch->compare)
		scalio_host_hstat_inc(conn->hs, SCALIO_HS_CAS_FAILURES);
	return 0;
}

/**
 * scalio_host_chain_cas_old() - the value the chain's CAS found
 * @ch:		an executed chain ending with scalio_host_chain_cas()
 *
 * The swap happened iff this equals the compare value.
 */
u64 scalio_host_chain_cas_old(const struct scalio_host_chain *ch)
{
	/* The atomic result is in the responder's (little-endian) order. */
	return le64_to_cpu(*(__le64 *)(ch->io->buf + SCALIO_IO_ATOMIC_OFF));
}

/**
 * scalio_host_rdma_read() - RDMA READ @len bytes at @raddr into @io at @off, and
 * wait for it
 * @conn:	connection
 * @io:		bounce page
 * @off:	offset in the page
 * @len:	bytes
 * @raddr:	remote address
 * @rkey:	its rkey
 */
int scalio_host_rdma_read(struct scalio_host_conn *conn, struct scalio_host_io *io,
			  u32 off, u32 len, u64 raddr, u32 rkey)
{
	struct scalio_host_chain ch;

	scalio_host_chain_init(&ch, conn, io);
	scalio_host_chain_read(&ch, off, len, raddr, rkey, false);
	return scalio_host_chain_exec(&ch);
}

/**
 * scalio_host_rdma_write() - RDMA WRITE @len bytes of @io at @off to @raddr, and
 * wait for it
 * @conn:	connection
 * @io:		bounce page
 * @off:	offset in the page
 * @len:	bytes
 * @raddr:	remote address
 * @rkey:	its rkey
 */
int scalio_host_rdma_write(struct scalio_host_conn *conn, struct scalio_host_io *io,
			   u32 off, u32 len, u64 raddr, u32 rkey)
{
	struct scalio_host_chain ch;

	scalio_host_chain_init(&ch, conn, io);
	scalio_host_chain_write(&ch, off, len, raddr, rkey);
	return scalio_host_chain_exec(&ch);
}

/**
 * scalio_host_rdma_cas() - remote 64-bit compare-and-swap, waited for
 * @conn:	connection
 * @io:		bounce page; the old value lands at SCALIO_IO_ATOMIC_OFF
 * @raddr:	remote address (8-byte aligned)
 * @rkey:	its rkey
 * @compare:	expected value
 * @swap:	new value
 * @old:	out: the value found (the swap happened iff *@old == @compare)
 *
 * Return: 0 or a transport error.
 */
int scalio_host_rdma_cas(struct scalio_host_conn *conn, struct scalio_host_io *io,
			 u64 raddr, u32 rkey, u64 compare, u64 swap, u64 *old)
{
	struct scalio_host_chain ch;
	int ret;

	scalio_host_chain_init(&ch, conn, io);
	scalio_host_chain_cas(&ch, raddr, rkey, compare, swap);
	ret = scalio_host_chain_exec(&ch);
	if (!ret)
		*old = scalio_host_chain_cas_old(&ch);
	return ret;
}

struct scalio_host_ts_write {
	struct ib_cqe		cqe;
	struct scalio_host_conn	*conn;
	__le64			ts;
	u64			dma;
};

static void scalio_host_ts_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_host_ts_write *t = container_of(wc->wr_cqe,
						 struct scalio_host_ts_write, cqe);
	struct scalio_host_conn *conn = t->conn;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		scalio_host_conn_fail(conn);
	ib_dma_unmap_single(conn->dev, t->dma, sizeof(t->ts), DMA_TO_DEVICE);
	kfree(t);
	atomic_dec(&conn->ts_inflight);
}

/**
 * scalio_host_rdma_write_ts() - fire-and-forget RDMA WRITE of a slot's last_ts
 * @conn:	connection (io_rwsem held for reading by the caller)
 * @raddr:	remote address of the last_ts word
 * @rkey:	its rkey
 * @ts:		target clock value
 *
 * Only an LRU hint: skipped when too many are in flight or memory is short.
 */
void scalio_host_rdma_write_ts(struct scalio_host_conn *conn, u64 raddr, u32 rkey,
			       u64 ts)
{
	struct scalio_host_ts_write *t;
	struct ib_sge sge;
	struct ib_rdma_wr wr = {};

	if (scalio_host_conn_dead(conn))
		return;
	if (atomic_inc_return(&conn->ts_inflight) > SCALIO_HOST_TS_MAX)
		goto out_dec;
	t = kmalloc(sizeof(*t), GFP_NOIO);
	if (!t)
		goto out_dec;
	t->conn = conn;
	t->cqe.done = scalio_host_ts_done;
	t->ts = cpu_to_le64(ts);
	if (scalio_host_map(conn, &t->ts, sizeof(t->ts), DMA_TO_DEVICE, &t->dma))
		goto out_free;
	sge.addr = t->dma;
	sge.length = sizeof(t->ts);
	sge.lkey = conn->pd->local_dma_lkey;
	wr.wr.wr_cqe = &t->cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = raddr;
	wr.rkey = rkey;
	if (ib_post_send(conn->qp, &wr.wr, NULL))
		goto out_unmap;
	return;

out_unmap:
	ib_dma_unmap_single(conn->dev, t->dma, sizeof(t->ts), DMA_TO_DEVICE);
out_free:
	kfree(t);
out_dec:
	atomic_dec(&conn->ts_inflight);
}

/* ------------------------------------------------------------------ */
/* verbs resources                                                     */

/**
 * scalio_host_conn_create_qp() - allocate the PD, the CQ and the QP on the
 * device the CM id resolved to
 * @conn:	connection whose cm_id has a route
 *
 * Return: 0 or a negative errno (what was created is released by
 * the connection's teardown).
 */
int scalio_host_conn_create_qp(struct scalio_host_conn *conn)
{
	struct ib_qp_init_attr attr = {};
	/*
	 * Every bounce buffer may have a whole chain in flight, each work
	 * request of it signaled: size the SQ (and the CQ, which must hold a
	 * completion for each) for SCALIO_CHAIN_MAX each, or 64 GETs in flight
	 * overflow them and their completions are lost.
	 */
	u32 sq = conn->qd_req + SCALIO_HOST_NR_IO * SCALIO_CHAIN_MAX +
		 SCALIO_HOST_TS_MAX + 1;
	u32 rq = conn->qd_req + 1;
	int ret;

	conn->pd = ib_alloc_pd(conn->dev, 0);
	if (IS_ERR(conn->pd)) {
		ret = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return ret;
	}
	conn->cq = ib_alloc_cq(conn->dev, conn, sq + rq, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		return ret;
	}
	attr.event_handler = NULL;
	attr.qp_context = conn;
	attr.send_cq = conn->cq;
	attr.recv_cq = conn->cq;
	attr.cap.max_send_wr = sq;	/* +1: ib_drain_qp */
	attr.cap.max_recv_wr = rq;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(conn->cm_id, conn->pd, &attr);
	if (ret)
		return ret;
	conn->qp = conn->cm_id->qp;
	return 0;
}
