// SPDX-License-Identifier: GPL-2.0
/*
 * PUT and DELETE: a two-sided RPC to the target, which group-commits the
 * write and updates the block's seg word before it answers; then the
 * invalidation of every slot that may cache the key.  Only then does the
 * operation return: that is what makes a later GET's cache hit unable to
 * return the old value.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "scalio_host.h"
#include "trace.h"

#ifdef SCALIO_TEST_HOOKS
/*
 * A writer sleeps this long between the target's acknowledgement (the
 * write is durable and seg updated) and its invalidation: tests use it to
 * widen the window in which readers see the old cached value while fills
 * already read the new one.  Correct for any delay (the write returns only
 * after the invalidation).
 */
static unsigned int scalio_host_debug_write_delay_ms;
module_param_named(debug_write_delay_ms, scalio_host_debug_write_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(debug_write_delay_ms,
		 "TESTING ONLY: sleep this many ms between a write's commit and its invalidation");

/*
 * One-shot: the next write drops the connection between the target's
 * acknowledgement and its invalidation, as a network failure at the worst
 * moment would.  The invalidation is then owed and paid by the reconnect.
 */
static bool scalio_host_debug_lose_conn_after_write;
module_param_named(debug_lose_conn_after_write,
		   scalio_host_debug_lose_conn_after_write, bool, 0644);
MODULE_PARM_DESC(debug_lose_conn_after_write,
		 "TESTING ONLY: the next write loses the connection between its commit and its invalidation");

/* The test hooks between a write's commit and its invalidation. */
static void scalio_host_write_hooks(struct scalio_host_conn *conn)
{
	unsigned int delay = READ_ONCE(scalio_host_debug_write_delay_ms);

	if (delay)
		msleep_interruptible(min(delay, 60000U));
	if (xchg(&scalio_host_debug_lose_conn_after_write, false))
		scalio_host_conn_fail(conn);
}
#else
static void scalio_host_write_hooks(struct scalio_host_conn *conn)
{
}
#endif

/*
 * Send a PUT or DELETE and wait for the durable acknowledgement.  The
 * request tells the target how many writes to the key's SSD this host has
 * outstanding (itself included), so its commit thread waits for exactly
 * that company and a lone write not at all (protocol.rst, "Group commit").
 * *@sent tells whether the request was handed to the QP: if not, the target
 * cannot have seen it, whatever the error.
 */
static int scalio_host_write_rpc(struct scalio_host_hstore *hs, u16 op, const u8 *key,
				 u32 klen, const u8 *value, u32 vlen, bool *sent,
				 struct scalio_host_settle *settle)
{
	/* The key's bucket picks the SSD its commit thread runs for. */
	u32 bucket = scalio_hash_bucket(scalio_key_hash(hs->hash_seed, key,
							klen),
					hs->nr_buckets);
	atomic_t *out = &hs->writes_out[scalio_bucket_ssd(bucket, hs->nr_ssds)];
	struct scalio_msg_kv_req *req;
	struct scalio_host_rpc *rpc;
	u32 inflight;
	int ret;

	*sent = false;
	rpc = scalio_host_kv_rpc_get(&hs->conn, key, klen);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	req = rpc->req;
	req->vlen = cpu_to_le16(vlen);
	if (vlen)
		memcpy(req->value, value, vlen);
	/*
	 * Each outstanding write holds a tag, so this is at most qd; the
	 * clamp only guards that.  qd and peer_minor cannot change under us:
	 * scalio_host_write() holds io_rwsem, which a reconnect takes to write.
	 */
	inflight = min_t(u32, atomic_inc_return(out), READ_ONCE(hs->conn.qd));
	if (READ_ONCE(hs->conn.peer_minor) >= 1)
		req->inflight = cpu_to_le16(inflight);
	rpc->settle = settle;
	ret = scalio_host_rpc_exec(&hs->conn, rpc, op, sizeof(*req) + vlen);
	rpc->settle = NULL;	/* listed by the exec, or not at all */
	*sent = rpc->posted;
	atomic_dec(out);
	if (!ret)
		ret = scalio_host_rpc_status(rpc);
	if (!ret && rpc->rsp_len < sizeof(struct scalio_msg_kv_rep))
		ret = -EPROTO;
	scalio_host_rpc_put(&hs->conn, rpc);
	return ret;
}

/**
 * scalio_host_invalidate_block() - turn every slot of a block that may hold a key
 *	unusable
 * @hs:		store
 * @block:	the key's block
 * @key:	the key just written, or NULL for every B and C slot
 * @klen:	key length
 * @fp:		key fingerprint
 *
 * Reads the block and, for each slot scalio_invalidate_next() names, CASes
 * B -> D or C -> A.  A failed CAS means that slot changed under us: read
 * the block again and go on from that slot, not from the first one (the
 * slots before it are done: a fill that locks one of them now reads the
 * new seg), so that busy readers of one slot cannot make the writer redo
 * the whole block over and over.
 * The caller holds the connection (scalio_host_conn_enter() or a reconnect).
 *
 * Return: 0, or an error (the write itself is durable either way).
 */
static int scalio_host_invalidate_block(struct scalio_host_hstore *hs, u32 block,
					const u8 *key, u32 klen, u16 fp)
{
	struct scalio_host_conn *conn = &hs->conn;
	unsigned long end = jiffies + msecs_to_jiffies(SCALIO_OP_TIMEOUT_MS);
	struct scalio_block_view v;
	struct scalio_host_io *io;
	unsigned int attempt;
	u64 raddr, old, new, cur;
	u32 rkey, idx, start;
	bool again;
	int ret;

	ret = scalio_host_block_locate(hs, block, &raddr, &rkey);
	if (ret)
		return ret;
	io = scalio_host_io_get(conn);
	if (!io)
		return scalio_host_io_get_err(conn);
	v.buf = io->buf + SCALIO_IO_BLOCK_OFF;
	v.slots = hs->slots;
	start = 0;

	for (attempt = 0;; attempt++) {
		if (attempt && time_after(jiffies, end)) {
			pr_warn_ratelimited("%s: block %u: invalidation did not settle\n",
					    hs->name, block);
			ret = -ETIMEDOUT;
			break;
		}
		ret = scalio_host_rdma_read(conn, io, SCALIO_IO_BLOCK_OFF,
					    hs->block_size, raddr, rkey);
		if (ret)
			break;
		again = false;
		while (scalio_invalidate_next(&v, key, klen, fp, start, &idx,
					      &new)) {
			old = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);
			ret = scalio_host_rdma_cas(conn, io, raddr +
					      scalio_slot_offset(idx), rkey,
					      old, scalio_host_ctl(new), &cur);
			if (ret)
				goto out;
			if (cur != old) {
				again = true;	/* retry from this slot */
				start = idx;
				break;
			}
			scalio_host_hstat_inc(hs, SCALIO_HS_INVALIDATIONS);
			start = idx + 1;
		}
		if (!again)
			break;
		if (attempt > 2)
			scalio_host_backoff(attempt);
	}
out:
	scalio_host_io_put(conn, io);
	return ret;
}

/* Invalidate every slot that may hold @key (writer's step 3). */
static int scalio_host_invalidate(struct scalio_host_hstore *hs, const u8 *key,
				  u32 klen)
{
	u64 hash = scalio_key_hash(hs->hash_seed, key, klen);

	return scalio_host_invalidate_block(hs, scalio_hash_block(hash, hs->nr_blocks),
				       key, klen, scalio_hash_fp(hash));
}

/*
 * A key whose invalidation is owed: its write may have been applied (the
 * outcome was lost with the connection) or was applied and the
 * invalidation failed.  Until it is paid, another client may still hit the
 * old value in a C slot while fills read the new one.
 */
struct scalio_host_inval_key {
	struct list_head	entry;
	u32			klen;
	u8			key[SCALIO_KEY_MAX];
};

/*
 * Remember that @key's slots must still be invalidated; see
 * scalio_host_inval_flush().  @settle: the write, whose settle mark stays
 * owed until every debt is paid.
 */
static void scalio_host_inval_defer(struct scalio_host_hstore *hs, const u8 *key,
				    u32 klen, const struct scalio_host_settle *settle)
{
	struct scalio_host_inval_key *ik, *pos;
	unsigned int n = 0;
	bool owed = false;

	ik = kzalloc(sizeof(*ik), GFP_KERNEL);
	if (ik) {
		ik->klen = klen;
		memcpy(ik->key, key, klen);
	}
	spin_lock(&hs->inval_lock);
	list_for_each_entry(pos, &hs->inval_list, entry) {
		n++;
		if (pos->klen == klen && !memcmp(pos->key, key, klen)) {
			owed = true;
			break;
		}
	}
	if (!owed && ik && !hs->inval_all && n < SCALIO_INVAL_DEFER_MAX) {
		list_add_tail(&ik->entry, &hs->inval_list);
		ik = NULL;
	} else if (!owed) {
		hs->inval_all = true;	/* too many, or no memory: sweep */
	}
	scalio_host_settle_debt(&hs->conn, settle, true);
	spin_unlock(&hs->inval_lock);
	kfree(ik);
	pr_info_ratelimited("%s: invalidation deferred\n", hs->name);
	/* With the connection lost, the reconnect pays instead. */
	if (!scalio_host_conn_dead(&hs->conn))
		mod_delayed_work(system_long_wq, &hs->inval_work,
				 msecs_to_jiffies(SCALIO_INVAL_RETRY_MS));
}

/**
 * scalio_host_inval_flush() - pay every invalidation this client still owes
 * @hs:	store; the caller holds the connection (scalio_host_conn_enter(), or a
 *	reconnect with io_rwsem held for writing)
 *
 * Deferred keys are invalidated one by one; after an overflow every block is
 * swept instead (each B -> D, each C -> A).  What fails stays owed.
 *
 * Return: 0 when nothing is owed any more, else the first error.
 */
int scalio_host_inval_flush(struct scalio_host_hstore *hs)
{
	struct scalio_host_inval_key *ik, *tmp;
	LIST_HEAD(done);
	bool all;
	u32 block;
	int ret = 0;

	spin_lock(&hs->inval_lock);
	all = hs->inval_all;
	hs->inval_all = false;
	if (all) {
		/* The sweep covers every key owed so far. */
		list_splice_init(&hs->inval_list, &done);
	}
	spin_unlock(&hs->inval_lock);

	for (block = 0; all && block < hs->nr_blocks; block++) {
		ret = scalio_host_invalidate_block(hs, block, NULL, 0, 0);
		if (ret) {
			spin_lock(&hs->inval_lock);
			hs->inval_all = true;
			spin_unlock(&hs->inval_lock);
			break;
		}
		cond_resched();
	}
	list_for_each_entry_safe(ik, tmp, &done, entry)
		kfree(ik);
	if (ret)
		return ret;

	for (;;) {
		spin_lock(&hs->inval_lock);
		ik = list_first_entry_or_null(&hs->inval_list,
					      struct scalio_host_inval_key, entry);
		if (ik)
			list_del(&ik->entry);
		else if (!hs->inval_all)	/* all paid: the mark may advance */
			scalio_host_settle_debt(&hs->conn, NULL, false);
		spin_unlock(&hs->inval_lock);
		if (!ik)
			return 0;
		ret = scalio_host_invalidate(hs, ik->key, ik->klen);
		if (ret) {
			spin_lock(&hs->inval_lock);
			list_add(&ik->entry, &hs->inval_list);
			spin_unlock(&hs->inval_lock);
			return ret;
		}
		kfree(ik);
	}
}

/**
 * scalio_host_inval_work() - pay deferred invalidations while connected
 * @work:	&hs->inval_work
 *
 * Retries while the connection is up; once it is lost the reconnect pays
 * (scalio_host_conn_reconnect()) before the store serves anything again.
 */
void scalio_host_inval_work(struct work_struct *work)
{
	struct scalio_host_hstore *hs = container_of(to_delayed_work(work),
						struct scalio_host_hstore,
						inval_work);
	int ret;

	if (READ_ONCE(hs->state) != SCALIO_HS_LIVE ||
	    scalio_host_conn_enter_nowait(&hs->conn))
		return;
	ret = scalio_host_inval_flush(hs);
	scalio_host_conn_exit(&hs->conn);
	if (ret && !scalio_host_conn_dead(&hs->conn) &&
	    READ_ONCE(hs->state) == SCALIO_HS_LIVE)
		mod_delayed_work(system_long_wq, &hs->inval_work,
				 msecs_to_jiffies(SCALIO_INVAL_RETRY_MS));
}

/* Drop what is still owed: the store is going away. */
void scalio_host_inval_forget(struct scalio_host_hstore *hs)
{
	struct scalio_host_inval_key *ik, *tmp;

	list_for_each_entry_safe(ik, tmp, &hs->inval_list, entry)
		kfree(ik);
	INIT_LIST_HEAD(&hs->inval_list);
	hs->inval_all = false;
	scalio_host_settle_debt(&hs->conn, NULL, false);
}

/*
 * Did the write reach the target?  Only a response tells: without one
 * (connection lost, no answer in time, a garbled answer) it may have been
 * committed, and its invalidation is owed.
 */
static bool scalio_host_write_outcome_unknown(int ret)
{
	return ret == -ENOTCONN || ret == -ETIMEDOUT || ret == -EPROTO ||
	       ret == -EINTR || ret == -ECONNRESET;
}

/*
 * A write meets a lost connection in one of two ways.  Never sent (the
 * connection was down as it started, or died before its request was
 * posted): the target cannot have seen it, so it waits for the reconnect
 * like any operation, up to fast_io_fail_ms, and is sent then.  Sent and
 * unanswered: it may have been applied, and it is never sent again.  A
 * blind retry of PUT(k, v) could land after another client's PUT(k, v2)
 * had been acknowledged, and readers would see v, v2, then v again: not
 * linearizable.  It fails with its error (-ENOTCONN, -ETIMEDOUT...) and
 * leaves its invalidation owed (scalio_host_inval_defer()), which the
 * reconnect pays before any operation gets through again.
 */
static int scalio_host_write(struct scalio_host_hstore *hs, u16 op, const u8 *key,
			     u32 klen, const u8 *value, u32 vlen)
{
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_host_settle settle = {};
	unsigned long wait_end = 0;
	bool sent;
	int ret;

again:
	ret = scalio_host_conn_enter_until(conn, &wait_end,
					   op == SCALIO_MSG_PUT ?
					   SCALIO_HOST_OP_PUT : SCALIO_HOST_OP_DELETE);
	if (ret)
		goto out;
	ret = scalio_host_write_rpc(hs, op, key, klen, value, vlen, &sent,
				    &settle);
	if (!sent && ret == -ENOTCONN) {
		/* Nothing left this host: no invalidation is owed either. */
		scalio_host_settle_done(conn, &settle);
		scalio_host_conn_exit(conn);
		if (scalio_host_conn_may_retry(conn, &wait_end))
			goto again;
		ret = scalio_host_conn_fast_fail(conn);
		goto out;
	}
	if (!(hs->features & SCALIO_F_INLINE_CACHE) ||
	    scalio_host_debug_skip_invalidate) {
		/* nothing cached, or the broken variant the tests reject */
	} else if (!ret || ret == -ENOENT) {
		/*
		 * A DELETE of a missing key changed nothing durable, but a
		 * stale cached copy must not outlive it either: invalidate
		 * in both cases.
		 */
		int iret;

		scalio_host_write_hooks(conn);
		iret = scalio_host_invalidate(hs, key, klen);
		if (iret) {
			scalio_host_inval_defer(hs, key, klen, &settle);
			ret = iret;
		}
	} else if (scalio_host_write_outcome_unknown(ret)) {
		scalio_host_inval_defer(hs, key, klen, &settle);
	}
	scalio_host_settle_done(conn, &settle);
	scalio_host_conn_exit(conn);
out:
	if (ret && ret != -ENOENT)
		scalio_host_hstat_inc(hs, SCALIO_HS_ERRORS);
	return ret;
}

/**
 * scalio_host_put() - store a key/value pair durably
 * @hs:		store
 * @key:	key (checked by the caller)
 * @klen:	key length
 * @value:	value
 * @vlen:	value length, at most SCALIO_VALUE_MAX
 *
 * Return: 0 once durable and no slot can serve an older value; or -ENOSPC,
 * -EIO, -EHOSTDOWN (not sent: the connection stayed down for the store's
 * fast_io_fail_ms), -ENOTCONN or -ETIMEDOUT (sent, outcome unknown)...
 */
int scalio_host_put(struct scalio_host_hstore *hs, const u8 *key, u32 klen,
		    const u8 *value, u32 vlen)
{
	u64 hash = 0, t0 = 0;
	int ret;

	scalio_host_hstat_inc(hs, SCALIO_HS_PUTS);
	if (trace_scalio_host_put_issue_enabled() ||
	    trace_scalio_host_put_done_enabled()) {
		hash = scalio_key_hash(hs->hash_seed, key, klen);
		t0 = scalio_host_trace_t0(true);
	}
	trace_scalio_host_put_issue(hs, hash, vlen);
	ret = scalio_host_write(hs, SCALIO_MSG_PUT, key, klen, value, vlen);
	if (trace_scalio_host_put_done_enabled())
		trace_scalio_host_put_done(hs, hash, ret,
					    scalio_host_trace_since(t0));
	return ret;
}

/**
 * scalio_host_delete() - remove a key durably
 * @hs:		store
 * @key:	key
 * @klen:	key length
 *
 * Return: 0, -ENOENT if the key did not exist, or an error.
 */
int scalio_host_delete(struct scalio_host_hstore *hs, const u8 *key, u32 klen)
{
	u64 hash = 0, t0 = 0;
	int ret;

	scalio_host_hstat_inc(hs, SCALIO_HS_DELETES);
	if (trace_scalio_host_delete_issue_enabled() ||
	    trace_scalio_host_delete_done_enabled()) {
		hash = scalio_key_hash(hs->hash_seed, key, klen);
		t0 = scalio_host_trace_t0(true);
	}
	trace_scalio_host_delete_issue(hs, hash, 0);
	ret = scalio_host_write(hs, SCALIO_MSG_DELETE, key, klen, NULL, 0);
	if (trace_scalio_host_delete_done_enabled())
		trace_scalio_host_delete_done(hs, hash, ret,
					    scalio_host_trace_since(t0));
	return ret;
}
