// SPDX-License-Identifier: GPL-2.0
/*
 * Admission: which hosts may use a store, as nvmet decides which hosts may
 * connect to a subsystem.  A host names itself by NQN in its first request
 * (ADMIT).  It is admitted if its NQN has an entry under the store's
 * allowed_hosts/ (or attr_allow_any_host is set and it has none), and, if
 * that entry holds a secret, only with a proof of the secret: HMAC-SHA256
 * over the connection's fresh random challenge, the host's nonce, its
 * client id, the store, the host's NQN and id, and the connection's
 * addresses and QP numbers as this end sees them
 * (scalio_admit_mac_input()).  The secret never crosses the wire; a
 * recorded proof fails on any other connection, and so does a relayed
 * one (a relay's connection to us has its own address and QPs).  The
 * target then proves the secret too, over the same input with its own
 * label, so the host knows whom it reached.
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
 * scalio_tgt_admit_listed() - has @hostnqn an entry in allowed_hosts
 * @st:		store
 * @hostnqn:	host NQN
 *
 * Return: true if it has (with or without a secret).
 */
bool scalio_tgt_admit_listed(struct scalio_tgt_store *st, const char *hostnqn)
{
	struct scalio_tgt_host *h;
	bool ret = false;

	mutex_lock(&st->hosts_lock);
	list_for_each_entry(h, &st->hosts, entry) {
		if (!strcmp(h->nqn, hostnqn)) {
			ret = true;
			break;
		}
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
 * @nonce:	the host's nonce from its ADMIT
 * @client_id:	the id this connection was given
 * @bind:	this connection as the target sees it
 * @mac:	the host's proof, or NULL if it sent none
 * @tmac:	out, SCALIO_MAC_LEN bytes: the target's proof, when admitted
 *		SCALIO_TGT_ADMIT_SECRET
 * @how:	out, when admitted: enum scalio_tgt_admit_how (the caller
 *		warns about an admission without a secret once it is final)
 *
 * Logs the NQN and the reason of every refusal.  Sleeps.
 *
 * Return: 0, -EACCES (NQN not allowed), -ENOKEY (a secret is required and
 * no proof came), -EKEYREJECTED (wrong proof, or made on another
 * connection), or -ENOMEM and such.
 */
int scalio_tgt_admit(struct scalio_tgt_store *st, const char *hostnqn,
		     const u8 *host_id, const u8 *challenge, const u8 *nonce,
		     u16 client_id, const struct scalio_conn_bind *bind,
		     const u8 *mac, u8 *tmac, enum scalio_tgt_admit_how *how)
{
	u8 *secret, *input;
	u8 want[SCALIO_MAC_LEN];
	u32 secret_len = 0;
	int ret;

	*how = SCALIO_TGT_ADMIT_SECRET;
	secret = kmalloc(SCALIO_SECRET_MAX + SCALIO_ADMIT_MAC_INPUT_LEN,
			 GFP_KERNEL);
	if (!secret)
		return -ENOMEM;
	input = secret + SCALIO_SECRET_MAX;

	ret = scalio_tgt_admit_lookup(st, hostnqn, secret, &secret_len);
	if (ret == -ENOENT) {
		if (READ_ONCE(st->allow_any_host)) {
			*how = SCALIO_TGT_ADMIT_ANY_HOST;
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
		*how = SCALIO_TGT_ADMIT_NQN_ALONE;
		goto out;
	}
	if (!mac) {
		pr_warn_ratelimited("store %s: host %s refused: it has a secret here but sent no proof\n",
				    st->name, hostnqn);
		ret = -ENOKEY;
		goto out;
	}
	scalio_admit_mac_input(input, SCALIO_ADMIT_LABEL_HOST, challenge, nonce,
			       client_id, st->name, hostnqn, host_id, bind);
	ret = scalio_hmac_sha256(secret, secret_len, input,
				 SCALIO_ADMIT_MAC_INPUT_LEN, want);
	if (ret)
		goto mac_err;
	if (crypto_memneq(want, mac, SCALIO_MAC_LEN)) {
		pr_warn_ratelimited("store %s: host %s refused: wrong secret, or a proof made on another connection (a relay)\n",
				    st->name, hostnqn);
		ret = -EKEYREJECTED;
		goto out;
	}
	/* Our proof: the same bytes under the target's label. */
	scalio_admit_mac_input(input, SCALIO_ADMIT_LABEL_TARGET, challenge,
			       nonce, client_id, st->name, hostnqn, host_id,
			       bind);
	ret = scalio_hmac_sha256(secret, secret_len, input,
				 SCALIO_ADMIT_MAC_INPUT_LEN, tmac);
	if (ret)
		goto mac_err;
	goto out;
mac_err:
	pr_err("store %s: host %s: cannot compute HMAC-SHA256: %d\n",
	       st->name, hostnqn, ret);
out:
	memzero_explicit(want, sizeof(want));
	kfree_sensitive(secret);
	return ret;
}
