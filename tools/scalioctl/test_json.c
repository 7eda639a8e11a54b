// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of json.c: what the reader accepts and refuses, and that the
 * writer's output reads back to the same values.  TAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static int n, failed;

static void ok(int cond, const char *what, const char *detail)
{
	n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
	if (!cond) {
		failed++;
		if (detail && *detail)
			printf("#   %s\n", detail);
	}
}

static void accept(const char *text, const char *what)
{
	char err[256];
	struct json *j = json_parse(text, strlen(text), err, sizeof(err));

	ok(j != NULL, what, err);
	json_free(j);
}

static void refuse(const char *text, size_t len, const char *what,
		   const char *want)
{
	char err[256], msg[512];
	struct json *j = json_parse(text, len, err, sizeof(err));

	snprintf(msg, sizeof(msg), "got \"%s\", want \"%s\"", j ? "accepted" : err,
		 want);
	ok(!j && strstr(err, want), what, msg);
	json_free(j);
}

#define REFUSE(t, what, want) refuse(t, sizeof(t) - 1, what, want)

int main(void)
{
	static const char *const strs[] = {
		"", "plain", "quote \" backslash \\ slash /", "tab\tnl\ncr\r",
		"\x01\x1f ctl", "utf8 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	};
	char err[256], *buf, deep[200];
	struct json_writer w;
	const struct json *m;
	struct json *j;
	uint32_t v;
	size_t len, i;
	FILE *f;

	accept("{}", "empty object");
	accept(" [1, -0, 2.5e-3, true, false, null, \"x\"] ", "array of scalars");
	accept("{\"a\": {\"b\": [[], {}]}}", "nesting");
	accept("\"\\ud83d\\ude00 \\u00e9\"", "surrogate pair and BMP escapes");

	REFUSE("", "empty input", "unexpected end");
	REFUSE("{\"a\": 1,}", "trailing comma", "expected a member name");
	REFUSE("[1,]", "trailing comma in array", "unexpected character ']'");
	REFUSE("{\"a\": 1, \"a\": 2}", "duplicate key", "duplicate member \"a\"");
	REFUSE("{\"a\" 1}", "missing colon", "expected ':'");
	REFUSE("{} x", "trailing garbage", "trailing characters");
	REFUSE("\"abc", "unterminated string", "unterminated string");
	REFUSE("\"a\\", "backslash at end", "unterminated string");
	REFUSE("\"\\x\"", "bad escape", "bad escape");
	REFUSE("\"\\u12\"", "short \\u", "bad \\u escape");
	REFUSE("\"\\ud800\"", "lone high surrogate", "unpaired surrogate");
	REFUSE("\"\\udc00\"", "lone low surrogate", "unpaired surrogate");
	REFUSE("\"\\u0000\"", "\\u0000", "\\u0000 is not allowed");
	REFUSE("\"a\nb\"", "raw newline in string", "control character");
	REFUSE("\"\xc3\x28\"", "invalid UTF-8", "invalid UTF-8");
	REFUSE("\"\xc0\xaf\"", "overlong UTF-8", "invalid UTF-8");
	REFUSE("\"\xed\xa0\x80\"", "UTF-8 surrogate", "invalid UTF-8");
	REFUSE("\"a\0b\"", "NUL byte", "NUL byte");
	REFUSE("01", "leading zero", "trailing characters");
	REFUSE("1.", "bad fraction", "bad number");
	REFUSE("-", "lone minus", "bad number");
	REFUSE("tru", "bad literal", "unexpected character 't'");
	REFUSE("{\n  \"a\": x}", "error position", "line 2, column 8");

	memset(deep, '[', sizeof(deep));
	refuse(deep, JSON_MAX_DEPTH + 1, "depth limit", "nested deeper than");
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		deep[JSON_MAX_DEPTH + i] = ']';
	j = json_parse(deep, 2 * JSON_MAX_DEPTH, err, sizeof(err));
	ok(j != NULL, "depth limit exactly", err);
	json_free(j);

	buf = "{\"n\": 4294967295, \"m\": 4294967296, \"s\": \"1\"}";
	j = json_parse(buf, strlen(buf), err, sizeof(err));
	ok(j && !json_u32(json_get(j, "n"), UINT32_MAX, &v) && v == 4294967295U,
	   "json_u32 max", err);
	ok(j && json_u32(json_get(j, "m"), UINT32_MAX, &v), "json_u32 overflow", NULL);
	ok(j && json_u32(json_get(j, "s"), UINT32_MAX, &v), "json_u32 of a string", NULL);
	ok(j && !json_get(j, "x"), "json_get of a missing key", NULL);
	json_free(j);

	/* Writer -> reader round trip. */
	f = open_memstream(&buf, &len);
	jw_init(&w, f);
	jw_obj_begin(&w, NULL);
	jw_arr_begin(&w, "strs");
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		jw_str(&w, NULL, strs[i]);
	jw_arr_end(&w);
	jw_uint(&w, "big", 18446744073709551615ULL);
	jw_obj_begin(&w, "empty");
	jw_obj_end(&w);
	jw_arr_begin(&w, "none");
	jw_arr_end(&w);
	jw_obj_end(&w);
	ok(jw_finish(&w) == 0, "writer finishes", NULL);
	fclose(f);
	j = json_parse(buf, len, err, sizeof(err));
	ok(j != NULL, "writer output parses", err);
	m = json_get(j, "strs");
	for (i = 0, m = m ? m->child : NULL; m && i < sizeof(strs) / sizeof(strs[0]);
	     i++, m = m->next)
		if (m->type != JSON_STR || strcmp(m->str, strs[i]))
			break;
	ok(i == sizeof(strs) / sizeof(strs[0]) && !m, "strings round-trip", buf);
	ok(json_get(j, "big") && !strcmp(json_get(j, "big")->str, "18446744073709551615"),
	   "u64 round-trips", NULL);
	ok(json_len(json_get(j, "empty")) == 0 &&
	   json_get(j, "none")->type == JSON_ARR, "empty containers", NULL);
	json_free(j);
	free(buf);

	f = open_memstream(&buf, &len);
	jw_init(&w, f);
	jw_str(&w, NULL, "bad \xff byte");
	ok(jw_finish(&w) == -EILSEQ, "writer refuses invalid UTF-8", NULL);
	fclose(f);
	free(buf);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
