/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, strict JSON reader and a pretty-printing writer for scalioctl's
 * saved configurations (config.c).  Values are kept as text: a number is
 * its literal, a string its decoded UTF-8 bytes (NUL never allowed).
 */
#ifndef SCALIOCTL_JSON_H
#define SCALIOCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

/*
 * One value.  Members of an object and elements of an array are a list
 * through @child / @next, in document order; @key names an object member.
 */
struct json {
	enum json_type type;
	char *key;
	char *str;		/* JSON_STR: value; JSON_NUM: its literal */
	bool b;			/* JSON_BOOL */
	struct json *child, *next;
};

#define JSON_MAX_DEPTH	32

/*
 * json_parse() - parse exactly one JSON value (surrounding white space
 * allowed) from @text of @len bytes.  Strict RFC 8259: no comments, no
 * trailing commas, no duplicate keys, valid UTF-8, no \u0000.
 * Return: the tree (free with json_free()), or NULL with a message
 * "line L, column C: what" in @err.
 */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(struct json *j);

/* Member @key of object @obj, or NULL (also when @obj is no object). */
const struct json *json_get(const struct json *obj, const char *key);
/* Number of elements of an array / members of an object. */
size_t json_len(const struct json *j);
/* A JSON_NUM that is a non-negative integer <= @max: 0, else -EINVAL. */
int json_u32(const struct json *j, uint32_t max, uint32_t *out);

/* Writer: indented output to @f; keys are NULL inside arrays. */
struct json_writer {
	FILE *f;
	int depth;
	bool first;		/* nothing written yet at this depth */
	int err;		/* first error: -EILSEQ for a bad string */
};

void jw_init(struct json_writer *w, FILE *f);
void jw_obj_begin(struct json_writer *w, const char *key);
void jw_obj_end(struct json_writer *w);
void jw_arr_begin(struct json_writer *w, const char *key);
void jw_arr_end(struct json_writer *w);
/* A string value; @val must be valid UTF-8 (else w->err = -EILSEQ). */
void jw_str(struct json_writer *w, const char *key, const char *val);
void jw_uint(struct json_writer *w, const char *key, uint64_t val);
/* Ends the document with a newline; returns w->err or -EIO. */
int jw_finish(struct json_writer *w);

/* Is @s of @len bytes valid UTF-8 (no overlongs, no surrogates)? */
bool utf8_valid(const char *s, size_t len);

#endif /* SCALIOCTL_JSON_H */
