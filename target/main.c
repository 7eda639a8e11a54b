// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-target: module load and unload.
 *
 * Layers, each calling only the ones below it (callbacks upward go
 * through ops structures):
 *   configfs.c            user interface: stores, SSDs, allowed hosts
 *   core.c                store enable/disable, statistics
 *   rpc.c, rdma.c         transport: messages over connections, verbs,
 *                         connection manager, memory registrations
 *   control.c, admit.c    admission, host identity, reconnect barrier,
 *                         keep-alive (the transport calls in; control
 *                         drops connections through scalio_tgt_ctl_ops)
 *   commit.c, cleaner.c,  the store: group commit, log cleaning,
 *   recovery.c, get.c     recovery, GET served by the target
 *   log.c                 log space, batch I/O, checkpoints
 *   ssd.c, index.c,       block I/O, the DRAM index, the segment cache
 *   segcache.c
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <linux/module.h>

#include "rdma.h"

static int __init scalio_tgt_init(void)
{
	int ret;

	ret = scalio_tgt_params_check();
	if (ret)
		return ret;
	/* The transport first: configfs makes stores enable-able. */
	ret = scalio_tgt_rdma_init(&scalio_tgt_rpc_ops);
	if (ret)
		return ret;
	ret = scalio_tgt_configfs_init();
	if (ret)
		goto out_rdma;
	pr_info("loaded\n");
	return 0;

out_rdma:
	scalio_tgt_rdma_exit();
	return ret;
}

static void __exit scalio_tgt_exit(void)
{
	/* configfs pins the module while any store exists. */
	scalio_tgt_configfs_exit();
	scalio_tgt_rdma_exit();
}

module_init(scalio_tgt_init);
module_exit(scalio_tgt_exit);

MODULE_DESCRIPTION("scalio key-value store target (DPU-based JBOF)");
MODULE_LICENSE("GPL");
