/*
 * procfs_field.c - a "Key: value kB" line of a /proc text file
 * (procfs_field.h).
 */
#include "procfs_field.h"

#include <stdlib.h>
#include <string.h>

int mw_procfs_field(const char *text, const char *key, uint64_t *value, bool *kb)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			char *end;

			*value = strtoull(p + klen + 1, &end, 10);
			while (*end == ' ')
				end++;
			*kb = !strncmp(end, "kB", 2);
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}
