/*
 * system.c - the system collector (portable part) and the /proc/meminfo
 * parser, which is pure so it is tested on every platform.
 */
#include "system.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collector.h"
#include "procfs_field.h"

int mw_meminfo_parse(const char *text, struct mw_system_memory *out, struct mw_err *err)
{
	static const struct {
		const char *key;
		size_t offset;
	} fields[] = {
		{ "MemTotal", offsetof(struct mw_system_memory, physical_bytes) },
		{ "MemAvailable", offsetof(struct mw_system_memory, available_bytes) },
		{ "Committed_AS", offsetof(struct mw_system_memory, commit_bytes) },
		{ "CommitLimit", offsetof(struct mw_system_memory, commit_limit_bytes) },
	};
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < MW_ARRAY_SIZE(fields); i++) {
		uint64_t v;
		bool kb;

		if (mw_procfs_field(text, fields[i].key, &v, &kb))
			return mw_error(err, "/proc/meminfo has no '%s' line", fields[i].key);
		/* bytes; a figure without kB is taken as it is */
		*(uint64_t *)((char *)out + fields[i].offset) = kb ? v * 1024ULL : v;
	}
	return 0;
}

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
	mw_batch_add(ctx->batch, "memwatch_system_physical_bytes", NULL, 0,
		     (double)m.physical_bytes, ctx->ts_ms);
	mw_batch_add(ctx->batch, "memwatch_system_available_bytes", NULL, 0,
		     (double)m.available_bytes, ctx->ts_ms);
	mw_batch_add(ctx->batch, "memwatch_system_commit_bytes", NULL, 0,
		     (double)m.commit_bytes, ctx->ts_ms);
	mw_batch_add(ctx->batch, "memwatch_system_commit_limit_bytes", NULL, 0,
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
