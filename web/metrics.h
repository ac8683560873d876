/*
 * metrics.h - Prometheus text exposition (format 0.0.4) helpers, pure so
 * tests drive them directly.  Thread-safe.
 */
#ifndef MW_WEB_METRICS_H
#define MW_WEB_METRICS_H

#include "base/json_out.h"
#include "core/leak_gauges.h"
#include "core/metric_catalog.h"

/* "# HELP name text\n# TYPE name type\n" (help escaped: \\ and \n). */
void mw_prom_family(struct mw_jbuf *b, const char *name, const char *type, const char *help);
/* name{label="value"} v\n -- label may be NULL for none; value escaped
 * (\\ \" \n), invalid UTF-8 replaced by U+FFFD. */
void mw_prom_sample(struct mw_jbuf *b, const char *name, const char *label,
		    const char *value, double v);
/* The same with nlabels labels: kv holds name, value pairs. */
void mw_prom_sample_labels(struct mw_jbuf *b, const char *name, const char *const *kv,
			   size_t nlabels, double v);
/* Append s (a series key already in exposition form) with invalid UTF-8
 * replaced by U+FFFD. */
void mw_prom_utf8(struct mw_jbuf *b, const char *s);
/* The family of catalogue entry id (its HELP and TYPE); returns its name
 * for the samples. */
const char *mw_prom_family_id(struct mw_jbuf *b, enum mw_metric_id id);
/* The family of a stored series' name: mw_prom_type and mw_prom_help. */
void mw_prom_family_named(struct mw_jbuf *b, const char *name);
/* The catalogue's type of a memwatch metric; for another name "counter"
 * when it ends in _total, else "gauge". */
const char *mw_prom_type(const char *name);
/* The catalogue's help of a memwatch metric, or a generic one. */
const char *mw_prom_help(const char *name);
/* A sink for core/leak_gauges.h's walks that writes their families and
 * samples to b in this format (/metrics' leak gauges). */
struct mw_leak_gauge_sink mw_prom_gauge_sink(struct mw_jbuf *b);

#endif
