/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Posting one buffer on a QP: shared by the hostile client and the fake
 * target (tests/hostile).
 */
#ifndef _SCALIO_VERBS_UTIL_H
#define _SCALIO_VERBS_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <infiniband/verbs.h>

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

#endif /* _SCALIO_VERBS_UTIL_H */
