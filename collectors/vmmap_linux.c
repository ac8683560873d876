/* vmmap_linux.c - the address-space map from /proc/PID/maps. */
#include "vmmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/xalloc.h"

int mw_vm_walk(uint32_t pid, bool self, struct mw_vm_regions *v, struct mw_err *err)
{
	char path[64];
	FILE *f;
	char *text = NULL;
	size_t len = 0, cap = 0, got;
	int rc;

	(void)self;
	v->n = 0;
	snprintf(path, sizeof(path), "/proc/%lu/maps", (unsigned long)pid);
	f = fopen(path, "r");
	if (!f)
		return mw_error(err, "cannot open %s: %s", path, strerror(errno)), 1;
	do {
		MW_GROW(text, cap, len + 65536);
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	fclose(f);
	text[len] = '\0';
	v->lo = 0x10000;
	v->hi = 0x800000000000ULL;	/* x86-64 user space, 47 bits */
	v->wow64 = false;
	rc = mw_vm_parse_maps(text, v, err);
	free(text);
	return rc;
}

int mw_vm_stacks(uint32_t pid, bool self, struct mw_vm_ranges *out, struct mw_err *err)
{
	/* Thread stacks need /proc/PID/task/TID/stat's startstack plus the
	 * maps; nothing uses them on Linux yet. */
	(void)pid;
	(void)self;
	(void)err;
	out->n = 0;
	return 0;
}
