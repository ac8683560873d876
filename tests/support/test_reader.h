/*
 * test_reader.h - a cmocka test's reader on its scratch database: the
 * running test fails with the reader's own reason when it cannot open.
 * Header-only because it calls cmocka, and the support objects also link
 * into the benches, which have no cmocka.  Include after <cmocka.h>.
 */
#ifndef MW_TESTS_SUPPORT_TEST_READER_H
#define MW_TESTS_SUPPORT_TEST_READER_H

#include "base/mwerr.h"
#include "storage/query.h"

static inline struct mw_reader *mw_test_reader_open(const char *path)
{
	struct mw_reader *r = NULL;
	struct mw_err err;

	if (mw_reader_open(&r, path, &err))
		fail_msg("%s", err.msg);
	return r;
}

#endif
