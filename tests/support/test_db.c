/* test_db.c - see test_db.h. */
#include "test_db.h"

#include <stdio.h>

void mw_test_db_remove(const char *path)
{
	static const char *const beside[] = { "", "-wal", "-shm", ".lock" };
	char name[1024];
	size_t i;

	for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", path, beside[i]);
		remove(name);
	}
}
