// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_canary: a module whose init fires a WARN_ON on purpose.
 *
 * tests/vm/suite/01-logcheck-canary.sh loads it in a test-bed VM and passes
 * only if tests/vm/run then fails the run because of the WARNING in the
 * kernel log: proof that the log check every VM test relies on can fail.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/bug.h>

static int __init scalio_canary_init(void)
{
	pr_info("warning on purpose (test-bed log check canary)\n");
	WARN_ON(1);
	return 0;
}

static void __exit scalio_canary_exit(void)
{
}

module_init(scalio_canary_init);
module_exit(scalio_canary_exit);
MODULE_DESCRIPTION("scalio test bed: WARN_ON canary for the kernel log check");
MODULE_LICENSE("GPL");
