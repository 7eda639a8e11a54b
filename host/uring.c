// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous GET, PUT and DELETE: IORING_OP_URING_CMD on
 * /dev/scalio/<store> (uapi/scalio.h, SCALIO_URING_CMD_*).
 *
 * Life of a command:
 *   1. ->uring_cmd(), in the submitter's context: check the payload, copy
 *      the struct scalio_kv, the key and a PUT's value in (the ioctls'
 *      scalio_host_kop_prepare(), so the same checks and errnos), queue the op
 *      on the store's workqueue and return -EIOCBQUEUED;
 *   2. the work runs the synchronous op (scalio_host_get(), scalio_host_put(),
 *      scalio_host_delete()), which its own timeouts bound, then has io_uring
 *      call step 3 in the submitting task (io_uring_cmd_complete_in_task());
 *   3. there a GET's value and kv.vlen / kv.result are copied out, the op
 *      is freed and the CQE posted (io_uring_cmd_done()).
 * If the submitting task is exiting, io_uring runs step 3 from a kworker
 * (or flags the task dead): nothing is copied out, the op is still freed
 * and completed.
 *
 * Ring, file or task going away with commands in flight: each request
 * holds a reference to the file, so the store device stays open (DETACH
 * refuses, the module stays pinned) until the last command completes; and
 * io_uring does not free a ring while commands are in flight, it waits for
 * them.  On 6.12 the commands are cancelable as well: one whose work has
 * not started yet is taken off the workqueue and completed with
 * -ECANCELED, a running one finishes.  6.1 has no cancel hook, so there
 * every command finishes; that takes bounded time (RPC timeout, the GET
 * retry budget), well inside io_uring's exit wait.
 *
 * Concurrency: the store's workqueue runs at most queue_depth ops at once
 * (the RPC tag table's size); at most SCALIO_URING_MAX_INFLIGHT commands
 * are accepted per store, so their buffers stay bounded.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "scalio_host.h"

/* Bytes of sqe->cmd in a 128-byte SQE (IORING_SETUP_SQE128). */
#define SCALIO_URING_CMD128_BYTES \
	(2 * sizeof(struct io_uring_sqe) - offsetof(struct io_uring_sqe, cmd))

/**
 * struct scalio_host_uop - one io_uring command in flight
 * @k:		the op on kernel buffers; k.work runs it
 * @cmd:	the io_uring command
 * @ukv:	the user's struct scalio_kv
 * @kv:		the copy of it taken at submission
 */
struct scalio_host_uop {
	struct scalio_host_kop	k;
	struct io_uring_cmd	*cmd;
	struct scalio_kv __user	*ukv;
	struct scalio_kv	kv;
};

int scalio_host_uring_store_init(struct scalio_host_hstore *hs)
{
	atomic_set(&hs->uring_inflight, 0);
	hs->uring_wq = alloc_workqueue("scalio_uring", WQ_UNBOUND,
				       scalio_host_queue_depth);
	return hs->uring_wq ? 0 : -ENOMEM;
}

/* The store device is closed: no command is in flight. */
void scalio_host_uring_store_exit(struct scalio_host_hstore *hs)
{
	if (!hs->uring_wq)
		return;
	WARN_ON_ONCE(atomic_read(&hs->uring_inflight));
	destroy_workqueue(hs->uring_wq);
	hs->uring_wq = NULL;
}

static void scalio_host_uop_free(struct scalio_host_uop *u)
{
	struct scalio_host_hstore *hs = u->k.hs;

	scalio_host_kop_free(&u->k);
	kfree(u);
	atomic_dec(&hs->uring_inflight);
}

/*
 * Step 3, in the submitting task (or, if it is exiting, in a kworker).
 * The uop is freed before the CQE is posted: io_uring_cmd_done() may
 * release the file and with it the module.
 */
static void scalio_host_uop_complete(struct io_uring_cmd *cmd,
				     unsigned int issue_flags)
{
	struct scalio_host_uop *u = *scalio_uring_pdu(cmd);
	bool get = u->k.op == SCALIO_OP_GET;
	int ret = u->k.result;
	u32 vlen = 0;

	/* An exiting task (or a kworker standing in for it): no copy-out. */
	if (!(current->flags & (PF_EXITING | PF_KTHREAD))) {
		if (!ret)
			ret = scalio_host_kop_finish(&u->k, &u->kv);
		if (get && (!ret || ret == -EOVERFLOW)) {
			vlen = u->kv.vlen;
			if (put_user(vlen, &u->ukv->vlen))
				ret = -EFAULT;
		}
		if (put_user(ret, &u->ukv->result))
			ret = -EFAULT;
	}
	scalio_host_uop_free(u);
	io_uring_cmd_done(cmd, get && !ret ? vlen : ret, vlen, issue_flags);
}

/* Step 2. */
static void scalio_host_uop_work(struct work_struct *work)
{
	struct scalio_host_uop *u = container_of(work, struct scalio_host_uop, k.work);

	scalio_host_kop_run(&u->k);
	io_uring_cmd_complete_in_task(u->cmd, scalio_host_uop_complete);
}

/*
 * 6.12, the ring or the task is going away: a command still queued is
 * completed here, one whose work started completes by itself.  Called
 * under the ring's lock, like step 3, so the two never race; may be
 * called again for the same command.
 */
static int scalio_host_uring_cancel(struct io_uring_cmd *cmd,
				    unsigned int issue_flags)
{
	struct scalio_host_uop *u = *scalio_uring_pdu(cmd);

	if (!cancel_work(&u->k.work))
		return 0;
	scalio_host_uop_free(u);
	io_uring_cmd_done(cmd, -ECANCELED, 0, issue_flags);
	return 0;
}

/**
 * scalio_host_store_uring_cmd() - ->uring_cmd of /dev/scalio/<store>
 * @cmd:	the command (cmd_op SCALIO_URING_CMD_*, payload struct
 *		scalio_uring_cmd)
 * @issue_flags: from io_uring
 *
 * Return: -EIOCBQUEUED (the CQE comes later), or a negative errno that
 * io_uring posts at once: -ENOTTY unknown cmd_op; -EINVAL bad flags,
 * reserved fields or kv fields; -E2BIG value too long; -EFAULT bad
 * pointers; -EBUSY too many commands in flight; -ENOMEM.
 */
int scalio_host_store_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct scalio_host_hstore *hs = cmd->file->private_data;
	struct scalio_uring_cmd uc;
	const u8 *payload;
	struct scalio_host_uop *u;
	u32 op;
	int ret;

	if (issue_flags & SCALIO_URING_F_CANCEL)
		return scalio_host_uring_cancel(cmd, issue_flags);

	switch (cmd->cmd_op) {
	case SCALIO_URING_CMD_GET:
		op = SCALIO_OP_GET;
		break;
	case SCALIO_URING_CMD_PUT:
		op = SCALIO_OP_PUT;
		break;
	case SCALIO_URING_CMD_DELETE:
		op = SCALIO_OP_DELETE;
		break;
	default:
		return -ENOTTY;
	}
	if (cmd->flags & IORING_URING_CMD_FIXED)
		return -EINVAL;
	/* The SQE is shared with user space: read it once. */
	payload = scalio_uring_payload(cmd);
	memcpy(&uc, payload, sizeof(uc));
	if (uc.flags || uc.reserved)
		return -EINVAL;
	if ((issue_flags & IO_URING_F_SQE128) &&
	    memchr_inv(payload + sizeof(uc), 0,
		       SCALIO_URING_CMD128_BYTES - sizeof(uc)))
		return -EINVAL;

	if (atomic_inc_return(&hs->uring_inflight) > SCALIO_URING_MAX_INFLIGHT) {
		atomic_dec(&hs->uring_inflight);
		return -EBUSY;
	}
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u) {
		atomic_dec(&hs->uring_inflight);
		return -ENOMEM;
	}
	u->k.hs = hs;
	u->ukv = u64_to_user_ptr(uc.kv);
	ret = copy_from_user(&u->kv, u->ukv, sizeof(u->kv)) ? -EFAULT :
	      scalio_host_kop_prepare(&u->k, hs, op, &u->kv);
	if (ret) {
		scalio_host_uop_free(u);
		return ret;
	}
	u->cmd = cmd;
	*scalio_uring_pdu(cmd) = u;
	INIT_WORK(&u->k.work, scalio_host_uop_work);
	scalio_uring_mark_cancelable(cmd, issue_flags);
	queue_work(hs->uring_wq, &u->k.work);
	return -EIOCBQUEUED;
}
