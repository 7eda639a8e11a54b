// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-fio.so - fio external ioengine for a scalio store.
 *
 *   ioengine=external:/path/to/scalio-fio.so
 *   store=kv0            the store device /dev/scalio/<store>
 *   binary_keys=0|1      key format (below)
 *   uring=1|0            1 (default): asynchronous, through io_uring
 *                        (SCALIO_URING_CMD_*), iodepth= ops in flight per
 *                        job; 0: one synchronous ioctl at a time
 *   missing_key_error=0|1
 *                        1: a GET of a key that is not in the store fails
 *                        the read with ENOENT; 0 (default): it reads zeroes
 *
 * Each fio block is one key-value pair: a read is a GET, a write a PUT of
 * the whole block, a trim a DELETE.  The key is the block number,
 * offset / bs (bs = the smallest block size of the job), written as
 * "blk<decimal>" or, with binary_keys=1, as 8 big-endian bytes.  Values
 * are at most SCALIO_VALUE_MAX (4096) bytes, so a job with a larger block
 * size is refused at init.
 *
 * Reads of a key never written return -ENOENT from the store: by default
 * the engine completes them as successful reads of zeroes (so read jobs
 * work on a fresh store) and reports how many there were when the job
 * ends; with missing_key_error=1 such a read fails with ENOENT, which fio
 * reports as the job's error (or counts, with continue_on_error=read), for
 * jobs that must find every key they read.  A stored value shorter than
 * the block is returned zero-padded.  Syncs
 * complete at once: a PUT is durable when it returns.
 *
 * With uring=1 fio's iodepth, iodepth_batch* and iodepth_low apply: ->queue
 * prepares an SQE, ->commit submits them, ->getevents reaps CQEs (in any
 * order: operations in flight are independent).  numjobs= adds threads.
 * It is built against fio's source headers (build/fio-src, fio 3.33,
 * FIO_IOOPS_VERSION 31) and fio refuses it if its ABI version differs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <liburing.h>

#include "fio.h"
#include "optgroup.h"

#include <scalio.h>

struct scalio_fio_options {
	void *pad;		/* fio: an option's off1 must not be 0 */
	char *store;
	unsigned int binary_keys;
	unsigned int uring;
	unsigned int missing_key_error;
};

/* Per io_u: what an operation in flight needs until its CQE. */
struct scalio_fio_req {
	struct scalio_kv kv;
	struct scalio_uring_cmd uc;
	char key[SCALIO_KEY_MAX + 1];
};

struct scalio_fio_data {
	int fd;
	unsigned long long unit;	/* bytes per key */
	unsigned long long enoent_reads;
	int missing_key_error;		/* a GET's ENOENT fails the read */
	unsigned long long short_reads;
	unsigned long long enoent_trims;
	char path[64 + SCALIO_NAME_MAX];
	int ring_ok;			/* @ring is set up (uring=1) */
	struct io_uring ring;
	unsigned int depth;		/* ring entries, >= iodepth */
	unsigned int inflight;		/* queued or submitted, not reaped */
	struct io_u **events;		/* reaped by the last getevents */
};

static struct fio_option options[] = {
	{
		.name	= "store",
		.lname	= "scalio store",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct scalio_fio_options, store),
		.def	= "kv0",
		.help	= "scalio store name (device /dev/scalio/<store>)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "binary_keys",
		.lname	= "scalio binary keys",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct scalio_fio_options, binary_keys),
		.def	= "0",
		.help	= "keys as 8 big-endian bytes instead of \"blk<n>\"",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "uring",
		.lname	= "scalio io_uring",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct scalio_fio_options, uring),
		.def	= "1",
		.help	= "asynchronous operations through io_uring (iodepth "
			  "in flight); 0: synchronous ioctls",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "missing_key_error",
		.lname	= "scalio missing key is an error",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct scalio_fio_options, missing_key_error),
		.def	= "0",
		.help	= "a read of an absent key fails (ENOENT), not zeroes",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= NULL,
	},
};

static int scalio_fio_init(struct thread_data *td)
{
	struct scalio_fio_options *o = td->eo;
	struct scalio_fio_data *sd;
	unsigned long long unit = 0;
	int d;

	for (d = DDIR_READ; d <= DDIR_TRIM; d++) {
		if (td->o.max_bs[d] > SCALIO_VALUE_MAX) {
			log_err("scalio: block size %llu > %d: a scalio value "
				"holds at most %d bytes; use bs<=%d\n",
				td->o.max_bs[d], SCALIO_VALUE_MAX,
				SCALIO_VALUE_MAX, SCALIO_VALUE_MAX);
			return 1;
		}
		if (td->o.min_bs[d] && (!unit || td->o.min_bs[d] < unit))
			unit = td->o.min_bs[d];
	}
	if (!o->store || !*o->store || strlen(o->store) >= SCALIO_NAME_MAX ||
	    strchr(o->store, '/')) {
		log_err("scalio: bad store name '%s'\n",
			o->store ? o->store : "");
		return 1;
	}
	sd = calloc(1, sizeof(*sd));
	if (!sd) {
		log_err("scalio: out of memory\n");
		return 1;
	}
	sd->unit = unit ? unit : 4096;
	sd->missing_key_error = o->missing_key_error;
	snprintf(sd->path, sizeof(sd->path), SCALIO_STORE_DEV_FMT, o->store);
	sd->fd = open(sd->path, O_RDWR | O_CLOEXEC);
	if (sd->fd < 0) {
		int err = errno;

		log_err("scalio: %s: %s%s\n", sd->path, strerror(err),
			err == ENOENT ? " (store not attached? scalioctl "
			"attach)" : "");
		free(sd);
		return 1;
	}
	td->io_ops_data = sd;
	if (o->uring) {
		int ret;

		sd->depth = td->o.iodepth ? td->o.iodepth : 1;
		sd->events = calloc(sd->depth, sizeof(*sd->events));
		ret = sd->events ? io_uring_queue_init(sd->depth, &sd->ring, 0) :
				   -ENOMEM;
		if (ret) {
			log_err("scalio: io_uring setup for iodepth %u: %s "
				"(uring=0 uses ioctls)\n", sd->depth,
				strerror(-ret));
			return 1;	/* cleanup frees sd */
		}
		sd->ring_ok = 1;
	}
	return 0;
}

static void scalio_fio_cleanup(struct thread_data *td)
{
	struct scalio_fio_data *sd = td->io_ops_data;

	if (!sd)
		return;
	if (sd->enoent_reads || sd->short_reads || sd->enoent_trims)
		log_info("scalio: %s: %llu reads of never-written keys "
			 "%s, %llu short values zero-padded, "
			 "%llu trims of absent keys\n", sd->path,
			 sd->enoent_reads, sd->missing_key_error ?
			 "failed (missing_key_error=1)" : "returned zeroes",
			 sd->short_reads, sd->enoent_trims);
	if (sd->ring_ok)
		io_uring_queue_exit(&sd->ring);
	free(sd->events);
	close(sd->fd);
	free(sd);
	td->io_ops_data = NULL;
}

static int scalio_fio_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	io_u->engine_data = calloc(1, sizeof(struct scalio_fio_req));
	return io_u->engine_data ? 0 : 1;
}

static void scalio_fio_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

/*
 * An operation's outcome (@res: a GET's length, 0, or -errno) into @io_u:
 * never-written keys read as zeroes (or fail, missing_key_error=1), short
 * values are zero-padded.
 */
static void scalio_fio_done(struct scalio_fio_data *sd, struct io_u *io_u,
			    int res)
{
	if (res == -ENOENT && io_u->ddir == DDIR_READ) {
		sd->enoent_reads++;
		if (sd->missing_key_error)
			io_u->error = ENOENT;
		else
			memset(io_u->xfer_buf, 0, io_u->xfer_buflen);
		return;
	}
	if (res == -ENOENT && io_u->ddir == DDIR_TRIM) {
		sd->enoent_trims++;
		return;
	}
	if (res < 0) {
		io_u->error = -res;
		return;
	}
	if (io_u->ddir == DDIR_READ && (unsigned long long)res <
	    io_u->xfer_buflen) {
		memset((char *)io_u->xfer_buf + res, 0,
		       io_u->xfer_buflen - res);
		sd->short_reads++;
	}
}

static unsigned int make_key(const struct scalio_fio_options *o,
			     unsigned long long blk, char *key)
{
	int i;

	if (o->binary_keys) {
		for (i = 0; i < 8; i++)
			key[i] = (char)(blk >> (56 - 8 * i));
		return 8;
	}
	return (unsigned int)snprintf(key, SCALIO_KEY_MAX + 1, "blk%llu", blk);
}

static enum fio_q_status scalio_fio_queue(struct thread_data *td,
					  struct io_u *io_u)
{
	struct scalio_fio_data *sd = td->io_ops_data;
	struct scalio_fio_options *o = td->eo;
	struct scalio_fio_req *r = io_u->engine_data;
	struct io_uring_sqe *sqe;
	unsigned long req;
	unsigned int cmd_op;

	fio_ro_check(td, io_u);
	if (io_u->ddir == DDIR_SYNC || io_u->ddir == DDIR_DATASYNC ||
	    io_u->ddir == DDIR_SYNC_FILE_RANGE)
		return FIO_Q_COMPLETED;	/* PUTs are durable on return */

	memset(&r->kv, 0, sizeof(r->kv));
	r->kv.klen = make_key(o, io_u->offset / sd->unit, r->key);
	r->kv.key = (uintptr_t)r->key;
	switch (io_u->ddir) {
	case DDIR_READ:
		req = SCALIO_IOC_GET;
		cmd_op = SCALIO_URING_CMD_GET;
		r->kv.value = (uintptr_t)io_u->xfer_buf;
		r->kv.vlen = (__u32)io_u->xfer_buflen;
		break;
	case DDIR_WRITE:
		req = SCALIO_IOC_PUT;
		cmd_op = SCALIO_URING_CMD_PUT;
		r->kv.value = (uintptr_t)io_u->xfer_buf;
		r->kv.vlen = (__u32)io_u->xfer_buflen;
		break;
	case DDIR_TRIM:
		req = SCALIO_IOC_DELETE;
		cmd_op = SCALIO_URING_CMD_DELETE;
		break;
	default:
		io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}

	if (!sd->ring_ok) {
		int res = ioctl(sd->fd, req, &r->kv) < 0 ? -errno :
			  (io_u->ddir == DDIR_READ ? (int)r->kv.vlen : 0);

		scalio_fio_done(sd, io_u, res);
		if (io_u->error)
			td_verror(td, io_u->error, "scalio ioctl");
		return FIO_Q_COMPLETED;
	}

	if (sd->inflight >= sd->depth)
		return FIO_Q_BUSY;
	sqe = io_uring_get_sqe(&sd->ring);
	if (!sqe)
		return FIO_Q_BUSY;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = sd->fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = (uintptr_t)io_u;
	memset(&r->uc, 0, sizeof(r->uc));
	r->uc.kv = (uintptr_t)&r->kv;
	memcpy(sqe->cmd, &r->uc, sizeof(r->uc));
	sd->inflight++;
	return FIO_Q_QUEUED;
}

static int scalio_fio_commit(struct thread_data *td)
{
	struct scalio_fio_data *sd = td->io_ops_data;
	int ret;

	if (!sd->ring_ok)
		return 0;
	do {
		ret = io_uring_submit(&sd->ring);
	} while (ret == -EINTR);
	return ret < 0 ? ret : 0;
}

/* Reap at least @min and at most @max completions. */
static int scalio_fio_getevents(struct thread_data *td, unsigned int min,
				unsigned int max, const struct timespec *t)
{
	struct scalio_fio_data *sd = td->io_ops_data;
	unsigned int n = 0;

	if (!sd->ring_ok)
		return 0;
	if (max > sd->depth)
		max = sd->depth;
	while (n < max) {
		struct io_uring_cqe *cqe = NULL;
		struct io_u *io_u;
		int ret;

		ret = n < min ? io_uring_wait_cqe(&sd->ring, &cqe) :
				io_uring_peek_cqe(&sd->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN && n >= min)
			break;
		if (ret < 0)
			return n ? (int)n : ret;
		if (!cqe)
			break;
		io_u = (struct io_u *)(uintptr_t)cqe->user_data;
		scalio_fio_done(sd, io_u, cqe->res);
		io_uring_cqe_seen(&sd->ring, cqe);
		sd->inflight--;
		sd->events[n++] = io_u;
	}
	return (int)n;
}

static struct io_u *scalio_fio_event(struct thread_data *td, int event)
{
	struct scalio_fio_data *sd = td->io_ops_data;

	return sd->events[event];
}

/* No file behind the engine: fio's file is only the size of the key space. */
static int scalio_fio_open(struct thread_data fio_unused *td,
			   struct fio_file fio_unused *f)
{
	return 0;
}

static int scalio_fio_close(struct thread_data fio_unused *td,
			    struct fio_file fio_unused *f)
{
	return 0;
}

struct ioengine_ops ioengine = {
	.name			= "scalio",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_DISKLESSIO | FIO_NOEXTEND,
	.init			= scalio_fio_init,
	.queue			= scalio_fio_queue,
	.commit			= scalio_fio_commit,
	.getevents		= scalio_fio_getevents,
	.event			= scalio_fio_event,
	.io_u_init		= scalio_fio_io_u_init,
	.io_u_free		= scalio_fio_io_u_free,
	.cleanup		= scalio_fio_cleanup,
	.open_file		= scalio_fio_open,
	.close_file		= scalio_fio_close,
	.options		= options,
	.option_struct_size	= sizeof(struct scalio_fio_options),
};
