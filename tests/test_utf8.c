/* test_utf8.c - base/utf8.c and base/utf16.c, the one copy of each: what
 * is valid UTF-8 (strict), writing code points, and UTF-16LE decoding
 * whole or fed one unit at a time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/utf16.h"
#include "base/utf8.h"
#include "tests/support/test_main.h"

static void valid_and_invalid(void **state)
{
	static const char *const bad[] = {
		"\x80",			/* a continuation byte alone */
		"\xc0\xaf",		/* overlong '/' */
		"\xe0\x80\xaf",		/* overlong, three bytes */
		"\xf0\x80\x80\xaf",	/* overlong, four bytes */
		"\xed\xa0\x80",		/* a surrogate */
		"\xf4\x90\x80\x80",	/* above U+10FFFF */
		"\xf5\x80\x80\x80",	/* no such lead byte */
		"\xc3",			/* cut short */
		"\xe2\x82",
		"\xc3(",		/* a lead byte before ASCII */
	};

	(void)state;
	assert_true(mw_utf8_valid(""));
	assert_true(mw_utf8_valid("plain ascii, longer than eight bytes"));
	assert_true(mw_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mw_utf8_valid(bad[i]))
			fail_msg("bad[%zu] was taken as UTF-8", i);
}

static void prefixes_and_lengths(void **state)
{
	(void)state;
	assert_int_equal(mw_utf8_valid_prefix("abc", 3), 3);
	assert_int_equal(mw_utf8_valid_prefix("a\xc3\xa9", 3), 3);
	assert_int_equal(mw_utf8_valid_prefix("a\xc0\x80", 3), 1);
	/* the eight-byte ASCII path stops where the text goes bad */
	assert_int_equal(mw_utf8_valid_prefix("abcdefghij\xffk", 12), 10);
	assert_int_equal(mw_utf8_valid_prefix("abcdefgh\xe2\x82\xac", 11), 11);
	/* a character cut by n is not valid */
	assert_int_equal(mw_utf8_valid_prefix("ab\xe2\x82\xac", 4), 2);
	assert_int_equal(mw_utf8_char_len((const unsigned char *)"z", 1), 1);
	assert_int_equal(mw_utf8_char_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(mw_utf8_char_len((const unsigned char *)"\xf0\x9f\x98\x80", 3), 0);
}

static void code_points_written(void **state)
{
	static const struct {
		uint32_t cp;
		const char *utf8;
	} cases[] = {
		{ 0x24, "$" }, { 0x7f, "\x7f" }, { 0x80, "\xc2\x80" }, { 0xe9, "\xc3\xa9" },
		{ 0x7ff, "\xdf\xbf" }, { 0x800, "\xe0\xa0\x80" }, { 0x20ac, "\xe2\x82\xac" },
		{ 0xfffd, "\xef\xbf\xbd" }, { 0x10000, "\xf0\x90\x80\x80" },
		{ 0x1f600, "\xf0\x9f\x98\x80" }, { 0x10ffff, "\xf4\x8f\xbf\xbf" },
	};
	char out[MW_UTF8_MAX + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = mw_utf8_put(out, cases[i].cp);

		out[n] = '\0';
		assert_string_equal(out, cases[i].utf8);
		assert_int_equal(mw_utf8_char_len((const unsigned char *)out, n), n);
	}
}

static void utf16_whole_buffers(void **state)
{
	/* "aé€😀" + lone high surrogate + "z" */
	const unsigned char in[] = { 'a', 0, 0xE9, 0, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE,
				     0x3D, 0xD8, 'z', 0 };
	/* a lone low surrogate, then a NUL that ends the text */
	const unsigned char low[] = { 0x00, 0xDC, 'b', 0, 0, 0, 'c', 0 };
	/* a high surrogate as the last unit */
	const unsigned char last[] = { 'x', 0, 0x3D, 0xD8 };
	char out[32], tiny[4];

	(void)state;
	assert_int_equal(mw_utf16le_decode(in, sizeof(in) / 2, out, sizeof(out)), 14);
	assert_string_equal(out, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBDz");
	/* never splits a multi-byte character when cut short */
	assert_int_equal(mw_utf16le_decode(in, sizeof(in) / 2, tiny, sizeof(tiny)), 3);
	assert_string_equal(tiny, "a\xC3\xA9");
	mw_utf16le_decode(low, sizeof(low) / 2, out, sizeof(out));
	assert_string_equal(out, "\xEF\xBF\xBD" "b");
	mw_utf16le_decode(last, sizeof(last) / 2, out, sizeof(out));
	assert_string_equal(out, "x\xEF\xBF\xBD");
	assert_int_equal(mw_utf16le_decode(in, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

static void utf16_fed_unit_by_unit(void **state)
{
	/* a pair split across two feeds, then a high surrogate followed by
	 * an ordinary character (U+FFFD and the character, together) */
	static const uint16_t units[] = { 0xD83D, 0xDE00, 0xD800, 'q' };
	struct mw_utf16_decoder d = { 0 };
	char out[64];
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = mw_utf16_feed(&d, units[i], out + n);

		assert_true(k <= MW_UTF16_UNIT_MAX);
		n += k;
	}
	n += mw_utf16_finish(&d, out + n);
	out[n] = '\0';
	assert_string_equal(out, "\xF0\x9F\x98\x80\xEF\xBF\xBDq");
	/* a high surrogate left at the end */
	assert_int_equal(mw_utf16_feed(&d, 0xDBFF, out), 0);
	assert_int_equal(mw_utf16_finish(&d, out), 3);
	assert_int_equal(mw_utf16_finish(&d, out), 0);
}

MW_TEST_MAIN(
	cmocka_unit_test(valid_and_invalid),
	cmocka_unit_test(prefixes_and_lengths),
	cmocka_unit_test(code_points_written),
	cmocka_unit_test(utf16_whole_buffers),
	cmocka_unit_test(utf16_fed_unit_by_unit),
)
