// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_debug_canary: a module whose init commits, on request, the bugs the
 * debug-kernel lane exists to catch and that Debian's kernels let pass:
 *   uaf=1        reads a kmalloc'ed object after kfree() (KASAN)
 *   inversion=1  takes two mutexes in both orders, one after the other, so
 *                nothing deadlocks but the order is inverted (lockdep)
 *   shift=N      shifts a u32 by N (N >= 32: UBSAN shift-out-of-bounds)
 *   leak=1       drops its only pointers to kmalloc'ed objects (kmemleak)
 *
 * tests/vm/suite/03-debug-canary.sh loads it with all four on the
 * 6.1-debug lane and passes only if tests/vm/run fails the run and names
 * each of them: proof that the lane's checkers are on and its checks fail.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

static bool uaf;
module_param(uaf, bool, 0444);
MODULE_PARM_DESC(uaf, "read freed memory at load (KASAN)");
static bool inversion;
module_param(inversion, bool, 0444);
MODULE_PARM_DESC(inversion, "take two mutexes in both orders at load (lockdep)");
static uint shift;
module_param(shift, uint, 0444);
MODULE_PARM_DESC(shift, "shift a u32 by this at load (UBSAN when >= 32)");
static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leak one object at load (kmemleak)");

static DEFINE_MUTEX(canary_a);
static DEFINE_MUTEX(canary_b);

/* Out of line, so that the compiler sees neither the kfree nor the read. */
static noinline u32 canary_read(const u32 *p)
{
	return READ_ONCE(*p);
}

static noinline void canary_uaf(void)
{
	u32 *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	p[3] = 0xdead;
	kfree(p);
	pr_info("read after free: %#x\n", canary_read(p + 3));
}

static noinline void canary_inversion(void)
{
	mutex_lock(&canary_a);
	mutex_lock(&canary_b);
	mutex_unlock(&canary_b);
	mutex_unlock(&canary_a);
	mutex_lock(&canary_b);
	mutex_lock(&canary_a);
	mutex_unlock(&canary_a);
	mutex_unlock(&canary_b);
}

static noinline void canary_leak(void)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (p)
		memset(p, 0x5c, 128);
}

/*
 * kmemleak is conservative: a stale copy of a pointer anywhere it scans
 * keeps the object "referenced".  One leaked object was missed now and
 * then (its pointer lingering in the stack insmod ran on, which the kernel
 * keeps cached after the task exits), so leak several, each call's frame
 * overwriting the last one's, and scrub the stack below us afterwards.
 */
#define CANARY_LEAKS	8

static noinline void canary_scrub_stack(void)
{
	char buf[1024];

	memset(buf, 0, sizeof(buf));
	barrier_data(buf);
}

static noinline void canary_leaks(void)
{
	int i;

	for (i = 0; i < CANARY_LEAKS; i++)
		canary_leak();
	canary_scrub_stack();
	pr_info("leaked %d 128-byte objects\n", CANARY_LEAKS);
}

static int __init scalio_debug_canary_init(void)
{
	u32 one = 1;

	pr_info("committing bugs on purpose (debug-lane canary)\n");
	/*
	 * The inversion first: any KASAN or UBSAN report taints the kernel
	 * and turns lockdep off ("Disabling lock debugging due to kernel
	 * taint"), so a later inversion would go unreported.
	 */
	if (inversion)
		canary_inversion();
	if (uaf)
		canary_uaf();
	if (shift)
		pr_info("1 << %u = %#x\n", shift, one << shift);
	if (leak)
		canary_leaks();
	return 0;
}

static void __exit scalio_debug_canary_exit(void)
{
}

module_init(scalio_debug_canary_init);
module_exit(scalio_debug_canary_exit);
MODULE_DESCRIPTION("scalio test bed: bugs on purpose for the debug-kernel lane");
MODULE_LICENSE("GPL");
