/* prom.c - Prometheus text exposition helpers; see metrics.h.  HELP and
 * TYPE of memwatch's own families come from core/metric_catalog.c. */
#include "metrics.h"

#include <string.h>

#include "base/mwerr.h"
#include "base/utf8.h"
#include "core/leak_gauges.h"
#include "core/metric_catalog.h"

void mw_prom_utf8(struct mw_jbuf *b, const char *s)
{
	size_t n = strlen(s), ok;

	while (n) {
		ok = mw_utf8_valid_prefix(s, n);
		mw_j_raw(b, s, ok);
		s += ok;
		n -= ok;
		if (n) {
			mw_j_lit(b, "\xEF\xBF\xBD");
			s++;
			n--;
		}
	}
}

void mw_prom_family(struct mw_jbuf *b, const char *name, const char *type, const char *help)
{
	mw_j_lit(b, "# HELP ");
	mw_j_lit(b, name);
	mw_j_char(b, ' ');
	for (; *help; help++) {
		if (*help == '\\')
			mw_j_lit(b, "\\\\");
		else if (*help == '\n')
			mw_j_lit(b, "\\n");
		else
			mw_j_char(b, *help);
	}
	mw_j_lit(b, "\n# TYPE ");
	mw_j_lit(b, name);
	mw_j_char(b, ' ');
	mw_j_lit(b, type);
	mw_j_char(b, '\n');
}

static void value_line_end(struct mw_jbuf *b, double v)
{
	char num[40];

	mw_j_char(b, ' ');
	mw_j_raw(b, num, mw_fmt_double(num, v));
	mw_j_char(b, '\n');
}

void mw_prom_sample_labels(struct mw_jbuf *b, const char *name, const char *const *kv,
			   size_t nlabels, double v)
{
	struct mw_jbuf esc;
	const char *p;
	size_t i;

	mw_j_lit(b, name);
	for (i = 0; i < nlabels; i++) {
		mw_jbuf_init(&esc);
		for (p = kv[2 * i + 1]; *p; p++) {
			if (*p == '\\' || *p == '"')
				mw_j_char(&esc, '\\');
			if (*p == '\n')
				mw_j_lit(&esc, "\\n");
			else
				mw_j_char(&esc, *p);
		}
		mw_j_char(b, i ? ',' : '{');
		mw_j_lit(b, kv[2 * i]);
		mw_j_lit(b, "=\"");
		mw_prom_utf8(b, esc.p);
		mw_j_char(b, '"');
		mw_jbuf_release(&esc);
	}
	if (nlabels)
		mw_j_char(b, '}');
	value_line_end(b, v);
}

void mw_prom_sample(struct mw_jbuf *b, const char *name, const char *label,
		    const char *value, double v)
{
	const char *kv[2] = { label, value };

	mw_prom_sample_labels(b, name, kv, label ? 1 : 0, v);
}

const char *mw_prom_family_id(struct mw_jbuf *b, enum mw_metric_id id)
{
	const struct mw_metric *m = &mw_metric_catalog[id];

	mw_prom_family(b, m->name, mw_metric_type_name(m->type), m->help);
	return m->name;
}

void mw_prom_family_named(struct mw_jbuf *b, const char *name)
{
	mw_prom_family(b, name, mw_prom_type(name), mw_prom_help(name));
}

const char *mw_prom_type(const char *name)
{
	const struct mw_metric *m = mw_metric_find(name);
	size_t n = strlen(name);

	if (m)
		return mw_metric_type_name(m->type);
	/* not memwatch's own (imported, or from an older version): the
	 * naming convention is all there is to go by */
	return n > 6 && !strcmp(name + n - 6, "_total") ? "counter" : "gauge";
}

const char *mw_prom_help(const char *name)
{
	const struct mw_metric *m = mw_metric_find(name);

	return m ? m->help : "memwatch metric.";
}

static void sink_family(void *arg, const char *name, const char *type, const char *help)
{
	mw_prom_family(arg, name, type, help);
}

static void sink_sample(void *arg, const char *name, const char *l1, const char *v1,
			const char *l2, const char *v2, double value)
{
	const char *kv[4] = { l1, v1, l2, v2 };

	mw_prom_sample_labels(arg, name, kv, l2 ? 2 : l1 ? 1 : 0, value);
}

struct mw_leak_gauge_sink mw_prom_gauge_sink(struct mw_jbuf *b)
{
	struct mw_leak_gauge_sink sink = { sink_family, sink_sample, b };

	return sink;
}
