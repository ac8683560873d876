/*
 * fuzz_import_sink.h - the point sink of the import fuzz targets
 * (fuzz_import_csv.c, fuzz_import_json.c): every point a parser hands on
 * must carry a key, a metric name and whole labels; anything else aborts,
 * which the fuzzer reports like a crash.
 */
#ifndef MW_FUZZ_IMPORT_SINK_H
#define MW_FUZZ_IMPORT_SINK_H

#include <stdlib.h>

#include "import/import.h"

static inline void fuzz_import_sink(void *ctx, const char *key, const char *metric,
				    const struct mw_label *labels, size_t nlabels, int64_t ts_ms,
				    double value)
{
	size_t i;

	(void)ctx;
	(void)ts_ms;
	(void)value;
	if (!key || !metric || !*metric)
		abort();
	for (i = 0; i < nlabels; i++)
		if (!labels[i].name || !labels[i].value)
			abort();
}

#endif
