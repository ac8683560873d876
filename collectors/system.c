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
#include "core/metric_catalog.h"

/* Find "Key:   123 kB" and return bytes. */
static int meminfo_field(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			char *end;
			unsigned long long v = strtoull(p + klen + 1, &end, 10);

			while (*end == ' ')
				end++;
			*out = !strncmp(end, "kB", 2) ? v * 1024ULL : v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

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
	for (i = 0; i < MW_ARRAY_SIZE(fields); i++)
		if (meminfo_field(text, fields[i].key,
				  (uint64_t *)((char *)out + fields[i].offset)))
			return mw_error(err, "/proc/meminfo has no '%s' line", fields[i].key);
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
