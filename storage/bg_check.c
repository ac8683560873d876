/* bg_check.c - see bg_check.h. */
#include "bg_check.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "db.h"
#include "schema.h"
#include "base/thread_name.h"

struct mw_bg_check {
	char *path;
	pthread_t thread;
	pthread_mutex_t lock;	/* guards everything below */
	sqlite3 *db;		/* while the check reads: what free interrupts */
	bool stopping;
	bool joined;		/* its thread was waited for (owner's thread only) */
	enum mw_bg_check_state state;
	int64_t ms;
	struct mw_err err;
};

static void *check_main(void *arg)
{
	struct mw_bg_check *c = arg;
	int64_t t0 = mw_clock_mono_ns();
	enum mw_bg_check_state state;
	struct mw_err err = { "" };
	sqlite3 *db = NULL;
	int rc = -1;

	mw_thread_set_name("mw-dbcheck");
	if (mw_db_open(&db, c->path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
		       MW_BUSY_TIMEOUT_MS, "", &err) == 0) {
		pthread_mutex_lock(&c->lock);
		c->db = c->stopping ? NULL : db;
		pthread_mutex_unlock(&c->lock);
		rc = c->db ? mw_schema_check(db, &err) : -1;
		pthread_mutex_lock(&c->lock);
		c->db = NULL;
		pthread_mutex_unlock(&c->lock);
		sqlite3_close(db);
	}
	state = rc == 0 ? MW_BG_CHECK_PASSED : rc > 0 ? MW_BG_CHECK_DAMAGED : MW_BG_CHECK_UNCHECKED;
	pthread_mutex_lock(&c->lock);
	c->err = err;
	c->ms = (mw_clock_mono_ns() - t0) / 1000000;
	c->state = state;
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct mw_bg_check *mw_bg_check_start(const char *path)
{
	struct mw_bg_check *c = mw_xcalloc(1, sizeof(*c));

	c->path = mw_xstrdup(path);
	c->state = MW_BG_CHECK_RUNNING;
	pthread_mutex_init(&c->lock, NULL);
	if (pthread_create(&c->thread, NULL, check_main, c)) {
		pthread_mutex_destroy(&c->lock);
		free(c->path);
		free(c);
		return NULL;
	}
	return c;
}

enum mw_bg_check_state mw_bg_check_poll(struct mw_bg_check *c, int64_t *ms, struct mw_err *err)
{
	enum mw_bg_check_state state;

	pthread_mutex_lock(&c->lock);
	state = c->state;
	*ms = c->ms;
	*err = c->err;
	pthread_mutex_unlock(&c->lock);
	return state;
}

void mw_bg_check_wait(struct mw_bg_check *c)
{
	if (!c->joined)
		pthread_join(c->thread, NULL);
	c->joined = true;
}

void mw_bg_check_free(struct mw_bg_check *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stopping = true;
	if (c->db)
		sqlite3_interrupt(c->db);
	pthread_mutex_unlock(&c->lock);
	mw_bg_check_wait(c);
	pthread_mutex_destroy(&c->lock);
	free(c->path);
	free(c);
}
