/*
 * check_cmd.c - `memwatchd check`: the leak verdict for a soak test, from
 * a database file (--db) or a running daemon (--url), as a table or JSON.
 * Exit status: 0 pass, 1 fail, 3 inconclusive, 2 usage or input error.
 *
 * Both ways produce the same report (analysis/leak_report.c builds it;
 * over --url the daemon builds it and we print what it sent), so a build
 * agent sees the same verdict whichever it uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/leak_report.h"
#include "base/clock.h"
#include "base/cpu_count.h"
#include "cmd_args.h"
#include "commands.h"
#include "report_source.h"

static const char check_usage[] =
	"usage: memwatchd check [--db PATH | --url URL] [--process NAME] [--match SELECTOR]\n"
	"                       [--from T] [--to T] [--warmup D] [--min-duration D]\n"
	"                       [--max-growth RATE] [--max-count-growth N/h] [--horizon D]\n"
	"                       [--exit-max-bytes SIZE] [--limit N] [--inconclusive pass|fail]\n"
	"                       [--token TOKEN] [--ca-file PEM] [--json]\n"
	"\n"
	"Judge whether processes leak: pass, fail or inconclusive per process (image name),\n"
	"with the growth rate, since when, and which kind of memory.  Exit status 0 pass,\n"
	"1 fail, 3 inconclusive (0 with --inconclusive pass), 2 usage or input error.\n"
	"\n"
	"  --db PATH          database file to judge (memwatch.db)\n"
	"  --url URL          ask a running daemon instead (http[s]://HOST:PORT)\n"
	"  --process NAME     judge only this process (image name, * and ? wildcards);\n"
	"                     matching nothing is an error (exit 2)\n"
	"  --match SELECTOR   judge only these series (default: all of each process's memory:\n"
	"                     private, shared, mapped files, and handles and threads as counts);\n"
	"                     matching nothing is an error (exit 2)\n"
	"  --from T, --to T   range: ms, RFC 3339 or relative (-24h); default all stored data\n"
	"  --warmup D         not judged at the start of each process (10m)\n"
	"  --min-duration D   judged time needed for a verdict (20m)\n"
	"  --max-growth RATE  growth budget: 1MB/h, 2%/h or both: 1MB/h,2%/h (64KB/h)\n"
	"  --max-count-growth N/h  budget of handles and threads (10/h)\n"
	"  --horizon D        projection horizon for the projected growth (24h)\n"
	"  --exit-max-bytes SIZE  bytes a run may leave leaked at exit ([exit_leaks] max_bytes\n"
	"                     of the daemon with --url; 0B with --db)\n"
	"  --limit N          list at most N processes (all)\n"
	"  --token TOKEN      bearer token for --url (or MEMWATCH_TOKEN)\n"
	"  --ca-file PEM      CA that signed an https:// daemon's certificate (default:\n"
	"                     the system's trust store; not on Windows: import it there)\n"
	"  --json             the report as JSON (the shape of GET /api/v1/leaks)\n";

/* Options taken by mw_leak_query_set, with their command-line spelling. */
static const struct {
	const char *flag, *name;
} query_flags[] = {
	{ "--match", "match" }, { "--from", "from" }, { "--to", "to" },
	{ "--warmup", "warmup" }, { "--min-duration", "min_duration" },
	{ "--max-growth", "max_growth" }, { "--horizon", "horizon" },
	{ "--limit", "limit" }, { "--inconclusive", "inconclusive" },
	{ "--process", "process" }, { "--max-count-growth", "max_count_growth" },
	{ "--exit-max-bytes", "exit_max_bytes" },
};

struct check_args {
	const char *db, *url, *token, *ca_file;
	const char *raw[MW_ARRAY_SIZE(query_flags)];	/* as given, for --url */
	bool json;
	struct mw_leak_query q;
};

static int parse_args(struct check_args *a, int argc, char **argv, int64_t now_ms)
{
	struct mw_err err = { "" };
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;
		size_t flen = mw_cmd_option_len(arg), k;
		int common;
		int found = 0;

		common = mw_cmd_common_flag(arg, check_usage, &a->json);
		if (common == 1)
			return 1;
		if (common == 0)
			continue;
		if (strncmp(arg, "--", 2)) {
			fprintf(stderr, "memwatchd check: unexpected argument '%s'\n", arg);
			return 2;
		}
		v = mw_cmd_option_value("check", argc, argv, &i);
		if (!v)
			return 2;
		if (flen == 4 && !strncmp(arg, "--db", 4)) {
			a->db = v;
			continue;
		}
		if (flen == 5 && !strncmp(arg, "--url", 5)) {
			a->url = v;
			continue;
		}
		if (flen == 7 && !strncmp(arg, "--token", 7)) {
			a->token = v;
			continue;
		}
		if (flen == 9 && !strncmp(arg, "--ca-file", 9)) {
			a->ca_file = v;
			continue;
		}
		for (k = 0; k < MW_ARRAY_SIZE(query_flags); k++) {
			if (strlen(query_flags[k].flag) != flen ||
			    strncmp(arg, query_flags[k].flag, flen))
				continue;
			found = 1;
			if (mw_leak_query_set(&a->q, query_flags[k].name, v, now_ms, &err)) {
				fprintf(stderr, "memwatchd check: %s: %s\n", query_flags[k].flag, err.msg);
				return 2;
			}
			a->raw[k] = v;
		}
		if (!found)
			return mw_cmd_option_unknown("check", arg, flen);
	}
	return mw_report_source_check("check", a->db, a->url, a->ca_file, &a->token);
}

/* The report from the daemon at a->url; the options go as they were
 * written, so relative times are the daemon's "now". */
static int report_from_url(const struct check_args *a, struct mw_report *rep)
{
	char path[8192] = "/api/v1/leaks";
	size_t k;
	bool first = true;

	for (k = 0; k < MW_ARRAY_SIZE(query_flags); k++) {
		if (mw_report_query_append(path, sizeof(path), &first, query_flags[k].name,
					   a->raw[k])) {
			fprintf(stderr, "memwatchd check: %s is too long\n", query_flags[k].flag);
			return -1;
		}
	}
	return mw_report_from_url("check", a->url, path, a->token, a->ca_file, "verdict",
				  "a leak report", rep);
}

static int build_report(struct mw_reader *r, const void *q, struct mw_jbuf *out,
			struct mw_err *err)
{
	return mw_leak_report(r, q, out, NULL, err);
}

int mw_cmd_check(int argc, char **argv)
{
	struct check_args a;
	struct mw_report report;
	int rc;

	memset(&a, 0, sizeof(a));
	mw_leak_query_init(&a.q);
	a.q.threads = mw_cpu_count();
	rc = parse_args(&a, argc, argv, mw_clock_wall_ms());
	if (rc) {
		mw_leak_query_release(&a.q);
		return rc == 1 ? 0 : rc;
	}
	rc = a.url ? report_from_url(&a, &report)
		   : mw_report_from_db("check", a.db, build_report, &a.q, &report);
	if (rc) {
		mw_leak_query_release(&a.q);
		return 2;
	}
	/* the table and the verdict read the report parsed, --db and --url alike */
	mw_report_print(&report, a.json, mw_leak_report_print);
	rc = (int)mw_leak_report_verdict(report.doc, a.q.inconclusive_passes);
	mw_report_release(&report);
	mw_leak_query_release(&a.q);
	return rc;
}
