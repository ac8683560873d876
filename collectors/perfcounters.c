/*
 * perfcounters.c - the perfcounters collector (portable: the registry
 * calls are perfdata_win32.c's; on Linux mw_perfreg_open says why not).
 */
#include "perfcounters.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "core/metric_catalog.h"
#include "base/xalloc.h"
#include "perfdata.h"

#define MAX_CANDIDATES 4
#define MAX_PARENTS 8

/* [collector.perfcounters] keys, filled from pc_options below. */
struct pc_options {
	char *counters;
	bool close_key;
	char *query;
};

/* The paths of a counter list must not be empty: without one the
 * collector has nothing to read. */
static int counters_check(const char *value, struct mw_err *err)
{
	if (!strchr(value, '\\'))
		return mw_error(err, "'%s' has no counter path (\\Object(instance)\\Counter)", value);
	return 0;
}

#define PCOFF(f) offsetof(struct pc_options, f)

static const struct mw_option pc_options[] = {
	{ MW_OPTION(NULL, "counters", MW_OPT_STRING, PCOFF(counters),
	  "\\Memory\\Available Bytes,\\Process(*)\\Private Bytes,\\Paging File(_Total)\\% Usage",
	  0, 0, "Counter paths, comma-separated: \\Object(instance)\\Counter."),
	  .check = counters_check },
	{ MW_OPTION(NULL, "close_key", MW_OPT_BOOL, PCOFF(close_key), "false", 0, 0,
	  "Close HKEY_PERFORMANCE_DATA after each sample (unloads the providers).") },
	{ MW_OPTION(NULL, "query", MW_OPT_STRING, PCOFF(query), "", 0, 0,
	  "Object list to query instead of the resolved one (e.g. Global); empty: resolved.") },
};

struct pc_path {
	struct mw_perf_path p;
	uint32_t objs[MAX_CANDIDATES];	/* object indexes with that name */
	size_t nobjs;
};

struct pc_state {
	struct mw_perfreg *reg;
	struct mw_perf_titles titles;
	uint32_t title_stamp;
	struct pc_path *paths;
	size_t npaths, paths_cap;
	char query[256];
	bool query_fixed, close_key;
	/* parent objects (ParentObjectTitleIndex) the data showed we need */
	uint32_t parents[MAX_PARENTS];
	size_t nparents;
	size_t last_skipped;	/* objects skipped in the last sample */
	unsigned char *buf[2];
	size_t len[2], cap[2];
	struct mw_perf_snapshot snap[2];
	bool have[2];
	int cur;
	uint32_t logged_types[32];
	size_t nlogged;
	char version_note[40];
};

static void pc_free(struct pc_state *st)
{
	int i;

	if (!st)
		return;
	for (i = 0; i < 2; i++) {
		if (st->have[i])
			mw_perf_snapshot_release(&st->snap[i]);
		free(st->buf[i]);
	}
	mw_perf_titles_release(&st->titles);
	mw_perfreg_free(st->reg);
	free(st->paths);
	free(st);
}

/* Re-read "Counter 009" and resolve every path's object to its indexes. */
static int load_titles(struct pc_state *st, struct mw_err *err)
{
	const unsigned char *data;
	size_t len, i;

	if (mw_perfreg_query(st->reg, "Counter 009", &data, &len, err))
		return -1;
	if (mw_perf_titles_parse(&st->titles, data, len, err))
		return mw_error_prefix(err, "'Counter 009'");
	st->title_stamp = mw_perfreg_title_stamp(st->reg);
	if (!st->query_fixed)
		st->query[0] = '\0';
	for (i = 0; i < st->npaths; i++) {
		struct pc_path *p = &st->paths[i];
		size_t k;

		p->nobjs = mw_perf_title_find(&st->titles, p->p.object, p->objs, MAX_CANDIDATES);
		if (p->nobjs > MAX_CANDIDATES)
			p->nobjs = MAX_CANDIDATES;
		for (k = 0; k < p->nobjs && !st->query_fixed; k++)
			mw_perf_query_add(st->query, sizeof(st->query), p->objs[k]);
	}
	for (i = 0; i < st->nparents && !st->query_fixed; i++)
		mw_perf_query_add(st->query, sizeof(st->query), st->parents[i]);
	{
		uint32_t v2;

		snprintf(st->version_note, sizeof(st->version_note), "%s",
			 mw_perf_title_find(&st->titles, "Process V2", &v2, 1) ? "Process V2 registered"
									       : "Process V1");
	}
	return 0;
}

static int pc_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct pc_state *st = mw_xcalloc(1, sizeof(*st));
	struct pc_options own;
	const struct pc_options *o = mw_collector_options(env, &mw_collector_perfcounters, &own);
	char *copy, *tok, *save = NULL;
	size_t i, resolved = 0;

	st->close_key = o->close_key;
	if (*o->query) {
		snprintf(st->query, sizeof(st->query), "%s", o->query);
		st->query_fixed = true;
	}
	copy = mw_xstrdup(o->counters);
	mw_collector_options_done(&mw_collector_perfcounters, o, &own);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		MW_GROW(st->paths, st->paths_cap, st->npaths + 1);
		memset(&st->paths[st->npaths], 0, sizeof(st->paths[0]));
		if (mw_perf_path_parse(tok, &st->paths[st->npaths++].p, why)) {
			free(copy);
			pc_free(st);
			return mw_error_prefix(why, "counters"), MW_COLLECTOR_ERROR;
		}
	}
	free(copy);
	if (mw_perfreg_open(&st->reg, why) || load_titles(st, why)) {
		pc_free(st);
		return MW_COLLECTOR_UNSUPPORTED;
	}
	for (i = 0; i < st->npaths; i++)
		resolved += st->paths[i].nobjs > 0;
	if (!resolved && !st->query_fixed) {
		/* Say what the registry gives: e.g. Wine's empty block. */
		const unsigned char *d;
		size_t len = 0;
		struct mw_perf_snapshot s;
		struct mw_err qe;
		char probe[160];

		if (mw_perfreg_query(st->reg, "4", &d, &len, &qe))
			snprintf(probe, sizeof(probe), "%s", qe.msg);
		else if (mw_perf_snapshot_parse(&s, d, len, &qe) == 0) {
			snprintf(probe, sizeof(probe), "query '4' returned a %zu-byte PERF_DATA_BLOCK "
				 "with %zu objects", len, s.nobjects);
			mw_perf_snapshot_release(&s);
		} else
			snprintf(probe, sizeof(probe), "query '4': %s", qe.msg);
		mw_error(why, "no configured object is in the title database "
			 "('Counter 009' has %zu titles, object '%s' unknown); %s",
			 st->titles.n, st->paths[0].p.object, probe);
		pc_free(st);
		return MW_COLLECTOR_UNSUPPORTED;
	}
	*state = st;
	return MW_COLLECTOR_OK;
}

static void log_type_once(struct pc_state *st, uint32_t type, const char *counter)
{
	size_t i;

	for (i = 0; i < st->nlogged; i++)
		if (st->logged_types[i] == type)
			return;
	if (st->nlogged < MW_ARRAY_SIZE(st->logged_types))
		st->logged_types[st->nlogged++] = type;
	mw_log_warn("perfcounters: counter type 0x%08" PRIx32 " of '%s' is not supported; "
		    "skipped", type, counter);
}

static int pc_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct pc_state *st = state;
	int64_t t0 = mw_clock_mono_ns();
	const unsigned char *data;
	size_t len, i, values = 0;
	int cur = st->cur, prev = !st->cur;
	const struct mw_perf_snapshot *ps;
	struct mw_perf_snapshot *s;

	if (mw_perfreg_title_stamp(st->reg) != st->title_stamp && load_titles(st, &ctx->err))
		return MW_COLLECTOR_ERROR;
	if (mw_perfreg_query(st->reg, st->query, &data, &len, &ctx->err))
		return MW_COLLECTOR_ERROR;
	MW_GROW(st->buf[cur], st->cap[cur], len ? len : 1);
	memcpy(st->buf[cur], data, len);
	st->len[cur] = len;
	if (st->close_key)
		mw_perfreg_close_key(st->reg);
	if (st->have[cur]) {
		mw_perf_snapshot_release(&st->snap[cur]);
		st->have[cur] = false;
	}
	s = &st->snap[cur];
	if (mw_perf_snapshot_parse_ex(s, st->buf[cur], len, MW_PERF_PARSE_SKIP_BAD_OBJECTS,
				      &ctx->err))
		return mw_error_prefix(&ctx->err, "query '%s'", st->query),
		       MW_COLLECTOR_ERROR;
	st->have[cur] = true;
	ps = st->have[prev] ? &st->snap[prev] : NULL;

	for (i = 0; i < st->npaths; i++) {
		const struct pc_path *p = &st->paths[i];
		const struct mw_perf_object *o = NULL, *po = NULL;
		size_t k, c, in;

		for (k = 0; k < p->nobjs && !o; k++)
			o = mw_perf_snapshot_object(s, p->objs[k]);
		if (!o)
			continue;
		if (!st->query_fixed) {
			/* "\\Thread(notepad/0)\\..." needs Process in the answer:
			 * ask for it from the next sample on. */
			uint32_t miss[MAX_PARENTS];
			size_t nm = mw_perf_missing_parents(s, o, miss, MAX_PARENTS);

			for (k = 0; k < nm && st->nparents < MAX_PARENTS; k++) {
				if (mw_perf_query_add(st->query, sizeof(st->query), miss[k]) == 1) {
					st->parents[st->nparents++] = miss[k];
					mw_log_info("perfcounters: object %" PRIu32 " names parents in "
						    "object %" PRIu32 "; added to the query",
						    o->name_index, miss[k]);
				}
			}
		}
		po = ps ? mw_perf_snapshot_object(ps, o->name_index) : NULL;
		/* the counter, resolved by name within this object */
		for (c = 0; c < o->ncounters; c++) {
			const char *n = mw_perf_title(&st->titles, o->counters[c].name_index);

			if (n && !strcasecmp(n, p->p.counter) && !mw_perf_type_is_base(o->counters[c].type))
				break;
		}
		if (c == o->ncounters)
			continue;
		for (in = 0; in < o->ninstances; in++) {
			const struct mw_perf_instance *inst = &o->instances[in], *pin = NULL;
			struct mw_perf_raw_sample r, pr;
			bool changed = false, has_prev = false;
			enum mw_perf_calc rc;
			double v;
			const char *iname = mw_perf_name(s, inst->full_off);

			if (!mw_perf_path_match_instance(&p->p, s, inst))
				continue;
			if (mw_perf_raw_sample_get(s, o, inst, c, &r))
				continue;
			if (po && c < po->ncounters && po->counters[c].type == o->counters[c].type &&
			    (pin = mw_perf_match_instance(s, o, inst, ps, po, &changed)) &&
			    !mw_perf_raw_sample_get(ps, po, pin, c, &pr))
				has_prev = true;
			rc = mw_perf_compute(&r, has_prev ? &pr : NULL, &v);
			if (rc == MW_PERF_UNSUPPORTED) {
				log_type_once(st, r.type, p->p.counter);
				continue;
			}
			values++;
			if (rc != MW_PERF_VALUE)
				continue;
			{
				struct mw_label l[3] = { { "object", p->p.object },
							 { "counter", p->p.counter },
							 { "instance", iname ? iname : "" } };

				mw_batch_add(ctx->batch, mw_metric_name(MW_M_PERF_VALUE), l, 3, v,
					     ctx->ts_ms);
			}
		}
	}
	{
		struct mw_label l[1] = { { "query", st->query } };

		mw_batch_add(ctx->batch, mw_metric_name(MW_M_PERF_OBJECTS_SKIPPED), l, 1,
			     (double)s->skipped_objects, ctx->ts_ms);
	}
	st->cur = prev;
	if (s->skipped_objects)
		snprintf(ctx->mode, sizeof(ctx->mode), "query '%.24s': %zu values; %zu malformed "
			 "object(s) skipped: %.40s", st->query, values, s->skipped_objects,
			 s->skip_note);
	else
		snprintf(ctx->mode, sizeof(ctx->mode), "query '%.40s': %zu values, %.2f ms; %s",
			 st->query, values, (double)(mw_clock_mono_ns() - t0) / 1e6,
			 st->version_note);
	if (s->skipped_objects != st->last_skipped)
		mw_log_warn("perfcounters: query '%s': %zu malformed object(s) skipped, the "
			    "rest used (first: %s)", st->query, s->skipped_objects, s->skip_note);
	st->last_skipped = s->skipped_objects;
	return MW_COLLECTOR_OK;
}

static void pc_fini(void *state)
{
	pc_free(state);
}

const struct mw_collector mw_collector_perfcounters = {
	.name = "perfcounters",
	.summary = "NT performance counters (HKEY_PERFORMANCE_DATA) by path, computed as perfmon\n"
		   "does.",
	.default_interval_ms = 5000,
	.default_enabled = true,
	.options = pc_options,
	.noptions = MW_ARRAY_SIZE(pc_options),
	.options_size = sizeof(struct pc_options),
	.init = pc_init,
	.sample = pc_sample,
	.fini = pc_fini,
};
