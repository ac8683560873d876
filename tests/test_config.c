/* test_config.c - defaults, the INI reader, errors that name file, line
 * and key, and the reference config staying true. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/collector.h"
#include "analysis/leak_report.h"
#include "core/config.h"
#include "core/config_internal.h"	/* the option tables */
#include "core/listen_addr.h"
#include "core/option.h"
#include "core/params.h"
#include "tests/support/test_main.h"

static void defaults(void **state)
{
	struct mw_config c;
	struct mw_collector_config *proc;

	(void)state;
	mw_config_init(&c);
	assert_int_equal(c.interval_ms, 1000);
	assert_string_equal(c.db_path, "memwatch.db");
	assert_string_equal(c.listen, "127.0.0.1:8080");
	assert_int_equal(c.retention_raw_ms, 7LL * 86400000);
	assert_int_equal(c.retention_1m_ms, 90LL * 86400000);
	assert_int_equal(c.retention_1h_ms, 730LL * 86400000);
	assert_int_equal(c.nwatch, 0);
	assert_int_equal(c.ncollectors, mw_ncollectors);
	proc = mw_config_collector(&c, "process");
	assert_non_null(proc);
	assert_true(proc->enabled);
	assert_int_equal(mw_config_interval(&c, proc), 1000);
	assert_null(mw_config_collector(&c, "nonesuch"));
	mw_config_release(&c);
}

static void ini_sets_values(void **state)
{
	struct mw_config c;
	struct mw_err err = { "" };
	const char *ini =
		"\xEF\xBB\xBF# comment\n"
		"; another\n"
		"[daemon]\n"
		"interval = 250ms\n"
		"watch = leaky.exe, 1234 ,self,,\n"
		"\n"
		"[storage]\r\n"
		"db = \"C:\\data\\m.db\"\r\n"
		"max_size = 2GB\n"
		"[web]\n"
		"listen = [::1]:9000\n"
		"token = s3cret\n"
		"[collector.system]\n"
		"enabled = false\n"
		"[collector.process]\n"
		"interval = 5s\n";

	(void)state;
	mw_config_init(&c);
	assert_int_equal(mw_config_load_string(&c, "t.ini", ini, &err), 0);
	assert_int_equal(c.interval_ms, 250);
	assert_int_equal(c.nwatch, 3);
	assert_string_equal(c.watch[0], "leaky.exe");
	assert_string_equal(c.watch[1], "1234");
	assert_string_equal(c.watch[2], "self");
	assert_string_equal(c.db_path, "C:\\data\\m.db");
	assert_true(c.max_db_bytes == 2ULL << 30);
	assert_string_equal(c.listen, "[::1]:9000");
	assert_string_equal(c.token, "s3cret");
	assert_false(mw_config_collector(&c, "system")->enabled);
	assert_int_equal(mw_config_interval(&c, mw_config_collector(&c, "process")), 5000);
	mw_config_release(&c);
}

/* Each bad input must fail and the message must name what was wrong. */
static void errors_name_file_line_and_key(void **state)
{
	static const struct {
		const char *ini, *expect[3];
	} cases[] = {
		{ "[daemon]\ninterval = 1\n", { "bad.ini:2", "interval", "needs a unit" } },
		{ "[daemon]\nintervall = 1s\n", { "bad.ini:2", "intervall", "unknown key" } },
		{ "[deamon]\n", { "bad.ini:1", "deamon", "unknown section" } },
		{ "interval = 1s\n", { "bad.ini:1", "interval", "before any" } },
		{ "[daemon]\njunk\n", { "bad.ini:2", "junk", "key = value" } },
		{ "[daemon\n", { "bad.ini:1", "malformed", "[daemon" } },
		{ "[storage]\nmax_size = lots\n", { "bad.ini:2", "max_size", "lots" } },
		{ "[web]\nthreads = 0\n", { "bad.ini:2", "threads", "out of range" } },
		{ "[web]\nthreads = 2x\n", { "bad.ini:2", "threads", "whole number" } },
		{ "[daemon]\nlog_level = loud\n", { "bad.ini:2", "log_level", "loud" } },
		{ "[collector.nonesuch]\n", { "bad.ini:1", "collector.nonesuch", "unknown section" } },
		{ "[collector.process]\nenabled = maybe\n", { "bad.ini:2", "enabled", "maybe" } },
		{ "[collector.process]\ncolour = red\n", { "bad.ini:2", "colour", "unknown key" } },
		{ "[daemon]\ninterval = 1ms\n", { "bad.ini:2", "interval", "out of range" } },
		/* collector and remote_write options are typed like the core's */
		{ "[collector.process]\nmin_age = soon\n", { "bad.ini:2", "min_age", "soon" } },
		{ "[collector.process]\npss_budget = 5\n", { "bad.ini:2", "pss_budget", "5" } },
		{ "[collector.heap]\nremote_summary = maybe\n",
		  { "bad.ini:2", "remote_summary", "maybe" } },
		{ "[collector.perfcounters]\nclose_key = 2\n", { "bad.ini:2", "close_key", "2" } },
		{ "[remote_write.a]\nbatch_size = 0\n", { "bad.ini:2", "batch_size", "range" } },
		{ "[remote_write.a]\nurl = ftp://x\n", { "bad.ini:2", "url", "ftp://x" } },
		{ "[remote_write.a]\ncolour = red\n", { "bad.ini:2", "colour", "unknown key" } },
		{ "[remote_write.a b]\n", { "bad.ini:1", "a b", "destination name" } },
		{ "[web]\nlisten = 127.0.0.1\n", { "bad.ini:2", "listen", "no port" } },
		{ "[web]\nlisten = [::1]:+80\n", { "bad.ini:2", "listen", "0 to 65535" } },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mw_config c;
		struct mw_err err = { "" };

		mw_config_init(&c);
		assert_int_equal(mw_config_load_string(&c, "bad.ini", cases[i].ini, &err), -1);
		for (j = 0; j < 3; j++)
			if (!strstr(err.msg, cases[i].expect[j]))
				fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].expect[j]);
		mw_config_release(&c);
	}
}

static void unreadable_file(void **state)
{
	struct mw_config c;
	struct mw_err err = { "" };

	(void)state;
	mw_config_init(&c);
	assert_int_equal(mw_config_load_file(&c, "no/such/dir/memwatch.ini", &err), -1);
	assert_non_null(strstr(err.msg, "no/such/dir/memwatch.ini"));
	mw_config_release(&c);
}

static void set_from_command_line(void **state)
{
	struct mw_config c;
	struct mw_err err = { "" };

	(void)state;
	mw_config_init(&c);
	assert_int_equal(mw_config_set(&c, "storage", "db", "x.db", "--db", &err), 0);
	assert_string_equal(c.db_path, "x.db");
	assert_int_equal(mw_config_set(&c, "collector.process", "interval", "2s", "--set", &err), 0);
	assert_int_equal(mw_config_collector(&c, "process")->interval_ms, 2000);
	assert_int_equal(mw_config_set(&c, "daemon", "interval", "soon", "--interval", &err), -1);
	assert_non_null(strstr(err.msg, "--interval"));
	assert_non_null(strstr(err.msg, "soon"));
	assert_int_equal(mw_config_set(&c, "collector.nope", "enabled", "true", "--set", &err), -1);
	assert_non_null(strstr(err.msg, "nope"));
	/* the count budget of the leak verdicts reaches their parameters */
	{
		struct mw_leak_params p;

		assert_int_equal(c.leak_max_count_growth, 10);
		assert_int_equal(mw_config_set(&c, "leak", "max_count_growth", "50", "--set", &err), 0);
		mw_leak_params_from_config(&p, &c);
		assert_true(p.budget_count_per_hour == 50.0);
		assert_int_equal(mw_config_set(&c, "leak", "max_count_growth", "-1", "--set", &err), -1);
	}
	mw_config_release(&c);
}

static char *slurp(FILE *f, size_t *len)
{
	char *buf;
	long n;

	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	return buf;
}

/* config/memwatch.ini is the documented reference: it must be exactly what
 * the option table produces, and it must load cleanly. */
static void reference_config_is_current(void **state)
{
	struct mw_config c;
	struct mw_err err = { "" };
	FILE *tmp = tmpfile(), *ref = fopen("config/memwatch.ini", "rb");
	char *want, *have;
	size_t wlen, hlen;

	(void)state;
	assert_non_null(tmp);
	if (!ref)
		fail_msg("config/memwatch.ini missing (tests run from the repository root)");
	mw_config_init(&c);
	mw_config_write_reference(&c, tmp);
	want = slurp(tmp, &wlen);
	have = slurp(ref, &hlen);
	/* Windows text mode may add CRs to the checked-out file. */
	{
		char *s = have, *d = have;
		for (; *s; s++)
			if (*s != '\r')
				*d++ = *s;
		*d = '\0';
	}
	if (strcmp(want, have))
		fail_msg("config/memwatch.ini differs from 'memwatchd config'; regenerate it");
	assert_int_equal(mw_config_load_string(&c, "config/memwatch.ini", have, &err), 0);
	free(want);
	free(have);
	fclose(tmp);
	fclose(ref);
	mw_config_release(&c);
}

/* A config file's `watch =` and --set daemon.watch= replace the list;
 * --watch (mw_config_add_watch) adds to it, and --watch "" empties it. */
static void watch_list_adds_and_clears(void **state)
{
	struct mw_config c;
	struct mw_err err = { "" };

	(void)state;
	mw_config_init(&c);
	assert_int_equal(mw_config_load_string(&c, "t.ini",
					       "[daemon]\nwatch = a.exe\nwatch = b.exe, c\n", &err), 0);
	assert_int_equal(c.nwatch, 2);	/* the file's last `watch =` wins */
	assert_string_equal(c.watch[0], "b.exe");
	mw_config_add_watch(&c, "verylongprocessname-leaky");
	mw_config_add_watch(&c, " nope , 42");
	assert_int_equal(c.nwatch, 5);
	assert_string_equal(c.watch[1], "c");
	assert_string_equal(c.watch[2], "verylongprocessname-leaky");
	assert_string_equal(c.watch[3], "nope");
	assert_string_equal(c.watch[4], "42");
	mw_config_add_watch(&c, "");	/* clears, config file's entries too */
	assert_int_equal(c.nwatch, 0);
	assert_null(c.watch);
	mw_config_add_watch(&c, "x");
	mw_config_add_watch(&c, " , ");	/* no entry at all: clears as well */
	assert_int_equal(c.nwatch, 0);
	for (int i = 0; i < 20; i++)	/* grows past the first allocation */
		mw_config_add_watch(&c, i % 2 ? "odd" : "even");
	assert_int_equal(c.nwatch, 20);
	assert_string_equal(c.watch[19], "odd");
	assert_int_equal(mw_config_set(&c, "daemon", "watch", "only", "--set", &err), 0);
	assert_int_equal(c.nwatch, 1);	/* --set replaces */
	assert_string_equal(c.watch[0], "only");
	mw_config_release(&c);
}

/* Every row's value after loading an empty file is the value its declared
 * default spells, for every table: the core's, each collector's (also as
 * the collector's init reads it without a section) and remote_write's.
 * A default written twice (in the doc and in code) cannot come back:
 * the doc holds no default and code reads the parsed row. */
static void check_rows(const char *what, const struct mw_option *rows, size_t n,
		       const void *loaded, size_t size)
{
	void *declared = calloc(1, size ? size : 1);
	size_t i;

	assert_non_null(declared);
	mw_options_defaults(rows, n, declared);
	for (i = 0; i < n; i++) {
		char have[1024], want[1024];
		struct mw_err err = { "" };

		assert_non_null(rows[i].doc);
		if (strstr(rows[i].doc, " ; "))
			fail_msg("%s %s: the doc still carries a default", what, rows[i].key);
		mw_option_format(&rows[i], loaded, have, sizeof(have));
		mw_option_format(&rows[i], declared, want, sizeof(want));
		if (strcmp(have, want))
			fail_msg("%s %s: loaded '%s', declared '%s'", what, rows[i].key, have, want);
		/* what the reference file would print for a changed value reads back */
		if (mw_option_parse(&rows[i], declared, have, &err))
			fail_msg("%s %s: '%s' does not read back: %s", what, rows[i].key, have,
				 err.msg);
	}
	mw_options_release(rows, n, declared);
	free(declared);
}

static void declared_defaults_are_the_values_used(void **state)
{
	struct mw_config c;
	struct mw_err err = { "" };
	size_t i;

	(void)state;
	mw_config_init(&c);
	assert_int_equal(mw_config_load_string(&c, "empty.ini", "", &err), 0);
	for (i = 0; i < mw_ncollectors; i++) {
		const struct mw_collector *col = mw_collectors[i];
		struct mw_collector_env bare = { &c, NULL };
		const void *read;
		void *own;

		if (!col->noptions)
			continue;
		own = calloc(1, col->options_size);
		assert_non_null(own);
		check_rows(col->name, col->options, col->noptions, c.collectors[i].options,
			   col->options_size);
		read = mw_collector_options(&bare, col, own);
		assert_ptr_equal(read, own);
		check_rows(col->name, col->options, col->noptions, read, col->options_size);
		mw_collector_options_done(col, read, own);
		free(own);
	}
	check_rows("core", mw_config_options, mw_config_noptions, &c, sizeof(c));
	assert_int_equal(mw_config_load_string(&c, "rw.ini", "[remote_write.a]\n", &err), 0);
	assert_int_equal(c.nremote_write, 1);
	check_rows("remote_write", mw_rw_options, mw_rw_noptions, &c.remote_write[0],
		   sizeof(c.remote_write[0]));
	mw_config_release(&c);
}

/* Collector and remote_write options are printed back by the reference
 * like the core's (their bad values: errors_name_file_line_and_key). */
static void collector_and_rw_options_typed(void **state)
{
	static const char *const want[] = {
		"\nmin_age = 0ms\n", "\npss_interval = 2m\n", "\nstatus_interval = 10s\n",
		"\nbearer_token = (set, not shown)\n",
	};
	struct mw_config c;
	struct mw_err err = { "" };
	FILE *tmp;
	char *text;
	size_t i, len;
	long n;

	(void)state;
	mw_config_init(&c);
	assert_int_equal(mw_config_load_string(&c, "t.ini", "[collector.process]\n"
					       "min_age = 0\npss_interval = 2m\n"
					       "[remote_write.a]\nbearer_token = hush\n", &err), 0);
	tmp = tmpfile();
	assert_non_null(tmp);
	mw_config_write_reference(&c, tmp);
	n = ftell(tmp);
	rewind(tmp);
	text = calloc(1, (size_t)n + 1);
	assert_non_null(text);
	len = fread(text, 1, (size_t)n, tmp);
	assert_int_equal(len, (size_t)n);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i]))
			fail_msg("the reference lacks '%s'", want[i]);
	assert_null(strstr(text, "hush"));	/* a secret is not printed */
	free(text);
	fclose(tmp);
	mw_config_release(&c);
}

/* One duration rule for every option and parameter (base/units.h): a unit
 * is required, a bare 0 is zero.  /api/v1/processes' window (core/params)
 * and /api/v1/leaks' warmup (analysis/leak_report) agree. */
static void one_duration_rule_everywhere(void **state)
{
	struct mw_leak_query q;
	struct mw_config c;
	struct mw_err err = { "" };
	int64_t v = 0;

	(void)state;
	mw_leak_query_init(&q);
	assert_int_equal(mw_param_duration("300000", &v, &err), -1);
	assert_non_null(strstr(err.msg, "needs a unit"));
	assert_int_equal(mw_leak_query_set(&q, "warmup", "300000", 0, &err), -1);
	assert_non_null(strstr(err.msg, "needs a unit"));
	assert_int_equal(mw_param_duration("5m", &v, &err), 0);
	assert_true(v == 300000);
	assert_int_equal(mw_leak_query_set(&q, "warmup", "5m", 0, &err), 0);
	assert_true(q.params.warmup_ms == 300000);
	assert_int_equal(mw_param_duration("1.5s", &v, &err), 0);
	assert_true(v == 1500);
	assert_int_equal(mw_leak_query_set(&q, "min_duration", "1.5s", 0, &err), 0);
	assert_true(q.params.min_duration_ms == 1500);
	/* relative times read durations the same way */
	assert_int_equal(mw_param_time("-5m", 1000000, &v, &err), 0);
	assert_true(v == 700000);
	assert_int_equal(mw_param_time("-300000", 1000000, &v, &err), -1);
	mw_leak_query_release(&q);
	/* and so do options */
	mw_config_init(&c);
	assert_int_equal(mw_config_set(&c, "leak", "window", "300000", "--set", &err), -1);
	assert_int_equal(mw_config_set(&c, "collector.process", "min_age", "0", "--set", &err), 0);
	mw_config_release(&c);
}

/* The one listen-address parser: config checks and web/server.c bind with it. */
static void listen_addresses(void **state)
{
	static const char *const bad[] = { "host:65536", "host:-1", "host: 80", "[::1]8080",
					   "host:99999999999999999999", "host" };
	struct mw_listen_addr a;
	struct mw_err err = { "" };
	size_t i;

	(void)state;
	assert_int_equal(mw_listen_addr_parse("off", &a, &err), 0);
	assert_true(a.off);
	assert_int_equal(mw_listen_addr_parse("", &a, &err), 0);
	assert_true(a.off);
	assert_int_equal(mw_listen_addr_parse("127.0.0.1:8080", &a, &err), 0);
	assert_false(a.off || a.v6);
	assert_string_equal(a.host, "127.0.0.1");
	assert_int_equal(a.port, 8080);
	assert_int_equal(mw_listen_addr_parse("[::1]:0", &a, &err), 0);
	assert_true(a.v6);
	assert_string_equal(a.host, "::1");
	assert_int_equal(a.port, 0);
	assert_int_equal(mw_listen_addr_parse(":9000", &a, &err), 0);
	assert_string_equal(a.host, "");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mw_listen_addr_parse(bad[i], &a, &err) != -1 || !strstr(err.msg, bad[i]))
			fail_msg("'%s' taken, or not named: '%s'", bad[i], err.msg);
}

MW_TEST_MAIN(
	cmocka_unit_test(defaults),
	cmocka_unit_test(ini_sets_values),
	cmocka_unit_test(errors_name_file_line_and_key),
	cmocka_unit_test(unreadable_file),
	cmocka_unit_test(set_from_command_line),
	cmocka_unit_test(reference_config_is_current),
	cmocka_unit_test(watch_list_adds_and_clears),
	cmocka_unit_test(declared_defaults_are_the_values_used),
	cmocka_unit_test(collector_and_rw_options_typed),
	cmocka_unit_test(one_duration_rule_everywhere),
	cmocka_unit_test(listen_addresses),
)
