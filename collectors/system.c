/*
 * system.c - the system collector (portable part): the machine's memory
 * (system_win32.c, system_linux.c; the /proc/meminfo parser is
 * system_meminfo.c) as series.
 */
#include "system.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collector.h"
#include "core/metric_catalog.h"

static int system_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct mw_system_memory probe;

	(void)env;
	*state = NULL;
	/* One read up front: a platform that cannot answer is "unsupported",
	 * not a collector that fails every tick. */
	if (mw_system_read(&probe, why))
		return MW_COLLECTOR_UNSUPPORTED;
	return MW_COLLECTOR_OK;
}

static int system_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct mw_system_memory m;

	(void)state;
	if (mw_system_read(&m, &ctx->err))
		return MW_COLLECTOR_ERROR;
	mw_batch_add(ctx->batch, mw_metric_name(MW_M_SYSTEM_PHYSICAL_BYTES), NULL, 0,
		     (double)m.physical_bytes, ctx->ts_ms);
	mw_batch_add(ctx->batch, mw_metric_name(MW_M_SYSTEM_AVAILABLE_BYTES), NULL, 0,
		     (double)m.available_bytes, ctx->ts_ms);
	mw_batch_add(ctx->batch, mw_metric_name(MW_M_SYSTEM_COMMIT_BYTES), NULL, 0,
		     (double)m.commit_bytes, ctx->ts_ms);
	mw_batch_add(ctx->batch, mw_metric_name(MW_M_SYSTEM_COMMIT_LIMIT_BYTES), NULL, 0,
		     (double)m.commit_limit_bytes, ctx->ts_ms);
	return MW_COLLECTOR_OK;
}

static void system_fini(void *state)
{
	(void)state;
}

const struct mw_collector mw_collector_system = {
	.name = "system",
	.summary = "Machine-wide memory: physical, available, commit charge and commit limit.",
	.default_interval_ms = 0,
	.default_enabled = true,
	.init = system_init,
	.sample = system_sample,
	.fini = system_fini,
};
