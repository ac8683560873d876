/*
 * status.h - what each collector is doing, for the API and `once`.
 *
 * The scheduler (sampler thread) writes; web threads read snapshots.
 * All access goes through these functions, which take one mutex.
 */
#ifndef MW_CORE_STATUS_H
#define MW_CORE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mw_collector_status {
	char name[32];
	bool enabled;
	bool supported;
	char reason[256];	/* why unsupported, "" otherwise */
	char mode[96];
	int64_t interval_ms;
	int64_t last_duration_us;
	int64_t last_run_ms;	/* wall clock of the last sample call, 0: never */
	uint64_t samples;	/* samples produced, total */
	uint64_t runs;
	uint64_t errors;	/* failed sample calls, total */
	char last_error[256];
	uint64_t skipped_ticks;	/* ticks skipped because it fell behind */
	uint64_t inaccessible;	/* targets skipped in the last tick */
	uint64_t inaccessible_total;
	bool failing;		/* last call failed; backing off */
};

/* What the size limit ([storage] max_size, storage/size_cut.c) removed
 * since the writer started: raw points and their chunks, rollup rows,
 * region snapshots, series rows left without data, and the pages in use
 * that freed, in bytes. */
struct mw_size_cut_counts {
	uint64_t points, chunks, rollup_rows, region_snapshots, series, bytes;
};

/* The storage writer's health, published after each of its rounds, so
 * /healthz and /metrics show a writer that cannot write (disk full, a
 * database taken by another process) even when nothing can be stored. */
struct mw_storage_health {
	bool known;		/* the writer published at least once */
	bool failing;		/* the last flush failed */
	uint64_t points_total;	/* committed */
	uint64_t dropped_points_total;
	uint64_t pending_points;
	uint64_t flushes;
	uint64_t failed_flushes;
	int64_t last_ok_flush_ms;	/* wall clock; 0: none yet */
	char last_error[256];	/* of the last failed flush, "" when none */
	struct mw_size_cut_counts size_cut;
};

/* What the watch list ([daemon] watch) selects now: each entry with the
 * processes it found, as the detail collectors last resolved it.  Bounded:
 * the first MW_WATCH_STATUS_ENTRIES entries, and the first
 * MW_WATCH_STATUS_MATCHES processes of each (the totals say how many). */
#define MW_WATCH_STATUS_ENTRIES 32
#define MW_WATCH_STATUS_MATCHES 16

struct mw_watch_status_match {
	uint32_t pid;
	char process[128];
};

struct mw_watch_status_entry {
	char entry[128];
	size_t nmatched;		/* in matched[] */
	size_t matched_total;		/* selected, all told */
	struct mw_watch_status_match matched[MW_WATCH_STATUS_MATCHES];
};

struct mw_watch_status {
	int64_t checked_ms;		/* wall clock of the last resolution; 0: never */
	size_t nentries;		/* in e[] */
	size_t entries_total;		/* in the watch list */
	struct mw_watch_status_entry e[MW_WATCH_STATUS_ENTRIES];
};

/* One remote-write destination's forwarder (forward/forwarder.h),
 * published after every request and every scan. */
struct mw_rw_status {
	char name[64];
	char url[256];
	bool up;		/* the last request was accepted (or nothing to send) */
	bool caught_up;		/* nothing stored is waiting to be sent */
	int64_t lag_ms;		/* age of the oldest point not yet accepted; 0 caught up */
	int64_t oldest_unsent_ms;	/* that point's time (0 none) */
	int64_t last_sent_ms;	/* wall clock of the last accepted request, 0 never */
	uint64_t points_sent;	/* accepted by the receiver */
	uint64_t batches_sent;
	uint64_t retries;	/* requests repeated after 5xx, 429, network */
	uint64_t batches_skipped;	/* refused for good (4xx), not resent */
	uint64_t points_skipped;
	uint64_t pending_series;	/* series with points to send, last scan */
	uint64_t future_series;	/* series whose unsent points are all stamped
				 * after the present (held until their time) */
	int last_status;	/* HTTP status of the last request, 0 none/no answer */
	int64_t last_error_ms;	/* wall clock of the last error, 0 none */
	char last_error[512];	/* the receiver's message or the network error */
};

/* The background leak judgement (app/leak_judge.c), published after
 * each run for /metrics: the verdicts of the groups it keeps (watched ones
 * and the [leak] metrics_top first-ranked), as plain structures. */
struct mw_leak_verdict {
	char process[128];
	bool watched;
	int verdict;		/* enum mw_verdict: 0 pass, 1 fail, 3 inconclusive */
	char aspect[16];	/* what decided: private, shared, mapped, handles, threads */
	char unit[16];		/* bytes, handles, threads */
	char kind[24];		/* the kind that grew ("" unless failing) */
	double slope_per_hour;	/* in unit per hour; NaN when none */
	double growth;		/* NaN when none */
	double projected;
	int64_t onset_ms;	/* INT64_MIN: none */
};

struct mw_leak_status {
	bool known;		/* the judge published at least once */
	uint64_t runs, failures;
	double last_run_s, last_duration_s, pause_s;
	size_t counts[4];	/* groups by verdict (index: enum mw_verdict) */
	size_t n;		/* verdicts */
	struct mw_leak_verdict *v;	/* owned by the copy */
};

struct mw_status_table;

struct mw_status_table *mw_status_new(size_t ncollectors);
void mw_status_free(struct mw_status_table *t);
size_t mw_status_count(const struct mw_status_table *t);

/* Copy entry i out (thread-safe). */
void mw_status_get(struct mw_status_table *t, size_t i, struct mw_collector_status *out);
/* Replace entry i (thread-safe). */
void mw_status_set(struct mw_status_table *t, size_t i, const struct mw_collector_status *in);

/* The storage writer's health (thread-safe). */
void mw_status_set_storage(struct mw_status_table *t, const struct mw_storage_health *in);
void mw_status_get_storage(struct mw_status_table *t, struct mw_storage_health *out);

/* The watch list's last resolution (thread-safe; copies ~70 KB). */
void mw_status_set_watch(struct mw_status_table *t, const struct mw_watch_status *in);
void mw_status_get_watch(struct mw_status_table *t, struct mw_watch_status *out);

/* Remote-write destinations: set their number once (run.c, before the
 * forwarders start), then each forwarder replaces its entry. */
void mw_status_rw_init(struct mw_status_table *t, size_t n);
size_t mw_status_rw_count(struct mw_status_table *t);
void mw_status_rw_set(struct mw_status_table *t, size_t i, const struct mw_rw_status *in);
void mw_status_rw_get(struct mw_status_table *t, size_t i, struct mw_rw_status *out);
/* The lag as of now_ms: the age of the oldest unsent point keeps growing
 * while the forwarder waits between retries (it publishes less often). */
int64_t mw_rw_status_lag_ms(const struct mw_rw_status *s, int64_t now_ms);

/* The leak judgement (thread-safe; both copy the verdicts: release the
 * copy get made with mw_leak_status_release). */
void mw_status_set_leaks(struct mw_status_table *t, const struct mw_leak_status *in);
void mw_status_get_leaks(struct mw_status_table *t, struct mw_leak_status *out);
void mw_leak_status_release(struct mw_leak_status *s);

/* The storage writer's flush on request, for a reader that must see
 * everything the writer holds (GET /api/v1/export up to now): run.c sets
 * it while the writer runs (and clears it before stopping the writer,
 * after the web server).  fn commits everything handed to the writer and
 * returns 0, or -1 when that failed or took over timeout_ms.
 * mw_status_flush calls it (outside the table's lock); 0 when none is set. */
typedef int (*mw_flush_fn)(void *arg, int64_t timeout_ms);
void mw_status_set_flush(struct mw_status_table *t, mw_flush_fn fn, void *arg);
int mw_status_flush(struct mw_status_table *t, int64_t timeout_ms);
/* Daemon start time, for uptime. */
int64_t mw_status_started_ms(const struct mw_status_table *t);

#endif
