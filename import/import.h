/*
 * import.h - `memwatchd import`: recordings made elsewhere into the store.
 *
 * Formats, detected from the content (not the file name):
 *   CSV  in PDH's shape: a header row whose first cell is
 *        "(PDH-CSV 4.0) (ZONE NAME)(BIAS)", then one row per sample time
 *        "MM/DD/YYYY hh:mm:ss.mmm" in local time, UTC = local + BIAS
 *        minutes.  Written by typeperf and relog (columns are counter paths
 *        "\\HOST\Object(instance)\Counter") and by memwatch's own
 *        /api/v1/export?format=csv (columns are series keys name{a="x"},
 *        zone "(UTC)(0)").  Both kinds of column may be mixed.
 *   JSON as /api/v1/export?format=json writes it:
 *        {"series":[{"id":…,"name":…,"labels":{…},"points":[[ts,v],…]},…]}
 * Encodings: UTF-8 with or without BOM; UTF-16LE (BOM FF FE, or a first
 * character that is ASCII followed by a zero byte) is transcoded to UTF-8
 * while reading.  UTF-16BE is refused with a message.
 *
 * The parsers are pure: they take a line (CSV) or a block of bytes (JSON)
 * and hand points to a sink; they never touch files or the store.  Files
 * and the store are glue (mw_import_file).  Memory is constant per line:
 * the CSV parser holds one row's cells, the JSON parser one token and one
 * series' name and labels.
 *
 * Counter paths map onto memwatch's metric names (see import.c's table):
 *   \Process(app#1)\Private Bytes -> memwatch_process_private_bytes
 *        {pid="#1", process="app.exe"}: typeperf drops ".exe", so it is put
 *        back (unless the name already ends in it), matching the process
 *        collector's image names; pid is the file's own
 *        \Process(app#1)\ID Process on the same row when it was recorded,
 *        else the perfmon instance index "#0", "#1" ... (not a number, so
 *        it can never be mistaken for a real pid); no `started` label.
 *   \Memory\Available Bytes, Committed Bytes, Commit Limit -> the
 *        memwatch_system_* gauges.
 *   anything else -> memwatch_perf_value{object, counter, instance} with
 *        the names as written in the path (instance as perfmon spells it,
 *        "parent/name#n", or "" for objects without instances), as the
 *        perfcounters collector labels them.
 * Cells "" and " " (typeperf's blank) are gaps; a number is a point; "NaN",
 * "+Inf", "-Inf" as the export writes them are points with those values.
 * The header's bias applies to the whole file: a recording that crosses a
 * daylight-saving change is off by the DST shift on one side of it (PDH
 * CSV carries no rule).  JSON null (the export's NaN and infinities) is
 * read as NaN; CSV keeps infinities.
 *
 * Errors: a file stops at its first bad line ("PATH:LINE: what"), the
 * points before it committed; CSV rows are all or nothing.  A point in the
 * future (after not_after_ms) or after year 9999 refuses the whole file:
 * nothing of it is stored.  Names are never altered: a NUL in a name,
 * label or header cell, or labels that are not UTF-8, are errors.  The command
 * (app/commands.h, mw_cmd_import) exits 0, 2 for usage or input errors
 * (also when --skip-bad left lines out), 1 when the database refuses.
 */
#ifndef MW_IMPORT_H
#define MW_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/batch.h"
#include "base/mwerr.h"

struct mw_store;

/* ---- sink ------------------------------------------------------------------ */

/* Receives every point; labels are sorted by name and key is canonical
 * (mw_series_key_format), so mw_store_add can take them as they are. */
typedef void (*mw_import_point_fn)(void *ctx, const char *key, const char *metric,
				   const struct mw_label *labels, size_t nlabels,
				   int64_t ts_ms, double value);

struct mw_import_stats {
	uint64_t points;
	uint64_t series;	/* distinct series that received points */
	uint64_t gaps;		/* empty cells */
	uint64_t skipped_lines;	/* bad rows skipped (skip_bad only) */
	int64_t first_ts, last_ts;	/* INT64_MAX / INT64_MIN when no points */
	uint64_t lines;		/* lines read so far */
	bool future;		/* stopped at a point after not_after_ms or year 9999 */
};

/* Longest CSV line (the header included): a line that never ends is an
 * error naming it once it is this long, not read until memory runs out.
 * 100,000 typeperf columns fit.  JSON is bounded by its token (1 MiB) and
 * label limits instead: an export is one line however long. */
#define MW_IMPORT_MAX_LINE (8u << 20)

/* ---- detection ------------------------------------------------------------- */

enum mw_import_format {
	MW_IMPORT_UNKNOWN = 0,
	MW_IMPORT_CSV,
	MW_IMPORT_JSON,
};

enum mw_import_encoding {
	MW_ENC_UTF8 = 0,
	MW_ENC_UTF16LE,
	MW_ENC_UTF16BE,		/* recognised, refused */
};

/* Look at the first bytes of a file: its encoding and how many bytes of
 * BOM to skip. */
enum mw_import_encoding mw_import_detect_encoding(const unsigned char *p, size_t n,
						  size_t *bom_len);
/* Format from the first non-space byte of UTF-8 text: '"' or '(' -> CSV,
 * '{' -> JSON. */
enum mw_import_format mw_import_detect_format(const char *p, size_t n);

/* ---- small pure parsers ---------------------------------------------------- */

/* "(PDH-CSV 4.0) (GMT Standard Time)(0)" -> bias in minutes (UTC = local
 * + bias) and the zone name (copied into zone, truncated).  -1 otherwise. */
int mw_import_pdh_header(const char *cell, int *bias_min, char *zone, size_t zone_size,
			 struct mw_err *err);
/* "MM/DD/YYYY hh:mm:ss[.fff]" (local time) -> ms since the epoch of that
 * wall-clock reading taken as UTC; add bias_min * 60000 for UTC.  -1 if
 * it is not such a time. */
int mw_import_pdh_time(const char *s, size_t n, int64_t *ms);
/* A value cell: 1 and *v for a number, 0 for a gap ("" or blanks), -1 for
 * anything else.  Decimal comma ("12,5", no '.') is accepted. */
int mw_import_value(const char *s, size_t n, double *v);

/* A column: where its points go. */
struct mw_import_series {
	char *metric;
	struct mw_label labels[MW_MAX_LABELS];	/* sorted; strings owned */
	size_t nlabels;
	char *key;		/* canonical */
	/* Process counters: the index-based instance ("app#1") and image
	 * name, so that pid can be filled from an ID Process column. */
	bool is_process;	/* a memwatch_process_* gauge */
	bool is_id_process;	/* \Process(x)\ID Process */
	char *instance;		/* perfmon instance ("app#1") of both */
	char *image;		/* is_process: "app.exe" */
};
void mw_import_series_release(struct mw_import_series *s);
/* Rebuild s->key from metric and labels (after changing a label). */
void mw_import_series_rekey(struct mw_import_series *s);
/* A counter path "\\HOST\Object(inst)\Counter" -> metric and labels. */
int mw_import_map_counter(const char *path, struct mw_import_series *out, struct mw_err *err);
/* A series key "name{a=\"x\",b=\"y\"}" (Prometheus exposition form) ->
 * metric and labels, validated and made canonical. */
int mw_import_parse_key(const char *text, struct mw_import_series *out, struct mw_err *err);

/* ---- CSV: one line at a time ------------------------------------------------ */

struct mw_csv_col {
	struct mw_import_series s;
	long pid_col;		/* column of this instance's ID Process, or -1 */
	double cur_pid;		/* pid the key was built with (NaN: "#n") */
	bool used;		/* received a point under the current key */
};

struct mw_csv_import {
	/* after the header */
	bool have_header;
	int bias_min;
	char zone[64];
	struct mw_csv_col *cols;	/* ncols value columns (time excluded) */
	size_t ncols;
	/* one row's cells */
	double *vals;
	signed char *state;	/* per column: 1 value, 0 gap */
	int64_t not_after_ms;	/* a later time is refused (0: up to year 9999) */
	uint64_t header_probes;	/* hash probes of the header's checks (linear) */
	char *cellbuf;
	size_t cellbuf_cap;
	struct mw_import_stats st;
	mw_import_point_fn point;
	void *ctx;
};

void mw_csv_import_init(struct mw_csv_import *c, mw_import_point_fn point, void *ctx);
void mw_csv_import_release(struct mw_csv_import *c);
/* Feed one line without its line break ("\r" at the end is ignored).
 * The first line is the header.  A row is all or nothing: on error no
 * point of it was handed to the sink.  -1 with a message (no file or
 * line number: the caller adds them). */
int mw_csv_import_line(struct mw_csv_import *c, const char *line, size_t len,
		       struct mw_err *err);

/* ---- JSON: blocks of bytes --------------------------------------------------- */

struct mw_json_import;
struct mw_json_import *mw_json_import_new(mw_import_point_fn point, void *ctx);
void mw_json_import_free(struct mw_json_import *j);
/* Points after ms are refused (0: up to year 9999, always refused after). */
void mw_json_import_not_after(struct mw_json_import *j, int64_t ms);
/* Feed the next bytes (any split).  -1 with a message naming what was
 * wrong (series and point); mw_json_import_line() is the line it is on. */
int mw_json_import_feed(struct mw_json_import *j, const char *p, size_t n,
			struct mw_err *err);
/* End of input: -1 unless the document was complete. */
int mw_json_import_finish(struct mw_json_import *j, struct mw_err *err);
uint64_t mw_json_import_line(const struct mw_json_import *j);
const struct mw_import_stats *mw_json_import_stats(const struct mw_json_import *j);

/* ---- files into a store (glue) ----------------------------------------------- */

struct mw_import_options {
	bool skip_bad;		/* CSV: report a bad row and go on (default: stop) */
	uint64_t flush_points;	/* commit every this many points (0: 1,000,000) */
	FILE *report;		/* skipped rows are reported here (NULL: not) */
	/* A point after this is refused, and then nothing of the file is
	 * stored (a first pass reads it through; 0: no limit but year 9999,
	 * which is always refused).  The command sets now + --max-future. */
	int64_t not_after_ms;
};

struct mw_import_result {
	enum mw_import_format format;
	enum mw_import_encoding encoding;
	struct mw_import_stats st;
	int bias_min;		/* CSV */
	char zone[64];		/* CSV */
	uint64_t already_stored;	/* points the store had already (skip_stored,
				 * store.h): read, not stored again */
	bool stopped;		/* a bad line or a store error ended it early */
	uint64_t stop_line;	/* the bad line (0: none or not a line) */
};

/* Import one file into the store (NULL: parse only, for benchmarks).
 * With a store opened with skip_stored (store.h; the command does), the
 * points it held already are not stored again: res->already_stored.
 * Points are committed every flush_points and at the end; on a bad line
 * the points before it are committed and -1 is returned with
 * "PATH:LINE: what was wrong" in err (res says how far it got).  A store
 * that cannot commit is -1 too ("PATH: storage: ..."). */
int mw_import_file(struct mw_store *store, const char *path,
		   const struct mw_import_options *o, struct mw_import_result *res,
		   struct mw_err *err);

#endif
