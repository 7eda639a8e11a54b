// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest_harness.h runs every TEST() in a forked child that ends with
 * _exit(), so LeakSanitizer's usual check at exit() never runs in the
 * process that ran the test.  The unit tests are linked with
 * -Wl,--wrap=_exit: the harness's _exit() calls land here, which runs that
 * same check first.  A leak is reported on stderr and the child exits with
 * the sanitizer's exit code (1), so the harness reports the test "not ok".
 */
#include <sanitizer/lsan_interface.h>

void __real__exit(int status) __attribute__((noreturn));
void __wrap__exit(int status) __attribute__((noreturn));

void __wrap__exit(int status)
{
	__lsan_do_leak_check();
	__real__exit(status);
}
