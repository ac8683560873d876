/*
 * perfdata_build.h - build PERF_DATA_BLOCK buffers and title databases to
 * the documented winperf.h layout (x64, little-endian).
 *
 * Used where no real Windows is at hand: the tests, the fuzz seeds, the
 * benchmark and the sample recording under tests/data/perfdata/.  The
 * builder lays out counter blocks itself (each counter at an 8-aligned
 * offset sized by its type) and fixes every length when an object or the
 * block is finished, so a buffer it returns is valid; tests then break it
 * on purpose at the MW_P* offsets of perfdata.h.
 */
#ifndef MW_TESTS_SUPPORT_PERFDATA_BUILD_H
#define MW_TESTS_SUPPORT_PERFDATA_BUILD_H

#include <stddef.h>
#include <stdint.h>

struct mw_pdbb_counter {
	uint32_t name_index;
	uint32_t type;
};

struct mw_pdbb {
	unsigned char *buf;
	size_t len, cap;
	size_t obj_start;	/* offset of the open object, SIZE_MAX: none */
	uint32_t nobjects;
	int32_t ninstances;
	struct mw_pdbb_counter *counters;
	uint32_t ncounters;
	uint32_t block_len;
	uint32_t *offsets;
};

/* Start a block: the header (with times and system name) is written now. */
void mw_pdbb_begin(struct mw_pdbb *b, int64_t perf_time, int64_t perf_freq,
		   int64_t perf_time_100ns, const char *system_name);
/* Open an object; no_instances: PERF_NO_INSTANCES and one counter block. */
void mw_pdbb_object(struct mw_pdbb *b, uint32_t name_index,
		    const struct mw_pdbb_counter *counters, uint32_t ncounters,
		    int no_instances, int64_t obj_time, int64_t obj_freq);
/* One instance (name ASCII/UTF-8 stored as UTF-16LE) with its counter
 * values, one per counter in definition order. */
void mw_pdbb_instance(struct mw_pdbb *b, const char *name, uint32_t parent_object,
		      uint32_t parent_instance, int32_t unique_id, const uint64_t *values);
/* The single counter block of an object without instances. */
void mw_pdbb_values(struct mw_pdbb *b, const uint64_t *values);
void mw_pdbb_end_object(struct mw_pdbb *b);
/* Finish: returns the buffer (caller frees) and its length. */
unsigned char *mw_pdbb_finish(struct mw_pdbb *b, size_t *len);

/* A REG_MULTI_SZ title database from index/name pairs. */
struct mw_pdbb_title {
	uint32_t index;
	const char *name;
};
unsigned char *mw_pdbb_titles(const struct mw_pdbb_title *t, size_t n, size_t *len);

/* The synthetic sample system used by tests, fuzz seeds and the
 * recording: Memory (no instances), Paging File, Processor, Process with
 * nproc processes (two named "svchost"), Thread (parents in Process),
 * LogicalDisk (averages).  `tick` 0 or 1 gives the first or second
 * snapshot (counters advance by known amounts, see perfdata_build.c). */
unsigned char *mw_pdbb_sample_snapshot(int tick, size_t nproc, size_t *len);
unsigned char *mw_pdbb_sample_titles(size_t *len);

#endif
