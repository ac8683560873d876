/*
 * leak_table.c - a leak report as a table for people (`memwatchd check`):
 * the overall verdict and counts, then one row per group (verdict,
 * process, kind, rate, onset, growth) with its reason folded below; and
 * the exit status's verdict.  It reads the report's JSON text parsed
 * (cJSON as a parser only), which `check --db` writes and `check --url`
 * receives alike, so both print the same.  Times are UTC, the same on
 * every machine and in CI logs.
 *
 * Owner: the detector work.  Caller: app/check_cmd.c (leak_report.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/calendar.h"
#include "base/mwerr.h"
#include "core/params.h"
#include "leak_report.h"

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_of(const cJSON *o, const char *key, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : def;
}

/* "4.1 MiB", "-512 KiB", "-" for NaN. */
static void fmt_bytes(char *buf, size_t size, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double a = fabs(v);
	size_t u = 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	while (a >= 1024 && u + 1 < MW_ARRAY_SIZE(units)) {
		a /= 1024;
		u++;
	}
	snprintf(buf, size, "%s%.*f %s", v < 0 ? "-" : "", u && a < 10 ? 1 : 0, a, units[u]);
}

/* UTC "2026-11-21 10:42:07" (the same on every machine and in CI logs;
 * the header says UTC). */
static void fmt_time(char *buf, size_t size, double ms)
{
	char t[MW_TIME_TEXT_MAX];
	size_t n;

	if (!isfinite(ms) || fabs(ms) >= 9.2e18) {
		snprintf(buf, size, "-");
		return;
	}
	n = mw_time_human(t, sizeof(t), (int64_t)ms);
	/* the table says UTC once, in its header */
	if (n > 4 && n < sizeof(t))
		t[n - 4] = '\0';
	snprintf(buf, size, "%s", t);
}

#define TABLE_WIDTH 120
#define REASON_INDENT 14

/* The reason under its row, indented and folded at spaces to the width. */
static void print_reason(FILE *f, const char *reason)
{
	size_t room = TABLE_WIDTH - REASON_INDENT, len = strlen(reason);

	while (len > 0) {
		size_t n = len, cut;

		if (n > room) {
			for (cut = room; cut > 0 && reason[cut] != ' '; cut--)
				;
			n = cut ? cut : room;
		}
		fprintf(f, "%*s%.*s\n", REASON_INDENT, "", (int)n, reason);
		reason += n;
		len -= n;
		while (*reason == ' ') {
			reason++;
			len--;
		}
	}
}

/* The first lines: the overall verdict over what and when, the counts,
 * the report's reason, and when the first verdicts can come. */
static void print_summary(const cJSON *report, FILE *f)
{
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(report, "counts");
	const char *process = str_of(report, "process", NULL);
	double excluded = num_of(counts, "excluded");
	char from[32], to[32], ready[32];

	fmt_time(from, sizeof(from), num_of(report, "from_ms"));
	fmt_time(to, sizeof(to), num_of(report, "to_ms"));
	fprintf(f, "%s: %s%s%s from %s to %s UTC", str_of(report, "verdict", "?"),
		process ? "process " : "", process ? process : "", process ? "" : "every process",
		from, to);
	if (counts)
		fprintf(f, "\n  %.0f fail, %.0f inconclusive, %.0f pass", num_of(counts, "fail"),
			num_of(counts, "inconclusive"), num_of(counts, "pass"));
	if (isfinite(excluded) && excluded > 0)
		fprintf(f, "; %.0f without memory (kernel threads) left out", excluded);
	fputc('\n', f);
	if (str_of(report, "reason", NULL))
		fprintf(f, "%s\n", str_of(report, "reason", ""));
	if (isfinite(num_of(report, "first_verdicts_ms"))) {
		double in = (num_of(report, "first_verdicts_ms") - num_of(report, "to_ms")) / 60000;

		fmt_time(ready, sizeof(ready), num_of(report, "first_verdicts_ms"));
		fprintf(f, "first verdicts at %s UTC (%.0f min after the newest data)\n", ready,
			in > 0 ? ceil(in) : 0);
	}
}

/* One group's row and its reason below; a watched process is starred. */
static void print_group(const cJSON *g, FILE *f)
{
	const char *unit = str_of(g, "unit", "bytes");
	char rate[32], since[32], growth[32], name[40];
	double slope = num_of(g, "slope_bytes_per_hour"), gr = num_of(g, "growth_bytes");
	bool fail = !strcmp(str_of(g, "verdict", ""), "fail");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "watched");

	/* a pass shows a rate only when it rises within the budget: no
	 * leak-like figure beside a pass */
	if (!fail && !(isfinite(gr) && gr > 0)) {
		slope = NAN;
		gr = NAN;
	}
	if (strcmp(unit, "bytes")) {
		snprintf(rate, sizeof(rate), isfinite(slope) ? "%+.0f" : "-", slope);
		snprintf(growth, sizeof(growth), isfinite(gr) ? "%+.0f" : "-", gr);
	} else {
		fmt_bytes(rate, sizeof(rate), slope);
		fmt_bytes(growth, sizeof(growth), gr);
	}
	fmt_time(since, sizeof(since), fail ? num_of(g, "onset_ms") : NAN);
	if (fail && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "onset_before_data"))) {
		/* under way before this time: "<" and the minute, in the
		 * column's 19 characters */
		char at[32];

		memcpy(at, since, sizeof(at));
		snprintf(since, sizeof(since), "<%.16s", at);
	}
	snprintf(name, sizeof(name), "%s%.24s", cJSON_IsTrue(w) ? "*" : "", str_of(g, "process", "?"));
	fprintf(f, "%-12s  %-26s  %-12.12s  %10s  %-19s  %10s\n", str_of(g, "verdict", "?"), name,
		str_of(g, "kind", "-"), rate, since, growth);
	print_reason(f, str_of(g, "reason", ""));
}

void mw_leak_report_print(const cJSON *report, FILE *f)
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(report, "groups");
	const cJSON *g;
	bool any_watched = false;

	print_summary(report, f);
	if (!cJSON_GetArraySize(groups))
		return;
	/* 12+2+26+2+12+2+10+2+19+2+10 = 99 columns, the reason below */
	fprintf(f, "\n%-12s  %-26s  %-12s  %10s  %-19s  %10s\n", "VERDICT", "PROCESS", "KIND",
		"RATE/h", "SINCE (UTC)", "GROWTH");
	cJSON_ArrayForEach(g, groups) {
		print_group(g, f);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "watched")))
			any_watched = true;
	}
	if (any_watched)
		fprintf(f, "\n* watched process\n");
}

enum mw_verdict mw_leak_report_verdict(const cJSON *report, bool inconclusive_passes)
{
	const char *v = str_of(report, "verdict", "");

	if (!strcmp(v, "fail"))
		return MW_VERDICT_FAIL;
	if (!strcmp(v, "pass"))
		return MW_VERDICT_PASS;
	return mw_leak_verdict_gate(MW_VERDICT_INCONCLUSIVE, inconclusive_passes);
}
