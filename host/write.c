// SPDX-License-Identifier: GPL-2.0
/*
 * PUT and DELETE: a two-sided RPC to the target, which group-commits the
 * write and updates the block's seg word before it answers; then the
 * invalidation of every slot that may cache the key (DESIGN.md section 3,
 * PUT/DELETE step 3).  Only then does the operation return: that is what
 * makes a later GET's cache hit unable to return the old value.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>

#include "scalio_host.h"

/*
 * A writer sleeps this long between the target's acknowledgement (the
 * write is durable and seg updated) and its invalidation: tests use it to
 * widen the window in which readers see the old cached value while fills
 * already read the new one.  Correct for any delay (the write returns only
 * after the invalidation).
 */
static unsigned int scalio_debug_write_delay_ms;
module_param_named(debug_write_delay_ms, scalio_debug_write_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(debug_write_delay_ms,
		 "TESTING ONLY: sleep this many ms between a write's commit and its invalidation");

/* Send a PUT or DELETE and wait for the durable acknowledgement. */
static int scalio_write_rpc(struct scalio_hstore *hs, u16 op, const u8 *key,
			    u32 klen, const u8 *value, u32 vlen)
{
	struct scalio_msg_kv_req *req;
	struct scalio_rpc *rpc;
	int ret;

	rpc = scalio_kv_rpc_get(&hs->conn, key, klen);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	req = rpc->req;
	req->vlen = cpu_to_le16(vlen);
	if (vlen)
		memcpy(req->value, value, vlen);
	ret = scalio_rpc_exec(&hs->conn, rpc, op, sizeof(*req) + vlen);
	if (!ret)
		ret = scalio_rpc_status(rpc);
	if (!ret && rpc->rsp_len < sizeof(struct scalio_msg_kv_rep))
		ret = -EPROTO;
	scalio_rpc_put(&hs->conn, rpc);
	return ret;
}

/**
 * scalio_invalidate() - turn every slot that may hold @key unusable
 * @hs:		store
 * @key:	the key just written
 * @klen:	key length
 *
 * Reads the block and, for each slot scalio_invalidate_next() names, CASes
 * B -> D or C -> A.  A failed CAS means the slot changed under us: read the
 * block again and start over, until a pass finds nothing left to do.
 *
 * Return: 0, or an error (the write itself is durable either way).
 */
static int scalio_invalidate(struct scalio_hstore *hs, const u8 *key,
			     u32 klen)
{
	struct scalio_conn *conn = &hs->conn;
	unsigned long end = jiffies + msecs_to_jiffies(SCALIO_OP_TIMEOUT_MS);
	u64 hash = scalio_key_hash(key, klen);
	u32 block = scalio_hash_block(hash, hs->nr_blocks);
	u16 fp = scalio_hash_fp(hash);
	struct scalio_block_view v;
	struct scalio_io *io;
	unsigned int attempt;
	u64 raddr, old, new, cur;
	u32 rkey, idx, start;
	bool again;
	int ret;

	ret = scalio_block_locate(hs, block, &raddr, &rkey);
	if (ret)
		return ret;
	io = scalio_io_get(conn);
	if (!io)
		return scalio_conn_dead(conn) ? -ENOTCONN : -EINTR;
	v.buf = io->buf + SCALIO_IO_BLOCK_OFF;
	v.slots = hs->slots;

	for (attempt = 0;; attempt++) {
		if (attempt && time_after(jiffies, end)) {
			pr_warn_ratelimited("%s: block %u: invalidation did not settle\n",
					    hs->name, block);
			ret = -ETIMEDOUT;
			break;
		}
		ret = scalio_rdma_read(conn, io, SCALIO_IO_BLOCK_OFF,
				       hs->block_size, raddr, rkey);
		if (ret)
			break;
		again = false;
		start = 0;
		while (scalio_invalidate_next(&v, key, klen, fp, start, &idx,
					      &new)) {
			old = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);
			ret = scalio_rdma_cas(conn, io, raddr +
					      scalio_slot_offset(idx), rkey,
					      old, new, &cur);
			if (ret)
				goto out;
			if (cur != old) {
				again = true;
				break;
			}
			scalio_hstat_inc(hs, SCALIO_HS_INVALIDATIONS);
			start = idx + 1;
		}
		if (!again)
			break;
		if (attempt > 2)
			scalio_backoff(attempt);
	}
out:
	scalio_io_put(conn, io);
	return ret;
}

static int scalio_write(struct scalio_hstore *hs, u16 op, const u8 *key,
			u32 klen, const u8 *value, u32 vlen)
{
	struct scalio_conn *conn = &hs->conn;
	int ret;

	ret = scalio_conn_enter(conn);
	if (ret)
		goto out;
	ret = scalio_write_rpc(hs, op, key, klen, value, vlen);
	/*
	 * A DELETE of a missing key changed nothing durable, but a stale
	 * cached copy must not outlive it either: invalidate in both cases.
	 */
	if ((!ret || ret == -ENOENT) &&
	    (hs->features & SCALIO_F_INLINE_CACHE) &&
	    !scalio_debug_skip_invalidate) {
		unsigned int delay = READ_ONCE(scalio_debug_write_delay_ms);
		int iret;

		if (delay)
			msleep_interruptible(min(delay, 60000U));
		iret = scalio_invalidate(hs, key, klen);

		if (iret)
			ret = iret;
	}
	scalio_conn_exit(conn);
out:
	if (ret && ret != -ENOENT)
		scalio_hstat_inc(hs, SCALIO_HS_ERRORS);
	return ret;
}

/**
 * scalio_put() - store a key/value pair durably
 * @hs:		store
 * @key:	key (checked by the caller)
 * @klen:	key length
 * @value:	value
 * @vlen:	value length, at most SCALIO_VALUE_MAX
 *
 * Return: 0 once durable and no slot can serve an older value; or -ENOSPC,
 * -EIO, -ENOTCONN, -ETIMEDOUT...
 */
int scalio_put(struct scalio_hstore *hs, const u8 *key, u32 klen,
	       const u8 *value, u32 vlen)
{
	scalio_hstat_inc(hs, SCALIO_HS_PUTS);
	return scalio_write(hs, SCALIO_MSG_PUT, key, klen, value, vlen);
}

/**
 * scalio_delete() - remove a key durably
 * @hs:		store
 * @key:	key
 * @klen:	key length
 *
 * Return: 0, -ENOENT if the key did not exist, or an error.
 */
int scalio_delete(struct scalio_hstore *hs, const u8 *key, u32 klen)
{
	scalio_hstat_inc(hs, SCALIO_HS_DELETES);
	return scalio_write(hs, SCALIO_MSG_DELETE, key, klen, NULL, 0);
}
