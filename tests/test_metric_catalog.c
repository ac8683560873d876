/*
 * test_metric_catalog.c - the metric catalogue (core/metric_catalog.c):
 * every entry complete and named by the conventions; README's "## Metrics"
 * tables agree with it (every name on both sides, the same type, unit and
 * labels); the forwarder's default selection is the catalogue's; /metrics
 * writes a family's HELP and TYPE from it.
 *
 * README.md is read from the path given as the first argument, else from
 * the working directory (the repository's top, as scripts/run-tests.sh
 * runs tests), else from its parent.  Runs natively and under Wine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_out.h"
#include "core/config.h"
#include "core/leak_gauges.h"
#include "core/metric_catalog.h"
#include "core/selector.h"
#include "web/metrics.h"

static const char *readme_path;

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static bool has_label(const struct mw_metric *m, const char *label, size_t len)
{
	size_t i;

	for (i = 0; m->labels[i]; i++)
		if (strlen(m->labels[i]) == len && !strncmp(m->labels[i], label, len))
			return true;
	return false;
}

static size_t label_count(const struct mw_metric *m)
{
	size_t n = 0;

	while (m->labels[n])
		n++;
	return n;
}

/* Every entry filled in, named as Prometheus advises: counters end in
 * _total (and only they), a unit in bytes or seconds is the name's
 * suffix; names unique and found by mw_metric_find. */
static void test_entries(void **state)
{
	static const char *const units[] = { "bytes", "seconds", "bytes/hour", "1/hour", "1",
					     "varies" };
	size_t i, j, u;

	(void)state;
	for (i = 0; i < MW_M_COUNT; i++) {
		const struct mw_metric *m = &mw_metric_catalog[i];
		bool unit_known = false;

		if (!m->name)
			fail_msg("catalogue entry %zu has no name", i);
		assert_true(!strncmp(m->name, "memwatch_", 9));
		if (!m->help || !*m->help)
			fail_msg("%s has no help", m->name);
		assert_true(m->type == MW_METRIC_GAUGE || m->type == MW_METRIC_COUNTER);
		if ((m->type == MW_METRIC_COUNTER) != ends_with(m->name, "_total"))
			fail_msg("%s: a %s, so its name should %send in _total", m->name,
				 mw_metric_type_name(m->type), m->type == MW_METRIC_COUNTER ? "" : "not ");
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			unit_known |= m->unit && !strcmp(m->unit, units[u]);
		if (!unit_known)
			fail_msg("%s: unit '%s' is not one of the catalogue's", m->name,
				 m->unit ? m->unit : "(null)");
		if (!strcmp(m->unit, "bytes"))
			assert_true(ends_with(m->name, "_bytes") || ends_with(m->name, "_bytes_total"));
		if (!strcmp(m->unit, "seconds"))
			assert_true(ends_with(m->name, "_seconds") ||
				    ends_with(m->name, "_seconds_total"));
		assert_true(label_count(m) <= MW_METRIC_MAX_LABELS);
		assert_true(m->where & (MW_METRIC_STORED | MW_METRIC_SCRAPED));
		for (j = 0; j < i; j++)
			if (!strcmp(mw_metric_catalog[j].name, m->name))
				fail_msg("%s is in the catalogue twice", m->name);
		assert_ptr_equal(mw_metric_find(m->name), m);
		assert_string_equal(mw_metric_name((enum mw_metric_id)i), m->name);
	}
	assert_null(mw_metric_find("memwatch_no_such_metric"));
	assert_string_equal(mw_metric_type_name(MW_METRIC_COUNTER), "counter");
	assert_string_equal(mw_metric_type_name(MW_METRIC_GAUGE), "gauge");
}

/* The default selection of a forwarder: `watched` plus the selector that
 * picks exactly the stored families marked MW_METRIC_FWD_ALWAYS; the
 * watched processes' series are those with a pid label; a family only
 * /metrics writes is never forwarded.  [remote_write.NAME] match defaults
 * to it. */
static void test_forward_default(void **state)
{
	struct mw_selector sel;
	struct mw_err err = { "" };
	struct mw_config cfg;
	struct mw_rw_config *rw;
	size_t i;

	(void)state;
	assert_int_equal(mw_selector_parse(&sel, MW_METRIC_FORWARD_ALWAYS, &err), 0);
	for (i = 0; i < MW_M_COUNT; i++) {
		const struct mw_metric *m = &mw_metric_catalog[i];
		bool stored = m->where & MW_METRIC_STORED;

		if (!stored && m->forward != MW_METRIC_FWD_NONE)
			fail_msg("%s is never stored, so never forwarded", m->name);
		if (stored && mw_selector_match(&sel, m->name, NULL, 0) !=
				      (m->forward == MW_METRIC_FWD_ALWAYS))
			fail_msg("%s: MW_METRIC_FORWARD_ALWAYS and its forward field disagree",
				 m->name);
		if (stored && (m->forward == MW_METRIC_FWD_WATCHED) != has_label(m, "pid", 3))
			fail_msg("%s: forwarded as watched iff it has a pid label", m->name);
	}
	mw_selector_release(&sel);

	mw_config_init(&cfg);
	rw = mw_config_remote_write(&cfg, "t");
	assert_non_null(rw);
	assert_string_equal(rw->match, MW_METRIC_FORWARD_DEFAULT);
	mw_config_release(&cfg);
}

/* ---- README.md's tables --------------------------------------------------- */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	text = calloc((size_t)n + 1, 1);
	if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static char *read_readme(void)
{
	static const char *const tries[] = { "README.md", "../README.md" };
	char *text;
	size_t i;

	if (readme_path)
		return read_text(readme_path);
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++)
		if ((text = read_text(tries[i])))
			return text;
	return NULL;
}

/* The cell [*p, '|') without surrounding blanks; *p moves past the '|'. */
static void next_cell(const char **p, const char *end, const char **cell, size_t *len)
{
	const char *s = *p, *e;

	e = memchr(s, '|', (size_t)(end - s));
	if (!e)
		e = end;
	*p = e < end ? e + 1 : end;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*cell = s;
	*len = (size_t)(e - s);
}

static bool cell_is(const char *cell, size_t len, const char *want)
{
	return strlen(want) == len && !strncmp(cell, want, len);
}

/* Do the labels cell "a, b, c" and the entry name the same set? */
static bool labels_agree(const struct mw_metric *m, const char *cell, size_t len)
{
	const char *p = cell, *end = cell + len;
	size_t n = 0;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p)), *e;

		e = comma ? comma : end;
		while (p < e && *p == ' ')
			p++;
		if (e > p) {
			if (!has_label(m, p, (size_t)(e - p)))
				return false;
			n++;
		}
		p = comma ? comma + 1 : end;
	}
	return n == label_count(m);
}

#define README_HEADER "| metric | type | unit | labels | what |"

/* One table row: every `name` of its first cell against the catalogue.
 * Returns the problems found (printed unless quiet). */
static int check_row(const char *line, const char *end, int *seen, bool quiet)
{
	const char *p = line + 1, *names, *type, *unit, *labels, *q;
	size_t nlen, tlen, ulen, llen;
	int problems = 0;

	next_cell(&p, end, &names, &nlen);
	next_cell(&p, end, &type, &tlen);
	next_cell(&p, end, &unit, &ulen);
	next_cell(&p, end, &labels, &llen);
	for (q = names; (q = memchr(q, '`', (size_t)(names + nlen - q))); ) {
		const char *close = memchr(q + 1, '`', (size_t)(names + nlen - q - 1));
		char name[128];
		const struct mw_metric *m;

		if (!close || (size_t)(close - q - 1) >= sizeof(name))
			break;
		memcpy(name, q + 1, (size_t)(close - q - 1));
		name[close - q - 1] = '\0';
		q = close + 1;
		m = mw_metric_find(name);
		if (!m) {
			if (!quiet)
				print_error("README lists %s; the catalogue does not\n", name);
			problems++;
			continue;
		}
		seen[m - mw_metric_catalog]++;
		if (!cell_is(type, tlen, mw_metric_type_name(m->type))) {
			if (!quiet)
				print_error("%s: README says type '%.*s', the catalogue %s\n", name,
					    (int)tlen, type, mw_metric_type_name(m->type));
			problems++;
		}
		if (!cell_is(unit, ulen, m->unit)) {
			if (!quiet)
				print_error("%s: README says unit '%.*s', the catalogue %s\n", name,
					    (int)ulen, unit, m->unit);
			problems++;
		}
		if (!labels_agree(m, labels, llen)) {
			if (!quiet)
				print_error("%s: README says labels '%.*s', not the catalogue's\n",
					    name, (int)llen, labels);
			problems++;
		}
	}
	return problems;
}

/* Every row of the tables in "## Metrics" (up to the next "## "), and
 * every catalogue entry in exactly one of them. */
static int readme_problems(const char *text, bool quiet)
{
	const char *start = strstr(text, "\n## Metrics\n"), *end, *line, *eol;
	int seen[MW_M_COUNT] = { 0 };
	int problems = 0;
	size_t i;

	if (!start)
		return -1;
	start++;
	end = strstr(start + 1, "\n## ");
	if (!end)
		end = start + strlen(start);
	for (line = start; line < end; line = eol + 1) {
		eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		if (!strncmp(line, "| metric ", 9) &&
		    strncmp(line, README_HEADER, strlen(README_HEADER))) {
			if (!quiet)
				print_error("README table with other columns: %.*s\n",
					    (int)(eol - line), line);
			problems++;
		}
		if (!strncmp(line, "| `memwatch_", 12))
			problems += check_row(line, eol, seen, quiet);
	}
	for (i = 0; i < MW_M_COUNT; i++) {
		if (seen[i] != 1) {
			if (!quiet)
				print_error("%s: in README's tables %d times (once wanted)\n",
					    mw_metric_catalog[i].name, seen[i]);
			problems++;
		}
	}
	return problems;
}

static void test_readme(void **state)
{
	char *text = read_readme();

	(void)state;
	if (!text)
		fail_msg("cannot read README.md (run from the repository's top, or pass its path)");
	assert_int_equal(readme_problems(text, false), 0);
	free(text);
}

/* The check itself finds a disagreement: a wrong type, a wrong unit,
 * wrong labels, a name the catalogue lacks, and everything else missing. */
static void test_readme_check_finds(void **state)
{
	static const char text[] =
		"# x\n\n## Metrics\n\n" README_HEADER "\n|---|---|---|---|---|\n"
		"| `memwatch_system_physical_bytes` | gauge | bytes | | fine |\n"
		"| `memwatch_process_handles` | counter | 1 | process, pid, started | type |\n"
		"| `memwatch_process_threads` | gauge | bytes | process, pid, started | unit |\n"
		"| `memwatch_process_virtual_bytes` | gauge | bytes | process, pid | labels |\n"
		"| `memwatch_made_up` | gauge | 1 | | unknown |\n"
		"\n## Next\n| `memwatch_uptime_seconds` | counter | x | | not in the section |\n";

	(void)state;
	assert_int_equal(readme_problems(text, true), 4 + (MW_M_COUNT - 4));
	assert_int_equal(readme_problems("no such section", true), -1);
}

/* ---- /metrics --------------------------------------------------------------- */

static void expect_family(const char *text, const struct mw_metric *m)
{
	char want[512];

	snprintf(want, sizeof(want), "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
		 mw_metric_type_name(m->type));
	if (!strstr(text, want))
		fail_msg("no '%s' in:\n%s", want, text);
}

static void leak_family(void *arg, const char *name, const char *type, const char *help)
{
	mw_prom_family(arg, name, type, help);
}

static void leak_sample(void *arg, const char *name, const char *l1, const char *v1,
			const char *l2, const char *v2, double value)
{
	(void)arg, (void)name, (void)l1, (void)v1, (void)l2, (void)v2, (void)value;
}

/* What /metrics writes for a family: a catalogued one (a health family
 * by identifier, a stored series by name, a leak gauge) with the
 * catalogue's HELP and TYPE; another name with the generic help. */
static void test_prometheus_families(void **state)
{
	struct mw_leak_status st = { .known = true };
	struct mw_jbuf b;
	struct mw_leak_gauge_sink sink = { leak_family, leak_sample, &b };

	(void)state;
	mw_jbuf_init(&b);
	assert_string_equal(mw_prom_family_id(&b, MW_M_STORAGE_POINTS_TOTAL),
			    "memwatch_storage_points_total");
	mw_prom_family_named(&b, "memwatch_process_page_faults_total");
	mw_prom_family_named(&b, "memwatch_heap_count");
	mw_leak_gauges_walk(&st, &sink);
	mw_leak_gauges_walk_runs(&st, &sink);
	mw_prom_family_named(&b, "imported_thing");
	expect_family(b.p, &mw_metric_catalog[MW_M_STORAGE_POINTS_TOTAL]);
	expect_family(b.p, &mw_metric_catalog[MW_M_PROCESS_PAGE_FAULTS_TOTAL]);
	expect_family(b.p, &mw_metric_catalog[MW_M_HEAP_COUNT]);
	expect_family(b.p, &mw_metric_catalog[MW_M_LEAK_COUNT_SLOPE_PER_HOUR]);
	expect_family(b.p, &mw_metric_catalog[MW_M_LEAK_CHECKS_TOTAL]);
	assert_non_null(strstr(b.p, "# HELP imported_thing memwatch metric.\n"
				    "# TYPE imported_thing gauge\n"));
	assert_null(strstr(b.p, "memwatch_heap_count memwatch metric."));
	mw_jbuf_release(&b);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_entries),
	cmocka_unit_test(test_forward_default),
	cmocka_unit_test(test_readme),
	cmocka_unit_test(test_readme_check_finds),
	cmocka_unit_test(test_prometheus_families),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		readme_path = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
