// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-fio.so - fio external ioengine for a scalio store.
 *
 *   ioengine=external:/path/to/scalio-fio.so
 *   store=kv0            the store device /dev/scalio/<store>
 *   binary_keys=0|1      key format (below)
 *
 * Each fio block is one key-value pair: a read is a GET, a write a PUT of
 * the whole block, a trim a DELETE.  The key is the block number,
 * offset / bs (bs = the smallest block size of the job), written as
 * "blk<decimal>" or, with binary_keys=1, as 8 big-endian bytes.  Values
 * are at most SCALIO_VALUE_MAX (4096) bytes, so a job with a larger block
 * size is refused at init.
 *
 * Reads of a key never written return -ENOENT from the store: the engine
 * completes them as successful reads of zeroes (so read jobs work on a
 * fresh store) and reports how many there were when the job ends.  A
 * stored value shorter than the block is returned zero-padded.  Syncs
 * complete at once: a PUT is durable when it returns.
 *
 * The engine is synchronous (FIO_SYNCIO); use numjobs= for parallelism.
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

#include "fio.h"
#include "optgroup.h"

#include <scalio.h>

struct scalio_fio_options {
	void *pad;		/* fio: an option's off1 must not be 0 */
	char *store;
	unsigned int binary_keys;
};

struct scalio_fio_data {
	int fd;
	unsigned long long unit;	/* bytes per key */
	unsigned long long enoent_reads;
	unsigned long long short_reads;
	unsigned long long enoent_trims;
	char path[64 + SCALIO_NAME_MAX];
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
	return 0;
}

static void scalio_fio_cleanup(struct thread_data *td)
{
	struct scalio_fio_data *sd = td->io_ops_data;

	if (!sd)
		return;
	if (sd->enoent_reads || sd->short_reads || sd->enoent_trims)
		log_info("scalio: %s: %llu reads of never-written keys "
			 "returned zeroes, %llu short values zero-padded, "
			 "%llu trims of absent keys\n", sd->path,
			 sd->enoent_reads, sd->short_reads, sd->enoent_trims);
	close(sd->fd);
	free(sd);
	td->io_ops_data = NULL;
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
	char key[SCALIO_KEY_MAX + 1];
	struct scalio_kv kv;
	unsigned long req;

	fio_ro_check(td, io_u);
	if (io_u->ddir == DDIR_SYNC || io_u->ddir == DDIR_DATASYNC ||
	    io_u->ddir == DDIR_SYNC_FILE_RANGE)
		return FIO_Q_COMPLETED;	/* PUTs are durable on return */

	memset(&kv, 0, sizeof(kv));
	kv.klen = make_key(o, io_u->offset / sd->unit, key);
	kv.key = (uintptr_t)key;
	switch (io_u->ddir) {
	case DDIR_READ:
		req = SCALIO_IOC_GET;
		kv.value = (uintptr_t)io_u->xfer_buf;
		kv.vlen = (__u32)io_u->xfer_buflen;
		break;
	case DDIR_WRITE:
		req = SCALIO_IOC_PUT;
		kv.value = (uintptr_t)io_u->xfer_buf;
		kv.vlen = (__u32)io_u->xfer_buflen;
		break;
	case DDIR_TRIM:
		req = SCALIO_IOC_DELETE;
		break;
	default:
		io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}
	if (ioctl(sd->fd, req, &kv) < 0) {
		if (errno == ENOENT && io_u->ddir == DDIR_READ) {
			memset(io_u->xfer_buf, 0, io_u->xfer_buflen);
			sd->enoent_reads++;
		} else if (errno == ENOENT && io_u->ddir == DDIR_TRIM) {
			sd->enoent_trims++;
		} else {
			io_u->error = errno;
			td_verror(td, io_u->error, "scalio ioctl");
		}
		return FIO_Q_COMPLETED;
	}
	if (io_u->ddir == DDIR_READ && kv.vlen < io_u->xfer_buflen) {
		memset((char *)io_u->xfer_buf + kv.vlen, 0,
		       io_u->xfer_buflen - kv.vlen);
		sd->short_reads++;
	}
	return FIO_Q_COMPLETED;
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
	.flags			= FIO_SYNCIO | FIO_DISKLESSIO | FIO_NOEXTEND,
	.init			= scalio_fio_init,
	.queue			= scalio_fio_queue,
	.cleanup		= scalio_fio_cleanup,
	.open_file		= scalio_fio_open,
	.close_file		= scalio_fio_close,
	.options		= options,
	.option_struct_size	= sizeof(struct scalio_fio_options),
};
