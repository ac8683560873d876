/*
 * import_cmd.c - `memwatchd import`: files through the parsers into the
 * store (the glue: reading, decoding UTF-16, committing, the summary).
 *
 * A file is read in blocks; CSV is cut into lines (the buffer grows to the
 * longest line, never to the file), JSON is fed block by block.  Points go
 * through mw_store_add, so they are compressed, rolled up and kept by the
 * retention like sampled ones; they are committed every flush_points and
 * at the end of each file.  At a bad line the points before it are
 * committed and the file stops there (CSV with --skip-bad: the row is
 * reported and left out, the rest imported).  The command's store skips
 * points stored already (skip_stored, storage/dedupe.c): importing a file
 * twice, or files that overlap, stores each point once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutf8.h"
#include "import/exit_reports.h"
#include "import/import.h"
#include "base/calendar.h"
#include "base/clock.h"
#include "app/commands.h"
#include "core/config.h"
#include "base/units.h"
#include "base/utf16.h"
#include "base/xalloc.h"
#include "storage/store.h"

#define RAW_BLOCK 65536
#define DEFAULT_FLUSH_POINTS 1000000
/* A recording from a machine whose clock runs a little ahead is fine; a
 * point further ahead would stand for "now" in every view of the store. */
#define DEFAULT_MAX_FUTURE_MS (10 * 60 * 1000LL)

/* ---- reading, UTF-16LE transcoded ----------------------------------------- */

struct rd {
	FILE *f;
	enum mw_import_encoding enc;
	unsigned char raw[RAW_BLOCK];
	size_t rpos, rlen;
	struct mw_utf16_decoder utf16;	/* a surrogate pair may straddle two reads */
	bool eof, error;
};

static size_t rd_fill(struct rd *r)
{
	size_t keep = r->rlen - r->rpos, n;

	memmove(r->raw, r->raw + r->rpos, keep);
	r->rpos = 0;
	r->rlen = keep;
	if (r->eof)
		return keep;
	n = fread(r->raw + keep, 1, sizeof(r->raw) - keep, r->f);
	if (n == 0) {
		r->eof = true;
		r->error = ferror(r->f) != 0;
	}
	r->rlen += n;
	return r->rlen;
}

/* Up to cap (>= 8) bytes of UTF-8; 0 at the end (or on an error). */
static size_t rd_read(struct rd *r, char *out, size_t cap)
{
	size_t n = 0;

	if (r->rpos == r->rlen || (r->enc == MW_ENC_UTF16LE && r->rlen - r->rpos < 2))
		rd_fill(r);
	if (r->enc == MW_ENC_UTF8) {
		n = r->rlen - r->rpos;
		if (n > cap)
			n = cap;
		memcpy(out, r->raw + r->rpos, n);
		r->rpos += n;
		return n;
	}
	while (r->rlen - r->rpos >= 2 && n + MW_UTF16_UNIT_MAX <= cap) {
		uint16_t u = (uint16_t)(r->raw[r->rpos] | r->raw[r->rpos + 1] << 8);

		r->rpos += 2;
		n += mw_utf16_feed(&r->utf16, u, out + n);
	}
	return n;
}

/* Nothing more to decode (a stray odd byte at the end of UTF-16 is dropped). */
static bool rd_done(const struct rd *r)
{
	return r->eof && r->rlen - r->rpos < (r->enc == MW_ENC_UTF16LE ? 2u : 1u);
}

/* ---- into the store --------------------------------------------------------- */

struct glue {
	struct mw_store *store;
	uint64_t pending;
};

static void glue_point(void *ctx, const char *key, const char *metric,
		       const struct mw_label *labels, size_t nlabels, int64_t ts_ms,
		       double value)
{
	struct glue *g = ctx;

	if (g->store)
		mw_store_add(g->store, key, metric, labels, nlabels, ts_ms, value);
	g->pending++;
}

static int glue_flush(struct glue *g, const char *path, struct mw_err *err)
{
	struct mw_err why;

	g->pending = 0;
	if (g->store && mw_store_flush(g->store, &why))
		return mw_error(err, "%s: storage: %s", path, why.msg);
	return 0;
}

static void stats_init(struct mw_import_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->first_ts = INT64_MAX;
	st->last_ts = INT64_MIN;
}

/* One pass over the file: into the store, or (store NULL) parse only. */
static int import_pass(struct mw_store *store, const char *path,
		       const struct mw_import_options *o, struct mw_import_result *res,
		       struct mw_err *err)
{
	struct mw_import_options defaults = { false, 0, NULL, 0 };
	struct glue g = { store, 0 };
	struct rd *r = mw_xcalloc(1, sizeof(*r));
	struct mw_csv_import csv;
	struct mw_json_import *json = NULL;
	size_t cap = 4 * RAW_BLOCK, len = 0, start = 0, n, bom;
	char *buf = NULL;
	uint64_t flush_points, lineno = 0;
	struct mw_err why = { "" };
	struct mw_store_stats before, after;
	int rc = -1;

	if (!o)
		o = &defaults;
	if (store)
		mw_store_get_stats(store, &before);
	flush_points = o->flush_points ? o->flush_points : DEFAULT_FLUSH_POINTS;
	memset(res, 0, sizeof(*res));
	stats_init(&res->st);
	mw_csv_import_init(&csv, glue_point, &g);
	csv.not_after_ms = o->not_after_ms;
	r->f = mw_fopen(path, "rb");
	if (!r->f) {
		mw_error(err, "%s: cannot open: %s", path, strerror(errno));
		goto out;
	}
	rd_fill(r);
	if (r->error) {
		mw_error(err, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	r->enc = mw_import_detect_encoding(r->raw, r->rlen, &bom);
	res->encoding = r->enc;
	r->rpos = bom;
	if (r->enc == MW_ENC_UTF16BE) {
		mw_error(err, "%s:1: UTF-16 big-endian text; save it as UTF-8 or UTF-16LE", path);
		goto out;
	}
	buf = mw_xmalloc(cap);
	len = rd_read(r, buf, cap);
	res->format = mw_import_detect_format(buf, len);
	if (res->format == MW_IMPORT_UNKNOWN) {
		size_t i = 0;

		while (i < len && (buf[i] == ' ' || buf[i] == '\r' || buf[i] == '\n' ||
				   buf[i] == '\t'))
			i++;
		if (i == len) {
			mw_error(err, "%s: empty file, nothing to import", path);
		} else {
			char head[24];
			size_t k;

			for (k = 0; k < sizeof(head) - 1 && i + k < len &&
				    buf[i + k] >= 0x20 && buf[i + k] < 0x7f; k++)
				head[k] = buf[i + k];
			head[k] = '\0';
			mw_error(err, "%s:1: not a memwatch export or PDH CSV (typeperf, relog): "
				 "it starts with '%s'%s", path, head,
				 k ? "" : " (binary data?)");
		}
		goto out;
	}

	if (res->format == MW_IMPORT_JSON) {
		json = mw_json_import_new(glue_point, &g);
		mw_json_import_not_after(json, o->not_after_ms);
		while (len) {
			if (mw_json_import_feed(json, buf, len, &why)) {
				res->stop_line = mw_json_import_line(json);
				goto bad;
			}
			if (g.pending >= flush_points && glue_flush(&g, path, err))
				goto stopped;
			len = rd_read(r, buf, cap);
		}
		if (r->error) {
			mw_error(&why, "read error: %s", strerror(errno));
			res->stop_line = mw_json_import_line(json);
			goto bad;
		}
		if (mw_json_import_finish(json, &why)) {
			res->stop_line = mw_json_import_line(json);
			goto bad;
		}
		rc = 0;
		goto done;
	}

	/* CSV, line by line */
	for (;;) {
		char *nl = memchr(buf + start, '\n', len - start);
		size_t end;

		if (!nl && len - start > MW_IMPORT_MAX_LINE) {
			/* a line that never ends: named, not read to the end */
			mw_error(&why, "line longer than %u MiB (no line break: not a CSV export?)",
				 MW_IMPORT_MAX_LINE >> 20);
			res->stop_line = lineno + 1;
			goto bad;
		}
		if (!nl) {
			if (rd_done(r)) {
				if (start == len)
					break;
				end = len;	/* a last line without its newline */
			} else {
				memmove(buf, buf + start, len - start);
				len -= start;
				start = 0;
				if (cap - len < 2 * RAW_BLOCK) {
					cap *= 2;
					buf = mw_xrealloc(buf, cap);
				}
				n = rd_read(r, buf + len, cap - len);
				len += n;
				if (!n && r->error) {
					mw_error(&why, "read error: %s", strerror(errno));
					res->stop_line = lineno + 1;
					goto bad;
				}
				continue;
			}
		} else {
			end = (size_t)(nl - buf);
		}
		lineno++;
		if (end - start > MW_IMPORT_MAX_LINE) {
			mw_error(&why, "line longer than %u MiB", MW_IMPORT_MAX_LINE >> 20);
			res->stop_line = lineno;
			goto bad;
		}
		if (mw_csv_import_line(&csv, buf + start, end - start, &why)) {
			/* a point in the future is no bad row to skip: the file's clock is */
			if (!o->skip_bad || !csv.have_header || csv.st.future) {
				res->stop_line = lineno;
				goto bad;
			}
			csv.st.skipped_lines++;
			if (o->report)
				fprintf(o->report, "%s:%llu: %s (line skipped)\n", path,
					(unsigned long long)lineno, why.msg);
		}
		start = nl ? end + 1 : len;
		if (g.pending >= flush_points && glue_flush(&g, path, err))
			goto stopped;
	}
	if (!csv.have_header) {
		mw_error(&why, "no header line");
		res->stop_line = 1;
		goto bad;
	}
	rc = 0;
	goto done;

bad:
	mw_error(err, "%s:%llu: %s", path, (unsigned long long)res->stop_line, why.msg);
	res->stopped = true;
	/* what came before the bad line is kept */
	if (glue_flush(&g, path, &why))
		mw_error(err, "%s:%llu: %s; and %s", path, (unsigned long long)res->stop_line,
			 err->msg, why.msg);
	goto done;
stopped:
	res->stopped = true;
done:
	if (rc == 0 && glue_flush(&g, path, err)) {
		res->stopped = true;
		rc = -1;
	}
	if (json) {
		res->st = *mw_json_import_stats(json);
		res->st.lines = mw_json_import_line(json);
	} else {
		res->st = csv.st;
		res->bias_min = csv.bias_min;
		snprintf(res->zone, sizeof(res->zone), "%s", csv.zone);
	}
out:
	if (store) {
		mw_store_get_stats(store, &after);
		res->already_stored = after.skipped_points_total - before.skipped_points_total;
	}
	mw_json_import_free(json);
	mw_csv_import_release(&csv);
	if (r->f)
		fclose(r->f);
	free(r);
	free(buf);
	return rc;
}

int mw_import_file(struct mw_store *store, const char *path,
		   const struct mw_import_options *o, struct mw_import_result *res,
		   struct mw_err *err)
{
	static const struct mw_import_options defaults = { false, 0, NULL, 0 };
	struct mw_import_options check;

	/* A point in the future (or after year 9999) refuses the whole file:
	 * a first pass without the store finds it before anything is stored.
	 * Other errors are the second pass's to report (the points before
	 * them are kept). */
	if (store) {
		if (!o)
			o = &defaults;
		check = *o;
		check.report = NULL;
		if (import_pass(NULL, path, &check, res, err) && res->st.future) {
			res->st.points = res->st.series = 0;
			res->st.first_ts = INT64_MAX;
			res->st.last_ts = INT64_MIN;
			return -1;
		}
	}
	return import_pass(store, path, o, res, err);
}

/* ---- the command ---------------------------------------------------------------- */

static const char import_usage[] =
	"usage: memwatchd import [--db PATH] [--config FILE] [--skip-bad]\n"
	"                        [--max-future DURATION | --allow-future] FILE...\n"
	"\n"
	"Load recordings into the database: memwatch's own /api/v1/export (CSV or\n"
	"JSON) and typeperf/relog CSV (\"(PDH-CSV 4.0) (ZONE)(BIAS)\" header), and exit\n"
	"leak reports: LeakSanitizer files (NAME.PID), debugger logs with ntdll's\n"
	"report, UMDH logs and comparisons.  The format is read from the content.\n"
	"Stop the daemon writing to the same database first, or import into another\n"
	"file with --db.  A point the database\n"
	"holds already (same series, same time) is kept once, as first stored.\n"
	"\n"
	"  --db PATH       database file (memwatch.db, or [storage] db of --config)\n"
	"  --config FILE   take [storage] settings (db, retention, chunks) from FILE\n"
	"  --skip-bad      CSV: report a bad line and go on (default: stop the file\n"
	"                  there; the points before it are kept)\n"
	"  --max-future D  a point more than D (10m) ahead of this machine's clock\n"
	"                  refuses its whole file: nothing of it is stored\n"
	"  --allow-future  store points in the future as they are (after year 9999:\n"
	"                  always refused)\n"
	"\n"
	"Each file gets a summary line: points, series, time span (UTC), empty cells,\n"
	"lines skipped.  Exit status: 0 everything imported; 2 bad usage, or a bad or\n"
	"unreadable file (\"FILE:LINE: what was wrong\"; also when --skip-bad left\n"
	"lines out); 1 the database could not be written.\n";

static void summary(const char *path, const struct mw_import_result *res, FILE *f)
{
	const struct mw_import_stats *st = &res->st;
	char from[40] = "-", to[40] = "-";

	if (st->points) {
		mw_time_human(from, sizeof(from), st->first_ts);
		mw_time_human(to, sizeof(to), st->last_ts);
	}
	fprintf(f, "%s: %s%s", path,
		res->format == MW_IMPORT_JSON ? "memwatch JSON" : "PDH CSV",
		res->encoding == MW_ENC_UTF16LE ? " (UTF-16LE)" : "");
	if (res->format == MW_IMPORT_CSV)
		fprintf(f, ", zone \"%s\" (bias %d min)", res->zone, res->bias_min);
	fprintf(f, ": %llu points in %llu series, %s .. %s, %llu empty cells, "
		"%llu lines skipped",
		(unsigned long long)st->points, (unsigned long long)st->series, from, to,
		(unsigned long long)st->gaps, (unsigned long long)st->skipped_lines);
	if (res->already_stored)
		fprintf(f, ", %llu points already stored (kept once)",
			(unsigned long long)res->already_stored);
	fprintf(f, "%s\n", res->stopped ? "" : ", complete");
	if (res->st.future)
		fprintf(f, "%s: refused at line %llu: a point in the future; nothing of this file "
			"was stored\n", path, (unsigned long long)res->stop_line);
	else if (res->stopped && res->stop_line && res->format == MW_IMPORT_CSV)
		fprintf(f, "%s: stopped at line %llu: the points of the lines above were imported "
			"and committed, nothing from line %llu on\n", path,
			(unsigned long long)res->stop_line, (unsigned long long)res->stop_line);
	else if (res->stopped && res->stop_line)
		fprintf(f, "%s: stopped at line %llu (see the error for the series and point): "
			"the points before it were imported and committed, none after\n", path,
			(unsigned long long)res->stop_line);
}

int mw_cmd_import(int argc, char **argv)
{
	struct mw_import_options io = { false, 0, stderr, 0 };
	struct mw_config cfg;
	struct mw_store_options so;
	struct mw_store *store = NULL;
	struct mw_err err = { "" };
	const char *config_path = NULL, *db = NULL;
	const char **files;
	int i, nfiles = 0, rc = 0;
	bool dashes = false, allow_future = false;
	int64_t max_future_ms = DEFAULT_MAX_FUTURE_MS;
	int64_t oldest = INT64_MAX;
	uint64_t total = 0;

	files = mw_xcalloc((size_t)argc + 1, sizeof(*files));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (dashes || a[0] != '-' || !a[1]) {
			files[nfiles++] = a;
		} else if (!strcmp(a, "--")) {
			dashes = true;
		} else if (!strcmp(a, "--skip-bad")) {
			io.skip_bad = true;
		} else if (!strcmp(a, "--allow-future")) {
			allow_future = true;
		} else if (!strcmp(a, "--max-future") || !strncmp(a, "--max-future=", 13)) {
			const char *v = a[12] == '=' ? a + 13 : i + 1 < argc ? argv[++i] : NULL;

			if (!v || mw_parse_duration_ms(v, &max_future_ms, &err)) {
				fprintf(stderr, "memwatchd import: --max-future: %s\n",
					v ? err.msg : "needs a duration (10m)");
				free(files);
				return 2;
			}
		} else if (!strcmp(a, "--db") || !strcmp(a, "--config")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "memwatchd import: %s needs a value\n", a);
				free(files);
				return 2;
			}
			*(a[2] == 'd' ? &db : &config_path) = argv[++i];
		} else if (!strncmp(a, "--db=", 5)) {
			db = a + 5;
		} else if (!strncmp(a, "--config=", 9)) {
			config_path = a + 9;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(import_usage, stdout);
			free(files);
			return 0;
		} else {
			fprintf(stderr, "memwatchd import: unknown option '%s'\n%s", a, import_usage);
			free(files);
			return 2;
		}
	}
	if (!nfiles) {
		fprintf(stderr, "memwatchd import: no FILE given\n%s", import_usage);
		free(files);
		return 2;
	}
	mw_config_init(&cfg);
	if ((config_path && mw_config_load_file(&cfg, config_path, &err)) ||
	    (db && mw_config_set(&cfg, "storage", "db", db, "--db", &err))) {
		fprintf(stderr, "memwatchd import: %s\n", err.msg);
		mw_config_release(&cfg);
		free(files);
		return 2;
	}
	/* Now, read once: every file of the run is held to the same limit. */
	io.not_after_ms = allow_future ? 0 : mw_clock_wall_ms() + max_future_ms;
	mw_store_options_from_config(&so, &cfg);
	so.self_metrics = false;
	so.skip_stored = true;	/* the same recording twice stores it once */
	if (mw_store_open(&store, &so, &err)) {
		fprintf(stderr, "memwatchd import: %s\n", err.msg);
		mw_config_release(&cfg);
		free(files);
		return 1;
	}
	for (i = 0; i < nfiles; i++) {
		struct mw_import_result res;
		int xr = mw_import_exit_report_file(store, files[i], stdout, &err);

		if (xr) {	/* an exit leak report (import/exit_reports.h) */
			if (xr < 0) {
				fprintf(stderr, "memwatchd import: %s\n", err.msg);
				rc = strstr(err.msg, ": storage: ") && rc != 2 ? 1 : 2;
			}
			continue;
		}
		if (mw_import_file(store, files[i], &io, &res, &err)) {
			fprintf(stderr, "memwatchd import: %s\n", err.msg);
			rc = strstr(err.msg, ": storage: ") && rc != 2 ? 1 : 2;
			if (!res.format)
				continue;	/* not read at all */
		}
		summary(files[i], &res, stdout);
		if (res.st.skipped_lines)
			rc = 2;	/* imported as asked, but the input had errors */
		total += res.st.points;
		if (res.st.points && res.st.first_ts < oldest)
			oldest = res.st.first_ts;
	}
	mw_store_free(store);
	if (total && so.retention_raw_ms > 0 &&
	    oldest < mw_clock_wall_ms() - so.retention_raw_ms) {
		char d[32];

		mw_format_duration(d, sizeof(d), so.retention_raw_ms);
		printf("note: some points are older than the raw retention (%s): the daemon's "
		       "retention will remove them from the raw tier, their 1-minute and 1-hour "
		       "rollups stay longer ([storage] retention_raw in --config to keep them)\n",
		       d);
	}
	mw_config_release(&cfg);
	free(files);
	return rc;
}
