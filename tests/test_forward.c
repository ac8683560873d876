/* test_forward.c - the remote-write forwarder's own parts: outcome
 * classification, backoff and jitter bounds, batch building, series
 * selection, the [remote_write.NAME] config, the cursor table, and the
 * forwarder thread against a real database with the network replaced by a
 * hook (late points, a series appearing behind the cursor, a refused
 * batch, retries).  The wire format and the transport have their own tests
 * (test_rw_wire.c, rwwire's transport tests); the real receivers are in
 * tests/e2e/remote_write.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <errno.h>
#include <cmocka.h>

#include "core/batch.h"
#include "base/clock.h"
#include "base/cond.h"
#include "base/utf8.h"
#include "core/config.h"
#include "core/status.h"
#include "forward/backoff.h"
#include "forward/cursor.h"
#include "forward/forwarder.h"
#include "forward/rw_batch.h"
#include "forward/rw_transport.h"
#include "forward/rw_wire.h"
#include "forward/select.h"
#include "storage/db.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_forward.tmp.db"

MW_TEST_DB_FIXTURES(DB)

/* ---- outcome and backoff ---------------------------------------------- */

static void classify(void **state)
{
	(void)state;
	assert_int_equal(mw_rw_classify(200), MW_RW_ACCEPTED);
	assert_int_equal(mw_rw_classify(204), MW_RW_ACCEPTED);
	/* the samples are refused: skip, never loop */
	assert_int_equal(mw_rw_classify(400), MW_RW_SKIP);
	assert_int_equal(mw_rw_classify(409), MW_RW_SKIP);
	assert_int_equal(mw_rw_classify(413), MW_RW_SKIP);
	assert_int_equal(mw_rw_classify(422), MW_RW_SKIP);
	/* the endpoint or our credentials: keep the data, retry */
	assert_int_equal(mw_rw_classify(401), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(403), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(404), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(429), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(500), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(503), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(0), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(302), MW_RW_RETRY);
	assert_int_equal(mw_rw_classify(-1), MW_RW_RETRY);
	assert_string_equal(mw_rw_outcome_name(MW_RW_SKIP), "skip");
}

static void backoff_bounds(void **state)
{
	static const uint32_t rnds[] = { 0, 1, 0x7FFFFFFF, 0xFFFFFFFF };
	uint64_t seed = 42;
	int64_t prev_cap = 0, lo = INT64_MAX, hi = 0;
	unsigned a;
	size_t k;

	(void)state;
	for (a = 1; a <= 40; a++) {
		int64_t d = 250;
		unsigned i;

		for (i = 1; i < a && d < 30000; i++)
			d *= 2;
		if (d > 30000)
			d = 30000;
		assert_true(d >= prev_cap);
		prev_cap = d;
		for (k = 0; k < MW_ARRAY_SIZE(rnds); k++) {
			int64_t w = mw_rw_backoff_ms(a, 250, 30000, rnds[k]);

			assert_true(w >= d / 2);
			assert_true(w <= d);
		}
		assert_int_equal(mw_rw_backoff_ms(a, 250, 30000, 0), d / 2);
		assert_int_equal(mw_rw_backoff_ms(a, 250, 30000, 0xFFFFFFFF), d);
	}
	/* jitter: the generator spreads the waits over the window */
	for (k = 0; k < 1000; k++) {
		int64_t w = mw_rw_backoff_ms(10, 250, 30000, mw_rw_rand(&seed));

		if (w < lo)
			lo = w;
		if (w > hi)
			hi = w;
	}
	assert_true(lo < 16000);
	assert_true(hi > 29000);
	/* a max below min, zero min: still sane */
	assert_int_equal(mw_rw_backoff_ms(1, 1000, 10, 0xFFFFFFFF), 1000);
	assert_true(mw_rw_backoff_ms(5, 0, 100, 0) >= 0);
}

/* ---- batches ------------------------------------------------------------ */

static void batch_labels_and_bounds(void **state)
{
	struct mw_label own[2] = { { "pid", "42" }, { "instance", "mine" } };
	struct mw_label extra[2] = { { "lab", "soak" }, { "instance", "lab-12" } };
	struct mw_rw_batch b;
	struct mw_rw_buf pb = { 0 }, body = { 0 };
	struct mw_err err;

	(void)state;
	mw_rw_batch_init(&b, 5);
	assert_true(mw_rw_batch_begin(&b, 7, "m_a", own, 2, extra, 2));
	assert_true(mw_rw_batch_add(&b, 1000, 1.5));
	assert_true(mw_rw_batch_add(&b, 2000, 2.5));
	/* a series that gets no sample disappears again */
	assert_true(mw_rw_batch_begin(&b, 8, "m_empty", NULL, 0, extra, 2));
	assert_true(mw_rw_batch_begin(&b, 9, "m_b", NULL, 0, extra, 2));
	assert_true(mw_rw_batch_add(&b, 500, 3));
	assert_true(mw_rw_batch_add(&b, 600, 4));
	assert_true(mw_rw_batch_add(&b, 700, 5));
	/* full: the sixth sample is refused, whatever the backlog */
	assert_false(mw_rw_batch_add(&b, 800, 6));
	assert_int_equal(mw_rw_batch_room(&b), 0);
	mw_rw_batch_finish(&b);
	assert_int_equal(b.nseries, 2);
	assert_int_equal(b.nsamples, 5);
	assert_int_equal(b.oldest_ts, 500);
	/* sorted labels, the series' own instance wins over the extra one */
	assert_int_equal(b.series[0].nlabels, 4);
	assert_string_equal(b.series[0].labels[0].name, "__name__");
	assert_string_equal(b.series[0].labels[0].value, "m_a");
	assert_string_equal(b.series[0].labels[1].name, "instance");
	assert_string_equal(b.series[0].labels[1].value, "mine");
	assert_string_equal(b.series[0].labels[2].name, "lab");
	assert_string_equal(b.series[0].labels[3].name, "pid");
	assert_int_equal(b.series[0].nsamples, 2);
	assert_int_equal(b.series[1].nsamples, 3);
	assert_string_equal(b.series[1].labels[0].value, "m_b");
	assert_string_equal(b.series[1].labels[1].value, "lab-12");
	assert_int_equal(b.pos[0].series_id, 7);
	assert_int_equal(b.pos[0].ts, 2000);
	assert_int_equal(b.pos[1].series_id, 9);
	assert_int_equal(b.pos[1].ts, 700);
	assert_int_equal(mw_rw_encode(b.series, b.nseries, &pb, &body, &err), 0);
	assert_true(body.len > 0);

	/* reuse after reset; labels that receivers refuse are not begun */
	mw_rw_batch_reset(&b);
	{
		struct mw_label bad[1] = { { "process", "caf\xe9" } };	/* Latin-1 */
		struct mw_label good[1] = { { "process", "caf\xc3\xa9" } };

		assert_false(mw_rw_batch_begin(&b, 1, "m", bad, 1, NULL, 0));
		assert_false(mw_rw_batch_add(&b, 1, 1));
		assert_true(mw_rw_batch_begin(&b, 1, "m", good, 1, NULL, 0));
		assert_true(mw_rw_batch_add(&b, 1, 1));
	}
	mw_rw_batch_finish(&b);
	assert_int_equal(b.nseries, 1);
	assert_false(mw_utf8_valid("\xed\xa0\x80"));	/* surrogate */
	assert_false(mw_utf8_valid("\xc0\xaf"));	/* overlong */
	assert_true(mw_utf8_valid("\xf0\x9f\x98\x80"));
	mw_rw_buf_release(&pb);
	mw_rw_buf_release(&body);
	mw_rw_batch_release(&b);
}

/* ---- selection ------------------------------------------------------------ */

static struct mw_series_info info_of(const char *name, struct mw_label *l, size_t n)
{
	struct mw_series_info i;

	memset(&i, 0, sizeof(i));
	i.name = (char *)name;
	i.labels = l;
	i.nlabels = n;
	return i;
}

static void selection(void **state)
{
	const char *watch[] = { "note*", "4242", "self" };
	struct mw_rw_select s;
	struct mw_err err;
	struct mw_label l1[2] = { { "pid", "7" }, { "process", "NotePad.exe" } };
	struct mw_label l2[2] = { { "pid", "4242" }, { "process", "x" } };
	struct mw_label l3[2] = { { "pid", "99" }, { "process", "other" } };
	struct mw_label l4[2] = { { "pid", "1234" }, { "process", "memwatchd" } };
	struct mw_series_info i1 = info_of("memwatch_process_private_bytes", l1, 2);
	struct mw_series_info i2 = info_of("memwatch_heap_bytes", l2, 2);
	struct mw_series_info i3 = info_of("memwatch_process_private_bytes", l3, 2);
	struct mw_series_info i4 = info_of("memwatch_process_threads", l4, 2);
	char *re;
	size_t i;

	(void)state;
	re = mw_rw_glob_regex("a*b?.exe");
	assert_string_equal(re, "[aA].*[bB].[.][eE][xX][eE].*");
	free(re);
	assert_int_equal(mw_rw_select_init(&s, "watched, {__name__=~\"memwatch_(system|leak)_.*\"}",
					   watch, 3, 1234, &err), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.selectors[0], "{process=~\"[nN][oO][tT][eE].*.*\"}");
	assert_string_equal(s.selectors[1], "{pid=\"4242\"}");
	assert_string_equal(s.selectors[2], "{pid=\"1234\"}");
	assert_false(s.watched[3]);
	/* each watched selector's finds are checked with the watch list */
	for (i = 0; i < 3; i++) {
		assert_true(mw_rw_select_keep(&s, i, &i1));
		assert_true(mw_rw_select_keep(&s, i, &i2));
		assert_false(mw_rw_select_keep(&s, i, &i3));
		assert_true(mw_rw_select_keep(&s, i, &i4));	/* self */
	}
	assert_true(mw_rw_select_keep(&s, 3, &i3));	/* plain selector: as found */
	mw_rw_select_release(&s);

	assert_int_equal(mw_rw_select_init(&s, "watched", NULL, 0, 1, &err), 0);
	assert_int_equal(s.n, 0);	/* nothing watched: nothing selected */
	mw_rw_select_release(&s);
	assert_int_equal(mw_rw_select_init(&s, "a{b=\"x,y\"}, {c=~\"1|2\"}", NULL, 0, 1, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.selectors[0], "a{b=\"x,y\"}");
	mw_rw_select_release(&s);
	assert_int_equal(mw_rw_select_init(&s, "a{b=}", NULL, 0, 1, &err), -1);
}

/* ---- config --------------------------------------------------------------- */

static void config_sections(void **state)
{
	struct mw_config cfg;
	struct mw_err err;
	const char *text =
		"[remote_write.central]\n"
		"url = http://10.0.0.1:9090/api/v1/write\n"
		"labels = instance=lab-12, lab=soak\n"
		"batch_size = 500\n"
		"max_age = 2h\n"
		"tls_verify = false\n"
		"[remote_write.vm-2]\n"
		"url = https://vm.example/api/v1/write\n"
		"match = {__name__=~\".+\"}\n";

	(void)state;
	mw_config_init(&cfg);
	assert_int_equal(mw_config_load_string(&cfg, "t.ini", text, &err), 0);
	assert_int_equal(cfg.nremote_write, 2);
	assert_string_equal(cfg.remote_write[0].name, "central");
	assert_int_equal(cfg.remote_write[0].batch_size, 500);
	assert_int_equal(cfg.remote_write[0].max_age_ms, 7200000);
	assert_false(cfg.remote_write[0].tls_verify);
	assert_true(cfg.remote_write[1].tls_verify);
	assert_int_equal(cfg.remote_write[1].batch_size, 2000);
	assert_int_equal(cfg.remote_write[1].timeout_ms, 30000);
	assert_non_null(strstr(cfg.remote_write[0].match, "watched"));
	assert_int_equal(mw_config_set(&cfg, "remote_write.central", "timeout", "5s", "--set", &err), 0);
	assert_int_equal(cfg.remote_write[0].timeout_ms, 5000);
	mw_config_release(&cfg);

	/* each bad value names the file, line, section and key */
	{
		static const struct {
			const char *text, *want;
		} bad[] = {
			{ "[remote_write.c]\nurl = ftp://x/\n", "t.ini:2: [remote_write.c] url: 'ftp://x/' is not" },
			{ "[remote_write.c]\nlabels = 1x=2\n", "[remote_write.c] labels: '1x' is not a label name" },
			{ "[remote_write.c]\nlabels = __x=2\n", "[remote_write.c] labels: '__x' is not" },
			{ "[remote_write.c]\nlabels = a\n", "[remote_write.c] labels: 'a' is not name=value" },
			{ "[remote_write.c]\nmatch = {a=}\n", "[remote_write.c] match: " },
			{ "[remote_write.c]\nmatch = ,\n", "[remote_write.c] match: no selector" },
			{ "[remote_write.c]\nbatch_size = 0\n", "[remote_write.c] batch_size: '0' is out of range" },
			{ "[remote_write.c]\ntls_verify = maybe\n", "[remote_write.c] tls_verify: 'maybe' is not" },
			{ "[remote_write.c]\nmax_age = soon\n", "[remote_write.c] max_age: " },
			{ "[remote_write.c]\ncolour = red\n", "[remote_write.c] colour: unknown key 'colour'" },
			{ "[remote_write.a b]\n", "[remote_write.a b]: bad destination name" },
			{ "[remote_write.]\n", "bad destination name" },
		};
		size_t i;

		for (i = 0; i < MW_ARRAY_SIZE(bad); i++) {
			mw_config_init(&cfg);
			err.msg[0] = '\0';
			assert_int_equal(mw_config_load_string(&cfg, "t.ini", bad[i].text, &err), -1);
			if (!strstr(err.msg, bad[i].want))
				fail_msg("'%s' gave '%s', want '%s'", bad[i].text, err.msg, bad[i].want);
			mw_config_release(&cfg);
		}
	}
}

/* ---- the cursor table ------------------------------------------------------ */

static void cursor_round_trip(void **state)
{
	struct mw_store *s = mw_test_store_reopen(DB);
	struct mw_rw_cursor *c, *other;
	struct mw_rw_cursor_pos pos[2] = { { 1, 1000 }, { 2, 2000 } };
	struct mw_err err;
	int64_t ts = 0;

	(void)state;
	assert_int_equal(mw_rw_cursor_open(&c, DB, "central", &err), 0);
	assert_int_equal(mw_rw_cursor_open(&other, DB, "other", &err), 0);
	assert_int_equal(mw_rw_cursor_get(c, 1, &ts, &err), 0);
	assert_int_equal(mw_rw_cursor_commit(c, pos, 2, &err), 0);
	assert_int_equal(mw_rw_cursor_get(c, 1, &ts, &err), 1);
	assert_int_equal(ts, 1000);
	/* destinations do not share cursors */
	assert_int_equal(mw_rw_cursor_get(other, 1, &ts, &err), 0);
	/* never back */
	pos[0].ts = 500;
	pos[1].ts = 2500;
	assert_int_equal(mw_rw_cursor_commit(c, pos, 2, &err), 0);
	assert_int_equal(mw_rw_cursor_get(c, 1, &ts, &err), 1);
	assert_int_equal(ts, 1000);
	assert_int_equal(mw_rw_cursor_get(c, 2, &ts, &err), 1);
	assert_int_equal(ts, 2500);
	/* the writer keeps writing while a cursor connection is open */
	mw_store_add(s, "m{}", "m", NULL, 0, 1, 1);
	assert_int_equal(mw_store_flush(s, &err), 0);
	mw_rw_cursor_free(c);
	mw_rw_cursor_free(other);
	/* durable: a new connection (a restart) sees it */
	assert_int_equal(mw_rw_cursor_open(&c, DB, "central", &err), 0);
	assert_int_equal(mw_rw_cursor_count(c), 2);
	assert_int_equal(mw_rw_cursor_get(c, 2, &ts, &err), 1);
	assert_int_equal(ts, 2500);
	assert_int_equal(mw_rw_cursor_prune(c, 2000, &err), 0);
	assert_int_equal(mw_rw_cursor_count(c), 1);
	mw_rw_cursor_free(c);
	mw_store_free(s);
	assert_int_equal(mw_rw_cursor_open(&c, "no/such/dir/x.db", "c", &err), -1);
	assert_non_null(strstr(err.msg, "no/such/dir/x.db"));
}

/* ---- the forwarder thread with a hook for the network ----------------------- */

#define MAXP 4096

struct got {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int64_t id_ts[MAXP][2];	/* series (by value of label s) and ts */
	double val[MAXP];
	size_t n, requests;
	int script[8];		/* statuses to answer, in order, then 200 */
	size_t nscript;
	bool order_ok;
};

static struct got got;

static int hook(void *arg, const char *dest, const struct mw_rw_series *series, size_t n,
		struct mw_rw_result *res)
{
	struct got *g = arg;
	int status = 200;
	size_t i, j, k;

	assert_string_equal(dest, "t");
	pthread_mutex_lock(&g->lock);
	if (g->requests < g->nscript)
		status = g->script[g->requests];
	g->requests++;
	snprintf(res->message, sizeof(res->message), status == 400 ? "out of bounds" : "");
	if (status == 200) {
		for (i = 0; i < n; i++) {
			int64_t sid = -1;

			for (k = 0; k < series[i].nlabels; k++)
				if (!strcmp(series[i].labels[k].name, "s"))
					sid = atoi(series[i].labels[k].value);
			for (j = 0; j < series[i].nsamples && g->n < MAXP; j++) {
				if (j && series[i].samples[j].ts_ms <= series[i].samples[j - 1].ts_ms)
					g->order_ok = false;
				g->id_ts[g->n][0] = sid;
				g->id_ts[g->n][1] = series[i].samples[j].ts_ms;
				g->val[g->n] = series[i].samples[j].value;
				g->n++;
			}
		}
	}
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	res->status = status;
	return status;
}

/* An empty record of what the hook saw. */
static void got_reset(void)
{
	memset(&got, 0, sizeof(got));
	pthread_mutex_init(&got.lock, NULL);
	mw_cond_init(&got.cond);
	got.order_ok = true;
}

/* Wait (bounded) until the hook has seen n points. */
static void wait_points(size_t n)
{
	int64_t until = mw_cond_deadline(30000);

	pthread_mutex_lock(&got.lock);
	while (got.n < n)
		if (mw_cond_wait_until(&got.cond, &got.lock, until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&got.lock);
	if (got.n < n)
		fail_msg("the forwarder sent %zu points within 30 s, want %zu", got.n, n);
}

static void add_point(struct mw_store *s, int sid, int64_t ts, double v)
{
	char sv[16], key[64];
	struct mw_label l[1] = { { "s", sv } };

	snprintf(sv, sizeof(sv), "%d", sid);
	mw_series_key_format(key, sizeof(key), "m_test", l, 1);
	mw_store_add(s, key, "m_test", l, 1, ts, v);
}

static size_t count_of(int sid, int64_t ts)
{
	size_t i, n = 0;

	for (i = 0; i < got.n; i++)
		if (got.id_ts[i][0] == sid && got.id_ts[i][1] == ts)
			n++;
	return n;
}

static void forwarder_cursor_and_late_series(void **state)
{
	struct mw_store *s = mw_test_store_reopen(DB);
	struct mw_status_table *status = mw_status_new(0);
	struct mw_forwarder *f;
	struct mw_config cfg;
	struct mw_rw_status st;
	struct mw_err err;
	int64_t now = mw_clock_wall_ms(), t0 = now - 3600000;
	int i;

	(void)state;
	got_reset();
	/* first request: no answer, then a 503 (both retried), then a 400
	 * (that batch is skipped and counted), then all accepted */
	got.script[0] = 0;
	got.script[1] = 503;
	got.script[2] = 400;
	got.nscript = 3;

	/* series 1: 100 points a second apart, an hour ago */
	for (i = 0; i < 100; i++)
		add_point(s, 1, t0 + i * 1000, i);
	assert_int_equal(mw_store_flush(s, &err), 0);

	mw_config_init(&cfg);
	assert_int_equal(mw_config_set(&cfg, "storage", "db", DB, "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "storage", "flush_interval", "100ms", "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "url", "http://127.0.0.1:9/api/v1/write",
				       "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "match", "m_test", "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "batch_size", "30", "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "max_backoff", "100ms", "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "labels", "lab=x", "t", &err), 0);
	mw_forwarder_set_post_hook(hook, &got);
	if (mw_forwarder_start(&f, &cfg, status, &err))
		fail_msg("%s", err.msg);
	/* the first batch of 30 is refused (400): 70 arrive */
	wait_points(70);
	/* series 1 moves on; series 2 appears with points older than series
	 * 1's cursor (a late collector); series 1 gets a point committed
	 * after its cursor passed */
	for (i = 100; i < 110; i++)
		add_point(s, 1, t0 + i * 1000, i);
	for (i = 0; i < 20; i++)
		add_point(s, 2, t0 + i * 500, -i);
	assert_int_equal(mw_store_flush(s, &err), 0);
	wait_points(100);
	mw_forwarder_stop(f);
	mw_forwarder_set_post_hook(NULL, NULL);

	mw_status_rw_get(status, 0, &st);
	assert_string_equal(st.name, "t");
	assert_int_equal(st.points_sent, 100);
	assert_int_equal(st.batches_skipped, 1);
	assert_int_equal(st.points_skipped, 30);
	assert_int_equal(st.retries, 2);
	assert_non_null(strstr(st.last_error, "HTTP 400: out of bounds"));
	assert_true(got.order_ok);
	/* exactly what was stored, minus the refused batch, each once */
	assert_int_equal(got.n, 100);
	for (i = 0; i < 30; i++)
		assert_int_equal(count_of(1, t0 + i * 1000), 0);
	for (i = 30; i < 110; i++)
		assert_int_equal(count_of(1, t0 + i * 1000), 1);
	for (i = 0; i < 20; i++)
		assert_int_equal(count_of(2, t0 + i * 500), 1);

	/* a restart resumes from the cursor: nothing is sent twice, a new
	 * point is sent */
	add_point(s, 1, t0 + 200000, 7);
	assert_int_equal(mw_store_flush(s, &err), 0);
	got.nscript = 0;
	assert_int_equal(mw_config_set(&cfg, "remote_write.u", "url", "http://127.0.0.1:9/w", "t",
				       &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.u", "match", "m_nothing", "t", &err), 0);
	mw_forwarder_set_post_hook(hook, &got);
	status = (mw_status_free(status), mw_status_new(0));
	if (mw_forwarder_start(&f, &cfg, status, &err))
		fail_msg("%s", err.msg);
	wait_points(101);
	/* a later pass finds nothing to send: caught up, lag 0; and the
	 * destination whose selection is empty has run passes too */
	{
		int64_t until = mw_clock_mono_ns() + 30 * 1000000000LL;
		struct mw_rw_status su;

		do {
			struct timespec pause = { 0, 10 * 1000000L };

			mw_status_rw_get(status, 0, &st);
			mw_status_rw_get(status, 1, &su);
			if (st.caught_up && !st.pending_series && su.caught_up)
				break;
			nanosleep(&pause, NULL);
		} while (mw_clock_mono_ns() < until);
		assert_true(st.caught_up);
		assert_int_equal(st.lag_ms, 0);
		assert_int_equal(st.oldest_unsent_ms, 0);
		assert_true(su.caught_up);
		assert_string_equal(su.name, "u");
		assert_int_equal(su.points_sent, 0);
	}
	mw_forwarder_stop(f);
	mw_forwarder_set_post_hook(NULL, NULL);
	assert_int_equal(got.n, 101);
	assert_int_equal(count_of(1, t0 + 200000), 1);

	mw_config_release(&cfg);
	mw_status_free(status);
	mw_store_free(s);
	pthread_cond_destroy(&got.cond);
	pthread_mutex_destroy(&got.lock);
}

/* Wait (bounded) until the hook has seen the point (sid, ts). */
static void wait_point(int sid, int64_t ts)
{
	int64_t until = mw_clock_mono_ns() + 30 * 1000000000LL;
	size_t n = 0;

	while (mw_clock_mono_ns() < until) {
		struct timespec pause = { 0, 10 * 1000000L };

		pthread_mutex_lock(&got.lock);
		n = count_of(sid, ts);
		pthread_mutex_unlock(&got.lock);
		if (n)
			return;
		nanosleep(&pause, NULL);
	}
	fail_msg("the forwarder did not send point %d@%lld within 30 s", sid, (long long)ts);
}

/* A disk that refuses the cursor's writes (full): a trigger fails them
 * the way SQLITE_FULL does.  Each stored point is still sent once (the
 * positions are held in memory), and written once the disk takes them. */
static void forwarder_cursor_refused(void **state)
{
	struct mw_store *s = mw_test_store_reopen(DB);
	struct mw_status_table *status = mw_status_new(0);
	struct mw_rw_cursor *c;
	struct mw_forwarder *f;
	struct mw_config cfg;
	struct mw_err err;
	int64_t t0 = mw_clock_wall_ms() - 600000;
	int i;

	(void)state;
	got_reset();
	for (i = 0; i < 50; i++)
		add_point(s, 1, t0 + i * 1000, i);
	/* a dense series: a window holds more than the forwarder reads at
	 * once (4 batches + 1024 points), so it reads halves */
	for (i = 0; i < 3000; i++)
		add_point(s, 2, t0 + i * 10, i);
	assert_int_equal(mw_store_flush(s, &err), 0);
	assert_int_equal(mw_rw_cursor_open(&c, DB, "t", &err), 0);	/* the table */
	mw_rw_cursor_free(c);
	assert_int_equal(mw_db_exec(mw_store_db(s),
				    "CREATE TRIGGER full_i BEFORE INSERT ON remote_write_cursor"
				    " BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;"
				    "CREATE TRIGGER full_u BEFORE UPDATE ON remote_write_cursor"
				    " BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END", &err), 0);

	mw_config_init(&cfg);
	assert_int_equal(mw_config_set(&cfg, "storage", "db", DB, "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "storage", "flush_interval", "100ms", "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "url", "http://127.0.0.1:9/w", "t",
				       &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "match", "m_test", "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.t", "batch_size", "10", "t", &err), 0);
	mw_forwarder_set_post_hook(hook, &got);
	if (mw_forwarder_start(&f, &cfg, status, &err))
		fail_msg("%s", err.msg);
	wait_point(1, t0 + 49000);
	wait_point(2, t0 + 29990);
	/* more passes: a point stored later needs one */
	for (i = 50; i < 60; i++)
		add_point(s, 1, t0 + i * 1000, i);
	assert_int_equal(mw_store_flush(s, &err), 0);
	wait_point(1, t0 + 59000);
	/* the disk takes writes again: the next commit writes the positions */
	if (mw_db_exec(mw_store_db(s), "DROP TRIGGER full_i; DROP TRIGGER full_u", &err))
		fail_msg("%s", err.msg);
	add_point(s, 1, t0 + 60000, 60);
	assert_int_equal(mw_store_flush(s, &err), 0);
	wait_point(1, t0 + 60000);
	mw_forwarder_stop(f);
	mw_forwarder_set_post_hook(NULL, NULL);

	pthread_mutex_lock(&got.lock);
	for (i = 0; i <= 60; i++)
		if (count_of(1, t0 + i * 1000) != 1)
			fail_msg("point %d sent %zu times", i, count_of(1, t0 + i * 1000));
	for (i = 0; i < 3000; i++)
		if (count_of(2, t0 + i * 10) != 1)
			fail_msg("dense point %d sent %zu times", i, count_of(2, t0 + i * 10));
	assert_int_equal(got.n, 3061);
	assert_true(got.order_ok);
	pthread_mutex_unlock(&got.lock);
	assert_int_equal(mw_test_db_int(DB, "SELECT max(ts) FROM remote_write_cursor"), t0 + 60000);

	mw_config_release(&cfg);
	mw_status_free(status);
	mw_store_free(s);
	pthread_cond_destroy(&got.cond);
	pthread_mutex_destroy(&got.lock);
}

static void forwarder_bad_settings(void **state)
{
	struct mw_config cfg;
	struct mw_forwarder *f;
	struct mw_err err;

	(void)state;
	mw_config_init(&cfg);
	assert_int_equal(mw_config_set(&cfg, "remote_write.x", "batch_size", "10", "t", &err), 0);
	assert_int_equal(mw_forwarder_start(&f, &cfg, NULL, &err), -1);
	assert_string_equal(err.msg, "[remote_write.x] url: required");
	assert_int_equal(mw_config_set(&cfg, "remote_write.x", "url", "http://h:1/w", "t", &err), 0);
	assert_int_equal(mw_config_set(&cfg, "remote_write.x", "bearer_token_file", "no/such/token",
				       "t", &err), 0);
	assert_int_equal(mw_forwarder_start(&f, &cfg, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "[remote_write.x] bearer_token_file: cannot read 'no/such/token'"));
	assert_int_equal(mw_config_set(&cfg, "remote_write.x", "bearer_token", "abc", "t", &err), 0);
	assert_int_equal(mw_forwarder_start(&f, &cfg, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "bearer_token is set too"));
	mw_config_release(&cfg);
	/* none configured: nothing started */
	mw_config_init(&cfg);
	assert_int_equal(mw_forwarder_start(&f, &cfg, NULL, &err), 0);
	assert_null(f);
	mw_config_release(&cfg);
}

MW_TEST_MAIN(
	cmocka_unit_test(classify),
	cmocka_unit_test(backoff_bounds),
	cmocka_unit_test(batch_labels_and_bounds),
	cmocka_unit_test(selection),
	cmocka_unit_test(config_sections),
	MW_FIXTURE_TEST(cursor_round_trip),
	MW_FIXTURE_TEST(forwarder_cursor_and_late_series),
	MW_FIXTURE_TEST(forwarder_cursor_refused),
	cmocka_unit_test(forwarder_bad_settings),
)
