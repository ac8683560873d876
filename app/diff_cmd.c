/*
 * diff_cmd.c - `memwatchd diff`: what changed in a process's working set
 * between two times, from a database file (--db) or a running daemon
 * (--url, GET /api/v1/diff), as a table or JSON (the same JSON either
 * way: analysis/ws_diff.c builds it on both sides).  The table shows the
 * two moments as times are shown everywhere, "YYYY-MM-DD HH:MM:SS UTC"
 * (mw_time_human); the JSON keeps t1_ms and t2_ms.
 * Exit status: 0, or 2 on a usage or input error (nothing found too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ws_diff.h"
#include "base/clock.h"
#include "cmd_args.h"
#include "commands.h"
#include "report_source.h"
#include "core/params.h"

static const char diff_usage[] =
	"usage: memwatchd diff [--db PATH | --url URL] (--pid P | --process NAME)\n"
	"                      [--from T] [--to T] [--limit N] [--token TOKEN] [--ca-file PEM]\n"
	"                      [--json]\n"
	"\n"
	"What changed in a process's working set between two times: resident bytes by\n"
	"category and sharing at both times and the change, then the regions that are\n"
	"new, gone, grown or shrunk, largest change first, with their owner (module,\n"
	"mapped file, heap, stack).  Needs the workingset collector's region snapshots.\n"
	"Times are shown in UTC.  Exit status 0, 2 on a usage or input error.\n"
	"\n"
	"  --db PATH        database file (memwatch.db)\n"
	"  --url URL        ask a running daemon instead (http[s]://HOST:PORT)\n"
	"  --pid P          the process id\n"
	"  --process NAME   the image name (with no --pid: its newest process)\n"
	"  --from T, --to T ms, RFC 3339, relative (-1h) or as printed (\"2025-11-21\n"
	"                   23:40:00 UTC\"); default the first and the last snapshot;\n"
	"                   each snaps to the nearest snapshot in range\n"
	"  --limit N        list at most N regions (all)\n"
	"  --token TOKEN    bearer token for --url (or MEMWATCH_TOKEN)\n"
	"  --ca-file PEM    CA that signed an https:// daemon's certificate (default: the\n"
	"                   system's trust store; not on Windows: import it there)\n"
	"  --json           the report as JSON (the shape of GET /api/v1/diff)\n";

struct diff_args {
	const char *db, *url, *token, *ca_file, *pid, *process, *from, *to, *limit;
	bool json;
};

static int parse_args(struct diff_args *a, int argc, char **argv)
{
	static const char *const flags[] = { "--db", "--url", "--token", "--ca-file", "--pid",
					     "--process", "--from", "--to", "--limit" };
	const char **slots[] = { &a->db, &a->url, &a->token, &a->ca_file, &a->pid, &a->process,
				 &a->from, &a->to, &a->limit };
	int rc = mw_cmd_parse_slots("diff", diff_usage, argc, argv, flags, slots,
				    MW_ARRAY_SIZE(flags), &a->json);

	if (rc)
		return rc;
	if (mw_report_source_check("diff", a->db, a->url, a->ca_file, &a->token))
		return 2;
	if (!a->pid && !a->process) {
		fprintf(stderr, "memwatchd diff: --pid or --process is required\n");
		return 2;
	}
	return 0;
}

static int report_from_url(const struct diff_args *a, struct mw_report *rep)
{
	char path[8192] = "/api/v1/diff";
	bool first = true;

	if (mw_report_query_append(path, sizeof(path), &first, "pid", a->pid) ||
	    mw_report_query_append(path, sizeof(path), &first, "process", a->process) ||
	    mw_report_query_append(path, sizeof(path), &first, "from", a->from) ||
	    mw_report_query_append(path, sizeof(path), &first, "to", a->to) ||
	    mw_report_query_append(path, sizeof(path), &first, "limit", a->limit)) {
		fprintf(stderr, "memwatchd diff: the options are too long\n");
		return -1;
	}
	return mw_report_from_url("diff", a->url, path, a->token, a->ca_file, "totals", "a diff",
				  rep);
}

static int build_report(struct mw_reader *r, const void *q, struct mw_jbuf *out,
			struct mw_err *err)
{
	return mw_ws_diff_report(r, q, out, err);
}

/* The report from the database; the times are read here, relative to
 * this machine's "now". */
static int report_from_db(const struct diff_args *a, struct mw_report *rep)
{
	struct mw_ws_diff_query q = { a->pid, a->process, INT64_MIN, INT64_MAX, 0 };
	struct mw_err err = { "" };
	int64_t now = mw_clock_wall_ms(), n;

	if (a->pid && mw_param_int(a->pid, 0, UINT32_MAX, &n, &err)) {
		fprintf(stderr, "memwatchd diff: --pid: %s\n", err.msg);
		return -1;
	}
	if (a->from && mw_param_time(a->from, now, &q.from_ms, &err)) {
		fprintf(stderr, "memwatchd diff: --from: %s\n", err.msg);
		return -1;
	}
	if (a->to && mw_param_time(a->to, now, &q.to_ms, &err)) {
		fprintf(stderr, "memwatchd diff: --to: %s\n", err.msg);
		return -1;
	}
	if (a->limit) {
		if (mw_param_int(a->limit, 1, 1000000, &n, &err)) {
			fprintf(stderr, "memwatchd diff: --limit: %s\n", err.msg);
			return -1;
		}
		q.limit = (size_t)n;
	}
	return mw_report_from_db("diff", a->db, build_report, &q, rep);
}

int mw_cmd_diff(int argc, char **argv)
{
	struct diff_args a;
	struct mw_report report;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = parse_args(&a, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (a.url ? report_from_url(&a, &report) : report_from_db(&a, &report))
		return 2;
	mw_report_print(&report, a.json, mw_ws_diff_print);
	mw_report_release(&report);
	return 0;
}
