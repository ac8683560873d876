/*
 * test_file.h - a cmocka test writes a file it then reads through the
 * code under test (a fake /proc entry, an import source, a corpus entry);
 * the running test fails when the file cannot be written whole.
 * Header-only because it asserts with cmocka (the support objects also
 * link into the benches, which have no cmocka).  Include after <cmocka.h>.
 */
#ifndef MW_TESTS_SUPPORT_TEST_FILE_H
#define MW_TESTS_SUPPORT_TEST_FILE_H

#include <stddef.h>
#include <stdio.h>

/* path holds exactly the len bytes at data (created or truncated). */
static inline void mw_test_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* to becomes a copy of from (removed first); a missing from (a -wal that
 * is not there) leaves no to.  For "the files as a crash leaves them":
 * copied while the store still has them open. */
static inline void mw_test_copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[65536];
	size_t n;

	remove(to);
	if (!in)
		return;
	out = fopen(to, "wb");
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
}

#endif
