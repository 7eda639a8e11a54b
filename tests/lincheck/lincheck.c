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
 * Blank lines and lines starting with '#' are ignored.  Keys and values
 * are opaque tokens compared as written (history.c escapes bytes).
 *
 * Semantics (a register per key, initially absent):
 *   get ok V       the state is V            get missing   the state is absent
 *   put ok V       state := V                del ok        state := absent
 *   del missing    the state is absent (nothing deleted)
 *   put/del err    outcome unknown: may take effect at any time after its
 *                  invoke, or never (its return time is taken as infinity)
 *   get err        constrains nothing; ignored
 * With -s (strict delete), "del ok" also requires the key to be present.
 *
 * A key-value map is linearizable iff every key's history is (Herlihy and
 * Wing's locality / P-compositionality), so keys are checked one by one with
 * Wing & Gong's search as improved by Lowe: depth-first over the next
 * operation to linearize, memoizing every (set of linearized ops, state)
 * already explored.  The set is encoded compactly: ops are numbered in
 * invoke order, and the set is stored as the length of its fully linearized
 * prefix plus a bitmap of the window after it (bounded by the concurrency),
 * plus a bitmap of the unknown-outcome ops.  Several thousand ops per key
 * check in milliseconds.
 *
 * Exit: 0 linearizable ("OK <ops> <keys>"), 1 violation (the first
 * violating key with an explanation), 2 bad input, 3 search limit hit.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
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
	int64_t inv, ret;	/* ret as given (not made infinite) */
	unsigned char type, res;
};

/* Options. */
static int strict_delete;
static int check_all;
static int verbose;
static size_t mem_limit = (size_t)4 << 30;	/* bytes of memo per key */

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

#include <stdarg.h>
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
		o->ret = parse_ts(tok[6], line, "return");
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

		if (!strcmp(a->client, b->client) && b->inv < a->ret)
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
	uint32_t slot;		/* finite: index in invoke order; else err bit */
	int inf;		/* unknown outcome (err put/del) */
};

struct entry {
	struct entry *prev, *next;
	struct entry *match;	/* call: its return entry */
	int64_t t;
	uint32_t op;		/* index in kops */
	int is_call;
};

struct frame {
	struct entry *call;	/* the op linearized */
	struct entry *partner;	/* unknown-outcome op taken just before it */
	uint32_t state;		/* state before both */
	uint32_t max_fin;	/* largest finite slot linearized + 1 */
	uint32_t prefix;	/* fully linearized prefix before both */
};

/* Memo: open-addressing set of variable-length uint64_t records. */
struct memo {
	uint64_t *arena;
	size_t arena_len, arena_cap;
	size_t *slots;		/* arena offset + 1, 0 = empty */
	uint64_t *hashes;
	size_t nr, cap;
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

static void memo_grow(struct memo *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1 << 12, i, h;
	size_t *ns = xcalloc(ncap, sizeof(*ns));
	uint64_t *nh = xmalloc(ncap * sizeof(*nh));

	for (i = 0; i < m->cap; i++) {
		if (!m->slots[i])
			continue;
		h = m->hashes[i] & (ncap - 1);
		while (ns[h])
			h = (h + 1) & (ncap - 1);
		ns[h] = m->slots[i];
		nh[h] = m->hashes[i];
	}
	free(m->slots);
	free(m->hashes);
	m->slots = ns;
	m->hashes = nh;
	m->cap = ncap;
}

/* Returns 1 if @w (n words; w[0] holds n) was new and is now stored. */
static int memo_insert(struct memo *m, const uint64_t *w, size_t n)
{
	uint64_t hv = hash_words(w, n);
	size_t h;

	if ((m->nr + 1) * 2 > m->cap)
		memo_grow(m);
	h = hv & (m->cap - 1);
	while (m->slots[h]) {
		const uint64_t *o = m->arena + m->slots[h] - 1;

		if (m->hashes[h] == hv && o[0] == w[0] &&
		    !memcmp(o, w, n * sizeof(*w)))
			return 0;
		h = (h + 1) & (m->cap - 1);
	}
	if (m->arena_len + n > m->arena_cap) {
		m->arena_cap = m->arena_cap ? m->arena_cap * 2 : 1 << 16;
		while (m->arena_len + n > m->arena_cap)
			m->arena_cap *= 2;
		m->arena = xrealloc(m->arena, m->arena_cap * sizeof(uint64_t));
	}
	memcpy(m->arena + m->arena_len, w, n * sizeof(*w));
	m->slots[h] = m->arena_len + 1;
	m->hashes[h] = hv;
	m->arena_len += n;
	m->nr++;
	return 1;
}

static size_t memo_bytes(const struct memo *m)
{
	return m->arena_cap * sizeof(uint64_t) +
	       m->cap * (sizeof(size_t) + sizeof(uint64_t));
}

static void memo_free(struct memo *m)
{
	free(m->arena);
	free(m->slots);
	free(m->hashes);
	memset(m, 0, sizeof(*m));
}

static int cmp_kop_inv(const void *a, const void *b)
{
	const struct kop *x = a, *y = b;

	if (x->inv != y->inv)
		return x->inv < y->inv ? -1 : 1;
	return x->o->line < y->o->line ? -1 : x->o->line > y->o->line;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

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
 * @k run in @state?  Sets the state after both.
 *
 * Unknown-outcome ops are never linearized on their own: in any
 * linearization, the op right after an unknown-outcome write either
 * overwrites its effect (then the write can be dropped: it had no
 * observer) or observes it.  So it suffices to try each such write
 * immediately before an op that needs its effect: a get of its value or a
 * strict delete (after a put), a 'missing' result (after a del).  This
 * keeps failed writes from multiplying the search space.
 */
static int enables(const struct kop *k, const struct kop *u, uint32_t state,
		   uint32_t *next)
{
	const struct op *o = k->o;

	(void)state;
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
	/* u is a del */
	if ((o->type == OP_GET || o->type == OP_DEL) &&
	    o->res == RES_MISSING) {
		*next = 0;
		return 1;
	}
	return 0;
}

static void print_op(const char *indent, const struct op *o)
{
	printf("%sline %ld: %s %s %s %s %s %" PRId64 " %" PRId64 "%s\n", indent,
	       o->line, o->client, op_names[o->type], o->key,
	       o->val ? o->val : "-", res_names[o->res], o->inv, o->ret,
	       o->res == RES_ERR ? "  (outcome unknown)" : "");
}

static void lift(struct entry *call)
{
	struct entry *ret = call->match;

	call->prev->next = call->next;
	if (call->next)
		call->next->prev = call->prev;
	ret->prev->next = ret->next;
	if (ret->next)
		ret->next->prev = ret->prev;
}

static void unlift(struct entry *call)
{
	struct entry *ret = call->match;

	ret->prev->next = ret;
	if (ret->next)
		ret->next->prev = ret;
	call->prev->next = call;
	if (call->next)
		call->next->prev = call;
}

/* State of the search over one key. */
struct search {
	const struct kop *k;
	uint32_t nf;			/* ops with a known outcome */
	uint64_t *fin_bits;		/* linearized, by slot */
	uint64_t *inf_bits;		/* unknown-outcome ops taken */
	size_t inf_words;
	uint64_t *rec;			/* memo record being built */
	uint32_t prefix;		/* slots [0, prefix) all linearized */
	struct frame *stack;
	size_t depth;
	struct memo memo;
	int over_limit;
};

static void set_op(struct search *s, uint32_t op)
{
	const struct kop *q = &s->k[op];
	uint64_t *bits = q->inf ? s->inf_bits : s->fin_bits;

	bits[q->slot / 64] |= 1ULL << (q->slot % 64);
}

static void clear_op(struct search *s, uint32_t op)
{
	const struct kop *q = &s->k[op];
	uint64_t *bits = q->inf ? s->inf_bits : s->fin_bits;

	bits[q->slot / 64] &= ~(1ULL << (q->slot % 64));
}

/*
 * try_push - linearize @call (after @partner, if any) reaching state @ns,
 * unless that (set, state) was explored already.  Returns 1 if it went
 * one level deeper.
 */
static int try_push(struct search *s, struct entry *call,
		    struct entry *partner, uint32_t state, uint32_t ns)
{
	const struct kop *q = &s->k[call->op];
	uint32_t max_fin = s->depth ? s->stack[s->depth - 1].max_fin : 0;
	uint32_t np = s->prefix;
	size_t nw = 3, w;

	set_op(s, call->op);
	if (partner)
		set_op(s, partner->op);
	if (q->slot + 1 > max_fin)
		max_fin = q->slot + 1;
	while (np < s->nf && (s->fin_bits[np / 64] >> (np % 64) & 1))
		np++;
	/*
	 * Record: [length, prefix, state, window words, unknown-outcome
	 * words].  Bits below the prefix are all set and left out; the window
	 * ends at the largest linearized slot.
	 */
	s->rec[1] = np;
	s->rec[2] = ns;
	if (np < max_fin)
		for (w = np / 64; w <= (max_fin - 1) / 64; w++)
			s->rec[nw++] = s->fin_bits[w];
	for (w = 0; w < s->inf_words; w++)
		s->rec[nw++] = s->inf_bits[w];
	s->rec[0] = nw;
	if (!memo_insert(&s->memo, s->rec, nw)) {
		clear_op(s, call->op);
		if (partner)
			clear_op(s, partner->op);
		return 0;
	}
	if (memo_bytes(&s->memo) > mem_limit)
		s->over_limit = 1;
	s->stack[s->depth] = (struct frame){
		.call = call, .partner = partner, .state = state,
		.max_fin = max_fin, .prefix = s->prefix,
	};
	s->depth++;
	s->prefix = np;
	if (partner)
		lift(partner);
	lift(call);
	return 1;
}

/*
 * check_key - search for a linearization of one key's ops.
 * Returns 0 (linearizable), 1 (violation, explained on stdout) or 3
 * (memo limit exceeded).
 */
static int check_key(const struct key_group *g, size_t *nr_checked)
{
	struct kop *k = xmalloc(g->n * sizeof(*k));
	const char **vals = NULL;
	uint32_t nr_vals = 0, n = 0, nf = 0, ni = 0, i, j, done_fin = 0;
	struct entry *ent, head, *e, *resume = NULL;
	size_t best_depth = 0, best_len = 0, fin_words;
	uint32_t *best_seq = NULL, best_block = 0, best_state = 0;
	uint32_t state = 0, ns;
	struct search ctx = { 0 };
	int result = 0, have_best = 0;

	/* Collect the ops that constrain anything; intern values. */
	for (i = 0; i < g->n; i++) {
		const struct op *o = &ops[g->idx[i]];
		struct kop *q;

		if (o->type == OP_GET && o->res == RES_ERR)
			continue;
		q = &k[n++];
		q->o = o;
		q->inv = o->inv;
		q->inf = o->res == RES_ERR;
		q->ret = q->inf ? INT64_MAX : o->ret;
		q->vid = 0;
		if (o->val) {
			for (j = 0; j < nr_vals && strcmp(vals[j], o->val); j++)
				;
			if (j == nr_vals) {
				if (!nr_vals || (nr_vals & (nr_vals - 1)) == 0)
					vals = xrealloc(vals, (nr_vals ? 2 * nr_vals
							: 1) * sizeof(*vals));
				vals[nr_vals++] = o->val;
			}
			q->vid = j + 1;
		}
	}
	*nr_checked = n;
	qsort(k, n, sizeof(*k), cmp_kop_inv);
	for (i = 0; i < n; i++)
		k[i].slot = k[i].inf ? ni++ : nf++;

	ent = xmalloc((2 * (size_t)n + 1) * sizeof(*ent));
	for (i = 0; i < n; i++) {
		ent[2 * i] = (struct entry){ .t = k[i].inv, .op = i,
					     .is_call = 1 };
		ent[2 * i + 1] = (struct entry){ .t = k[i].ret, .op = i,
						 .is_call = 0 };
	}
	qsort(ent, 2 * (size_t)n, sizeof(*ent), cmp_entry);
	{
		/* Link calls to returns (positions moved in the sort). */
		uint32_t *retpos = xmalloc(((size_t)n + 1) * sizeof(*retpos));

		for (i = 0; i < 2 * n; i++)
			if (!ent[i].is_call)
				retpos[ent[i].op] = i;
		for (i = 0; i < 2 * n; i++) {
			if (ent[i].is_call)
				ent[i].match = &ent[retpos[ent[i].op]];
			ent[i].prev = i ? &ent[i - 1] : &head;
			ent[i].next = i + 1 < 2 * n ? &ent[i + 1] : NULL;
		}
		free(retpos);
	}
	head.next = n ? &ent[0] : NULL;
	head.prev = NULL;

	fin_words = (nf + 63) / 64;
	ctx.k = k;
	ctx.nf = nf;
	ctx.inf_words = (ni + 63) / 64;
	ctx.fin_bits = xcalloc(fin_words + 1, sizeof(uint64_t));
	ctx.inf_bits = xcalloc(ctx.inf_words + 1, sizeof(uint64_t));
	ctx.rec = xmalloc((fin_words + ctx.inf_words + 4) * sizeof(uint64_t));
	ctx.stack = xmalloc(((size_t)n + 1) * sizeof(*ctx.stack));

	e = head.next;
	while (done_fin < nf) {
		if (!e) {		/* unreachable: a return entry is left */
			result = 1;
			break;
		}
		if (e->is_call) {
			const struct kop *q = &k[e->op];
			struct entry *c;

			if (q->inf) {	/* only ever taken with an observer */
				e = e->next;
				resume = NULL;
				continue;
			}
			if (!resume && step(q, state, &ns)) {
				/*
				 * Runs on its own; consuming an unknown-outcome
				 * op as well could only remove options later.
				 */
				if (!try_push(&ctx, e, NULL, state, ns)) {
					e = e->next;
					continue;
				}
				state = ns;
				done_fin++;
				if (ctx.over_limit) {
					result = 3;
					break;
				}
				e = head.next;
				continue;
			}
			/*
			 * Needs an unknown-outcome op to take effect just
			 * before it: try each one that is pending now (its
			 * call lies before the first return in the list).
			 */
			c = resume ? resume->next : head.next;
			resume = NULL;
			for (; c && c->is_call; c = c->next) {
				if (!k[c->op].inf || !enables(q, &k[c->op], state,
							      &ns))
					continue;
				if (try_push(&ctx, e, c, state, ns)) {
					state = ns;
					done_fin++;
					break;
				}
			}
			if (ctx.over_limit) {
				result = 3;
				break;
			}
			if (c && c->is_call) {
				e = head.next;
				continue;
			}
			e = e->next;
		} else {
			struct frame *f;

			/* An op must have taken effect by now and cannot. */
			if (!have_best || ctx.depth > best_depth) {
				have_best = 1;
				best_depth = ctx.depth;
				best_len = 0;
				best_seq = xrealloc(best_seq, (2 * ctx.depth + 1) *
						    sizeof(*best_seq));
				for (i = 0; i < ctx.depth; i++) {
					f = &ctx.stack[i];
					if (f->partner)
						best_seq[best_len++] =
							f->partner->op;
					best_seq[best_len++] = f->call->op;
				}
				best_block = e->op;
				best_state = state;
			}
			if (!ctx.depth) {
				result = 1;
				break;
			}
			f = &ctx.stack[--ctx.depth];
			clear_op(&ctx, f->call->op);
			if (f->partner)
				clear_op(&ctx, f->partner->op);
			state = f->state;
			ctx.prefix = f->prefix;
			unlift(f->call);
			if (f->partner)
				unlift(f->partner);
			done_fin--;
			if (f->partner) {
				/* Same op, with the next candidate partner. */
				e = f->call;
				resume = f->partner;
			} else {
				e = f->call->next;
				resume = NULL;
			}
		}
	}

	if (result == 1) {
		const struct kop *b = &k[best_block];
		size_t from = best_len > 8 ? best_len - 8 : 0;

		printf("VIOLATION key %s: %u ops on this key cannot be "
		       "linearized\n", g->key, n);
		printf("  longest linearizable prefix: %zu of %u ops%s\n",
		       best_len, n, best_len ? ", ending with:" : "");
		for (i = from; i < best_len; i++)
			print_op("    ", k[best_seq[i]].o);
		printf("  state after it: %s\n",
		       best_state ? vals[best_state - 1] : "absent");
		printf("  then this op must take effect (it has returned) but "
		       "cannot:\n");
		print_op("    ", b->o);
		printf("  ops overlapping it that are not yet linearized:\n");
		for (i = 0; i < n; i++) {
			int done = 0;

			if (i == best_block)
				continue;
			for (j = 0; j < best_len; j++)
				if (best_seq[j] == i)
					done = 1;
			if (!done && k[i].inv <= b->ret && k[i].ret >= b->inv)
				print_op("    ", k[i].o);
		}
	} else if (result == 3) {
		printf("UNKNOWN key %s: search memo exceeded %zu MiB after "
		       "%zu states (%u ops); raise -m\n", g->key,
		       mem_limit >> 20, ctx.memo.nr, n);
	} else if (verbose) {
		fprintf(stderr, "key %s: %u ops linearizable (%zu states)\n",
			g->key, n, ctx.memo.nr);
	}
	memo_free(&ctx.memo);
	free(best_seq);
	free(ctx.stack);
	free(ctx.rec);
	free(ctx.fin_bits);
	free(ctx.inf_bits);
	free(ent);
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
"Exit: 0 linearizable, 1 violation, 2 bad input, 3 search limit hit.\n");
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
