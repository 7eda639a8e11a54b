/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private header of the target's transport half (rdma.c, rpc.c): the
 * per-store listener, the per-device index registration and the client
 * connections.
 *
 * Objects and their lifetimes:
 *   struct scalio_tgt_rstore	one per enabled store (store->transport).
 *				Created by scalio_tgt_rdma_store_enable(), freed
 *				by scalio_tgt_rdma_store_disable() once every
 *				connection of the store has been freed.
 *   struct scalio_tgt_rdev		one per (store, ib_device) pair: the store's
 *				index DMA-mapped for that device.  Created
 *				by the first connection on the device,
 *				freed when the last one is freed, or by
 *				the device's removal if that waits for it.
 *				Every connection has its own PD and its own
 *				MRs over that mapping, deregistered when its
 *				QP goes: a client's rkeys die with its
 *				connection and never work from another QP.
 *   struct scalio_tgt_conn		one per client.  kref counted: the connection
 *				itself holds one reference until its QP is
 *				torn down, and every request in flight holds
 *				one (a PUT may complete in the commit kthread
 *				long after the client went away).
 *
 * Locking:
 *   scalio_tgt_rdma_lock (mutex) protects the list of rstores and serializes
 *   the freeing of a store's rdevs (disable) against device removal.  A
 *   store's disable does not hold it while it drains its connections, so
 *   a stalled store does not hold up the others; device removal still
 *   holds it while it waits for the removed device's connections.
 *   rs->lock (mutex) protects rs->conns, rs->devs, rs->stopping,
 *   rs->rdevs_freeing and the rdev fields nr_conns, removing and
 *   remover_waiting.  An rdev is looked up only on rs->devs under it (a new
 *   connection, the atomics check, device removal, store disable); the
 *   inval work and a connection reach their own rdev, which the connection
 *   keeps counted until it is freed.  The last put takes the rdev off
 *   rs->devs under rs->lock (a connection arriving after that creates a new
 *   one) and frees it after dropping the lock, counted in rs->rdevs_freeing,
 *   which device removal waits for; it leaves the rdev to a removal that
 *   marked it remover_waiting.
 *   rs->cnt_lock (spinlock) protects rs->nr_conns, rs->all_conns and the
 *   identity of each connection on it (conn->identified, conn->hostnqn);
 *   it is also what makes freeing the rstore after the last wake-up safe.
 *   conn->lock (spinlock) protects conn->state, conn->accepted, the rpc
 *   free list, the parked receive list and conn->nr_active, and is held
 *   across every ib_post_send()/ib_post_recv() so that nothing is posted
 *   once the connection started to tear down.
 *   conn->reg_mutex serializes registration of a connection's MRs
 *   against their deregistration; it nests inside nothing else.
 */
#ifndef _SCALIO_TARGET_RDMA_H
#define _SCALIO_TARGET_RDMA_H

#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "scalio_target.h"

#define SCALIO_RDMA_BACKLOG	128
/* REG_MR work requests in flight on the registering connection's QP. */
#define SCALIO_REG_WINDOW	16
/*
 * Keep-alive: a connection that sent no request for the store's KATO
 * (attr_kato_ms, told in HELLO; hosts send a KEEPALIVE every KATO / 3
 * when idle), or whose responses have not been taken for that long, is
 * disconnected by the store's reaper, which looks every KATO / 3, at most
 * every SCALIO_REAP_INTERVAL_MS: a dead or stuck client is gone within
 * KATO + min(KATO / 3, SCALIO_REAP_INTERVAL_MS).
 */
#define SCALIO_REAP_INTERVAL_MS	5000
/*
 * Connections being dropped to make room for new ones (scalio_tgt_ctl_room())
 * may keep the store this far above attr_max_clients until they are freed.
 */
#define SCALIO_EVICT_SLACK	8
/* ADMIT waits at most this long for the host's older connections. */
#define SCALIO_ADMIT_BARRIER_MS	5000
/* Largest request a client can send (a PUT with a full value). */
#define SCALIO_RPC_REQ_MAX	(sizeof(struct scalio_msg_kv_req) + \
				 SCALIO_VALUE_MAX)

struct scalio_tgt_rdev;
struct scalio_tgt_conn;

/**
 * struct scalio_tgt_ctl_ops - what control (control.c) may do to a
 * connection of the transport
 * @disconnect:	start tearing it down (any context that may take
 *		conn->lock; idempotent)
 */
struct scalio_tgt_ctl_ops {
	void (*disconnect)(struct scalio_tgt_conn *conn);
};

/**
 * struct scalio_tgt_msg_ops - the message layer (rpc.c) as the connection
 * layer (rdma.c) sees it
 * @alloc:	allocate a new connection's receive buffers and request
 *		contexts
 * @post_recvs:	post every receive buffer (before the connection is
 *		accepted)
 * @free:	free what @alloc allocated (after the QP is drained)
 */
struct scalio_tgt_msg_ops {
	int (*alloc)(struct scalio_tgt_conn *conn);
	int (*post_recvs)(struct scalio_tgt_conn *conn);
	void (*free)(struct scalio_tgt_conn *conn);
};

/**
 * struct scalio_tgt_rstore - transport state of one enabled store
 * @st:		the store
 * @entry:	on scalio_tgt_rstores
 * @listener:	listening cm_id, or NULL (swapped with xchg/cmpxchg: the
 *		CM may destroy it on device removal); published only once
 *		rdma_listen() succeeded, under @lock
 * @listen_lost: a device removal hit the cm_id being set up (not yet
 *		published): its publisher schedules a repair
 * @addr:	listen address
 * @repair_work: re-creates the listener after device removal or an
 *		address change
 * @lock:	see the top of this file
 * @conns:	accepted connections
 * @devs:	struct scalio_tgt_rdev list
 * @rdevs_freeing: rdevs their last connection took off @devs and has not
 *		finished freeing
 * @stopping:	store disable in progress: refuse new connections
 * @client_ida:	client ids 1..SCALIO_MAX_CLIENTS
 * @cnt_lock:	see the top of this file
 * @hosts_gen:	bumped (under @lock and @cnt_lock) each time a host is
 *		removed from allowed_hosts: an ADMIT decided before then is
 *		decided again
 * @nr_conns:	connections allocated and not yet freed
 * @all_conns:	those connections (conn->all_entry), accepted or not,
 *		torn down or not: what the reconnect barrier waits on
 * @wait:	woken when @nr_conns, an rdev's nr_conns or @rdevs_freeing
 *		drops
 * @wq:		the store's request work (GET, handshake): one store's slow
 *		SSD or many clients do not hold up another store
 * @reap_work:	the keep-alive reaper (attr_kato_ms, control.c)
 * @ctl_ops:	how control drops a connection
 * @ctl_wq:	where the reaper runs
 */
struct scalio_tgt_rstore {
	struct scalio_tgt_store		*st;
	struct list_head		entry;
	struct rdma_cm_id		*listener;
	bool				listen_lost;
	struct sockaddr_storage		addr;
	struct delayed_work		repair_work;

	struct mutex			lock;
	struct list_head		conns;
	struct list_head		devs;
	u32				rdevs_freeing;
	bool				stopping;
	struct ida			client_ida;

	spinlock_t			cnt_lock;
	u64				hosts_gen;
	u32				nr_conns;
	struct list_head		all_conns;
	wait_queue_head_t		wait;
	struct workqueue_struct		*wq;
	struct delayed_work		reap_work;
	const struct scalio_tgt_ctl_ops	*ctl_ops;
	struct workqueue_struct		*ctl_wq;
};

/* Pages per page-map array of 6.1's rxe MRs (PAGE_SIZE / 16-byte buf). */
#define SCALIO_RXE_MAP_PAGES	256

/**
 * struct scalio_tgt_tmap - one region of index memory, DMA-mapped on a device
 * @bytes:	multiple of PAGE_SIZE (the guard page not counted)
 * @access:	IB_ACCESS_* granted to clients
 * @sgt:	one entry per page
 * @nents:	entries after DMA mapping (0: not mapped)
 * @guard:	private zeroed page mapped after the region, or NULL
 *		(scalio_tgt_tmap_init() says when)
 *
 * Mapped once per device; every connection registers its own MR over it
 * (struct scalio_tgt_cmr).
 */
struct scalio_tgt_tmap {
	size_t			bytes;
	int			access;
	struct sg_table		sgt;
	int			nents;
	struct page		*guard;
};

/**
 * struct scalio_tgt_cmr - one connection's fast-registration MR over a region
 * @conn:	owner
 * @mr:		the MR in the connection's PD, or NULL (deregistered)
 * @rkey:	its key once registered (kept after @mr is gone: the
 *		invalidation search and late readers look at it)
 * @valid:	a REG_MR for it completed successfully
 * @cqe:	completion of its REG_MR
 * @wr:		its REG_MR work request
 */
struct scalio_tgt_cmr {
	struct scalio_tgt_conn	*conn;
	struct ib_mr		*mr;
	u32			rkey;
	bool			valid;
	struct ib_cqe		cqe;
	struct ib_reg_wr	wr;
};

/* Region i of a device and of a connection: chunks, seg tables, header. */
#define SCALIO_NR_REGIONS(nr_chunks)	(2 * (nr_chunks) + 1)
#define SCALIO_REGION_SEG(nr_chunks, i)	((nr_chunks) + (i))
#define SCALIO_REGION_HDR(nr_chunks)	(2 * (nr_chunks))

/**
 * struct scalio_tgt_rdev - a store's index as mapped on one ib_device
 * @entry:	on rs->devs
 * @rs:		owner
 * @ibdev:	the device
 * @maps:	the regions (SCALIO_NR_REGIONS(@nr_chunks)): the index
 *		chunks, their seg table chunks (read-only), the header page
 *		(read-only)
 * @nr_chunks:	index chunks
 * @inval_work:	scalio_tgt_rdev_inval_work(): drop whoever owns an MR a client
 *		invalidated
 * @inval_keys:	rkeys clients invalidated (struct scalio_tgt_inval)
 * @inval_all:	an invalidation could not be recorded: drop every client
 * @nr_conns:	connections using this device (rs->lock); the last one
 *		frees the rdev unless @remover_waiting
 * @removing:	the device is going away: no new connections (rs->lock)
 * @remover_waiting: the ib_client remove callback frees it (rs->lock)
 */
struct scalio_tgt_rdev {
	struct list_head	entry;
	struct scalio_tgt_rstore	*rs;
	struct ib_device	*ibdev;
	struct scalio_tgt_tmap	*maps;
	u32			nr_chunks;

	struct work_struct	inval_work;
	struct llist_head	inval_keys;
	bool			inval_all;

	u32			nr_conns;
	bool			removing;
	bool			remover_waiting;
};

/**
 * struct scalio_tgt_rbuf - one posted receive buffer (SCALIO_MSG_SIZE bytes)
 * @conn:	owner
 * @buf:	the buffer
 * @dma:	its DMA address (mapped once, DMA_FROM_DEVICE)
 * @byte_len:	length of the last received message
 * @cqe:	receive completion
 * @entry:	on conn->parked while waiting for a free rpc
 */
struct scalio_tgt_rbuf {
	struct scalio_tgt_conn	*conn;
	void			*buf;
	u64			dma;
	u32			byte_len;
	struct ib_cqe		cqe;
	struct list_head	entry;
};

/**
 * struct scalio_tgt_rpc - one request being served, and its response
 * @conn:	owner; an rpc in use holds a reference on it
 * @entry:	on conn->free_rpcs when free
 * @req:	copy of the received request (SCALIO_RPC_REQ_MAX bytes, with
 *		@rsp allocated at the rpc's first use); a
 *		PUT's value stays here until the commit kthread is done
 * @req_len:	its length
 * @rsp:	response buffer (SCALIO_MSG_SIZE bytes)
 * @rsp_dma:	its DMA address (mapped once, DMA_TO_DEVICE)
 * @cqe:	send completion; the rpc is free again when it ran
 * @treq:	PUT/DELETE handed to the store
 * @work:	GET, ADMIT, HELLO, CHUNKS, SSD_INFO and STATS run here (they
 *		sleep)
 * @ctrl:	holds the connection's one handshake slot (conn->ctrl_busy)
 */
struct scalio_tgt_rpc {
	struct scalio_tgt_conn	*conn;
	struct list_head	entry;
	u8			*req;
	u32			req_len;
	void			*rsp;
	u64			rsp_dma;
	struct ib_cqe		cqe;
	struct scalio_tgt_treq	treq;
	struct work_struct	work;
	bool			ctrl;
};

/* Admission state of a connection (conn->admit). */
enum scalio_tgt_admit_state {
	SCALIO_ADMIT_NONE,	/* only ADMIT is accepted */
	SCALIO_ADMIT_PENDING,	/* ADMIT being decided */
	SCALIO_ADMIT_DONE,	/* every other request is accepted */
};

enum scalio_tgt_conn_state {
	SCALIO_CONN_LIVE,
	SCALIO_CONN_DISCONNECTING,
};

/* Writes of one connection the target remembers for their invalidation. */
#define SCALIO_TGT_OWED_MAX	256

/**
 * struct scalio_tgt_owed - a connection's writes whose invalidation its host
 *	has not confirmed (settle.c)
 * @lock:	protects the rest
 * @n:		entries in @w
 * @all:	more than SCALIO_TGT_OWED_MAX were owed at once: retire every
 *		block when the connection ends
 * @w:		each write's tag sequence number and cache block
 *
 * A PUT or DELETE is recorded once it is durable and its seg word
 * published, before its answer is sent; a request whose settle mark
 * (hdr.settled) has passed its sequence number drops it.  When the
 * connection ends, the blocks of what is left are retired
 * (scalio_tgt_index_retire()): its host may be gone without having
 * invalidated the old values cached there.
 */
struct scalio_tgt_owed {
	spinlock_t	lock;
	u32		n;
	bool		all;
	struct {
		u32	seq;
		u32	block;
	} w[SCALIO_TGT_OWED_MAX];
};

/**
 * struct scalio_tgt_conn - one client connection
 * @ref:	see the top of this file
 * @rs:		owner
 * @st:		store (a live reference is held until the conn is freed)
 * @rdev:	device state (counted in rdev->nr_conns until freed)
 * @pd:		the connection's own protection domain: its QP and MRs only
 * @cm_id:	the connection's cm_id
 * @cq:		send and receive completions
 * @qp:		RC queue pair
 * @entry:	on rs->conns once accepted
 * @lock:	see the top of this file
 * @state:	enum scalio_tgt_conn_state
 * @accepted:	the CONNECT_REQUEST handler succeeded; teardown goes
 *		through @release_work from now on
 * @nr_active:	requests received and not yet answered
 * @free_rpcs:	rpcs not in use
 * @parked:	receive buffers holding a request that waits for an rpc
 * @client_id:	slot owner id given to the client
 * @queue_depth: granted queue depth
 * @nr_rpcs:	entries in @rpcs (2 * @queue_depth: an rpc is free only
 *		when its SEND completed, which may be after the client has
 *		already sent its next request)
 * @rbufs:	@queue_depth receive buffers
 * @rpcs:	request contexts
 * @flows:	its queues at the store's commit threads, one per SSD
 *		(scalio_tgt_flows_alloc(): writers share each SSD fairly)
 * @release_work: disconnect, drain and destroy the QP and the cm_id
 * @free_work:	free the memory once the last reference is gone
 * @all_entry:	on rs->all_conns until freed
 * @host_id:	from the connect private data
 * @challenge:	sent in the accept private data, fresh for this connection
 * @bind:	this connection's addresses and QP numbers, for admission
 * @hostnqn:	the NQN the host was admitted as (valid once @identified)
 * @identified:	admitted: @hostnqn is set (rs->cnt_lock)
 * @admit:	enum scalio_tgt_admit_state
 * @refused:	disconnect once the refusal's response went out
 * @ctrl_busy:	bit 0: an ADMIT, HELLO, CHUNKS or SSD_INFO is in flight
 * @last_rx:	jiffies of the last request received
 * @mrs:	its MRs over the index (SCALIO_NR_REGIONS), allocated by the
 *		first HELLO or CHUNKS, deregistered when the QP is torn down
 * @reg_mutex:	serializes registration against that teardown
 * @registered:	every MR in @mrs is valid (set once, with release semantics)
 * @mrs_dead:	@mrs were deregistered: no registration any more
 * @reg_inflight: REG_MR work requests not yet completed
 * @reg_error:	a REG_MR of the current window failed
 * @reg_wait:	woken when @reg_inflight reaches 0
 * @sends_inflight: responses posted and not completed (@lock)
 * @tx_progress: jiffies of the last response completion, or of the post
 *		that made @sends_inflight non-zero (@lock)
 * @owed:	its writes whose invalidation the host has not confirmed
 *		(settle.c)
 */
struct scalio_tgt_conn {
	struct kref		ref;
	struct scalio_tgt_rstore	*rs;
	struct scalio_tgt_store	*st;
	struct scalio_tgt_rdev	*rdev;
	struct ib_pd		*pd;
	struct rdma_cm_id	*cm_id;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	struct list_head	entry;

	spinlock_t		lock;
	enum scalio_tgt_conn_state	state;
	bool			accepted;
	u32			nr_active;
	struct list_head	free_rpcs;
	struct list_head	parked;

	u16			client_id;
	u16			queue_depth;
	u32			nr_rpcs;
	struct scalio_tgt_rbuf	*rbufs;
	struct scalio_tgt_rpc	*rpcs;
	struct scalio_tgt_flow	*flows;

	struct work_struct	release_work;
	struct work_struct	free_work;

	struct list_head	all_entry;
	u8			host_id[SCALIO_HOSTID_LEN];
	u8			challenge[SCALIO_CHALLENGE_LEN];
	struct scalio_conn_bind	bind;
	char			hostnqn[SCALIO_NQN_MAX];
	bool			identified;
	int			admit;
	bool			refused;
	unsigned long		ctrl_busy;
	unsigned long		last_rx;
	u32			sends_inflight;
	unsigned long		tx_progress;

	struct scalio_tgt_cmr	*mrs;
	struct mutex		reg_mutex;
	bool			registered;
	bool			mrs_dead;
	atomic_t		reg_inflight;
	bool			reg_error;
	wait_queue_head_t	reg_wait;

	struct scalio_tgt_owed	owed;
};

/* settle.c: owed invalidations of a connection */
void scalio_tgt_settle_init(struct scalio_tgt_conn *conn);
void scalio_tgt_settle_record(struct scalio_tgt_conn *conn, u64 tag,
			      u32 bucket);
void scalio_tgt_settle_mark(struct scalio_tgt_conn *conn, u32 mark);
void scalio_tgt_settle_retire(struct scalio_tgt_conn *conn);

/* rdma.c */
void scalio_tgt_conn_disconnect(struct scalio_tgt_conn *conn);
void scalio_tgt_conn_put(struct scalio_tgt_conn *conn);
int scalio_tgt_conn_post_send(struct scalio_tgt_conn *conn,
			      struct ib_send_wr *wr);
int scalio_tgt_conn_register(struct scalio_tgt_conn *conn);
void scalio_tgt_rdev_invalidated(struct scalio_tgt_rdev *rdev, u32 rkey);

/* control.c: admission, host identity, reconnect barrier, keep-alive */
void scalio_tgt_ctl_init(struct scalio_tgt_rstore *rs,
			 const struct scalio_tgt_ctl_ops *ops,
			 struct workqueue_struct *wq);
void scalio_tgt_ctl_start(struct scalio_tgt_rstore *rs);
void scalio_tgt_ctl_stop(struct scalio_tgt_rstore *rs);
int scalio_tgt_ctl_room(struct scalio_tgt_rstore *rs);
u64 scalio_tgt_ctl_hosts_gen(struct scalio_tgt_conn *conn);
int scalio_tgt_ctl_identify(struct scalio_tgt_conn *conn, const char *hostnqn,
			    u64 hosts_gen);

/* rpc.c: the message layer, handed to scalio_tgt_rdma_init() */
extern const struct scalio_tgt_msg_ops scalio_tgt_rpc_ops;

#endif /* _SCALIO_TARGET_RDMA_H */
