// SPDX-License-Identifier: GPL-2.0
/*
 * Control: who is connected to a store and whether they may stay.
 *
 * The transport (rdma.c, rpc.c) calls in here when a connection asks for
 * room, when an ADMIT was decided (identify the host and retire its older
 * connections), and when allowed_hosts changes (configfs.c).  The keep-alive
 * reaper runs here.  Control never calls the transport directly: it drops
 * a connection through the ops the transport gave scalio_tgt_ctl_init().
 *
 * State: the fields of struct scalio_tgt_rstore and scalio_tgt_conn it
 * reads and writes are listed with those structures (rdma.h), under the
 * locks named there: rs->lock for rs->conns, rs->cnt_lock for the host
 * identity of a connection and rs->hosts_gen, conn->lock for its state.
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include "rdma.h"
#include "trace.h"

/*
 * Is @conn live and not admitted: no ADMIT sent yet, or its ADMIT refused
 * (it goes once the answer is sent, but a peer that never takes the answer
 * would hold it until the reaper)?  An ADMIT being decided is left alone.
 */
static bool scalio_tgt_conn_unadmitted(struct scalio_tgt_conn *conn)
{
	enum scalio_tgt_admit_state admit = READ_ONCE(conn->admit);
	unsigned long flags;
	bool live;

	if (admit == SCALIO_ADMIT_DONE ||
	    (admit == SCALIO_ADMIT_PENDING && !READ_ONCE(conn->refused)))
		return false;
	spin_lock_irqsave(&conn->lock, flags);
	live = conn->state == SCALIO_CONN_LIVE;
	spin_unlock_irqrestore(&conn->lock, flags);
	return live;
}

/*
 * scalio_tgt_ctl_room() - is there room for one more connection?
 * @rs:		store transport
 *
 * Connections not yet freed count (a reaped one holds memory too).  At
 * attr_max_clients the oldest connection that has not sent its ADMIT, or
 * whose ADMIT was refused, is dropped to make room: a real host sends it
 * right after connecting, so such a connection may be a peer without
 * credentials holding the store's slots until the keep-alive reaper comes,
 * and it must not lock the hosts out.  The dropped ones count until they are
 * freed, up to SCALIO_EVICT_SLACK of them beyond the limit.
 *
 * Return: 0, or -EUSERS.
 */
int scalio_tgt_ctl_room(struct scalio_tgt_rstore *rs)
{
	u32 max = READ_ONCE(rs->st->max_clients), n;
	struct scalio_tgt_conn *conn, *victim = NULL;

	spin_lock(&rs->cnt_lock);
	n = rs->nr_conns;
	spin_unlock(&rs->cnt_lock);
	if (n < max)
		return 0;
	if (n >= max + SCALIO_EVICT_SLACK)
		return -EUSERS;

	mutex_lock(&rs->lock);
	/* rs->conns is in accept order: the oldest first. */
	list_for_each_entry(conn, &rs->conns, entry) {
		if (scalio_tgt_conn_unadmitted(conn)) {
			victim = conn;
			break;
		}
	}
	if (victim) {
		pr_info_ratelimited("store %s: %u clients: dropping client %u (connected, not admitted) for a new one\n",
				    rs->st->name, n, victim->client_id);
		rs->ctl_ops->disconnect(victim);
	}
	mutex_unlock(&rs->lock);
	return victim ? 0 : -EUSERS;
}

/* Is @old an earlier connection of the host @conn identified as? */
static bool scalio_tgt_conn_same_host(struct scalio_tgt_conn *old,
				      struct scalio_tgt_conn *conn)
{
	return old != conn && old->identified &&
	       !memcmp(old->host_id, conn->host_id, sizeof(conn->host_id)) &&
	       !strcmp(old->hostnqn, conn->hostnqn);
}

static bool scalio_tgt_rstore_has_older(struct scalio_tgt_rstore *rs,
					struct scalio_tgt_conn *conn)
{
	struct scalio_tgt_conn *old;
	bool found = false;

	spin_lock(&rs->cnt_lock);
	list_for_each_entry(old, &rs->all_conns, all_entry) {
		if (scalio_tgt_conn_same_host(old, conn)) {
			found = true;
			break;
		}
	}
	spin_unlock(&rs->cnt_lock);
	return found;
}

/*
 * The live connections host @hostnqn holds besides @conn under other host
 * ids (those under @conn's host id are retired by its admission).  A host
 * is its NQN: admission proves the NQN's secret, and the host id is
 * whatever the peer sends.  rs->lock and rs->cnt_lock held.
 */
static u32 scalio_tgt_host_conns(struct scalio_tgt_rstore *rs,
				 struct scalio_tgt_conn *conn,
				 const char *hostnqn)
{
	struct scalio_tgt_conn *old;
	u32 n = 0;

	list_for_each_entry(old, &rs->conns, entry) {
		if (old == conn || !old->identified ||
		    strcmp(old->hostnqn, hostnqn) ||
		    !memcmp(old->host_id, conn->host_id, sizeof(old->host_id)) ||
		    READ_ONCE(old->state) != SCALIO_CONN_LIVE)
			continue;
		n++;
	}
	return n;
}

/**
 * scalio_tgt_ctl_hosts_gen() - read before deciding an ADMIT
 * @conn:	connection being admitted
 *
 * Return: the generation of its store's host list, for
 * scalio_tgt_ctl_identify().
 */
u64 scalio_tgt_ctl_hosts_gen(struct scalio_tgt_conn *conn)
{
	struct scalio_tgt_rstore *rs = conn->rs;
	u64 gen;

	spin_lock(&rs->cnt_lock);
	gen = rs->hosts_gen;
	spin_unlock(&rs->cnt_lock);
	return gen;
}

/**
 * scalio_tgt_ctl_identify() - record an admitted host's identity, and finish
 * its older connections first
 * @conn:	connection being admitted
 * @hostnqn:	its host NQN (valid)
 * @hosts_gen:	scalio_tgt_ctl_hosts_gen() from before the admission was
 *		decided
 *
 * A host removed from allowed_hosts while its ADMIT was being decided
 * would not be dropped by scalio_tgt_ctl_host_denied(), which only sees
 * identified connections on rs->conns: the generation check and the
 * marking happen under rs->lock, which the removal bumps the generation
 * under and walks rs->conns under, and only once the connection is on
 * rs->conns (accepted); so either the removal sees this connection
 * identified or this sees the removal (-EAGAIN: decide again).
 *
 * A host reconnects after a loss it may have seen before the target did,
 * and then pays the invalidations of writes whose answers the loss cut
 * short.  Those writes must all be answered or dropped first, or an
 * invalidation could precede the write it covers.  So every older
 * connection of the same host (same host id and NQN) is disconnected, and
 * this waits until each is freed: its QP drained (ib_drain_qp) and every
 * request it received answered or dropped (a queued write holds the
 * connection until its batch is durable).  Sleeps.
 *
 * A host (an NQN) holds at most attr_max_host_clients connections under
 * different host ids: one admitted host cannot take every connection of
 * the store, nor more than that many fair shares of its commit threads.
 *
 * Return: 0, -EUSERS (the host has attr_max_host_clients connections),
 * -EAGAIN (a host was removed meanwhile, or the connection is
 * not on rs->conns yet), -ENOTCONN (it is being torn down, or the host
 * already identified a newer connection), or -EBUSY if
 * an older connection is not gone within SCALIO_ADMIT_BARRIER_MS (the
 * host retries).
 */
int scalio_tgt_ctl_identify(struct scalio_tgt_conn *conn, const char *hostnqn,
			    u64 hosts_gen)
{
	struct scalio_tgt_rstore *rs = conn->rs;
	bool after = false, newer = false;
	struct scalio_tgt_conn *old;
	unsigned long flags;
	int ret = 0;

	mutex_lock(&rs->lock);
	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state != SCALIO_CONN_LIVE)
		ret = -ENOTCONN;	/* torn down (or never accepted) */
	else if (!conn->accepted)
		ret = -EAGAIN;
	spin_unlock_irqrestore(&conn->lock, flags);
	spin_lock(&rs->cnt_lock);
	if (!ret && rs->hosts_gen != hosts_gen)
		ret = -EAGAIN;
	if (ret) {
		spin_unlock(&rs->cnt_lock);
		mutex_unlock(&rs->lock);
		return ret;
	}
	if (scalio_tgt_host_conns(rs, conn, hostnqn) >=
	    READ_ONCE(rs->st->max_host_clients)) {
		spin_unlock(&rs->cnt_lock);
		mutex_unlock(&rs->lock);
		pr_warn_ratelimited("store %s: host %s: refusing client %u: attr_max_host_clients (%u) reached\n",
				    rs->st->name, hostnqn, conn->client_id,
				    READ_ONCE(rs->st->max_host_clients));
		return -EUSERS;
	}
	strscpy(conn->hostnqn, hostnqn, sizeof(conn->hostnqn));
	conn->identified = true;
	spin_unlock(&rs->cnt_lock);

	/*
	 * rs->conns is in accept order.  A newer connection of the host
	 * already identified means the host gave up on this one: this one
	 * goes, not the newer.
	 */
	list_for_each_entry(old, &rs->conns, entry) {
		if (old == conn) {
			after = true;
			continue;
		}
		if (!after)
			continue;
		spin_lock(&rs->cnt_lock);
		newer = scalio_tgt_conn_same_host(old, conn);
		spin_unlock(&rs->cnt_lock);
		if (newer)
			break;
	}
	if (newer) {
		spin_lock(&rs->cnt_lock);
		conn->identified = false;
		spin_unlock(&rs->cnt_lock);
		mutex_unlock(&rs->lock);
		return -ENOTCONN;
	}
	list_for_each_entry(old, &rs->conns, entry) {
		bool same;

		if (old == conn)
			break;
		spin_lock(&rs->cnt_lock);
		same = scalio_tgt_conn_same_host(old, conn);
		spin_unlock(&rs->cnt_lock);
		if (!same)
			continue;
		pr_info("store %s: host %s reconnected as client %u: retiring its client %u\n",
			rs->st->name, hostnqn, conn->client_id, old->client_id);
		rs->ctl_ops->disconnect(old);
	}
	mutex_unlock(&rs->lock);

	if (!wait_event_timeout(rs->wait, !scalio_tgt_rstore_has_older(rs,
								       conn),
				msecs_to_jiffies(SCALIO_ADMIT_BARRIER_MS))) {
		pr_warn("store %s: host %s: an older connection is still draining\n",
			rs->st->name, hostnqn);
		return -EBUSY;
	}
	return 0;
}

/**
 * scalio_tgt_ctl_hosts_changed() - drop the connections admission no
 * longer covers as it did
 * @st:		enabled store (store->lock held)
 * @hostnqn:	the host removed from allowed_hosts or given another secret;
 *		NULL: every host admitted without an allowed_hosts entry
 *		(attr_allow_any_host was cleared)
 * @why:	for the log line ("no longer allowed", ...)
 *
 * Their hosts reconnect and are admitted, or refused, by the rules as they
 * are now; ADMITs decided before the change are decided again.
 */
void scalio_tgt_ctl_hosts_changed(struct scalio_tgt_store *st,
				  const char *hostnqn, const char *why)
{
	struct scalio_tgt_rstore *rs = st->transport;
	struct scalio_tgt_conn *conn;
	char nqn[SCALIO_NQN_MAX];

	if (!rs)
		return;
	mutex_lock(&rs->lock);
	/* ADMITs not yet identified decide again (scalio_tgt_ctl_identify()). */
	spin_lock(&rs->cnt_lock);
	rs->hosts_gen++;
	spin_unlock(&rs->cnt_lock);
	/* (Under rs->lock: every identified connection is on rs->conns.) */
	list_for_each_entry(conn, &rs->conns, entry) {
		bool ident;

		spin_lock(&rs->cnt_lock);
		ident = conn->identified;
		if (ident)
			strscpy(nqn, conn->hostnqn, sizeof(nqn));
		spin_unlock(&rs->cnt_lock);
		if (!ident || (hostnqn ? strcmp(nqn, hostnqn) :
			       scalio_tgt_admit_listed(st, nqn)))
			continue;
		pr_info("store %s: host %s %s: disconnecting client %u\n",
			st->name, nqn, why, conn->client_id);
		rs->ctl_ops->disconnect(conn);
	}
	mutex_unlock(&rs->lock);
}

/* Why a connection should be reaped now, or NULL. */
static const char *scalio_tgt_conn_stale(struct scalio_tgt_conn *conn,
					 unsigned long now, unsigned long kato)
{
	const char *why = NULL;
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state != SCALIO_CONN_LIVE)
		goto out;
	if (time_after(now, READ_ONCE(conn->last_rx) + kato))
		why = conn->admit == SCALIO_ADMIT_DONE ?
		      "no keep-alive" : "not admitted in time";
	else if (conn->sends_inflight &&
		 time_after(now, conn->tx_progress + kato))
		why = "responses not taken";
out:
	spin_unlock_irqrestore(&conn->lock, flags);
	return why;
}

/*
 * How often the reaper looks: a third of the KATO (at most
 * SCALIO_REAP_INTERVAL_MS), so every silence of 4/3 KATO or longer holds
 * a look past the KATO: a host keeping such a period is always caught.
 */
static unsigned long scalio_tgt_reap_interval(struct scalio_tgt_store *st)
{
	return msecs_to_jiffies(min_t(u32, READ_ONCE(st->kato_ms) / 3,
				      SCALIO_REAP_INTERVAL_MS));
}

/*
 * The keep-alive reaper: disconnect every connection that is silent or
 * stuck for the store's KATO.  Its client id and memory go when the
 * requests it had in flight are done.
 */
static void scalio_tgt_rstore_reap_work(struct work_struct *w)
{
	struct scalio_tgt_rstore *rs = container_of(to_delayed_work(w),
						    struct scalio_tgt_rstore,
						    reap_work);
	/* attr_kato_ms changes only while the store is disabled. */
	u32 kato_ms = READ_ONCE(rs->st->kato_ms);
	unsigned long kato = msecs_to_jiffies(kato_ms);
	struct scalio_tgt_conn *conn;
	unsigned long now = jiffies;
	const char *why;

	mutex_lock(&rs->lock);
	list_for_each_entry(conn, &rs->conns, entry) {
		why = scalio_tgt_conn_stale(conn, now, kato);
		if (!why)
			continue;
		pr_warn("store %s: reaping client %u (host %s): %s for %u ms\n",
			rs->st->name, conn->client_id,
			conn->identified ? conn->hostnqn : "unknown", why,
			kato_ms);
		trace_scalio_tgt_reap(rs->st, conn->client_id,
				      conn->identified ? conn->hostnqn :
							 "unknown",
				      why, kato_ms);
		rs->ctl_ops->disconnect(conn);
	}
	if (!rs->stopping)
		queue_delayed_work(rs->ctl_wq, &rs->reap_work,
				   scalio_tgt_reap_interval(rs->st));
	mutex_unlock(&rs->lock);
}

/**
 * scalio_tgt_ctl_init() - set up the control state of a store transport
 * @rs:		store transport, not listening yet
 * @ops:	how control drops a connection
 * @wq:		where the keep-alive reaper runs
 */
void scalio_tgt_ctl_init(struct scalio_tgt_rstore *rs,
			 const struct scalio_tgt_ctl_ops *ops,
			 struct workqueue_struct *wq)
{
	rs->ctl_ops = ops;
	rs->ctl_wq = wq;
	INIT_DELAYED_WORK(&rs->reap_work, scalio_tgt_rstore_reap_work);
}

/* Start the keep-alive reaper once the store listens. */
void scalio_tgt_ctl_start(struct scalio_tgt_rstore *rs)
{
	queue_delayed_work(rs->ctl_wq, &rs->reap_work,
			   scalio_tgt_reap_interval(rs->st));
}

/*
 * Stop the keep-alive reaper for good (rs->stopping is set, so it does not
 * queue itself again).
 */
void scalio_tgt_ctl_stop(struct scalio_tgt_rstore *rs)
{
	cancel_delayed_work_sync(&rs->reap_work);
}
