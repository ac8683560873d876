/*
 * perfdata_cmd.c - `memwatchd counters` and `memwatchd perfdata dump|decode`
 * (usage in perfdata_cmd.h).  A recording is the raw bytes the registry
 * returned, so a user can attach it to a bug report and we decode it on
 * any platform with the same parser the collector uses.
 */
#include "perfdata_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fsutf8.h"
#include "base/json_out.h"
#include "base/xalloc.h"
#include "collectors/perfdata.h"

int mw_read_whole_file(const char *path, unsigned char **buf, size_t *len, struct mw_err *err)
{
	FILE *f = mw_fopen(path, "rb");
	size_t cap = 65536, n = 0, got;
	unsigned char *b;

	if (!f)
		return mw_error(err, "cannot open '%s': %s", path, strerror(errno));
	b = mw_xmalloc(cap);
	while ((got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			b = mw_xrealloc(b, cap);
		}
	}
	if (ferror(f)) {
		fclose(f);
		free(b);
		return mw_error(err, "cannot read '%s'", path);
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

static int write_file(const char *path, const void *data, size_t len, struct mw_err *err)
{
	FILE *f = mw_fopen(path, "wb");

	if (!f)
		return mw_error(err, "cannot create '%s': %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len || fclose(f))
		return mw_error(err, "cannot write '%s'", path);
	return 0;
}

/* Loaded recording: titles (may be absent) and one or two snapshots. */
struct recording {
	unsigned char *tbuf, *b1, *b2;
	size_t tlen, l1, l2;
	struct mw_perf_titles titles;
	bool has_titles;
	struct mw_perf_snapshot s1, s2;
	bool has_s1, has_s2;
};

static void recording_release(struct recording *r)
{
	if (r->has_s1)
		mw_perf_snapshot_release(&r->s1);
	if (r->has_s2)
		mw_perf_snapshot_release(&r->s2);
	mw_perf_titles_release(&r->titles);
	free(r->tbuf);
	free(r->b1);
	free(r->b2);
}

/* paths: DIR, or TITLES SNAPSHOT [SNAPSHOT2] */
static int recording_load(struct recording *r, char **paths, int npaths, struct mw_err *err)
{
	char p[3][1024];
	int n = npaths;

	memset(r, 0, sizeof(*r));
	if (npaths == 1 && mw_is_dir(paths[0])) {
		snprintf(p[0], sizeof(p[0]), "%s/titles-counter.bin", paths[0]);
		snprintf(p[1], sizeof(p[1]), "%s/snapshot1.bin", paths[0]);
		snprintf(p[2], sizeof(p[2]), "%s/snapshot2.bin", paths[0]);
		FILE *f = mw_fopen(p[2], "rb");
		n = f ? 3 : 2;
		if (f)
			fclose(f);
	} else if (npaths >= 2 && npaths <= 3) {
		for (int i = 0; i < npaths; i++)
			snprintf(p[i], sizeof(p[i]), "%s", paths[i]);
	} else {
		return mw_error(err, "give a recording directory, or TITLES SNAPSHOT [SNAPSHOT2]");
	}
	if (mw_read_whole_file(p[0], &r->tbuf, &r->tlen, err))
		return -1;
	if (mw_perf_titles_parse(&r->titles, r->tbuf, r->tlen, err))
		return mw_error_prefix(err, "%s", p[0]);
	r->has_titles = true;
	if (mw_read_whole_file(p[1], &r->b1, &r->l1, err))
		return -1;
	if (mw_perf_snapshot_parse(&r->s1, r->b1, r->l1, err))
		return mw_error_prefix(err, "%s", p[1]);
	r->has_s1 = true;
	if (n == 3) {
		if (mw_read_whole_file(p[2], &r->b2, &r->l2, err))
			return -1;
		if (mw_perf_snapshot_parse(&r->s2, r->b2, r->l2, err))
			return mw_error_prefix(err, "%s", p[2]);
		r->has_s2 = true;
	}
	return 0;
}

static int decode(int argc, char **argv)
{
	char *paths[3];
	int np = 0, i, rc;
	struct recording r;
	struct mw_err err;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			continue;
		if (np == 3) {
			fprintf(stderr, "memwatchd perfdata decode: too many arguments\n");
			return 2;
		}
		paths[np++] = argv[i];
	}
	if (np == 0) {
		fprintf(stderr, "usage: memwatchd perfdata decode DIR | TITLES SNAPSHOT [SNAPSHOT2] [--json]\n");
		return 2;
	}
	if (recording_load(&r, paths, np, &err)) {
		fprintf(stderr, "memwatchd perfdata decode: %s\n", err.msg);
		recording_release(&r);
		return 1;
	}
	rc = r.has_s2 ? mw_perf_decode_json(stdout, &r.titles, &r.s2, &r.s1)
		      : mw_perf_decode_json(stdout, &r.titles, &r.s1, NULL);
	recording_release(&r);
	return rc ? 1 : 0;
}

static int dump(int argc, char **argv)
{
	const char *dir = NULL, *query = "Global";
	long interval = 1000;
	struct mw_perfreg *reg = NULL;
	struct mw_err err;
	char path[1024];
	struct mw_jbuf meta;
	const unsigned char *data;
	size_t len;
	int i, rc;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--query") && i + 1 < argc)
			query = argv[++i];
		else if (!strcmp(argv[i], "--interval-ms") && i + 1 < argc)
			interval = strtol(argv[++i], NULL, 10);
		else if (!dir)
			dir = argv[i];
		else
			dir = NULL, i = argc;
	}
	if (!dir || interval < 0) {
		fprintf(stderr, "usage: memwatchd perfdata dump DIR [--query \"230 4\"] [--interval-ms N]\n");
		return 2;
	}
	if (mw_perfreg_open(&reg, &err))
		goto fail;
	if (mw_mkdir(dir)) {
		mw_error(&err, "cannot create directory '%s': %s", dir, strerror(errno));
		goto fail;
	}
	static const char *const what[][2] = {
		{ "Counter 009", "titles-counter.bin" }, { "Help 009", "titles-help.bin" },
		{ NULL, "snapshot1.bin" }, { NULL, "snapshot2.bin" },
	};
	for (size_t k = 0; k < 4; k++) {
		if (k == 3)
			mw_sleep_ms(interval);
		if (mw_perfreg_query(reg, what[k][0] ? what[k][0] : query, &data, &len, &err))
			goto fail;
		snprintf(path, sizeof(path), "%s/%s", dir, what[k][1]);
		if (write_file(path, data, len, &err))
			goto fail;
	}
	/* the query as a JSON string (escaped), whatever was typed */
	mw_jbuf_init(&meta);
	mw_j_lit(&meta, "{\"format\":\"memwatch-perfdata\",\"version\":1,\"query\":");
	mw_j_str(&meta, query);
	mw_j_lit(&meta, ",\"interval_ms\":");
	mw_j_int(&meta, interval);
	mw_j_lit(&meta, "}\n");
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	rc = write_file(path, meta.p, meta.len, &err);
	mw_jbuf_release(&meta);
	if (rc)
		goto fail;
	mw_perfreg_free(reg);
	printf("recording saved in %s\n", dir);
	return 0;
fail:
	fprintf(stderr, "memwatchd perfdata dump: %s\n", err.msg);
	mw_perfreg_free(reg);
	return 1;
}

int mw_cmd_perfdata(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "decode"))
		return decode(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "dump"))
		return dump(argc - 2, argv + 2);
	fprintf(stderr, "usage: memwatchd perfdata dump DIR [--query Q] [--interval-ms N]\n"
			"       memwatchd perfdata decode DIR | TITLES SNAPSHOT [SNAPSHOT2] [--json]\n");
	return 2;
}

static void list_objects(const struct mw_perf_titles *t, const struct mw_perf_snapshot *s)
{
	for (size_t k = 0; k < s->nobjects; k++) {
		const struct mw_perf_object *o = &s->objects[k];
		const char *on = mw_perf_title(t, o->name_index);

		printf("%6" PRIu32 "  %s", o->name_index, on ? on : "(no title)");
		if (o->num_instances < 0)
			printf("  (no instances)\n");
		else
			printf("  (%zu instances)\n", o->ninstances);
		for (size_t c = 0; c < o->ncounters; c++) {
			const struct mw_perf_counter_def *d = &o->counters[c];
			const char *cn = mw_perf_title(t, d->name_index);
			const char *tn = mw_perf_type_name(d->type);

			printf("        %6" PRIu32 "  %-40s %s", d->name_index,
			       cn ? cn : "(no title)", tn ? tn : "");
			if (!tn)
				printf("0x%08" PRIx32, d->type);
			printf("\n");
		}
	}
}

int mw_cmd_counters(int argc, char **argv)
{
	bool all = false;
	char *paths[3];
	int np = 0;
	struct mw_err err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--all"))
			all = true;
		else if (np < 3)
			paths[np++] = argv[i];
	}
	if (np) {
		struct recording r;

		if (recording_load(&r, paths, np, &err)) {
			fprintf(stderr, "memwatchd counters: %s\n", err.msg);
			recording_release(&r);
			return 1;
		}
		if (all)
			for (size_t i = 0; i < r.titles.n; i++)
				printf("%6" PRIu32 "  %s\n", r.titles.by_index[i].index,
				       r.titles.by_index[i].name);
		else
			list_objects(&r.titles, &r.s1);
		recording_release(&r);
		return 0;
	}

	struct mw_perfreg *reg = NULL;
	struct mw_perf_titles t = { 0 };
	struct mw_perf_snapshot s;
	const unsigned char *data;
	size_t len;
	unsigned char *copy;

	if (mw_perfreg_open(&reg, &err) ||
	    mw_perfreg_query(reg, "Counter 009", &data, &len, &err) ||
	    mw_perf_titles_parse(&t, data, len, &err))
		goto fail;
	if (all) {
		for (size_t i = 0; i < t.n; i++)
			printf("%6" PRIu32 "  %s\n", t.by_index[i].index, t.by_index[i].name);
		mw_perf_titles_release(&t);
		mw_perfreg_free(reg);
		return 0;
	}
	if (mw_perfreg_query(reg, "Global", &data, &len, &err))
		goto fail;
	copy = mw_xmalloc(len ? len : 1);
	memcpy(copy, data, len);
	if (mw_perf_snapshot_parse(&s, copy, len, &err)) {
		free(copy);
		goto fail;
	}
	if (s.nobjects == 0)
		printf("HKEY_PERFORMANCE_DATA returned no objects (%zu-byte PERF_DATA_BLOCK, "
		       "%zu titles)\n", len, t.n);
	list_objects(&t, &s);
	mw_perf_snapshot_release(&s);
	free(copy);
	mw_perf_titles_release(&t);
	mw_perfreg_free(reg);
	return 0;
fail:
	fprintf(stderr, "memwatchd counters: %s\n", err.msg);
	mw_perf_titles_release(&t);
	mw_perfreg_free(reg);
	return 1;
}
