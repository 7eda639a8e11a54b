// SPDX-License-Identifier: GPL-2.0
/*
 * scalio target transport: the per-store RDMA listener, client connections
 * and the registration of the DRAM index as fast-registration MRs.
 *
 * A client connects with struct scalio_cm_req naming the store; the target
 * accepts with a client id (the slot owner id of the index protocol).  The
 * index of the store is DMA-mapped once per RDMA device; each connection
 * has its own protection domain and registers its own MRs over that
 * mapping when it first asks for keys (HELLO or CHUNKS): the REG_MR work
 * requests are posted on its QP and completed before the answer leaves, so
 * no client ever learns an rkey that is not valid yet.  The MRs are
 * deregistered as soon as the QP is drained at teardown: a client's rkeys
 * die with its connection, and a key presented on another QP (another PD)
 * never matches.
 *
 * Teardown of a connection is one-shot (scalio_tgt_conn_disconnect() moves the
 * state under conn->lock) and runs in a work item: rdma_disconnect, drain,
 * destroy the cm_id, the QP and the CQ.  The memory and the store reference
 * go when the last request that was in flight completed.
 *
 * Messages over a connection are rpc.c's, reached only through the
 * struct scalio_tgt_msg_ops given to scalio_tgt_rdma_init().  Whether a
 * connection may stay (room, host identity, keep-alive) is control.c's
 * decision; control drops a connection through scalio_tgt_rdma_ctl_ops.
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rdma.h"

static DEFINE_MUTEX(scalio_tgt_rdma_lock);
static LIST_HEAD(scalio_tgt_rstores);
/* The message layer over every connection (set once, at module load). */
static const struct scalio_tgt_msg_ops *scalio_tgt_msg;
static struct workqueue_struct *scalio_tgt_rdma_wq;

/*
 * Clients may read, write and CAS the index blocks; the header and the
 * seg table (what the target publishes and never reads back) are
 * read-only.
 */
#define SCALIO_INDEX_ACCESS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
#define SCALIO_HDR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ)

/* ------------------------------------------------------------------ */
/* Index mapping (per device) and MRs (per connection)                 */
/* ------------------------------------------------------------------ */

static void scalio_tgt_tmap_destroy(struct ib_device *ibdev,
				    struct scalio_tgt_tmap *map)
{
	if (map->nents)
		ib_dma_unmap_sg(ibdev, map->sgt.sgl, map->sgt.orig_nents,
				DMA_BIDIRECTIONAL);
	map->nents = 0;
	if (map->sgt.sgl)
		sg_free_table(&map->sgt);
	map->sgt.sgl = NULL;
	if (map->guard)
		__free_page(map->guard);
	map->guard = NULL;
}

/**
 * scalio_tgt_tmap_init() - DMA-map a region of index memory for a device
 * @ibdev:	the device
 * @map:	zeroed
 * @mem:	page aligned, vmalloc'ed or in the linear map
 * @bytes:	multiple of PAGE_SIZE
 * @access:	IB_ACCESS_* the connections' MRs over it grant
 *
 * Return: 0 or a negative errno; on error scalio_tgt_tmap_destroy() undoes
 * whatever was done.
 */
static int scalio_tgt_tmap_init(struct ib_device *ibdev,
				struct scalio_tgt_tmap *map,
				void *mem, size_t bytes, int access)
{
	/* The region, and a guard page after it if needed (see below). */
	u32 npages = bytes >> PAGE_SHIFT;
	struct scatterlist *sg;
	int ret, n;
	u32 i;

	map->bytes = bytes;
	map->access = access;
	if (!mem || !bytes || !PAGE_ALIGNED(mem) || !PAGE_ALIGNED(bytes))
		return -EINVAL;
	/*
	 * Soft-RoCE on 6.1 (rxe_mr_copy()) reads one pointer past its page
	 * map array when an access ends on the last page of an MR whose page
	 * count is a multiple of its map size (256 pages): the debug lane's
	 * KASAN caught it on a 512-page index chunk, and again when a
	 * 511-page chunk got a guard page after it (45-hostile's scribble
	 * writes a whole MR).  Such a region gets a private zeroed page after
	 * it, so that no MR is a multiple of 256 pages; a client may read or
	 * write that page, which nobody else uses.
	 */
	if (!(npages % SCALIO_RXE_MAP_PAGES))
		npages++;
	if (npages > ibdev->attrs.max_fast_reg_page_list_len) {
		pr_err("%s: index chunk of %u pages exceeds the device's fast-reg limit %u\n",
		       dev_name(&ibdev->dev), npages,
		       ibdev->attrs.max_fast_reg_page_list_len);
		return -EINVAL;
	}
	if (npages > bytes >> PAGE_SHIFT) {
		map->guard = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!map->guard)
			return -ENOMEM;
	}

	ret = sg_alloc_table(&map->sgt, npages, GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sg(map->sgt.sgl, sg, npages, i) {
		void *p = mem + (size_t)i * PAGE_SIZE;
		struct page *page = p >= mem + bytes ? map->guard :
				    is_vmalloc_addr(p) ? vmalloc_to_page(p) :
							 virt_to_page(p);

		sg_set_page(sg, page, PAGE_SIZE, 0);
	}

	n = ib_dma_map_sg(ibdev, map->sgt.sgl, npages, DMA_BIDIRECTIONAL);
	if (n <= 0)
		return -EIO;
	map->nents = n;
	return 0;
}

/* An rkey a client's SEND invalidated, waiting for the inval work. */
struct scalio_tgt_inval {
	struct llist_node	node;
	u32			rkey;
};

/* Unmap the index from @rdev's device and free it; its inval work is idle. */
static void scalio_tgt_rdev_destroy(struct scalio_tgt_rdev *rdev)
{
	struct llist_node *keys;
	struct scalio_tgt_inval *iv, *tmp;
	u32 i;

	keys = llist_del_all(&rdev->inval_keys);
	llist_for_each_entry_safe(iv, tmp, keys, node)
		kfree(iv);
	if (rdev->maps) {
		for (i = 0; i < SCALIO_NR_REGIONS(rdev->nr_chunks); i++)
			scalio_tgt_tmap_destroy(rdev->ibdev, &rdev->maps[i]);
		kfree(rdev->maps);
	}
	kfree(rdev);
}

/**
 * scalio_tgt_rdev_free() - unmap a store's index from a device and free its state
 * @rdev:	off rs->devs, no connection counted on it
 *
 * Cancels the invalidation work first: only a receive on one of the
 * rdev's connections queues it, and none is left, but it may still be
 * pending or running.  Sleeps; the caller must not hold rs->lock, which
 * the work takes.
 */
static void scalio_tgt_rdev_free(struct scalio_tgt_rdev *rdev)
{
	/* No connection is left to queue it again. */
	cancel_work_sync(&rdev->inval_work);
	scalio_tgt_rdev_destroy(rdev);
}

/* Does @conn own an MR with key @rkey?  rs->lock held: @conn is alive. */
static bool scalio_tgt_conn_owns_rkey(struct scalio_tgt_conn *conn, u32 rkey)
{
	/* Pairs with scalio_tgt_conn_alloc_mrs(): the array is initialized. */
	struct scalio_tgt_cmr *mrs = smp_load_acquire(&conn->mrs);
	u32 i;

	if (!mrs)
		return false;
	for (i = 0; i < SCALIO_NR_REGIONS(conn->rdev->nr_chunks); i++)
		if (READ_ONCE(mrs[i].valid) && READ_ONCE(mrs[i].rkey) == rkey)
			return true;
	return false;
}

/*
 * A client invalidated an rkey with a SEND-with-invalidate (rxe checks
 * only the key, not whose MR it is or its PD).  The offender was
 * disconnected when its receive completed; whoever owns that MR has lost
 * part of its access to the index: disconnect it too (it reconnects and
 * registers new MRs).  The memory itself is untouched.
 */
static void scalio_tgt_rdev_inval_work(struct work_struct *w)
{
	struct scalio_tgt_rdev *rdev = container_of(w, struct scalio_tgt_rdev,
						    inval_work);
	struct scalio_tgt_rstore *rs = rdev->rs;
	struct scalio_tgt_inval *iv, *tmp;
	struct llist_node *keys;
	struct scalio_tgt_conn *conn;
	bool all;

	keys = llist_del_all(&rdev->inval_keys);
	all = xchg(&rdev->inval_all, false);
	if (all)
		pr_warn("store %s: a client invalidated an rkey and no memory was left to find its owner: disconnecting every client of %s\n",
			rs->st->name, dev_name(&rdev->ibdev->dev));
	mutex_lock(&rs->lock);
	list_for_each_entry(conn, &rs->conns, entry) {
		if (conn->rdev != rdev)
			continue;
		if (all) {
			scalio_tgt_conn_disconnect(conn);
			continue;
		}
		llist_for_each_entry(iv, keys, node) {
			if (!scalio_tgt_conn_owns_rkey(conn, iv->rkey))
				continue;
			pr_warn("store %s: client %u's index MR rkey 0x%x was invalidated by a client: disconnecting it to renew its keys\n",
				rs->st->name, conn->client_id, iv->rkey);
			scalio_tgt_conn_disconnect(conn);
			break;
		}
	}
	mutex_unlock(&rs->lock);
	llist_for_each_entry_safe(iv, tmp, keys, node)
		kfree(iv);
}

/**
 * scalio_tgt_rdev_invalidated() - a client's SEND invalidated @rkey
 * @rdev:	device the receive completed on
 * @rkey:	wc->ex.invalidate_rkey
 *
 * Any context: the repair runs in a work item.
 */
void scalio_tgt_rdev_invalidated(struct scalio_tgt_rdev *rdev, u32 rkey)
{
	struct scalio_tgt_inval *iv = kmalloc(sizeof(*iv), GFP_ATOMIC);

	if (iv) {
		iv->rkey = rkey;
		llist_add(&iv->node, &rdev->inval_keys);
	} else {
		WRITE_ONCE(rdev->inval_all, true);
	}
	queue_work(scalio_tgt_rdma_wq, &rdev->inval_work);
}

static struct scalio_tgt_rdev *scalio_tgt_rdev_create(struct scalio_tgt_rstore *rs,
						      struct ib_device *ibdev)
{
	struct scalio_tgt_index *idx = &rs->st->index;
	struct scalio_tgt_rdev *rdev;
	int ret;
	u32 i, n;

	/* The slot protocol is compare-and-swap on the index. */
	if (ibdev->attrs.atomic_cap == IB_ATOMIC_NONE) {
		pr_err("%s: no RDMA atomics: cannot serve store %s\n",
		       dev_name(&ibdev->dev), rs->st->name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!(ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		pr_err("%s: no fast memory registration support\n",
		       dev_name(&ibdev->dev));
		return ERR_PTR(-EOPNOTSUPP);
	}

	rdev = kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev)
		return ERR_PTR(-ENOMEM);
	rdev->rs = rs;
	rdev->ibdev = ibdev;
	INIT_WORK(&rdev->inval_work, scalio_tgt_rdev_inval_work);
	init_llist_head(&rdev->inval_keys);

	n = idx->nr_chunks;
	rdev->maps = kcalloc(SCALIO_NR_REGIONS(n), sizeof(*rdev->maps),
			     GFP_KERNEL);
	if (!rdev->maps) {
		ret = -ENOMEM;
		goto out_free;
	}
	rdev->nr_chunks = n;
	for (i = 0; i < n; i++) {
		ret = scalio_tgt_tmap_init(ibdev, &rdev->maps[i],
					   idx->chunks[i].mem, idx->chunks[i].bytes,
					   SCALIO_INDEX_ACCESS);
		if (ret)
			goto out_free;
		ret = scalio_tgt_tmap_init(ibdev,
					   &rdev->maps[SCALIO_REGION_SEG(n, i)],
					   idx->chunks[i].seg_mem,
					   idx->chunks[i].seg_bytes,
					   SCALIO_HDR_ACCESS);
		if (ret)
			goto out_free;
	}
	ret = scalio_tgt_tmap_init(ibdev, &rdev->maps[SCALIO_REGION_HDR(n)],
				   idx->hdr, PAGE_SIZE, SCALIO_HDR_ACCESS);
	if (ret)
		goto out_free;
	return rdev;

out_free:
	pr_err("%s: cannot prepare the index of store %s: %d\n",
	       dev_name(&ibdev->dev), rs->st->name, ret);
	/* Under rs->lock: no cancel (its work was never queued). */
	scalio_tgt_rdev_destroy(rdev);
	return ERR_PTR(ret);
}

static struct scalio_tgt_rdev *scalio_tgt_rdev_find(struct scalio_tgt_rstore *rs,
						    struct ib_device *ibdev)
{
	struct scalio_tgt_rdev *rdev;

	lockdep_assert_held(&rs->lock);
	list_for_each_entry(rdev, &rs->devs, entry)
		if (rdev->ibdev == ibdev)
			return rdev;
	return NULL;
}

/*
 * IB atomics are atomic only among the operations of one adapter (unless
 * it reports IB_ATOMIC_GLOB), while the index is one memory: a CAS through
 * one device and a CAS through another could both succeed.  So a store
 * served over a second device needs global atomics on every device.
 * rs->lock held.  Return: 0 or -EOPNOTSUPP.
 */
static int scalio_tgt_rdev_check_atomics(struct scalio_tgt_rstore *rs,
					 struct ib_device *ibdev)
{
	struct scalio_tgt_rdev *other;

	lockdep_assert_held(&rs->lock);
	list_for_each_entry(other, &rs->devs, entry) {
		if (other->ibdev->attrs.atomic_cap == IB_ATOMIC_GLOB &&
		    ibdev->attrs.atomic_cap == IB_ATOMIC_GLOB)
			continue;
		pr_err("store %s: refusing a client on %s: the store is already served over %s, and RDMA atomics across devices need IB_ATOMIC_GLOB on both (have %d and %d)\n",
		       rs->st->name, dev_name(&ibdev->dev),
		       dev_name(&other->ibdev->dev), ibdev->attrs.atomic_cap,
		       other->ibdev->attrs.atomic_cap);
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * scalio_tgt_rdev_get() - find or create a store's state on a device and
 *			   count a connection on it
 * @rs:		store transport
 * @ibdev:	the device of a new connection
 *
 * Everything that looks an rdev up does it on rs->devs under rs->lock.
 * An rdev whose last connection is being freed has already left that list
 * (scalio_tgt_rdev_put()): a connection arriving meanwhile maps the index
 * on a new rdev, and a connection on another device is judged against
 * the devices that still serve clients only.  Sleeps.
 *
 * Return: the rdev; ERR_PTR(-EBUSY) while the store is being disabled,
 * ERR_PTR(-ENODEV) while @ibdev is being removed, ERR_PTR(-EOPNOTSUPP)
 * when another device serves the store and the two cannot share atomics,
 * or the error that kept it from being created.
 */
static struct scalio_tgt_rdev *scalio_tgt_rdev_get(struct scalio_tgt_rstore *rs,
						   struct ib_device *ibdev)
{
	struct scalio_tgt_rdev *rdev;

	mutex_lock(&rs->lock);
	if (rs->stopping) {
		rdev = ERR_PTR(-EBUSY);
		goto out;
	}
	rdev = scalio_tgt_rdev_find(rs, ibdev);
	if (rdev && rdev->removing) {
		rdev = ERR_PTR(-ENODEV);
		goto out;
	}
	if (!rdev) {
		int err = scalio_tgt_rdev_check_atomics(rs, ibdev);

		if (err) {
			rdev = ERR_PTR(err);
			goto out;
		}
		rdev = scalio_tgt_rdev_create(rs, ibdev);
		if (IS_ERR(rdev))
			goto out;
		list_add_tail(&rdev->entry, &rs->devs);
	}
	rdev->nr_conns++;
out:
	mutex_unlock(&rs->lock);
	return rdev;
}

/**
 * scalio_tgt_rdev_put() - a connection no longer uses its device
 * @rs:		store transport
 * @rdev:	what scalio_tgt_rdev_get() gave the connection
 *
 * The last connection on a device frees the store's state there: a store
 * whose address moved to another adapter must not keep refusing that
 * adapter's clients (scalio_tgt_rdev_check_atomics()) for a device it no
 * longer uses.  Unless the ib_client remove callback waits for it
 * (@rdev->remover_waiting): then the callback frees it.
 *
 * Under rs->lock the rdev leaves rs->devs, so nothing finds it any more;
 * it is freed once the lock is dropped (the invalidation work takes it),
 * counted in rs->rdevs_freeing until then: the remove callback of its
 * device waits for that count, so no rdev is unmapped from a device whose
 * removal has finished.  Sleeps; the caller holds no lock.
 */
static void scalio_tgt_rdev_put(struct scalio_tgt_rstore *rs,
				struct scalio_tgt_rdev *rdev)
{
	bool free = false;

	mutex_lock(&rs->lock);
	rdev->nr_conns--;
	if (!rdev->nr_conns && !rdev->remover_waiting) {
		list_del(&rdev->entry);
		rs->rdevs_freeing++;
		free = true;
	}
	wake_up(&rs->wait);
	mutex_unlock(&rs->lock);
	if (!free)
		return;

	scalio_tgt_rdev_free(rdev);
	mutex_lock(&rs->lock);
	rs->rdevs_freeing--;
	wake_up(&rs->wait);
	mutex_unlock(&rs->lock);
}

/* Registration of a connection's MRs; see scalio_tgt_conn_register(). */
static void scalio_tgt_cmr_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct scalio_tgt_cmr *cmr = container_of(wc->wr_cqe,
						  struct scalio_tgt_cmr,
						  cqe);
	struct scalio_tgt_conn *conn = cmr->conn;

	if (wc->status == IB_WC_SUCCESS) {
		WRITE_ONCE(cmr->valid, true);
	} else {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_err("client %u: index MR registration failed: %s (%d)\n",
			       conn->client_id, ib_wc_status_msg(wc->status),
			       wc->status);
		WRITE_ONCE(conn->reg_error, true);
	}
	/* The registering thread holds a connection reference. */
	if (atomic_dec_and_test(&conn->reg_inflight))
		wake_up(&conn->reg_wait);
}

/*
 * Deregister a connection's MRs: from now on their rkeys are unknown to
 * the device, whatever QP presents them.  After the QP was drained (no
 * REG_MR in flight); the array stays until the connection is freed.
 */
static void scalio_tgt_conn_drop_mrs(struct scalio_tgt_conn *conn)
{
	u32 i;

	mutex_lock(&conn->reg_mutex);
	conn->mrs_dead = true;
	if (conn->mrs) {
		for (i = 0; i < SCALIO_NR_REGIONS(conn->rdev->nr_chunks); i++) {
			struct scalio_tgt_cmr *cmr = &conn->mrs[i];

			WRITE_ONCE(cmr->valid, false);
			if (cmr->mr)
				ib_dereg_mr(cmr->mr);
			cmr->mr = NULL;
		}
	}
	mutex_unlock(&conn->reg_mutex);
}

/* Allocate and map one MR per region, in the connection's PD. */
static int scalio_tgt_conn_alloc_mrs(struct scalio_tgt_conn *conn)
{
	struct scalio_tgt_rdev *rdev = conn->rdev;
	u32 nr = SCALIO_NR_REGIONS(rdev->nr_chunks), i;
	struct scalio_tgt_cmr *mrs;
	int ret;

	mrs = kcalloc(nr, sizeof(*mrs), GFP_KERNEL);
	if (!mrs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct scalio_tgt_tmap *map = &rdev->maps[i];
		struct scalio_tgt_cmr *cmr = &mrs[i];
		struct ib_mr *mr;

		cmr->conn = conn;
		cmr->cqe.done = scalio_tgt_cmr_reg_done;
		mr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG,
				 map->sgt.orig_nents);
		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			goto out_free;
		}
		cmr->mr = mr;
		/* A partial map would leave part of the region unreachable. */
		ret = ib_map_mr_sg(mr, map->sgt.sgl, map->nents, NULL,
				   PAGE_SIZE);
		if (ret != map->nents) {
			ret = ret < 0 ? ret : -EINVAL;
			goto out_free;
		}
		if (mr->length != map->bytes + (map->guard ? PAGE_SIZE : 0)) {
			ret = -EINVAL;
			goto out_free;
		}
		/*
		 * Zero-based: clients address the MR from 0, never by a
		 * kernel address (rxe's DMA addresses are kernel virtual
		 * addresses).  The REG_MR takes the iova from the MR.
		 */
		mr->iova = 0;
	}
	/* Pairs with scalio_tgt_conn_owns_rkey(). */
	smp_store_release(&conn->mrs, mrs);
	return 0;

out_free:
	for (i = 0; i < nr; i++)
		if (mrs[i].mr)
			ib_dereg_mr(mrs[i].mr);
	kfree(mrs);
	return ret;
}

static int scalio_tgt_conn_post_reg(struct scalio_tgt_conn *conn,
				    struct scalio_tgt_cmr *cmr, int access)
{
	int ret;

	/* A fresh key for every registration, as the verbs require. */
	ib_update_fast_reg_key(cmr->mr, ib_inc_rkey(cmr->mr->rkey));
	memset(&cmr->wr, 0, sizeof(cmr->wr));
	cmr->wr.wr.opcode = IB_WR_REG_MR;
	cmr->wr.wr.wr_cqe = &cmr->cqe;
	cmr->wr.wr.send_flags = IB_SEND_SIGNALED;
	cmr->wr.mr = cmr->mr;
	cmr->wr.key = cmr->mr->rkey;
	cmr->wr.access = access;
	WRITE_ONCE(cmr->rkey, cmr->mr->rkey);

	atomic_inc(&conn->reg_inflight);
	ret = scalio_tgt_conn_post_send(conn, &cmr->wr.wr);
	if (ret)
		atomic_dec(&conn->reg_inflight);
	return ret;
}

/**
 * scalio_tgt_conn_register() - make sure the connection's index MRs are valid
 * @conn:	a live connection; its QP carries the REG_MRs
 *
 * Called before the first answer that names an rkey (HELLO, CHUNKS).  The
 * first call allocates the connection's MRs (its own PD: no other QP can
 * use them, and they are deregistered when this QP is torn down), then
 * registers, in windows of SCALIO_REG_WINDOW work requests, every MR that
 * is not valid yet, and waits for each window's completions.  Sleeps.
 *
 * Return: 0 or a negative errno (-ENOTCONN once the connection is gone).
 */
int scalio_tgt_conn_register(struct scalio_tgt_conn *conn)
{
	struct scalio_tgt_rdev *rdev = conn->rdev;
	u32 total = SCALIO_NR_REGIONS(rdev->nr_chunks), i = 0, posted;
	int ret = 0;

	/* Pairs with the release below: MRs valid before the flag is seen. */
	if (smp_load_acquire(&conn->registered))
		return 0;

	mutex_lock(&conn->reg_mutex);
	if (conn->registered)
		goto out_unlock;
	if (conn->mrs_dead) {
		ret = -ENOTCONN;
		goto out_unlock;
	}
	if (!conn->mrs) {
		ret = scalio_tgt_conn_alloc_mrs(conn);
		if (ret)
			goto out_unlock;
	}

	while (i < total) {
		WRITE_ONCE(conn->reg_error, false);
		posted = 0;
		for (; i < total && posted < SCALIO_REG_WINDOW; i++) {
			if (conn->mrs[i].valid)
				continue;
			ret = scalio_tgt_conn_post_reg(conn, &conn->mrs[i],
						       rdev->maps[i].access);
			if (ret)
				break;
			/* For tests that play a client holding another's key. */
			pr_debug("client %u: region %u registered as rkey 0x%x\n",
				 conn->client_id, i, conn->mrs[i].rkey);
			posted++;
		}
		if (!wait_event_timeout(conn->reg_wait,
					!atomic_read(&conn->reg_inflight),
					30 * HZ)) {
			/* Flush the window by killing the QP it is on. */
			pr_err("index MR registration timed out on client %u\n",
			       conn->client_id);
			scalio_tgt_conn_disconnect(conn);
			wait_event(conn->reg_wait,
				   !atomic_read(&conn->reg_inflight));
			ret = -ETIMEDOUT;
		}
		if (!ret && READ_ONCE(conn->reg_error))
			ret = -EIO;
		if (ret)
			goto out_unlock;
	}
	/* Pairs with the acquire above. */
	smp_store_release(&conn->registered, true);

out_unlock:
	mutex_unlock(&conn->reg_mutex);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Connections                                                         */
/* ------------------------------------------------------------------ */

/**
 * scalio_tgt_conn_post_send() - post on a connection that is still live
 * @conn:	connection
 * @wr:		work request chain
 *
 * Return: 0, -ENOTCONN once teardown started, or what ib_post_send says.
 */
int scalio_tgt_conn_post_send(struct scalio_tgt_conn *conn,
			      struct ib_send_wr *wr)
{
	unsigned long flags;
	int ret = -ENOTCONN;

	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state == SCALIO_CONN_LIVE)
		ret = ib_post_send(conn->qp, wr, NULL);
	spin_unlock_irqrestore(&conn->lock, flags);
	return ret;
}

/**
 * scalio_tgt_conn_disconnect() - start tearing a connection down (one-shot)
 * @conn:	connection
 *
 * Any context.  From now on nothing is posted on the QP; once the
 * connection was accepted the release work does the rest.
 */
void scalio_tgt_conn_disconnect(struct scalio_tgt_conn *conn)
{
	unsigned long flags;
	bool release = false;

	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state == SCALIO_CONN_LIVE) {
		conn->state = SCALIO_CONN_DISCONNECTING;
		release = conn->accepted;
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	if (release)
		queue_work(scalio_tgt_rdma_wq, &conn->release_work);
}

/* What control (control.c) may do to a connection. */
static const struct scalio_tgt_ctl_ops scalio_tgt_rdma_ctl_ops = {
	.disconnect	= scalio_tgt_conn_disconnect,
};

static void scalio_tgt_conn_free_work(struct work_struct *w)
{
	struct scalio_tgt_conn *conn = container_of(w, struct scalio_tgt_conn,
						    free_work);
	struct scalio_tgt_rstore *rs = conn->rs;

	/* Every request answered or dropped: what is still owed, retire. */
	scalio_tgt_settle_retire(conn);
	scalio_tgt_msg->free(conn);
	if (conn->mrs) {
		scalio_tgt_conn_drop_mrs(conn);
		kfree(conn->mrs);
	}
	if (conn->pd)
		ib_dealloc_pd(conn->pd);
	if (conn->rdev)
		scalio_tgt_rdev_put(rs, conn->rdev);
	if (conn->client_id)
		ida_free(&rs->client_ida, conn->client_id);
	pr_debug("client %u of store %s freed\n", conn->client_id,
		 conn->st->name);
	scalio_tgt_store_put_live(conn->st);

	/*
	 * Last: the disabling thread frees rs after it saw zero here, and
	 * conn is freed only once it is off rs's list.
	 */
	spin_lock(&rs->cnt_lock);
	list_del(&conn->all_entry);
	rs->nr_conns--;
	wake_up(&rs->wait);
	spin_unlock(&rs->cnt_lock);
	kfree(conn);
}

static void scalio_tgt_conn_release(struct kref *ref)
{
	struct scalio_tgt_conn *conn = container_of(ref, struct scalio_tgt_conn,
						    ref);

	/* The last put may come from the commit kthread or a CQ handler. */
	queue_work(scalio_tgt_rdma_wq, &conn->free_work);
}

void scalio_tgt_conn_put(struct scalio_tgt_conn *conn)
{
	kref_put(&conn->ref, scalio_tgt_conn_release);
}

static void scalio_tgt_conn_release_work(struct work_struct *w)
{
	struct scalio_tgt_conn *conn = container_of(w, struct scalio_tgt_conn,
						    release_work);
	struct scalio_tgt_rstore *rs = conn->rs;

	mutex_lock(&rs->lock);
	list_del_init(&conn->entry);
	mutex_unlock(&rs->lock);

	pr_debug("client %u of store %s disconnecting\n", conn->client_id,
		 conn->st->name);
	rdma_disconnect(conn->cm_id);
	/* Every posted receive, response and REG_MR completes before this. */
	ib_drain_qp(conn->qp);
	/* The client's rkeys die now, not when its last request is done. */
	scalio_tgt_conn_drop_mrs(conn);
	/* cm_id before QP, so that no CM event finds a dangling qp. */
	rdma_destroy_id(conn->cm_id);
	ib_destroy_qp(conn->qp);
	ib_free_cq(conn->cq);
	scalio_tgt_conn_put(conn);
}

static void scalio_tgt_qp_event(struct ib_event *ev, void *ctx)
{
	struct scalio_tgt_conn *conn = ctx;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(conn->cm_id, ev->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
	case IB_EVENT_SQ_DRAINED:
		break;
	default:
		/* e.g. a client's bad one-sided access: the QP is in error. */
		pr_warn_ratelimited("client %u: QP event %s (%d)\n",
				    conn->client_id, ib_event_msg(ev->event),
				    ev->event);
		scalio_tgt_conn_disconnect(conn);
		break;
	}
}

static int scalio_tgt_cm_reject(struct rdma_cm_id *cm_id, int err)
{
	struct scalio_cm_rej rej = {
		.magic	= cpu_to_le16(SCALIO_PROTO_MAGIC),
		.status	= cpu_to_le16(err),
	};

	pr_debug("rejecting a connection: %d\n", err);
	rdma_reject(cm_id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	/* Non-zero: the CM destroys the new cm_id itself. */
	return -ECONNREFUSED;
}

/**
 * scalio_tgt_conn_create() - allocate a connection and its verbs resources
 * @rs:		store transport
 * @cm_id:	the new cm_id of a CONNECT_REQUEST
 * @qd:		granted queue depth
 * @connp:	out
 *
 * On success the QP exists (cm_id->qp), receives are posted and the
 * connection holds a live store reference, a client id and a device
 * reference.  On failure everything is undone.
 *
 * Return: 0 or a negative errno (its positive value goes into struct
 * scalio_cm_rej).
 */
static int scalio_tgt_conn_create(struct scalio_tgt_rstore *rs,
				  struct rdma_cm_id *cm_id, u16 qd,
				  struct scalio_tgt_conn **connp)
{
	struct scalio_tgt_store *st = rs->st;
	struct ib_device *ibdev = cm_id->device;
	struct ib_qp_init_attr qp_attr = { };
	struct scalio_tgt_conn *conn;
	u32 sq_size, rq_size;
	int ret;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	kref_init(&conn->ref);
	conn->rs = rs;
	conn->st = st;
	conn->cm_id = cm_id;
	INIT_LIST_HEAD(&conn->entry);
	INIT_LIST_HEAD(&conn->all_entry);
	spin_lock_init(&conn->lock);
	scalio_tgt_settle_init(conn);
	conn->state = SCALIO_CONN_LIVE;
	conn->last_rx = jiffies;
	INIT_LIST_HEAD(&conn->free_rpcs);
	INIT_LIST_HEAD(&conn->parked);
	INIT_WORK(&conn->release_work, scalio_tgt_conn_release_work);
	INIT_WORK(&conn->free_work, scalio_tgt_conn_free_work);
	conn->queue_depth = qd;
	conn->nr_rpcs = 2 * qd;
	mutex_init(&conn->reg_mutex);
	init_waitqueue_head(&conn->reg_wait);
	atomic_set(&conn->reg_inflight, 0);

	/*
	 * The same reference scalio_tgt_store_get_live() takes, without its
	 * lookup by name: the listener belongs to this store, and taking
	 * scalio_tgt_stores_lock here could deadlock against a disable that
	 * holds it while it destroys this listener (which waits for us).
	 */
	if (!percpu_ref_tryget_live(&st->live)) {
		kfree(conn);
		return -EBUSY;
	}

	ret = scalio_tgt_ctl_room(rs);
	if (ret) {
		pr_warn_ratelimited("store %s: refusing a client: attr_max_clients (%u) reached\n",
				    st->name, READ_ONCE(st->max_clients));
		goto out_put_store;
	}

	ret = ida_alloc_range(&rs->client_ida, 1, SCALIO_MAX_CLIENTS,
			      GFP_KERNEL);
	if (ret < 0) {
		if (ret == -ENOSPC)
			ret = -EUSERS;
		goto out_put_store;
	}
	conn->client_id = ret;

	conn->rdev = scalio_tgt_rdev_get(rs, ibdev);
	if (IS_ERR(conn->rdev)) {
		ret = PTR_ERR(conn->rdev);
		conn->rdev = NULL;
		goto out_free_id;
	}

	/* Responses (2 * qd rpcs) + one REG_MR window + drain. */
	sq_size = conn->nr_rpcs + SCALIO_REG_WINDOW + 1;
	rq_size = qd + 1;
	if (sq_size > ibdev->attrs.max_qp_wr ||
	    sq_size + rq_size > ibdev->attrs.max_cqe) {
		ret = -EINVAL;
		goto out_put_rdev;
	}

	/* Its own PD: no other client's QP can present its keys. */
	conn->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(conn->pd)) {
		ret = PTR_ERR(conn->pd);
		conn->pd = NULL;
		goto out_put_rdev;
	}

	/* Spread clients over the completion vectors. */
	conn->cq = ib_alloc_cq(ibdev, conn, sq_size + rq_size,
			       ibdev->num_comp_vectors ?
			       conn->client_id % ibdev->num_comp_vectors : 0,
			       IB_POLL_WORKQUEUE);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		goto out_dealloc_pd;
	}

	qp_attr.event_handler = scalio_tgt_qp_event;
	qp_attr.qp_context = conn;
	qp_attr.send_cq = conn->cq;
	qp_attr.recv_cq = conn->cq;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.cap.max_send_wr = sq_size;
	qp_attr.cap.max_recv_wr = rq_size;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(cm_id, conn->pd, &qp_attr);
	if (ret)
		goto out_free_cq;
	conn->qp = cm_id->qp;

	ret = scalio_tgt_msg->alloc(conn);
	if (ret)
		goto out_destroy_qp;
	ret = scalio_tgt_msg->post_recvs(conn);
	if (ret)
		goto out_free_rpc;

	spin_lock(&rs->cnt_lock);
	rs->nr_conns++;
	list_add_tail(&conn->all_entry, &rs->all_conns);
	spin_unlock(&rs->cnt_lock);
	*connp = conn;
	return 0;

	/*
	 * The QP never left INIT: destroying it completes no receive, so
	 * nothing of ours runs after this.
	 */
out_free_rpc:
	conn->state = SCALIO_CONN_DISCONNECTING;
	rdma_destroy_qp(cm_id);
	ib_free_cq(conn->cq);
	scalio_tgt_msg->free(conn);
	goto out_dealloc_pd;
out_destroy_qp:
	rdma_destroy_qp(cm_id);
out_free_cq:
	ib_free_cq(conn->cq);
out_dealloc_pd:
	ib_dealloc_pd(conn->pd);
out_put_rdev:
	scalio_tgt_rdev_put(rs, conn->rdev);
out_free_id:
	ida_free(&rs->client_ida, conn->client_id);
out_put_store:
	scalio_tgt_store_put_live(st);
	kfree(conn);
	return ret;
}

static int scalio_tgt_conn_accept(struct scalio_tgt_conn *conn,
				  const struct rdma_conn_param *p)
{
	struct ib_device *ibdev = conn->cm_id->device;
	struct rdma_conn_param param = { };
	int ret;
	struct scalio_cm_rep rep = {
		.magic		= cpu_to_le16(SCALIO_PROTO_MAGIC),
		.major		= SCALIO_PROTO_MAJOR,
		.minor		= SCALIO_PROTO_MINOR,
		.queue_depth	= cpu_to_le16(conn->queue_depth),
		.client_id	= cpu_to_le16(conn->client_id),
	};

	memcpy(rep.challenge, conn->challenge, sizeof(rep.challenge));
	/*
	 * The client reads and CASes the index with many operations in
	 * flight: grant what it asked for up to what the device can hold.
	 * (The event's fields are already from our point of view.)
	 */
	param.responder_resources = min_t(u32, p->responder_resources,
					  ibdev->attrs.max_qp_rd_atom);
	param.initiator_depth = min_t(u32, p->initiator_depth,
				      ibdev->attrs.max_qp_init_rd_atom);
	param.rnr_retry_count = 7;
	param.flow_control = 1;
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	/*
	 * The host's timeout, for the answers and RDMA READ responses we
	 * send: a partitioned host's QP fails here about when its own does.
	 */
	ret = rdma_set_ack_timeout(conn->cm_id, SCALIO_RDMA_ACK_TIMEOUT);
	if (ret)
		return ret;
	return rdma_accept(conn->cm_id, &param);
}

/*
 * Tear down a connection whose CONNECT_REQUEST handler fails after the QP
 * may have left INIT.  The handler then returns non-zero and the CM
 * destroys the cm_id, so this detaches the QP from it first.
 */
static void scalio_tgt_conn_abort(struct scalio_tgt_conn *conn)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->state = SCALIO_CONN_DISCONNECTING;
	spin_unlock_irqrestore(&conn->lock, flags);

	ib_drain_qp(conn->qp);
	scalio_tgt_conn_drop_mrs(conn);
	rdma_destroy_qp(conn->cm_id);
	ib_free_cq(conn->cq);
	conn->cm_id = NULL;
	scalio_tgt_conn_put(conn);
}

static int scalio_tgt_conn_request(struct rdma_cm_id *cm_id,
				   struct rdma_cm_event *ev)
{
	struct scalio_tgt_rstore *rs = cm_id->context;
	const struct scalio_cm_req *req = ev->param.conn.private_data;
	struct scalio_tgt_conn *conn;
	unsigned long flags;
	bool ok;
	u16 qd;
	int ret;

	/* IB pads private data: at least our struct must be there. */
	if (!req || ev->param.conn.private_data_len < sizeof(*req))
		return scalio_tgt_cm_reject(cm_id, EINVAL);
	if (le16_to_cpu(req->magic) != SCALIO_PROTO_MAGIC ||
	    req->major != SCALIO_PROTO_MAJOR)
		return scalio_tgt_cm_reject(cm_id, EPROTO);
	if (!memchr(req->store, 0, sizeof(req->store)))
		return scalio_tgt_cm_reject(cm_id, EINVAL);
	if (strcmp(req->store, rs->st->name))
		return scalio_tgt_cm_reject(cm_id, ENOENT);
	qd = le16_to_cpu(req->queue_depth);
	if (!qd || req->reserved ||
	    !memchr_inv(req->host_id, 0, sizeof(req->host_id)))
		return scalio_tgt_cm_reject(cm_id, EINVAL);
	qd = min_t(u16, qd, SCALIO_QUEUE_DEPTH_MAX);

	ret = scalio_tgt_conn_create(rs, cm_id, qd, &conn);
	if (ret)
		return scalio_tgt_cm_reject(cm_id, -ret);
	memcpy(conn->host_id, req->host_id, sizeof(conn->host_id));
	get_random_bytes(conn->challenge, sizeof(conn->challenge));
	/* The host's QP number came in its REQ; addresses as seen here. */
	scalio_bind_addr(conn->bind.host_addr,
			 (struct sockaddr *)&cm_id->route.addr.dst_addr);
	scalio_bind_addr(conn->bind.target_addr,
			 (struct sockaddr *)&cm_id->route.addr.src_addr);
	conn->bind.host_qpn = ev->param.conn.qp_num;
	conn->bind.target_qpn = conn->qp->qp_num;

	ret = scalio_tgt_conn_accept(conn, &ev->param.conn);
	if (ret) {
		pr_err("rdma_accept failed: %d\n", ret);
		scalio_tgt_conn_abort(conn);
		return ret;
	}

	/*
	 * Publish the connection only if nothing started tearing down the
	 * store, the device or the connection itself meanwhile.
	 */
	mutex_lock(&rs->lock);
	spin_lock_irqsave(&conn->lock, flags);
	ok = !rs->stopping && !conn->rdev->removing &&
	     conn->state == SCALIO_CONN_LIVE;
	if (ok) {
		conn->accepted = true;
		list_add_tail(&conn->entry, &rs->conns);
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	mutex_unlock(&rs->lock);
	if (!ok) {
		scalio_tgt_conn_abort(conn);
		return -ECONNABORTED;
	}

	pr_debug("client %u connected to store %s (queue depth %u)\n",
		 conn->client_id, rs->st->name, qd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Listener                                                            */
/* ------------------------------------------------------------------ */

static int scalio_tgt_cm_handler(struct rdma_cm_id *cm_id,
				 struct rdma_cm_event *ev);

#ifdef SCALIO_TEST_HOOKS
/*
 * Sleep this long between binding the listener's address and listening:
 * tests remove the RDMA device in that window.
 */
static unsigned int scalio_tgt_debug_listen_delay_ms;
module_param_named(debug_listen_delay_ms, scalio_tgt_debug_listen_delay_ms,
		   uint, 0644);
MODULE_PARM_DESC(debug_listen_delay_ms,
		 "TESTING ONLY: sleep this many ms between binding and listening");

static void scalio_tgt_listen_hook(struct scalio_tgt_rstore *rs)
{
	unsigned int ms = READ_ONCE(scalio_tgt_debug_listen_delay_ms);

	if (!ms)
		return;
	pr_info("store %s: test hook: listener bound, held %u ms before it listens\n",
		rs->st->name, ms);
	msleep(ms);
}
#else
static inline void scalio_tgt_listen_hook(struct scalio_tgt_rstore *rs) { }
#endif

/*
 * Create, bind and listen on the store's listener, then publish it.  Until
 * it is published this function owns the cm_id: a device removal meanwhile
 * only sets @rs->listen_lost (scalio_tgt_listener_removal() does not let the
 * CM destroy it under us), and the publisher then has it repaired.
 */
static int scalio_tgt_rstore_listen(struct scalio_tgt_rstore *rs)
{
	struct sockaddr *addr = (struct sockaddr *)&rs->addr;
	struct rdma_cm_id *cm_id;
	int ret;

	mutex_lock(&rs->lock);
	rs->listen_lost = false;
	mutex_unlock(&rs->lock);
	cm_id = rdma_create_id(&init_net, scalio_tgt_cm_handler, rs,
			       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);

	/* Let IPv4 and IPv6 stores share a port number. */
	ret = rdma_set_afonly(cm_id, 1);
	if (ret)
		goto out_destroy;
	ret = rdma_bind_addr(cm_id, addr);
	if (ret) {
		pr_err_ratelimited("store %s: cannot bind %pISpcs: %d\n",
				   rs->st->name, addr, ret);
		goto out_destroy;
	}
	scalio_tgt_listen_hook(rs);
	ret = rdma_listen(cm_id, SCALIO_RDMA_BACKLOG);
	if (ret) {
		pr_err("store %s: cannot listen on %pISpcs: %d\n",
		       rs->st->name, addr, ret);
		goto out_destroy;
	}
	mutex_lock(&rs->lock);
	WRITE_ONCE(rs->listener, cm_id);
	/* Its device went away meanwhile: listen again, elsewhere. */
	if (rs->listen_lost && !rs->stopping)
		mod_delayed_work(scalio_tgt_rdma_wq, &rs->repair_work, 0);
	mutex_unlock(&rs->lock);
	pr_info("store %s listening on %pISpcs\n", rs->st->name, addr);
	return 0;

out_destroy:
	rdma_destroy_id(cm_id);
	return ret;
}

static void scalio_tgt_rstore_unlisten(struct scalio_tgt_rstore *rs)
{
	struct rdma_cm_id *cm_id = xchg(&rs->listener, NULL);

	/* Waits for handlers of the listener, CONNECT_REQUESTs included. */
	if (cm_id)
		rdma_destroy_id(cm_id);
}

static void scalio_tgt_rstore_schedule_repair(struct scalio_tgt_rstore *rs,
					      unsigned long delay)
{
	mutex_lock(&rs->lock);
	if (!rs->stopping)
		mod_delayed_work(scalio_tgt_rdma_wq, &rs->repair_work, delay);
	mutex_unlock(&rs->lock);
}

static void scalio_tgt_rstore_repair_work(struct work_struct *w)
{
	struct scalio_tgt_rstore *rs = container_of(to_delayed_work(w),
						    struct scalio_tgt_rstore,
						    repair_work);
	bool stopping;

	scalio_tgt_rstore_unlisten(rs);
	mutex_lock(&rs->lock);
	stopping = rs->stopping;
	mutex_unlock(&rs->lock);
	if (stopping)
		return;
	if (scalio_tgt_rstore_listen(rs))
		scalio_tgt_rstore_schedule_repair(rs, 5 * HZ);
}

/*
 * DEVICE_REMOVAL on the listener: let the CM destroy it (return 1) unless
 * it is not ours to give: one store disable took already, or one still
 * being set up by scalio_tgt_rstore_listen(), which destroys it or has it
 * repaired.  Listen again once a device carries the address.  Connections
 * are torn down by the ib_client remove callback.
 */
static int scalio_tgt_listener_removal(struct rdma_cm_id *cm_id)
{
	struct scalio_tgt_rstore *rs = cm_id->context;
	int ours = 0;

	/* Under the lock scalio_tgt_rstore_listen() publishes under. */
	mutex_lock(&rs->lock);
	if (cmpxchg(&rs->listener, cm_id, NULL) == cm_id) {
		if (!rs->stopping)
			mod_delayed_work(scalio_tgt_rdma_wq, &rs->repair_work,
					 5 * HZ);
		ours = 1;
	} else {
		rs->listen_lost = true;
	}
	mutex_unlock(&rs->lock);
	return ours;
}

/* ADDR_CHANGE on the listener: listen again, now or once published. */
static void scalio_tgt_listener_addr_change(struct rdma_cm_id *cm_id)
{
	struct scalio_tgt_rstore *rs = cm_id->context;

	mutex_lock(&rs->lock);
	if (cm_id == rs->listener) {
		if (!rs->stopping)
			mod_delayed_work(scalio_tgt_rdma_wq, &rs->repair_work,
					 0);
	} else {
		rs->listen_lost = true;
	}
	mutex_unlock(&rs->lock);
}

static int scalio_tgt_cm_handler(struct rdma_cm_id *cm_id,
				 struct rdma_cm_event *ev)
{
	struct scalio_tgt_conn *conn = cm_id->qp ? cm_id->qp->qp_context : NULL;
	struct scalio_tgt_rstore *rs = cm_id->context;

	pr_debug("%s (%d): status %d id %p\n", rdma_event_msg(ev->event),
		 ev->event, ev->status, cm_id);

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return scalio_tgt_conn_request(cm_id, ev);
	case RDMA_CM_EVENT_ESTABLISHED:
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (!conn) {
			scalio_tgt_listener_addr_change(cm_id);
			break;
		}
		fallthrough;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (conn)
			scalio_tgt_conn_disconnect(conn);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (!conn)
			return scalio_tgt_listener_removal(cm_id);
		/*
		 * Normally the ib_client remove callback has torn this down
		 * already; a connection accepted after it ran frees the
		 * device state itself.
		 */
		mutex_lock(&rs->lock);
		conn->rdev->removing = true;
		mutex_unlock(&rs->lock);
		scalio_tgt_conn_disconnect(conn);
		break;
	default:
		pr_err("unexpected RDMA CM event %s (%d)\n",
		       rdma_event_msg(ev->event), ev->event);
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Store enable / disable, device removal, module init                 */
/* ------------------------------------------------------------------ */

static bool scalio_tgt_rstore_idle(struct scalio_tgt_rstore *rs)
{
	bool idle;

	spin_lock(&rs->cnt_lock);
	idle = !rs->nr_conns;
	spin_unlock(&rs->cnt_lock);
	return idle;
}

/**
 * scalio_tgt_rdma_store_enable() - listen for clients of a store
 * @st:		store; its index is allocated (store->lock held)
 *
 * Return: 0 or a negative errno (-EINVAL for a bad address).
 */
int scalio_tgt_rdma_store_enable(struct scalio_tgt_store *st)
{
	struct scalio_tgt_rstore *rs;
	char port[8];
	int ret;

	if (!st->trsvcid || st->trsvcid > 65535)
		return -EINVAL;
	if (!st->index.nr_chunks || !st->index.chunks || !st->index.hdr)
		return -EINVAL;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	if (!rs)
		return -ENOMEM;
	rs->st = st;
	INIT_LIST_HEAD(&rs->entry);
	INIT_DELAYED_WORK(&rs->repair_work, scalio_tgt_rstore_repair_work);
	mutex_init(&rs->lock);
	INIT_LIST_HEAD(&rs->conns);
	INIT_LIST_HEAD(&rs->devs);
	ida_init(&rs->client_ida);
	spin_lock_init(&rs->cnt_lock);
	INIT_LIST_HEAD(&rs->all_conns);
	init_waitqueue_head(&rs->wait);
	scalio_tgt_ctl_init(rs, &scalio_tgt_rdma_ctl_ops, scalio_tgt_rdma_wq);
	/* GETs by RPC sleep on SSD reads: let them run in parallel. */
	rs->wq = alloc_workqueue("scalio_%s", WQ_UNBOUND, 0, st->name);
	if (!rs->wq) {
		ret = -ENOMEM;
		goto out_free;
	}

	snprintf(port, sizeof(port), "%u", st->trsvcid);
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, st->traddr, port,
				   &rs->addr);
	if (ret) {
		pr_err("store %s: bad address '%s' port %s\n", st->name,
		       st->traddr, port);
		ret = -EINVAL;
		goto out_free;
	}

	mutex_lock(&scalio_tgt_rdma_lock);
	list_add_tail(&rs->entry, &scalio_tgt_rstores);
	mutex_unlock(&scalio_tgt_rdma_lock);

	st->transport = rs;
	ret = scalio_tgt_rstore_listen(rs);
	if (ret) {
		/* Stop as a disable does: one teardown path to get right. */
		scalio_tgt_rdma_store_disable(st);
		return ret;
	}
	scalio_tgt_ctl_start(rs);
	return 0;

out_free:
	if (rs->wq)
		destroy_workqueue(rs->wq);
	ida_destroy(&rs->client_ida);
	kfree(rs);
	return ret;
}

/**
 * scalio_tgt_rdma_store_disable() - stop serving a store
 * @st:		store (store->lock held)
 *
 * Stops listening, disconnects every client, waits until every
 * connection and every request it had in flight is gone (their live
 * references dropped), then releases the MRs and PDs.  Requests queued in
 * the commit kthreads complete normally meanwhile, so the caller must not
 * have stopped them or killed the live reference yet.
 */
void scalio_tgt_rdma_store_disable(struct scalio_tgt_store *st)
{
	struct scalio_tgt_rstore *rs = st->transport;
	struct scalio_tgt_rdev *rdev, *tmp;
	struct scalio_tgt_conn *conn;
	LIST_HEAD(devs);
	u32 nr;

	if (!rs)
		return;

	/*
	 * scalio_tgt_rdma_lock is not held while this waits: the wait lasts as
	 * long as the slowest request in flight (an SSD write may stall for
	 * minutes), and every other store's enable and disable takes that
	 * lock.  The ib_client remove callback may run meanwhile; it frees
	 * only the rdev it removes, under the lock taken below, and rs
	 * itself stays on scalio_tgt_rstores (so alive) until then.
	 */
	mutex_lock(&rs->lock);
	rs->stopping = true;
	mutex_unlock(&rs->lock);

	cancel_delayed_work_sync(&rs->repair_work);
	scalio_tgt_ctl_stop(rs);
	scalio_tgt_rstore_unlisten(rs);

	mutex_lock(&rs->lock);
	list_for_each_entry(conn, &rs->conns, entry)
		scalio_tgt_conn_disconnect(conn);
	mutex_unlock(&rs->lock);

	spin_lock(&rs->cnt_lock);
	nr = rs->nr_conns;
	spin_unlock(&rs->cnt_lock);
	/* Tells an operator why a disable takes long (a stalled SSD). */
	if (nr)
		pr_info("store %s: not listening; waiting for %u connection(s) and their requests in flight\n",
			st->name, nr);
	wait_event(rs->wait, scalio_tgt_rstore_idle(rs));
	/* The last free_work may still be inside cnt_lock. */
	spin_lock(&rs->cnt_lock);
	spin_unlock(&rs->cnt_lock);

	/* Not before scalio_tgt_rdma_remove_one() is done with rs, if it runs. */
	mutex_lock(&scalio_tgt_rdma_lock);
	mutex_lock(&rs->lock);
	list_splice_init(&rs->devs, &devs);
	mutex_unlock(&rs->lock);
	list_for_each_entry_safe(rdev, tmp, &devs, entry) {
		list_del(&rdev->entry);
		scalio_tgt_rdev_free(rdev);
	}
	list_del(&rs->entry);
	mutex_unlock(&scalio_tgt_rdma_lock);

	st->transport = NULL;
	destroy_workqueue(rs->wq);
	ida_destroy(&rs->client_ida);
	kfree(rs);
	pr_info("store %s: transport stopped\n", st->name);
}

/*
 * An RDMA device goes away: disconnect every connection on it and free the
 * index registration of every store there, before the device is gone.
 */
static void scalio_tgt_rdma_remove_one(struct ib_device *ibdev,
				       void *client_data)
{
	struct scalio_tgt_rstore *rs;
	struct scalio_tgt_rdev *rdev;
	struct scalio_tgt_conn *conn;

	mutex_lock(&scalio_tgt_rdma_lock);
	list_for_each_entry(rs, &scalio_tgt_rstores, entry) {
		mutex_lock(&rs->lock);
		rdev = scalio_tgt_rdev_find(rs, ibdev);
		if (!rdev) {
			mutex_unlock(&rs->lock);
			/* Its last connection may be unmapping it right now. */
			wait_event(rs->wait, !READ_ONCE(rs->rdevs_freeing));
			continue;
		}
		rdev->removing = true;
		rdev->remover_waiting = true;
		list_for_each_entry(conn, &rs->conns, entry)
			if (conn->rdev == rdev)
				scalio_tgt_conn_disconnect(conn);
		mutex_unlock(&rs->lock);

		pr_info("store %s: %s removed, dropping its clients\n",
			rs->st->name, dev_name(&ibdev->dev));
		wait_event(rs->wait, !READ_ONCE(rdev->nr_conns));

		mutex_lock(&rs->lock);
		list_del(&rdev->entry);
		mutex_unlock(&rs->lock);
		scalio_tgt_rdev_free(rdev);
		/* An older rdev of @ibdev its last connection is unmapping. */
		wait_event(rs->wait, !READ_ONCE(rs->rdevs_freeing));
	}
	mutex_unlock(&scalio_tgt_rdma_lock);
}

static struct ib_client scalio_tgt_ib_client = {
	.name	= "scalio_target",
	.remove	= scalio_tgt_rdma_remove_one,
};

/**
 * scalio_tgt_rdma_init() - start the transport
 * @msg:	the message layer (rpc.c) that runs over its connections
 *
 * Return: 0 or a negative errno.
 */
int scalio_tgt_rdma_init(const struct scalio_tgt_msg_ops *msg)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct scalio_cm_req) > 56);	/* IB CM REQ */
	BUILD_BUG_ON(sizeof(struct scalio_cm_rep) > 196);	/* IB CM REP */
	BUILD_BUG_ON(sizeof(struct scalio_cm_rej) > 148);	/* IB CM REJ */
	BUILD_BUG_ON(2 * SCALIO_QUEUE_DEPTH_MAX > U16_MAX);

	scalio_tgt_msg = msg;
	scalio_tgt_rdma_wq = alloc_workqueue("scalio_rdma", WQ_MEM_RECLAIM, 0);
	if (!scalio_tgt_rdma_wq)
		return -ENOMEM;
	ret = ib_register_client(&scalio_tgt_ib_client);
	if (ret)
		goto out_rdma_wq;
	return 0;

out_rdma_wq:
	destroy_workqueue(scalio_tgt_rdma_wq);
	return ret;
}

/* Every store has been disabled before this runs. */
void scalio_tgt_rdma_exit(void)
{
	ib_unregister_client(&scalio_tgt_ib_client);
	destroy_workqueue(scalio_tgt_rdma_wq);
	if (!list_empty(&scalio_tgt_rstores))
		pr_err("module exit with stores still listening\n");
}
