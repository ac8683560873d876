/*
 * config.c - see config.h.
 *
 * The option table below is the single source of truth: defaults are
 * applied by parsing each option's default text, so the reference config
 * written from the table can never disagree with the code.
 */
#include "base/fsutf8.h"
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "core/selector.h"
#include "base/log.h"
#include "base/units.h"
#include "base/xalloc.h"

static void write_doc(FILE *f, const char *doc);

enum opt_type { OPT_DURATION, OPT_SIZE, OPT_INT, OPT_STRING, OPT_WATCH, OPT_LOGLEVEL, OPT_GROWTH,
		OPT_SHARE };

struct option {
	const char *section;
	const char *key;
	enum opt_type type;
	size_t offset;
	const char *def;
	int64_t min, max;	/* for durations (ms) and ints */
	const char *doc;
};

#define OFF(field) offsetof(struct mw_config, field)
#define DAY (86400000LL)

static const struct option options[] = {
	{ "daemon", "interval", OPT_DURATION, OFF(interval_ms), "1s", 10, DAY,
	  "Sampling interval of the collectors without one of their own (system, process);\n"
	  "[collector.NAME] interval overrides it for one collector." },
	{ "daemon", "watch", OPT_WATCH, OFF(watch), "", 0, 0,
	  "Processes the detail collectors (workingset, heap, vmmap) watch: comma-separated\n"
	  "image names (case-insensitive, * and ? wildcards), pids, and 'self'.\n"
	  "Empty: none (the process collector still samples every process)." },
	{ "daemon", "log_file", OPT_STRING, OFF(log_file), "", 0, 0,
	  "Log file (appended); empty logs to stderr." },
	{ "daemon", "log_level", OPT_LOGLEVEL, OFF(log_level), "info", 0, 0,
	  "error, warn, info or debug." },

	{ "storage", "db", OPT_STRING, OFF(db_path), "memwatch.db", 0, 0,
	  "SQLite database file (created if missing), relative to the working directory." },
	{ "storage", "flush_interval", OPT_DURATION, OFF(flush_interval_ms), "5s", 100, DAY,
	  "How often buffered points are written; a crash loses at most this much." },
	{ "storage", "retention_raw", OPT_DURATION, OFF(retention_raw_ms), "7d", 60000, 100 * 365 * DAY,
	  "How long raw points are kept." },
	{ "storage", "retention_1m", OPT_DURATION, OFF(retention_1m_ms), "90d", 60000, 100 * 365 * DAY,
	  "How long 1-minute rollups (min, max, avg, last, count) are kept." },
	{ "storage", "retention_1h", OPT_DURATION, OFF(retention_1h_ms), "730d", 60000, 100 * 365 * DAY,
	  "How long 1-hour rollups are kept." },
	{ "storage", "max_size", OPT_SIZE, OFF(max_db_bytes), "0B", 0, 0,
	  "Largest the database may grow; the oldest raw data goes first. 0B: no limit." },
	{ "storage", "queue", OPT_INT, OFF(queue_batches), "64", 1, 100000,
	  "Ticks buffered between sampling and the writer; when full, ticks are dropped\n"
	  "(and counted) rather than stalling sampling." },
	{ "storage", "chunk_points", OPT_INT, OFF(chunk_points), "720", 2, 100000,
	  "A compressed chunk is closed after this many points ..." },
	{ "storage", "chunk_duration", OPT_DURATION, OFF(chunk_duration_ms), "2h", 1000, 30 * DAY,
	  "... or once it spans this long." },

	{ "storage", "series_idle", OPT_DURATION, OFF(series_idle_ms), "10m", 1000, 30 * DAY,
	  "A series without a new point for this long (a process that exited) is written\n"
	  "out and leaves memory; it is found again in the database if it comes back.\n"
	  "Memory follows the live series, whatever the process churn." },
	{ "storage", "cache_size", OPT_SIZE, OFF(cache_bytes), "16MB", 65536, 1099511627776LL,
	  "SQLite page cache of the writer; each reader gets the same, at most 2MB.\n"
	  "It fills as the database grows, then stays: lower it where memory is tight." },
	{ "web", "listen", OPT_STRING, OFF(listen), "127.0.0.1:8080", 0, 0,
	  "Address of the HTTP server: HOST:PORT, [IPV6]:PORT, or 'off'." },
	{ "web", "token", OPT_STRING, OFF(token), "", 0, 0,
	  "Bearer token; when set every path but /healthz needs 'Authorization: Bearer TOKEN'." },
	{ "web", "threads", OPT_INT, OFF(web_threads), "2", 1, 64,
	  "HTTP worker threads." },
	{ "web", "max_connections", OPT_INT, OFF(web_max_connections), "256", 1, 10000,
	  "Most connections open at once." },
	{ "web", "max_connections_per_ip", OPT_INT, OFF(web_max_per_ip), "32", 1, 10000,
	  "Most connections open at once from one address." },
	{ "web", "timeout", OPT_DURATION, OFF(web_timeout_ms), "30s", 1000, DAY,
	  "An idle or slow connection is closed after this long." },
	{ "web", "header_timeout", OPT_DURATION, OFF(web_header_timeout_ms), "5s", 1000, 3600000,
	  "A request line and headers not complete after this long are dropped, so slow\n"
	  "clients cannot hold the connection slots others need." },
	{ "web", "query_timeout", OPT_DURATION, OFF(web_query_timeout_ms), "5s", 100, 3600000,
	  "A request reading the store (query, series, export set-up) still running after\n"
	  "this long is stopped and answered 503; a streamed export gets 12 times as long." },
	{ "web", "max_request_size", OPT_SIZE, OFF(web_max_request_bytes), "16KB", 1024, 262144,
	  "Largest request (line, headers and body) accepted; larger gets 413." },
	{ "leak", "warmup", OPT_DURATION, OFF(leak_warmup_ms), "10m", 0, 30 * DAY,
	  "Leak verdicts: the start of each process not judged (start-up, caches filling).\n"
	  "These [leak] keys are the defaults of GET /api/v1/leaks and /api/v1/check;\n"
	  "memwatchd check takes the same as options (--warmup, --max-growth ...)." },
	{ "leak", "min_duration", OPT_DURATION, OFF(leak_min_duration_ms), "20m", 0, 365 * DAY,
	  "Judged time (after the warm-up) needed for a pass or fail; less is inconclusive." },
	{ "leak", "max_growth", OPT_GROWTH, OFF(leak_max_growth), "64KB/h", 0, 0,
	  "Growth budget: a process growing faster, steadily, fails.  Absolute (1MB/h),\n"
	  "relative to its size (2%/h) or both (1MB/h,2%/h: it must exceed both)." },
	{ "leak", "max_count_growth", OPT_INT, OFF(leak_max_count_growth), "10", 0, 1000000,
	  "Growth budget of the counts judged beside memory, handles (Linux: open fds)\n"
	  "and threads, per hour: a process holding more, steadily, fails." },
	{ "leak", "horizon", OPT_DURATION, OFF(leak_horizon_ms), "24h", 60000, 3650 * DAY,
	  "Horizon of the projected growth (slope x horizon) in the verdicts." },
	{ "leak", "window", OPT_DURATION, OFF(leak_window_ms), "24h", 60000, 3650 * DAY,
	  "The daemon judges the last `window` in the background for the\n"
	  "memwatch_leak_* gauges of /metrics." },
	{ "leak", "refresh", OPT_DURATION, OFF(leak_refresh_ms), "1m", 1000, DAY,
	  "How often that background judgement runs, at the most (see cpu_budget)." },
	{ "leak", "cpu_budget", OPT_SHARE, OFF(leak_cpu_budget), "0.1%", 0, 0,
	  "Share of one core the background judgement may take on average: after a\n"
	  "judgement that took t, the next starts no sooner than t / cpu_budget after\n"
	  "it began (0: every refresh, whatever it costs).  Judging 1,000 processes\n"
	  "over a 24 h window takes seconds; memwatch_leak_check_interval_seconds\n"
	  "says how far apart the judgements are.  /api/v1/leaks, /api/v1/check and\n"
	  "memwatchd check always judge afresh." },
	{ "leak", "metrics_top", OPT_INT, OFF(leak_metrics_top), "10", 0, 1000,
	  "Processes exported as memwatch_leak_* gauges besides the watched ones: the\n"
	  "failing and fastest-growing first (bounded cardinality)." },
};

static void *field(struct mw_config *cfg, const struct option *o)
{
	return (char *)cfg + o->offset;
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

/* The shape of [web] listen ("off", HOST:PORT, [V6]:PORT, port 0-65535);
 * whether the address can be bound is found out at start. */
static int check_listen(const char *v, struct mw_err *err)
{
	const char *colon;
	char *end;
	unsigned long port;

	if (!strcmp(v, "off") || !*v)
		return 0;
	if (v[0] == '[') {
		const char *close = strchr(v, ']');
		if (!close || close[1] != ':')
			return mw_error(err, "'%s' is not an address (want HOST:PORT, [V6]:PORT or off)", v);
		colon = close + 1;
	} else {
		colon = strrchr(v, ':');
		if (!colon)
			return mw_error(err, "'%s' has no port (want HOST:PORT, [V6]:PORT or off)", v);
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port > 65535 || colon[1] == '-' || colon[1] == '+')
		return mw_error(err, "'%s': port '%s' is not a number from 0 to 65535", v, colon + 1);
	return 0;
}

/* A duration in [min, max] ms into *out; the error names the range. */
static int parse_duration_in(const char *value, int64_t min, int64_t max, int64_t *out,
			     struct mw_err *err)
{
	int64_t ms;
	char lo[32], hi[32];

	if (mw_parse_duration_ms(value, &ms, err))
		return -1;
	if (ms < min || ms > max) {
		mw_format_duration(lo, sizeof(lo), min);
		mw_format_duration(hi, sizeof(hi), max);
		return mw_error(err, "'%s' is out of range (%s to %s)", value, lo, hi);
	}
	*out = ms;
	return 0;
}

/* A whole number in [min, max] into *out. */
static int parse_int_in(const char *value, int64_t min, int64_t max, int64_t *out,
			struct mw_err *err)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(value, &end, 10);
	if (!*value || *end || errno)
		return mw_error(err, "'%s' is not a whole number", value);
	if (v < min || v > max)
		return mw_error(err, "'%s' is out of range (%" PRId64 " to %" PRId64 ")",
				value, min, max);
	*out = v;
	return 0;
}

/* Parse value into the option's field. */
static int set_option(struct mw_config *cfg, const struct option *o, const char *value,
		      struct mw_err *err)
{
	void *f = field(cfg, o);

	switch (o->type) {
	case OPT_DURATION:
		return parse_duration_in(value, o->min, o->max, f, err);
	case OPT_SIZE: {
		uint64_t bytes;

		if (mw_parse_size(value, &bytes, err))
			return -1;
		if (o->min && bytes < (uint64_t)o->min)
			return mw_error(err, "'%s' is too small (at least %" PRId64 " bytes)",
					value, o->min);
		if (o->max && bytes > (uint64_t)o->max)
			return mw_error(err, "'%s' is too large (at most %" PRId64 " bytes)",
					value, o->max);
		*(uint64_t *)f = bytes;
		return 0;
	}
	case OPT_INT:
		return parse_int_in(value, o->min, o->max, f, err);
	case OPT_STRING:
		if (o->offset == OFF(db_path) && !*value)
			return mw_error(err, "the database path is empty");
		if (o->offset == OFF(listen) && check_listen(value, err))
			return -1;
		free(*(char **)f);
		*(char **)f = mw_xstrdup(value);
		return 0;
	case OPT_WATCH:
		mw_config_set_watch(cfg, value);
		return 0;
	case OPT_GROWTH: {
		struct mw_growth_budget *g = f;

		return mw_parse_growth_budget(value, &g->bytes_per_hour, &g->rel_per_hour, err);
	}
	case OPT_SHARE:
		return mw_parse_share(value, (double *)f, err);
	case OPT_LOGLEVEL: {
		enum mw_log_level level;

		if (mw_log_level_parse(value, &level, err))
			return -1;
		*(int *)f = (int)level;
		return 0;
	}
	}
	return mw_error(err, "internal: unknown option type");
}

static const struct option *find_option(const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(options); i++)
		if (!strcmp(options[i].section, section) && !strcmp(options[i].key, key))
			return &options[i];
	return NULL;
}

static bool parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(yes); i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return true;
		}
		if (!strcmp(v, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}


/* ---- [remote_write.NAME] ------------------------------------------------
 * Sections created by name; each key of this table in each.  Values are
 * checked when set (a bad URL, label or selector names section.key). */
enum rw_type { RW_STRING, RW_URL, RW_BOOL, RW_INT, RW_DURATION, RW_MATCH, RW_LABELS };

struct rw_option {
	const char *key;
	enum rw_type type;
	size_t offset;
	const char *def;
	int64_t min, max;
	const char *doc;
};

#define RWOFF(f) offsetof(struct mw_rw_config, f)

/* The default selection: the watched processes' series (the process,
 * heap, vmmap and workingset figures of the [daemon] watch list), the
 * system figures, the leak verdicts and the daemon's own health -- not
 * every short-lived process of a build agent. */
#define RW_DEFAULT_MATCH \
	"watched, {__name__=~\"memwatch_(system|leak|storage|collector)_.*\"}"

static const struct rw_option rw_options[] = {
	{ "url", RW_URL, RWOFF(url), "", 0, 0,
	  "Remote-write endpoint (required): http://HOST:PORT/api/v1/write (Prometheus with\n"
	  "--web.enable-remote-write-receiver, VictoriaMetrics, Mimir, Thanos receive ...)." },
	{ "bearer_token", RW_STRING, RWOFF(bearer_token), "", 0, 0,
	  "Sent as 'Authorization: Bearer TOKEN'; empty: none." },
	{ "bearer_token_file", RW_STRING, RWOFF(bearer_token_file), "", 0, 0,
	  "File holding the bearer token (read at start, surrounding blanks removed)." },
	{ "basic_user", RW_STRING, RWOFF(basic_user), "", 0, 0,
	  "HTTP basic authentication user; empty: none." },
	{ "basic_password", RW_STRING, RWOFF(basic_password), "", 0, 0,
	  "HTTP basic authentication password." },
	{ "ca_file", RW_STRING, RWOFF(ca_file), "", 0, 0,
	  "PEM file of the CA(s) that sign the receiver's certificate; empty: the system's." },
	{ "tls_verify", RW_BOOL, RWOFF(tls_verify), "true", 0, 0,
	  "Verify the receiver's certificate and host name (https)." },
	{ "match", RW_MATCH, RWOFF(match), RW_DEFAULT_MATCH, 0, 0,
	  "Series to send: selectors separated by commas (a series matching any is sent);\n"
	  "'watched' stands for every series of the processes the [daemon] watch list\n"
	  "selects.  Everything: {__name__=~\".+\"}" },
	{ "labels", RW_LABELS, RWOFF(labels), "", 0, 0,
	  "Labels added to every series sent (a series' own label of the same name wins):\n"
	  "instance=lab-12,lab=soak" },
	{ "batch_size", RW_INT, RWOFF(batch_size), "2000", 1, 100000,
	  "Samples per request." },
	{ "max_age", RW_DURATION, RWOFF(max_age_ms), "0s", 0, 100 * 365 * DAY,
	  "Points older than this are not sent (after an outage, or for a new destination);\n"
	  "0s: everything still stored ([storage] retention_raw)." },
	{ "timeout", RW_DURATION, RWOFF(timeout_ms), "30s", 100, 3600000,
	  "One request (connect, send, answer) taking longer fails and is retried." },
	{ "max_backoff", RW_DURATION, RWOFF(max_backoff_ms), "30s", 100, DAY,
	  "Longest wait between retries of a failed request (doubling from 250ms, jittered)." },
};

static bool rw_name_ok(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > 63)
		return false;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

int mw_config_split_match(const char *list, int (*fn)(void *arg, const char *item, size_t len),
			  void *arg)
{
	const char *p = list, *start = list;
	int depth = 0, rc;
	bool quoted = false;

	for (;; p++) {
		if (quoted) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				quoted = false;
			else if (!*p)
				break;
			continue;
		}
		if (*p == '"')
			quoted = true;
		else if (*p == '{')
			depth++;
		else if (*p == '}' && depth > 0)
			depth--;
		else if ((*p == ',' && depth == 0) || !*p) {
			const char *a = start, *b = p;

			while (a < b && isspace((unsigned char)*a))
				a++;
			while (b > a && isspace((unsigned char)b[-1]))
				b--;
			if (b > a && (rc = fn(arg, a, (size_t)(b - a))))
				return rc;
			if (!*p)
				return 0;
			start = p + 1;
		}
	}
	/* unterminated quote: hand the rest over as one item */
	while (start < p && isspace((unsigned char)*start))
		start++;
	return p > start ? fn(arg, start, (size_t)(p - start)) : 0;
}

struct match_check {
	struct mw_err *err;
	size_t n;
};

static int check_match_item(void *arg, const char *item, size_t len)
{
	struct match_check *mc = arg;
	struct mw_selector sel;
	char *text = mw_xstrndup(item, len);
	int rc = 0;

	mc->n++;
	if (strcmp(text, "watched")) {
		if (mw_selector_parse(&sel, text, mc->err))
			rc = -1;
		else
			mw_selector_release(&sel);
	}
	free(text);
	return rc;
}

static bool label_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || (n >= 2 && s[0] == '_' && s[1] == '_'))
		return false;
	for (i = 0; i < n; i++)
		if (!(isalpha((unsigned char)s[i]) || s[i] == '_' ||
		      (i > 0 && isdigit((unsigned char)s[i]))))
			return false;
	return true;
}

int mw_config_parse_labels(const char *list,
			   void (*fn)(void *arg, const char *name, size_t nlen,
				      const char *value, size_t vlen),
			   void *arg, struct mw_err *err)
{
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ',');
		const char *stop = end ? end : p + strlen(p);
		const char *a = p, *b = stop, *eq;

		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (b > a) {
			const char *n1, *v0;

			eq = memchr(a, '=', (size_t)(b - a));
			if (!eq)
				return mw_error(err, "'%.*s' is not name=value", (int)(b - a), a);
			n1 = eq;
			while (n1 > a && isspace((unsigned char)n1[-1]))
				n1--;
			v0 = eq + 1;
			while (v0 < b && isspace((unsigned char)*v0))
				v0++;
			if (!label_name_ok(a, (size_t)(n1 - a)))
				return mw_error(err, "'%.*s' is not a label name (letters, digits, '_'; "
						"not starting with a digit or '__')", (int)(n1 - a), a);
			if (v0 == b)
				return mw_error(err, "label '%.*s' has an empty value", (int)(n1 - a), a);
			if (fn)
				fn(arg, a, (size_t)(n1 - a), v0, (size_t)(b - v0));
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int rw_set(struct mw_rw_config *rc, const struct rw_option *o, const char *value,
		  struct mw_err *err)
{
	void *f = (char *)rc + o->offset;

	switch (o->type) {
	case RW_URL:
		if (*value && strncmp(value, "http://", 7) && strncmp(value, "https://", 8))
			return mw_error(err, "'%s' is not an http:// or https:// URL", value);
		if (*value && !value[strncmp(value, "http://", 7) ? 8 : 7])
			return mw_error(err, "'%s' has no host", value);
		break;
	case RW_STRING:
		break;
	case RW_BOOL:
		if (!parse_bool(value, (bool *)f))
			return mw_error(err, "'%s' is not true or false", value);
		return 0;
	case RW_INT:
		return parse_int_in(value, o->min, o->max, f, err);
	case RW_DURATION:
		return parse_duration_in(value, o->min, o->max, f, err);
	case RW_MATCH: {
		struct match_check mc = { err, 0 };

		if (mw_config_split_match(value, check_match_item, &mc))
			return -1;
		if (!mc.n)
			return mw_error(err, "no selector (the default is '%s')", RW_DEFAULT_MATCH);
		break;
	}
	case RW_LABELS:
		if (mw_config_parse_labels(value, NULL, NULL, err))
			return -1;
		break;
	}
	free(*(char **)f);
	*(char **)f = mw_xstrdup(value);
	return 0;
}

static void rw_release_one(struct mw_rw_config *rc)
{
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(rw_options); i++) {
		enum rw_type t = rw_options[i].type;

		if (t == RW_STRING || t == RW_URL || t == RW_MATCH || t == RW_LABELS)
			free(*(char **)((char *)rc + rw_options[i].offset));
	}
	free(rc->name);
}

struct mw_rw_config *mw_config_remote_write(struct mw_config *cfg, const char *name)
{
	struct mw_rw_config *rc;
	size_t i;

	if (!rw_name_ok(name))
		return NULL;
	for (i = 0; i < cfg->nremote_write; i++)
		if (!strcmp(cfg->remote_write[i].name, name))
			return &cfg->remote_write[i];
	MW_GROW(cfg->remote_write, cfg->remote_write_cap, cfg->nremote_write + 1);
	rc = &cfg->remote_write[cfg->nremote_write++];
	memset(rc, 0, sizeof(*rc));
	rc->name = mw_xstrdup(name);
	for (i = 0; i < MW_ARRAY_SIZE(rw_options); i++)
		if (rw_set(rc, &rw_options[i], rw_options[i].def, NULL))
			abort();	/* a default that does not parse is a bug */
	return rc;
}

static int set_rw_key(struct mw_config *cfg, const char *section, const char *key,
		      const char *value, struct mw_err *err)
{
	struct mw_rw_config *rc = mw_config_remote_write(cfg, section + 13);
	size_t i;

	if (!rc)
		return mw_error(err, "bad destination name '%s' (letters, digits, '_', '-')",
				section + 13);
	for (i = 0; i < MW_ARRAY_SIZE(rw_options); i++)
		if (!strcmp(rw_options[i].key, key))
			return rw_set(rc, &rw_options[i], value, err);
	return mw_error(err, "unknown key '%s'", key);
}

static void rw_value_text(const struct mw_rw_config *rc, const struct rw_option *o, char *buf,
			  size_t size)
{
	const void *f = (const char *)rc + o->offset;

	switch (o->type) {
	case RW_BOOL:
		snprintf(buf, size, "%s", *(const bool *)f ? "true" : "false");
		break;
	case RW_INT:
		snprintf(buf, size, "%" PRId64, *(const int64_t *)f);
		break;
	case RW_DURATION:
		mw_format_duration(buf, size, *(const int64_t *)f);
		break;
	default:
		snprintf(buf, size, "%s", *(char *const *)f ? *(char *const *)f : "");
		break;
	}
}

/* Configured destinations with their values; with none, the keys as a
 * commented-out example section. */
static void rw_write_reference(const struct mw_config *cfg, FILE *f)
{
	struct mw_rw_config def;
	size_t i, j;

	if (!cfg->nremote_write) {
		fprintf(f, "\n# [remote_write.NAME]: send the stored points to a Prometheus remote-write\n"
			   "# receiver, one section per destination (none by default), e.g.\n"
			   "# [remote_write.central]\n");
		for (i = 0; i < MW_ARRAY_SIZE(rw_options); i++) {
			fprintf(f, "#\n");
			write_doc(f, rw_options[i].doc);
			fprintf(f, "# %s =%s%s\n", rw_options[i].key,
				*rw_options[i].def || rw_options[i].type == RW_URL ? " " : "",
				rw_options[i].type == RW_URL ? "http://prometheus.example:9090/api/v1/write"
							    : rw_options[i].def);
		}
		return;
	}
	memset(&def, 0, sizeof(def));
	for (i = 0; i < MW_ARRAY_SIZE(rw_options); i++)
		if (rw_set(&def, &rw_options[i], rw_options[i].def, NULL))
			abort();
	for (j = 0; j < cfg->nremote_write; j++) {
		const struct mw_rw_config *rc = &cfg->remote_write[j];

		fprintf(f, "\n[remote_write.%s]\n", rc->name);
		for (i = 0; i < MW_ARRAY_SIZE(rw_options); i++) {
			const struct rw_option *o = &rw_options[i];
			char have[1024], dv[1024];
			const char *v;

			rw_value_text(rc, o, have, sizeof(have));
			rw_value_text(&def, o, dv, sizeof(dv));
			/* secrets are not printed */
			if ((o->offset == RWOFF(bearer_token) || o->offset == RWOFF(basic_password)) &&
			    *have)
				v = "(set, not shown)";
			else
				v = strcmp(have, dv) ? have : o->def;
			fprintf(f, "\n");
			write_doc(f, o->doc);
			fprintf(f, "%s =%s%s\n", o->key, *v ? " " : "", v);
		}
	}
	rw_release_one(&def);
}

void mw_config_init(struct mw_config *cfg)
{
	size_t i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < MW_ARRAY_SIZE(options); i++)
		if (set_option(cfg, &options[i], options[i].def, NULL))
			abort();	/* a default that does not parse is a bug */
	cfg->ncollectors = mw_ncollectors;
	cfg->collectors = mw_xcalloc(mw_ncollectors ? mw_ncollectors : 1, sizeof(*cfg->collectors));
	for (i = 0; i < mw_ncollectors; i++) {
		cfg->collectors[i].collector = mw_collectors[i];
		cfg->collectors[i].enabled = mw_collectors[i]->default_enabled;
		/* 0: inherit [daemon] interval unless the collector has its own */
		cfg->collectors[i].interval_ms = mw_collectors[i]->default_interval_ms;
	}
}

void mw_config_release(struct mw_config *cfg)
{
	size_t i, j;

	for (i = 0; i < MW_ARRAY_SIZE(options); i++)
		if (options[i].type == OPT_STRING) {
			free(*(char **)field(cfg, &options[i]));
			*(char **)field(cfg, &options[i]) = NULL;
		}
	free_watch(cfg);
	for (i = 0; i < cfg->ncollectors; i++) {
		struct mw_collector_config *cc = &cfg->collectors[i];
		for (j = 0; j < cc->nextras; j++) {
			free(cc->extras[j].key);
			free(cc->extras[j].value);
			free(cc->extras[j].file);
		}
		free(cc->extras);
	}
	free(cfg->collectors);
	cfg->collectors = NULL;
	cfg->ncollectors = 0;
	for (i = 0; i < cfg->nremote_write; i++)
		rw_release_one(&cfg->remote_write[i]);
	free(cfg->remote_write);
	cfg->remote_write = NULL;
	cfg->nremote_write = cfg->remote_write_cap = 0;
}

struct mw_collector_config *mw_config_collector(struct mw_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->ncollectors; i++)
		if (!strcmp(cfg->collectors[i].collector->name, name))
			return &cfg->collectors[i];
	return NULL;
}

int64_t mw_config_interval(const struct mw_config *cfg, const struct mw_collector_config *cc)
{
	return cc->interval_ms ? cc->interval_ms : cfg->interval_ms;
}

const char *mw_config_extra(const struct mw_collector_config *cc, const char *key)
{
	size_t i;

	/* The last one set wins, as for core options. */
	for (i = cc->nextras; i-- > 0;)
		if (!strcmp(cc->extras[i].key, key))
			return cc->extras[i].value;
	return NULL;
}

static int set_collector_key(struct mw_collector_config *cc, const char *key,
			     const char *value, const char *origin, int line,
			     struct mw_err *err)
{
	const struct mw_collector *c = cc->collector;
	struct mw_config_extra *x;
	size_t i;

	if (!strcmp(key, "enabled")) {
		if (!parse_bool(value, &cc->enabled))
			return mw_error(err, "'%s' is not true or false", value);
		return 0;
	}
	if (!strcmp(key, "interval")) {
		int64_t ms;

		if (mw_parse_duration_ms(value, &ms, err))
			return -1;
		if (ms < 10 || ms > DAY)
			return mw_error(err, "'%s' is out of range (10ms to 1d)", value);
		cc->interval_ms = ms;
		return 0;
	}
	for (i = 0; c->options && c->options[i]; i++)
		if (!strcmp(c->options[i], key))
			break;
	if (!c->options || !c->options[i])
		return mw_error(err, "unknown key '%s' for collector '%s'", key, c->name);
	MW_GROW(cc->extras, cc->extras_cap, cc->nextras + 1);
	x = &cc->extras[cc->nextras++];
	x->key = mw_xstrdup(key);
	x->value = mw_xstrdup(value);
	x->file = mw_xstrdup(origin ? origin : "");
	x->line = line;
	return 0;
}

int mw_config_set(struct mw_config *cfg, const char *section, const char *key,
		  const char *value, const char *origin, struct mw_err *err)
{
	const struct option *o;

	if (!strncmp(section, "collector.", 10)) {
		struct mw_collector_config *cc = mw_config_collector(cfg, section + 10);

		if (!cc)
			return mw_error(err, "%s: unknown collector '%s'", origin, section + 10);
		if (set_collector_key(cc, key, value, origin, 0, err))
			return mw_error_prefix(err, "%s: [%s] %s", origin, section, key);
		return 0;
	}
	if (!strncmp(section, "remote_write.", 13)) {
		if (set_rw_key(cfg, section, key, value, err))
			return mw_error_prefix(err, "%s: [%s] %s", origin, section, key);
		return 0;
	}
	o = find_option(section, key);
	if (!o)
		return mw_error(err, "%s: unknown key '%s' in [%s]", origin, key, section);
	if (set_option(cfg, o, value, err))
		return mw_error_prefix(err, "%s: [%s] %s", origin, section, key);
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static bool known_section(const char *s)
{
	return !strcmp(s, "daemon") || !strcmp(s, "storage") || !strcmp(s, "web") ||
	       !strcmp(s, "leak");
}

int mw_config_load_string(struct mw_config *cfg, const char *name, const char *text,
			  struct mw_err *err)
{
	char section[128] = "";
	const char *p = text;
	int lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = mw_xstrndup(p, len), *s, *eq, *key, *value;
		int rc = 0;

		lineno++;
		p += len + (nl ? 1 : 0);
		s = trim(line);
		/* A UTF-8 byte-order mark, as Notepad writes it. */
		if (lineno == 1 && !strncmp(s, "\xEF\xBB\xBF", 3))
			s = trim(s + 3);
		if (!*s || *s == '#' || *s == ';') {
			free(line);
			continue;
		}
		if (*s == '[') {
			char *close = strchr(s, ']');
			char *sec;

			if (!close || *trim(close + 1))
				rc = mw_error(err, "%s:%d: malformed section header '%s'", name, lineno, s);
			else {
				*close = '\0';
				sec = trim(s + 1);
				if (!strncmp(sec, "remote_write.", 13) &&
				    !mw_config_remote_write(cfg, sec + 13))
					rc = mw_error(err, "%s:%d: [%s]: bad destination name (letters, "
						      "digits, '_', '-')", name, lineno, sec);
				else if (!known_section(sec) && strncmp(sec, "remote_write.", 13) &&
				    !(strncmp(sec, "collector.", 10) == 0 &&
				      mw_config_collector(cfg, sec + 10)))
					rc = mw_error(err, "%s:%d: unknown section [%s]", name, lineno, sec);
				else
					snprintf(section, sizeof(section), "%s", sec);
			}
			free(line);
			if (rc)
				return rc;
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			mw_error(err, "%s:%d: expected 'key = value', got '%s'", name, lineno, s);
			free(line);
			return -1;
		}
		*eq = '\0';
		key = trim(s);
		value = trim(eq + 1);
		if (strlen(value) >= 2 && value[0] == '"' && value[strlen(value) - 1] == '"') {
			value[strlen(value) - 1] = '\0';
			value++;
		}
		if (!*section) {
			rc = mw_error(err, "%s:%d: key '%s' comes before any [section]", name, lineno, key);
		} else if (!strncmp(section, "collector.", 10)) {
			struct mw_collector_config *cc = mw_config_collector(cfg, section + 10);
			if (set_collector_key(cc, key, value, name, lineno, err))
				rc = mw_error_prefix(err, "%s:%d: [%s] %s", name, lineno, section, key);
		} else if (!strncmp(section, "remote_write.", 13)) {
			if (set_rw_key(cfg, section, key, value, err))
				rc = mw_error_prefix(err, "%s:%d: [%s] %s", name, lineno, section, key);
		} else {
			const struct option *o = find_option(section, key);
			if (!o)
				rc = mw_error(err, "%s:%d: unknown key '%s' in [%s]", name, lineno, key, section);
			else if (set_option(cfg, o, value, err))
				rc = mw_error_prefix(err, "%s:%d: [%s] %s", name, lineno, section, key);
		}
		free(line);
		if (rc)
			return rc;
	}
	return 0;
}

int mw_config_load_file(struct mw_config *cfg, const char *path, struct mw_err *err)
{
	FILE *f = mw_fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	if (!f)
		return mw_error(err, "cannot read config file '%s': %s", path, strerror(errno));
	for (;;) {
		MW_GROW(text, cap, len + 4097);
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(text);
		return mw_error(err, "cannot read config file '%s'", path);
	}
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		return mw_error(err, "%s: config file contains a NUL byte (is it UTF-16?)", path);
	}
	rc = mw_config_load_string(cfg, path, text, err);
	free(text);
	return rc;
}

static void write_doc(FILE *f, const char *doc)
{
	const char *p = doc;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(f, "# %.*s\n", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
}

/* An option's value as the INI writes it. */
static void value_text(const struct mw_config *cfg, const struct option *o, char *buf, size_t size)
{
	const void *f = (const char *)cfg + o->offset;
	size_t i, n = 0;

	buf[0] = '\0';
	switch (o->type) {
	case OPT_DURATION:
		mw_format_duration(buf, size, *(const int64_t *)f);
		break;
	case OPT_SIZE:
		mw_format_size(buf, size, *(const uint64_t *)f);
		break;
	case OPT_INT:
		snprintf(buf, size, "%" PRId64, *(const int64_t *)f);
		break;
	case OPT_STRING:
		snprintf(buf, size, "%s", *(char *const *)f ? *(char *const *)f : "");
		break;
	case OPT_WATCH:
		for (i = 0; i < cfg->nwatch && n + 1 < size; i++) {
			snprintf(buf + n, size - n, "%s%s", i ? "," : "", cfg->watch[i]);
			n += strlen(buf + n);
		}
		break;
	case OPT_LOGLEVEL:
		snprintf(buf, size, "%s", mw_log_level_name((enum mw_log_level) * (const int *)f));
		break;
	case OPT_GROWTH: {
		const struct mw_growth_budget *g = f;

		mw_format_growth_budget(buf, size, g->bytes_per_hour, g->rel_per_hour);
		break;
	}
	case OPT_SHARE:
		mw_format_share(buf, size, *(const double *)f);
		break;
	}
}

void mw_config_write_reference(const struct mw_config *cfg, void *file)
{
	FILE *f = file;
	const char *section = "";
	struct mw_config defaults;
	size_t i, j;

	/* Values equal to the default are written as the table spells the
	 * default ("7d", not "1w"), so `memwatchd config` reproduces
	 * config/memwatch.ini; with --config or options it shows the
	 * effective settings. */
	mw_config_init(&defaults);
	fprintf(f, "# memwatch.ini - every option of memwatchd with its default.\n"
		   "#\n"
		   "# No config file is needed: these are the values memwatchd uses without one.\n"
		   "# Use it with: memwatchd run --config memwatch.ini\n"
		   "# Durations: 100ms, 1s, 5m, 2h, 7d.  Sizes: 512KB, 512MB, 2GB (powers of 1024).\n"
		   "# Lines starting with # or ; are comments; there are no trailing comments.\n"
		   "# Generated by 'memwatchd config'; a test checks this file matches.\n");
	for (i = 0; i < MW_ARRAY_SIZE(options); i++) {
		const struct option *o = &options[i];
		if (strcmp(section, o->section)) {
			section = o->section;
			fprintf(f, "\n[%s]\n", section);
		}
		char have[1024], def[1024];
		const char *v;

		value_text(cfg, o, have, sizeof(have));
		value_text(&defaults, o, def, sizeof(def));
		v = strcmp(have, def) ? have : o->def;
		fprintf(f, "\n");
		write_doc(f, o->doc);
		fprintf(f, "%s =%s%s\n", o->key, *v ? " " : "", v);
	}
	for (i = 0; i < mw_ncollectors; i++) {
		const struct mw_collector *c = mw_collectors[i];
		char iv[32];

		const struct mw_collector_config *cc = i < cfg->ncollectors ? &cfg->collectors[i] : NULL;
		int64_t interval = cc ? cc->interval_ms : c->default_interval_ms;

		mw_format_duration(iv, sizeof(iv), interval);
		fprintf(f, "\n[collector.%s]\n", c->name);
		write_doc(f, c->summary);
		fprintf(f, "enabled = %s\n", (cc ? cc->enabled : c->default_enabled) ? "true" : "false");
		if (interval)
			fprintf(f, "interval = %s\n", iv);
		else
			fprintf(f, "# interval: the [daemon] interval unless set here\n");
		for (j = 0; c->options && c->options[j]; j++) {
			const char *doc = c->option_docs ? c->option_docs[j] : NULL;
			const char *semi = doc ? strstr(doc, " ; ") : NULL;
			const char *set = cc ? mw_config_extra(cc, c->options[j]) : NULL;

			fprintf(f, "\n");
			if (semi)
				write_doc(f, semi + 3);
			if (set)
				fprintf(f, "%s =%s%s\n", c->options[j], *set ? " " : "", set);
			else
				fprintf(f, "%s =%s%.*s\n", c->options[j], semi && semi > doc ? " " : "",
					semi ? (int)(semi - doc) : 0, semi ? doc : "");
		}
	}
	rw_write_reference(cfg, f);
	mw_config_release(&defaults);
}
