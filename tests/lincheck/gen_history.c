// SPDX-License-Identifier: GPL-2.0
/*
 * gen_history - random key-value histories for testing lincheck.
 *
 * Simulates clients running sequential ops on an atomic map: every op gets
 * a linearization point inside its [invoke, return] interval, results are
 * computed by applying the ops in linearization-point order, so the
 * history is linearizable by construction.  Failed ops (-e) report "err"
 * and take effect or not at random.  With -b the history is then broken:
 * one successful get is made to return a value never written to its key,
 * which no linearization can explain.  With -l MAX, values are padded to
 * a length from 0 to MAX bytes fixed by the value (as scalio_lin's values
 * up to 4096 bytes), the empty value written as '%'.
 *
 * usage: gen_history [-n ops] [-c clients] [-k keys] [-s seed] [-e pct]
 *                    [-d pct deletes] [-l max value length] [-b]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gop {
	int client, type, key, res, effect;
	long val;
	int64_t inv, lin, ret;
};

static uint64_t rs = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static int cmp_lin(const void *a, const void *b)
{
	const struct gop *x = *(struct gop * const *)a;
	const struct gop *y = *(struct gop * const *)b;

	return x->lin < y->lin ? -1 : x->lin > y->lin;
}

/* Value @v padded to its own length in 0..@max; '%' for the empty one. */
static void print_val(long v, int max)
{
	char tag[24];
	int len, n, i;

	n = snprintf(tag, sizeof(tag), "v%ld", v);
	if (!max) {
		fputs(tag, stdout);
		return;
	}
	if (v % 16 == 0) {
		putchar('%');	/* empty: so empty values repeat */
		return;
	}
	/* half short (slot-sized, up to 72), half up to @max */
	len = (int)((uint64_t)v * 2654435761ULL % 4099);
	len = v % 2 || max <= 72 ? len % (max < 72 ? max + 1 : 73) :
	      73 + len % (max - 72);
	fputs(tag, stdout);
	for (i = n; i < len; i++)
		putchar('a' + (int)((v + i) % 26));
}

static int cmp_inv(const void *a, const void *b)
{
	const struct gop *x = a, *y = b;

	return x->inv < y->inv ? -1 : x->inv > y->inv;
}

int main(int argc, char **argv)
{
	long n = 1000, i, nvals = 0;
	int clients = 4, keys = 1, err_pct = 0, del_pct = 10, brk = 0, c;
	int max_len = 0;
	struct gop *g, **byl;
	int64_t *tc;
	long *state;

	while ((c = getopt(argc, argv, "n:c:k:s:e:d:l:b")) != -1) {
		switch (c) {
		case 'n': n = atol(optarg); break;
		case 'c': clients = atoi(optarg); break;
		case 'k': keys = atoi(optarg); break;
		case 's': rs = strtoull(optarg, NULL, 0) * 2654435761ULL + 1; break;
		case 'e': err_pct = atoi(optarg); break;
		case 'd': del_pct = atoi(optarg); break;
		case 'l': max_len = atoi(optarg); break;
		case 'b': brk = 1; break;
		default:
			fprintf(stderr, "usage: gen_history [-n ops] [-c clients]"
				" [-k keys] [-s seed] [-e pct] [-d pct] [-l len] [-b]\n");
			return 2;
		}
	}
	if (n < 1 || clients < 1 || keys < 1)
		return 2;
	g = calloc((size_t)n, sizeof(*g));
	byl = calloc((size_t)n, sizeof(*byl));
	tc = calloc((size_t)clients, sizeof(*tc));
	state = calloc((size_t)keys, sizeof(*state));	/* 0 = absent */
	if (!g || !byl || !tc || !state)
		return 3;
	for (i = 0; i < n; i++) {
		struct gop *o = &g[i];
		int r = (int)(rnd() % 100);

		o->client = (int)(rnd() % (uint64_t)clients);
		o->key = (int)(rnd() % (uint64_t)keys);
		o->type = r < del_pct ? 2 : (r < del_pct + 45 ? 1 : 0);
		o->inv = tc[o->client] + (int64_t)(rnd() % 5);
		o->lin = o->inv + 1 + (int64_t)(rnd() % 20);
		o->ret = o->lin + 1 + (int64_t)(rnd() % 20);
		/* Distinct lin points: scale and add the op number. */
		o->inv = o->inv * n * 4;
		o->lin = o->lin * n * 4 + i;
		o->ret = o->ret * n * 4 + 2 * n;
		tc[o->client] = o->ret / (n * 4) + 1;
		o->effect = 1;
		o->res = 0;
		if (o->type && (int)(rnd() % 100) < err_pct) {
			o->res = 2;
			o->effect = (int)(rnd() % 2);
		}
		if (o->type == 1)
			o->val = ++nvals;
		byl[i] = o;
	}
	qsort(byl, (size_t)n, sizeof(*byl), cmp_lin);
	for (i = 0; i < n; i++) {
		struct gop *o = byl[i];

		if (o->type == 0) {
			o->val = state[o->key];
			o->res = o->val ? 0 : 1;
		} else if (o->effect) {
			if (o->type == 2 && o->res == 0 && !state[o->key])
				o->res = 1;	/* del of an absent key */
			state[o->key] = o->type == 1 ? o->val : 0;
		}
	}
	if (brk) {
		for (i = n / 2; i < n; i++)
			if (g[i].type == 0 && g[i].res == 0)
				break;
		if (i == n) {
			for (i = 0; i < n && g[i].type != 0; i++)
				;
		}
		if (i < n) {
			g[i].res = 0;
			g[i].val = nvals + 1000;	/* never written */
		}
	}
	qsort(g, (size_t)n, sizeof(*g), cmp_inv);
	for (i = 0; i < n; i++) {
		struct gop *o = &g[i];
		static const char *const t[] = { "get", "put", "del" };
		static const char *const r[] = { "ok", "missing", "err" };

		printf("c%d %s k%d ", o->client, t[o->type], o->key);
		if (o->type == 1 || (o->type == 0 && o->res == 0))
			/* the -b value stays unpadded: never '%' */
			print_val(o->val, o->val > nvals ? 0 : max_len);
		else
			printf("-");
		printf(" %s %lld %lld\n", r[o->res], (long long)o->inv,
		       (long long)o->ret);
	}
	return 0;
}
