/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom.c: the Prometheus text exposition of scalio's counters, apart from
 * where they are read (kv.c), so that it builds and is tested alone.
 */
#ifndef SCALIOCTL_PROM_H
#define SCALIOCTL_PROM_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../uapi/scalio.h"

#define PROM_MAX_SSDS		16	/* SCALIO_MAX_SSDS */
#define PROM_TARGET_METRICS	29	/* entries of prom.c's target_metrics[] */

/* An SSD of a target store, from the stats and from ssds/<i>/. */
struct prom_ssd {
	bool	present;
	int	state;			/* 0 ok, 1 failed, 2 down; -1 unknown */
	char	device_path[PATH_MAX];
	char	nqn[SCALIO_NQN_MAX];
};

/* What the exposition shows of a store of this target. */
struct prom_target {
	char		name[SCALIO_NAME_MAX];
	int		enabled;	/* 0, 1; -1: unknown */
	bool		have[PROM_TARGET_METRICS];
	uint64_t	val[PROM_TARGET_METRICS];
	struct prom_ssd	ssd[PROM_MAX_SSDS];
};

/* What the exposition shows of a store attached on this host. */
struct prom_host {
	char			name[SCALIO_NAME_MAX];
	struct scalio_stats	st;	/* SCALIO_IOC_STATS, host only */
};

void prom_parse_target_stats(struct prom_target *t, char *text);
void prom_print_host(FILE *f, const struct prom_host *h, int n);
void prom_print_target(FILE *f, const struct prom_target *t, int n);

#endif /* SCALIOCTL_PROM_H */
