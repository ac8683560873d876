/*
 * jvm_files.c - the jvm collector's list of performance-data files, a
 * file's name as a pid and whether its owner may be read: pure, used by
 * both platforms' listings (jvm_linux.c, jvm_win32.c) and the collector
 * (jvm.c).
 */
#include "jvm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

uint32_t mw_jvm_pid_of_name(const char *name)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; name[i]; i++) {
		if (name[i] < '0' || name[i] > '9' || i >= 10)
			return 0;
		v = v * 10 + (uint64_t)(name[i] - '0');
	}
	return i && v <= UINT32_MAX ? (uint32_t)v : 0;
}

bool mw_jvm_owner_ok(const char *file_owner, const char *user, const char *default_owner)
{
	if (!file_owner || !*file_owner)
		return false;
	return (user && !strcmp(file_owner, user)) ||
	       (default_owner && !strcmp(file_owner, default_owner));
}

void mw_jvm_files_add(struct mw_jvm_files *files, uint32_t pid, const char *dir,
		      const char *name)
{
	struct mw_jvm_file *f;
	int n;

	if (files->n == files->cap) {
		files->cap = files->cap ? files->cap * 2 : 8;
		files->f = mw_xrealloc(files->f, files->cap * sizeof(*files->f));
	}
	f = &files->f[files->n];
	n = snprintf(f->path, sizeof(f->path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(f->path))
		return;	/* a path this long is not a JVM's */
	f->pid = pid;
	files->n++;
}

void mw_jvm_files_release(struct mw_jvm_files *files)
{
	free(files->f);
	memset(files, 0, sizeof(*files));
}
