// SPDX-License-Identifier: GPL-2.0
/*
 * The UUID of the nvmet namespace that exports an SSD of a store.
 *
 * It is derived from the subsystem's NQN, so that every target-setup of a
 * store gives its namespaces the same identifier, with no state kept
 * anywhere, and hosts reconnecting to a restarted target keep the
 * namespace (a changed identifier makes the host drop it).  It is the
 * RFC 4122 version-5 UUID of the NQN in SCALIO_NS_UUID_NAMESPACE (SHA-1,
 * libuuid's uuid_generate_sha1).  Stores set up by an older scalioctl
 * carry its form, an FNV-1a hash laid out as a version-4 UUID: a namespace
 * that has it (running, or restored from a saved configuration) keeps it,
 * and --legacy-ns-uuid gives it again to such a store set up anew, so that
 * its hosts see no change.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "nsuuid.h"

/*
 * uuid5(NameSpace_DNS, "scalio.io"): scalio's namespace of name-based
 * UUIDs, the names being NQNs.  Never to change.
 */
#define SCALIO_NS_UUID_NAMESPACE	"44a5c049-ff23-5f18-955b-c1c503639ace"

/* The version-5 UUID of @nqn. */
void ns_uuid_v5(const char *nqn, char out[NS_UUID_LEN])
{
	uuid_t ns, u;

	if (uuid_parse(SCALIO_NS_UUID_NAMESPACE, ns))
		abort();	/* a constant: cannot fail */
	uuid_generate_sha1(u, ns, nqn, strlen(nqn));
	uuid_unparse_lower(u, out);
}

static uint64_t fnv1a64(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The identifier scalioctl gave @nqn's namespace before version 5. */
void ns_uuid_legacy(const char *nqn, char out[NS_UUID_LEN])
{
	uint64_t a = fnv1a64(nqn, 0xcbf29ce484222325ULL);
	uint64_t b = fnv1a64(nqn, a ^ 0x5ca1ab1e5ca1ab1eULL);

	snprintf(out, NS_UUID_LEN, "%08x-%04x-4%03x-%04x-%012llx",
		 (unsigned int)(a >> 32), (unsigned int)(a >> 16) & 0xffff,
		 (unsigned int)a & 0xfff,
		 0x8000 | ((unsigned int)(b >> 48) & 0x3fff),
		 (unsigned long long)b & 0xffffffffffffULL);
}

/* Is @s one of the two forms this tool gives @nqn? */
static bool own_form(const char *nqn, const char *s)
{
	char v5[NS_UUID_LEN], old[NS_UUID_LEN];

	ns_uuid_v5(nqn, v5);
	ns_uuid_legacy(nqn, old);
	return s && (!strcmp(s, v5) || !strcmp(s, old));
}

/**
 * ns_uuid_choose() - the identifier to give @nqn's namespace
 * @nqn:	subsystem NQN of an SSD of a store
 * @legacy:	the store was set up by an older scalioctl (--legacy-ns-uuid)
 * @cur:	the namespace's device_uuid in configfs now, or NULL
 * @out:	the identifier
 *
 * The one configfs holds if it is one of ours (a running namespace, or
 * one restored from a saved configuration, keeps what its hosts know);
 * else the pre-version-5 form if asked for, or the version-5 one.
 */
void ns_uuid_choose(const char *nqn, bool legacy, const char *cur,
		    char out[NS_UUID_LEN])
{
	if (own_form(nqn, cur))
		snprintf(out, NS_UUID_LEN, "%s", cur);
	else if (legacy)
		ns_uuid_legacy(nqn, out);
	else
		ns_uuid_v5(nqn, out);
}
