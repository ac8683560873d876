/*
 * jvm_perfdata.h - a HotSpot JVM's performance-data file (hsperfdata:
 * what jstat reads) parsed into the heap figures memwatch records.
 *
 * Every HotSpot JVM started without -XX:-UsePerfData keeps its counters
 * in a shared file (Linux: /tmp/hsperfdata_USER/PID; Windows:
 * %TEMP%\hsperfdata_USER\PID) and updates them in place.  The heap a
 * JVM has committed (up to -Xmx) shows from outside as private memory
 * that stops growing early; what the program keeps inside it shows only
 * here: the old generation's used bytes after each collection.
 *
 * Pure: bytes in, figures out; tested on a recorded file and on
 * constructed ones (tests/test_jvm.c).  Owner: the jvm collector.
 */
#ifndef MW_COLLECTORS_JVM_PERFDATA_H
#define MW_COLLECTORS_JVM_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"

/* The file's prologue is 32 bytes; a JVM's default file is 32 KB.  A
 * larger one (-XX:PerfDataMemorySize) is read up to this. */
#define MW_JVM_PERFDATA_MAX (1u << 20)

struct mw_jvm_heap {
	uint64_t old_used, old_capacity;	/* generation 1 (G1, Parallel, Serial: old) */
	uint64_t young_used, young_capacity;	/* generation 0: eden and survivors */
	/* the most the heap may grow to (-Xmx): G1's generations each
	 * report the whole heap's, the others' add up to it */
	uint64_t max_capacity;
	uint64_t metaspace_used;
	/* collector 0's invocations (young pauses; G1: young and mixed), and
	 * every other collector's (those that collect the old generation:
	 * G1's concurrent cycle and full pauses, Parallel's and Serial's full
	 * collections) */
	uint64_t young_collections, old_collections;
	int64_t vm_start_ms;			/* sun.rt.createVmBeginTime; 0 when absent */
	bool have_old;				/* the file had generation 1's used bytes */
};

/* Parse buf[0..len).  0 and *out; -1 and err naming what was wrong (not a
 * perfdata file, a version it does not know, a JVM still starting, an
 * entry outside the buffer). */
int mw_jvm_perfdata_parse(const uint8_t *buf, size_t len, struct mw_jvm_heap *out,
			  struct mw_err *err);

/* A file left by a JVM that died, its pid since reused: the VM began
 * before the process (with a second's slack for clocks) or more than ten
 * minutes after it. */
bool mw_jvm_perfdata_stale(int64_t vm_start_ms, int64_t process_start_ms);

#endif
