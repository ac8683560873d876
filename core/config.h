/*
 * config.h - every setting of memwatchd, from defaults, an INI file and
 * the command line, in that order.
 *
 * Every option is a row of a typed table (option.h) with its section,
 * key, type, default and target field; defaults, validation,
 * `config/memwatch.ini` and the option dump all come from the tables:
 * config_table.c for the core's sections, config_remote_write.c for each
 * `[remote_write.NAME]` (one per destination of the forwarder,
 * forward/forwarder.h), and each collector's own table
 * (struct mw_collector.options) for the keys of `[collector.NAME]` besides
 * `enabled` and `interval`.  Values are checked when set.
 *
 * The files: config.c (defaults, setting a key, the sections),
 * config_load.c (INI files, through ini.c), config_reference.c (the
 * reference file `memwatchd config` writes).
 *
 * An unknown section or key, a bad value or an unreadable file is an error
 * naming the file, line and key; start-up stops on it.
 */
#ifndef MW_CORE_CONFIG_H
#define MW_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "option.h"

struct mw_collector;

struct mw_collector_config {
	const struct mw_collector *collector;
	bool enabled;
	int64_t interval_ms;	/* 0: the [daemon] interval */
	/* The collector's own options: its options struct
	 * (mw_collector.options_size bytes), filled from its table. */
	void *options;
};

/* One [remote_write.NAME] section: a Prometheus remote-write destination
 * the forwarder (forward/forwarder.h) sends stored points to. */
struct mw_rw_config {
	char *name;		/* NAME of the section */
	char *url;		/* http(s)://HOST:PORT/api/v1/write; required */
	char *bearer_token;	/* "" none */
	char *bearer_token_file;	/* "" none; read at start, trimmed */
	char *basic_user;	/* "" none */
	char *basic_password;
	char *ca_file;		/* "" the system's trust store */
	bool tls_verify;
	char *match;		/* selector list, see mw_config_split_match */
	char *labels;		/* extra labels "name=value,name=value" */
	int64_t batch_size;	/* samples per request */
	int64_t max_age_ms;	/* 0: [storage] retention_raw */
	int64_t timeout_ms;	/* one request, connect to answer */
	int64_t max_backoff_ms;	/* longest wait between retries */
};

struct mw_config {
	/* [daemon] */
	int64_t interval_ms;	/* default collector interval */
	char **watch;		/* watch list: image names (wildcards), pids, "self" */
	size_t nwatch;
	char *log_file;		/* NULL or "": stderr */
	int log_level;		/* enum mw_log_level */

	/* [storage] */
	char *db_path;
	int64_t flush_interval_ms;
	int64_t retention_raw_ms;
	int64_t retention_1m_ms;
	int64_t retention_1h_ms;
	uint64_t max_db_bytes;	/* 0: no limit */
	int64_t queue_batches;	/* bounded queue between sampler and writer */
	int64_t chunk_points;	/* close a chunk after this many points */
	int64_t chunk_duration_ms;	/* ... or when it spans this long */
	int64_t series_idle_ms;	/* a series without a point this long leaves memory */
	uint64_t cache_bytes;	/* SQLite page cache of the writer (readers: up to 2 MB) */
	int64_t full_check_every_ms;	/* start-up full check after clean stops at least this often; 0: always */
	uint64_t full_check_background_from;	/* files this big are checked beside the daemon */

	/* [web] */
	char *listen;		/* "127.0.0.1:8080", "[::1]:8080", "off" */
	char *token;		/* bearer token; NULL or "": none */
	bool web_allow_anonymous;	/* listen beyond loopback without a token */
	int64_t web_threads;
	int64_t web_max_connections;
	int64_t web_max_per_ip;
	int64_t web_timeout_ms;
	int64_t web_header_timeout_ms;	/* request line and headers must arrive within */
	int64_t web_query_timeout_ms;	/* a storage query longer than this is a 503 */
	uint64_t web_max_request_bytes;
	char *web_tls_cert;	/* PEM certificate (chain) for HTTPS; NULL or "": plain HTTP */
	char *web_tls_key;	/* PEM private key of web_tls_cert */

	/* [leak]: defaults of the leak verdicts (check, /api/v1/leaks) and the
	 * daemon's background judgement for the memwatch_leak_* gauges */
	int64_t leak_warmup_ms;
	int64_t leak_min_duration_ms;
	struct mw_growth_budget leak_max_growth;
	int64_t leak_max_count_growth;	/* handles and threads per hour */
	int64_t leak_horizon_ms;
	int64_t leak_window_ms;	/* range the background judgement covers */
	int64_t leak_refresh_ms;	/* how often it runs, at most */
	double leak_cpu_budget;	/* share of a core it may take (0: no limit) */
	int64_t leak_metrics_top;	/* growers exported besides watched processes */
	/* [exit_leaks]: exit leak reports (collectors/exit_leaks.h) */
	char *exit_leaks_images;	/* Windows: image names, comma-separated; "" none */
	char *exit_leaks_lsan_dir;	/* LeakSanitizer report directory; "" none */
	uint64_t exit_leaks_max_bytes;	/* leaked at exit allowed before check fails */
	/* [collector.NAME], one per registered collector, registry order */
	struct mw_collector_config *collectors;
	size_t ncollectors;
	/* [remote_write.NAME], in the order first seen */
	struct mw_rw_config *remote_write;
	size_t nremote_write, remote_write_cap;
};

/* Fill cfg with the defaults of every option and every collector. */
void mw_config_init(struct mw_config *cfg);
void mw_config_release(struct mw_config *cfg);

/* Read an INI file over the current values.  -1 with "FILE:LINE: ..." on
 * any error. */
int mw_config_load_file(struct mw_config *cfg, const char *path, struct mw_err *err);
/* Same for INI text already in memory; `name` is used in messages. */
int mw_config_load_string(struct mw_config *cfg, const char *name,
			  const char *text, struct mw_err *err);

/* Set one option by "section.key" (e.g. "storage.db", "collector.heap.interval"),
 * as the command line does.  `origin` names it in errors ("--db"). */
int mw_config_set(struct mw_config *cfg, const char *section, const char *key,
		  const char *value, const char *origin, struct mw_err *err);

/* Replace the watch list from a comma-separated string (a config file's
 * `watch =`, --set daemon.watch=). */
void mw_config_set_watch(struct mw_config *cfg, const char *list);
/* Append a comma-separated string's entries (--watch, repeatable); one
 * with no entry ("") clears the list instead. */
void mw_config_add_watch(struct mw_config *cfg, const char *list);

/* The section of a collector, or NULL when no such collector exists. */
struct mw_collector_config *mw_config_collector(struct mw_config *cfg, const char *name);
/* The interval a collector runs at: its own, else the [daemon] interval. */
int64_t mw_config_interval(const struct mw_config *cfg, const struct mw_collector_config *cc);

/* The [remote_write.NAME] section, created with defaults when missing
 * (NULL when NAME is not a valid name: letters, digits, '_', '-'). */
struct mw_rw_config *mw_config_remote_write(struct mw_config *cfg, const char *name);
/* Split a remote_write `match` list at top-level commas (not inside {}
 * or quotes); calls fn for each trimmed, non-empty item.  Stops and
 * returns fn's non-zero result. */
int mw_config_split_match(const char *list, int (*fn)(void *arg, const char *item, size_t len),
			  void *arg);
/* Parse a remote_write `labels` list "a=x,b=y" (names as Prometheus
 * label names, not starting "__").  fn gets each pair; -1 with a message
 * naming the bad item. */
int mw_config_parse_labels(const char *list,
			   void (*fn)(void *arg, const char *name, size_t nlen,
				      const char *value, size_t vlen),
			   void *arg, struct mw_err *err);

/* Write the reference INI: every option with its description and cfg's
 * value (a default value spelled as the table spells it, so a default
 * config writes config/memwatch.ini exactly). */
void mw_config_write_reference(const struct mw_config *cfg, void *file /* FILE* */);

#endif
