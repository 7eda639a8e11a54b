/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel series scalio supports (6.1 and
 * 6.12) lives here and nowhere else.
 */
#ifndef _SCALIO_COMPAT_H
#define _SCALIO_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/err.h>

#ifndef __LITTLE_ENDIAN
#error "scalio index words are little-endian RDMA atomics: LE machines only"
#endif

/**
 * struct scalio_bdev - an opened block device, however this kernel opens it
 * @bdev:	the device
 * @handle:	what closing needs (a struct file since 6.9; the holder before)
 * @mode:	open mode (6.1 only)
 */
struct scalio_bdev {
	struct block_device	*bdev;
	void			*handle;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
	fmode_t			mode;
#endif
};

/**
 * scalio_bdev_open() - open a block device by path, exclusively
 * @sb:		filled on success
 * @path:	device path
 * @write:	open for writing too
 * @holder:	exclusive holder cookie
 *
 * Return: 0 or a negative errno.
 */
static inline int scalio_bdev_open(struct scalio_bdev *sb, const char *path,
				   bool write, void *holder)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	struct file *f;

	f = bdev_file_open_by_path(path, BLK_OPEN_READ |
				   (write ? BLK_OPEN_WRITE : 0), holder, NULL);
	if (IS_ERR(f))
		return PTR_ERR(f);
	sb->bdev = file_bdev(f);
	sb->handle = f;
	return 0;
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#error "kernels 6.5..6.8 are not supported"
#else
	struct block_device *bdev;

	sb->mode = FMODE_READ | FMODE_EXCL | (write ? FMODE_WRITE : 0);
	bdev = blkdev_get_by_path(path, sb->mode, holder);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	sb->bdev = bdev;
	sb->handle = holder;
	return 0;
#endif
}

static inline void scalio_bdev_close(struct scalio_bdev *sb)
{
	if (!sb->bdev)
		return;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	fput(sb->handle);
#else
	blkdev_put(sb->bdev, sb->mode);
#endif
	sb->bdev = NULL;
	sb->handle = NULL;
}

/*
 * io_uring passthrough (IORING_OP_URING_CMD), host/uring.c.
 *
 * 6.1: <linux/io_uring.h>, the command payload at cmd->cmd, and no way for
 * a driver to be told that a ring or task is going away: io_uring waits
 * for every uring_cmd in flight to complete (each scalio op is bounded by
 * its own timeouts).  io_uring_cmd_done() takes issue_flags in the
 * Debian 6.1 series (the 6.3 change was backported to 6.1.y).
 * 6.12: <linux/io_uring/cmd.h>, the payload in cmd->sqe, and cancelable
 * commands: after io_uring_cmd_mark_cancelable(), ->uring_cmd() is called
 * again with IO_URING_F_CANCEL when the ring or the submitting task exits.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/io_uring/cmd.h>
#define SCALIO_URING_F_CANCEL	IO_URING_F_CANCEL

static inline const void *scalio_uring_payload(struct io_uring_cmd *cmd)
{
	return io_uring_sqe_cmd(cmd->sqe);
}

static inline void scalio_uring_mark_cancelable(struct io_uring_cmd *cmd,
						unsigned int issue_flags)
{
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
}
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#error "kernels 6.2..6.11 are not supported"
#else
#include <linux/io_uring.h>
#define SCALIO_URING_F_CANCEL	0	/* never passed: nothing is cancelable */

static inline const void *scalio_uring_payload(struct io_uring_cmd *cmd)
{
	return cmd->cmd;
}

static inline void scalio_uring_mark_cancelable(struct io_uring_cmd *cmd,
						unsigned int issue_flags)
{
}
#endif

/* The command's private area: a pointer to the driver's state. */
static inline void **scalio_uring_pdu(struct io_uring_cmd *cmd)
{
	BUILD_BUG_ON(sizeof(cmd->pdu) < sizeof(void *));
	return (void **)cmd->pdu;
}

#endif /* _SCALIO_COMPAT_H */
