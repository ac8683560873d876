/*
 * once.c - `memwatchd once`: every enabled collector once, JSON on stdout.
 *
 * For scripts and for checking a new machine: it shows what each
 * collector sees, and why the unsupported ones cannot work here.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/collector.h"
#include "base/log.h"
#include "core/scheduler.h"
#include "core/status.h"

static cJSON *sample_json(const struct mw_sample *s)
{
	cJSON *o = cJSON_CreateObject(), *labels = cJSON_CreateObject();
	size_t i;

	cJSON_AddStringToObject(o, "name", s->metric);
	for (i = 0; i < s->nlabels; i++)
		cJSON_AddStringToObject(labels, s->labels[i].name, s->labels[i].value);
	cJSON_AddItemToObject(o, "labels", labels);
	cJSON_AddNumberToObject(o, "value", s->value);
	cJSON_AddNumberToObject(o, "ts", (double)s->ts_ms);
	return o;
}

int mw_cmd_once(const struct mw_config *cfg)
{
	struct mw_status_table *status = mw_status_new(cfg->ncollectors);
	struct mw_scheduler sched;
	struct mw_err err = { "" };
	cJSON *root, *list;
	char *text;
	size_t i, j;

	if (mw_scheduler_init(&sched, cfg, status, &err)) {
		mw_log_error("%s", err.msg);
		mw_status_free(status);
		return 1;
	}
	root = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(root, "collectors");
	for (i = 0; i < sched.nitems; i++) {
		struct mw_scheduled *it = &sched.items[i];
		cJSON *c, *samples;
		struct mw_batch batch;

		if (!it->cc->enabled)
			continue;
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", it->collector->name);
		cJSON_AddBoolToObject(c, "supported", it->active);
		if (it->active) {
			cJSON_AddNullToObject(c, "reason");
		} else {
			cJSON_AddStringToObject(c, "reason", it->status.reason);
		}
		samples = cJSON_CreateArray();
		mw_batch_init(&batch);
		if (it->active) {
			int rc = mw_scheduler_sample_one(&sched, i, &batch);
			/* Only the collector's own samples, not the self metrics the
			 * scheduler adds for storage. */
			for (j = 0; j < batch.nsamples; j++)
				if (strncmp(batch.samples[j].metric, "memwatch_collector_", 19))
					cJSON_AddItemToArray(samples, sample_json(&batch.samples[j]));
			cJSON_AddStringToObject(c, "mode", it->status.mode);
			cJSON_AddNumberToObject(c, "duration_us", (double)it->status.last_duration_us);
			cJSON_AddNumberToObject(c, "inaccessible", (double)it->status.inaccessible);
			if (rc != MW_COLLECTOR_OK)
				cJSON_AddStringToObject(c, "error", it->status.last_error);
			else
				cJSON_AddNullToObject(c, "error");
		} else {
			cJSON_AddNumberToObject(c, "duration_us", 0);
		}
		cJSON_AddItemToObject(c, "samples", samples);
		mw_batch_release(&batch);
		cJSON_AddItemToArray(list, c);
	}
	text = cJSON_PrintUnformatted(root);
	fputs(text, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	cJSON_free(text);
	cJSON_Delete(root);
	mw_scheduler_release(&sched);
	mw_status_free(status);
	return 0;
}
