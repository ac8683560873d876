/* hsperf_file.c - see hsperf_file.h. */
#include "hsperf_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *mw_test_hsperf_load(size_t *len)
{
	FILE *f = fopen(MW_TEST_HSPERF_FILE, "rb");
	uint8_t *buf = malloc(65536);

	if (!f || !buf) {
		fprintf(stderr, "cannot read %s\n", MW_TEST_HSPERF_FILE);
		abort();
	}
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

void mw_test_hsperf_set_vm_start(uint8_t *buf, int64_t ms)
{
	uint32_t at, n, i;

	memcpy(&at, buf + 24, 4);
	memcpy(&n, buf + 28, 4);
	for (i = 0; i < n; i++) {
		uint32_t len, name_off, data_off;

		memcpy(&len, buf + at, 4);
		memcpy(&name_off, buf + at + 4, 4);
		memcpy(&data_off, buf + at + 16, 4);
		if (!strcmp((const char *)buf + at + name_off, "sun.rt.createVmBeginTime")) {
			memcpy(buf + at + data_off, &ms, 8);
			return;
		}
		at += len;
	}
	fprintf(stderr, "no sun.rt.createVmBeginTime in %s\n", MW_TEST_HSPERF_FILE);
	abort();
}
