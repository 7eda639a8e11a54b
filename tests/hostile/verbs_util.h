/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Posting one buffer on a QP, what admission binds of a connection, and
 * its HMAC: shared by the hostile client and the fake target
 * (tests/hostile).
 */
#ifndef _SCALIO_VERBS_UTIL_H
#define _SCALIO_VERBS_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/if_alg.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../../common/scalio_proto.h"

/*
 * The connection of @id as admission binds it: @host true on the
 * connecting end (@peer_qpn from its ESTABLISHED event), false on the
 * accepting one (@peer_qpn from the CONNECT_REQUEST).
 */
static inline void vu_conn_bind(struct scalio_conn_bind *b,
				struct rdma_cm_id *id, uint32_t peer_qpn,
				int host)
{
	uint8_t *mine = host ? b->host_addr : b->target_addr;
	uint8_t *theirs = host ? b->target_addr : b->host_addr;

	scalio_bind_addr(mine, rdma_get_local_addr(id));
	scalio_bind_addr(theirs, rdma_get_peer_addr(id));
	if (host) {
		b->host_qpn = id->qp->qp_num;
		b->target_qpn = peer_qpn;
	} else {
		b->host_qpn = peer_qpn;
		b->target_qpn = id->qp->qp_num;
	}
}

/* Post @len bytes at @buf (in the MR of @lkey) as receive @wr_id. */
static inline int vu_post_recv(struct ibv_qp *qp, void *buf, uint32_t len,
			       uint32_t lkey, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad) ? -errno : 0;
}

/*
 * Post a signaled @op (SEND or SEND_WITH_INV of @inv_rkey) of @len bytes
 * at @buf as @wr_id.
 */
static inline int vu_post_send(struct ibv_qp *qp, void *buf, uint32_t len,
			       uint32_t lkey, uint64_t wr_id,
			       enum ibv_wr_opcode op, uint32_t inv_rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (op == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = inv_rkey;
	return ibv_post_send(qp, &wr, &bad) ? -errno : 0;
}

/*
 * Post a signaled one-sided @op (RDMA READ, WRITE or WRITE_WITH_IMM of
 * @imm_be, big-endian) of @len bytes at @buf to @raddr/@rkey as @wr_id;
 * @len 0 sends no SGE (no MR needed: @buf and @lkey are not used).
 */
static inline int vu_post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op,
			       void *buf, uint32_t len, uint32_t lkey,
			       uint64_t raddr, uint32_t rkey, uint64_t wr_id,
			       uint32_t imm_be)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = len ? &sge : NULL,
		.num_sge = len ? 1 : 0, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = imm_be;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad) ? -errno : 0;
}

/* HMAC-SHA256 through the kernel's AF_ALG socket: no library needed. */
static inline int vu_hmac_sha256(const void *key, size_t klen, const void *in,
				 size_t len, uint8_t *out)
{
	struct sockaddr_alg sa = {
		.salg_family = AF_ALG,
		.salg_type = "hash",
		.salg_name = "hmac(sha256)",
	};
	int tfm, op, ret = -1;

	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfm < 0)
		return -errno;
	if (bind(tfm, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key, klen)) {
		ret = -errno;
		close(tfm);
		return ret;
	}
	op = accept(tfm, NULL, NULL);
	if (op >= 0) {
		if (write(op, in, len) == (ssize_t)len &&
		    read(op, out, SCALIO_MAC_LEN) == SCALIO_MAC_LEN)
			ret = 0;
		else
			ret = -EIO;
		close(op);
	} else {
		ret = -errno;
	}
	close(tfm);
	return ret;
}

#endif /* _SCALIO_VERBS_UTIL_H */
