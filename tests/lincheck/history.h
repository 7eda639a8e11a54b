/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Operation history recorder for the linearizability checker.
 *
 * A workload calls lc_history_open() once, then from any thread
 * lc_record() after each operation returns, with the times taken just
 * before issuing it and just after it returned (lc_now()).  Each thread
 * appends to its own buffer (no lock on the hot path); lc_history_close()
 * -- or process exit, through atexit() -- writes every buffer to the file,
 * one line per operation:
 *
 *   <client> <get|put|del> <key> <value|-> <ok|missing|err> <invoke> <return>
 *
 * Keys and values are written as tokens: bytes outside '!'..'~', and
 * '%', are escaped as %XX; an empty value is written as %; a value that
 * is the single byte '-' as %2D, so that '-' always means "no value".
 * Times are CLOCK_MONOTONIC nanoseconds (lc_now()), comparable between
 * the threads of one machine, or any other clock the caller stamps with
 * and names in lc_history_timeline().  An op whose closing clock read
 * failed is recorded with t_return LC_NEVER (written as '-'): the checker
 * keeps it pending forever (it may or may not have taken effect), which
 * is sound where dropping it is not (a dropped PUT leaves a later GET of
 * its value unexplained: a false violation).
 *
 * Directive lines, written at once (so they precede the ops):
 *
 *   #% timeline <clock> <epoch>	lc_history_timeline()
 *   #% restart <why>			lc_history_restart()
 *
 * lincheck refuses a history whose timelines differ or that has a restart
 * line: stamps of two runs of a clock cannot be compared.
 */
#ifndef SCALIO_LINCHECK_HISTORY_H
#define SCALIO_LINCHECK_HISTORY_H

#include <stddef.h>
#include <stdint.h>

enum lc_op {
	LC_GET,
	LC_PUT,
	LC_DEL,
};

enum lc_result {
	LC_OK,
	LC_MISSING,
	LC_ERR,		/* outcome unknown: may or may not have taken effect */
};

/* t_return of an op whose return time is unknown (never returned). */
#define LC_NEVER	UINT64_MAX

/* Opens (truncates) @path for the history; 0 or -errno. */
int lc_history_open(const char *path);
/* True once lc_history_open() succeeded and until close. */
int lc_history_enabled(void);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t lc_now(void);
/*
 * lc_record - append one completed operation to this thread's buffer.
 * @client:	client id (e.g. "host2.t3"); NULL uses "t<thread number>"
 * @val:	PUT: the value written; GET with LC_OK: the value read;
 *		otherwise ignored (written as '-')
 * Returns 0, or -ENOMEM (the op is then lost and the history marked
 * incomplete: lc_history_close() returns -ENOMEM).
 */
int lc_record(const char *client, enum lc_op op, const void *key,
	      size_t klen, const void *val, size_t vlen, enum lc_result res,
	      uint64_t t_invoke, uint64_t t_return);
/*
 * lc_history_timeline - name the clock of the stamps: @clock "monotonic"
 * (@epoch: this machine's boot id, lc_boot_id()) or "target" (@epoch: the
 * target's boot id, as the caller learnt it).  Histories to be checked
 * together must name the same clock and epoch.  Tokens without spaces.
 * Returns 0 or a negative errno.
 */
int lc_history_timeline(const char *clock, const char *epoch);
/*
 * lc_history_restart - the recorder saw its clock restart (@why: one token,
 * e.g. "clock-went-back"): lincheck will refuse the history.
 */
int lc_history_restart(const char *why);
/* This machine's boot id (/proc/sys/kernel/random/boot_id); 0 or -errno. */
int lc_boot_id(char *buf, size_t len);
/*
 * Writes every thread's buffer to the file and closes it.  Call once all
 * recording threads are done.  Returns 0 or a negative errno.
 */
int lc_history_close(void);

#endif /* SCALIO_LINCHECK_HISTORY_H */
