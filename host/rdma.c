// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-host transport: one RC connection per attached store.
 *
 * The connection carries two kinds of traffic on one QP:
 *   - tagged RPCs (SEND/RECV): a tag table of queue_depth entries, each
 *     with its own DMA-mapped send buffer; responses land in posted receive
 *     buffers and are copied into the tag's private buffer before the
 *     receive is reposted;
 *   - one-sided READ, WRITE and compare-and-swap on the target's index,
 *     from DMA-mapped bounce pages (struct scalio_io) taken from a pool.
 * Every work request has its own ib_cqe; completions wake the waiting
 * thread.  A waiter never hangs: RPCs time out, and a lost connection
 * (disconnect, fatal completion, timeout of a one-sided op) moves the QP to
 * the error state, which flushes every posted request, and fails every
 * RPC waiter with -ENOTCONN.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/log2.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>

#include "scalio_host.h"

/* The tag on the wire: entry index in the low 16 bits, use count above. */
#define SCALIO_TAG_IDX_BITS	16

static void scalio_conn_fail_work(struct work_struct *work);
static void scalio_conn_release(struct scalio_conn *conn);

/* ------------------------------------------------------------------ */
/* connection state and failure                                        */

/**
 * scalio_conn_init() - initialize the parts of a connection that teardown
 * relies on, before anything can fail
 * @hs:	owner
 */
void scalio_conn_init(struct scalio_hstore *hs)
{
	struct scalio_conn *conn = &hs->conn;

	conn->hs = hs;
	init_completion(&conn->cm_done);
	spin_lock_init(&conn->rpc_lock);
	INIT_LIST_HEAD(&conn->rpc_free);
	init_waitqueue_head(&conn->rpc_wq);
	spin_lock_init(&conn->io_lock);
	INIT_LIST_HEAD(&conn->io_free);
	init_waitqueue_head(&conn->io_wq);
	atomic_set(&conn->ts_inflight, 0);
	init_rwsem(&conn->io_rwsem);
	mutex_init(&conn->teardown_lock);
	INIT_WORK(&conn->fail_work, scalio_conn_fail_work);
}

/* Drop one reference of an RPC entry; conn->rpc_lock held. */
static void __scalio_rpc_unref(struct scalio_conn *conn,
			       struct scalio_rpc *rpc)
{
	if (WARN_ON_ONCE(atomic_read(&rpc->refs) <= 0))
		return;
	if (atomic_dec_and_test(&rpc->refs)) {
		rpc->state = SCALIO_RPC_FREE;
		list_add_tail(&rpc->entry, &conn->rpc_free);
		wake_up(&conn->rpc_wq);
	}
}

/* Fail every RPC still waiting for its response: the connection is gone. */
static void scalio_rpc_fail_all(struct scalio_conn *conn)
{
	unsigned long flags;
	u32 i;

	if (!conn->rpcs)
		goto wake;
	spin_lock_irqsave(&conn->rpc_lock, flags);
	for (i = 0; i < conn->qd_req; i++) {
		struct scalio_rpc *rpc = &conn->rpcs[i];

		if (!rpc->rsp_pending)
			continue;
		rpc->rsp_pending = false;
		if (rpc->state == SCALIO_RPC_WAITING) {
			rpc->status = -ENOTCONN;
			rpc->state = SCALIO_RPC_DONE;
			complete(&rpc->done);
		}
		__scalio_rpc_unref(conn, rpc);
	}
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
wake:
	wake_up_all(&conn->rpc_wq);
	wake_up_all(&conn->io_wq);
}

/*
 * Stop the QP: rdma_disconnect() moves it to the error state, which
 * flushes every posted work request (one-sided waiters get their
 * completion); then fail the RPC waiters.  conn->teardown_lock held.
 */
static void scalio_conn_stop(struct scalio_conn *conn)
{
	if (conn->cm_id && test_bit(SCALIO_CONN_CONNECTED, &conn->flags))
		rdma_disconnect(conn->cm_id);
	if (conn->qp) {
		struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

		ib_modify_qp(conn->qp, &attr, IB_QP_STATE);
	}
	scalio_rpc_fail_all(conn);
}

static void scalio_conn_fail_work(struct work_struct *work)
{
	struct scalio_conn *conn = container_of(work, struct scalio_conn,
					       fail_work);

	struct scalio_hstore *hs = conn->hs;

	bool lost;

	mutex_lock(&conn->teardown_lock);
	/*
	 * Once freed, teardown has done all of this itself; and a reconnect
	 * may have built a new, healthy connection since we were queued.
	 */
	lost = !test_bit(SCALIO_CONN_FREED, &conn->flags) &&
	       scalio_conn_dead(conn);
	if (lost)
		scalio_conn_stop(conn);
	mutex_unlock(&conn->teardown_lock);
	/*
	 * A live store reconnects by itself; detach cancels the reconnect
	 * after moving the store out of SCALIO_HS_LIVE, then flushes us.
	 */
	if (lost && READ_ONCE(hs->state) == SCALIO_HS_LIVE)
		scalio_reconnect_schedule(hs);
}

/**
 * scalio_reconnect_schedule() - queue a reconnect attempt of a store
 * @hs:	store
 *
 * After the current retry delay: SCALIO_RECONNECT_MIN_MS after a working
 * connection was lost, doubling with each failed attempt.
 */
void scalio_reconnect_schedule(struct scalio_hstore *hs)
{
	queue_delayed_work(system_long_wq, &hs->reconnect_work,
			   READ_ONCE(hs->reconnect_delay));
}

/**
 * scalio_conn_fail() - declare a connection lost (one-shot)
 * @conn:	connection
 *
 * Safe from any context; the work that disconnects and fails the waiters
 * runs in process context.
 */
void scalio_conn_fail(struct scalio_conn *conn)
{
	if (test_and_set_bit(SCALIO_CONN_DEAD, &conn->flags))
		return;
	pr_warn("%s: connection lost\n", conn->hs->name);
	queue_work(system_wq, &conn->fail_work);
}

/* ------------------------------------------------------------------ */
/* buffers                                                             */

/* Unmap (if mapped) and free one buffer of the connection. */
static void scalio_buf_free(struct scalio_conn *conn, u64 dma, void *buf,
			    size_t len, enum dma_data_direction dir)
{
	if (dma)
		ib_dma_unmap_single(conn->dev, dma, len, dir);
	kfree(buf);
}

static void scalio_conn_free_bufs(struct scalio_conn *conn)
{
	u32 i;

	for (i = 0; conn->rpcs && i < conn->qd_req; i++) {
		scalio_buf_free(conn, conn->rpcs[i].req_dma, conn->rpcs[i].req,
				SCALIO_MSG_SIZE, DMA_TO_DEVICE);
		kfree(conn->rpcs[i].rsp);
	}
	for (i = 0; conn->recvs && i < conn->qd_req; i++)
		scalio_buf_free(conn, conn->recvs[i].dma, conn->recvs[i].buf,
				SCALIO_MSG_SIZE, DMA_FROM_DEVICE);
	for (i = 0; conn->ios && i < SCALIO_HOST_NR_IO; i++)
		scalio_buf_free(conn, conn->ios[i].dma, conn->ios[i].buf,
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

static void scalio_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void scalio_recv_done(struct ib_cq *cq, struct ib_wc *wc);

static int scalio_map(struct scalio_conn *conn, void *buf, size_t len,
		      enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(conn->dev, buf, len, dir);
	if (ib_dma_mapping_error(conn->dev, *dma)) {
		*dma = 0;
		return -ENOMEM;
	}
	return 0;
}

static int scalio_conn_alloc_bufs(struct scalio_conn *conn)
{
	u32 i;
	int ret;

	conn->rpcs = kcalloc(conn->qd_req, sizeof(*conn->rpcs), GFP_KERNEL);
	conn->recvs = kcalloc(conn->qd_req, sizeof(*conn->recvs), GFP_KERNEL);
	conn->ios = kcalloc(SCALIO_HOST_NR_IO, sizeof(*conn->ios), GFP_KERNEL);
	if (!conn->rpcs || !conn->recvs || !conn->ios)
		goto nomem;

	for (i = 0; i < conn->qd_req; i++) {
		struct scalio_rpc *rpc = &conn->rpcs[i];
		struct scalio_recv *rv = &conn->recvs[i];

		rpc->conn = conn;
		rpc->idx = i;
		rpc->send_cqe.done = scalio_send_done;
		init_completion(&rpc->done);
		rpc->req = kzalloc(SCALIO_MSG_SIZE, GFP_KERNEL);
		rpc->rsp = kzalloc(SCALIO_MSG_SIZE, GFP_KERNEL);
		if (!rpc->req || !rpc->rsp)
			goto nomem;
		ret = scalio_map(conn, rpc->req, SCALIO_MSG_SIZE,
				 DMA_TO_DEVICE, &rpc->req_dma);
		if (ret)
			goto nomem;

		rv->conn = conn;
		rv->cqe.done = scalio_recv_done;
		rv->buf = kzalloc(SCALIO_MSG_SIZE, GFP_KERNEL);
		if (!rv->buf)
			goto nomem;
		ret = scalio_map(conn, rv->buf, SCALIO_MSG_SIZE,
				 DMA_FROM_DEVICE, &rv->dma);
		if (ret)
			goto nomem;
	}
	for (i = 0; i < SCALIO_HOST_NR_IO; i++) {
		struct scalio_io *io = &conn->ios[i];

		io->buf = kzalloc(SCALIO_IO_SIZE, GFP_KERNEL);
		if (!io->buf)
			goto nomem;
		ret = scalio_map(conn, io->buf, SCALIO_IO_SIZE,
				 DMA_BIDIRECTIONAL, &io->dma);
		if (ret)
			goto nomem;
		list_add_tail(&io->entry, &conn->io_free);
	}
	return 0;

nomem:
	scalio_conn_free_bufs(conn);
	return -ENOMEM;
}

static int scalio_post_recv(struct scalio_conn *conn, struct scalio_recv *rv)
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

static void scalio_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_rpc *rpc = container_of(wc->wr_cqe, struct scalio_rpc,
					      send_cqe);
	struct scalio_conn *conn = rpc->conn;
	unsigned long flags;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_err("%s: SEND failed: %s\n", conn->hs->name,
			       ib_wc_status_msg(wc->status));
		scalio_conn_fail(conn);
	}
	spin_lock_irqsave(&conn->rpc_lock, flags);
	__scalio_rpc_unref(conn, rpc);
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

/*
 * Hand a checked response to the entry waiting for it.  Everything the
 * response names (tag index, use count, opcode) is checked against the
 * table before anything is written.
 */
static void scalio_rpc_deliver(struct scalio_conn *conn, const void *buf,
			       u32 len)
{
	const struct scalio_msg_hdr *hdr = buf;
	u64 tag = le64_to_cpu(hdr->tag);
	u32 idx = tag & ((1U << SCALIO_TAG_IDX_BITS) - 1);
	u64 seq = tag >> SCALIO_TAG_IDX_BITS;
	struct scalio_rpc *rpc;
	unsigned long flags;

	if (idx >= conn->qd_req) {
		pr_warn_ratelimited("%s: response with bad tag %llx\n",
				    conn->hs->name, tag);
		return;
	}
	rpc = &conn->rpcs[idx];
	spin_lock_irqsave(&conn->rpc_lock, flags);
	if (!rpc->rsp_pending || rpc->seq != seq ||
	    rpc->opcode != le16_to_cpu(hdr->opcode)) {
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
		pr_warn_ratelimited("%s: unexpected response, tag %llx\n",
				    conn->hs->name, tag);
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
	__scalio_rpc_unref(conn, rpc);
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

static void scalio_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_recv *rv = container_of(wc->wr_cqe, struct scalio_recv,
					      cqe);
	struct scalio_conn *conn = rv->conn;
	int ret;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_err("%s: RECV failed: %s\n", conn->hs->name,
			       ib_wc_status_msg(wc->status));
			scalio_conn_fail(conn);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(conn->dev, rv->dma, SCALIO_MSG_SIZE,
				   DMA_FROM_DEVICE);
	if (wc->byte_len < sizeof(struct scalio_msg_hdr) ||
	    wc->byte_len > SCALIO_MSG_SIZE) {
		pr_warn_ratelimited("%s: runt or oversized message (%u)\n",
				    conn->hs->name, wc->byte_len);
	} else if (scalio_msg_check(rv->buf, wc->byte_len, true)) {
		pr_warn_ratelimited("%s: malformed message dropped\n",
				    conn->hs->name);
	} else {
		scalio_rpc_deliver(conn, rv->buf, wc->byte_len);
	}

	if (scalio_conn_dead(conn))
		return;
	ret = scalio_post_recv(conn, rv);
	if (ret) {
		pr_err("%s: cannot repost receive: %d\n", conn->hs->name, ret);
		scalio_conn_fail(conn);
	}
}

/**
 * scalio_rpc_get() - take a free tag, waiting for one if necessary
 * @conn:	connection
 *
 * Return: the entry, whose ->req buffer the caller fills after the header,
 * or ERR_PTR(-ENOTCONN / -ETIMEDOUT / -EINTR).
 */
struct scalio_rpc *scalio_rpc_get(struct scalio_conn *conn)
{
	struct scalio_rpc *rpc = NULL;
	unsigned long flags;
	long left = msecs_to_jiffies(SCALIO_RPC_TIMEOUT_MS);

	for (;;) {
		if (scalio_conn_dead(conn))
			return ERR_PTR(-ENOTCONN);
		spin_lock_irqsave(&conn->rpc_lock, flags);
		rpc = list_first_entry_or_null(&conn->rpc_free,
					       struct scalio_rpc, entry);
		if (rpc) {
			list_del_init(&rpc->entry);
			atomic_set(&rpc->refs, 1);	/* the caller's */
			rpc->state = SCALIO_RPC_DONE;
		}
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
		if (rpc)
			return rpc;
		left = wait_event_killable_timeout(conn->rpc_wq,
				!list_empty(&conn->rpc_free) ||
				scalio_conn_dead(conn), left);
		if (left < 0)
			return ERR_PTR(-EINTR);
		if (!left)
			return ERR_PTR(-ETIMEDOUT);
	}
}

/**
 * scalio_kv_rpc_get() - take a tag and start a key-value request in it
 * @conn:	connection
 * @key:	the key (at most SCALIO_KEY_MAX bytes, checked by the caller)
 * @klen:	key length
 *
 * Return: the tag with a zeroed struct scalio_msg_kv_req naming @key in
 * ->req, or what scalio_rpc_get() fails with.
 */
struct scalio_rpc *scalio_kv_rpc_get(struct scalio_conn *conn, const u8 *key,
				     u32 klen)
{
	struct scalio_msg_kv_req *req;
	struct scalio_rpc *rpc;

	rpc = scalio_rpc_get(conn);
	if (IS_ERR(rpc))
		return rpc;
	req = rpc->req;
	memset(req, 0, sizeof(*req));
	req->klen = klen;
	memcpy(req->key, key, klen);
	return rpc;
}

/**
 * scalio_rpc_put() - give a tag back after using its response
 * @conn:	connection
 * @rpc:	entry from scalio_rpc_get()
 */
void scalio_rpc_put(struct scalio_conn *conn, struct scalio_rpc *rpc)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->rpc_lock, flags);
	__scalio_rpc_unref(conn, rpc);
	spin_unlock_irqrestore(&conn->rpc_lock, flags);
}

/**
 * scalio_rpc_exec() - send the request in @rpc->req and wait for its answer
 * @conn:	connection
 * @rpc:	entry from scalio_rpc_get(), request body filled after the header
 * @opcode:	enum scalio_msg_op
 * @len:	total request length, header included
 *
 * Fills the header.  On success the checked response is in @rpc->rsp
 * (@rpc->rsp_len bytes) until scalio_rpc_put().  The response's own status
 * is the caller's to interpret.
 *
 * Return: 0, -ENOTCONN (connection lost), -ETIMEDOUT (no answer in time; the
 * connection is failed, and the tag stays reserved until its end).
 */
int scalio_rpc_exec(struct scalio_conn *conn, struct scalio_rpc *rpc,
		    u16 opcode, u32 len)
{
	struct scalio_msg_hdr *hdr = rpc->req;
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	unsigned long flags;
	int ret;

	if (WARN_ON_ONCE(len < sizeof(*hdr) || len > SCALIO_MSG_SIZE))
		return -EINVAL;

	spin_lock_irqsave(&conn->rpc_lock, flags);
	rpc->seq++;
	rpc->opcode = opcode;
	rpc->state = SCALIO_RPC_WAITING;
	rpc->rsp_pending = true;
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
	hdr->reserved = 0;
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
	if (!scalio_conn_dead(conn))
		ret = ib_post_send(conn->qp, &wr, NULL);
	if (ret) {
		spin_lock_irqsave(&conn->rpc_lock, flags);
		if (rpc->rsp_pending) {
			rpc->rsp_pending = false;
			__scalio_rpc_unref(conn, rpc);
		}
		rpc->state = SCALIO_RPC_DONE;
		__scalio_rpc_unref(conn, rpc);	/* no send completion */
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
		if (ret != -ENOTCONN)
			scalio_conn_fail(conn);
		return -ENOTCONN;
	}

	if (!wait_for_completion_timeout(&rpc->done,
				msecs_to_jiffies(SCALIO_RPC_TIMEOUT_MS))) {
		spin_lock_irqsave(&conn->rpc_lock, flags);
		if (rpc->state == SCALIO_RPC_WAITING) {
			rpc->state = SCALIO_RPC_ABANDONED;
			spin_unlock_irqrestore(&conn->rpc_lock, flags);
			pr_warn_ratelimited("%s: RPC %u timed out\n",
					    conn->hs->name, opcode);
			/*
			 * As nvme does on a timeout: start over on a new
			 * connection.  A write without an answer may still
			 * commit; the reconnect's HELLO waits until it has,
			 * and only then are its owed invalidations paid.
			 */
			scalio_conn_fail(conn);
			return -ETIMEDOUT;
		}
		spin_unlock_irqrestore(&conn->rpc_lock, flags);
	}
	return rpc->status;
}

/* The response's status: 0 or a negative errno in range, else -EPROTO. */
int scalio_rpc_status(const struct scalio_rpc *rpc)
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
 * scalio_io_get() - take a bounce page from the pool
 * @conn:	connection
 *
 * Return: the page or NULL if the connection is dead (or we were killed).
 */
struct scalio_io *scalio_io_get(struct scalio_conn *conn)
{
	struct scalio_io *io = NULL;

	for (;;) {
		if (scalio_conn_dead(conn))
			return NULL;
		spin_lock(&conn->io_lock);
		io = list_first_entry_or_null(&conn->io_free,
					      struct scalio_io, entry);
		if (io)
			list_del_init(&io->entry);
		spin_unlock(&conn->io_lock);
		if (io)
			return io;
		if (wait_event_killable(conn->io_wq,
					!list_empty(&conn->io_free) ||
					scalio_conn_dead(conn)))
			return NULL;
	}
}

void scalio_io_put(struct scalio_conn *conn, struct scalio_io *io)
{
	spin_lock(&conn->io_lock);
	list_add(&io->entry, &conn->io_free);
	spin_unlock(&conn->io_lock);
	wake_up(&conn->io_wq);
}

struct scalio_wr_wait {
	struct ib_cqe		cqe;
	struct completion	done;
	enum ib_wc_status	status;
};

static void scalio_wr_wait_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_wr_wait *w = container_of(wc->wr_cqe,
						struct scalio_wr_wait, cqe);

	w->status = wc->status;
	complete(&w->done);
}

/*
 * Post one signaled one-sided work request and wait for it.  If the target
 * does not answer in time the connection is failed, which flushes the
 * request: we still wait for that flush, because the request points at our
 * stack and at the bounce page.
 */
static int scalio_post_wait(struct scalio_conn *conn, struct ib_send_wr *wr,
			    struct scalio_wr_wait *w)
{
	int ret;

	if (scalio_conn_dead(conn))
		return -ENOTCONN;
	w->cqe.done = scalio_wr_wait_done;
	init_completion(&w->done);
	wr->wr_cqe = &w->cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(conn->qp, wr, NULL);
	if (ret) {
		pr_err_ratelimited("%s: post failed: %d\n", conn->hs->name,
				   ret);
		scalio_conn_fail(conn);
		return -ENOTCONN;
	}
	if (!wait_for_completion_timeout(&w->done,
				msecs_to_jiffies(SCALIO_RPC_TIMEOUT_MS))) {
		struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

		pr_err("%s: one-sided operation timed out\n", conn->hs->name);
		scalio_conn_fail(conn);
		/*
		 * Flush the request ourselves rather than rely on the failure
		 * work, which may wait for teardown_lock held by a reconnect
		 * attempt that is us.  We hold io_rwsem: the QP stays.
		 */
		ib_modify_qp(conn->qp, &attr, IB_QP_STATE);
		wait_for_completion(&w->done);
		return -ETIMEDOUT;
	}
	if (w->status != IB_WC_SUCCESS) {
		if (w->status != IB_WC_WR_FLUSH_ERR)
			pr_err_ratelimited("%s: one-sided op failed: %s\n",
					   conn->hs->name,
					   ib_wc_status_msg(w->status));
		scalio_conn_fail(conn);
		return -ENOTCONN;
	}
	return 0;
}

static int scalio_rdma_rw(struct scalio_conn *conn, struct scalio_io *io,
			  enum ib_wr_opcode op, u32 off, u32 len, u64 raddr,
			  u32 rkey)
{
	struct scalio_wr_wait w;
	struct ib_sge sge = {
		.addr	= io->dma + off,
		.length	= len,
		.lkey	= conn->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr.sg_list	= &sge,
		.wr.num_sge	= 1,
		.wr.opcode	= op,
		.remote_addr	= raddr,
		.rkey		= rkey,
	};
	int ret;

	if (WARN_ON_ONCE(off + len > SCALIO_IO_SIZE))
		return -EINVAL;
	ib_dma_sync_single_for_device(conn->dev, io->dma + off, len,
				      op == IB_WR_RDMA_READ ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE);
	ret = scalio_post_wait(conn, &wr.wr, &w);
	if (!ret && op == IB_WR_RDMA_READ)
		ib_dma_sync_single_for_cpu(conn->dev, io->dma + off, len,
					   DMA_FROM_DEVICE);
	return ret;
}

/**
 * scalio_rdma_read() - RDMA READ @len bytes at @raddr into @io at @off
 * @conn:	connection
 * @io:		bounce page
 * @off:	offset in the page
 * @len:	bytes
 * @raddr:	remote address
 * @rkey:	its rkey
 */
int scalio_rdma_read(struct scalio_conn *conn, struct scalio_io *io,
		     u32 off, u32 len, u64 raddr, u32 rkey)
{
	scalio_hstat_inc(conn->hs, SCALIO_HS_RDMA_READS);
	return scalio_rdma_rw(conn, io, IB_WR_RDMA_READ, off, len, raddr,
			      rkey);
}

/**
 * scalio_rdma_write() - RDMA WRITE @len bytes of @io at @off to @raddr
 * @conn:	connection
 * @io:		bounce page
 * @off:	offset in the page
 * @len:	bytes
 * @raddr:	remote address
 * @rkey:	its rkey
 */
int scalio_rdma_write(struct scalio_conn *conn, struct scalio_io *io,
		      u32 off, u32 len, u64 raddr, u32 rkey)
{
	return scalio_rdma_rw(conn, io, IB_WR_RDMA_WRITE, off, len, raddr,
			      rkey);
}

/**
 * scalio_rdma_cas() - remote 64-bit compare-and-swap
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
int scalio_rdma_cas(struct scalio_conn *conn, struct scalio_io *io,
		    u64 raddr, u32 rkey, u64 compare, u64 swap, u64 *old)
{
	struct scalio_wr_wait w;
	struct ib_sge sge = {
		.addr	= io->dma + SCALIO_IO_ATOMIC_OFF,
		.length	= sizeof(u64),
		.lkey	= conn->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr.sg_list	= &sge,
		.wr.num_sge	= 1,
		.wr.opcode	= IB_WR_ATOMIC_CMP_AND_SWP,
		.remote_addr	= raddr,
		.compare_add	= compare,
		.swap		= swap,
		.rkey		= rkey,
	};
	int ret;

	scalio_hstat_inc(conn->hs, SCALIO_HS_RDMA_CAS);
	ib_dma_sync_single_for_device(conn->dev, sge.addr, sizeof(u64),
				      DMA_FROM_DEVICE);
	ret = scalio_post_wait(conn, &wr.wr, &w);
	if (ret)
		return ret;
	ib_dma_sync_single_for_cpu(conn->dev, sge.addr, sizeof(u64),
				   DMA_FROM_DEVICE);
	/* The atomic result is in the responder's (little-endian) order. */
	*old = le64_to_cpu(*(__le64 *)(io->buf + SCALIO_IO_ATOMIC_OFF));
	if (*old != compare)
		scalio_hstat_inc(conn->hs, SCALIO_HS_CAS_FAILURES);
	return 0;
}

struct scalio_ts_write {
	struct ib_cqe		cqe;
	struct scalio_conn	*conn;
	__le64			ts;
	u64			dma;
};

static void scalio_ts_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_ts_write *t = container_of(wc->wr_cqe,
						 struct scalio_ts_write, cqe);
	struct scalio_conn *conn = t->conn;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		scalio_conn_fail(conn);
	ib_dma_unmap_single(conn->dev, t->dma, sizeof(t->ts), DMA_TO_DEVICE);
	kfree(t);
	atomic_dec(&conn->ts_inflight);
}

/**
 * scalio_rdma_write_ts() - fire-and-forget RDMA WRITE of a slot's last_ts
 * @conn:	connection (io_rwsem held for reading by the caller)
 * @raddr:	remote address of the last_ts word
 * @rkey:	its rkey
 * @ts:		target clock value
 *
 * Only an LRU hint: skipped when too many are in flight or memory is short.
 */
void scalio_rdma_write_ts(struct scalio_conn *conn, u64 raddr, u32 rkey,
			  u64 ts)
{
	struct scalio_ts_write *t;
	struct ib_sge sge;
	struct ib_rdma_wr wr = {};

	if (scalio_conn_dead(conn))
		return;
	if (atomic_inc_return(&conn->ts_inflight) > SCALIO_HOST_TS_MAX)
		goto out_dec;
	t = kmalloc(sizeof(*t), GFP_NOIO);
	if (!t)
		goto out_dec;
	t->conn = conn;
	t->cqe.done = scalio_ts_done;
	t->ts = cpu_to_le64(ts);
	if (scalio_map(conn, &t->ts, sizeof(t->ts), DMA_TO_DEVICE, &t->dma))
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
/* rdma_cm                                                             */

static int scalio_cm_rejected(struct scalio_conn *conn,
			      struct rdma_cm_id *id,
			      struct rdma_cm_event *ev)
{
	const struct scalio_cm_rej *rej;
	u8 len = 0;
	u16 status;

	rej = rdma_consumer_reject_data(id, ev, &len);
	if (!rej) {
		/* Not the target's decision: nobody listens there, typically. */
		pr_info("%s: connection rejected: %s\n", conn->hs->name,
			rdma_reject_msg(id, ev->status));
		return -ECONNREFUSED;
	}
	if (len < sizeof(*rej) ||
	    le16_to_cpu(rej->magic) != SCALIO_PROTO_MAGIC)
		return -ECONNREFUSED;
	status = le16_to_cpu(rej->status);
	if (!status || status >= MAX_ERRNO)
		return -ECONNREFUSED;
	pr_info("%s: target refused the connection: %d\n", conn->hs->name,
		-status);
	return -status;
}

static int scalio_cm_established(struct scalio_conn *conn,
				 struct rdma_cm_event *ev)
{
	const struct scalio_cm_rep *rep = ev->param.conn.private_data;
	u16 qd, cid;

	if (!rep || ev->param.conn.private_data_len < sizeof(*rep) ||
	    le16_to_cpu(rep->magic) != SCALIO_PROTO_MAGIC ||
	    rep->major != SCALIO_PROTO_MAJOR)
		return -EPROTO;
	qd = le16_to_cpu(rep->queue_depth);
	cid = le16_to_cpu(rep->client_id);
	if (!qd || qd > conn->qd_req || !cid || cid > SCALIO_MAX_CLIENTS)
		return -EPROTO;
	conn->qd = qd;
	conn->client_id = cid;
	set_bit(SCALIO_CONN_CONNECTED, &conn->flags);
	return 0;
}

static int scalio_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct scalio_conn *conn = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		conn->cm_error = 0;
		complete(&conn->cm_done);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		conn->cm_error = scalio_cm_established(conn, ev);
		complete(&conn->cm_done);
		break;
	case RDMA_CM_EVENT_REJECTED:
		conn->cm_error = scalio_cm_rejected(conn, id, ev);
		complete(&conn->cm_done);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		conn->cm_error = -EHOSTUNREACH;
		complete(&conn->cm_done);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		conn->cm_error = -ECONNRESET;
		complete(&conn->cm_done);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		if (test_bit(SCALIO_CONN_CONNECTED, &conn->flags)) {
			scalio_conn_fail(conn);
		} else {
			conn->cm_error = -ECONNRESET;
			complete(&conn->cm_done);
		}
		break;
	default:
		pr_debug("%s: ignored cm event %s\n", conn->hs->name,
			 rdma_event_msg(ev->event));
		break;
	}
	/* Never destroy the id from here: teardown does it, once. */
	return 0;
}

/* Wait for the CM handler to report the step just started. */
static int scalio_cm_wait(struct scalio_conn *conn, unsigned long timeout)
{
	long ret;

	ret = wait_for_completion_killable_timeout(&conn->cm_done, timeout);
	if (ret < 0)
		return -EINTR;
	if (!ret)
		return -ETIMEDOUT;
	return conn->cm_error;
}

static int scalio_conn_create_qp(struct scalio_conn *conn)
{
	struct ib_qp_init_attr attr = {};
	u32 sq = conn->qd_req + SCALIO_HOST_NR_IO + SCALIO_HOST_TS_MAX + 1;
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

/**
 * scalio_conn_connect() - resolve, create the QP, connect to the store
 * @hs:		store (name set)
 * @traddr:	IPv4/IPv6 literal
 * @trsvcid:	port
 * @timeout_ms:	for each step
 *
 * On failure the caller runs scalio_conn_destroy(), which undoes whatever
 * part was set up.
 *
 * Return: 0, or -EINVAL (bad address), -ETIMEDOUT, -ECONNREFUSED, an errno
 * the target's reject carried (-ENOENT: no such store...), -EPROTO...
 */
int scalio_conn_connect(struct scalio_hstore *hs, const char *traddr,
			u32 trsvcid, u32 timeout_ms)
{
	struct scalio_conn *conn = &hs->conn;
	unsigned long tmo = msecs_to_jiffies(timeout_ms);
	struct sockaddr_storage addr;
	struct rdma_conn_param param = {};
	struct scalio_cm_req req = {};
	char port[8];
	u32 i;
	int ret;

	snprintf(port, sizeof(port), "%u", trsvcid);
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, traddr, port, &addr);
	if (ret)
		return -EINVAL;

	conn->qd_req = clamp_t(u32, scalio_queue_depth, 1,
			       SCALIO_QUEUE_DEPTH_MAX);
	conn->cm_id = rdma_create_id(&init_net, scalio_cm_handler, conn,
				     RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(conn->cm_id)) {
		ret = PTR_ERR(conn->cm_id);
		conn->cm_id = NULL;
		return ret;
	}

	reinit_completion(&conn->cm_done);
	ret = rdma_resolve_addr(conn->cm_id, NULL, (struct sockaddr *)&addr,
				timeout_ms);
	if (ret)
		return ret;
	ret = scalio_cm_wait(conn, tmo);
	if (ret)
		return ret;

	reinit_completion(&conn->cm_done);
	ret = rdma_resolve_route(conn->cm_id, timeout_ms);
	if (ret)
		return ret;
	ret = scalio_cm_wait(conn, tmo);
	if (ret)
		return ret;

	conn->dev = conn->cm_id->device;
	ret = scalio_conn_create_qp(conn);
	if (ret)
		return ret;
	ret = scalio_conn_alloc_bufs(conn);
	if (ret)
		return ret;
	for (i = 0; i < conn->qd_req; i++) {
		ret = scalio_post_recv(conn, &conn->recvs[i]);
		if (ret)
			return ret;
	}

	req.magic = cpu_to_le16(SCALIO_PROTO_MAGIC);
	req.major = SCALIO_PROTO_MAJOR;
	req.minor = SCALIO_PROTO_MINOR;
	req.queue_depth = cpu_to_le16(conn->qd_req);
	strscpy(req.store, hs->name, sizeof(req.store));
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.initiator_depth = min_t(u32, 16,
				      conn->dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = min_t(u32, 16,
					  conn->dev->attrs.max_qp_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;

	reinit_completion(&conn->cm_done);
	ret = rdma_connect(conn->cm_id, &param);
	if (ret)
		return ret;
	ret = scalio_cm_wait(conn, tmo);
	if (ret)
		return ret;

	/* Only the granted depth of tags is ever used. */
	for (i = 0; i < conn->qd; i++)
		list_add_tail(&conn->rpcs[i].entry, &conn->rpc_free);
	pr_info("%s: connected to %s:%u, client id %u, queue depth %u\n",
		hs->name, traddr, trsvcid, conn->client_id, conn->qd);
	return 0;
}

/**
 * scalio_conn_destroy() - tear a connection down; safe to repeat, and safe
 * on a partly set up connection
 * @conn:	connection
 *
 * Marks the connection dead, disconnects (flushing every posted request
 * and failing every RPC waiter), waits until no operation uses the QP,
 * drains it and frees everything in reverse order of creation.
 */
void scalio_conn_destroy(struct scalio_conn *conn)
{
	if (test_and_set_bit(SCALIO_CONN_FREED, &conn->flags))
		return;
	set_bit(SCALIO_CONN_DEAD, &conn->flags);

	mutex_lock(&conn->teardown_lock);
	scalio_conn_stop(conn);
	/* Every operation holds io_rwsem for reading; all were woken above. */
	down_write(&conn->io_rwsem);
	scalio_conn_release(conn);
	up_write(&conn->io_rwsem);
	mutex_unlock(&conn->teardown_lock);
	/*
	 * Nothing can queue the failure work any more (no handler, no
	 * completion, no operation is left): wait for a queued one.
	 */
	flush_work(&conn->fail_work);
}

/*
 * Free the RDMA resources of a stopped connection in reverse order of
 * creation; teardown_lock and io_rwsem (for writing) held.
 */
static void scalio_conn_release(struct scalio_conn *conn)
{
	if (conn->qp) {
		/* Draining needs a QP that got to RTS (rxe refuses posts before). */
		if (test_bit(SCALIO_CONN_CONNECTED, &conn->flags))
			ib_drain_qp(conn->qp);
		rdma_destroy_qp(conn->cm_id);
		conn->qp = NULL;
	}
	if (conn->cq) {
		ib_free_cq(conn->cq);
		conn->cq = NULL;
	}
	/* Flushed completions have run: nothing references the buffers. */
	scalio_conn_free_bufs(conn);
	if (conn->pd) {
		ib_dealloc_pd(conn->pd);
		conn->pd = NULL;
	}
	if (conn->cm_id) {
		/* Waits for a running CM handler; none is called after. */
		rdma_destroy_id(conn->cm_id);
		conn->cm_id = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* handshake                                                           */

static int scalio_hello(struct scalio_hstore *hs, bool again)
{
	struct scalio_conn *conn = &hs->conn;
	const struct scalio_msg_hello_rep *rep;
	struct scalio_rpc *rpc;
	u32 known = SCALIO_F_OFFLOAD_READ | SCALIO_F_INLINE_CACHE;
	u32 nr_blocks, slots, nr_ssds;
	int ret;

	rpc = scalio_rpc_get(conn);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	ret = scalio_rpc_exec(conn, rpc, SCALIO_MSG_HELLO,
			      sizeof(struct scalio_msg_hdr));
	if (ret)
		goto out;
	ret = scalio_rpc_status(rpc);
	if (ret)
		goto out;
	ret = -EPROTO;
	if (rpc->rsp_len < sizeof(*rep))
		goto out;
	rep = rpc->rsp;
	nr_blocks = le32_to_cpu(rep->nr_blocks);
	slots = le32_to_cpu(rep->slots_per_block);
	nr_ssds = le32_to_cpu(rep->nr_ssds);
	if (again && (nr_blocks != hs->nr_blocks || slots != hs->slots ||
		      nr_ssds != hs->nr_ssds)) {
		pr_err("%s: the store came back with another geometry: detach and attach it again\n",
		       hs->name);
		ret = -ESTALE;
		goto out;
	}
	hs->nr_blocks = nr_blocks;
	hs->slots = slots;
	hs->block_size = le32_to_cpu(rep->block_size);
	hs->nr_ssds = nr_ssds;
	hs->nr_chunks = le32_to_cpu(rep->nr_chunks);
	hs->features = le32_to_cpu(rep->features);
	hs->hdr_addr = le64_to_cpu(rep->hdr_addr);
	hs->hdr_rkey = le32_to_cpu(rep->hdr_rkey);
	hs->lease_ticks = le32_to_cpu(rep->lease_ticks);
	if (!hs->nr_blocks || !is_power_of_2(hs->nr_blocks) ||
	    (hs->slots != 4 && hs->slots != 8 && hs->slots != 16) ||
	    hs->block_size != SCALIO_BLOCK_SIZE(hs->slots) ||
	    !hs->nr_ssds || hs->nr_ssds > SCALIO_MAX_SSDS ||
	    !hs->nr_chunks || hs->nr_chunks > hs->nr_blocks ||
	    !hs->lease_ticks || hs->lease_ticks >= (1U << 15) ||
	    (hs->features & ~known)) {
		pr_err("%s: HELLO with bad geometry\n", hs->name);
		goto out;
	}
	ret = 0;
out:
	scalio_rpc_put(conn, rpc);
	return ret;
}

static int scalio_fetch_chunks(struct scalio_hstore *hs)
{
	struct scalio_conn *conn = &hs->conn;
	struct scalio_hchunk *chunks;
	u32 got = 0, next_block = 0, i, nr;
	int ret = 0;

	/* A new array: on a reconnect the old one is in use until the end. */
	chunks = kvcalloc(hs->nr_chunks, sizeof(*chunks), GFP_KERNEL);
	if (!chunks)
		return -ENOMEM;

	while (got < hs->nr_chunks) {
		struct scalio_msg_chunks_req *req;
		const struct scalio_msg_chunks_rep *rep;
		struct scalio_rpc *rpc;

		rpc = scalio_rpc_get(conn);
		if (IS_ERR(rpc)) {
			ret = PTR_ERR(rpc);
			goto fail;
		}
		req = rpc->req;
		req->first = cpu_to_le32(got);
		req->reserved = 0;
		ret = scalio_rpc_exec(conn, rpc, SCALIO_MSG_CHUNKS,
				      sizeof(*req));
		if (!ret)
			ret = scalio_rpc_status(rpc);
		if (ret)
			goto put;
		rep = rpc->rsp;
		nr = le32_to_cpu(rep->nr);
		ret = -EPROTO;
		if (rpc->rsp_len < struct_size(rep, chunk, nr) ||
		    le32_to_cpu(rep->first) != got || !nr ||
		    nr > hs->nr_chunks - got)
			goto put;
		for (i = 0; i < nr; i++) {
			const struct scalio_wire_chunk *w = &rep->chunk[i];
			struct scalio_hchunk *c = &chunks[got + i];

			c->addr = le64_to_cpu(w->addr);
			c->rkey = le32_to_cpu(w->rkey);
			c->first_block = le32_to_cpu(w->first_block);
			c->nr_blocks = le32_to_cpu(w->nr_blocks);
			c->seg_addr = le64_to_cpu(w->seg_addr);
			c->seg_rkey = le32_to_cpu(w->seg_rkey);
			/* In order, contiguous, never past the table. */
			if (c->first_block != next_block || !c->nr_blocks ||
			    c->nr_blocks > hs->nr_blocks - next_block)
				goto put;
			next_block += c->nr_blocks;
		}
		got += nr;
		ret = 0;
put:
		scalio_rpc_put(conn, rpc);
		if (ret)
			goto fail;
	}
	if (next_block != hs->nr_blocks) {
		pr_err("%s: index chunks do not cover the table\n", hs->name);
		ret = -EPROTO;
		goto fail;
	}
	kvfree(hs->chunks);
	hs->chunks = chunks;
	return 0;
fail:
	kvfree(chunks);
	return ret;
}

static int scalio_fetch_ssd_info(struct scalio_hstore *hs, u32 index,
				 bool again)
{
	struct scalio_conn *conn = &hs->conn;
	struct scalio_msg_ssd_info_req *req;
	const struct scalio_msg_ssd_info_rep *rep;
	struct scalio_hssd *ssd = &hs->ssds[index];
	struct scalio_rpc *rpc;
	int ret;

	rpc = scalio_rpc_get(conn);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	req = rpc->req;
	req->index = cpu_to_le32(index);
	req->reserved = 0;
	ret = scalio_rpc_exec(conn, rpc, SCALIO_MSG_SSD_INFO, sizeof(*req));
	if (!ret)
		ret = scalio_rpc_status(rpc);
	if (ret)
		goto out;
	rep = rpc->rsp;
	ret = -EPROTO;
	if (rpc->rsp_len < sizeof(*rep) || le32_to_cpu(rep->index) != index ||
	    !memchr(rep->nqn, '\0', sizeof(rep->nqn)))
		goto out;
	/* The host's binding of this SSD must still name the same namespace. */
	if (again && (strcmp(ssd->nqn, rep->nqn) ||
		      ssd->nsid != le32_to_cpu(rep->nsid))) {
		pr_err("%s: ssd %u came back as another namespace: detach and attach again\n",
		       hs->name, index);
		ret = -ESTALE;
		goto out;
	}
	memcpy(ssd->nqn, rep->nqn, sizeof(ssd->nqn));
	ssd->nsid = le32_to_cpu(rep->nsid);
	ssd->capacity_sectors = le64_to_cpu(rep->capacity_sectors);
	ret = 0;
out:
	scalio_rpc_put(conn, rpc);
	return ret;
}

/**
 * scalio_conn_handshake() - HELLO, CHUNKS (all), SSD_INFO (each SSD)
 * @hs:		connected store
 * @again:	a reconnect: the geometry and SSDs must be the ones the store
 *		had (-ESTALE otherwise); settings and index chunks are renewed
 *
 * Return: 0 or a negative errno; the caller tears down on failure.
 */
int scalio_conn_handshake(struct scalio_hstore *hs, bool again)
{
	struct scalio_io *io;
	u64 now;
	u32 i;
	int ret;

	ret = scalio_hello(hs, again);
	if (ret)
		return ret;
	ret = scalio_fetch_chunks(hs);
	if (ret)
		return ret;
	for (i = 0; i < hs->nr_ssds; i++) {
		ret = scalio_fetch_ssd_info(hs, i, again);
		if (ret)
			return ret;
	}
	/* Prove the one-sided path works now rather than on the first GET. */
	io = scalio_io_get(&hs->conn);
	if (!io)
		return -ENOTCONN;
	ret = scalio_clock_refresh(hs, io, &now);
	scalio_io_put(&hs->conn, io);
	return ret;
}

/**
 * scalio_conn_reconnect() - replace a lost connection by a new one
 * @hs:	live store whose connection failed
 *
 * Releases what is left of the old connection (failing whatever still used
 * it), then, holding teardown_lock and io_rwsem for writing so that no
 * operation sees a half-built connection, connects again to the address
 * the store was attached with, repeats the handshake and pays the
 * invalidations the loss left owed (scalio_inval_flush()).  Operations fail
 * with -ENOTCONN meanwhile (scalio_conn_enter()).  The store must come
 * back with the geometry and SSDs it had: the SSD bindings depend on them.
 *
 * Return: 0, -ESTALE when the store came back different (it stays down
 * until detached), or the error of this attempt (try again later).
 */
int scalio_conn_reconnect(struct scalio_hstore *hs)
{
	struct scalio_conn *conn = &hs->conn;
	int ret;

	scalio_conn_destroy(conn);

	mutex_lock(&conn->teardown_lock);
	down_write(&conn->io_rwsem);
	/* Until the end of the attempt, operations keep failing at once. */
	set_bit(SCALIO_CONN_RECONNECTING, &conn->flags);
	clear_bit(SCALIO_CONN_CONNECTED, &conn->flags);
	clear_bit(SCALIO_CONN_FREED, &conn->flags);
	clear_bit(SCALIO_CONN_DEAD, &conn->flags);
	conn->cm_error = 0;
	/*
	 * A restarted target's clock starts again from its boot: forget the
	 * old one, or lease checks would run ahead of the target.
	 */
	spin_lock(&hs->clock_lock);
	hs->clock = 0;
	hs->clock_jiffies = jiffies;
	spin_unlock(&hs->clock_lock);
	ret = scalio_conn_connect(hs, hs->traddr, hs->trsvcid, hs->timeout_ms);
	if (!ret)
		ret = scalio_conn_handshake(hs, true);
	/*
	 * Writes whose invalidation the loss cut short: pay for them before
	 * anyone can hit the old values through this client again.
	 */
	if (!ret)
		ret = scalio_inval_flush(hs);
	if (!ret && scalio_conn_dead(conn))
		ret = -ENOTCONN;	/* lost again already */
	if (ret) {
		set_bit(SCALIO_CONN_DEAD, &conn->flags);
		set_bit(SCALIO_CONN_FREED, &conn->flags);
		scalio_conn_stop(conn);
		scalio_conn_release(conn);
	}
	clear_bit(SCALIO_CONN_RECONNECTING, &conn->flags);
	up_write(&conn->io_rwsem);
	mutex_unlock(&conn->teardown_lock);
	return ret;
}

/**
 * scalio_reconnect_work() - try to re-establish a live store's connection
 * @work:	&hs->reconnect_work
 *
 * Retries with a delay that doubles up to SCALIO_RECONNECT_MAX_MS, for as
 * long as the store is attached, unless it came back different (-ESTALE).
 */
void scalio_reconnect_work(struct work_struct *work)
{
	struct scalio_hstore *hs = container_of(to_delayed_work(work),
						struct scalio_hstore,
						reconnect_work);
	int ret;

	if (READ_ONCE(hs->state) != SCALIO_HS_LIVE ||
	    !scalio_conn_dead(&hs->conn))
		return;
	ret = scalio_conn_reconnect(hs);
	if (!ret) {
		WRITE_ONCE(hs->reconnect_delay,
			   msecs_to_jiffies(SCALIO_RECONNECT_MIN_MS));
		scalio_hstat_inc(hs, SCALIO_HS_RECONNECTS);
		pr_info("%s: reconnected to %s:%u\n", hs->name, hs->traddr,
			hs->trsvcid);
		return;
	}
	if (ret == -ESTALE)
		return;
	pr_info_ratelimited("%s: reconnect failed (%d), retrying\n",
			    hs->name, ret);
	WRITE_ONCE(hs->reconnect_delay,
		   min_t(unsigned long, hs->reconnect_delay * 2,
			 msecs_to_jiffies(SCALIO_RECONNECT_MAX_MS)));
	if (READ_ONCE(hs->state) == SCALIO_HS_LIVE)
		scalio_reconnect_schedule(hs);
}

/**
 * scalio_rpc_stats() - fetch the target's counters
 * @hs:		store
 * @out:	filled in CPU order
 */
int scalio_rpc_stats(struct scalio_hstore *hs,
		     struct scalio_target_stats *out)
{
	struct scalio_conn *conn = &hs->conn;
	const struct scalio_msg_stats_rep *rep;
	struct scalio_rpc *rpc;
	const __le64 *src;
	u64 *dst = (u64 *)out;
	size_t i;
	int ret;

	rpc = scalio_rpc_get(conn);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	ret = scalio_rpc_exec(conn, rpc, SCALIO_MSG_STATS,
			      sizeof(struct scalio_msg_hdr));
	if (!ret)
		ret = scalio_rpc_status(rpc);
	if (ret)
		goto out;
	ret = -EPROTO;
	if (rpc->rsp_len < sizeof(*rep))
		goto out;
	rep = rpc->rsp;
	src = (const __le64 *)&rep->stats;
	/* struct scalio_target_stats is an array of u64 on both sides. */
	BUILD_BUG_ON(sizeof(*out) % sizeof(u64));
	for (i = 0; i < sizeof(*out) / sizeof(u64); i++)
		dst[i] = le64_to_cpu(src[i]);
	ret = 0;
out:
	scalio_rpc_put(conn, rpc);
	return ret;
}

/* ------------------------------------------------------------------ */
/* device removal                                                      */

static int scalio_ib_add(struct ib_device *dev)
{
	return 0;
}

/*
 * An RDMA device goes away: release every connection on it now (rdma_cm
 * waits for its ids to be destroyed).  The stores stay, dead: their ops
 * fail with -ENOTCONN until they are detached.
 */
static void scalio_ib_remove(struct ib_device *dev, void *client_data)
{
	struct scalio_hstore *hs;

	mutex_lock(&scalio_hstores_lock);
	list_for_each_entry(hs, &scalio_hstores, entry) {
		if (hs->state != SCALIO_HS_LIVE || hs->conn.dev != dev)
			continue;
		pr_warn("%s: RDMA device %s removed\n", hs->name,
			dev_name(&dev->dev));
		scalio_conn_destroy(&hs->conn);
	}
	mutex_unlock(&scalio_hstores_lock);
}

static struct ib_client scalio_ib_client = {
	.name	= "scalio-host",
	.add	= scalio_ib_add,
	.remove	= scalio_ib_remove,
};

int scalio_rdma_init(void)
{
	return ib_register_client(&scalio_ib_client);
}

void scalio_rdma_exit(void)
{
	ib_unregister_client(&scalio_ib_client);
}
