/*
 * import_internal.h - helpers shared by the import parsers (not an API).
 */
#ifndef MW_IMPORT_INTERNAL_H
#define MW_IMPORT_INTERNAL_H

#include "import.h"

/* Add a label from JSON: name validated, value copied; -1 with a message
 * for a bad name, a repeated name or too many labels. */
int mw_import_series_add_label(struct mw_import_series *s, const char *name, const char *value,
			       struct mw_err *err);
/* A series' labels are valid UTF-8 (the store serves them as text);
 * -1 with a message naming the label. */
int mw_import_series_check(const struct mw_import_series *s, struct mw_err *err);
/* ts after not_after_ms (0: none) or outside years 0001..9999: -1 with a
 * message saying how far ahead and what to do. */
int mw_import_time_check(int64_t ts, int64_t not_after_ms, struct mw_err *err);
/* Is name a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)? */
int mw_import_metric_name_ok(const char *name);

#endif
