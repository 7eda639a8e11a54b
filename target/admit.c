// SPDX-License-Identifier: GPL-2.0
/*
 * Admission: which hosts may use a store, as nvmet decides which hosts may
 * connect to a subsystem.  A host names itself by NQN in its first request
 * (ADMIT).  It is admitted if its NQN has an entry under the store's
 * allowed_hosts/ (or attr_allow_any_host is set and it has none), and, if
 * that entry holds a secret, only with a proof of the secret: HMAC-SHA256
 * over the connection's fresh random challenge, its client id, the store
 * and the host's NQN and id (scalio_admit_mac_input()).  The secret never
 * crosses the wire, and a recorded proof fails on any other connection.
 * No mutual authentication: the host trusts the address it was given.
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <crypto/algapi.h>
#include <linux/slab.h>

#include "scalio_target.h"
#include "../common/scalio_hmac.h"

/* Copy the secret of @hostnqn's entry; -ENOENT without an entry. */
static int scalio_tgt_admit_lookup(struct scalio_tgt_store *st,
				   const char *hostnqn,
				   u8 *secret, u32 *secret_len)
{
	struct scalio_tgt_host *h;
	int ret = -ENOENT;

	mutex_lock(&st->hosts_lock);
	list_for_each_entry(h, &st->hosts, entry) {
		if (strcmp(h->nqn, hostnqn))
			continue;
		memcpy(secret, h->secret, h->secret_len);
		*secret_len = h->secret_len;
		ret = 0;
		break;
	}
	mutex_unlock(&st->hosts_lock);
	return ret;
}

/**
 * scalio_tgt_admit() - decide whether a host may use a store
 * @st:		store
 * @hostnqn:	the NQN the host sent (checked by scalio_msg_check())
 * @host_id:	SCALIO_HOSTID_LEN bytes from its connect private data
 * @challenge:	the challenge this connection was accepted with
 * @client_id:	the id this connection was given
 * @mac:	the host's proof, or NULL if it sent none
 *
 * Logs the NQN and the reason of every refusal.  Sleeps.
 *
 * Return: 0, -EACCES (NQN not allowed), -ENOKEY (a secret is required and
 * no proof came), -EKEYREJECTED (wrong proof), or -ENOMEM and such.
 */
int scalio_tgt_admit(struct scalio_tgt_store *st, const char *hostnqn,
		     const u8 *host_id, const u8 *challenge, u16 client_id,
		     const u8 *mac)
{
	u8 *secret, *input;
	u8 want[SCALIO_MAC_LEN];
	u32 secret_len = 0;
	int ret;

	secret = kmalloc(SCALIO_SECRET_MAX + SCALIO_ADMIT_MAC_INPUT_LEN,
			 GFP_KERNEL);
	if (!secret)
		return -ENOMEM;
	input = secret + SCALIO_SECRET_MAX;

	ret = scalio_tgt_admit_lookup(st, hostnqn, secret, &secret_len);
	if (ret == -ENOENT) {
		if (READ_ONCE(st->allow_any_host)) {
			/* every time: an operator must see who gets in so */
			pr_warn("store %s: host %s admitted without a secret: attr_allow_any_host is set\n",
				st->name, hostnqn);
			ret = 0;
		} else {
			pr_warn_ratelimited("store %s: host %s refused: not in allowed_hosts\n",
					    st->name, hostnqn);
			ret = -EACCES;
		}
		goto out;
	}
	if (!secret_len) {
		/* listed without a secret (allow-host --no-key) */
		pr_warn("store %s: host %s admitted by its NQN alone: no secret is set for it\n",
			st->name, hostnqn);
		goto out;
	}
	if (!mac) {
		pr_warn_ratelimited("store %s: host %s refused: it has a secret here but sent no proof\n",
				    st->name, hostnqn);
		ret = -ENOKEY;
		goto out;
	}
	scalio_admit_mac_input(input, challenge, client_id, st->name, hostnqn,
			       host_id);
	ret = scalio_hmac_sha256(secret, secret_len, input,
				 SCALIO_ADMIT_MAC_INPUT_LEN, want);
	if (ret) {
		pr_err("store %s: host %s: cannot compute HMAC-SHA256: %d\n",
		       st->name, hostnqn, ret);
		goto out;
	}
	if (crypto_memneq(want, mac, SCALIO_MAC_LEN)) {
		pr_warn_ratelimited("store %s: host %s refused: wrong secret\n",
				    st->name, hostnqn);
		ret = -EKEYREJECTED;
	}
out:
	memzero_explicit(want, sizeof(want));
	kfree_sensitive(secret);
	return ret;
}
