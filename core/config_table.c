/*
 * config_table.c - the options of the core's sections ([daemon],
 * [storage], [web], [leak], [exit_leaks]) as one typed table (option.h), with the
 * checks and the watch list's parser that some rows name.  config.c sets
 * them, config_reference.c writes them.
 */
#include "config_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listen_addr.h"
#include "base/xalloc.h"

#define OFF(field) offsetof(struct mw_config, field)
#define DAY (86400000LL)

static int db_path_check(const char *value, struct mw_err *err)
{
	if (!*value)
		return mw_error(err, "the database path is empty");
	return 0;
}

/* The shape of [web] listen; whether the address can be bound is found
 * out at start (web/server.c, through the same parser). */
static int listen_check(const char *value, struct mw_err *err)
{
	struct mw_listen_addr addr;

	return mw_listen_addr_parse(value, &addr, err);
}

static void free_watch(struct mw_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nwatch; i++)
		free(cfg->watch[i]);
	free(cfg->watch);
	cfg->watch = NULL;
	cfg->nwatch = 0;
}

void mw_config_add_watch(struct mw_config *cfg, const char *list)
{
	const char *p = list;
	size_t cap = cfg->nwatch;
	bool any = false;

	while (p && *p) {
		const char *end = strchr(p, ',');
		const char *stop = end ? end : p + strlen(p);
		const char *a = p, *b = stop;

		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (b > a) {
			MW_GROW(cfg->watch, cap, cfg->nwatch + 1);
			cfg->watch[cfg->nwatch++] = mw_xstrndup(a, (size_t)(b - a));
			any = true;
		}
		p = end ? end + 1 : NULL;
	}
	if (!any)	/* "" (or only commas and blanks) clears */
		free_watch(cfg);
}

void mw_config_set_watch(struct mw_config *cfg, const char *list)
{
	free_watch(cfg);
	mw_config_add_watch(cfg, list);
}

void mw_config_release_watch(struct mw_config *cfg)
{
	free_watch(cfg);
}

static int watch_parse(void *base, const char *value, struct mw_err *err)
{
	(void)err;
	mw_config_set_watch(base, value);
	return 0;
}

static void watch_format(const void *base, char *buf, size_t size)
{
	const struct mw_config *cfg = base;
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < cfg->nwatch && n + 1 < size; i++) {
		snprintf(buf + n, size - n, "%s%s", i ? "," : "", cfg->watch[i]);
		n += strlen(buf + n);
	}
}

/* [exit_leaks] images: names as the process list shows them, not paths
 * (Image File Execution Options keys are image names). */
static int images_check(const char *value, struct mw_err *err)
{
	const char *p = value;

	while (*p) {
		size_t n = strcspn(p, ",");
		size_t a = 0, b = n;

		while (a < b && isspace((unsigned char)p[a]))
			a++;
		while (b > a && isspace((unsigned char)p[b - 1]))
			b--;
		if (b > a && memchr(p + a, '\\', b - a))
			return mw_error(err, "'%.*s' is a path: give the image name (app.exe)",
					(int)(b - a), p + a);
		if (b > a && memchr(p + a, '/', b - a))
			return mw_error(err, "'%.*s' is a path: give the image name (app.exe)",
					(int)(b - a), p + a);
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

const struct mw_option mw_config_options[] = {
	{ MW_OPTION("daemon", "interval", MW_OPT_DURATION, OFF(interval_ms), "1s", 10, DAY,
	  "Sampling interval of the collectors without one of their own (system, process);\n"
	  "[collector.NAME] interval overrides it for one collector.") },
	{ MW_OPTION("daemon", "watch", MW_OPT_CUSTOM, OFF(watch), "", 0, 0,
	  "Processes the detail collectors (workingset, heap, vmmap) watch: comma-separated\n"
	  "image names (case-insensitive, * and ? wildcards), pids, and 'self'.\n"
	  "Empty: none (the process collector still samples every process)."),
	  .parse = watch_parse, .format = watch_format },
	{ MW_OPTION("daemon", "log_file", MW_OPT_STRING, OFF(log_file), "", 0, 0,
	  "Log file (appended); empty logs to stderr.") },
	{ MW_OPTION("daemon", "log_level", MW_OPT_LOGLEVEL, OFF(log_level), "info", 0, 0,
	  "error, warn, info or debug.") },

	{ MW_OPTION("storage", "db", MW_OPT_STRING, OFF(db_path), "memwatch.db", 0, 0,
	  "SQLite database file (created if missing), relative to the working directory."),
	  .check = db_path_check },
	{ MW_OPTION("storage", "flush_interval", MW_OPT_DURATION, OFF(flush_interval_ms),
		    "5s", 100, DAY,
	  "How often buffered points are written; a crash loses at most this much.") },
	{ MW_OPTION("storage", "retention_raw", MW_OPT_DURATION, OFF(retention_raw_ms),
		    "7d", 60000, 100 * 365 * DAY,
	  "How long raw points are kept.") },
	{ MW_OPTION("storage", "retention_1m", MW_OPT_DURATION, OFF(retention_1m_ms),
		    "90d", 60000, 100 * 365 * DAY,
	  "How long 1-minute rollups (min, max, avg, last, count) are kept.") },
	{ MW_OPTION("storage", "retention_1h", MW_OPT_DURATION, OFF(retention_1h_ms),
		    "730d", 60000, 100 * 365 * DAY,
	  "How long 1-hour rollups are kept.") },
	{ MW_OPTION("storage", "max_size", MW_OPT_SIZE, OFF(max_db_bytes), "0B", 0, 0,
	  "Largest the database may grow; the oldest raw data goes first. 0B: no limit.") },
	{ MW_OPTION("storage", "queue", MW_OPT_INT, OFF(queue_batches), "64", 1, 100000,
	  "Ticks buffered between sampling and the writer; when full, ticks are dropped\n"
	  "(and counted) rather than stalling sampling.") },
	{ MW_OPTION("storage", "chunk_points", MW_OPT_INT, OFF(chunk_points), "720", 2, 100000,
	  "A compressed chunk is closed after this many points ...") },
	{ MW_OPTION("storage", "chunk_duration", MW_OPT_DURATION, OFF(chunk_duration_ms),
		    "2h", 1000, 30 * DAY,
	  "... or once it spans this long.") },

	{ MW_OPTION("storage", "series_idle", MW_OPT_DURATION, OFF(series_idle_ms),
		    "10m", 1000, 30 * DAY,
	  "A series without a new point for this long (a process that exited) is written\n"
	  "out and leaves memory; it is found again in the database if it comes back.\n"
	  "Memory follows the live series, whatever the process churn.") },
	{ MW_OPTION("storage", "cache_size", MW_OPT_SIZE, OFF(cache_bytes),
		    "256KB", 65536, 1099511627776LL,
	  "SQLite page cache of the writer; each reader gets the same within 1MB-2MB\n"
	  "and gives it back when idle.  It fills as the database grows, then stays:\n"
	  "raise it for a large history read often, lower it where memory is tight.") },
	{ MW_OPTION("storage", "full_check", MW_OPT_DURATION, OFF(full_check_every_ms),
		    "7d", 0, 100 * 365 * DAY,
	  "Start-up reads the whole database (PRAGMA quick_check, ~1 s per GB) after a\n"
	  "crash or a kill, when the file changed size behind memwatch's back, and at\n"
	  "least this often; a file the last run closed cleanly is otherwise trusted.\n"
	  "0: at every start-up.") },
	{ MW_OPTION("storage", "full_check_background", MW_OPT_SIZE, OFF(full_check_background_from),
		    "256MB", 0, 1125899906842624LL,
	  "A database at least this big is read whole beside the running daemon instead\n"
	  "of before it starts: sampling and the web server do not wait for it.  A file\n"
	  "that fails is reported (/healthz degraded, the log) and moved aside at the next\n"
	  "start-up.  0B: always in the background; 1024TB: never.") },
	{ MW_OPTION("web", "listen", MW_OPT_STRING, OFF(listen), "127.0.0.1:8080", 0, 0,
	  "Address of the HTTP server: HOST:PORT, [IPV6]:PORT, or 'off'."),
	  .check = listen_check },
	{ MW_OPTION("web", "token", MW_OPT_STRING, OFF(token), "", 0, 0,
	  "Bearer token; when set every path but /healthz needs 'Authorization: Bearer TOKEN'.") },
	{ MW_OPTION("web", "allow_anonymous", MW_OPT_BOOL, OFF(web_allow_anonymous), "false", 0, 0,
	  "Listening beyond loopback (0.0.0.0, [::], a LAN address) without a token is\n"
	  "refused at start: anyone who reaches the port reads every process's memory\n"
	  "figures and mapped-file paths.  true allows it (a warning is logged).") },
	{ MW_OPTION("web", "threads", MW_OPT_INT, OFF(web_threads), "2", 1, 64,
	  "HTTP worker threads.") },
	{ MW_OPTION("web", "max_connections", MW_OPT_INT, OFF(web_max_connections), "256", 1, 10000,
	  "Most connections open at once.") },
	{ MW_OPTION("web", "max_connections_per_ip", MW_OPT_INT, OFF(web_max_per_ip),
		    "32", 1, 10000,
	  "Most connections open at once from one address.") },
	{ MW_OPTION("web", "timeout", MW_OPT_DURATION, OFF(web_timeout_ms), "30s", 1000, DAY,
	  "An idle or slow connection is closed after this long.") },
	{ MW_OPTION("web", "header_timeout", MW_OPT_DURATION, OFF(web_header_timeout_ms),
		    "5s", 1000, 3600000,
	  "A request line and headers not complete after this long are dropped, so slow\n"
	  "clients cannot hold the connection slots others need.") },
	{ MW_OPTION("web", "query_timeout", MW_OPT_DURATION, OFF(web_query_timeout_ms),
		    "5s", 100, 3600000,
	  "A request reading the store (query, series, export set-up) still running after\n"
	  "this long is stopped and answered 503; a streamed export gets 12 times as long.") },
	{ MW_OPTION("web", "max_request_size", MW_OPT_SIZE, OFF(web_max_request_bytes),
		    "16KB", 1024, 262144,
	  "Largest request (line, headers and body) accepted; larger gets 413.") },
	{ MW_OPTION("web", "tls_cert", MW_OPT_STRING, OFF(web_tls_cert), "", 0, 0,
	  "PEM certificate (its chain after it) to serve HTTPS instead of HTTP, with\n"
	  "tls_key; a plain-HTTP request is then refused (the connection is closed).\n"
	  "Both files are read and checked at start (restart to load a new one).\n"
	  "On Linux HTTPS loads libmicrohttpd.so.12 (package libmicrohttpd12) then.\n"
	  "Not available in the Windows build: put an HTTPS reverse proxy in front.") },
	{ MW_OPTION("web", "tls_key", MW_OPT_STRING, OFF(web_tls_key), "", 0, 0,
	  "PEM private key of tls_cert, unencrypted (keep it readable by memwatch only).") },
	{ MW_OPTION("leak", "warmup", MW_OPT_DURATION, OFF(leak_warmup_ms), "10m", 0, 30 * DAY,
	  "Leak verdicts: the start of each process not judged (start-up, caches filling).\n"
	  "These [leak] keys are the defaults of GET /api/v1/leaks and /api/v1/check;\n"
	  "memwatchd check takes the same as options (--warmup, --max-growth ...).") },
	{ MW_OPTION("leak", "min_duration", MW_OPT_DURATION, OFF(leak_min_duration_ms),
		    "20m", 0, 365 * DAY,
	  "Judged time (after the warm-up) needed for a pass or fail; less is inconclusive.") },
	{ MW_OPTION("leak", "max_growth", MW_OPT_GROWTH, OFF(leak_max_growth), "64KB/h", 0, 0,
	  "Growth budget: a process growing faster, steadily, fails.  Absolute (1MB/h),\n"
	  "relative to its size (2%/h) or both (1MB/h,2%/h: it must exceed both).") },
	{ MW_OPTION("leak", "max_count_growth", MW_OPT_INT, OFF(leak_max_count_growth),
		    "10", 0, 1000000,
	  "Growth budget of the counts judged beside memory, handles (Linux: open fds)\n"
	  "and threads, per hour: a process holding more, steadily, fails.") },
	{ MW_OPTION("leak", "horizon", MW_OPT_DURATION, OFF(leak_horizon_ms),
		    "24h", 60000, 3650 * DAY,
	  "Horizon of the projected growth (slope x horizon) in the verdicts.") },
	{ MW_OPTION("leak", "window", MW_OPT_DURATION, OFF(leak_window_ms),
		    "24h", 60000, 3650 * DAY,
	  "The daemon judges the last `window` in the background for the\n"
	  "memwatch_leak_* gauges of /metrics.") },
	{ MW_OPTION("leak", "refresh", MW_OPT_DURATION, OFF(leak_refresh_ms), "1m", 1000, DAY,
	  "How often that background judgement runs, at the most (see cpu_budget).") },
	{ MW_OPTION("leak", "cpu_budget", MW_OPT_SHARE, OFF(leak_cpu_budget), "0.1%", 0, 0,
	  "Share of one core the background judgement may take on average: after a\n"
	  "judgement that took t, the next starts no sooner than t / cpu_budget after\n"
	  "it began (0: every refresh, whatever it costs).  Judging 1,000 processes\n"
	  "over a 24 h window takes seconds; memwatch_leak_check_interval_seconds\n"
	  "says how far apart the judgements are.  /api/v1/leaks, /api/v1/check and\n"
	  "memwatchd check always judge afresh.") },
	{ MW_OPTION("leak", "metrics_top", MW_OPT_INT, OFF(leak_metrics_top), "10", 0, 1000,
	  "Processes exported as memwatch_leak_* gauges besides the watched ones: the\n"
	  "failing and fastest-growing first (bounded cardinality).") },
	{ MW_OPTION("exit_leaks", "images", MW_OPT_STRING, OFF(exit_leaks_images), "", 0, 0,
	  "Windows: image names (comma-separated, e.g. app.exe) whose heap leak check at\n"
	  "exit memwatch turns on (IFEO ShutdownFlags=1) and captures as their debugger.\n"
	  "Invasive: the program sees a debugger.  Empty: none."),
	  .check = images_check },
	{ MW_OPTION("exit_leaks", "lsan_dir", MW_OPT_STRING, OFF(exit_leaks_lsan_dir), "", 0, 0,
	  "A directory where LeakSanitizer writes its reports (run the program with\n"
	  "ASAN_OPTIONS=log_path=DIR/NAME): each NAME.PID is read once, stored and moved\n"
	  "into DIR/done/.  Empty: none."), },
	{ MW_OPTION("exit_leaks", "max_bytes", MW_OPT_SIZE, OFF(exit_leaks_max_bytes), "0B", 0, 0,
	  "Bytes a run may leave leaked at exit before memwatchd check fails its group.") },
};

const size_t mw_config_noptions = MW_ARRAY_SIZE(mw_config_options);
