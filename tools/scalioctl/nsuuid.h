/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nsuuid.c: the UUIDs of the nvmet namespaces of a store's SSDs.
 */
#ifndef SCALIOCTL_NSUUID_H
#define SCALIOCTL_NSUUID_H

#include <stdbool.h>

#define NS_UUID_LEN	37	/* 36 characters and a NUL */

void ns_uuid_v5(const char *nqn, char out[NS_UUID_LEN]);
void ns_uuid_legacy(const char *nqn, char out[NS_UUID_LEN]);
void ns_uuid_choose(const char *nqn, bool legacy, const char *cur,
		    char out[NS_UUID_LEN]);

#endif /* SCALIOCTL_NSUUID_H */
