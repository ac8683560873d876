/*
 * catalog.h - the series catalogue of schema 7 (storage/SCHEMA.md): a
 * series is a metric id and a label-set id; metric names, label pairs and
 * label sets are interned, so the ~12 series of a process share one label
 * set per distinct label list and a process costs two new label rows (pid,
 * started), not a key text, an index entry on it and three label rows per
 * series.
 *
 * The series key (name{a="x",b="y"}) is not stored: it is rebuilt from the
 * metric name and the labels sorted by name.  A key that is not of that
 * form is taken as a metric name without labels.
 *
 * Used by the writer (series.c, retention.c) and by the 6 -> 7 migration
 * (schema.c), on one connection, one thread.
 */
#ifndef MW_CATALOG_H
#define MW_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "core/batch.h"
#include "base/mwerr.h"

/* A series' identity from its key: name and labels sorted by name. */
struct mw_key {
	char *name;
	struct mw_label *labels;	/* own copies */
	size_t nlabels;
};

/* Pure.  Parse a key; one that is not name{label="value",...} (values
 * escaped as mw_series_key_format escapes them) is a name alone. */
void mw_key_parse(struct mw_key *k, const char *key);
void mw_key_release(struct mw_key *k);
/* The canonical key of name and labels (sorted by name), malloc'd. */
char *mw_key_text(const char *name, const struct mw_label *labels, size_t nlabels);

enum {
	CAT_METRIC_FIND, CAT_METRIC_INSERT,
	CAT_LABEL_FIND, CAT_LABEL_INSERT,
	CAT_SET_FIND, CAT_SET_INSERT, CAT_MEMBER_INSERT,
	CAT_SERIES_DELETE, CAT_SET_USED, CAT_SET_MEMBERS, CAT_MEMBERS_DELETE,
	CAT_SET_DELETE, CAT_LABEL_USED, CAT_LABEL_DELETE, CAT_METRIC_USED,
	CAT_METRIC_DELETE,
	CAT_COUNT
};

struct mw_catalog {
	sqlite3 *db;
	sqlite3_stmt *st[CAT_COUNT];
};

/* Statements are prepared on first use. */
void mw_catalog_open(struct mw_catalog *c, sqlite3 *db);
void mw_catalog_close(struct mw_catalog *c);

/* The metric and label-set ids of name + labels (sorted by name).  With
 * create, what is missing is inserted (inside the caller's transaction);
 * without, 1 is returned when something is missing.  0 ok, -1 error. */
int mw_catalog_ids(struct mw_catalog *c, const char *name, const struct mw_label *labels,
		   size_t nlabels, bool create, int64_t *metric_id, int64_t *set_id,
		   struct mw_err *err);
/* The label set of these label ids (in label-name order); id 0 for none. */
int mw_catalog_set(struct mw_catalog *c, const int64_t *label_ids, size_t n, bool create,
		   int64_t *set_id, struct mw_err *err);
/* Delete a series row, and its label set, labels and metric when no other
 * series uses them.  Inside the caller's transaction. */
int mw_catalog_remove(struct mw_catalog *c, int64_t series_id, struct mw_err *err);

#endif
