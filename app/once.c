/*
 * once.c - `memwatchd once`: every enabled collector once, JSON on stdout.
 *
 * For scripts and for checking a new machine: it shows what each
 * collector sees, and why the unsupported ones cannot work here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/json_out.h"
#include "base/log.h"
#include "core/collector.h"
#include "core/scheduler.h"
#include "core/status.h"

static void sample_json(struct mw_jw *w, const struct mw_sample *s)
{
	size_t i;

	mw_jw_object(w, NULL);
	mw_jw_str(w, "name", s->metric);
	mw_jw_object(w, "labels");
	for (i = 0; i < s->nlabels; i++)
		mw_jw_str(w, s->labels[i].name, s->labels[i].value);
	mw_jw_end(w);
	mw_jw_double(w, "value", s->value);
	mw_jw_int(w, "ts", s->ts_ms);
	mw_jw_end(w);
}

/* One enabled collector: sampled once when it works here, why not when
 * it does not. */
static void collector_json(struct mw_jw *w, struct mw_scheduler *sched, size_t i)
{
	struct mw_scheduled *it = &sched->items[i];
	struct mw_batch batch;
	int rc = MW_COLLECTOR_OK;
	size_t j;

	mw_batch_init(&batch);
	if (it->active)
		rc = mw_scheduler_sample_one(sched, i, &batch);
	mw_jw_object(w, NULL);
	mw_jw_str(w, "name", it->collector->name);
	mw_jw_bool(w, "supported", it->active);
	mw_jw_str(w, "reason", it->active ? NULL : it->status.reason);
	if (it->active) {
		mw_jw_str(w, "mode", it->status.mode);
		mw_jw_int(w, "duration_us", it->status.last_duration_us);
		mw_jw_uint(w, "inaccessible", it->status.inaccessible);
		mw_jw_str(w, "error", rc != MW_COLLECTOR_OK ? it->status.last_error : NULL);
	} else {
		mw_jw_int(w, "duration_us", 0);
	}
	mw_jw_array(w, "samples");
	/* Only the collector's own samples, not the self metrics the
	 * scheduler adds for storage. */
	for (j = 0; j < batch.nsamples; j++)
		if (strncmp(batch.samples[j].metric, "memwatch_collector_", 19))
			sample_json(w, &batch.samples[j]);
	mw_jw_end(w);
	mw_jw_end(w);
	mw_batch_release(&batch);
}

int mw_cmd_once(const struct mw_config *cfg)
{
	struct mw_status_table *status = mw_status_new(cfg->ncollectors);
	struct mw_scheduler sched;
	struct mw_err err = { "" };
	struct mw_jbuf b;
	struct mw_jw w;
	size_t i;

	if (mw_scheduler_init(&sched, cfg, status, &err)) {
		mw_log_error("%s", err.msg);
		mw_status_free(status);
		return 1;
	}
	mw_jbuf_init(&b);
	mw_jw_init(&w, &b);
	mw_jw_object(&w, NULL);
	mw_jw_array(&w, "collectors");
	for (i = 0; i < sched.nitems; i++)
		if (sched.items[i].cc->enabled)
			collector_json(&w, &sched, i);
	mw_jw_end(&w);
	mw_jw_end(&w);
	mw_j_char(&b, '\n');
	fwrite(b.p, 1, b.len, stdout);
	fflush(stdout);
	mw_jbuf_release(&b);
	mw_scheduler_release(&sched);
	mw_status_free(status);
	return 0;
}
