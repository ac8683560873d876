/*
 * perfdata_json.c - the JSON document behind `memwatchd perfdata decode`:
 * every object, instance and counter of a snapshot with its raw inputs
 * and, given the previous snapshot, its value.
 */
#include "perfdata_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/json_out.h"

/* A string through the one JSON string writer (json_out.c: escapes, and
 * invalid UTF-8 as U+FFFD), or null. */
static void json_str(FILE *f, const char *s)
{
	struct mw_jbuf b;

	if (!s) {
		fputs("null", f);
		return;
	}
	mw_jbuf_init(&b);
	mw_j_str(&b, s);
	fwrite(b.p, 1, b.len, f);
	mw_jbuf_release(&b);
}

static void json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.17g", v);
}

static const char *title_or_index(const struct mw_perf_titles *t, uint32_t idx, char *buf,
				  size_t size)
{
	const char *n = mw_perf_title(t, idx);

	if (n)
		return n;
	snprintf(buf, size, "#%" PRIu32, idx);
	return buf;
}

int mw_perf_decode_json(void *file, const struct mw_perf_titles *titles,
			const struct mw_perf_snapshot *cur, const struct mw_perf_snapshot *prev)
{
	FILE *f = file;
	size_t k, i, c;
	char nb[32];

	fputs("{\"system\":", f);
	json_str(f, cur->system_name);
	fprintf(f, ",\"version\":%" PRIu32 ",\"revision\":%" PRIu32 ",\"perf_time\":%" PRId64
		",\"perf_freq\":%" PRId64 ",\"perf_time_100ns\":%" PRId64
		",\"system_time\":\"%04u-%02u-%02uT%02u:%02u:%02u.%03uZ\"",
		cur->version, cur->revision, cur->perf_time, cur->perf_freq,
		cur->perf_time_100ns, cur->system_time[0], cur->system_time[1],
		cur->system_time[3], cur->system_time[4], cur->system_time[5],
		cur->system_time[6], cur->system_time[7]);
	fprintf(f, ",\"snapshots\":%d,\"objects\":[", prev ? 2 : 1);
	for (k = 0; k < cur->nobjects; k++) {
		const struct mw_perf_object *o = &cur->objects[k];
		const struct mw_perf_object *po = prev ? mw_perf_snapshot_object(prev, o->name_index)
						       : NULL;

		fprintf(f, "%s{\"index\":%" PRIu32 ",\"name\":", k ? "," : "", o->name_index);
		json_str(f, title_or_index(titles, o->name_index, nb, sizeof(nb)));
		fprintf(f, ",\"instances\":[");
		for (i = 0; i < o->ninstances; i++) {
			const struct mw_perf_instance *in = &o->instances[i];
			const struct mw_perf_instance *pin = NULL;
			bool changed = false, first = true;

			if (po)
				pin = mw_perf_match_instance(cur, o, in, prev, po, &changed);
			fprintf(f, "%s{\"name\":", i ? "," : "");
			json_str(f, mw_perf_name(cur, in->full_off));
			fputs(",\"parent\":", f);
			json_str(f, mw_perf_name(cur, in->parent_off));
			if (in->pid >= 0)
				fprintf(f, ",\"pid\":%" PRId64, in->pid);
			fputs(",\"counters\":{", f);
			for (c = 0; c < o->ncounters; c++) {
				const struct mw_perf_counter_def *d = &o->counters[c];
				struct mw_perf_raw_sample r, pr;
				const char *tn = mw_perf_type_name(d->type);
				const char *cn = title_or_index(titles, d->name_index, nb, sizeof(nb));
				bool has_pr = false, dup = false;
				enum mw_perf_calc rc;
				double v = 0;
				size_t j;

				if (mw_perf_type_is_base(d->type))
					continue;
				for (j = 0; j < c; j++)
					if (o->counters[j].name_index == d->name_index &&
					    !mw_perf_type_is_base(o->counters[j].type))
						dup = true;
				fprintf(f, "%s", first ? "" : ",");
				first = false;
				if (dup) {
					char key[160];

					snprintf(key, sizeof(key), "%s [%zu]", cn, c);
					json_str(f, key);
				} else {
					json_str(f, cn);
				}
				fputs(":{\"type\":", f);
				if (tn) {
					json_str(f, tn);
				} else {
					char hex[16];

					snprintf(hex, sizeof(hex), "0x%08" PRIx32, d->type);
					json_str(f, hex);
				}
				if (mw_perf_raw_sample_get(cur, o, in, c, &r)) {
					fprintf(f, ",\"raw\":%" PRIu64 ",\"value\":null,"
						"\"status\":\"no base\"}", r.a);
					continue;
				}
				fprintf(f, ",\"raw\":%" PRIu64, r.a);
				if (mw_perf_type_needs_base(d->type))
					fprintf(f, ",\"base\":%" PRIu64, r.b);
				if (pin && c < po->ncounters && po->counters[c].type == d->type &&
				    !mw_perf_raw_sample_get(prev, po, pin, c, &pr))
					has_pr = true;
				rc = mw_perf_compute(&r, has_pr ? &pr : NULL, &v);
				fputs(",\"value\":", f);
				if (rc == MW_PERF_VALUE)
					json_num(f, v);
				else
					fputs("null", f);
				if (rc != MW_PERF_VALUE) {
					const char *why = rc == MW_PERF_NEED_PREVIOUS
						? (changed ? "instance changed" : "needs two snapshots")
						: rc == MW_PERF_DROPPED ? "dropped"
						: rc == MW_PERF_UNSUPPORTED ? "unsupported type"
						: "no base";
					fputs(",\"status\":", f);
					json_str(f, why);
				}
				fputc('}', f);
			}
			fputs("}}", f);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}
