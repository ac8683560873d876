/*
 * ws_diff.h - what changed in a process's working set between two region
 * snapshots (storage/query.h rebuilds them), and the report GET
 * /api/v1/diff and `memwatchd diff` print: written as JSON (json_out),
 * printed as a table from that JSON parsed.
 *
 * mw_ws_diff_compute is pure: totals per category x sharing at both
 * times and their change, and the regions (by allocation base) whose
 * resident pages changed: new, gone, grown, shrunk, sorted by the
 * absolute size of the change (then by base).
 */
#ifndef MW_ANALYSIS_WS_DIFF_H
#define MW_ANALYSIS_WS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/json_out.h"
#include "base/mwerr.h"
#include "core/ws_regions.h"

enum mw_ws_change { MW_WS_NEW, MW_WS_GONE, MW_WS_GROWN, MW_WS_SHRUNK };
extern const char *const mw_ws_change_names[4];

struct mw_ws_diff_region {
	uint64_t base, size;
	uint8_t category, owner_kind;
	uint32_t owner_id;
	const char *owner;	/* borrowed from the snapshots; NULL: none */
	enum mw_ws_change change;
	uint64_t pages_t1, pages_t2;	/* all sharing classes */
	int64_t delta[MW_WS_NSHARING];	/* pages, t2 - t1 */
	int64_t delta_pages;
};

struct mw_ws_diff {
	uint64_t t1[MW_WS_NCATEGORIES][MW_WS_NSHARING];	/* pages */
	uint64_t t2[MW_WS_NCATEGORIES][MW_WS_NSHARING];
	struct mw_ws_diff_region *regions;
	size_t n;
};

/* Diff two snapshots (any region order).  A region whose total stays
 * but whose pages moved between sharing classes counts as grown when its
 * private pages grew, else shrunk.  Strings stay borrowed from a and b. */
void mw_ws_diff_compute(const struct mw_ws_result *a, const struct mw_ws_result *b,
			struct mw_ws_diff *out);
void mw_ws_diff_release(struct mw_ws_diff *d);

/* ---- the report (needs the read side) --------------------------------- */

struct mw_reader;

struct mw_ws_diff_query {
	const char *pid, *process;	/* at least one */
	int64_t from_ms, to_ms;		/* INT64_MIN / INT64_MAX: first / last snapshot */
	size_t limit;			/* regions listed; 0: all */
};

/* Outcome of a report: 0 ok, MW_WS_NOT_FOUND (404), MW_WS_BAD (400),
 * -1 storage error (the reader's error kind says which). */
#define MW_WS_NOT_FOUND 1
#define MW_WS_BAD 2

/* The JSON answer of /api/v1/diff (shape in README / SCHEMA.md), one
 * object appended to out (nothing on an error). */
int mw_ws_diff_report(struct mw_reader *r, const struct mw_ws_diff_query *q,
		      struct mw_jbuf *out, struct mw_err *err);
/* The JSON answer of /api/v1/regions: the snapshot nearest to at_ms
 * (INT64_MAX: the latest). */
int mw_ws_regions_report(struct mw_reader *r, const char *pid, const char *process,
			 int64_t at_ms, struct mw_jbuf *out, struct mw_err *err);
/* The diff report, its JSON text parsed (cJSON as a parser: the text
 * `diff --db` writes and `diff --url` receives alike), as a table for
 * people. */
void mw_ws_diff_print(const cJSON *report, FILE *f);

#endif
