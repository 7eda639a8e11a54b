// SPDX-License-Identifier: GPL-2.0
/*
 * Owed invalidations of a departed writer.  A host's PUT or DELETE is
 * answered once durable; the host then invalidates the slots that may
 * cache the old value, by CAS, and only then returns.  A host that dies
 * or is cut off between the two leaves the old value cached, and every
 * other host would keep reading it until the slot happened to be evicted.
 * A host that comes back pays what it owes on reconnect; one that never
 * comes back cannot.
 *
 * So the target remembers, per connection, the writes whose invalidation
 * the host has not confirmed yet: each request carries the host's settle
 * mark (hdr.settled), below which every write of the connection has been
 * invalidated.  When a connection ends, the blocks of what it still owed
 * are retired (scalio_tgt_index_retire()): their epoch moves, and no host
 * serves a slot filled under an older one.  A committed value whose writer
 * vanished is thus served by every reader at most the keep-alive timeout
 * after the writer's last request (the reaper ends its connection), plus
 * the time its last write takes to commit.  Documentation/protocol.rst, "A
 * writer that leaves owing invalidations".
 *
 * Nothing here trusts the host: a wrong mark costs only its own writes'
 * visibility, which it could spoil anyway by not invalidating, and the
 * record is bounded (SCALIO_TGT_OWED_MAX, then every block).
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <linux/spinlock.h>

#include "scalio_target.h"
#include "rdma.h"
#include "trace.h"

void scalio_tgt_settle_init(struct scalio_tgt_conn *conn)
{
	spin_lock_init(&conn->owed.lock);
}

/**
 * scalio_tgt_settle_record() - remember a durable write until it is settled
 * @conn:	the connection it came on
 * @tag:	its request's tag (the sequence number the host settles by)
 * @bucket:	its key's bucket
 *
 * Called before the write is answered: a settle mark that passes it can
 * only be sent after the answer, so it never arrives before the record.
 */
void scalio_tgt_settle_record(struct scalio_tgt_conn *conn, u64 tag,
			      u32 bucket)
{
	struct scalio_tgt_owed *o = &conn->owed;
	u32 block = scalio_bucket_block(bucket, conn->st->index.nr_blocks);
	unsigned long flags;

	if (!conn->st->inline_cache)
		return;
	spin_lock_irqsave(&o->lock, flags);
	if (o->all) {
		/* every block is retired at the end anyway */
	} else if (o->n < SCALIO_TGT_OWED_MAX) {
		o->w[o->n].seq = scalio_tag_seq(tag);
		o->w[o->n].block = block;
		o->n++;
	} else {
		o->all = true;
		o->n = 0;
	}
	spin_unlock_irqrestore(&o->lock, flags);
}

/**
 * scalio_tgt_settle_mark() - a request's settle mark arrived
 * @conn:	connection
 * @mark:	hdr.settled
 *
 * Forgets the writes below @mark.  The host's marks only grow, but a
 * hostile or confused one could send any: an entry is dropped only when
 * it lies below @mark by less than 2^31, so a mark from far away drops
 * nothing it should not in modular order.
 */
void scalio_tgt_settle_mark(struct scalio_tgt_conn *conn, u32 mark)
{
	struct scalio_tgt_owed *o = &conn->owed;
	unsigned long flags;
	u32 i, n;

	if (!conn->st->inline_cache || !READ_ONCE(o->n))
		return;
	spin_lock_irqsave(&o->lock, flags);
	for (i = 0, n = 0; i < o->n; i++)
		if (!scalio_seq_before(o->w[i].seq, mark))
			o->w[n++] = o->w[i];
	o->n = n;
	spin_unlock_irqrestore(&o->lock, flags);
}

/**
 * scalio_tgt_settle_retire() - the connection is gone: retire what it owed
 * @conn:	connection, every request of which has been answered or
 *		dropped (its last reference is gone: nothing else touches
 *		conn->owed)
 *
 * Its host may never invalidate those blocks now: retire them, so that
 * no host serves a value cached there before its writes.  Sleeps.
 */
void scalio_tgt_settle_retire(struct scalio_tgt_conn *conn)
{
	struct scalio_tgt_owed *o = &conn->owed;
	struct scalio_tgt_store *st = conn->st;
	u64 epoch, nr;
	u32 i;

	if (!st->inline_cache || (!o->all && !o->n))
		return;
	if (o->all) {
		nr = scalio_tgt_index_retire_all(&st->index);
	} else {
		epoch = scalio_tgt_index_epoch_next(&st->index);
		for (i = 0; i < o->n; i++)
			scalio_tgt_index_retire(&st->index, o->w[i].block,
						epoch);
		nr = o->n;
	}
	scalio_tgt_stat_add(st, SCALIO_TS_BLOCKS_RETIRED, nr);
	trace_scalio_tgt_retire(st, conn->client_id,
				conn->hostnqn[0] ? conn->hostnqn :
						   "not identified",
				o->n, o->all, nr);
	pr_info("store %s: client %u (%s) left owing the invalidation of %s%u write%s: %llu cache block%s retired\n",
		st->name, conn->client_id,
		conn->hostnqn[0] ? conn->hostnqn : "not identified",
		o->all ? "more than " : "", o->all ? SCALIO_TGT_OWED_MAX : o->n,
		(o->all || o->n != 1) ? "s" : "", nr, nr != 1 ? "s" : "");
	o->n = 0;
	o->all = false;
}
