// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-host handshake and control RPCs: ADMIT (who this host is),
 * HELLO (geometry, settings), CHUNKS (where the index lives), SSD_INFO
 * (what to bind), STATS, and the periodic KEEPALIVE.
 * Every reply is checked against its received length and the store's
 * geometry before anything is kept, every count against a cap of the
 * uAPI or of this module before anything is sized by it, and the whole
 * handshake against SCALIO_HOST_HANDSHAKE_MS (killable when an attach
 * runs it).
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <crypto/algapi.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/log2.h>
#include <linux/overflow.h>

#include "scalio_host.h"
#include "../common/scalio_hmac.h"

/*
 * The target's answer to a host with a secret must prove the secret over
 * the same input under the target's label: then this connection reaches a
 * target that holds our secret, and no relay (whose connections each have
 * their own addresses and QPs) sits in between.
 */
static int scalio_host_admit_check(struct scalio_host_hstore *hs,
				   struct scalio_host_rpc *rpc, u8 *input,
				   const u8 *nonce)
{
	struct scalio_host_conn *conn = &hs->conn;
	const struct scalio_msg_admit_rep *rep = rpc->rsp;
	u8 want[SCALIO_MAC_LEN];
	int ret;

	if (rpc->rsp_len < sizeof(*rep) ||
	    !(le32_to_cpu(rep->flags) & SCALIO_ADMIT_F_MAC)) {
		pr_err("%s: the target admitted host %s without proving its secret: it holds none for this host (allow-host --no-key, attr_allow_any_host), or it is not the store's target; attach without a key file to trust it by its address alone\n",
		       hs->name, hs->hostnqn);
		return -EKEYREJECTED;
	}
	scalio_admit_mac_input(input, SCALIO_ADMIT_LABEL_TARGET,
			       conn->challenge, nonce, conn->client_id,
			       hs->name, hs->hostnqn, hs->host_id, &conn->bind);
	ret = scalio_hmac_sha256(hs->secret, hs->secret_len, input,
				 SCALIO_ADMIT_MAC_INPUT_LEN, want);
	if (!ret && crypto_memneq(want, rep->mac, sizeof(want))) {
		pr_err("%s: the target's proof of host %s's secret is wrong: not the store's target, or not on this connection (a relay?)\n",
		       hs->name, hs->hostnqn);
		ret = -EKEYREJECTED;
	}
	memzero_explicit(want, sizeof(want));
	return ret;
}

/*
 * ADMIT: name this host and, if it has a secret, prove it over the
 * challenge, our nonce and this connection, and check the target's proof
 * back.  The target's refusal comes back as the status and is the
 * attach's (or the reconnect's) error.
 */
static int scalio_host_admit(struct scalio_host_hstore *hs)
{
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_msg_admit_req *req;
	struct scalio_host_rpc *rpc;
	u8 nonce[SCALIO_CHALLENGE_LEN];
	u8 *input = NULL;
	int ret;

	rpc = scalio_host_rpc_get(conn);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	req = rpc->req;
	memset(req, 0, sizeof(*req));
	memcpy(req->host_id, hs->host_id, sizeof(req->host_id));
	strscpy(req->hostnqn, hs->hostnqn, sizeof(req->hostnqn));
	get_random_bytes(nonce, sizeof(nonce));
	memcpy(req->nonce, nonce, sizeof(req->nonce));
	if (hs->secret_len) {
		ret = -ENOMEM;
		input = kmalloc(SCALIO_ADMIT_MAC_INPUT_LEN, GFP_KERNEL);
		if (!input)
			goto out;
		scalio_admit_mac_input(input, SCALIO_ADMIT_LABEL_HOST,
				       conn->challenge, nonce, conn->client_id,
				       hs->name, hs->hostnqn, hs->host_id,
				       &conn->bind);
		ret = scalio_hmac_sha256(hs->secret, hs->secret_len, input,
					 SCALIO_ADMIT_MAC_INPUT_LEN, req->mac);
		if (ret)
			goto out;
		req->flags = cpu_to_le32(SCALIO_ADMIT_F_MAC);
	}
	ret = scalio_host_rpc_exec_by(conn, rpc, SCALIO_MSG_ADMIT, sizeof(*req),
				      hs->handshake_end);
	if (!ret)
		ret = scalio_host_rpc_status(rpc);
	switch (ret) {
	case 0:
		if (hs->secret_len)
			ret = scalio_host_admit_check(hs, rpc, input, nonce);
		break;
	case -EACCES:
		pr_err("%s: the target does not admit host %s (not in the store's allowed_hosts)\n",
		       hs->name, hs->hostnqn);
		break;
	case -ENOKEY:
		pr_err("%s: the target holds a secret for host %s: give it (--key-file)\n",
		       hs->name, hs->hostnqn);
		break;
	case -EKEYREJECTED:
		pr_err("%s: the target rejected the secret of host %s (wrong, or proven on another connection: a relay in between?)\n",
		       hs->name, hs->hostnqn);
		break;
	default:
		pr_err("%s: admission of host %s failed: %d\n", hs->name,
		       hs->hostnqn, ret);
		break;
	}
out:
	kfree(input);
	scalio_host_rpc_put(conn, rpc);
	return ret;
}

static int scalio_host_hello(struct scalio_host_hstore *hs, bool again)
{
	struct scalio_host_conn *conn = &hs->conn;
	const struct scalio_msg_hello_rep *rep;
	struct scalio_host_rpc *rpc;
	u32 known = SCALIO_F_OFFLOAD_READ | SCALIO_F_INLINE_CACHE |
		    SCALIO_F_FILL_TOKEN | SCALIO_F_BLOCK_EPOCH;
	u32 nr_blocks, nr_buckets, slots, nr_ssds, kato;
	int ret;

	rpc = scalio_host_rpc_get(conn);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	ret = scalio_host_rpc_exec_by(conn, rpc, SCALIO_MSG_HELLO,
				      sizeof(struct scalio_msg_hdr),
				      hs->handshake_end);
	if (ret)
		goto out;
	ret = scalio_host_rpc_status(rpc);
	if (ret)
		goto out;
	ret = -EPROTO;
	if (rpc->rsp_len < sizeof(*rep))
		goto out;
	rep = rpc->rsp;
	nr_blocks = le32_to_cpu(rep->nr_blocks);
	nr_buckets = le32_to_cpu(rep->nr_buckets);
	slots = le32_to_cpu(rep->slots_per_block);
	nr_ssds = le32_to_cpu(rep->nr_ssds);
	/*
	 * Another seed places every key elsewhere, another bucket count puts
	 * it in another segment, seg word and SSD: as bad as a new geometry.
	 */
	if (again && (nr_blocks != hs->nr_blocks ||
		      nr_buckets != hs->nr_buckets || slots != hs->slots ||
		      nr_ssds != hs->nr_ssds ||
		      le64_to_cpu(rep->hash_seed) != hs->hash_seed)) {
		pr_err("%s: the store came back with another geometry: detach and attach it again\n",
		       hs->name);
		ret = -ESTALE;
		goto out;
	}
	hs->nr_blocks = nr_blocks;
	hs->nr_buckets = nr_buckets;
	hs->slots = slots;
	hs->block_size = le32_to_cpu(rep->block_size);
	hs->nr_ssds = nr_ssds;
	hs->nr_chunks = le32_to_cpu(rep->nr_chunks);
	hs->features = le32_to_cpu(rep->features);
	hs->hdr_addr = le64_to_cpu(rep->hdr_addr);
	hs->hdr_rkey = le32_to_cpu(rep->hdr_rkey);
	hs->lease_ticks = le32_to_cpu(rep->lease_ticks);
	hs->hash_seed = le64_to_cpu(rep->hash_seed);
	kato = le32_to_cpu(rep->kato_ms) ?: SCALIO_KATO_DEF_MS;
	/* Three chances per KATO; a hostile value cannot make us spin. */
	WRITE_ONCE(hs->keepalive_ms,
		   clamp_t(u32, kato, SCALIO_KATO_MIN_MS, SCALIO_KATO_MAX_MS) / 3);
	/*
	 * An unknown feature bit may change the slot protocol itself (as
	 * SCALIO_F_FILL_TOKEN did): refuse it rather than speak an older one.
	 */
	if (!hs->nr_blocks || !is_power_of_2(hs->nr_blocks) ||
	    hs->nr_blocks > SCALIO_NR_BLOCKS_MAX ||
	    !scalio_buckets_valid(hs->nr_buckets, hs->nr_blocks) ||
	    !scalio_slots_valid(hs->slots) ||
	    hs->block_size != SCALIO_BLOCK_SIZE(hs->slots) ||
	    !hs->nr_ssds || hs->nr_ssds > SCALIO_MAX_SSDS ||
	    !hs->nr_chunks || hs->nr_chunks > hs->nr_blocks ||
	    hs->nr_chunks > SCALIO_HOST_CHUNKS_MAX ||
	    !hs->lease_ticks || hs->lease_ticks >= (1U << 15) ||
	    (hs->features & ~known)) {
		pr_err("%s: HELLO with bad geometry (%u blocks, %u buckets, %u slots, %u ssds, %u chunks)\n",
		       hs->name, hs->nr_blocks, hs->nr_buckets, hs->slots,
		       hs->nr_ssds, hs->nr_chunks);
		goto out;
	}
	/* Valid counts: a power-of-two quotient, 1..SCALIO_BUCKETS_PER_BLOCK_MAX. */
	hs->bpb = hs->nr_buckets / hs->nr_blocks;
	ret = 0;
out:
	scalio_host_rpc_put(conn, rpc);
	return ret;
}

/*
 * Between two requests of a reconnect's handshake: a detach has begun
 * (the store is no longer live) and waits for this reconnect to end.
 */
static bool scalio_host_handshake_cut(struct scalio_host_hstore *hs, bool again)
{
	return again && READ_ONCE(hs->state) != SCALIO_HS_LIVE;
}

static int scalio_host_fetch_chunks(struct scalio_host_hstore *hs, bool again)
{
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_host_hchunk *chunks;
	u32 got = 0, next_block = 0, i, nr;
	int ret = 0;

	/*
	 * A new array: on a reconnect the old one is in use until the end.
	 * HELLO bounded its size by SCALIO_HOST_CHUNKS_MAX.
	 */
	chunks = kvcalloc(hs->nr_chunks, sizeof(*chunks), GFP_KERNEL);
	if (!chunks)
		return -ENOMEM;

	while (got < hs->nr_chunks) {
		struct scalio_msg_chunks_req *req;
		const struct scalio_msg_chunks_rep *rep;
		struct scalio_host_rpc *rpc;

		if (scalio_host_handshake_cut(hs, again)) {
			ret = -ESHUTDOWN;
			goto fail;
		}
		rpc = scalio_host_rpc_get(conn);
		if (IS_ERR(rpc)) {
			ret = PTR_ERR(rpc);
			goto fail;
		}
		req = rpc->req;
		req->first = cpu_to_le32(got);
		req->reserved = 0;
		ret = scalio_host_rpc_exec_by(conn, rpc, SCALIO_MSG_CHUNKS,
					      sizeof(*req), hs->handshake_end);
		if (!ret)
			ret = scalio_host_rpc_status(rpc);
		if (ret)
			goto put;
		rep = rpc->rsp;
		nr = le32_to_cpu(rep->nr);
		ret = -EPROTO;
		/*
		 * Full pages: the target sends as many chunks as a message
		 * holds, so the number of round trips is bounded by
		 * @hs->nr_chunks, not left to the target.
		 */
		if (rpc->rsp_len < struct_size(rep, chunk, nr) ||
		    le32_to_cpu(rep->first) != got ||
		    nr != min_t(u32, hs->nr_chunks - got, SCALIO_CHUNKS_PER_MSG)) {
			pr_err("%s: CHUNKS page at %u: %u chunks, %u expected\n",
			       hs->name, got, nr,
			       min_t(u32, hs->nr_chunks - got,
				     SCALIO_CHUNKS_PER_MSG));
			goto put;
		}
		for (i = 0; i < nr; i++) {
			const struct scalio_wire_chunk *w = &rep->chunk[i];
			struct scalio_host_hchunk *c = &chunks[got + i];

			c->addr = le64_to_cpu(w->addr);
			c->rkey = le32_to_cpu(w->rkey);
			c->first_block = le32_to_cpu(w->first_block);
			c->nr_blocks = le32_to_cpu(w->nr_blocks);
			c->seg_addr = le64_to_cpu(w->seg_addr);
			c->seg_rkey = le32_to_cpu(w->seg_rkey);
			/* In order, contiguous, never past the table. */
			if (c->first_block != next_block || !c->nr_blocks ||
			    c->nr_blocks > hs->nr_blocks - next_block)
				goto put;
			next_block += c->nr_blocks;
		}
		got += nr;
		ret = 0;
put:
		scalio_host_rpc_put(conn, rpc);
		if (ret)
			goto fail;
	}
	if (next_block != hs->nr_blocks) {
		pr_err("%s: index chunks do not cover the table\n", hs->name);
		ret = -EPROTO;
		goto fail;
	}
	kvfree(hs->chunks);
	hs->chunks = chunks;
	return 0;
fail:
	kvfree(chunks);
	return ret;
}

static int scalio_host_fetch_ssd_info(struct scalio_host_hstore *hs, u32 index,
				      bool again)
{
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_msg_ssd_info_req *req;
	const struct scalio_msg_ssd_info_rep *rep;
	struct scalio_host_hssd *ssd = &hs->ssds[index];
	struct scalio_host_rpc *rpc;
	int ret;

	rpc = scalio_host_rpc_get(conn);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	req = rpc->req;
	req->index = cpu_to_le32(index);
	req->reserved = 0;
	ret = scalio_host_rpc_exec_by(conn, rpc, SCALIO_MSG_SSD_INFO, sizeof(*req),
				      hs->handshake_end);
	if (!ret)
		ret = scalio_host_rpc_status(rpc);
	if (ret)
		goto out;
	rep = rpc->rsp;
	ret = -EPROTO;
	/* The NQN goes to user space, and from there to nvme connect. */
	if (rpc->rsp_len < sizeof(*rep) || le32_to_cpu(rep->index) != index ||
	    !scalio_nqn_valid(rep->nqn, sizeof(rep->nqn))) {
		pr_err("%s: bad SSD_INFO answer for ssd %u\n", hs->name, index);
		goto out;
	}
	/* The host's binding of this SSD must still name the same namespace. */
	if (again && (strcmp(ssd->nqn, rep->nqn) ||
		      ssd->nsid != le32_to_cpu(rep->nsid))) {
		pr_err("%s: ssd %u came back as another namespace: detach and attach again\n",
		       hs->name, index);
		ret = -ESTALE;
		goto out;
	}
	memcpy(ssd->nqn, rep->nqn, sizeof(ssd->nqn));
	ssd->nsid = le32_to_cpu(rep->nsid);
	ssd->capacity_sectors = le64_to_cpu(rep->capacity_sectors);
	ret = 0;
out:
	scalio_host_rpc_put(conn, rpc);
	return ret;
}

/**
 * scalio_host_conn_handshake() - ADMIT, HELLO, CHUNKS (all), SSD_INFO (each SSD)
 * @hs:		connected store
 * @again:	a reconnect: the geometry and SSDs must be the ones the store
 *		had (-ESTALE otherwise); settings and index chunks are renewed
 *
 * The whole exchange ends within SCALIO_HOST_HANDSHAKE_MS, or with a
 * fatal signal of the attaching process.
 *
 * Return: 0 or a negative errno (-ETIMEDOUT: out of time, -EINTR: killed);
 * the caller tears down on failure.
 */
int scalio_host_conn_handshake(struct scalio_host_hstore *hs, bool again)
{
	struct scalio_host_io *io;
	u64 now;
	u32 i;
	int ret;

	hs->handshake_end = jiffies + msecs_to_jiffies(SCALIO_HOST_HANDSHAKE_MS);
	ret = scalio_host_admit(hs);
	if (ret)
		return ret;
	ret = scalio_host_hello(hs, again);
	if (ret)
		return ret;
	ret = scalio_host_fetch_chunks(hs, again);
	if (ret)
		return ret;
	for (i = 0; i < hs->nr_ssds; i++) {
		if (scalio_host_handshake_cut(hs, again))
			return -ESHUTDOWN;
		ret = scalio_host_fetch_ssd_info(hs, i, again);
		if (ret)
			return ret;
	}
	/* Prove the one-sided path works now rather than on the first GET. */
	io = scalio_host_io_get(&hs->conn);
	if (!io)
		return scalio_host_io_get_err(&hs->conn);
	ret = scalio_host_clock_refresh(hs, io, &now);
	scalio_host_io_put(&hs->conn, io);
	return ret;
}

/**
 * scalio_host_rpc_stats() - fetch the target's counters
 * @hs:		store
 * @out:	filled in CPU order
 */
int scalio_host_rpc_stats(struct scalio_host_hstore *hs,
			  struct scalio_target_stats *out)
{
	struct scalio_host_conn *conn = &hs->conn;
	const struct scalio_msg_stats_rep *rep;
	struct scalio_host_rpc *rpc;
	const __le64 *src;
	u64 *dst = (u64 *)out;
	size_t i;
	int ret;

	rpc = scalio_host_rpc_get(conn);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	ret = scalio_host_rpc_exec(conn, rpc, SCALIO_MSG_STATS,
				   sizeof(struct scalio_msg_hdr));
	if (!ret)
		ret = scalio_host_rpc_status(rpc);
	if (ret)
		goto out;
	ret = -EPROTO;
	if (rpc->rsp_len < sizeof(*rep))
		goto out;
	rep = rpc->rsp;
	src = (const __le64 *)&rep->stats;
	/* struct scalio_target_stats is an array of u64 on both sides. */
	BUILD_BUG_ON(sizeof(*out) % sizeof(u64));
	for (i = 0; i < sizeof(*out) / sizeof(u64); i++)
		dst[i] = le64_to_cpu(src[i]);
	ret = 0;
out:
	scalio_host_rpc_put(conn, rpc);
	return ret;
}

/**
 * scalio_host_keepalive_schedule() - queue the next KEEPALIVE
 * @hs:		a live store (or one going live)
 */
void scalio_host_keepalive_schedule(struct scalio_host_hstore *hs)
{
	unsigned long period = msecs_to_jiffies(READ_ONCE(hs->keepalive_ms));

	hs->keepalive_due = jiffies + period;
	queue_delayed_work(system_long_wq, &hs->keepalive_work, period);
}

/**
 * scalio_host_keepalive_work() - tell the target this host is alive
 * @work:	&hs->keepalive_work
 *
 * Every KATO / 3 (hs->keepalive_ms) while the store is live; skipped while
 * the connection is down (the reconnect's handshake speaks for us then).
 * An unanswered KEEPALIVE fails the connection like any RPC.  A run a
 * whole period late says this host is too starved to be sure of keeping
 * its connection: logged, as the target's reaper will log the loss.
 */
void scalio_host_keepalive_work(struct work_struct *work)
{
	struct scalio_host_hstore *hs = container_of(to_delayed_work(work),
						struct scalio_host_hstore,
						keepalive_work);
	u32 period = READ_ONCE(hs->keepalive_ms);
	unsigned long late;

	if (READ_ONCE(hs->state) != SCALIO_HS_LIVE)
		return;
	late = jiffies - hs->keepalive_due;
	if (time_after(jiffies, hs->keepalive_due + msecs_to_jiffies(period)))
		pr_warn_ratelimited("%s: keep-alive ran %u ms late: the target disconnects a host silent for %u ms\n",
				    hs->name, jiffies_to_msecs(late),
				    3 * period);
	scalio_host_keepalive_send(hs);
	scalio_host_keepalive_schedule(hs);
}

/**
 * scalio_host_keepalive_send() - send one KEEPALIVE if the connection is up
 * @hs:		store
 *
 * It carries the settle mark too: a detach sends one last, so that the
 * target need not retire the blocks of writes already invalidated.
 */
void scalio_host_keepalive_send(struct scalio_host_hstore *hs)
{
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_host_rpc *rpc;

	if (scalio_host_conn_enter_nowait(conn))
		return;
	rpc = scalio_host_rpc_get(conn);
	if (!IS_ERR(rpc)) {
		scalio_host_rpc_exec(conn, rpc, SCALIO_MSG_KEEPALIVE,
				     sizeof(struct scalio_msg_hdr));
		scalio_host_rpc_put(conn, rpc);
	}
	scalio_host_conn_exit(conn);
}
