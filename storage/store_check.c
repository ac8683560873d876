/*
 * store_check.c - the store's side of a full check read in the
 * background (bg_check.h): the writer's look at it after each flush, and
 * what its outcome leaves: the date of the check in store_state, or the
 * damage kept for /healthz and the marker for the next start-up
 * (schema.h, mw_schema_check_marker).  Writer thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store_impl.h"
#include "bg_check.h"
#include "clean_stop.h"
#include "schema.h"
#include "base/clock.h"
#include "base/fsutf8.h"
#include "base/log.h"

const char *mw_store_poll_check(struct mw_store *s, int64_t now_ms)
{
	struct mw_err why, err;
	char marker[4096];
	int64_t ms;
	FILE *f;

	if (!s->bg_check)
		return s->check_failed[0] ? s->check_failed : NULL;
	switch (mw_bg_check_poll(s->bg_check, &ms, &why)) {
	case MW_BG_CHECK_RUNNING:
		return NULL;
	case MW_BG_CHECK_PASSED:
		mw_log_info("storage: full check of '%s' (%s), read in the background: ok in %lld ms",
			    s->db_path, s->stats.full_check_background, (long long)ms);
		if (mw_clean_stop_checked(s->db, now_ms, &err))
			mw_log_warn("storage: '%s': %s", s->db_path, err.msg);
		break;
	case MW_BG_CHECK_UNCHECKED:
		mw_log_warn("storage: full check of '%s' in the background could not read it "
			    "through (%s); the next start-up checks it", s->db_path, why.msg);
		break;
	case MW_BG_CHECK_DAMAGED:
		snprintf(s->check_failed, sizeof(s->check_failed),
			 "the database '%s' failed its full check (%s): restart memwatchd to move "
			 "it aside and start a new file", s->db_path, why.msg);
		mw_log_error("storage: DATABASE '%s' FAILED ITS FULL CHECK, read in the background "
			     "in %lld ms (%s); the next start-up moves it aside", s->db_path,
			     (long long)ms, why.msg);
		/* the next start checks it first, however it stops */
		mw_schema_check_marker(marker, sizeof(marker), s->db_path);
		if (!(f = mw_fopen(marker, "wb")) || fprintf(f, "%s\n", why.msg) < 0 || fclose(f))
			mw_log_error("storage: cannot write '%s': %s", marker, strerror(errno));
		break;
	}
	mw_bg_check_free(s->bg_check);
	s->bg_check = NULL;
	return s->check_failed[0] ? s->check_failed : NULL;
}

const char *mw_store_wait_check(struct mw_store *s)
{
	if (s->bg_check)
		mw_bg_check_wait(s->bg_check);
	return mw_store_poll_check(s, mw_clock_wall_ms());
}
