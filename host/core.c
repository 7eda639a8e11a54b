// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-host: module lifecycle, /dev/scalio-ctl (ATTACH and DETACH) and
 * the per-store devices /dev/scalio/<store>.
 *
 * An attached store is a struct scalio_host_hstore: its connection, the
 * geometry the target announced, the SSD bindings and the store device.
 * DETACH refuses while the store device is open; module exit detaches
 * every store (the store devices pin the module while open, so at exit
 * nothing uses them).
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/uuid.h>

#include "scalio_host.h"

#ifdef SCALIO_TEST_HOOKS
bool scalio_host_debug_skip_double_read;
module_param_named(debug_skip_double_read, scalio_host_debug_skip_double_read,
		   bool, 0644);
MODULE_PARM_DESC(debug_skip_double_read,
		 "TESTING ONLY: skip the GET double-read (breaks linearizability)");

bool scalio_host_debug_skip_invalidate;
module_param_named(debug_skip_invalidate, scalio_host_debug_skip_invalidate,
		   bool, 0644);
MODULE_PARM_DESC(debug_skip_invalidate,
		 "TESTING ONLY: skip slot invalidation after writes (breaks linearizability)");

/*
 * Every ctl word this host installs keeps only the low N bits of its
 * version (1..19; 0 or 20: all of them), so that a slot's version wraps
 * after 2^N transitions: the version wrap within a test's
 * reach.  All hosts of a store must use the same N.
 */
unsigned int scalio_host_debug_ver_bits;
module_param_named(debug_ver_bits, scalio_host_debug_ver_bits, uint, 0644);
MODULE_PARM_DESC(debug_ver_bits,
		 "TESTING ONLY: cut slot versions to N bits (1..19) so that they wrap");
#endif

unsigned int scalio_host_queue_depth = SCALIO_HOST_QD_DEFAULT;
module_param_named(queue_depth, scalio_host_queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth, "RPCs in flight per store (1..128)");

/*
 * The host's identity when ATTACH names none, as nvme-cli's
 * /etc/nvme/hostnqn and hostid: given at load, or made up once per load
 * (a UUID and the NQN nvme-cli would derive from it).
 */
static char *hostnqn_param;
module_param_named(hostnqn, hostnqn_param, charp, 0444);
MODULE_PARM_DESC(hostnqn, "default host NQN (default: nqn.2014-08.org.nvmexpress:uuid:<hostid>)");

static char *hostid_param;
module_param_named(hostid, hostid_param, charp, 0444);
MODULE_PARM_DESC(hostid, "default host id, a UUID (default: random at load)");

char scalio_host_hostnqn[SCALIO_NQN_MAX];
u8 scalio_host_hostid[SCALIO_HOSTID_LEN];

DEFINE_MUTEX(scalio_host_hstores_lock);
LIST_HEAD(scalio_host_hstores);

/* ------------------------------------------------------------------ */
/* store device                                                        */

static int scalio_host_store_open(struct inode *inode, struct file *file)
{
	struct scalio_host_hstore *hs = container_of(file->private_data,
						struct scalio_host_hstore, misc);
	int ret = 0;

	/*
	 * misc_open() calls us under misc_mtx, which misc_deregister() also
	 * takes: @hs cannot be freed before we return.
	 */
	mutex_lock(&hs->open_lock);
	if (hs->removing)
		ret = -ENODEV;
	else
		hs->opens++;
	mutex_unlock(&hs->open_lock);
	if (ret)
		return ret;
	file->private_data = hs;
	return 0;
}

static int scalio_host_store_release(struct inode *inode, struct file *file)
{
	struct scalio_host_hstore *hs = file->private_data;

	mutex_lock(&hs->open_lock);
	hs->opens--;
	mutex_unlock(&hs->open_lock);
	return 0;
}

static const struct file_operations scalio_host_store_fops = {
	.owner		= THIS_MODULE,
	.open		= scalio_host_store_open,
	.release	= scalio_host_store_release,
	.unlocked_ioctl	= scalio_host_store_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.uring_cmd	= scalio_host_store_uring_cmd,
	.llseek		= noop_llseek,
};

/*
 * Read-only attributes of the store device (/sys/class/misc/scalio-<store>/):
 * where the store was attached, so that `scalioctl save` can record the
 * attachment and `scalioctl restore` re-make it after a reboot.  Set
 * before the device is registered and never changed while it exists.
 */
static struct scalio_host_hstore *scalio_host_dev_hstore(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct scalio_host_hstore, misc);
}

/*
 * Read-only attach parameters, for scalioctl save: one show function per
 * field.  The identity the store admitted is here; the secret has none.
 */
#define SCALIO_HSTORE_ATTR(_name, _fmt, _field)				\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, _fmt "\n", scalio_host_dev_hstore(dev)->_field);	\
}									\
static DEVICE_ATTR_RO(_name)

SCALIO_HSTORE_ATTR(store, "%s", name);
SCALIO_HSTORE_ATTR(traddr, "%s", traddr);
SCALIO_HSTORE_ATTR(trsvcid, "%u", trsvcid);
SCALIO_HSTORE_ATTR(timeout_ms, "%u", timeout_ms);
SCALIO_HSTORE_ATTR(hostnqn, "%s", hostnqn);
SCALIO_HSTORE_ATTR(hostid, "%pUb", host_id);

/*
 * fast_io_fail_ms: the one attach parameter that may change while
 * attached; operations read it as they start waiting.
 */
static ssize_t fast_io_fail_ms_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(scalio_host_dev_hstore(dev)->fast_io_fail_ms));
}

static ssize_t fast_io_fail_ms_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	u32 ms;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = kstrtou32(buf, 0, &ms);
	if (ret)
		return ret;
	if (ms > SCALIO_FAST_IO_FAIL_MAX_MS)
		return -EINVAL;
	WRITE_ONCE(scalio_host_dev_hstore(dev)->fast_io_fail_ms, ms);
	return count;
}
static DEVICE_ATTR_RW(fast_io_fail_ms);

static struct attribute *scalio_host_hstore_attrs[] = {
	&dev_attr_store.attr,
	&dev_attr_traddr.attr,
	&dev_attr_trsvcid.attr,
	&dev_attr_timeout_ms.attr,
	&dev_attr_hostnqn.attr,
	&dev_attr_hostid.attr,
	&dev_attr_fast_io_fail_ms.attr,
	NULL,
};
ATTRIBUTE_GROUPS(scalio_host_hstore);

/**
 * scalio_host_hstore_register_dev() - create /dev/scalio/<store>
 * @hs:	store, connected and through its handshake
 */
int scalio_host_hstore_register_dev(struct scalio_host_hstore *hs)
{
	int ret;

	ret = scalio_host_uring_store_init(hs);
	if (ret)
		return ret;
	snprintf(hs->misc_name, sizeof(hs->misc_name), "scalio-%s", hs->name);
	snprintf(hs->nodename, sizeof(hs->nodename), "scalio/%s", hs->name);
	hs->misc.minor = MISC_DYNAMIC_MINOR;
	hs->misc.name = hs->misc_name;
	hs->misc.nodename = hs->nodename;
	hs->misc.mode = 0600;
	hs->misc.fops = &scalio_host_store_fops;
	hs->misc.groups = scalio_host_hstore_groups;
	ret = misc_register(&hs->misc);
	if (!ret)
		hs->misc_registered = true;
	return ret;
}

/* ------------------------------------------------------------------ */
/* store lifecycle                                                     */

static struct scalio_host_hstore *scalio_host_hstore_find(const char *name)
{
	struct scalio_host_hstore *hs;

	lockdep_assert_held(&scalio_host_hstores_lock);
	list_for_each_entry(hs, &scalio_host_hstores, entry)
		if (!strcmp(hs->name, name))
			return hs;
	return NULL;
}

static struct scalio_host_hstore *scalio_host_hstore_alloc(const char *name)
{
	struct scalio_host_hstore *hs;
	int i;

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return NULL;
	strscpy(hs->name, name, sizeof(hs->name));
	hs->state = SCALIO_HS_ATTACHING;
	mutex_init(&hs->bind_lock);
	mutex_init(&hs->open_lock);
	spin_lock_init(&hs->clock_lock);
	for (i = 0; i < SCALIO_HS_NR; i++)
		atomic64_set(&hs->stats[i], 0);
	scalio_host_conn_init(hs);
	INIT_DELAYED_WORK(&hs->reconnect_work, scalio_host_reconnect_work);
	hs->reconnect_delay = msecs_to_jiffies(SCALIO_RECONNECT_MIN_MS);
	spin_lock_init(&hs->inval_lock);
	INIT_LIST_HEAD(&hs->inval_list);
	spin_lock_init(&hs->fill_lock);
	INIT_LIST_HEAD(&hs->fills);
	INIT_LIST_HEAD(&hs->bg_list);
	INIT_DELAYED_WORK(&hs->inval_work, scalio_host_inval_work);
	INIT_DELAYED_WORK(&hs->keepalive_work, scalio_host_keepalive_work);
	return hs;
}

/*
 * Undo everything of a store that is off the ioctl paths: no open store
 * device, or it was never created.
 */
static void scalio_host_hstore_teardown(struct scalio_host_hstore *hs)
{
	/*
	 * No operation can wait for the connection here (they hold the store
	 * device open, which DETACH refuses); wake any all the same, as the
	 * store is no longer live, rather than let a missed case hang for
	 * fast_io_fail_ms.
	 */
	scalio_host_conn_wake(&hs->conn);
	/* Background cache fills hold the connection while they run. */
	scalio_host_bgfill_stop(hs);
	/*
	 * The store is no longer live: no reconnect gets queued any more
	 * once a running one and a pending failure work are done.
	 */
	cancel_delayed_work_sync(&hs->keepalive_work);
	cancel_delayed_work_sync(&hs->reconnect_work);
	flush_work(&hs->conn.fail_work);
	cancel_delayed_work_sync(&hs->reconnect_work);
	cancel_delayed_work_sync(&hs->inval_work);
	if (!list_empty(&hs->inval_list) || hs->inval_all)
		pr_warn("%s: detached owing invalidations: the target retires the cache blocks of those writes once it drops the connection\n",
			hs->name);
	else if (hs->features & SCALIO_F_BLOCK_EPOCH)
		/* the last settle mark: nothing owed, nothing to retire */
		scalio_host_keepalive_send(hs);
	scalio_host_inval_forget(hs);
	if (hs->misc_registered) {
		misc_deregister(&hs->misc);
		hs->misc_registered = false;
	}
	/* No open device: no io_uring command is left in flight. */
	scalio_host_uring_store_exit(hs);
	scalio_host_conn_destroy(&hs->conn);
	scalio_host_ssd_unbind_all(hs);
	kvfree(hs->chunks);
	hs->chunks = NULL;
}

static bool scalio_host_name_ok(const char *s, size_t max)
{
	size_t len = strnlen(s, max);
	size_t i;

	if (!len || len == max)
		return false;
	/*
	 * It names a device node (scalio-<name>): no '/', no surprises, and
	 * not "ctl", which would be the control device's name.
	 */
	for (i = 0; i < len; i++)
		if (!isalnum(s[i]) && s[i] != '-' && s[i] != '_' &&
		    s[i] != '.')
			return false;
	return strcmp(s, ".") && strcmp(s, "..") && strcmp(s, "ctl");
}

static bool scalio_host_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * Copy and check ATTACH's struct scalio_attach_auth into @hs, or give @hs
 * the module's identity when there is none.
 */
static int scalio_host_attach_auth(struct scalio_host_hstore *hs, u64 uptr)
{
	struct scalio_attach_auth *au;
	u32 usize;
	int ret;

	if (!uptr) {
		strscpy(hs->hostnqn, scalio_host_hostnqn, sizeof(hs->hostnqn));
		memcpy(hs->host_id, scalio_host_hostid, sizeof(hs->host_id));
		return 0;
	}
	if (get_user(usize, (u32 __user *)u64_to_user_ptr(uptr)))
		return -EFAULT;
	if (usize < sizeof(*au) || usize > PAGE_SIZE)
		return -EINVAL;
	au = kzalloc(sizeof(*au), GFP_KERNEL);
	if (!au)
		return -ENOMEM;
	/* A newer, larger struct is fine if what we don't know is zero. */
	ret = copy_struct_from_user(au, sizeof(*au), u64_to_user_ptr(uptr),
				    usize);
	if (ret)
		goto out;
	ret = -EINVAL;
	if ((au->secret_len && (au->secret_len < SCALIO_SECRET_MIN ||
				au->secret_len > SCALIO_SECRET_MAX)) ||
	    !scalio_host_zero(au->reserved, sizeof(au->reserved)) ||
	    !scalio_host_zero(au->secret + au->secret_len,
			 sizeof(au->secret) - au->secret_len) ||
	    (au->hostnqn[0] &&
	     !scalio_nqn_valid(au->hostnqn, sizeof(au->hostnqn))))
		goto out;
	strscpy(hs->hostnqn, au->hostnqn[0] ? au->hostnqn : scalio_host_hostnqn,
		sizeof(hs->hostnqn));
	if (scalio_host_zero(au->host_id, sizeof(au->host_id)))
		memcpy(hs->host_id, scalio_host_hostid, sizeof(hs->host_id));
	else
		memcpy(hs->host_id, au->host_id, sizeof(hs->host_id));
	memcpy(hs->secret, au->secret, au->secret_len);
	hs->secret_len = au->secret_len;
	ret = 0;
out:
	kfree_sensitive(au);
	return ret;
}

static int scalio_host_ioctl_attach(void __user *argp)
{
	struct scalio_attach a;
	struct scalio_host_hstore *hs;
	u32 port, timeout, fail_ms;
	size_t alen;
	int ret;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	alen = strnlen(a.traddr, sizeof(a.traddr));
	if (!scalio_host_name_ok(a.store, sizeof(a.store)) || !alen ||
	    alen == sizeof(a.traddr) ||
	    (a.flags & ~SCALIO_ATTACH_F_FAST_IO_FAIL) || a.reserved0 ||
	    a.reserved || a.trsvcid > 65535)
		return -EINVAL;
	port = a.trsvcid ? a.trsvcid : SCALIO_DEFAULT_PORT;
	timeout = a.timeout_ms ? a.timeout_ms : SCALIO_ATTACH_TIMEOUT_MS;
	if (timeout > 600000)
		return -EINVAL;
	/* 0 is a value of its own (fail at once): the flag says it is set. */
	fail_ms = a.fast_io_fail_ms;
	if (!(a.flags & SCALIO_ATTACH_F_FAST_IO_FAIL)) {
		if (fail_ms)
			return -EINVAL;
		fail_ms = SCALIO_FAST_IO_FAIL_DEF_MS;
	}
	if (fail_ms > SCALIO_FAST_IO_FAIL_MAX_MS)
		return -EINVAL;

	hs = scalio_host_hstore_alloc(a.store);
	if (!hs)
		return -ENOMEM;
	ret = scalio_host_attach_auth(hs, a.auth);
	if (ret) {
		kfree_sensitive(hs);
		return ret;
	}
	mutex_lock(&scalio_host_hstores_lock);
	if (scalio_host_hstore_find(a.store)) {
		mutex_unlock(&scalio_host_hstores_lock);
		kfree_sensitive(hs);
		return -EEXIST;
	}
	/* Listed while connecting, so that the name stays reserved. */
	list_add_tail(&hs->entry, &scalio_host_hstores);
	mutex_unlock(&scalio_host_hstores_lock);

	strscpy(hs->traddr, a.traddr, sizeof(hs->traddr));
	hs->trsvcid = port;
	hs->timeout_ms = timeout;
	hs->fast_io_fail_ms = fail_ms;
	/* A step at most @timeout, and all three together 3 x @timeout. */
	ret = scalio_host_conn_connect(hs, a.traddr, port, timeout, 3 * timeout);
	if (ret)
		goto fail;
	ret = scalio_host_conn_handshake(hs, false);
	if (ret) {
		pr_err("%s: handshake failed: %d\n", hs->name, ret);
		goto fail;
	}
	ret = scalio_host_hstore_register_dev(hs);
	if (ret)
		goto fail;

	mutex_lock(&scalio_host_hstores_lock);
	hs->state = SCALIO_HS_LIVE;
	/* Lost before it went live: nobody queued the reconnect. */
	if (scalio_host_conn_dead(&hs->conn))
		scalio_host_reconnect_schedule(hs);
	scalio_host_keepalive_schedule(hs);
	mutex_unlock(&scalio_host_hstores_lock);
	pr_info("%s: attached: %u blocks x %u slots, %u buckets, %u ssd(s), offload_read %d, inline_cache %d\n",
		hs->name, hs->nr_blocks, hs->slots, hs->nr_buckets, hs->nr_ssds,
		!!(hs->features & SCALIO_F_OFFLOAD_READ),
		!!(hs->features & SCALIO_F_INLINE_CACHE));
	return 0;

fail:
	scalio_host_hstore_teardown(hs);
	mutex_lock(&scalio_host_hstores_lock);
	list_del(&hs->entry);
	mutex_unlock(&scalio_host_hstores_lock);
	kfree_sensitive(hs);
	return ret;
}

static int scalio_host_ioctl_detach(void __user *argp)
{
	struct scalio_detach d;
	struct scalio_host_hstore *hs;
	int ret = 0;

	if (copy_from_user(&d, argp, sizeof(d)))
		return -EFAULT;
	if (!memchr(d.store, '\0', sizeof(d.store)) || !d.store[0] ||
	    d.flags || !scalio_host_zero(d.reserved, sizeof(d.reserved)))
		return -EINVAL;

	mutex_lock(&scalio_host_hstores_lock);
	hs = scalio_host_hstore_find(d.store);
	if (!hs) {
		ret = -ENOENT;
	} else if (hs->state != SCALIO_HS_LIVE) {
		ret = -EBUSY;
	} else {
		mutex_lock(&hs->open_lock);
		if (hs->opens)
			ret = -EBUSY;
		else
			hs->removing = true;
		mutex_unlock(&hs->open_lock);
		if (!ret)
			hs->state = SCALIO_HS_DETACHING;
	}
	mutex_unlock(&scalio_host_hstores_lock);
	if (ret)
		return ret;

	scalio_host_hstore_teardown(hs);
	mutex_lock(&scalio_host_hstores_lock);
	list_del(&hs->entry);
	mutex_unlock(&scalio_host_hstores_lock);
	pr_info("%s: detached\n", hs->name);
	kfree_sensitive(hs);
	return 0;
}

static long scalio_host_ctl_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case SCALIO_IOC_ATTACH:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return scalio_host_ioctl_attach(argp);
	case SCALIO_IOC_DETACH:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return scalio_host_ioctl_detach(argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations scalio_host_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= scalio_host_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice scalio_host_ctl_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "scalio-ctl",
	.fops	= &scalio_host_ctl_fops,
	.mode	= 0600,
};

/* ------------------------------------------------------------------ */
/* module                                                              */

static int __init scalio_host_identity_init(void)
{
	uuid_t id;

	if (hostid_param) {
		if (uuid_parse(hostid_param, &id)) {
			pr_err("hostid=%s is not a UUID\n", hostid_param);
			return -EINVAL;
		}
	} else {
		uuid_gen(&id);
	}
	BUILD_BUG_ON(sizeof(id) != SCALIO_HOSTID_LEN);
	memcpy(scalio_host_hostid, &id, sizeof(scalio_host_hostid));
	if (hostnqn_param) {
		if (!scalio_nqn_valid(hostnqn_param, strlen(hostnqn_param) + 1)) {
			pr_err("hostnqn=%s is not a valid NQN\n", hostnqn_param);
			return -EINVAL;
		}
		strscpy(scalio_host_hostnqn, hostnqn_param, sizeof(scalio_host_hostnqn));
	} else {
		snprintf(scalio_host_hostnqn, sizeof(scalio_host_hostnqn),
			 "nqn.2014-08.org.nvmexpress:uuid:%pUb", &id);
	}
	return 0;
}

static int __init scalio_host_init(void)
{
	int ret;

	/* every counter is in the uAPI struct (its spare words all taken) */
	BUILD_BUG_ON(sizeof(struct scalio_host_stats) !=
		     SCALIO_HS_NR * sizeof(u64));
	BUILD_BUG_ON(SCALIO_IO_SLOT_OFF + SCALIO_SLOT_SIZE > SCALIO_IO_SIZE);
	BUILD_BUG_ON(SCALIO_IO_BLOCK_OFF + SCALIO_BLOCK_SIZE(SCALIO_SLOTS_MAX) >
		     SCALIO_IO_ATOMIC_OFF);
	BUILD_BUG_ON(sizeof(struct scalio_slot) != SCALIO_SLOT_SIZE);

	/* Also the uring workqueue's max_active: 0 would mean its default. */
	if (!scalio_host_queue_depth || scalio_host_queue_depth > SCALIO_QUEUE_DEPTH_MAX) {
		pr_err("queue_depth=%u is out of range (1..%u)\n",
		       scalio_host_queue_depth, SCALIO_QUEUE_DEPTH_MAX);
		return -EINVAL;
	}
	ret = scalio_host_identity_init();
	if (ret)
		return ret;
	ret = scalio_host_ioctl_init();
	if (ret)
		return ret;
	ret = scalio_host_ssd_module_init();
	if (ret)
		goto out_ioctl;
	ret = scalio_host_read_module_init();
	if (ret)
		goto out_ssd;
	ret = scalio_host_conn_module_init();
	if (ret)
		goto out_read;
	ret = misc_register(&scalio_host_ctl_dev);
	if (ret)
		goto out_rdma;
	pr_info("loaded\n");
	return 0;

out_rdma:
	scalio_host_conn_module_exit();
out_read:
	scalio_host_read_module_exit();
out_ssd:
	scalio_host_ssd_module_exit();
out_ioctl:
	scalio_host_ioctl_exit();
	return ret;
}

static void __exit scalio_host_exit(void)
{
	struct scalio_host_hstore *hs, *tmp;

	misc_deregister(&scalio_host_ctl_dev);
	/*
	 * No ctl ioctl can run (the ctl device pinned the module) and no store
	 * device is open (each pins the module too): detach all.
	 */
	mutex_lock(&scalio_host_hstores_lock);
	list_for_each_entry_safe(hs, tmp, &scalio_host_hstores, entry) {
		hs->state = SCALIO_HS_DETACHING;
		hs->removing = true;
		scalio_host_hstore_teardown(hs);
		list_del(&hs->entry);
		pr_info("%s: detached at unload\n", hs->name);
		kfree_sensitive(hs);
	}
	mutex_unlock(&scalio_host_hstores_lock);
	scalio_host_ssd_module_exit();
	scalio_host_conn_module_exit();
	scalio_host_read_module_exit();
	scalio_host_ioctl_exit();
}

module_init(scalio_host_init);
module_exit(scalio_host_exit);

MODULE_DESCRIPTION("scalio host: one-sided RDMA key-value client");
MODULE_AUTHOR("scalio developers");
MODULE_LICENSE("GPL");
