// SPDX-License-Identifier: GPL-2.0
/*
 * The control tree of scalio-target, in nvmet / null_blk style:
 *
 *   /sys/kernel/config/scalio/stores/<name>/
 *	attr_nr_blocks attr_nr_buckets attr_slots_per_block attr_batch_max
 *	attr_batch_timeout_us attr_offload_read attr_inline_cache
 *	attr_lease_ms attr_seg_cache_mb attr_kato_ms attr_value_inline_max
 *	addr_traddr addr_trsvcid enable
 *	stats features attr_format_on_enable attr_force_recover report
 *	statistics/<counter>			(read-only, one value each)
 *	ssds/<n>/{device_path,nqn,nsid,state}	(n = 0..15)
 *	attr_allow_any_host attr_max_clients attr_max_host_clients
 *	allowed_hosts/<host NQN>/dhchap_key
 *
 * Writes are parsed with kstrto*() and validated on the spot (-EINVAL);
 * the whole configuration is validated again, as one, by
 * scalio_tgt_store_enable().  While a store is enabled every edit (attribute,
 * address, SSD attribute, mkdir of an SSD) fails with -EBUSY, except the
 * admission settings (attr_allow_any_host, attr_max_clients,
 * attr_max_host_clients,
 * allowed_hosts/), which apply to the next connection as in nvmet.
 *
 * rmdir cannot be refused by a configfs drop_item, so removing an enabled
 * store, or one of the SSDs of an enabled store, first disables the store
 * (as nvmet disables a namespace whose directory goes away).
 *
 * The configfs API used here is the same in 6.1 and 6.12.
 */
#define pr_fmt(fmt) "scalio-target: configfs: " fmt

#include <crypto/algapi.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/log2.h>
#include <net/net_namespace.h>

#include "scalio_store.h"

static inline struct scalio_tgt_store *to_store(struct config_item *item)
{
	return container_of(to_config_group(item), struct scalio_tgt_store,
			    group);
}

static inline struct scalio_tgt_ssd *to_ssd(struct config_item *item)
{
	return container_of(to_config_group(item), struct scalio_tgt_ssd,
			    group);
}

/* Copy a written string without its trailing newline; -EINVAL if too long. */
static int scalio_tgt_cfs_strcpy(char *dst, size_t size, const char *page,
				 size_t count)
{
	size_t len = strnlen(page, count);

	while (len && (page[len - 1] == '\n' || page[len - 1] == ' '))
		len--;
	if (len >= size)
		return -EINVAL;
	memcpy(dst, page, len);
	dst[len] = '\0';
	return 0;
}

/* Is @val acceptable for the u32 attribute at @field of a store? */
typedef bool (*scalio_tgt_u32_check_t)(u32 val);

static bool scalio_tgt_chk_nr_blocks(u32 v)
{
	return is_power_of_2(v) && v <= SCALIO_NR_BLOCKS_MAX;
}

/* 0 (as many as blocks) or a power of two; enable checks it against them. */
static bool scalio_tgt_chk_nr_buckets(u32 v)
{
	return !v || (is_power_of_2(v) && v <= SCALIO_NR_BUCKETS_MAX);
}

static bool scalio_tgt_chk_slots(u32 v)
{
	return scalio_slots_valid(v);
}

static bool scalio_tgt_chk_batch_max(u32 v)
{
	return v >= 1 && v <= SCALIO_BATCH_MAX_LIMIT;
}

static bool scalio_tgt_chk_timeout(u32 v)
{
	return v <= SCALIO_BATCH_TIMEOUT_MAX_US;
}

static bool scalio_tgt_chk_lease(u32 v)
{
	/*
	 * Lease deadlines are 16-bit clock values: the cap keeps a live
	 * deadline distinguishable from a past one across the wrap, within
	 * the clock error readers tolerate (scalio_lease_expired()).
	 */
	return v >= SCALIO_LEASE_MIN_MS && v <= SCALIO_LEASE_MAX_MS;
}

static bool scalio_tgt_chk_kato(u32 v)
{
	return v >= SCALIO_KATO_MIN_MS && v <= SCALIO_KATO_MAX_MS;
}

static bool scalio_tgt_chk_seg_cache(u32 v)
{
	return v <= SCALIO_SEG_CACHE_MB_MAX;
}

static bool scalio_tgt_chk_inline_max(u32 v)
{
	return v <= SCALIO_VALUE_MAX;
}

static bool scalio_tgt_chk_port(u32 v)
{
	return v >= 1 && v <= 65535;
}

static ssize_t scalio_tgt_store_set_u32(struct config_item *item,
					const char *page, size_t count,
					size_t off, scalio_tgt_u32_check_t check)
{
	struct scalio_tgt_store *st = to_store(item);
	ssize_t ret = count;
	u32 val;

	if (kstrtou32(page, 0, &val) || !check(val))
		return -EINVAL;
	mutex_lock(&st->lock);
	if (st->enabled)
		ret = -EBUSY;
	else
		*(u32 *)((char *)st + off) = val;
	mutex_unlock(&st->lock);
	return ret;
}

static ssize_t scalio_tgt_store_set_bool(struct config_item *item,
					 const char *page, size_t count,
					 size_t off)
{
	struct scalio_tgt_store *st = to_store(item);
	ssize_t ret = count;
	bool val;

	if (kstrtobool(page, &val))
		return -EINVAL;
	mutex_lock(&st->lock);
	if (st->enabled)
		ret = -EBUSY;
	else
		*(bool *)((char *)st + off) = val;
	mutex_unlock(&st->lock);
	return ret;
}

#define SCALIO_STORE_U32_ATTR(_name, _field, _check)			\
static ssize_t scalio_tgt_store_##_name##_show(struct config_item *item,\
					       char *page)		\
{									\
	return snprintf(page, PAGE_SIZE, "%u\n",			\
			READ_ONCE(to_store(item)->_field));		\
}									\
static ssize_t scalio_tgt_store_##_name##_store(struct config_item *item,\
						const char *page,	\
						size_t count)		\
{									\
	return scalio_tgt_store_set_u32(item, page, count,		\
			offsetof(struct scalio_tgt_store, _field),	\
			_check);					\
}									\
CONFIGFS_ATTR(scalio_tgt_store_, _name)

#define SCALIO_STORE_BOOL_ATTR(_name, _field)				\
static ssize_t scalio_tgt_store_##_name##_show(struct config_item *item,\
					       char *page)		\
{									\
	return snprintf(page, PAGE_SIZE, "%u\n",			\
			READ_ONCE(to_store(item)->_field) ? 1 : 0);	\
}									\
static ssize_t scalio_tgt_store_##_name##_store(struct config_item *item,\
						const char *page,	\
						size_t count)		\
{									\
	return scalio_tgt_store_set_bool(item, page, count,		\
			offsetof(struct scalio_tgt_store, _field));	\
}									\
CONFIGFS_ATTR(scalio_tgt_store_, _name)

SCALIO_STORE_U32_ATTR(attr_nr_blocks, nr_blocks, scalio_tgt_chk_nr_blocks);
SCALIO_STORE_U32_ATTR(attr_nr_buckets, nr_buckets_attr,
		      scalio_tgt_chk_nr_buckets);
SCALIO_STORE_U32_ATTR(attr_slots_per_block, slots, scalio_tgt_chk_slots);
SCALIO_STORE_U32_ATTR(attr_batch_max, batch_max, scalio_tgt_chk_batch_max);
SCALIO_STORE_U32_ATTR(attr_batch_timeout_us, batch_timeout_us,
		      scalio_tgt_chk_timeout);
SCALIO_STORE_U32_ATTR(attr_lease_ms, lease_ms, scalio_tgt_chk_lease);
SCALIO_STORE_U32_ATTR(attr_seg_cache_mb, seg_cache_mb,
		      scalio_tgt_chk_seg_cache);
SCALIO_STORE_U32_ATTR(attr_kato_ms, kato_ms, scalio_tgt_chk_kato);
SCALIO_STORE_U32_ATTR(attr_value_inline_max, value_inline_max,
		      scalio_tgt_chk_inline_max);
SCALIO_STORE_U32_ATTR(addr_trsvcid, trsvcid, scalio_tgt_chk_port);
SCALIO_STORE_BOOL_ATTR(attr_offload_read, offload_read);
SCALIO_STORE_BOOL_ATTR(attr_inline_cache, inline_cache);
/*
 * One-shot actions of the next enable, cleared when it succeeds: format
 * every SSD (nothing else ever formats), and accept dropping damaged log
 * batches that intact ones follow (recovery otherwise refuses).
 */
SCALIO_STORE_BOOL_ATTR(attr_format_on_enable, format_on_enable);
SCALIO_STORE_BOOL_ATTR(attr_force_recover, force_recover);

/* What the last enable found: repairs, refusals, dropped batches/keys. */
static ssize_t scalio_tgt_store_report_show(struct config_item *item,
					    char *page)
{
	struct scalio_tgt_store *st = to_store(item);
	ssize_t len;

	mutex_lock(&st->lock);
	len = scnprintf(page, PAGE_SIZE, "%s", st->report ? st->report : "");
	mutex_unlock(&st->lock);
	return len;
}
CONFIGFS_ATTR_RO(scalio_tgt_store_, report);

static ssize_t scalio_tgt_store_addr_traddr_show(struct config_item *item,
						 char *page)
{
	struct scalio_tgt_store *st = to_store(item);
	ssize_t ret;

	mutex_lock(&st->lock);
	ret = snprintf(page, PAGE_SIZE, "%s\n", st->traddr);
	mutex_unlock(&st->lock);
	return ret;
}

static ssize_t scalio_tgt_store_addr_traddr_store(struct config_item *item,
						  const char *page, size_t count)
{
	struct scalio_tgt_store *st = to_store(item);
	char addr[SCALIO_ADDR_MAX];
	struct sockaddr_storage ss;
	ssize_t ret = count;

	if (scalio_tgt_cfs_strcpy(addr, sizeof(addr), page, count) || !addr[0])
		return -EINVAL;
	/* An IPv4 or IPv6 literal, as rdma_cm will be handed it. */
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, addr, "1", &ss))
		return -EINVAL;
	mutex_lock(&st->lock);
	if (st->enabled)
		ret = -EBUSY;
	else
		strscpy(st->traddr, addr, sizeof(st->traddr));
	mutex_unlock(&st->lock);
	return ret;
}
CONFIGFS_ATTR(scalio_tgt_store_, addr_traddr);

static ssize_t scalio_tgt_store_enable_show(struct config_item *item,
					    char *page)
{
	return snprintf(page, PAGE_SIZE, "%u\n",
			READ_ONCE(to_store(item)->enabled) ? 1 : 0);
}

static ssize_t scalio_tgt_store_enable_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct scalio_tgt_store *st = to_store(item);
	bool enable;
	int ret = 0;

	if (kstrtobool(page, &enable))
		return -EINVAL;
	mutex_lock(&st->lock);
	if (enable)
		ret = scalio_tgt_store_enable(st);
	else
		scalio_tgt_store_disable(st);
	mutex_unlock(&st->lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(scalio_tgt_store_, enable);

/*
 * Write 1: an SSD failed by a write error takes writes again once a probe
 * write to it succeeds (scalio_tgt_store_resume()); -EIO while it still fails.
 */
static ssize_t scalio_tgt_store_resume_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct scalio_tgt_store *st = to_store(item);
	bool val;
	int ret;

	if (kstrtobool(page, &val) || !val)
		return -EINVAL;
	mutex_lock(&st->lock);
	ret = st->enabled ? scalio_tgt_store_resume(st) : -ENODEV;
	mutex_unlock(&st->lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR_WO(scalio_tgt_store_, resume);

/*
 * Admission settings may change while the store is up, as nvmet's
 * attr_allow_any_host and allowed_hosts may.  What takes access away ends
 * the connections it covered (removing a host, giving it another secret,
 * clearing attr_allow_any_host): their hosts reconnect and are admitted,
 * or refused, by the new rules.
 */
static ssize_t scalio_tgt_store_attr_allow_any_host_show(struct config_item *item,
							 char *page)
{
	return snprintf(page, PAGE_SIZE, "%d\n",
			READ_ONCE(to_store(item)->allow_any_host));
}

static ssize_t scalio_tgt_store_attr_allow_any_host_store(struct config_item *item,
							  const char *page,
							  size_t count)
{
	struct scalio_tgt_store *st = to_store(item);
	bool val, was;

	if (kstrtobool(page, &val))
		return -EINVAL;
	mutex_lock(&st->lock);
	was = READ_ONCE(st->allow_any_host);
	WRITE_ONCE(st->allow_any_host, val);
	/* Hosts it let in without an entry must be admitted again. */
	if (was && !val && st->enabled)
		scalio_tgt_ctl_hosts_changed(st, NULL,
					     "was admitted by attr_allow_any_host, now cleared");
	mutex_unlock(&st->lock);
	return count;
}
CONFIGFS_ATTR(scalio_tgt_store_, attr_allow_any_host);

static ssize_t scalio_tgt_store_attr_max_clients_show(struct config_item *item,
						      char *page)
{
	return snprintf(page, PAGE_SIZE, "%u\n",
			READ_ONCE(to_store(item)->max_clients));
}

static ssize_t scalio_tgt_store_attr_max_clients_store(struct config_item *item,
						       const char *page,
						       size_t count)
{
	u32 val;

	if (kstrtou32(page, 0, &val) || !val || val > SCALIO_MAX_CLIENTS)
		return -EINVAL;
	WRITE_ONCE(to_store(item)->max_clients, val);
	return count;
}
CONFIGFS_ATTR(scalio_tgt_store_, attr_max_clients);

static ssize_t scalio_tgt_store_attr_max_host_clients_show(struct config_item *item,
							   char *page)
{
	return snprintf(page, PAGE_SIZE, "%u\n",
			READ_ONCE(to_store(item)->max_host_clients));
}

static ssize_t scalio_tgt_store_attr_max_host_clients_store(struct config_item *item,
							    const char *page,
							    size_t count)
{
	u32 val;

	if (kstrtou32(page, 0, &val) || !val || val > SCALIO_MAX_CLIENTS)
		return -EINVAL;
	WRITE_ONCE(to_store(item)->max_host_clients, val);
	return count;
}
CONFIGFS_ATTR(scalio_tgt_store_, attr_max_host_clients);

static const struct {
	const char	*name;
	size_t		off;
} scalio_tgt_stat_names[] = {
#define SCALIO_TGT_STAT(f) { #f, offsetof(struct scalio_target_stats, f) },
#include "stat_fields.h"
#undef SCALIO_TGT_STAT
};

/* An SSD's state, st->lock held: see scalio_tgt_store_ssd_states(). */
static const char *scalio_tgt_ssd_state(struct scalio_tgt_ssd *ssd)
{
	if (ssd->store->enabled && ssd->commit)
		return scalio_tgt_commit_failed(ssd) ? "failed" : "ok";
	return "down";
}

/*
 * One "ssd<i> ok|failed|down" line per SSD: failed once a log write
 * failed (writes fail with -EIO until the store is resumed or
 * re-enabled; reads go on) or while its last I/O failed, down while the
 * store is disabled.
 */
static size_t scalio_tgt_store_ssd_states(struct scalio_tgt_store *st, char *p,
					  size_t room)
{
	size_t len = 0;
	u32 i;

	mutex_lock(&st->lock);
	for (i = 0; i < SCALIO_MAX_SSDS && st->ssds[i]; i++) {
		len += scnprintf(p + len, room - len, "ssd%u %s\n", i,
				 scalio_tgt_ssd_state(st->ssds[i]));
	}
	mutex_unlock(&st->lock);
	return len;
}

static ssize_t scalio_tgt_store_stats_show(struct config_item *item, char *page)
{
	struct scalio_tgt_store *st = to_store(item);
	struct scalio_target_stats s;
	ssize_t len = 0;
	size_t i;

	mutex_lock(&st->lock);
	scalio_tgt_store_stats(st, &s);
	mutex_unlock(&st->lock);
	for (i = 0; i < ARRAY_SIZE(scalio_tgt_stat_names); i++)
		len += scnprintf(page + len, PAGE_SIZE - len, "%s %llu\n",
				 scalio_tgt_stat_names[i].name,
				 *(u64 *)((char *)&s +
					  scalio_tgt_stat_names[i].off));
	len += scalio_tgt_store_ssd_states(st, page + len, PAGE_SIZE - len);
	return len;
}
CONFIGFS_ATTR_RO(scalio_tgt_store_, stats);

/* ---- stores/<name>/statistics: one counter a file ---- */

static ssize_t scalio_tgt_stat_show(struct config_item *item, char *page,
				    size_t off)
{
	struct scalio_tgt_store *st = container_of(to_config_group(item),
						   struct scalio_tgt_store,
						   stats_group);
	struct scalio_target_stats s;

	mutex_lock(&st->lock);
	scalio_tgt_store_stats(st, &s);
	mutex_unlock(&st->lock);
	return scnprintf(page, PAGE_SIZE, "%llu\n", *(u64 *)((char *)&s + off));
}

/* configfs passes no attribute to show(): one small function a counter. */
#define SCALIO_TGT_STAT(f)						\
static ssize_t scalio_tgt_stat_##f##_show(struct config_item *item,	\
					  char *page)			\
{									\
	return scalio_tgt_stat_show(item, page,				\
			offsetof(struct scalio_target_stats, f));	\
}
#include "stat_fields.h"
#undef SCALIO_TGT_STAT

static struct configfs_attribute scalio_tgt_stat_attr[] = {
#define SCALIO_TGT_STAT(f)						\
	{ .ca_name = #f, .ca_mode = 0444, .ca_owner = THIS_MODULE,	\
	  .show = scalio_tgt_stat_##f##_show },
#include "stat_fields.h"
#undef SCALIO_TGT_STAT
};

/* Filled by scalio_tgt_configfs_init(). */
static struct configfs_attribute *
scalio_tgt_stat_attrs[ARRAY_SIZE(scalio_tgt_stat_attr) + 1];

static const struct config_item_type scalio_tgt_stats_type = {
	.ct_attrs	= scalio_tgt_stat_attrs,
	.ct_owner	= THIS_MODULE,
};

/* What this module's store directory offers, for tools probing versions. */
static const char * const scalio_tgt_store_features[] = {
	"attr_nr_blocks", "attr_slots_per_block", "attr_batch_max",
	"attr_batch_timeout_us", "attr_offload_read", "attr_inline_cache",
	"attr_lease_ms", "attr_seg_cache_mb", "addr_traddr", "addr_trsvcid",
	"enable", "stats", "ssds", "attr_allow_any_host", "attr_max_clients",
	"allowed_hosts", "attr_format_on_enable", "attr_force_recover",
	"report", "resume", "attr_kato_ms", "attr_max_host_clients",
	"statistics", "attr_nr_buckets", "attr_value_inline_max",
};

static ssize_t scalio_tgt_store_features_show(struct config_item *item,
					      char *page)
{
	ssize_t len = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scalio_tgt_store_features); i++)
		len += scnprintf(page + len, PAGE_SIZE - len, "%s%s",
				 i ? "," : "", scalio_tgt_store_features[i]);
	len += scnprintf(page + len, PAGE_SIZE - len, "\n");
	return len;
}
CONFIGFS_ATTR_RO(scalio_tgt_store_, features);

static struct configfs_attribute *scalio_tgt_store_attrs[] = {
	&scalio_tgt_store_attr_attr_nr_blocks,
	&scalio_tgt_store_attr_attr_nr_buckets,
	&scalio_tgt_store_attr_attr_slots_per_block,
	&scalio_tgt_store_attr_attr_batch_max,
	&scalio_tgt_store_attr_attr_batch_timeout_us,
	&scalio_tgt_store_attr_attr_offload_read,
	&scalio_tgt_store_attr_attr_inline_cache,
	&scalio_tgt_store_attr_attr_lease_ms,
	&scalio_tgt_store_attr_attr_seg_cache_mb,
	&scalio_tgt_store_attr_attr_kato_ms,
	&scalio_tgt_store_attr_attr_value_inline_max,
	&scalio_tgt_store_attr_addr_traddr,
	&scalio_tgt_store_attr_addr_trsvcid,
	&scalio_tgt_store_attr_enable,
	&scalio_tgt_store_attr_resume,
	&scalio_tgt_store_attr_stats,
	&scalio_tgt_store_attr_features,
	&scalio_tgt_store_attr_attr_allow_any_host,
	&scalio_tgt_store_attr_attr_max_clients,
	&scalio_tgt_store_attr_attr_max_host_clients,
	&scalio_tgt_store_attr_attr_format_on_enable,
	&scalio_tgt_store_attr_attr_force_recover,
	&scalio_tgt_store_attr_report,
	NULL,
};

/* ---- ssds/<n> ---- */

/* What an SSD's string attribute must look like. */
enum scalio_tgt_ssd_str {
	SCALIO_SSD_PATH,	/* an absolute path */
	SCALIO_SSD_NQN,		/* an NQN the hosts accept (scalio_nqn_valid()) */
};

static ssize_t scalio_tgt_ssd_set_str(struct config_item *item,
				      const char *page, size_t count,
				      char *field, size_t size,
				      enum scalio_tgt_ssd_str kind)
{
	struct scalio_tgt_ssd *ssd = to_ssd(item);
	struct scalio_tgt_store *st = ssd->store;
	char *buf;
	ssize_t ret = count;

	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (scalio_tgt_cfs_strcpy(buf, size, page, count) || !buf[0] ||
	    (kind == SCALIO_SSD_PATH && buf[0] != '/') ||
	    (kind == SCALIO_SSD_NQN && !scalio_nqn_valid(buf, size))) {
		ret = -EINVAL;
		goto out;
	}
	mutex_lock(&st->lock);
	if (st->enabled)
		ret = -EBUSY;
	else
		strscpy(field, buf, size);
	mutex_unlock(&st->lock);
out:
	kfree(buf);
	return ret;
}

static ssize_t scalio_tgt_ssd_show_str(struct config_item *item, char *page,
				       const char *field)
{
	struct scalio_tgt_store *st = to_ssd(item)->store;
	ssize_t ret;

	mutex_lock(&st->lock);
	ret = snprintf(page, PAGE_SIZE, "%s\n", field);
	mutex_unlock(&st->lock);
	return ret;
}

static ssize_t scalio_tgt_ssd_device_path_show(struct config_item *item,
					       char *page)
{
	return scalio_tgt_ssd_show_str(item, page, to_ssd(item)->device_path);
}

static ssize_t scalio_tgt_ssd_device_path_store(struct config_item *item,
						const char *page, size_t count)
{
	struct scalio_tgt_ssd *ssd = to_ssd(item);

	return scalio_tgt_ssd_set_str(item, page, count, ssd->device_path,
				      sizeof(ssd->device_path), SCALIO_SSD_PATH);
}
CONFIGFS_ATTR(scalio_tgt_ssd_, device_path);

static ssize_t scalio_tgt_ssd_nqn_show(struct config_item *item, char *page)
{
	return scalio_tgt_ssd_show_str(item, page, to_ssd(item)->nqn);
}

static ssize_t scalio_tgt_ssd_nqn_store(struct config_item *item,
					const char *page, size_t count)
{
	struct scalio_tgt_ssd *ssd = to_ssd(item);

	return scalio_tgt_ssd_set_str(item, page, count, ssd->nqn,
				      sizeof(ssd->nqn), SCALIO_SSD_NQN);
}
CONFIGFS_ATTR(scalio_tgt_ssd_, nqn);

static ssize_t scalio_tgt_ssd_nsid_show(struct config_item *item, char *page)
{
	return snprintf(page, PAGE_SIZE, "%u\n", READ_ONCE(to_ssd(item)->nsid));
}

static ssize_t scalio_tgt_ssd_nsid_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct scalio_tgt_ssd *ssd = to_ssd(item);
	struct scalio_tgt_store *st = ssd->store;
	ssize_t ret = count;
	u32 nsid;

	/* 0 and 0xffffffff are not namespace ids (NVMe base spec). */
	if (kstrtou32(page, 0, &nsid) || !nsid || nsid == U32_MAX)
		return -EINVAL;
	mutex_lock(&st->lock);
	if (st->enabled)
		ret = -EBUSY;
	else
		ssd->nsid = nsid;
	mutex_unlock(&st->lock);
	return ret;
}
CONFIGFS_ATTR(scalio_tgt_ssd_, nsid);

/* ok, failed or down: the ssd<i> line of the store's stats. */
static ssize_t scalio_tgt_ssd_state_show(struct config_item *item, char *page)
{
	struct scalio_tgt_ssd *ssd = to_ssd(item);
	struct scalio_tgt_store *st = ssd->store;
	ssize_t len;

	mutex_lock(&st->lock);
	len = scnprintf(page, PAGE_SIZE, "%s\n", scalio_tgt_ssd_state(ssd));
	mutex_unlock(&st->lock);
	return len;
}
CONFIGFS_ATTR_RO(scalio_tgt_ssd_, state);

static struct configfs_attribute *scalio_tgt_ssd_attrs[] = {
	&scalio_tgt_ssd_attr_device_path,
	&scalio_tgt_ssd_attr_nqn,
	&scalio_tgt_ssd_attr_nsid,
	&scalio_tgt_ssd_attr_state,
	NULL,
};

static void scalio_tgt_ssd_release(struct config_item *item)
{
	kfree(to_ssd(item));
}

static struct configfs_item_operations scalio_tgt_ssd_item_ops = {
	.release	= scalio_tgt_ssd_release,
};

static const struct config_item_type scalio_tgt_ssd_type = {
	.ct_item_ops	= &scalio_tgt_ssd_item_ops,
	.ct_attrs	= scalio_tgt_ssd_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_group *scalio_tgt_ssds_make(struct config_group *group,
						 const char *name)
{
	struct scalio_tgt_store *st = container_of(group,
						   struct scalio_tgt_store,
						   ssds_group);
	struct scalio_tgt_ssd *ssd;
	char canon[4];
	u32 n;
	int ret;

	/* Only the canonical decimal names 0..15, so "00" cannot alias 0. */
	if (kstrtou32(name, 10, &n) || n >= SCALIO_MAX_SSDS)
		return ERR_PTR(-EINVAL);
	snprintf(canon, sizeof(canon), "%u", n);
	if (strcmp(canon, name))
		return ERR_PTR(-EINVAL);

	ssd = kzalloc(sizeof(*ssd), GFP_KERNEL);
	if (!ssd)
		return ERR_PTR(-ENOMEM);
	ssd->store = st;
	ssd->index = n;
	ssd->nsid = 1;
	spin_lock_init(&ssd->lock);
	INIT_LIST_HEAD(&ssd->pending);
	INIT_LIST_HEAD(&ssd->flows);
	init_waitqueue_head(&ssd->wq);
	init_waitqueue_head(&ssd->done_wq);
	atomic64_set(&ssd->reqs_out, 0);

	mutex_lock(&st->lock);
	if (st->enabled)
		ret = -EBUSY;
	else if (st->ssds[n])
		ret = -EEXIST;
	else
		ret = 0;
	if (!ret)
		st->ssds[n] = ssd;
	mutex_unlock(&st->lock);
	if (ret) {
		kfree(ssd);
		return ERR_PTR(ret);
	}
	config_group_init_type_name(&ssd->group, name, &scalio_tgt_ssd_type);
	return &ssd->group;
}

static void scalio_tgt_ssds_drop(struct config_group *group,
				 struct config_item *item)
{
	struct scalio_tgt_ssd *ssd = to_ssd(item);
	struct scalio_tgt_store *st = ssd->store;

	mutex_lock(&st->lock);
	if (st->enabled) {
		pr_info("%s: ssd %u removed: disabling the store\n",
			st->name, ssd->index);
		scalio_tgt_store_disable(st);
	}
	st->ssds[ssd->index] = NULL;
	mutex_unlock(&st->lock);
	config_item_put(item);
}

static struct configfs_group_operations scalio_tgt_ssds_group_ops = {
	.make_group	= scalio_tgt_ssds_make,
	.drop_item	= scalio_tgt_ssds_drop,
};

static const struct config_item_type scalio_tgt_ssds_type = {
	.ct_group_ops	= &scalio_tgt_ssds_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* ---- stores/<name>/allowed_hosts/<host NQN> ---- */

static inline struct scalio_tgt_host *to_host(struct config_item *item)
{
	return container_of(to_config_group(item), struct scalio_tgt_host,
			    group);
}

/* The secret is never shown: only whether there is one. */
static ssize_t scalio_tgt_host_dhchap_key_show(struct config_item *item,
					       char *page)
{
	struct scalio_tgt_host *h = to_host(item);
	bool set;

	mutex_lock(&h->store->hosts_lock);
	set = h->secret_len;
	mutex_unlock(&h->store->hosts_lock);
	return snprintf(page, PAGE_SIZE, "%s\n", set ? "(set)" : "");
}

/*
 * An opaque secret of SCALIO_SECRET_MIN..SCALIO_SECRET_MAX printable
 * bytes (a trailing newline is dropped), e.g. what `nvme gen-dhchap-key`
 * prints; an empty write removes it.
 */
static ssize_t scalio_tgt_host_dhchap_key_store(struct config_item *item,
						const char *page, size_t count)
{
	struct scalio_tgt_host *h = to_host(item);
	struct scalio_tgt_store *st = h->store;
	size_t len = strnlen(page, count), i;
	bool changed;

	while (len && (page[len - 1] == '\n' || page[len - 1] == ' '))
		len--;
	if (len && (len < SCALIO_SECRET_MIN || len > SCALIO_SECRET_MAX))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (page[i] <= ' ' || page[i] > '~')
			return -EINVAL;
	mutex_lock(&st->hosts_lock);
	changed = len != h->secret_len || crypto_memneq(h->secret, page, len);
	memzero_explicit(h->secret, sizeof(h->secret));
	memcpy(h->secret, page, len);
	h->secret_len = len;
	mutex_unlock(&st->hosts_lock);
	/* Admitted with the old secret (or none): prove the new one. */
	if (changed) {
		mutex_lock(&st->lock);
		if (st->enabled)
			scalio_tgt_ctl_hosts_changed(st, h->nqn,
						     "has another secret");
		mutex_unlock(&st->lock);
	}
	return count;
}
CONFIGFS_ATTR(scalio_tgt_host_, dhchap_key);

static struct configfs_attribute *scalio_tgt_host_attrs[] = {
	&scalio_tgt_host_attr_dhchap_key,
	NULL,
};

static void scalio_tgt_host_release(struct config_item *item)
{
	kfree_sensitive(to_host(item));
}

static struct configfs_item_operations scalio_tgt_host_item_ops = {
	.release	= scalio_tgt_host_release,
};

static const struct config_item_type scalio_tgt_host_type = {
	.ct_item_ops	= &scalio_tgt_host_item_ops,
	.ct_attrs	= scalio_tgt_host_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_group *scalio_tgt_hosts_make(struct config_group *group,
						  const char *name)
{
	struct scalio_tgt_store *st = container_of(group,
						   struct scalio_tgt_store,
						   hosts_group);
	struct scalio_tgt_host *h;

	if (!scalio_nqn_valid(name, strlen(name) + 1))
		return ERR_PTR(-EINVAL);
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return ERR_PTR(-ENOMEM);
	h->store = st;
	strscpy(h->nqn, name, sizeof(h->nqn));
	config_group_init_type_name(&h->group, name, &scalio_tgt_host_type);
	mutex_lock(&st->hosts_lock);
	list_add_tail(&h->entry, &st->hosts);
	mutex_unlock(&st->hosts_lock);
	return &h->group;
}

/* Removing a host ends its access: its connections are dropped too. */
static void scalio_tgt_hosts_drop(struct config_group *group,
				  struct config_item *item)
{
	struct scalio_tgt_host *h = to_host(item);
	struct scalio_tgt_store *st = h->store;

	mutex_lock(&st->hosts_lock);
	list_del(&h->entry);
	mutex_unlock(&st->hosts_lock);
	mutex_lock(&st->lock);
	if (st->enabled)
		scalio_tgt_ctl_hosts_changed(st, h->nqn, "no longer allowed");
	mutex_unlock(&st->lock);
	config_item_put(item);
}

static struct configfs_group_operations scalio_tgt_hosts_group_ops = {
	.make_group	= scalio_tgt_hosts_make,
	.drop_item	= scalio_tgt_hosts_drop,
};

static const struct config_item_type scalio_tgt_hosts_type = {
	.ct_group_ops	= &scalio_tgt_hosts_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* ---- stores/<name> ---- */

static void scalio_tgt_store_release(struct config_item *item)
{
	struct scalio_tgt_store *st = to_store(item);

	free_percpu(st->stats);
	kfree(st->report);
	kfree(st);
}

static struct configfs_item_operations scalio_tgt_store_item_ops = {
	.release	= scalio_tgt_store_release,
};

static const struct config_item_type scalio_tgt_store_type = {
	.ct_item_ops	= &scalio_tgt_store_item_ops,
	.ct_attrs	= scalio_tgt_store_attrs,
	.ct_owner	= THIS_MODULE,
};

/*
 * Store names end up in device names on the hosts (scalio-<name>): keep
 * them plain, and not "ctl" (the hosts' /dev/scalio-ctl).
 */
static bool scalio_tgt_store_name_ok(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len >= SCALIO_NAME_MAX || name[0] == '.' ||
	    !strcmp(name, "ctl"))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_-.", name[i]))
			return false;
	return true;
}

static struct config_group *scalio_tgt_stores_make(struct config_group *group,
						   const char *name)
{
	struct scalio_tgt_store *st;

	if (!scalio_tgt_store_name_ok(name))
		return ERR_PTR(-EINVAL);
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return ERR_PTR(-ENOMEM);
	st->report = kzalloc(PAGE_SIZE, GFP_KERNEL);
	st->stats = alloc_percpu(struct scalio_tgt_pcpu_stats);
	if (!st->report || !st->stats) {
		free_percpu(st->stats);
		kfree(st->report);
		kfree(st);
		return ERR_PTR(-ENOMEM);
	}
	strscpy(st->name, name, sizeof(st->name));
	mutex_init(&st->lock);
	init_completion(&st->live_done);
	scalio_tgt_store_set_defaults(st);

	config_group_init_type_name(&st->group, name, &scalio_tgt_store_type);
	config_group_init_type_name(&st->ssds_group, "ssds",
				    &scalio_tgt_ssds_type);
	configfs_add_default_group(&st->ssds_group, &st->group);
	mutex_init(&st->hosts_lock);
	INIT_LIST_HEAD(&st->hosts);
	config_group_init_type_name(&st->hosts_group, "allowed_hosts",
				    &scalio_tgt_hosts_type);
	configfs_add_default_group(&st->hosts_group, &st->group);
	config_group_init_type_name(&st->stats_group, "statistics",
				    &scalio_tgt_stats_type);
	configfs_add_default_group(&st->stats_group, &st->group);

	mutex_lock(&scalio_tgt_stores_lock);
	list_add_tail(&st->entry, &scalio_tgt_stores);
	mutex_unlock(&scalio_tgt_stores_lock);
	return &st->group;
}

static void scalio_tgt_stores_drop(struct config_group *group,
				   struct config_item *item)
{
	struct scalio_tgt_store *st = to_store(item);

	mutex_lock(&st->lock);
	if (st->enabled) {
		pr_info("%s: removed while enabled: disabling it first\n",
			st->name);
		scalio_tgt_store_disable(st);
	}
	mutex_unlock(&st->lock);

	mutex_lock(&scalio_tgt_stores_lock);
	list_del(&st->entry);
	mutex_unlock(&scalio_tgt_stores_lock);
	config_item_put(item);
}

static struct configfs_group_operations scalio_tgt_stores_group_ops = {
	.make_group	= scalio_tgt_stores_make,
	.drop_item	= scalio_tgt_stores_drop,
};

static const struct config_item_type scalio_tgt_stores_type = {
	.ct_group_ops	= &scalio_tgt_stores_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group scalio_tgt_stores_group;

static const struct config_item_type scalio_tgt_root_type = {
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem scalio_tgt_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "scalio",
			.ci_type	= &scalio_tgt_root_type,
		},
	},
};

int scalio_tgt_configfs_init(void)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(scalio_tgt_stat_attr); i++)
		scalio_tgt_stat_attrs[i] = &scalio_tgt_stat_attr[i];
	config_group_init(&scalio_tgt_subsys.su_group);
	mutex_init(&scalio_tgt_subsys.su_mutex);
	config_group_init_type_name(&scalio_tgt_stores_group, "stores",
				    &scalio_tgt_stores_type);
	configfs_add_default_group(&scalio_tgt_stores_group,
				   &scalio_tgt_subsys.su_group);

	ret = configfs_register_subsystem(&scalio_tgt_subsys);
	if (ret)
		pr_err("cannot register the configfs subsystem: %d\n", ret);
	return ret;
}

void scalio_tgt_configfs_exit(void)
{
	configfs_unregister_subsystem(&scalio_tgt_subsys);
}
