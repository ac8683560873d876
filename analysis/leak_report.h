/*
 * leak_report.h - leak verdicts over the store: read the floors of the
 * selected series, group them by process, judge (leak.h), say which kind
 * of memory carries the growth, and write the report as JSON (json_out).
 *
 * Used by `memwatchd check --db`, GET /api/v1/leaks and /api/v1/check,
 * and the daemon's background refresh of the memwatch_leak_* gauges.
 * One data model for people: the JSON text.  The table (leak_table.c)
 * and the exit status read that text parsed, whether `check --db` wrote
 * it here or `check --url` received it from a daemon that wrote it with
 * the same code, so both print the same by construction.
 *
 * Threads: any, with a reader of its own (storage/query.h).
 */
#ifndef MW_LEAK_REPORT_H
#define MW_LEAK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/json_out.h"
#include "base/mwerr.h"
#include "core/status.h"
#include "leak.h"

struct mw_reader;

/* What the report says it judged when no selector was given: every
 * process's private memory, shared memory, mapped files, handles and
 * threads (leak_report.c, default_aspects). */
#define MW_LEAK_DEFAULT_MATCH "all"

struct mw_leak_query {
	char *match;		/* selector (owned); NULL: all of a process's memory */
	char *process;		/* image name pattern (owned), * and ?; NULL: all */
	int64_t from_ms;	/* INT64_MIN: from the first stored point */
	int64_t to_ms;		/* INT64_MAX: to the last stored point */
	struct mw_leak_params params;
	size_t limit;		/* groups listed in the report; 0: all */
	bool inconclusive_passes;	/* /api/v1/check, check: inconclusive is a pass */
	/* Judge only the live series (written in the last [storage]
	 * series_idle): the daemon's background gauges, whose cost must not
	 * grow with the processes that came and went (a build agent starts
	 * thousands a day).  check and the API judge the whole history. */
	bool live_only;
	/* Groups judged side by side on this many threads, each with a
	 * reader of its own (0 and 1: the caller's thread only).  The same
	 * report whatever the number; the API and check use the processors
	 * there are (up to MW_LEAK_MAX_THREADS), the background judgement
	 * one, so its CPU stays smooth under its budget. */
	size_t threads;
};

#define MW_LEAK_MAX_THREADS 4

void mw_leak_query_init(struct mw_leak_query *q);
/* The [leak] section's defaults (warm-up, minimum duration, budget,
 * horizon) over mw_leak_params_init's: the judge's and the API's. */
struct mw_config;
void mw_leak_params_from_config(struct mw_leak_params *p, const struct mw_config *cfg);
void mw_leak_query_release(struct mw_leak_query *q);

/*
 * Set one option by name, as the command line (`--warmup 5m`) and the
 * query string (`warmup=5m`) write it: match, process, from, to, warmup,
 * min_duration, max_growth, max_count_growth, horizon, limit,
 * inconclusive (pass|fail).
 * Times are parsed relative to now_ms.  1 when name is not an option,
 * -1 with a message (not naming the option; the caller does) on a bad
 * value, 0 when set.
 */
int mw_leak_query_set(struct mw_leak_query *q, const char *name, const char *value,
		      int64_t now_ms, struct mw_err *err);

/*
 * Judge the series selected by q and write the report (see README, "Leak
 * verdicts", for its shape) as one JSON object appended to out; the
 * overall verdict into *overall when not NULL.  0; -1 with a message when
 * the selector does not parse or matches no series (message starts
 * "match: "), when process matches no process with data in the range
 * ("process: "), or storage cannot be read.  With live_only nothing
 * matching is an empty report, not an error.
 */
int mw_leak_report(struct mw_reader *r, const struct mw_leak_query *q,
		   struct mw_jbuf *out, enum mw_verdict *overall, struct mw_err *err);

/* The same (out may be NULL: no JSON), and every group's verdict as a
 * structure in ranked order (verdicts->v, n and counts; release with
 * mw_leak_status_release, also after a failure): what the daemon's
 * background judgement publishes and stores. */
int mw_leak_report_verdicts(struct mw_reader *r, const struct mw_leak_query *q,
			    struct mw_jbuf *out, struct mw_leak_status *verdicts, struct mw_err *err);

/* The overall verdict of groups counted by verdict: fail when one fails,
 * else pass when one passes, else inconclusive. */
enum mw_verdict mw_leak_overall_verdict(const size_t counts[4]);
/* What a gate acts on: with inconclusive_passes, inconclusive is a pass. */
enum mw_verdict mw_leak_verdict_gate(enum mw_verdict v, bool inconclusive_passes);

/* ---- reading the report's JSON (leak_table.c; cJSON as a parser) ---- */

/* The overall verdict of a parsed report ("verdict"), gated as above;
 * inconclusive when missing. */
enum mw_verdict mw_leak_report_verdict(const cJSON *report, bool inconclusive_passes);

/* The parsed report as a table for people. */
void mw_leak_report_print(const cJSON *report, FILE *f);

#endif
