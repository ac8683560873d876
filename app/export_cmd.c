/*
 * export_cmd.c - `memwatchd export`: stored points to stdout, offline, in
 * the shapes GET /api/v1/export writes (storage/export.c writes both) and
 * `memwatchd import` reads back.  It opens a read-only reader, which takes
 * no lock, so it runs beside a daemon writing the same file (it sees what
 * that daemon has committed; the JSON's complete_to_ms says up to when).
 * Exit status: 0; 2 for a usage or input error (no such database, a bad
 * selector or time, nothing matching); 1 when reading or writing fails
 * midway (the output is then truncated).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "cmd_args.h"
#include "commands.h"
#include "base/fsutf8.h"
#include "core/params.h"
#include "storage/export.h"
#include "storage/query.h"

#define PIECE 65536

static const char export_usage[] =
	"usage: memwatchd export [--db PATH] [--match SELECTOR] [--from T] [--to T]\n"
	"                        [--format csv|json]\n"
	"\n"
	"Write the stored raw points of the matching series to stdout, as GET\n"
	"/api/v1/export does; 'memwatchd import' reads either format back.  Works on\n"
	"the database of a running daemon (it reads what that daemon has written).\n"
	"Exit status 0, 2 on a usage or input error, 1 if reading or writing failed.\n"
	"\n"
	"  --db PATH          database file (memwatch.db)\n"
	"  --match SELECTOR   series selector, e.g. 'memwatch_process_private_bytes{process=\"app.exe\"}'\n"
	"                     (every series)\n"
	"  --from T, --to T   ms, RFC 3339 or relative (-1h); default the first and the\n"
	"                     last stored point\n"
	"  --format F         csv (typeperf's shape, the default) or json\n";

struct export_args {
	const char *db, *match, *from, *to, *format;
};

/* 0, 1 for --help (done), 2 on a usage error. */
static int parse_args(struct export_args *a, int argc, char **argv)
{
	static const char *const flags[] = { "--db", "--match", "--from", "--to", "--format" };
	const char **slots[] = { &a->db, &a->match, &a->from, &a->to, &a->format };

	return mw_cmd_parse_slots("export", export_usage, argc, argv, flags, slots,
				  MW_ARRAY_SIZE(flags), NULL);
}

int mw_cmd_export(int argc, char **argv)
{
	struct export_args a = { "memwatch.db", "", NULL, NULL, "csv" };
	enum mw_export_format fmt;
	struct mw_err err = { "" };
	struct mw_reader *reader = NULL;
	struct mw_export *x = NULL;
	int64_t now = mw_clock_wall_ms(), from = MW_TIME_MIN, to = MW_TIME_MAX;
	const char *p;
	size_t n;
	int rc;

	rc = parse_args(&a, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (mw_export_format_parse(a.format, &fmt, &err)) {
		fprintf(stderr, "memwatchd export: --format: '%s': %s\n", a.format, err.msg);
		return 2;
	}
	if (a.from && mw_param_time(a.from, now, &from, &err)) {
		fprintf(stderr, "memwatchd export: --from: %s\n", err.msg);
		return 2;
	}
	if (a.to && mw_param_time(a.to, now, &to, &err)) {
		fprintf(stderr, "memwatchd export: --to: %s\n", err.msg);
		return 2;
	}
	if (to < from) {
		fprintf(stderr, "memwatchd export: --to is before --from\n");
		return 2;
	}
	if (mw_reader_open(&reader, a.db, &err)) {
		fprintf(stderr, "memwatchd export: --db: %s\n", err.msg);
		return 2;
	}
	if (mw_export_open(&x, reader, a.match, 0, from, to, fmt, &err)) {
		/* a bad selector, or a file that is no memwatch database */
		fprintf(stderr, "memwatchd export: %s: %s\n",
			mw_reader_error_kind(reader) == MW_QERR_BAD ? "--match" : "--db", err.msg);
		rc = 2;
		goto out;
	}
	if (!mw_export_nseries(x)) {
		fprintf(stderr, "memwatchd export: --match: no series matches '%s' in '%s'\n",
			a.match, a.db);
		rc = 2;
		goto out;
	}
	mw_stdout_binary();
	while ((rc = mw_export_next(x, PIECE, &p, &n, &err)) == 1) {
		if (fwrite(p, 1, n, stdout) != n)
			break;
	}
	if (rc < 0) {
		fprintf(stderr, "memwatchd export: reading '%s': %s (the output is truncated)\n",
			a.db, err.msg);
		rc = 1;
		goto out;
	}
	if (fflush(stdout) || ferror(stdout) || rc == 1) {
		fprintf(stderr, "memwatchd export: writing to stdout: %s\n", strerror(errno));
		rc = 1;
		goto out;
	}
	rc = 0;
out:
	mw_export_free(x);
	mw_reader_free(reader);
	return rc;
}
