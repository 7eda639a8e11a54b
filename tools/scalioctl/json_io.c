// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl's JSON in and out, on json-c (the library nvme-cli uses).
 *
 * json-c parses and prints; what it lets through in JSON_TOKENER_STRICT
 * mode but RFC 8259 does not (duplicate member names, which it silently
 * collapses to the last; single-quoted strings; raw control characters
 * in strings; NaN and Infinity; "1."; unpaired surrogate escapes, which it
 * turns into U+FFFD; overlong or surrogate UTF-8), and \u0000, which no
 * configfs name or value can hold, are refused by json_strict() and
 * utf8_invalid() on the text json-c has accepted: a saved configuration
 * is read back exactly as written or not at all.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "scalioctl.h"

#define JSON_MAX_DEPTH	32

/* A member name seen in the object being scanned. */
struct jkeys {
	char	**v;
	int	n;
	bool	obj;		/* an object, not an array */
	bool	want_key;	/* the next string is a member name */
};

static void jkeys_free(struct jkeys *k)
{
	while (k->n > 0)
		free(k->v[--k->n]);
	free(k->v);
	k->v = NULL;
}

/*
 * The member name of the string token at @s (@len bytes with its quotes),
 * decoded by json-c so that "a" and "\u0061" compare equal.
 */
static char *decode_name(const char *s, size_t len)
{
	struct json_object *j;
	char *tok, *name;

	tok = strndup(s, len);
	if (!tok)
		return NULL;
	j = json_tokener_parse(tok);
	free(tok);
	name = json_object_is_type(j, json_type_string) ?
	       strdup(json_object_get_string(j)) : NULL;
	json_object_put(j);
	return name;
}

/* The value of the 4 hex digits at @s, or -1. */
static long hex4(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/*
 * Past the string token starting at @s[@i] (a quote), or what is wrong
 * in it (json-c turns an unpaired surrogate escape into U+FFFD).
 */
static const char *scan_string(const char *s, size_t len, size_t *i)
{
	long u, lo;

	for ((*i)++; *i < len && s[*i] != '"'; (*i)++) {
		if ((unsigned char)s[*i] < 0x20)
			return "a control character in a string";
		if (s[*i] != '\\')
			continue;
		(*i)++;
		if (s[*i] != 'u' || *i + 4 >= len)
			continue;
		u = hex4(s + *i + 1);
		if (u == 0)
			return "\\u0000 in a string";
		if (u >= 0xdc00 && u <= 0xdfff)
			return "an unpaired surrogate escape";
		if (u < 0xd800 || u > 0xdbff)
			continue;
		lo = *i + 10 < len && s[*i + 5] == '\\' && s[*i + 6] == 'u' ?
		     hex4(s + *i + 7) : -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return "an unpaired surrogate escape";
		*i += 6;
	}
	(*i)++;
	return NULL;
}

/**
 * utf8_invalid() - where @s is not UTF-8 (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), decoded by the C library
 * @s:		text
 * @len:	its length
 *
 * json-c's JSON_TOKENER_VALIDATE_UTF8 lets overlong forms and encoded
 * surrogates through.
 *
 * Return: the offset of the first invalid sequence, or @len.
 */
static size_t utf8_invalid(const char *s, size_t len)
{
	locale_t utf8, old;
	mbstate_t st;
	size_t i = 0, r;
	wchar_t w;

	utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (!utf8)
		return 0;	/* no decoder: refuse rather than guess */
	old = uselocale(utf8);
	memset(&st, 0, sizeof(st));
	while (i < len) {
		r = mbrtowc(&w, s + i, len - i, &st);
		if (r == (size_t)-1 || r == (size_t)-2 || w > 0x10ffff)
			break;
		i += r ? r : 1;
	}
	uselocale(old);
	freelocale(utf8);
	return i;
}

/**
 * json_strict() - refuse what json-c accepted but RFC 8259 does not
 * @s:		a text json-c parsed without error
 * @len:	its length
 * @off:	set to the offset of the problem
 *
 * Return: NULL, or what is wrong.
 */
static const char *json_strict(const char *s, size_t len, size_t *off)
{
	static const char *const literals[] = { "true", "false", "null" };
	struct jkeys st[JSON_MAX_DEPTH + 1];
	const char *what = NULL;
	int depth = -1;
	size_t i = 0, k;

	while (i < len && !what) {
		char c = s[i];

		*off = i;
		if (c == '{' || c == '[') {
			if (++depth > JSON_MAX_DEPTH) {
				what = "nested too deeply";
				depth--;
				break;
			}
			st[depth] = (struct jkeys){ .obj = c == '{',
						    .want_key = c == '{' };
			i++;
		} else if (c == '}' || c == ']') {
			if (depth >= 0)
				jkeys_free(&st[depth--]);
			i++;
		} else if (c == ',') {
			if (depth >= 0 && st[depth].obj)
				st[depth].want_key = true;
			i++;
		} else if (c == '"') {
			size_t start = i;
			struct jkeys *o = depth >= 0 ? &st[depth] : NULL;
			char **nv, *name;

			what = scan_string(s, len, &i);
			if (what || !o || !o->obj || !o->want_key)
				continue;
			o->want_key = false;
			name = decode_name(s + start, i - start);
			if (!name) {
				what = "out of memory";
				continue;
			}
			for (k = 0; k < (size_t)o->n; k++)
				if (!strcmp(o->v[k], name))
					break;
			nv = k == (size_t)o->n ?
			     realloc(o->v, (k + 1) * sizeof(*nv)) : NULL;
			if (!nv) {
				what = k < (size_t)o->n ? "duplicate member name" :
				       "out of memory";
				free(name);
				continue;
			}
			o->v = nv;
			o->v[o->n++] = name;
		} else if (c == '\'') {
			what = "a single-quoted string";
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			for (k = 0; k < 3; k++)
				if (!strncmp(s + i, literals[k], strlen(literals[k])))
					break;
			if (k == 3)
				what = "not a JSON literal (NaN, Infinity?)";
			else
				i += strlen(literals[k]);
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			for (i++; i < len && strchr("0123456789.eE+-", s[i]); i++)
				if (s[i] == '.' && (i + 1 >= len || s[i + 1] < '0' ||
						    s[i + 1] > '9'))
					what = "a number ends in '.'";
		} else {
			i++;
		}
	}
	while (depth >= 0)
		jkeys_free(&st[depth--]);
	return what;
}

/* "line L, column C" of offset @off in @s. */
static void where(const char *s, size_t off, char *buf, size_t len)
{
	unsigned int line = 1, col = 1;
	size_t i;

	for (i = 0; i < off; i++) {
		if (s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(buf, len, "line %u, column %u", line, col);
}

/**
 * json_read_text() - parse one strict JSON document
 * @text:	the document
 * @len:	its length
 * @name:	where it comes from, for the message
 *
 * Exactly one value, white space around it allowed, at most
 * JSON_MAX_DEPTH levels, valid UTF-8, nothing json_strict() refuses.
 *
 * Return: the tree (json_object_put() it), or NULL after saying
 * "NAME: not valid JSON: line L, column C: what".
 */
struct json_object *json_read_text(const char *text, size_t len,
				   const char *name)
{
	struct json_tokener *tok;
	struct json_object *j = NULL;
	enum json_tokener_error e;
	const char *what = NULL;
	char pos[64];
	size_t off = 0;

	tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!tok) {
		err_msg("out of memory");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       JSON_TOKENER_VALIDATE_UTF8);
	/* json-c takes an int length; files are read up to 16 MiB. */
	j = json_tokener_parse_ex(tok, text, len > INT32_MAX ? -1 : (int)len);
	e = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	if (len > INT32_MAX)
		what = "too large";
	else if (e == json_tokener_continue || (!j && e == json_tokener_success))
		what = "unexpected end of the text";
	else if (e == json_tokener_error_parse_utf8_string)
		what = "invalid UTF-8";
	else if (e != json_tokener_success)
		what = json_tokener_error_desc(e);
	else if (memchr(text, '\0', len))
		what = "a NUL byte";
	if (!what) {
		off = utf8_invalid(text, len);
		what = off < len ? "invalid UTF-8" : json_strict(text, len, &off);
	}
	json_tokener_free(tok);
	if (what) {
		json_object_put(j);
		where(text, off, pos, sizeof(pos));
		err_msg("%s: not valid JSON: %s: %s", name, pos, what);
		return NULL;
	}
	return j;
}

/**
 * json_write() - print a document, with a final newline
 * @f:		output
 * @root:	the document (not freed)
 * @pretty:	indented, one member per line; else one line
 *
 * A string that is not valid UTF-8 (json-c copies bytes as they are) is
 * refused, not written.
 *
 * Return: 0, -EILSEQ (invalid UTF-8, nothing written) or -EIO.
 */
int json_write(FILE *f, struct json_object *root, bool pretty)
{
	int flags = JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *s;
	size_t len;

	if (pretty)
		flags |= JSON_C_TO_STRING_PRETTY;
	s = json_object_to_json_string_length(root, flags, &len);
	if (!s)
		return -ENOMEM;
	if (utf8_invalid(s, len) < len)
		return -EILSEQ;
	if (fwrite(s, 1, len, f) != len || fputc('\n', f) == EOF ||
	    fflush(f))
		return -EIO;
	return 0;
}

/* The text of a JSON string, NULL if @j is none (or holds a NUL). */
const char *json_str(struct json_object *j)
{
	const char *s;

	if (!json_object_is_type(j, json_type_string))
		return NULL;
	s = json_object_get_string(j);
	return strlen(s) == (size_t)json_object_get_string_len(j) ? s : NULL;
}

/* Member @key of object @obj, or NULL (also when @obj is no object). */
struct json_object *json_get(struct json_object *obj, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(obj, key, &v) ? v : NULL;
}

/**
 * json_u32() - a JSON integer in [0, @max]
 *
 * Return: 0 with *@out set, or -EINVAL (no integer, negative, too large).
 */
int json_u32(struct json_object *j, uint32_t max, uint32_t *out)
{
	int64_t v;

	if (!json_object_is_type(j, json_type_int))
		return -EINVAL;
	errno = 0;
	v = json_object_get_int64(j);
	if (v < 0 || (uint64_t)v > max || errno)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* @o, or exit: json-c returns NULL only when out of memory. */
struct json_object *jx(struct json_object *o)
{
	if (!o) {
		err_msg("out of memory");
		exit(EXIT_FAIL);
	}
	return o;
}

/* Add @v to @parent: as member @key of an object, or to an array. */
void json_put(struct json_object *parent, const char *key,
	      struct json_object *v)
{
	int ret;

	jx(v);
	if (key)
		ret = json_object_object_add(parent, key, v);
	else
		ret = json_object_array_add(parent, v);
	if (ret) {
		json_object_put(v);
		jx(NULL);
	}
}
