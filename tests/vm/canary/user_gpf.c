// SPDX-License-Identifier: GPL-2.0
/*
 * user_gpf: a user-space program that takes a general protection fault
 * (HLT is privileged), so that 01-logcheck-canary can show that the test
 * bed reports the kernel's "traps: user_gpf[PID] general protection fault"
 * line as a user-space crash and does not count it as a kernel report.
 */
int main(void)
{
	__asm__ volatile("hlt");
	return 0;
}
