/*
 * hsperf_file.h - for the jvm collector's tests: the recorded JDK 17
 * performance-data file (tests/data/jvm/g1_jdk17.hsperfdata) loaded, its
 * VM start changed so that it belongs to a given process, and one sample
 * of the collector with what it wrote of that process.
 */
#ifndef MW_TESTS_SUPPORT_HSPERF_FILE_H
#define MW_TESTS_SUPPORT_HSPERF_FILE_H

#include <stddef.h>
#include <stdint.h>

#define MW_TEST_HSPERF_FILE "tests/data/jvm/g1_jdk17.hsperfdata"
/* What the recorded file says of the old generation in use. */
#define MW_TEST_HSPERF_OLD_USED 44779520.0

/* The file's bytes (malloc'ed, 64 KB, the caller frees), *len of them. */
uint8_t *mw_test_hsperf_load(size_t *len);
/* Set its sun.rt.createVmBeginTime (a little-endian J scalar) to ms. */
void mw_test_hsperf_set_vm_start(uint8_t *buf, int64_t ms);

/* What one sample of the jvm collector wrote of process pid. */
struct mw_test_jvm_seen {
	size_t mine;		/* its series */
	size_t named;		/* those whose `process` is image (ASCII case-insensitive) */
	double old;		/* memwatch_jvm_heap_used_bytes{space="old"}; -1: none */
	uint64_t skipped;	/* the files it counted as inaccessible */
	char mode[96];		/* its status */
};
/* Init, one sample, fini; aborts naming the step that failed. */
void mw_test_jvm_sample(const char *pid, const char *image, struct mw_test_jvm_seen *out);

#endif
