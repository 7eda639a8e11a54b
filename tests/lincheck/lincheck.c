// SPDX-License-Identifier: GPL-2.0
/*
 * lincheck - linearizability checker for key-value histories.
 *
 * Input (a file or stdin), one completed operation per line:
 *
 *   <client> <get|put|del> <key> <value|-> <ok|missing|err> <invoke> <return>
 *
 * Timestamps are integers comparable across clients; an operation A
 * precedes B iff A.return < B.invoke (equal times count as overlapping).
 * A return of '-' means the op never returned as far as the history knows
 * (its closing clock read failed): it stays pending forever, so it may or
 * may not have taken effect, at any time after its invoke; it must be its
 * client's last op.  Blank lines and lines starting with '#' are ignored,
 * except the directives "#% ..." that recorders write (history.h):
 *
 *   #% timeline <clock> <epoch>   the stamps come from <clock> (monotonic:
 *                  one machine's CLOCK_MONOTONIC, <epoch> its boot id;
 *                  target: the target's clock word, <epoch> the target's
 *                  boot id as the recorder was told it)
 *   #% restart <why>              the recorder saw its clock restart
 *
 * Stamps are comparable only within one timeline: a history whose
 * timelines differ (other clock or other epoch) or that has a restart
 * line spans a restart of the clock (a target reboot restarts its clock
 * word near zero) and is refused (exit 2): checking it would order ops by
 * meaningless numbers.
 * Keys and values are opaque tokens compared as written (history.c
 * escapes bytes).
 *
 * Semantics (a register per key, initially absent):
 *   get ok V       the state is V            get missing   the state is absent
 *   put ok V       state := V                del ok        state := absent
 *   del missing    the state is absent (nothing deleted)
 *   put/del err    outcome unknown: may take effect at any time after its
 *                  invoke, or never (its return time is taken as infinity)
 *   get err        constrains nothing; ignored
 *   never returned (return '-'): put/del as an unknown outcome, whatever
 *                  the result says; get ignored
 * With -s (strict delete), "del ok" also requires the key to be present.
 *
 * A key-value map is linearizable iff every key's history is (Herlihy and
 * Wing's locality / P-compositionality), so keys are checked one by one.
 * Per key, the search is Wing & Gong's, in the just-in-time form of Lowe
 * ("Testing for linearizability", 2017) with memoization: the events are
 * swept in time order keeping the set of reachable configurations
 * (state, set of pending ops already linearized), deduplicated; at each
 * return, every order of pending ops that lets the returning op take
 * effect is explored.  Failed writes are only taken right before an op
 * that observes them, and configurations that took a superset of another's
 * failed writes are pruned.  Work per return is bounded by the ops
 * concurrent with it: several thousand ops per key take well under a
 * second, violations included.
 *
 * Exit: 0 linearizable ("OK <ops> <keys>"), 1 violation (the first
 * violating key with an explanation), 2 bad input or a refused history
 * (it spans a clock restart), 3 search limit hit.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OP_GET, OP_PUT, OP_DEL };
enum { RES_OK, RES_MISSING, RES_ERR };

static const char *const op_names[] = { "get", "put", "del" };
static const char *const res_names[] = { "ok", "missing", "err" };

struct op {
	const char *client;
	const char *key;
	const char *val;	/* NULL for '-' */
	long line;
	int64_t inv, ret;	/* ret as given (INT64_MAX: never returned) */
	unsigned char type, res;
	unsigned char never;	/* never returned: outcome unknown */
};

/* Options. */
static int strict_delete;
static int check_all;
static int verbose;
static size_t mem_limit = (size_t)4 << 30;	/* bytes of memo per key */

/* The timeline of the stamps, from the first "#% timeline" line. */
static char tl_clock[32], tl_epoch[64];
static long tl_line;

static struct op *ops;
static size_t nr_ops, cap_ops;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "lincheck: out of memory\n");
		exit(3);
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "lincheck: out of memory\n");
		exit(3);
	}
	return p;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p) {
		fprintf(stderr, "lincheck: out of memory\n");
		exit(3);
	}
	return p;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---------------------------------------------------------------- input */

static __attribute__((noreturn, format(printf, 2, 3)))
void bad_input(long line, const char *fmt, ...);

static void bad_input(long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lincheck: bad input");
	if (line > 0)
		fprintf(stderr, " at line %ld", line);
	fprintf(stderr, ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 1 << 20, n = 0, got;
	char *buf = xmalloc(cap + 1);

	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "lincheck: read error: %s\n", strerror(errno));
		exit(2);
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int64_t parse_ts(const char *s, long line, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		bad_input(line, "%s timestamp '%s' is not an integer", what, s);
	return v;
}

static __attribute__((noreturn, format(printf, 2, 3)))
void refuse(long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lincheck: refused (line %ld): ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; stamps from different clock timelines cannot be "
		"compared, so the history cannot be checked\n");
	exit(2);
}

/*
 * directive - a "#% ..." line: the clock timeline of the stamps, or a
 * restart the recorder saw.  Any sign that the stamps do not all come from
 * one run of one clock refuses the whole history.
 */
static void directive(char **tok, int n, long line)
{
	if (n >= 1 && !strcmp(tok[0], "restart"))
		refuse(line, "the recorder saw its clock restart (%s): the "
		       "history spans a target restart", n > 1 ? tok[1] : "?");
	if (n < 1 || strcmp(tok[0], "timeline"))
		bad_input(line, "unknown directive '#%% %s'", n ? tok[0] : "");
	if (n != 3 || strlen(tok[1]) >= sizeof(tl_clock) ||
	    strlen(tok[2]) >= sizeof(tl_epoch))
		bad_input(line, "expected '#%% timeline <clock> <epoch>'");
	if (strcmp(tok[1], "monotonic") && strcmp(tok[1], "target"))
		bad_input(line, "unknown clock '%s' (monotonic or target)",
			  tok[1]);
	if (!tl_line) {
		strcpy(tl_clock, tok[1]);
		strcpy(tl_epoch, tok[2]);
		tl_line = line;
		return;
	}
	if (strcmp(tl_clock, tok[1]))
		refuse(line, "clock %s here, clock %s at line %ld", tok[1],
		       tl_clock, tl_line);
	if (strcmp(tl_epoch, tok[2]))
		refuse(line, "%s clock of boot %s here, of boot %s at line %ld%s",
		       tl_clock, tok[2], tl_epoch, tl_line,
		       strcmp(tl_clock, "target") ? "" :
		       ": the history spans a target restart");
}

static void parse(char *buf)
{
	char *p = buf, *tok[8];
	long line = 0;
	int n, i;

	while (*p) {
		char *eol = strchr(p, '\n');

		line++;
		if (eol)
			*eol = '\0';
		n = 0;
		for (char *s = p; n < 8;) {
			while (*s == ' ' || *s == '\t' || *s == '\r')
				*s++ = '\0';
			if (!*s)
				break;
			tok[n++] = s;
			while (*s && *s != ' ' && *s != '\t' && *s != '\r')
				s++;
		}
		if (n >= 1 && !strcmp(tok[0], "#%")) {
			directive(tok + 1, n - 1, line);
			goto next;
		}
		if (n == 0 || tok[0][0] == '#')
			goto next;
		if (n != 7)
			bad_input(line, "expected 7 fields, got %d%s", n,
				  n == 8 ? " or more" : "");
		if (nr_ops == cap_ops) {
			cap_ops = cap_ops ? cap_ops * 2 : 4096;
			ops = xrealloc(ops, cap_ops * sizeof(*ops));
		}
		struct op *o = &ops[nr_ops];

		o->line = line;
		o->client = tok[0];
		for (i = 0; i < 3 && strcmp(tok[1], op_names[i]); i++)
			;
		if (i == 3)
			bad_input(line, "unknown op '%s' (get, put or del)",
				  tok[1]);
		o->type = (unsigned char)i;
		o->key = tok[2];
		o->val = strcmp(tok[3], "-") ? tok[3] : NULL;
		for (i = 0; i < 3 && strcmp(tok[4], res_names[i]); i++)
			;
		if (i == 3)
			bad_input(line, "unknown result '%s' (ok, missing or err)",
				  tok[4]);
		o->res = (unsigned char)i;
		o->inv = parse_ts(tok[5], line, "invoke");
		o->never = !strcmp(tok[6], "-");
		o->ret = o->never ? INT64_MAX : parse_ts(tok[6], line, "return");
		if (o->ret < o->inv)
			bad_input(line, "returns (%s) before it is invoked (%s)",
				  tok[6], tok[5]);
		if (o->type == OP_PUT && !o->val)
			bad_input(line, "put without a value");
		if (o->type == OP_PUT && o->res == RES_MISSING)
			bad_input(line, "put cannot return 'missing'");
		if (o->type == OP_GET && o->res == RES_OK && !o->val)
			bad_input(line, "get ok without the value read");
		if (o->type != OP_PUT && !(o->type == OP_GET && o->res == RES_OK))
			o->val = NULL;
		nr_ops++;
next:
		if (!eol)
			break;
		p = eol + 1;
	}
}

static const struct op *cmp_base;

static int cmp_client_inv(const void *a, const void *b)
{
	const struct op *x = &cmp_base[*(const size_t *)a];
	const struct op *y = &cmp_base[*(const size_t *)b];
	int c = strcmp(x->client, y->client);

	if (c)
		return c;
	if (x->inv != y->inv)
		return x->inv < y->inv ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* A client is sequential: its ops must not overlap in time. */
static void check_clients(void)
{
	size_t *idx = xmalloc(nr_ops * sizeof(*idx)), i;

	for (i = 0; i < nr_ops; i++)
		idx[i] = i;
	cmp_base = ops;
	qsort(idx, nr_ops, sizeof(*idx), cmp_client_inv);
	for (i = 1; i < nr_ops; i++) {
		const struct op *a = &ops[idx[i - 1]], *b = &ops[idx[i]];

		if (strcmp(a->client, b->client) || b->inv >= a->ret)
			continue;
		if (a->never)
			bad_input(b->line, "client %s has an op after one that "
				  "never returned (line %ld)", b->client,
				  a->line);
		bad_input(b->line, "client %s has overlapping ops (line %ld"
			  " returns at %" PRId64 ", this one is invoked at %"
			  PRId64 ")", b->client, a->line, a->ret, b->inv);
	}
	free(idx);
}

/* ------------------------------------------------------- key grouping */

struct key_group {
	const char *key;
	size_t *idx;		/* indices into ops[], in input order */
	size_t n, cap;
};

static struct key_group *groups;
static size_t nr_groups;

static void group_by_key(void)
{
	size_t tcap = 1024, i, h;
	size_t *table;

	while (tcap < nr_ops * 2)
		tcap *= 2;
	table = xmalloc(tcap * sizeof(*table));
	for (i = 0; i < tcap; i++)
		table[i] = SIZE_MAX;
	groups = xmalloc((nr_ops ? nr_ops : 1) * sizeof(*groups));
	for (i = 0; i < nr_ops; i++) {
		h = hash_str(ops[i].key) & (tcap - 1);
		while (table[h] != SIZE_MAX &&
		       strcmp(groups[table[h]].key, ops[i].key))
			h = (h + 1) & (tcap - 1);
		if (table[h] == SIZE_MAX) {
			table[h] = nr_groups;
			groups[nr_groups].key = ops[i].key;
			groups[nr_groups].idx = NULL;
			groups[nr_groups].n = groups[nr_groups].cap = 0;
			nr_groups++;
		}
		struct key_group *g = &groups[table[h]];

		if (g->n == g->cap) {
			g->cap = g->cap ? g->cap * 2 : 8;
			g->idx = xrealloc(g->idx, g->cap * sizeof(*g->idx));
		}
		g->idx[g->n++] = i;
	}
	free(table);
}

/* ------------------------------------------------------- the search */

/* One op of the key being checked. */
struct kop {
	const struct op *o;
	int64_t inv, ret;	/* ret = INT64_MAX for unknown outcomes */
	uint32_t vid;		/* value id, 0 = none */
	uint32_t slot;		/* pending slot while invoked */
	int inf;		/* unknown outcome (err put/del) */
};

struct event {
	int64_t t;
	uint32_t op;
	int is_call;
};

/*
 * A set of configurations (state, set of pending ops already linearized),
 * each stored as @stride words: [state, bitmap of pending slots...], with
 * an open-addressing hash index for deduplication.
 */
struct cset {
	uint64_t *data;
	size_t n, cap;		/* configurations */
	size_t *index;		/* position + 1, 0 = empty */
	size_t icap;
	size_t stride;
};

static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_words(const uint64_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	size_t i;

	for (i = 0; i < n; i++)
		h = mix64(h ^ w[i]) + i;
	return h;
}

static void cset_init(struct cset *s, size_t stride)
{
	memset(s, 0, sizeof(*s));
	s->stride = stride;
}

static void cset_clear(struct cset *s)
{
	s->n = 0;
	if (s->index)
		memset(s->index, 0, s->icap * sizeof(*s->index));
}

static void cset_free(struct cset *s)
{
	free(s->data);
	free(s->index);
	memset(s, 0, sizeof(*s));
}

static size_t cset_bytes(const struct cset *s)
{
	return s->cap * s->stride * sizeof(uint64_t) +
	       s->icap * sizeof(size_t);
}

static void cset_reindex(struct cset *s, size_t icap)
{
	size_t i, h;

	free(s->index);
	s->index = xcalloc(icap, sizeof(*s->index));
	s->icap = icap;
	for (i = 0; i < s->n; i++) {
		h = hash_words(s->data + i * s->stride, s->stride) & (icap - 1);
		while (s->index[h])
			h = (h + 1) & (icap - 1);
		s->index[h] = i + 1;
	}
}

/* Adds configuration @c unless present; returns 1 if it was added. */
static int cset_add(struct cset *s, const uint64_t *c)
{
	size_t h;

	if ((s->n + 1) * 2 > s->icap)
		cset_reindex(s, s->icap ? s->icap * 2 : 64);
	h = hash_words(c, s->stride) & (s->icap - 1);
	while (s->index[h]) {
		if (!memcmp(s->data + (s->index[h] - 1) * s->stride, c,
			    s->stride * sizeof(*c)))
			return 0;
		h = (h + 1) & (s->icap - 1);
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->data = xrealloc(s->data, s->cap * s->stride *
				   sizeof(uint64_t));
	}
	memcpy(s->data + s->n * s->stride, c, s->stride * sizeof(*c));
	s->index[h] = ++s->n;
	return 1;
}

static int cmp_kop_inv(const void *a, const void *b)
{
	const struct kop *x = a, *y = b;

	if (x->inv != y->inv)
		return x->inv < y->inv ? -1 : 1;
	return x->o->line < y->o->line ? -1 : x->o->line > y->o->line;
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* Calls before returns at equal times: touching ops overlap. */
	if (x->is_call != y->is_call)
		return x->is_call ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

/* The register model.  Returns 1 and the new state if @k may run now. */
static int step(const struct kop *k, uint32_t state, uint32_t *next)
{
	const struct op *o = k->o;

	*next = state;
	switch (o->type) {
	case OP_GET:
		if (o->res == RES_OK)
			return state == k->vid;
		return state == 0;		/* missing */
	case OP_PUT:
		*next = k->vid;
		return 1;
	default:				/* OP_DEL */
		if (o->res == RES_MISSING)
			return state == 0;
		if (o->res == RES_OK && strict_delete && state == 0)
			return 0;
		*next = 0;
		return 1;
	}
}

/*
 * enables - can unknown-outcome op @u, taking effect just before @k, let
 * @k run?  Sets the state after both.
 *
 * Unknown-outcome ops are never linearized on their own: in any
 * linearization, the op right after an unknown-outcome write either
 * overwrites its effect (then the write can be dropped: nothing observed
 * it) or observes it.  So it suffices to try each such write immediately
 * before an op that needs its effect: a get of its value or a strict
 * delete (after a put), a 'missing' result (after a del).  This keeps
 * failed writes from multiplying the configurations.
 */
static int enables(const struct kop *k, const struct kop *u, uint32_t *next)
{
	const struct op *o = k->o;

	if (u->o->type == OP_PUT) {
		if (o->type == OP_GET && o->res == RES_OK && u->vid == k->vid) {
			*next = u->vid;
			return 1;
		}
		if (o->type == OP_DEL && o->res == RES_OK && strict_delete) {
			*next = 0;
			return 1;
		}
		return 0;
	}
	if ((o->type == OP_GET || o->type == OP_DEL) &&
	    o->res == RES_MISSING) {
		*next = 0;
		return 1;
	}
	return 0;
}

/*
 * All the unknown-outcome ops that can enable @k have the same effect
 * (deletes; or puts of the value @k reads), are all pending and never
 * return: taking one or another leads to configurations equal up to
 * renaming, so trying the first one found suffices.  Not so for a strict
 * delete, which any put (of any value) enables.
 */
static int interchangeable(const struct kop *k)
{
	return !(k->o->type == OP_DEL && k->o->res == RES_OK);
}

/* A value for a report: long ones (up to 4 KiB) cut, with their length. */
static const char *show_val(const char *v, char *buf, size_t len)
{
	size_t n;

	if (!v)
		return "-";
	n = strlen(v);
	if (n <= 64)
		return v;
	snprintf(buf, len, "%.32s...%s(%zu chars)", v, v + n - 16, n);
	return buf;
}

static void print_op(const char *indent, const struct op *o)
{
	char ret[24], vb[80];

	if (o->never)
		strcpy(ret, "-");
	else
		snprintf(ret, sizeof(ret), "%" PRId64, o->ret);
	printf("%sline %ld: %s %s %s %s %s %" PRId64 " %s%s\n", indent,
	       o->line, o->client, op_names[o->type], o->key,
	       show_val(o->val, vb, sizeof(vb)), res_names[o->res], o->inv, ret,
	       o->never ? "  (never returned)" :
	       o->res == RES_ERR ? "  (outcome unknown)" : "");
}

static inline int test_bit(const uint64_t *b, uint32_t i)
{
	return b[i / 64] >> (i % 64) & 1;
}

static inline void set_bit(uint64_t *b, uint32_t i)
{
	b[i / 64] |= 1ULL << (i % 64);
}

static inline void clear_bit(uint64_t *b, uint32_t i)
{
	b[i / 64] &= ~(1ULL << (i % 64));
}

static const uint64_t *prune_base;
static const uint64_t *prune_mask;	/* slots of unknown-outcome ops */
static size_t prune_stride;

static uint64_t group_hash(const uint64_t *c)
{
	uint64_t h = mix64(c[0] + 1);
	size_t w;

	for (w = 1; w < prune_stride; w++)
		h = mix64(h ^ (c[w] & ~prune_mask[w - 1])) + w;
	return h;
}

static int same_group(const uint64_t *a, const uint64_t *b)
{
	size_t w;

	if (a[0] != b[0])
		return 0;
	for (w = 1; w < prune_stride; w++)
		if ((a[w] ^ b[w]) & ~prune_mask[w - 1])
			return 0;
	return 1;
}

/* Unknown-outcome ops taken by @a are a subset of those taken by @b. */
static int taken_subset(const uint64_t *a, const uint64_t *b)
{
	size_t w;

	for (w = 1; w < prune_stride; w++)
		if (a[w] & prune_mask[w - 1] & ~b[w])
			return 0;
	return 1;
}

struct gkey {
	uint64_t h;
	size_t i;
};

static int cmp_gkey(const void *a, const void *b)
{
	const struct gkey *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * prune_dominated - drop configurations that another one dominates: same
 * state, same ops linearized, and a subset of the unknown-outcome ops
 * taken (the one that took fewer keeps more options open).
 */
static void prune_dominated(struct cset *s, const uint64_t *mask,
			    struct cset *tmp)
{
	struct gkey *g;
	unsigned char *drop;
	size_t i, j, a, b;

	if (s->n < 2)
		return;
	prune_base = s->data;
	prune_mask = mask;
	prune_stride = s->stride;
	g = xmalloc(s->n * sizeof(*g));
	drop = xcalloc(s->n, 1);
	for (i = 0; i < s->n; i++) {
		g[i].h = group_hash(s->data + i * s->stride);
		g[i].i = i;
	}
	qsort(g, s->n, sizeof(*g), cmp_gkey);
	for (a = 0; a < s->n; a = b) {
		for (b = a + 1; b < s->n && g[b].h == g[a].h; b++)
			;
		for (i = a; i < b; i++) {
			const uint64_t *ci = s->data + g[i].i * s->stride;

			if (drop[g[i].i])
				continue;
			for (j = a; j < b; j++) {
				const uint64_t *cj = s->data + g[j].i * s->stride;

				if (i == j || drop[g[j].i] ||
				    !same_group(ci, cj))
					continue;
				if (taken_subset(ci, cj))
					drop[g[j].i] = 1;
			}
		}
	}
	cset_clear(tmp);
	for (i = 0; i < s->n; i++)
		if (!drop[i])
			cset_add(tmp, s->data + i * s->stride);
	{
		struct cset t = *s;

		*s = *tmp;
		*tmp = t;
	}
	free(g);
	free(drop);
}

#define RECENT	6	/* completed ops kept for a violation report */

/*
 * check_key - is one key's history linearizable?
 *
 * Just-in-time linearization (as Knossos' "linear" checker and Lowe's
 * JIT search): the events are swept in time order keeping every reachable
 * configuration (state, which pending ops are already linearized).  A call
 * only makes its op pending.  At a return, each configuration must
 * linearize the returning op now, possibly after some other pending ops:
 * all such orders are explored (deduplicated), keeping only the
 * configurations where the returning op is in; if none is left, no
 * linearization exists and the op is the culprit.  The work per return is
 * bounded by the ops concurrent with it, so long histories check in time
 * linear in their length, violations included.
 *
 * Returns 0 (linearizable), 1 (violation, explained on stdout) or 3
 * (configuration limit exceeded).
 */
static int check_key(const struct key_group *g, size_t *nr_checked)
{
	struct kop *k = xmalloc(g->n * sizeof(*k));
	const char **vals = NULL;
	uint32_t nr_vals = 0, n = 0, i, j, x, u, ns, nslots = 0, npend = 0;
	uint32_t *pend_op, *free_slots, nfree = 0, recent[RECENT], nrecent = 0;
	unsigned char *busy;
	uint64_t *infmask;
	uint32_t ninf = 0;
	struct event *ev;
	size_t stride, nev = 0, e, max_cfgs = 1, q;
	struct cset cur, next, seen;
	uint64_t *c, *c2;
	int result = 0;

	/* Collect the ops that constrain anything; intern values. */
	for (i = 0; i < g->n; i++) {
		const struct op *o = &ops[g->idx[i]];
		struct kop *kq;

		if (o->type == OP_GET && (o->res == RES_ERR || o->never))
			continue;
		kq = &k[n++];
		kq->o = o;
		kq->inv = o->inv;
		kq->inf = o->res == RES_ERR || o->never;
		kq->ret = kq->inf ? INT64_MAX : o->ret;
		kq->vid = 0;
		if (o->val) {
			for (j = 0; j < nr_vals && strcmp(vals[j], o->val); j++)
				;
			if (j == nr_vals) {
				if (!nr_vals || (nr_vals & (nr_vals - 1)) == 0)
					vals = xrealloc(vals, (nr_vals ? 2 * nr_vals
							: 1) * sizeof(*vals));
				vals[nr_vals++] = o->val;
			}
			kq->vid = j + 1;
		}
	}
	*nr_checked = n;
	qsort(k, n, sizeof(*k), cmp_kop_inv);

	ev = xmalloc((2 * (size_t)n + 1) * sizeof(*ev));
	for (i = 0; i < n; i++) {
		ev[nev++] = (struct event){ .t = k[i].inv, .op = i,
					    .is_call = 1 };
		if (!k[i].inf)
			ev[nev++] = (struct event){ .t = k[i].ret, .op = i,
						    .is_call = 0 };
	}
	qsort(ev, nev, sizeof(*ev), cmp_event);
	/* Slots needed: the most ops pending at once. */
	for (e = 0; e < nev; e++) {
		npend += ev[e].is_call ? 1 : -1;
		if (npend > nslots)
			nslots = npend;
	}
	npend = 0;
	stride = 1 + (nslots + 63) / 64;
	pend_op = xmalloc(((size_t)nslots + 1) * sizeof(*pend_op));
	free_slots = xmalloc(((size_t)nslots + 1) * sizeof(*free_slots));
	busy = xcalloc((size_t)nslots + 1, 1);
	infmask = xcalloc(stride, sizeof(uint64_t));
	for (i = 0; i < nslots; i++)
		free_slots[nfree++] = nslots - 1 - i;
	c2 = xcalloc(stride, sizeof(uint64_t));
	cset_init(&cur, stride);
	cset_init(&next, stride);
	cset_init(&seen, stride);
	memset(c2, 0, stride * sizeof(uint64_t));
	cset_add(&cur, c2);		/* absent, nothing linearized */

	for (e = 0; e < nev; e++) {
		struct kop *r = &k[ev[e].op];
		uint32_t sr;

		if (ev[e].is_call) {
			r->slot = free_slots[--nfree];
			pend_op[r->slot] = ev[e].op;
			busy[r->slot] = 1;
			if (r->inf) {
				set_bit(infmask, r->slot);
				ninf++;
			}
			npend++;
			continue;
		}
		sr = r->slot;
		cset_clear(&next);
		cset_clear(&seen);
		/* Explore from every configuration; r must end up in. */
		for (q = 0; q < cur.n; q++)
			cset_add(&seen, cur.data + q * stride);
		for (q = 0; q < seen.n; q++) {
			c = seen.data + q * stride;
			if (test_bit(c + 1, sr)) {
				memcpy(c2, c, stride * sizeof(*c2));
				clear_bit(c2 + 1, sr);
				cset_add(&next, c2);
				continue;
			}
			for (x = 0; x < nslots; x++) {
				const struct kop *kx;

				if (x == sr || test_bit(c + 1, x) ||
				    !busy[x])
					continue;
				kx = &k[pend_op[x]];
				if (kx->inf)
					continue;
				if (step(kx, (uint32_t)c[0], &ns)) {
					memcpy(c2, c, stride * sizeof(*c2));
					c2[0] = ns;
					set_bit(c2 + 1, x);
					cset_add(&seen, c2);
					c = seen.data + q * stride;
					continue;
				}
				for (u = 0; u < nslots; u++) {
					if (test_bit(c + 1, u) ||
					    !busy[u] ||
					    !k[pend_op[u]].inf ||
					    !enables(kx, &k[pend_op[u]], &ns))
						continue;
					memcpy(c2, c, stride * sizeof(*c2));
					c2[0] = ns;
					set_bit(c2 + 1, x);
					set_bit(c2 + 1, u);
					cset_add(&seen, c2);
					c = seen.data + q * stride;
					if (interchangeable(kx))
						break;
				}
			}
			/* The returning op itself, last. */
			if (step(r, (uint32_t)c[0], &ns)) {
				memcpy(c2, c, stride * sizeof(*c2));
				c2[0] = ns;
				cset_add(&next, c2);
				continue;
			}
			for (u = 0; u < nslots; u++) {
				if (test_bit(c + 1, u) ||
				    !busy[u] ||
				    !k[pend_op[u]].inf ||
				    !enables(r, &k[pend_op[u]], &ns))
					continue;
				memcpy(c2, c, stride * sizeof(*c2));
				c2[0] = ns;
				set_bit(c2 + 1, u);
				cset_add(&next, c2);
				if (interchangeable(r))
					break;
			}
			if (cset_bytes(&seen) + cset_bytes(&next) > mem_limit) {
				result = 3;
				break;
			}
		}
		if (result)
			break;
		if (seen.n > max_cfgs)
			max_cfgs = seen.n;
		if (!next.n) {
			result = 1;
			break;
		}
		if (ninf)
			prune_dominated(&next, infmask, &seen);
		/* r has returned: its slot is free again (clear in all). */
		{
			struct cset t = cur;

			cur = next;
			next = t;
		}
		free_slots[nfree++] = sr;
		busy[sr] = 0;
		npend--;
		if (nrecent == RECENT) {
			memmove(recent, recent + 1,
				(RECENT - 1) * sizeof(*recent));
			nrecent--;
		}
		recent[nrecent++] = ev[e].op;
	}

	if (result == 1) {
		const struct kop *b = &k[ev[e].op];
		uint32_t shown = 0, nskip = 0;
		char vb[80];

		printf("VIOLATION key %s: %u ops on this key cannot be "
		       "linearized\n", g->key, n);
		printf("  this op returned, but no order of the ops pending "
		       "with it lets it take effect:\n");
		print_op("    ", b->o);
		printf("  possible states just before it:");
		for (q = 0; q < cur.n && shown < 8; q++) {
			uint64_t st = cur.data[q * stride];
			size_t q2;

			for (q2 = 0; q2 < q && cur.data[q2 * stride] != st; q2++)
				;
			if (q2 < q)
				continue;
			printf(" %s", st ? show_val(vals[st - 1], vb, sizeof(vb)) :
			       "absent");
			shown++;
		}
		printf("%s\n", q < cur.n ? " ..." : "");
		printf("  last ops completed before it:%s\n",
		       nrecent ? "" : " none");
		for (i = 0; i < nrecent; i++)
			print_op("    ", k[recent[i]].o);
		printf("  other ops pending at that moment:\n");
		shown = 0;
		for (x = 0; x < nslots; x++) {
			if (x == b->slot || !busy[x])
				continue;
			if (k[pend_op[x]].inf && !enables(b, &k[pend_op[x]], &ns)) {
				nskip++;
				continue;
			}
			print_op("    ", k[pend_op[x]].o);
			shown++;
		}
		if (nskip)
			printf("    (and %u ops of unknown outcome, failed or "
			       "never returned, that cannot explain it)\n",
			       nskip);
		else if (!shown)
			printf("    none\n");
	} else if (result == 3) {
		printf("UNKNOWN key %s: configurations exceeded %zu MiB "
		       "(%u ops, %u concurrent); raise -m\n", g->key,
		       mem_limit >> 20, n, nslots);
	} else if (verbose) {
		fprintf(stderr, "key %s: %u ops linearizable (at most %zu "
			"configurations, %u concurrent)\n", g->key, n,
			max_cfgs, nslots);
	}
	cset_free(&cur);
	cset_free(&next);
	cset_free(&seen);
	free(c2);
	free(pend_op);
	free(free_slots);
	free(busy);
	free(infmask);
	free(ev);
	free(vals);
	free(k);
	return result;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: lincheck [-a] [-s] [-v] [-m MiB] [HISTORY]\n"
"Checks that a key-value history is linearizable (reads stdin without\n"
"HISTORY).  Line format:\n"
"  <client> <get|put|del> <key> <value|-> <ok|missing|err> <invoke> <return>\n"
"  -a  check every key and report every violating key\n"
"  -s  strict delete: 'del ok' requires the key to be present\n"
"  -v  per-key statistics on stderr\n"
"  -m  memo limit per key in MiB (default 4096)\n"

"Exit: 0 linearizable, 1 violation, 2 bad input or refused (spans a\n"
"clock restart), 3 search limit hit.\n");
}

int main(int argc, char **argv)
{
	size_t len, i, checked, violations = 0, unknown = 0;
	FILE *in = stdin;
	char *buf;
	int c, r;

	while ((c = getopt(argc, argv, "asvm:h")) != -1) {
		switch (c) {
		case 'a':
			check_all = 1;
			break;
		case 's':
			strict_delete = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'm': {
			char *end;
			unsigned long long mb = strtoull(optarg, &end, 10);

			if (*end || !mb || mb > (1ULL << 40)) {
				usage(stderr);
				return 2;
			}
			mem_limit = (size_t)mb << 20;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	if (optind < argc && strcmp(argv[optind], "-")) {
		in = fopen(argv[optind], "r");
		if (!in) {
			fprintf(stderr, "lincheck: %s: %s\n", argv[optind],
				strerror(errno));
			return 2;
		}
	}
	buf = read_all(in, &len);
	if (in != stdin)
		fclose(in);
	if (memchr(buf, '\0', len))
		bad_input(0, "NUL byte in the history");
	parse(buf);
	check_clients();
	group_by_key();
	for (i = 0; i < nr_groups; i++) {
		r = check_key(&groups[i], &checked);
		if (r == 1)
			violations++;
		else if (r == 3)
			unknown++;
		if (r && !check_all)
			break;
	}
	if (violations)
		return 1;
	if (unknown)
		return 3;
	printf("OK %zu %zu\n", nr_ops, nr_groups);
	return 0;
}
