/*
 * system_meminfo.c - the /proc/meminfo parser (system.h), pure so it is
 * tested on every platform; system_linux.c reads the file.
 */
#include "system.h"

#include <stddef.h>
#include <string.h>

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
