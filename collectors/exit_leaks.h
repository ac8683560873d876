/*
 * exit_leaks.h - LOCAL COPY for the s3-exitwin branch so the Windows side
 * compiles: the exitcore helper owns the real header (with the portable
 * collector and the Linux side); the lead takes theirs at merge.
 *
 * The platform hooks of the exit leak collector: init with the options,
 * poll from the sampler thread (finished reports handed to deliver, which
 * takes ownership of *r's contents), fini.
 */
#ifndef MW_COLLECTORS_EXIT_LEAKS_H
#define MW_COLLECTORS_EXIT_LEAKS_H

#include <stddef.h>
#include <stdint.h>

#include "base/mwerr.h"
#include "core/exit_report.h"

struct mw_exit_leaks_options { char **images; size_t nimages; char *lsan_dir; uint64_t max_bytes; };

int mw_exit_leaks_os_init(void **os, const struct mw_exit_leaks_options *o, struct mw_err *err);
void mw_exit_leaks_os_poll(void *os, int64_t now_ms, void (*deliver)(void *ctx, struct mw_exit_report *r), void *ctx);   /* deliver takes ownership of *r's contents */
void mw_exit_leaks_os_fini(void *os);

#endif
