/* forwarder.c - see forwarder.h.  The threads, the scan of the selected
 * series and the send loop; the parts with one job each are in
 * backoff.c, cursor.c, rw_batch.c and select.c. */
#include "forwarder.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/watch.h"
#include "base/clock.h"
#include "base/clock_step.h"
#include "base/cond.h"
#include "base/fsutf8.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "forward/backoff.h"
#include "forward/cursor.h"
#include "forward/rw_batch.h"
#include "forward/rw_transport.h"
#include "forward/rw_wire.h"
#include "forward/select.h"
#include "storage/query.h"
#include "base/thread_name.h"

/* The first time window of a send pass; widened when it holds nothing. */
#define SPAN_MS (5 * 60000LL)
/* How often the cursors of series older than max_age are forgotten. */
#define PRUNE_EVERY_MS (3600000LL)

/* A stored point, and where it came in storage order. */
struct point {
	int64_t ts;
	double v;
	size_t seq;
};

/* A series with points to send. */
struct pending {
	const struct mw_series_info *info;
	int64_t cur;		/* points <= cur are done */
	bool done;
};

struct dest {
	struct mw_forwarder *owner;
	size_t index;		/* in the status table */
	char *name;
	struct mw_rw_endpoint ep;
	char *url, *token, *user, *password, *ca_file;
	struct mw_rw_select sel;
	struct mw_label *extra;	/* the destination's labels, owned */
	size_t nextra;
	size_t batch_size;
	int64_t max_age_ms, max_backoff_ms, idle_ms;
	char *db_path;
	struct mw_status_table *status;
	struct mw_rw_status st;	/* this thread's copy, published whole */

	struct mw_rw_transport *transport;
	struct mw_reader *reader;
	struct mw_rw_cursor *cursor;
	struct mw_rw_batch batch;
	struct mw_rw_buf pb, body;
	struct point *pts;	/* one series' points of a window, sorted */
	size_t pts_cap;
	uint64_t rnd;
	int64_t pruned_ms;
	bool failing;		/* logged the start of a failure streak */
	bool cursor_failing;	/* logged that the cursor cannot be written */

	pthread_t thread;
	bool started;
};

struct mw_forwarder {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
	struct dest *d;
	size_t n;
};

static bool stopping(struct dest *d)
{
	bool s;

	pthread_mutex_lock(&d->owner->lock);
	s = d->owner->stopping;
	pthread_mutex_unlock(&d->owner->lock);
	return s;
}

/* Sleep up to ms on the monotonic clock (a wall clock stepped back does
 * not stretch it); true when asked to stop. */
static bool wait_ms(struct dest *d, int64_t ms)
{
	struct mw_forwarder *f = d->owner;
	int64_t until = mw_cond_deadline(ms);
	bool s;

	pthread_mutex_lock(&f->lock);
	while (!f->stopping && mw_cond_wait_until(&f->wake, &f->lock, until) != ETIMEDOUT)
		;
	s = f->stopping;
	pthread_mutex_unlock(&f->lock);
	mw_clock_step_poll();
	return s;
}

static void publish(struct dest *d)
{
	mw_status_rw_set(d->status, d->index, &d->st);
}

static void set_error(struct dest *d, int status, const char *fmt, const char *msg)
{
	d->st.last_status = status;
	d->st.last_error_ms = mw_clock_wall_ms();
	snprintf(d->st.last_error, sizeof(d->st.last_error), fmt, msg);
}

/* ---- sending one batch ------------------------------------------------- */

enum sent { SENT_OK, SENT_SKIPPED, SENT_STOPPED };

static void describe(char *buf, size_t size, int status, const char *message)
{
	if (status)
		snprintf(buf, size, "HTTP %d: %s", status, *message ? message : "(no message)");
	else
		snprintf(buf, size, "%s", *message ? message : "no answer");
}

static mw_rw_post_hook post_hook;
static void *post_hook_arg;

void mw_forwarder_set_post_hook(mw_rw_post_hook hook, void *arg)
{
	post_hook = hook;
	post_hook_arg = arg;
}

static enum sent send_batch(struct dest *d)
{
	struct mw_rw_batch *b = &d->batch;
	struct mw_err err = { "" };
	unsigned attempt = 0;

	mw_rw_batch_finish(b);
	if (mw_rw_encode(b->series, b->nseries, &d->pb, &d->body, &err)) {
		/* Nothing a retry could change: count it like a refusal. */
		mw_log_warn("remote_write.%s: cannot encode a batch of %zu points: %s; skipped",
			    d->name, b->nsamples, err.msg);
		set_error(d, 0, "cannot encode: %s", err.msg);
		d->st.batches_skipped++;
		d->st.points_skipped += b->nsamples;
		return SENT_SKIPPED;
	}
	for (;;) {
		struct mw_rw_result res;
		char what[700];
		int status;
		enum mw_rw_outcome o;

		if (stopping(d))
			return SENT_STOPPED;
		memset(&res, 0, sizeof(res));
		if (post_hook)
			status = post_hook(post_hook_arg, d->name, b->series, b->nseries, &res);
		else
			status = mw_rw_post(d->transport, d->body.data, d->body.len, &res) == 0
					 ? res.status : 0;
		res.message[sizeof(res.message) - 1] = '\0';
		o = mw_rw_classify(status);
		d->st.last_status = status;
		if (o == MW_RW_ACCEPTED) {
			if (d->failing)
				mw_log_info("remote_write.%s: receiver accepts again", d->name);
			d->failing = false;
			d->st.up = true;
			d->st.points_sent += b->nsamples;
			d->st.batches_sent++;
			d->st.last_sent_ms = mw_clock_wall_ms();
			return SENT_OK;
		}
		describe(what, sizeof(what), status, res.message);
		if (o == MW_RW_SKIP) {
			/* The receiver's own words: "out of bounds", "too old",
			 * "duplicate sample for timestamp" ... */
			mw_log_warn("remote_write.%s: the receiver refused %zu points of %zu series "
				    "(%s); skipped, not resent",
				    d->name, b->nsamples, b->nseries, what);
			set_error(d, status, "refused, skipped: %s", what);
			d->st.up = true;	/* it answers; the data was bad */
			d->st.batches_skipped++;
			d->st.points_skipped += b->nsamples;
			return SENT_SKIPPED;
		}
		/* Retry: the first failure of a streak is a warning, the rest
		 * go to the status (and debug), not to the log every second. */
		if (!d->failing)
			mw_log_warn("remote_write.%s: %s; retrying with backoff", d->name, what);
		else
			mw_log_debug("remote_write.%s: %s; retrying", d->name, what);
		d->failing = true;
		d->st.up = false;
		d->st.retries++;
		set_error(d, status, "%s", what);
		publish(d);
		if (wait_ms(d, mw_rw_backoff_ms(++attempt, MW_RW_MIN_BACKOFF_MS, d->max_backoff_ms,
						mw_rw_rand(&d->rnd))))
			return SENT_STOPPED;
	}
}

/* ---- scanning the series and filling batches ---------------------------- */

static int cmp_pending(const void *x, const void *y)
{
	const struct pending *a = x, *b = y;

	if (a->cur != b->cur)
		return a->cur < b->cur ? -1 : 1;
	return a->info->id < b->info->id ? -1 : a->info->id > b->info->id;
}

static int cmp_point(const void *x, const void *y)
{
	const struct point *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Collect the points of p in (p->cur, horizon] into d->pts, at most cap
 * (then cap + 1 are there and the window was not read whole).  0, or -1
 * on a read error. */
static int collect(struct dest *d, const struct pending *p, int64_t horizon, size_t cap,
		   size_t *nout, struct mw_err *err)
{
	struct mw_raw_iter *it;
	int64_t ts;
	double v;
	size_t n = 0;
	int rc;

	if (mw_raw_iter_open(&it, d->reader, p->info->id, p->cur + 1, horizon, err))
		return -1;
	while (n <= cap && (rc = mw_raw_iter_next(it, &ts, &v, err)) == 1) {
		MW_GROW(d->pts, d->pts_cap, n + 1);
		d->pts[n] = (struct point){ ts, v, n };
		n++;
	}
	mw_raw_iter_free(it);
	*nout = n;
	return n <= cap && rc < 0 ? -1 : 0;
}

/* Read the points of p in (p->cur, *horizon] into the batch, oldest first.
 * Storage order is not time order after the wall clock stepped back (the
 * points stamped after the step follow the ones stamped before it), so the
 * window is sorted; of two points with one timestamp the one stored last
 * is sent.  Memory stays bounded: a window holding more than a few
 * batches of points is halved (*horizon says how far it was read).
 * Returns the number added, -1 on a read error (message in err). */
static long read_series(struct dest *d, struct pending *p, int64_t *horizon, bool *full,
			struct mw_err *err)
{
	size_t cap = 4 * d->batch.cap + 1024, n, i;
	long added = 0;

	*full = false;
	if (!mw_rw_batch_begin(&d->batch, p->info->id, p->info->name, p->info->labels,
			       p->info->nlabels, d->extra, d->nextra)) {
		mw_log_debug("remote_write.%s: series %s has a label that is not UTF-8; not sent",
			     d->name, p->info->key);
		p->done = true;
		return 0;
	}
	for (;;) {
		if (collect(d, p, *horizon, cap, &n, err)) {
			mw_rw_batch_end(&d->batch);
			return -1;
		}
		if (n <= cap)
			break;
		if (*horizon - p->cur < 2) {
			cap = SIZE_MAX - 1;	/* one timestamp: read it whole */
			continue;
		}
		*horizon = p->cur + (*horizon - p->cur) / 2;
	}
	if (n > 1)
		qsort(d->pts, n, sizeof(*d->pts), cmp_point);
	for (i = 0; i < n; i++) {
		if (i + 1 < n && d->pts[i + 1].ts == d->pts[i].ts)
			continue;	/* the later one of the same time */
		if (!mw_rw_batch_add(&d->batch, d->pts[i].ts, d->pts[i].v)) {
			*full = true;
			break;
		}
		added++;
	}
	mw_rw_batch_end(&d->batch);
	return added;
}

static int cmp_pending_id(const void *x, const void *y)
{
	const struct pending *a = x, *b = y;

	return a->info->id < b->info->id ? -1 : a->info->id > b->info->id;
}

/* A cursor in the future (cur >= now) says points were sent that are
 * stamped after the present: the wall clock stepped back since.  The
 * points stamped after the step are older than the cursor and would wait
 * for the clock to pass it; the cursor goes back to where the step came
 * (the points stamped in between, sent before the step, are sent once
 * more as the clock passes them).  Without a step seen by this process
 * (one before a restart) the series waits. */
static int64_t rewound(struct dest *d, int64_t series_id, int64_t cur, int64_t now)
{
	struct mw_clock_step step;

	if (cur < now || !mw_clock_step_last(&step) || step.step_ms >= 0 ||
	    step.from_wall_ms > now || step.from_wall_ms - 1 >= cur)
		return cur;
	mw_rw_cursor_rewind(d->cursor, series_id, step.from_wall_ms - 1);
	return step.from_wall_ms - 1;
}

/* The series with points newer than their cursor and not after now; the
 * ones whose every unsent point is stamped after now are counted in
 * *future (they wait for their time). */
static int scan(struct dest *d, struct mw_series_list *lists, struct pending **out, size_t *nout,
		int64_t floor, int64_t now, uint64_t *future, struct mw_err *err)
{
	struct pending *pend = NULL;
	size_t i, j, n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < d->sel.n; i++) {
		if (mw_reader_find(d->reader, d->sel.selectors[i], &lists[i], err)) {
			free(pend);
			return -1;
		}
		for (j = 0; j < lists[i].n; j++) {
			const struct mw_series_info *info = &lists[i].items[j];

			if (info->last_ts == INT64_MIN || info->last_ts < floor ||
			    !mw_rw_select_keep(&d->sel, i, info))
				continue;
			MW_GROW(pend, cap, n + 1);
			pend[n].info = info;
			pend[n].cur = INT64_MIN;
			pend[n].done = false;
			n++;
		}
	}
	/* a series found by two selectors is sent once */
	if (n > 1)	/* qsort of (NULL, 0) is undefined */
		qsort(pend, n, sizeof(*pend), cmp_pending_id);
	for (i = j = 0; i < n; i++) {
		int64_t cur;
		int rc;

		if (j && pend[j - 1].info->id == pend[i].info->id)
			continue;
		rc = mw_rw_cursor_get(d->cursor, pend[i].info->id, &cur, err);
		if (rc < 0) {
			free(pend);
			return -1;
		}
		/* new series (or one whose cursor was pruned): from its first
		 * point, or floor when that is older */
		if (!rc || cur < floor - 1)
			cur = floor - 1;
		if (!rc && pend[i].info->first_ts != INT64_MIN && pend[i].info->first_ts - 1 > cur)
			cur = pend[i].info->first_ts - 1;
		if (rc)
			cur = rewound(d, pend[i].info->id, cur, now);
		if (pend[i].info->last_ts <= cur)
			continue;
		if (cur >= now) {
			(*future)++;
			continue;
		}
		pend[j] = pend[i];
		pend[j].cur = cur;
		j++;
	}
	*out = pend;
	*nout = j;
	return 0;
}

static void update_lag(struct dest *d, const struct pending *pend, size_t n)
{
	int64_t now = mw_clock_wall_ms(), oldest = INT64_MAX;
	size_t i, left = 0;

	for (i = 0; i < n; i++)
		if (!pend[i].done) {
			left++;
			if (pend[i].cur + 1 < oldest)
				oldest = pend[i].cur + 1;
		}
	d->st.pending_series = left;
	d->st.caught_up = !left;
	d->st.oldest_unsent_ms = left ? oldest : 0;
	d->st.lag_ms = left && now > oldest ? now - oldest : 0;
}

/* One pass: scan, then send batches until every series found is done.
 * -1 on a storage error (message in err), 1 when asked to stop. */
static int pass(struct dest *d, struct mw_err *err)
{
	struct mw_series_list *lists = mw_xcalloc(d->sel.n ? d->sel.n : 1, sizeof(*lists));
	struct pending *pend = NULL;
	size_t npend = 0, i;
	int64_t now = mw_clock_wall_ms();
	int64_t floor = now - d->max_age_ms;
	int64_t span = SPAN_MS;
	uint64_t future = 0;
	int rc = 0;

	if (scan(d, lists, &pend, &npend, floor, now, &future, err)) {
		rc = -1;
		goto out;
	}
	if (now - d->pruned_ms >= PRUNE_EVERY_MS) {
		if (mw_rw_cursor_prune(d->cursor, floor - 1, err))
			mw_log_debug("remote_write.%s: %s", d->name, err->msg);
		d->pruned_ms = now;
	}
	if (npend > 1)
		qsort(pend, npend, sizeof(*pend), cmp_pending);
	d->st.future_series = future;
	update_lag(d, pend, npend);
	publish(d);
	while (npend) {
		int64_t horizon;
		size_t k;
		enum sent sent;

		if (stopping(d)) {
			rc = 1;
			goto out;
		}
		horizon = pend[0].cur > INT64_MAX - span ? INT64_MAX : pend[0].cur + span;
		/* no point stamped after the present is sent: it waits for
		 * its time (a clock stepped back, an imported future point) */
		if (horizon > now)
			horizon = now;
		mw_rw_batch_reset(&d->batch);
		for (i = 0; i < npend && mw_rw_batch_room(&d->batch); i++) {
			struct pending *p = &pend[i];
			bool full;
			int64_t read_to;
			long got;

			if (p->cur >= horizon)
				break;
			read_to = horizon;
			got = read_series(d, p, &read_to, &full, err);
			if (got < 0) {
				rc = -1;
				goto out;
			}
			if (!full && (read_to >= p->info->last_ts || read_to >= now)) {
				p->done = true;
				if (read_to < p->info->last_ts)
					d->st.future_series++;
			} else if (!got && !full) {
				/* nothing in (cur, read_to] but newer points are
				 * committed: nothing can appear there any more */
				p->cur = read_to;
			}
		}
		if (d->batch.nsamples) {
			sent = send_batch(d);
			if (sent == SENT_STOPPED) {
				rc = 1;
				goto out;
			}
			/* accepted or refused for good: the cursor moves on */
			if (mw_rw_cursor_commit(d->cursor, d->batch.pos, d->batch.nseries, err)) {
				/* held in memory: not sent again by this process */
				if (!d->cursor_failing)
					mw_log_warn("remote_write.%s: %s (the positions are kept in "
						    "memory and written when the database takes "
						    "them)", d->name, err->msg);
				d->cursor_failing = true;
				set_error(d, d->st.last_status, "%s", err->msg);
			} else if (d->cursor_failing) {
				mw_log_info("remote_write.%s: the cursor is written again", d->name);
				d->cursor_failing = false;
			}
			for (k = 0; k < d->batch.nseries; k++)
				for (i = 0; i < npend; i++)
					if (pend[i].info->id == d->batch.pos[k].series_id &&
					    d->batch.pos[k].ts > pend[i].cur) {
						pend[i].cur = d->batch.pos[k].ts;
						break;
					}
			span = SPAN_MS;
		} else if (span < INT64_MAX / 4) {
			span *= 4;	/* a gap in the data: look further */
		}
		/* drop the finished series, keep the order by cursor */
		for (i = k = 0; i < npend; i++) {
			if (pend[i].done)
				continue;
			if (pend[i].cur >= now) {	/* the rest is after the present */
				d->st.future_series++;
				continue;
			}
			pend[k++] = pend[i];
		}
		update_lag(d, pend, k);
		npend = k;
		if (npend > 1)
			qsort(pend, npend, sizeof(*pend), cmp_pending);
		publish(d);
	}
out:
	if (rc >= 0 && !npend)
		update_lag(d, NULL, 0);
	publish(d);
	free(pend);
	for (i = 0; i < d->sel.n; i++)
		mw_series_list_release(&lists[i]);
	free(lists);
	return rc;
}

static void *dest_main(void *arg)
{
	struct dest *d = arg;
	struct mw_err err = { "" };
	unsigned storage_attempt = 0;

	mw_thread_set_name("mw-forward");
	while (!stopping(d)) {
		int rc;

		if (!d->reader && mw_reader_open(&d->reader, d->db_path, &err))
			d->reader = NULL;
		if (d->reader && !d->cursor &&
		    mw_rw_cursor_open(&d->cursor, d->db_path, d->name, &err))
			d->cursor = NULL;
		if (!d->reader || !d->cursor) {
			rc = -1;
		} else {
			mw_reader_set_deadline(d->reader, 0);
			rc = pass(d, &err);
		}
		if (rc > 0)
			break;
		if (rc < 0) {
			/* Storage trouble (busy beyond the timeout, a corrupt
			 * chunk): say so, wait, try again. */
			if (!storage_attempt)
				mw_log_warn("remote_write.%s: reading the database: %s", d->name,
					    err.msg);
			set_error(d, 0, "reading the database: %s", err.msg);
			publish(d);
			if (wait_ms(d, mw_rw_backoff_ms(++storage_attempt, 1000, 60000,
							mw_rw_rand(&d->rnd))))
				break;
			continue;
		}
		storage_attempt = 0;
		if (wait_ms(d, d->idle_ms))
			break;
	}
	return NULL;
}

/* ---- set-up ------------------------------------------------------------- */

static void add_extra(void *arg, const char *name, size_t nlen, const char *value, size_t vlen)
{
	struct dest *d = arg;

	d->extra = mw_xrealloc(d->extra, (d->nextra + 1) * sizeof(*d->extra));
	d->extra[d->nextra].name = mw_xstrndup(name, nlen);
	d->extra[d->nextra].value = mw_xstrndup(value, vlen);
	d->nextra++;
}

/* The token file's first line, blanks removed. */
static char *read_token_file(const char *path, struct mw_err *err)
{
	FILE *f = mw_fopen(path, "rb");
	char buf[4096];
	size_t n;
	char *a, *b;

	if (!f) {
		mw_error(err, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	a = buf;
	while (*a == ' ' || *a == '\t' || *a == '\r' || *a == '\n')
		a++;
	b = a + strcspn(a, "\r\n");
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	*b = '\0';
	if (!*a) {
		mw_error(err, "'%s' holds no token", path);
		return NULL;
	}
	return mw_xstrdup(a);
}

static void dest_release(struct dest *d)
{
	mw_rw_transport_free(d->transport);
	mw_reader_free(d->reader);
	mw_rw_cursor_free(d->cursor);
	mw_rw_batch_release(&d->batch);
	mw_rw_buf_release(&d->pb);
	mw_rw_buf_release(&d->body);
	free(d->pts);
	mw_rw_select_release(&d->sel);
	mw_labels_release(d->extra, d->nextra);
	free(d->extra);
	free(d->name);
	free(d->url);
	free(d->token);
	free(d->user);
	free(d->password);
	free(d->ca_file);
	free(d->db_path);
}

static int dest_init(struct dest *d, const struct mw_config *cfg, const struct mw_rw_config *rc,
		     struct mw_err *err)
{
	d->name = mw_xstrdup(rc->name);
	if (!rc->url || !*rc->url)
		return mw_error(err, "[remote_write.%s] url: required", rc->name);
	if (*rc->bearer_token && *rc->bearer_token_file)
		return mw_error(err, "[remote_write.%s] bearer_token_file: bearer_token is set too",
				rc->name);
	if ((*rc->bearer_token || *rc->bearer_token_file) && *rc->basic_user)
		return mw_error(err, "[remote_write.%s] basic_user: a bearer token is set too "
				"(one kind of authentication)", rc->name);
	if (*rc->bearer_token_file) {
		d->token = read_token_file(rc->bearer_token_file, err);
		if (!d->token)
			return mw_error_prefix(err, "[remote_write.%s] bearer_token_file", rc->name);
	} else {
		d->token = mw_xstrdup(rc->bearer_token);
	}
	d->url = mw_xstrdup(rc->url);
	d->user = mw_xstrdup(rc->basic_user);
	d->password = mw_xstrdup(rc->basic_password);
	d->ca_file = mw_xstrdup(rc->ca_file);
	d->ep.url = d->url;
	d->ep.bearer_token = d->token;
	d->ep.basic_user = d->user;
	d->ep.basic_password = d->password;
	d->ep.ca_file = *d->ca_file ? d->ca_file : NULL;
	d->ep.tls_verify = rc->tls_verify;
	d->ep.timeout_ms = (int)rc->timeout_ms;
	d->transport = mw_rw_transport_new(&d->ep, err);
	if (!d->transport)
		return mw_error_prefix(err, "[remote_write.%s] url", rc->name);
	if (mw_rw_select_init(&d->sel, rc->match, (const char *const *)cfg->watch, cfg->nwatch,
			      mw_self_pid(), err))
		return mw_error_prefix(err, "[remote_write.%s] match", rc->name);
	if (mw_config_parse_labels(rc->labels, add_extra, d, err))
		return mw_error_prefix(err, "[remote_write.%s] labels", rc->name);
	d->batch_size = (size_t)rc->batch_size;
	mw_rw_batch_init(&d->batch, d->batch_size);
	d->max_age_ms = rc->max_age_ms ? rc->max_age_ms : cfg->retention_raw_ms;
	d->max_backoff_ms = rc->max_backoff_ms;
	/* Look for new points as often as the writer commits them. */
	d->idle_ms = cfg->flush_interval_ms > 0 ? cfg->flush_interval_ms : 5000;
	d->db_path = mw_xstrdup(cfg->db_path);
	d->rnd = (uint64_t)mw_clock_mono_ns() ^ ((uint64_t)(uintptr_t)d << 17) ^ 0x5DEECE66Dull;
	snprintf(d->st.name, sizeof(d->st.name), "%s", rc->name);
	snprintf(d->st.url, sizeof(d->st.url), "%s", rc->url);
	d->st.up = true;
	return 0;
}

int mw_forwarder_start(struct mw_forwarder **out, const struct mw_config *cfg,
		       struct mw_status_table *status, struct mw_err *err)
{
	struct mw_forwarder *f;
	size_t i;

	*out = NULL;
	mw_status_rw_init(status, cfg->nremote_write);
	if (!cfg->nremote_write)
		return 0;
	f = mw_xcalloc(1, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	mw_cond_init(&f->wake);
	f->d = mw_xcalloc(cfg->nremote_write, sizeof(*f->d));
	f->n = cfg->nremote_write;
	for (i = 0; i < f->n; i++) {
		f->d[i].owner = f;
		f->d[i].index = i;
		f->d[i].status = status;
		if (dest_init(&f->d[i], cfg, &cfg->remote_write[i], err)) {
			mw_forwarder_stop(f);
			return -1;
		}
		publish(&f->d[i]);
	}
	for (i = 0; i < f->n; i++) {
		if (pthread_create(&f->d[i].thread, NULL, dest_main, &f->d[i])) {
			mw_error(err, "remote_write.%s: cannot start a thread", f->d[i].name);
			mw_forwarder_stop(f);
			return -1;
		}
		f->d[i].started = true;
		mw_log_info("remote_write.%s: forwarding to %s", f->d[i].name, f->d[i].url);
	}
	*out = f;
	return 0;
}

void mw_forwarder_stop(struct mw_forwarder *f)
{
	size_t i;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	pthread_cond_broadcast(&f->wake);
	pthread_mutex_unlock(&f->lock);
	/* a post in flight to a receiver that does not answer must not hold
	 * the stop for its timeout: what it carried is sent at the next start */
	for (i = 0; i < f->n; i++)
		mw_rw_transport_cancel(f->d[i].transport);
	for (i = 0; i < f->n; i++) {
		if (f->d[i].started)
			pthread_join(f->d[i].thread, NULL);
		dest_release(&f->d[i]);
	}
	free(f->d);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
