// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-host connection lifecycle: rdma_cm (resolve, connect, events),
 * teardown, reconnect with its backoff, and RDMA device removal.
 *
 * A connection is built by scalio_host_conn_connect() + scalio_host_conn_handshake()
 * (handshake.c), and lost one way only: scalio_host_conn_fail() (rdma.c) marks
 * it dead and queues conn->fail_work, which stops the QP here and, for a
 * live store, schedules a reconnect.  The reconnect rebuilds the
 * connection, repeats the handshake and pays the invalidations the loss
 * left owed (write.c) before the store serves anything again.  Operations
 * that find the connection down wait for that, up to the store's
 * fast_io_fail_ms, as nvme's requests do up to fast_io_fail_tmo.  As in
 * nvme-rdma, this error recovery is kept apart from the queue code: the
 * transport (rdma.c) never calls up into this file or the protocol.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/jiffies.h>

#include "scalio_host.h"
#include "trace.h"

static void scalio_host_conn_fail_work(struct work_struct *work);
static void scalio_host_conn_release(struct scalio_host_conn *conn);

/* ------------------------------------------------------------------ */
/* connection state and failure                                        */

/**
 * scalio_host_conn_init() - initialize the parts of a connection that teardown
 * relies on, before anything can fail
 * @hs:	owner
 */
void scalio_host_conn_init(struct scalio_host_hstore *hs)
{
	struct scalio_host_conn *conn = &hs->conn;

	conn->hs = hs;
	init_completion(&conn->cm_done);
	spin_lock_init(&conn->rpc_lock);
	INIT_LIST_HEAD(&conn->rpc_free);
	INIT_LIST_HEAD(&conn->unsettled);
	init_waitqueue_head(&conn->rpc_wq);
	spin_lock_init(&conn->io_lock);
	INIT_LIST_HEAD(&conn->io_free);
	init_waitqueue_head(&conn->io_wq);
	atomic_set(&conn->ts_inflight, 0);
	init_rwsem(&conn->io_rwsem);
	mutex_init(&conn->teardown_lock);
	INIT_WORK(&conn->fail_work, scalio_host_conn_fail_work);
	init_waitqueue_head(&conn->state_wq);
	atomic_set(&conn->waiting, 0);
}

/*
 * Stop the QP: rdma_disconnect() moves it to the error state, which
 * flushes every posted work request (one-sided waiters get their
 * completion); then fail the RPC waiters.  conn->teardown_lock held.
 *
 * A target that refuses a host answers and then disconnects, so the
 * DISCONNECTED event can overtake the answer's receive completion, which
 * sits in the CQ until its softirq poll runs.  Draining first runs every
 * completion the device already produced: an answer that arrived is
 * delivered, not replaced by -ENOTCONN.
 */
static void scalio_host_conn_stop(struct scalio_host_conn *conn)
{
	bool connected = test_bit(SCALIO_CONN_CONNECTED, &conn->flags);

	if (conn->cm_id && connected)
		rdma_disconnect(conn->cm_id);
	if (conn->qp) {
		struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

		/* Draining needs a QP that got to RTS (rxe refuses posts before). */
		if (connected)
			ib_drain_qp(conn->qp);
		else
			ib_modify_qp(conn->qp, &attr, IB_QP_STATE);
	}
	scalio_host_rpc_fail_all(conn);
}

static void scalio_host_conn_fail_work(struct work_struct *work)
{
	struct scalio_host_conn *conn = container_of(work, struct scalio_host_conn,
					       fail_work);

	struct scalio_host_hstore *hs = conn->hs;

	bool lost;

	mutex_lock(&conn->teardown_lock);
	/*
	 * Once freed, teardown has done all of this itself; and a reconnect
	 * may have built a new, healthy connection since we were queued.
	 */
	lost = !test_bit(SCALIO_CONN_FREED, &conn->flags) &&
	       scalio_host_conn_dead(conn);
	if (lost)
		scalio_host_conn_stop(conn);
	mutex_unlock(&conn->teardown_lock);
	/*
	 * A live store reconnects by itself; detach cancels the reconnect
	 * after moving the store out of SCALIO_HS_LIVE, then flushes us.
	 */
	if (lost && READ_ONCE(hs->state) == SCALIO_HS_LIVE)
		scalio_host_reconnect_schedule(hs);
}

/* The delay before the next reconnect attempt, in jiffies (see below). */
static unsigned long scalio_host_reconnect_next(struct scalio_host_hstore *hs)
{
	unsigned long delay = READ_ONCE(hs->reconnect_delay);

	if (atomic_read(&hs->conn.waiting))
		delay = min(delay, msecs_to_jiffies(SCALIO_RECONNECT_MIN_MS));
	return delay;
}

/**
 * scalio_host_reconnect_schedule() - queue a reconnect attempt of a store
 * @hs:	store
 *
 * After the current retry delay: SCALIO_RECONNECT_MIN_MS after a working
 * connection was lost, doubling with each failed attempt; but never more
 * than SCALIO_RECONNECT_MIN_MS while operations wait for the connection.
 * They wait at most fast_io_fail_ms: a longer backoff would fail them
 * with -EHOSTDOWN though the fabric had come back long before.
 */
void scalio_host_reconnect_schedule(struct scalio_host_hstore *hs)
{
	queue_delayed_work(system_long_wq, &hs->reconnect_work,
			   scalio_host_reconnect_next(hs));
}

/*
 * An operation starts to wait for the connection: bring forward a retry
 * that sits in a long backoff (the connection was lost, or stayed down,
 * while nobody used it).  Operations wait only while the store is live
 * and its device open, so a detach cannot be cancelling the work here;
 * at worst a retry that just started is queued once more, and finds the
 * connection up.
 */
static void scalio_host_reconnect_hurry(struct scalio_host_hstore *hs)
{
	struct delayed_work *dw = &hs->reconnect_work;
	unsigned long soon = msecs_to_jiffies(SCALIO_RECONNECT_MIN_MS);

	if (delayed_work_pending(dw) &&
	    time_after(READ_ONCE(dw->timer.expires), jiffies + soon))
		mod_delayed_work(system_long_wq, dw, soon);
}

/* ------------------------------------------------------------------ */
/* the operations' gate                                                */

/**
 * scalio_host_conn_enter_nowait() - start an operation if the connection is up
 * @conn:	connection
 *
 * Takes io_rwsem for reading (teardown and reconnect take it for writing,
 * so the connection stays whole until scalio_host_conn_exit()).  A
 * connection that is down, or being re-established, fails the operation
 * at once: for background work (keep-alive, owed invalidations), which
 * must not hold up a detach, and for the waiting variants below.
 *
 * Return: 0 (call scalio_host_conn_exit() when done), -ENOTCONN, -EPROTO
 * (the connection died of the target's protocol violation), or -EINTR
 * (fatal signal while waiting for io_rwsem).
 */
int scalio_host_conn_enter_nowait(struct scalio_host_conn *conn)
{
	if (!down_read_trylock(&conn->io_rwsem)) {
		/* Teardown or a reconnect holds or wants it: don't queue up. */
		if (scalio_host_conn_dead(conn))
			return scalio_host_conn_dead_err(conn);
		if (test_bit(SCALIO_CONN_RECONNECTING, &conn->flags))
			return -ENOTCONN;
		if (down_read_killable(&conn->io_rwsem))
			return -EINTR;
	}
	if (scalio_host_conn_dead(conn)) {
		up_read(&conn->io_rwsem);
		return scalio_host_conn_dead_err(conn);
	}
	return 0;
}

/* Stop waiting: the connection is back, or will not come back for us. */
static bool scalio_host_conn_wait_over(struct scalio_host_conn *conn)
{
	return (!scalio_host_conn_dead(conn) &&
		!test_bit(SCALIO_CONN_RECONNECTING, &conn->flags)) ||
	       test_bit(SCALIO_CONN_GONE, &conn->flags) ||
	       READ_ONCE(conn->hs->state) != SCALIO_HS_LIVE;
}

/*
 * Start an operation's waiting period: the store's fast_io_fail_ms from
 * now.  0 stands for "not started", so a deadline of 0 becomes 1.
 */
static bool scalio_host_conn_wait_start(struct scalio_host_conn *conn,
					unsigned long *end)
{
	u32 ms = READ_ONCE(conn->hs->fast_io_fail_ms);

	if (*end)
		return true;
	if (!ms)
		return false;
	*end = (jiffies + msecs_to_jiffies(ms)) ? : 1;
	return true;
}

/*
 * An operation leaves the gate after waiting for the connection since
 * @t0 (ktime ns), with @ret: account the wait (reconnect_waits,
 * reconnect_wait_ns) and trace it.
 */
static void scalio_host_conn_wait_done(struct scalio_host_conn *conn,
				       enum scalio_host_op op, u64 t0, int ret)
{
	struct scalio_host_hstore *hs = conn->hs;
	u64 ns = ktime_get_ns() - t0;

	scalio_host_hstat_inc(hs, SCALIO_HS_RECONNECT_WAITS);
	scalio_host_hstat_add(hs, SCALIO_HS_RECONNECT_WAIT_NS, ns);
	trace_scalio_host_conn_wait(hs, op, ret, ns);
}

/**
 * scalio_host_conn_fast_fail() - fail an operation that was not sent
 *	because the connection did not come back in time
 * @conn:	connection
 *
 * Return: -EHOSTDOWN, counted (fast_io_fails).
 */
int scalio_host_conn_fast_fail(struct scalio_host_conn *conn)
{
	scalio_host_hstat_inc(conn->hs, SCALIO_HS_FAST_IO_FAILS);
	return -EHOSTDOWN;
}

/*
 * The gate's loop: 0 or an error, and in *@t0 the time the operation
 * started to wait (0: it did not).  From then it counts in conn->waiting,
 * which keeps the reconnect's retries close together; the caller uncounts
 * it.
 */
static int scalio_host_conn_enter_wait(struct scalio_host_conn *conn,
				       unsigned long *end, u64 *t0)
{
	long left;
	int ret;

	for (;;) {
		ret = scalio_host_conn_enter_nowait(conn);
		if (ret != -ENOTCONN)
			return ret;
		if (!scalio_host_conn_wait_start(conn, end))
			return -EHOSTDOWN;
		if (test_bit(SCALIO_CONN_GONE, &conn->flags) ||
		    READ_ONCE(conn->hs->state) != SCALIO_HS_LIVE)
			return -EHOSTDOWN;
		left = (long)(*end - jiffies);
		if (left <= 0)
			return -EHOSTDOWN;
		if (!*t0) {
			*t0 = ktime_get_ns();
			atomic_inc(&conn->waiting);
			scalio_host_reconnect_hurry(conn->hs);
		}
		left = wait_event_killable_timeout(conn->state_wq,
						   scalio_host_conn_wait_over(conn),
						   left);
		if (left < 0)
			return -EINTR;
	}
}

/**
 * scalio_host_conn_enter_until() - start an operation, riding out a reconnect
 * @conn:	connection
 * @end:	in/out: 0 the first time; then the jiffies at which this
 *		operation stops waiting for the connection (set by the first
 *		wait, to the store's fast_io_fail_ms from then)
 * @op:		what the operation is (for its trace event)
 *
 * As scalio_host_conn_enter_nowait(), but an operation that finds the
 * connection down or being re-established sleeps (killably) until the
 * reconnect has succeeded, paid the owed invalidations and let go of
 * io_rwsem, then enters.  An operation that got here has sent nothing on a
 * connection that is down, so waiting and then sending it is safe for a
 * write too.  The wait ends early when the store is being detached or its
 * connection will not come back by itself (a store that came back
 * different, its RDMA device removed).
 *
 * A wait, however it ends, is counted (reconnect_waits, reconnect_wait_ns)
 * and traced (scalio_host_conn_wait); -EHOSTDOWN is counted (fast_io_fails)
 * whether or not the operation waited first.
 *
 * Return: 0 (call scalio_host_conn_exit()), -EHOSTDOWN (the connection
 * stayed down for fast_io_fail_ms, or will not come back: the operation
 * was not sent), -EPROTO, or -EINTR (fatal signal).
 */
int scalio_host_conn_enter_until(struct scalio_host_conn *conn,
				 unsigned long *end, enum scalio_host_op op)
{
	u64 t0 = 0;
	int ret;

	ret = scalio_host_conn_enter_wait(conn, end, &t0);
	if (t0) {
		atomic_dec(&conn->waiting);
		scalio_host_conn_wait_done(conn, op, t0, ret);
	}
	if (ret == -EHOSTDOWN)
		ret = scalio_host_conn_fast_fail(conn);
	return ret;
}

/**
 * scalio_host_conn_enter() - start an operation, waiting up to fast_io_fail_ms
 * @conn:	connection
 * @op:		what the operation is
 *
 * scalio_host_conn_enter_until() with a waiting period of its own.
 */
int scalio_host_conn_enter(struct scalio_host_conn *conn, enum scalio_host_op op)
{
	unsigned long end = 0;

	return scalio_host_conn_enter_until(conn, &end, op);
}

/**
 * scalio_host_conn_may_retry() - may an operation the connection's loss
 *	failed wait for the reconnect and be done again?
 * @conn:	connection
 * @end:	the operation's waiting period, as for
 *		scalio_host_conn_enter_until(); started here if it was not
 *
 * Only for what is safe to repeat: a GET, or a write that was never sent.
 * Bounded by the same period as the waits, however often the connection
 * is lost under the operation.
 */
bool scalio_host_conn_may_retry(struct scalio_host_conn *conn,
				unsigned long *end)
{
	return scalio_host_conn_wait_start(conn, end) &&
	       time_before(jiffies, *end);
}

/**
 * scalio_host_conn_leave() - let go of the connection across a wait that
 *	does not use it
 * @conn:	connection, entered (io_rwsem held for reading)
 *
 * For a GET's SSD read, which waits for NVMe-oF (whose own path may be
 * reconnecting, or hang until the GET's time is up) and not for this
 * connection: held across it, io_rwsem would keep a teardown or a
 * reconnect waiting for that long.  The caller noted scalio_host_conn_gen()
 * while it held the connection, and keeps what it got from it (its bounce
 * page above all) without using it until scalio_host_conn_return().
 */
void scalio_host_conn_leave(struct scalio_host_conn *conn)
{
	up_read(&conn->io_rwsem);
}

/**
 * scalio_host_conn_return() - take the connection back after
 *	scalio_host_conn_leave(), if it is still the same one
 * @conn:	connection
 * @gen:	scalio_host_conn_gen() as it was before leaving
 *
 * Never sleeps, so a work item that the holder of the connection cancels
 * synchronously (a fill's lease renewal) may call it too.  The trylock
 * fails only while a teardown or a reconnect holds or wants io_rwsem, or
 * has just let it go: each releases the connection's resources and bumps
 * conn->gen (scalio_host_conn_release()) before any reader gets in again,
 * so failing then is what waiting would have found.
 *
 * Return: 0 (io_rwsem held again; the same connection, whose bounce pages,
 * slot locks, client id and rkeys are as they were, though it may have
 * died meanwhile like any connection), or -ESTALE (not held: the
 * connection was released or replaced; nothing taken from it before may be
 * used, nor given back: a bounce page of it is freed with it).
 */
int scalio_host_conn_return(struct scalio_host_conn *conn, u32 gen)
{
	if (!down_read_trylock(&conn->io_rwsem))
		return -ESTALE;
	if (conn->gen != gen) {
		up_read(&conn->io_rwsem);
		return -ESTALE;
	}
	return 0;
}

/**
 * scalio_host_conn_wake() - wake the operations waiting for the connection
 * @conn:	connection
 *
 * After a reconnect attempt, and whenever waiting has become pointless:
 * the store leaves SCALIO_HS_LIVE, or SCALIO_CONN_GONE was set.
 */
void scalio_host_conn_wake(struct scalio_host_conn *conn)
{
	wake_up_all(&conn->state_wq);
}

/* ------------------------------------------------------------------ */
/* rdma_cm                                                             */

/*
 * Note why the connect was rejected in conn->cm_rej, for the connect that
 * waits for it to log (scalio_host_conn_rejected()): the log's state is
 * kept there, in process context.
 */
static int scalio_host_cm_rejected(struct scalio_host_conn *conn,
				   struct rdma_cm_id *id,
			      struct rdma_cm_event *ev)
{
	struct scalio_host_rej *why = &conn->cm_rej;
	const struct scalio_cm_rej *rej;
	u8 len = 0;
	u16 status;

	/* Not the target's decision: nobody listens there, typically. */
	why->err = -ECONNREFUSED;
	why->status = ev->status;
	why->target = false;
	rej = rdma_consumer_reject_data(id, ev, &len);
	if (!rej || len < sizeof(*rej) ||
	    le16_to_cpu(rej->magic) != SCALIO_PROTO_MAGIC)
		return why->err;
	status = le16_to_cpu(rej->status);
	if (!status || status >= MAX_ERRNO)
		return why->err;
	why->err = -status;
	why->target = true;
	return why->err;
}

static int scalio_host_cm_established(struct scalio_host_conn *conn,
				      struct rdma_cm_id *id,
				      struct rdma_cm_event *ev)
{
	const struct scalio_cm_rep *rep = ev->param.conn.private_data;
	u16 qd, cid;

	if (!rep || ev->param.conn.private_data_len < sizeof(*rep) ||
	    le16_to_cpu(rep->magic) != SCALIO_PROTO_MAGIC ||
	    rep->major != SCALIO_PROTO_MAJOR)
		goto bad;
	qd = le16_to_cpu(rep->queue_depth);
	cid = le16_to_cpu(rep->client_id);
	if (!qd || qd > conn->qd_req || !cid || cid > SCALIO_MAX_CLIENTS)
		goto bad;
	conn->qd = qd;
	conn->peer_minor = rep->minor;
	conn->client_id = cid;
	memcpy(conn->challenge, rep->challenge, sizeof(conn->challenge));
	/* The target's QP number came in its REP; addresses as seen here. */
	scalio_bind_addr(conn->bind.host_addr,
			 (struct sockaddr *)&id->route.addr.src_addr);
	scalio_bind_addr(conn->bind.target_addr,
			 (struct sockaddr *)&id->route.addr.dst_addr);
	conn->bind.host_qpn = conn->qp->qp_num;
	conn->bind.target_qpn = ev->param.conn.qp_num;
	set_bit(SCALIO_CONN_CONNECTED, &conn->flags);
	return 0;
bad:
	pr_err_ratelimited("%s: bad accept private data from the target\n",
			   conn->hs->name);
	return -EPROTO;
}

static int scalio_host_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct scalio_host_conn *conn = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		conn->cm_error = 0;
		complete(&conn->cm_done);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		conn->cm_error = scalio_host_cm_established(conn, id, ev);
		complete(&conn->cm_done);
		break;
	case RDMA_CM_EVENT_REJECTED:
		conn->cm_error = scalio_host_cm_rejected(conn, id, ev);
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
			scalio_host_conn_fail(conn);
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

/* The rdma_cm steps of a connect, for the log. */
static const char * const scalio_host_cm_steps[] = {
	"address resolution", "route resolution", "connect",
};

enum { SCALIO_CM_ADDR, SCALIO_CM_ROUTE, SCALIO_CM_CONNECT };

/*
 * Wait for the CM handler to report the step just started, for at most
 * @tmo jiffies and never past @end.
 */
static int scalio_host_cm_wait(struct scalio_host_conn *conn, unsigned long tmo,
			       unsigned long end)
{
	long left = (long)(end - jiffies);
	long ret;

	if (left <= 0)
		return -ETIMEDOUT;
	ret = wait_for_completion_killable_timeout(&conn->cm_done,
						   min_t(long, tmo, left));
	if (ret < 0)
		return -EINTR;
	if (!ret)
		return -ETIMEDOUT;
	return conn->cm_error;
}

/*
 * Milliseconds a step started now may take: its own @step_ms, cut to what
 * is left before @end (at least 1: rdma_cm takes no 0).
 */
static u32 scalio_host_cm_step_ms(u32 step_ms, unsigned long end)
{
	long left = (long)(end - jiffies);

	return left > 0 ? max(1U, min(step_ms, jiffies_to_msecs(left))) : 1;
}

/*
 * A step ran out of time: say which (the errno alone cannot), and where
 * to.  Rate limited: a reconnect repeats it while the target is away.
 */
static void scalio_host_cm_timed_out(struct scalio_host_conn *conn, int step,
				     const char *traddr, u32 trsvcid, u64 t0)
{
	pr_warn_ratelimited("%s: %s to %s:%u timed out after %llu ms\n",
			    conn->hs->name, scalio_host_cm_steps[step], traddr,
			    trsvcid, div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
}

/* How often a rejection given all along is logged again. */
#define SCALIO_HOST_REJ_LOG_MS	60000

/*
 * Log the rejection the connect step just got (conn->cm_rej), quietly: a
 * target that keeps refusing a store is asked again every
 * SCALIO_RECONNECT_MIN_MS while operations wait for it, and a line each
 * time would flood the log.  Logged: the first rejection, one of another
 * reason, and one of the same reason again after SCALIO_HOST_REJ_LOG_MS,
 * with the count since the line before.  The reconnect that succeeds
 * tells the total (scalio_host_reconnect_work()).
 */
static void scalio_host_conn_rejected(struct scalio_host_conn *conn)
{
	const struct scalio_host_rej *why = &conn->cm_rej;
	const struct scalio_host_rej *last = &conn->rej_last;
	u32 quiet = conn->rej_quiet;
	char more[64] = "";
	bool same;

	same = conn->rej_total && why->err == last->err &&
	       why->status == last->status && why->target == last->target;
	conn->rej_total++;
	if (same && time_before(jiffies, conn->rej_logged +
				msecs_to_jiffies(SCALIO_HOST_REJ_LOG_MS))) {
		conn->rej_quiet++;
		return;
	}
	if (same)
		snprintf(more, sizeof(more), " (%u times in %u s)", quiet + 1,
			 jiffies_to_msecs(jiffies - conn->rej_logged) / 1000);
	else if (quiet)
		snprintf(more, sizeof(more), " (%u more of the reason before)",
			 quiet);
	if (why->target)
		pr_info("%s: target refused the connection: %d%s\n",
			conn->hs->name, why->err, more);
	else
		pr_info("%s: connection rejected: %s%s\n", conn->hs->name,
			rdma_reject_msg(conn->cm_id, why->status), more);
	conn->rej_last = *why;
	conn->rej_quiet = 0;
	conn->rej_logged = jiffies;
}

/* A new rdma_cm id for @conn, in place of the one it has (if any). */
static int scalio_host_conn_new_id(struct scalio_host_conn *conn)
{
	if (conn->cm_id)
		rdma_destroy_id(conn->cm_id);
	conn->cm_id = rdma_create_id(&init_net, scalio_host_cm_handler, conn,
				     RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(conn->cm_id)) {
		int ret = PTR_ERR(conn->cm_id);

		conn->cm_id = NULL;
		return ret;
	}
	return 0;
}

/**
 * scalio_host_conn_connect() - resolve, create the QP, connect to the store
 * @hs:		store (name set)
 * @traddr:	IPv4/IPv6 literal
 * @trsvcid:	port
 * @timeout_ms:	for each step
 * @total_ms:	for all the steps together
 *
 * A step that runs out of time is logged by name.  The address query is
 * started once more, on a fresh id, when it times out or fails and
 * @total_ms leaves time (a target just back may answer its neighbour probe
 * only then).
 * The connect step is waited for once more when it times out and
 * @total_ms leaves time: the
 * IB CM resends a lost REQ only after about 6 s (rdma_cm's response
 * timeout, 2^20 x 4.096 us, plus twice the packet lifetime), later than a
 * step of the default 5 s, and a REQ of a busy or just restarted target
 * may be answered only then.
 *
 * On failure the caller runs scalio_host_conn_destroy(), which undoes whatever
 * part was set up.
 *
 * Return: 0, or -EINVAL (bad address), -ETIMEDOUT (a step ran out of time:
 * the log says which), -ECONNREFUSED, an errno the target's reject carried
 * (-ENOENT: no such store...), -EPROTO...
 */
int scalio_host_conn_connect(struct scalio_host_hstore *hs, const char *traddr,
			     u32 trsvcid, u32 timeout_ms, u32 total_ms)
{
	struct scalio_host_conn *conn = &hs->conn;
	unsigned long tmo = msecs_to_jiffies(timeout_ms);
	unsigned long end = jiffies + msecs_to_jiffies(total_ms);
	struct sockaddr_storage addr;
	struct rdma_conn_param param = {};
	struct scalio_cm_req req = {};
	char port[8];
	u64 t0;
	u32 i;
	int ret;

	snprintf(port, sizeof(port), "%u", trsvcid);
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, traddr, port, &addr);
	if (ret)
		return -EINVAL;

	conn->qd_req = scalio_host_queue_depth;	/* checked at module load */
	ret = scalio_host_conn_new_id(conn);
	if (ret)
		return ret;

	for (i = 0;; i++) {
		reinit_completion(&conn->cm_done);
		t0 = ktime_get_ns();
		ret = rdma_resolve_addr(conn->cm_id, NULL,
					(struct sockaddr *)&addr,
					scalio_host_cm_step_ms(timeout_ms, end));
		if (ret)
			return ret;
		ret = scalio_host_cm_wait(conn, tmo, end);
		if (ret == -ETIMEDOUT)
			scalio_host_cm_timed_out(conn, SCALIO_CM_ADDR, traddr,
						 trsvcid, t0);
		if ((ret != -ETIMEDOUT && ret != -EHOSTUNREACH) || i ||
		    !time_before(jiffies, end))
			break;
		/*
		 * Once more, on a fresh id: while the target was away its
		 * neighbour entry failed, and the address query only asks
		 * again when its own time is up (then it ends with an
		 * address error, or our wait ends first).  A new query
		 * probes anew.
		 */
		pr_info_ratelimited("%s: address of %s:%u unresolved after %llu ms (%d), asking once more\n",
				    conn->hs->name, traddr, trsvcid,
				    div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC),
				    ret);
		ret = scalio_host_conn_new_id(conn);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;

	reinit_completion(&conn->cm_done);
	t0 = ktime_get_ns();
	ret = rdma_resolve_route(conn->cm_id,
				 scalio_host_cm_step_ms(timeout_ms, end));
	if (ret)
		return ret;
	ret = scalio_host_cm_wait(conn, tmo, end);
	if (ret == -ETIMEDOUT)
		scalio_host_cm_timed_out(conn, SCALIO_CM_ROUTE, traddr, trsvcid, t0);
	if (ret)
		return ret;

	conn->dev = conn->cm_id->device;
	/* GETs lock slots by compare-and-swap on the target's index. */
	if (conn->dev->attrs.atomic_cap == IB_ATOMIC_NONE) {
		pr_err("%s: RDMA device %s has no atomics\n", hs->name,
		       dev_name(&conn->dev->dev));
		return -EOPNOTSUPP;
	}
	ret = scalio_host_conn_create_qp(conn);
	if (ret)
		return ret;
	ret = scalio_host_conn_alloc_bufs(conn);
	if (ret)
		return ret;
	for (i = 0; i < conn->qd_req; i++) {
		ret = scalio_host_post_recv(conn, &conn->recvs[i]);
		if (ret)
			return ret;
	}

	req.magic = cpu_to_le16(SCALIO_PROTO_MAGIC);
	req.major = SCALIO_PROTO_MAJOR;
	req.minor = SCALIO_PROTO_MINOR;
	req.queue_depth = cpu_to_le16(conn->qd_req);
	strscpy(req.store, hs->name, sizeof(req.store));
	memcpy(req.host_id, hs->host_id, sizeof(req.host_id));
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.initiator_depth = min_t(u32, 16,
				      conn->dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = min_t(u32, 16,
					  conn->dev->attrs.max_qp_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	/* Before the QP goes to RTS, which rdma_connect() does. */
	ret = rdma_set_ack_timeout(conn->cm_id, SCALIO_RDMA_ACK_TIMEOUT);
	if (ret)
		return ret;

	reinit_completion(&conn->cm_done);
	memset(&conn->cm_rej, 0, sizeof(conn->cm_rej));
	t0 = ktime_get_ns();
	ret = rdma_connect(conn->cm_id, &param);
	if (ret)
		return ret;
	ret = scalio_host_cm_wait(conn, tmo, end);
	if (ret == -ETIMEDOUT && time_before(jiffies, end)) {
		/* Once more, for the CM's own resent REQ (see above). */
		pr_info_ratelimited("%s: connect to %s:%u unanswered after %llu ms, waiting for the REQ's resend\n",
				    hs->name, traddr, trsvcid,
				    div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
		ret = scalio_host_cm_wait(conn, tmo, end);
	}
	if (ret == -ETIMEDOUT)
		scalio_host_cm_timed_out(conn, SCALIO_CM_CONNECT, traddr, trsvcid, t0);
	/* The handler noted a rejection before it completed the wait. */
	else if (ret && ret != -EINTR && conn->cm_rej.err)
		scalio_host_conn_rejected(conn);
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
 * scalio_host_conn_destroy() - tear a connection down; safe to repeat, and safe
 * on a partly set up connection
 * @conn:	connection
 *
 * Marks the connection dead, disconnects (flushing every posted request
 * and failing every RPC waiter), waits until no operation uses the QP,
 * drains it and frees everything in reverse order of creation.
 */
void scalio_host_conn_destroy(struct scalio_host_conn *conn)
{
	if (test_and_set_bit(SCALIO_CONN_FREED, &conn->flags))
		return;
	set_bit(SCALIO_CONN_DEAD, &conn->flags);

	mutex_lock(&conn->teardown_lock);
	scalio_host_conn_stop(conn);
	/*
	 * Every operation holds io_rwsem for reading; all were woken above.
	 * A GET waiting for its SSD read does not hold it (it left the
	 * connection, scalio_host_conn_leave()): the release below bumps
	 * conn->gen, and that GET starts over when its read is done.
	 */
	down_write(&conn->io_rwsem);
	scalio_host_conn_release(conn);
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
static void scalio_host_conn_release(struct scalio_host_conn *conn)
{
	/* Whoever left the connection must not come back to what is freed. */
	conn->gen++;
	if (conn->qp) {
		/*
		 * scalio_host_conn_stop() drained it; drain again for requests an
		 * operation posted since, so no completion runs after the free.
		 */
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
	scalio_host_conn_free_bufs(conn);
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
/* reconnect                                                           */

/*
 * How long one reconnect attempt may take to connect: half the store's
 * fast_io_fail_ms, at least half a step and at most the attach's three
 * steps.  Until the fabric is back an attempt can only time out, its REQ
 * lost, and the one under way when it comes back is found only by the
 * next; operations wait at most fast_io_fail_ms.  Attempts no longer than
 * half of that (retried after SCALIO_RECONNECT_MIN_MS while operations
 * wait) reconnect within the bound of an operation started as the fabric
 * came back.  A working fabric connects in milliseconds, far below the
 * floor.
 */
static u32 scalio_host_reconnect_budget_ms(const struct scalio_host_hstore *hs)
{
	u32 step = hs->timeout_ms, fail = READ_ONCE(hs->fast_io_fail_ms);

	if (!fail)		/* nobody waits for it */
		return 3 * step;
	return clamp(fail / 2, step / 2, 3 * step);
}

/**
 * scalio_host_conn_reconnect() - replace a lost connection by a new one
 * @hs:	live store whose connection failed
 *
 * Releases what is left of the old connection (failing whatever still used
 * it), then, holding teardown_lock and io_rwsem for writing so that no
 * operation sees a half-built connection, connects again to the address
 * the store was attached with, repeats the handshake and pays the
 * invalidations the loss left owed (scalio_host_inval_flush()).  Operations
 * wait meanwhile, up to the store's fast_io_fail_ms
 * (scalio_host_conn_enter_until()), and are woken at the end of the attempt.
 * The store must come back with the geometry and SSDs it had: the SSD
 * bindings depend on them.
 *
 * Return: 0, -ESTALE when the store came back different (it stays down
 * until detached), or the error of this attempt (try again later).
 */
int scalio_host_conn_reconnect(struct scalio_host_hstore *hs)
{
	struct scalio_host_conn *conn = &hs->conn;
	u32 budget;
	int ret;

	scalio_host_conn_destroy(conn);

	mutex_lock(&conn->teardown_lock);
	down_write(&conn->io_rwsem);
	/* Until the end of the attempt, operations keep out (or wait). */
	set_bit(SCALIO_CONN_RECONNECTING, &conn->flags);
	clear_bit(SCALIO_CONN_CONNECTED, &conn->flags);
	clear_bit(SCALIO_CONN_FREED, &conn->flags);
	clear_bit(SCALIO_CONN_DEAD, &conn->flags);
	clear_bit(SCALIO_CONN_PROTO_ERR, &conn->flags);
	conn->cm_error = 0;
	/*
	 * A restarted target's clock starts again from its boot: forget the
	 * old one, or lease checks would run ahead of the target.
	 */
	spin_lock(&hs->clock_lock);
	hs->clock = 0;
	hs->clock_jiffies = jiffies;
	spin_unlock(&hs->clock_lock);
	budget = scalio_host_reconnect_budget_ms(hs);
	trace_scalio_host_reconnect_begin(hs, budget);
	ret = scalio_host_conn_connect(hs, hs->traddr, hs->trsvcid, hs->timeout_ms,
				       budget);
	if (!ret)
		ret = scalio_host_conn_handshake(hs, true);
	/*
	 * Writes whose invalidation the loss cut short: pay for them before
	 * anyone can hit the old values through this client again.
	 */
	if (!ret)
		ret = scalio_host_inval_flush(hs);
	if (!ret && scalio_host_conn_dead(conn))
		ret = -ENOTCONN;	/* lost again already */
	if (ret) {
		set_bit(SCALIO_CONN_DEAD, &conn->flags);
		set_bit(SCALIO_CONN_FREED, &conn->flags);
		scalio_host_conn_stop(conn);
		scalio_host_conn_release(conn);
	}
	if (!ret)
		clear_bit(SCALIO_CONN_GONE, &conn->flags);
	clear_bit(SCALIO_CONN_RECONNECTING, &conn->flags);
	up_write(&conn->io_rwsem);
	mutex_unlock(&conn->teardown_lock);
	scalio_host_conn_wake(conn);
	return ret;
}

/**
 * scalio_host_reconnect_work() - try to re-establish a live store's connection
 * @work:	&hs->reconnect_work
 *
 * Retries with a delay that doubles up to SCALIO_RECONNECT_MAX_MS
 * (SCALIO_RECONNECT_MIN_MS while operations wait), for as long as the
 * store is attached, unless it came back different (-ESTALE).
 */
void scalio_host_reconnect_work(struct work_struct *work)
{
	struct scalio_host_hstore *hs = container_of(to_delayed_work(work),
						struct scalio_host_hstore,
						reconnect_work);
	struct scalio_host_conn *conn = &hs->conn;
	u32 rejected = conn->rej_total;
	int ret;

	if (READ_ONCE(hs->state) != SCALIO_HS_LIVE ||
	    !scalio_host_conn_dead(conn))
		return;
	ret = scalio_host_conn_reconnect(hs);
	if (!ret) {
		WRITE_ONCE(hs->reconnect_delay,
			   msecs_to_jiffies(SCALIO_RECONNECT_MIN_MS));
		scalio_host_hstat_inc(hs, SCALIO_HS_RECONNECTS);
		trace_scalio_host_reconnect(hs, 0, 0);
		if (conn->rej_total)
			pr_info("%s: reconnected to %s:%u after %u refused attempts\n",
				hs->name, hs->traddr, hs->trsvcid,
				conn->rej_total);
		else
			pr_info("%s: reconnected to %s:%u\n", hs->name,
				hs->traddr, hs->trsvcid);
		/* The next refusal after this is news again. */
		conn->rej_total = 0;
		conn->rej_quiet = 0;
		return;
	}
	if (ret == -ESTALE) {
		/* Down until detached: nobody waits for it any longer. */
		set_bit(SCALIO_CONN_GONE, &conn->flags);
		scalio_host_conn_wake(conn);
		trace_scalio_host_reconnect(hs, ret, 0);
		return;
	}
	/* A rejection has its own, quieter line (scalio_host_conn_rejected()). */
	if (conn->rej_total == rejected)
		pr_info_ratelimited("%s: reconnect failed (%d), retrying\n",
				    hs->name, ret);
	WRITE_ONCE(hs->reconnect_delay,
		   min_t(unsigned long, hs->reconnect_delay * 2,
			 msecs_to_jiffies(SCALIO_RECONNECT_MAX_MS)));
	trace_scalio_host_reconnect(hs, ret,
				    jiffies_to_msecs(scalio_host_reconnect_next(hs)));
	if (READ_ONCE(hs->state) == SCALIO_HS_LIVE)
		scalio_host_reconnect_schedule(hs);
}

/* ------------------------------------------------------------------ */
/* device removal                                                      */

static int scalio_host_ib_add(struct ib_device *dev)
{
	return 0;
}

/*
 * An RDMA device goes away: release every connection on it now (rdma_cm
 * waits for its ids to be destroyed).  The stores stay, dead: their ops
 * fail with -EHOSTDOWN, without waiting, until they are detached.
 */
static void scalio_host_ib_remove(struct ib_device *dev, void *client_data)
{
	struct scalio_host_hstore *hs;

	mutex_lock(&scalio_host_hstores_lock);
	list_for_each_entry(hs, &scalio_host_hstores, entry) {
		if (hs->state != SCALIO_HS_LIVE || hs->conn.dev != dev)
			continue;
		pr_warn("%s: RDMA device %s removed\n", hs->name,
			dev_name(&dev->dev));
		scalio_host_conn_destroy(&hs->conn);
		set_bit(SCALIO_CONN_GONE, &hs->conn.flags);
		scalio_host_conn_wake(&hs->conn);
	}
	mutex_unlock(&scalio_host_hstores_lock);
}

static struct ib_client scalio_host_ib_client = {
	.name	= "scalio-host",
	.add	= scalio_host_ib_add,
	.remove	= scalio_host_ib_remove,
};

int scalio_host_conn_module_init(void)
{
	return ib_register_client(&scalio_host_ib_client);
}

void scalio_host_conn_module_exit(void)
{
	ib_unregister_client(&scalio_host_ib_client);
}
