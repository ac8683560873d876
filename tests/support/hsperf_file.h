/*
 * hsperf_file.h - the recorded JDK 17 performance-data file
 * (tests/data/jvm/g1_jdk17.hsperfdata) for the jvm collector's tests:
 * loaded, and its VM start changed so that it belongs to a given process.
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

#endif
