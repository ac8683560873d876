/*
 * test_json_out.c - json_out's structure writer (struct mw_jw): nesting,
 * the commas it writes itself, keys, escapes, invalid UTF-8 and numbers
 * that are no JSON (NaN, infinities), a fragment copied in, and that every
 * document it writes parses (cJSON reads it back, as clients do).  The
 * raw writers (mw_j_*) are tested in test_web.c.  Runs natively and under
 * Wine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/json_out.h"
#include "tests/support/test_main.h"

/* Each test's writer and its buffer (setup and teardown). */
static struct mw_jbuf b;
static struct mw_jw w;

static int setup(void **state)
{
	(void)state;
	mw_jbuf_init(&b);
	mw_jw_init(&w, &b);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mw_jbuf_release(&b);
	return 0;
}

/* Nested objects and arrays, empty ones too: commas only between members. */
static void test_nesting_and_commas(void **state)
{
	(void)state;
	mw_jw_object(&w, NULL);
	mw_jw_str(&w, "a", "x");
	mw_jw_object(&w, "empty");
	mw_jw_end(&w);
	mw_jw_array(&w, "none");
	mw_jw_end(&w);
	mw_jw_array(&w, "list");
	mw_jw_int(&w, NULL, -1);
	mw_jw_object(&w, NULL);
	mw_jw_uint(&w, "u", UINT64_MAX);
	mw_jw_bool(&w, "t", 1);
	mw_jw_bool(&w, "f", 0);
	mw_jw_end(&w);
	mw_jw_array(&w, NULL);
	mw_jw_null(&w, NULL);
	mw_jw_end(&w);
	mw_jw_str(&w, NULL, NULL);
	mw_jw_end(&w);
	mw_jw_double(&w, "d", 0.5);
	mw_jw_end(&w);
	assert_int_equal(w.depth, 0);
	assert_string_equal(b.p, "{\"a\":\"x\",\"empty\":{},\"none\":[],\"list\":[-1,"
				 "{\"u\":18446744073709551615,\"t\":true,\"f\":false},[null],null],"
				 "\"d\":0.5}");
	assert_int_equal(b.len, strlen(b.p));
}

/* Keys and values with quotes, control bytes and invalid UTF-8 come out
 * escaped or replaced: the document still parses, and reads back as the
 * valid parts of the input. */
static void test_escapes_and_invalid_utf8(void **state)
{
	cJSON *doc;

	(void)state;
	mw_jw_object(&w, NULL);
	mw_jw_str(&w, "q\"k\n", "a\"b\\c\x01\t\xc3\xa9");
	mw_jw_str(&w, "bad\xff", "x\xff\xc3 y\xed\xa0\x80");	/* stray, truncated, surrogate */
	mw_jw_end(&w);
	assert_string_equal(b.p, "{\"q\\\"k\\n\":\"a\\\"b\\\\c\\u0001\\t\xc3\xa9\","
				 "\"bad\xef\xbf\xbd\":\"x\xef\xbf\xbd\xef\xbf\xbd y"
				 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}");
	doc = cJSON_Parse(b.p);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "q\"k\n")->valuestring,
			    "a\"b\\c\x01\t\xc3\xa9");
	cJSON_Delete(doc);
}

/* Numbers: NaN and infinities are null (no JSON has them), integral
 * doubles print as integers, others in the shortest exact form. */
static void test_numbers(void **state)
{
	(void)state;
	mw_jw_array(&w, NULL);
	mw_jw_double(&w, NULL, NAN);
	mw_jw_double(&w, NULL, INFINITY);
	mw_jw_double(&w, NULL, -INFINITY);
	mw_jw_double(&w, NULL, 1795667212027.0);
	mw_jw_double(&w, NULL, 0.1);
	mw_jw_double(&w, NULL, 1.0 / 3);
	mw_jw_double(&w, NULL, -0.0);
	mw_jw_int(&w, NULL, INT64_MIN);
	mw_jw_end(&w);
	assert_string_equal(b.p, "[null,null,null,1795667212027,0.1,0.33333333333333331,0,"
				 "-9223372036854775808]");
}

/* A fragment written earlier (by another writer) goes in as one value,
 * with the comma and key before it; writing after what a buffer already
 * holds appends. */
static void test_fragment(void **state)
{
	struct mw_jbuf frag;
	struct mw_jw fw;

	(void)state;
	mw_jbuf_init(&frag);
	mw_jw_init(&fw, &frag);
	mw_jw_object(&fw, NULL);
	mw_jw_str(&fw, "process", "a.exe");
	mw_jw_end(&fw);
	mw_j_lit(&b, "prefix ");
	mw_jw_object(&w, NULL);
	mw_jw_int(&w, "n", 2);
	mw_jw_array(&w, "groups");
	mw_jw_json(&w, NULL, frag.p, frag.len);
	mw_jw_json(&w, NULL, frag.p, frag.len);
	mw_jw_end(&w);
	mw_jw_json(&w, "one", frag.p, frag.len);
	mw_jw_end(&w);
	assert_string_equal(b.p, "prefix {\"n\":2,\"groups\":[{\"process\":\"a.exe\"},"
				 "{\"process\":\"a.exe\"}],\"one\":{\"process\":\"a.exe\"}}");
	mw_jbuf_release(&frag);
}

/* The deepest nesting allowed works and closes in the right order. */
static void test_deep_nesting(void **state)
{
	cJSON *doc;
	int i;

	(void)state;
	for (i = 0; i < MW_JW_MAX_DEPTH; i++) {
		if (i % 2)
			mw_jw_object(&w, NULL);
		else
			mw_jw_array(&w, i ? "k" : NULL);
		if (i % 2 == 0 && i + 1 < MW_JW_MAX_DEPTH)
			mw_jw_int(&w, NULL, i);
	}
	for (i = 0; i < MW_JW_MAX_DEPTH; i++)
		mw_jw_end(&w);
	assert_int_equal(w.depth, 0);
	assert_memory_equal(b.p, "[0,{\"k\":[2,{", 12);
	doc = cJSON_Parse(b.p);
	assert_non_null(doc);
	cJSON_Delete(doc);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(test_nesting_and_commas),
	MW_FIXTURE_TEST(test_escapes_and_invalid_utf8),
	MW_FIXTURE_TEST(test_numbers),
	MW_FIXTURE_TEST(test_fragment),
	MW_FIXTURE_TEST(test_deep_nesting),
)
