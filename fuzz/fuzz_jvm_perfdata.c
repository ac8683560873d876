/*
 * fuzz_jvm_perfdata.c - libFuzzer target for the hsperfdata parser
 * (collectors/jvm_perfdata.h): the file is written by another program,
 * in a folder anybody can write to, and read by the daemon every tick.
 * Any bytes must give figures or an error naming what was wrong, never a
 * read outside them.  Built by scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include <string.h>

#include "collectors/jvm_perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_jvm_heap h;
	struct mw_err err;
	/* a copy of exactly size bytes: ASan sees a read past them */
	uint8_t *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (mw_jvm_perfdata_parse(buf, size, &h, &err))
		(void)strlen(err.msg);
	free(buf);
	return 0;
}
