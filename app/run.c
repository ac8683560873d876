/*
 * run.c - `memwatchd run`: the daemon proper.
 *
 * Threads: the main thread samples (scheduler loop); the storage writer
 * thread owns the write connection; libmicrohttpd's threads serve HTTP
 * through their own read connections; one forwarder thread per
 * [remote_write.NAME] reads through its own (forward/forwarder.h).  They
 * share only the writer's bounded queue, the database file and the
 * status table.
 *
 * On a stop request the loop returns, the web server stops accepting,
 * and the writer flushes everything in flight before we exit 0.
 */
#include <stdio.h>

#include "core/batch.h"
#include "commands.h"
#include "forward/forwarder.h"
#include "leak_judge.h"
#include "base/heap_tune.h"
#include "base/log.h"
#include "core/scheduler.h"
#include "core/status.h"
#include "base/stop.h"
#include "storage/query.h"
#include "storage/storage.h"
#include "web/web.h"

static void submit(void *arg, struct mw_batch *batch)
{
	mw_writer_submit(arg, batch);
}

static int flush_writer(void *arg, int64_t timeout_ms)
{
	return mw_writer_flush_wait(arg, timeout_ms);
}

static void (*ready_hook)(void *);
static void *ready_arg;

void mw_run_set_ready_hook(void (*fn)(void *arg), void *arg)
{
	ready_hook = fn;
	ready_arg = arg;
}

int mw_cmd_run(const struct mw_config *cfg)
{
	struct mw_status_table *status = mw_status_new(cfg->ncollectors);
	struct mw_writer *writer = NULL;
	struct mw_web *web = NULL;
	struct mw_leak_judge *judge = NULL;
	struct mw_forwarder *forwarder = NULL;
	struct mw_scheduler sched;
	struct mw_err err = { "" };
	size_t i, active = 0;

	/* Before any thread starts: the arena limit applies to threads
	 * created after it (base/heap_tune.h). */
	mw_heap_tune_startup();
	if (mw_stop_init()) {
		mw_log_error("cannot set up the stop event");
		goto fail;
	}
	if (mw_scheduler_init(&sched, cfg, status, &err)) {
		mw_log_error("%s", err.msg);
		goto fail;
	}
	/* Readers keep 1-2 MB while they read (they give it back when
	 * parked, web/readers.c, app/leak_judge.c); the writer's smaller
	 * default (issue 26) was measured on the flush only. */
	mw_reader_set_default_cache(cfg->cache_bytes < (1u << 20)   ? (1u << 20)
				    : cfg->cache_bytes < (2u << 20) ? cfg->cache_bytes
								    : (2u << 20));
	if (mw_writer_start(&writer, cfg, &err)) {
		/* A missing directory, a read-only file system, a database in
		 * use: the setting is at fault, as README promises (exit 2). */
		mw_log_error("--db / [storage] db: %s", err.msg);
		mw_scheduler_release(&sched);
		mw_status_free(status);
		mw_stop_finished();
		return 2;
	}
	mw_writer_set_status(writer, status);
	mw_status_set_flush(status, flush_writer, writer);
	/* After the writer (the database exists), before the web server (its
	 * status has the destinations from the first request on). */
	if (mw_forwarder_start(&forwarder, cfg, status, &err)) {
		mw_log_error("%s", err.msg);
		mw_writer_stop(writer);
		mw_scheduler_release(&sched);
		mw_status_free(status);
		mw_stop_finished();
		return 2;
	}
	/* The background leak judgement, a service of its own whether the
	 * web server is on or off: its verdicts go to the status board
	 * (/metrics) and are stored (history, and what remote_write sends
	 * as memwatch_leak_*). */
	judge = mw_leak_judge_start(cfg, status, submit, writer);
	if (mw_web_start(&web, cfg, status, &err)) {
		mw_log_error("--listen / [web] listen: %s", err.msg);
		mw_leak_judge_stop(judge);
		mw_forwarder_stop(forwarder);
		mw_writer_stop(writer);
		mw_scheduler_release(&sched);
		mw_status_free(status);
		mw_stop_finished();
		return 2;
	}
	for (i = 0; i < sched.nitems; i++)
		active += sched.items[i].active;
	mw_log_info("memwatchd %s started: %zu collectors sampling, database '%s', %s%s%s%s",
		    MW_VERSION, active, cfg->db_path,
		    web ? "listening on " : "web server off", web ? mw_web_scheme(web) : "",
		    web ? "://" : "", web ? cfg->listen : "");
	/* Storage and web are up: a service reports RUNNING now. */
	if (ready_hook)
		ready_hook(ready_arg);

	mw_scheduler_loop(&sched, submit, writer);

	mw_log_info("stopping: writing samples in flight");
	mw_web_stop(web);
	mw_leak_judge_stop(judge);
	mw_status_set_flush(status, NULL, NULL);
	mw_scheduler_release(&sched);
	/* The last samples are committed first: nothing waits on forwarding
	 * for them (a receiver that hangs, a service manager that kills a
	 * slow stop).  Then the forwarder, before the writer closes the
	 * database it reads; what was committed last is sent at the next
	 * start. */
	mw_writer_flush_sync(writer);
	mw_forwarder_stop(forwarder);
	mw_writer_stop(writer);
	mw_batch_pool_drain();
	mw_status_free(status);
	mw_log_info("memwatchd stopped");
	/* A console close / logoff handler waits for this before it returns. */
	mw_stop_finished();
	return 0;

fail:
	mw_status_free(status);
	mw_stop_finished();
	return 1;
}
