// SPDX-License-Identifier: GPL-2.0
/*
 * JSON for scalioctl's saved configurations: a strict recursive-descent
 * reader (depth-limited, every error reported with its position) and an
 * indenting writer.  Configuration values are short strings, so the reader
 * favours clarity over speed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct parser {
	const char *s, *end, *p;
	char *err;
	size_t errlen;
	bool failed;
};

static void perr(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void perr(struct parser *ps, const char *fmt, ...)
{
	unsigned int line = 1, col = 1;
	const char *q;
	size_t n;
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	for (q = ps->s; q < ps->p; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	n = (size_t)snprintf(ps->err, ps->errlen, "line %u, column %u: ", line,
			     col);
	if (n >= ps->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct json *new_node(struct parser *ps, enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		perr(ps, "out of memory");
	else
		j->type = t;
	return j;
}

/* Length of the UTF-8 sequence at @s (at most @n bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = utf8_seq(u + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *d, uint32_t cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | cp >> 6);
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | cp >> 12);
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | cp >> 18);
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at ps->p (on the opening quote); returns its decoded bytes. */
static char *parse_string(struct parser *ps)
{
	const char *q;
	char *out, *d;
	size_t n;

	ps->p++;
	/* The decoded string is never longer than the source. */
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= ps->end) {
		perr(ps, "unterminated string");
		return NULL;
	}
	out = malloc((size_t)(q - ps->p) + 1);
	if (!out) {
		perr(ps, "out of memory");
		return NULL;
	}
	d = out;
	while (*ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;

		if (c < 0x20) {
			perr(ps, "control character in string");
			goto fail;
		}
		if (c >= 0x80) {
			n = utf8_seq((const unsigned char *)ps->p,
				     (size_t)(ps->end - ps->p));
			if (!n) {
				perr(ps, "invalid UTF-8 in string");
				goto fail;
			}
			memcpy(d, ps->p, n);
			d += n;
			ps->p += n;
			continue;
		}
		if (c != '\\') {
			*d++ = (char)c;
			ps->p++;
			continue;
		}
		ps->p++;
		switch (*ps->p) {
		case '"': *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '/': *d++ = '/'; break;
		case 'b': *d++ = '\b'; break;
		case 'f': *d++ = '\f'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		case 't': *d++ = '\t'; break;
		case 'u': {
			uint32_t cp, lo;

			if (ps->end - ps->p < 5 || hex4(ps->p + 1, &cp)) {
				perr(ps, "bad \\u escape");
				goto fail;
			}
			ps->p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (ps->end - ps->p < 7 || ps->p[1] != '\\' ||
				    ps->p[2] != 'u' || hex4(ps->p + 3, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff) {
					perr(ps, "unpaired surrogate in \\u escape");
					goto fail;
				}
				ps->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				perr(ps, "unpaired surrogate in \\u escape");
				goto fail;
			}
			if (!cp) {
				perr(ps, "\\u0000 is not allowed");
				goto fail;
			}
			/* A \u escape (six bytes) never decodes to more than six. */
			d += put_utf8(d, cp);
			break;
		}
		default:
			perr(ps, "bad escape '\\%c'", *ps->p);
			goto fail;
		}
		ps->p++;
	}
	ps->p++;
	*d = '\0';
	return out;
fail:
	free(out);
	return NULL;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static struct json *parse_value(struct parser *ps, int depth);

static struct json *parse_number(struct parser *ps)
{
	const char *start = ps->p;
	struct json *j;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0') {
		ps->p++;
	} else if (ps->p < ps->end && is_digit(*ps->p)) {
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	} else {
		perr(ps, "bad number");
		return NULL;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (ps->p >= ps->end || !is_digit(*ps->p)) {
			perr(ps, "bad number");
			return NULL;
		}
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || !is_digit(*ps->p)) {
			perr(ps, "bad number");
			return NULL;
		}
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	}
	j = new_node(ps, JSON_NUM);
	if (!j)
		return NULL;
	j->str = strndup(start, (size_t)(ps->p - start));
	if (!j->str) {
		free(j);
		perr(ps, "out of memory");
		return NULL;
	}
	return j;
}

/* Object or array at ps->p (on '{' or '['). */
static struct json *parse_container(struct parser *ps, int depth)
{
	bool obj = *ps->p == '{';
	char close = obj ? '}' : ']';
	struct json *j, *last = NULL, *m, *e;
	char *key = NULL;

	if (depth >= JSON_MAX_DEPTH) {
		perr(ps, "nested deeper than %d", JSON_MAX_DEPTH);
		return NULL;
	}
	j = new_node(ps, obj ? JSON_OBJ : JSON_ARR);
	if (!j)
		return NULL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return j;
	}
	for (;;) {
		skip_ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"') {
				perr(ps, "expected a member name");
				goto fail;
			}
			key = parse_string(ps);
			if (!key)
				goto fail;
			for (m = j->child; m; m = m->next)
				if (!strcmp(m->key, key)) {
					perr(ps, "duplicate member \"%s\"", key);
					goto fail;
				}
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				goto fail;
			}
			ps->p++;
		}
		e = parse_value(ps, depth + 1);
		if (!e)
			goto fail;
		e->key = key;
		key = NULL;
		if (last)
			last->next = e;
		else
			j->child = e;
		last = e;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return j;
		}
		perr(ps, "expected ',' or '%c'", close);
		goto fail;
	}
fail:
	free(key);
	json_free(j);
	return NULL;
}

static struct json *parse_literal(struct parser *ps, const char *lit,
				  enum json_type t, bool b)
{
	size_t n = strlen(lit);
	struct json *j;

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, lit, n)) {
		perr(ps, "unexpected character '%c'", *ps->p);
		return NULL;
	}
	ps->p += n;
	j = new_node(ps, t);
	if (j)
		j->b = b;
	return j;
}

static struct json *parse_value(struct parser *ps, int depth)
{
	struct json *j;
	char *s;

	skip_ws(ps);
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end of input");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
	case '[':
		return parse_container(ps, depth);
	case '"':
		s = parse_string(ps);
		if (!s)
			return NULL;
		j = new_node(ps, JSON_STR);
		if (!j) {
			free(s);
			return NULL;
		}
		j->str = s;
		return j;
	case 't':
		return parse_literal(ps, "true", JSON_BOOL, true);
	case 'f':
		return parse_literal(ps, "false", JSON_BOOL, false);
	case 'n':
		return parse_literal(ps, "null", JSON_NULL, false);
	default:
		if (*ps->p == '-' || is_digit(*ps->p))
			return parse_number(ps);
		perr(ps, "unexpected character '%c'", *ps->p);
		return NULL;
	}
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps = {
		.s = text, .end = text + len, .p = text,
		.err = err, .errlen = errlen,
	};
	struct json *j;

	if (errlen)
		err[0] = '\0';
	if (memchr(text, '\0', len)) {
		ps.p = memchr(text, '\0', len);
		perr(&ps, "NUL byte in input");
		return NULL;
	}
	j = parse_value(&ps, 0);
	if (!j)
		return NULL;
	skip_ws(&ps);
	if (ps.p != ps.end) {
		perr(&ps, "trailing characters after the value");
		json_free(j);
		return NULL;
	}
	return j;
}

void json_free(struct json *j)
{
	while (j) {
		struct json *next = j->next;

		json_free(j->child);
		free(j->key);
		free(j->str);
		free(j);
		j = next;
	}
}

const struct json *json_get(const struct json *obj, const char *key)
{
	const struct json *m;

	if (!obj || obj->type != JSON_OBJ)
		return NULL;
	for (m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

size_t json_len(const struct json *j)
{
	const struct json *e;
	size_t n = 0;

	if (!j || (j->type != JSON_ARR && j->type != JSON_OBJ))
		return 0;
	for (e = j->child; e; e = e->next)
		n++;
	return n;
}

int json_u32(const struct json *j, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!j || j->type != JSON_NUM || !is_digit(j->str[0]) ||
	    (j->str[0] == '0' && j->str[1]))
		return -EINVAL;
	errno = 0;
	v = strtoull(j->str, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* ---- writer ---- */

void jw_init(struct json_writer *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->first = true;
	w->err = 0;
}

static void jw_quoted(struct json_writer *w, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!utf8_valid(s, strlen(s))) {
		if (!w->err)
			w->err = -EILSEQ;
		fputs("\"\"", w->f);
		return;
	}
	fputc('"', w->f);
	for (; *u; u++) {
		switch (*u) {
		case '"': fputs("\\\"", w->f); break;
		case '\\': fputs("\\\\", w->f); break;
		case '\n': fputs("\\n", w->f); break;
		case '\t': fputs("\\t", w->f); break;
		case '\r': fputs("\\r", w->f); break;
		default:
			if (*u < 0x20)
				fprintf(w->f, "\\u%04x", *u);
			else
				fputc(*u, w->f);
		}
	}
	fputc('"', w->f);
}

/* Separator, newline and indentation before a value, then its key. */
static void jw_item(struct json_writer *w, const char *key)
{
	if (w->depth) {
		fputs(w->first ? "\n" : ",\n", w->f);
		fprintf(w->f, "%*s", 2 * w->depth, "");
	}
	w->first = false;
	if (key) {
		jw_quoted(w, key);
		fputs(": ", w->f);
	}
}

static void jw_open(struct json_writer *w, const char *key, char c)
{
	jw_item(w, key);
	fputc(c, w->f);
	w->depth++;
	w->first = true;
}

static void jw_close(struct json_writer *w, char c)
{
	w->depth--;
	if (!w->first)
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	fputc(c, w->f);
	w->first = false;
}

void jw_obj_begin(struct json_writer *w, const char *key)
{
	jw_open(w, key, '{');
}

void jw_obj_end(struct json_writer *w)
{
	jw_close(w, '}');
}

void jw_arr_begin(struct json_writer *w, const char *key)
{
	jw_open(w, key, '[');
}

void jw_arr_end(struct json_writer *w)
{
	jw_close(w, ']');
}

void jw_str(struct json_writer *w, const char *key, const char *val)
{
	jw_item(w, key);
	jw_quoted(w, val);
}

void jw_uint(struct json_writer *w, const char *key, uint64_t val)
{
	jw_item(w, key);
	fprintf(w->f, "%" PRIu64, val);
}

int jw_finish(struct json_writer *w)
{
	fputc('\n', w->f);
	if (fflush(w->f) || ferror(w->f))
		return w->err ? w->err : -EIO;
	return w->err;
}
