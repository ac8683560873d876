/*
 * perfdata.h - NT performance data (HKEY_PERFORMANCE_DATA) read on any
 * platform: the PERF_DATA_BLOCK parser, perfmon's counter arithmetic and
 * the English title database ("Counter 009").
 *
 * Everything here except the mw_perfreg_* functions is pure: it reads the
 * exact bytes RegQueryValueEx returns (little-endian, the 64-bit layout of
 * winperf.h, fields read with memcpy at the documented offsets below) and
 * is tested natively on constructed and recorded buffers.  The parser
 * checks the signature and every length and offset; a malformed buffer is
 * an error naming what lies, never a crash.
 *
 * Ownership: a parsed snapshot points into the caller's buffer (counter
 * data is read from it lazily), so the buffer must outlive the snapshot.
 * Instance names are decoded into memory the snapshot owns.
 *
 * Threads: no shared state; each struct is used by one thread at a time.
 */
#ifndef MW_COLLECTORS_PERFDATA_H
#define MW_COLLECTORS_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "core/counter_path.h"

/* --- winperf.h layout (x64), checked against the SDK in perfdata_win32.c -- */
#define MW_PDB_SIGNATURE 0		/* WCHAR[4] "PERF" */
#define MW_PDB_LITTLE_ENDIAN 8
#define MW_PDB_VERSION 12
#define MW_PDB_REVISION 16
#define MW_PDB_TOTAL_LENGTH 20
#define MW_PDB_HEADER_LENGTH 24
#define MW_PDB_NUM_OBJECTS 28
#define MW_PDB_DEFAULT_OBJECT 32
#define MW_PDB_SYSTEM_TIME 36		/* SYSTEMTIME, 8 WORDs */
#define MW_PDB_PERF_TIME 56
#define MW_PDB_PERF_FREQ 64
#define MW_PDB_PERF_TIME_100NS 72
#define MW_PDB_SYSTEM_NAME_LENGTH 80
#define MW_PDB_SYSTEM_NAME_OFFSET 84
#define MW_PDB_SIZE 88

#define MW_POT_TOTAL_LENGTH 0
#define MW_POT_DEFINITION_LENGTH 4
#define MW_POT_HEADER_LENGTH 8
#define MW_POT_NAME_INDEX 12
#define MW_POT_HELP_INDEX 20
#define MW_POT_DETAIL_LEVEL 28
#define MW_POT_NUM_COUNTERS 32
#define MW_POT_DEFAULT_COUNTER 36
#define MW_POT_NUM_INSTANCES 40
#define MW_POT_CODE_PAGE 44
#define MW_POT_PERF_TIME 48
#define MW_POT_PERF_FREQ 56
#define MW_POT_SIZE 64

#define MW_PCD_BYTE_LENGTH 0
#define MW_PCD_NAME_INDEX 4
#define MW_PCD_HELP_INDEX 12
#define MW_PCD_DEFAULT_SCALE 20
#define MW_PCD_DETAIL_LEVEL 24
#define MW_PCD_COUNTER_TYPE 28
#define MW_PCD_COUNTER_SIZE 32
#define MW_PCD_COUNTER_OFFSET 36
#define MW_PCD_SIZE 40

#define MW_PID_BYTE_LENGTH 0
#define MW_PID_PARENT_OBJECT 4
#define MW_PID_PARENT_INSTANCE 8
#define MW_PID_UNIQUE_ID 12
#define MW_PID_NAME_OFFSET 16
#define MW_PID_NAME_LENGTH 20
#define MW_PID_SIZE 24

#define MW_PCB_BYTE_LENGTH 0
#define MW_PCB_SIZE 4

#define MW_PERF_NO_INSTANCES (-1)
#define MW_PERF_NO_UNIQUE_ID (-1)

/* Counter types (winperf.h) */
#define MW_PERF_MULTI_COUNTER 0x02000000u	/* type flag: B is a multi base */
#define MW_PERF_COUNTER_COUNTER 0x10410400u
#define MW_PERF_COUNTER_TIMER 0x20410500u
#define MW_PERF_COUNTER_QUEUELEN_TYPE 0x00450400u
#define MW_PERF_COUNTER_LARGE_QUEUELEN_TYPE 0x00450500u
#define MW_PERF_COUNTER_100NS_QUEUELEN_TYPE 0x00550500u
#define MW_PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE 0x00650500u
#define MW_PERF_COUNTER_BULK_COUNT 0x10410500u
#define MW_PERF_COUNTER_TEXT 0x00000b00u
#define MW_PERF_COUNTER_RAWCOUNT 0x00010000u
#define MW_PERF_COUNTER_LARGE_RAWCOUNT 0x00010100u
#define MW_PERF_COUNTER_RAWCOUNT_HEX 0x00000000u
#define MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX 0x00000100u
#define MW_PERF_SAMPLE_FRACTION 0x20c20400u
#define MW_PERF_SAMPLE_COUNTER 0x00410400u
#define MW_PERF_COUNTER_NODATA 0x40000200u
#define MW_PERF_COUNTER_TIMER_INV 0x21410500u
#define MW_PERF_SAMPLE_BASE 0x40030401u
#define MW_PERF_AVERAGE_TIMER 0x30020400u
#define MW_PERF_AVERAGE_BASE 0x40030402u
#define MW_PERF_AVERAGE_BULK 0x40020500u
#define MW_PERF_OBJ_TIME_TIMER 0x20610500u
#define MW_PERF_100NSEC_TIMER 0x20510500u
#define MW_PERF_100NSEC_TIMER_INV 0x21510500u
#define MW_PERF_COUNTER_MULTI_TIMER 0x22410500u
#define MW_PERF_COUNTER_MULTI_TIMER_INV 0x23410500u
#define MW_PERF_COUNTER_MULTI_BASE 0x42030500u
#define MW_PERF_100NSEC_MULTI_TIMER 0x22510500u
#define MW_PERF_100NSEC_MULTI_TIMER_INV 0x23510500u
#define MW_PERF_RAW_FRACTION 0x20020400u
#define MW_PERF_LARGE_RAW_FRACTION 0x20020500u
#define MW_PERF_RAW_BASE 0x40030403u
#define MW_PERF_LARGE_RAW_BASE 0x40030503u
#define MW_PERF_ELAPSED_TIME 0x30240500u
#define MW_PERF_COUNTER_DELTA 0x00400400u
#define MW_PERF_COUNTER_LARGE_DELTA 0x00400500u
#define MW_PERF_PRECISION_SYSTEM_TIMER 0x20470500u
#define MW_PERF_PRECISION_100NS_TIMER 0x20570500u
#define MW_PERF_PRECISION_OBJECT_TIMER 0x20670500u

/* Well-known title indexes (stable across Windows versions). */
#define MW_PERF_IDX_PROCESS 230
#define MW_PERF_IDX_THREAD 232
#define MW_PERF_IDX_ID_PROCESS 784
#define MW_PERF_IDX_ELAPSED_TIME 684

/* --- title database -------------------------------------------------------- */

struct mw_perf_title {
	uint32_t index;
	const char *name;	/* UTF-8, owned by the database */
};

struct mw_perf_titles {
	struct mw_perf_title *by_index;	/* sorted by index, unique */
	size_t n;
	char *pool;
	size_t pool_len, pool_cap;
	uint32_t last_index;
	size_t skipped;		/* malformed pairs ignored while parsing */
};

/* Parse a REG_MULTI_SZ (UTF-16LE "1\0" "1847\0" "2\0" "System\0" ... "\0")
 * as "Counter 009" or "Help 009" returns it.  Malformed pairs (an index
 * that is not a number, a missing name, an odd byte count, no final NUL)
 * are skipped and counted, never fatal.  Replaces t's contents.  Returns
 * 0, or -1 when not even one pair could be read. */
int mw_perf_titles_parse(struct mw_perf_titles *t, const unsigned char *buf, size_t len,
			 struct mw_err *err);
void mw_perf_titles_release(struct mw_perf_titles *t);
/* Name of an index, or NULL. */
const char *mw_perf_title(const struct mw_perf_titles *t, uint32_t index);
/* Every index whose name equals `name` (ASCII case-insensitive), up to max;
 * returns how many there are (may exceed max). */
size_t mw_perf_title_find(const struct mw_perf_titles *t, const char *name,
			  uint32_t *out, size_t max);

/* --- snapshot parser ------------------------------------------------------- */

struct mw_perf_counter_def {
	uint32_t name_index, help_index;
	int32_t default_scale;
	uint32_t detail_level;
	uint32_t type;
	uint32_t size;		/* CounterSize as declared */
	uint32_t offset;	/* within each counter block */
};

struct mw_perf_instance {
	size_t name_off;	/* into snapshot->names: raw instance name, UTF-8 */
	size_t full_off;	/* perfmon's name: "parent/name" and "#n" when repeated */
	size_t parent_off;	/* parent instance's name; SIZE_MAX: none */
	uint32_t parent_object;	/* ParentObjectTitleIndex, 0: none */
	uint32_t parent_instance;
	int32_t unique_id;
	uint32_t dup_index;	/* n of "#n": 0 for the first of a name */
	int64_t pid;		/* "ID Process" when the object has it, else -1 */
	size_t block_off;	/* counter block, offset into the buffer */
	uint32_t block_len;
};

struct mw_perf_object {
	uint32_t name_index, help_index;
	uint32_t detail_level;
	int32_t num_instances;	/* as declared: -1 = PERF_NO_INSTANCES */
	uint32_t code_page;
	int32_t default_counter;
	int64_t perf_time, perf_freq;	/* object time base */
	struct mw_perf_counter_def *counters;
	size_t ncounters;
	struct mw_perf_instance *instances;	/* one, nameless, when no instances */
	size_t ninstances;
};

struct mw_perf_snapshot {
	const unsigned char *buf;	/* the caller's buffer */
	size_t len;
	uint32_t version, revision;
	int64_t perf_time, perf_freq, perf_time_100ns;
	uint16_t system_time[8];	/* SYSTEMTIME, UTC */
	char system_name[64];
	struct mw_perf_object *objects;
	size_t nobjects, objects_cap;
	char *names;		/* instance name pool */
	size_t names_len, names_cap;
	/* MW_PERF_PARSE_SKIP_BAD_OBJECTS: objects left out, and why the
	 * first one was. */
	size_t skipped_objects;
	char skip_note[160];
};

/* Parse a PERF_DATA_BLOCK of len bytes.  Objects, counter definitions,
 * instances and counter blocks are walked by their length fields; every
 * counter's offset and size must lie inside its block.  Returns 0 or -1
 * with a message naming the object / instance / field at fault.  s is
 * reset first and must be released with mw_perf_snapshot_release. */
int mw_perf_snapshot_parse(struct mw_perf_snapshot *s, const unsigned char *buf, size_t len,
			   struct mw_err *err);
/* The same, with flags:
 * MW_PERF_PARSE_SKIP_BAD_OBJECTS  a malformed object is left out (and
 *     counted in skipped_objects, its error in skip_note) instead of
 *     failing the whole snapshot; when its TotalByteLength cannot be
 *     trusted the objects after it are unreachable and counted too.  The
 *     data block header must still be sound. */
#define MW_PERF_PARSE_SKIP_BAD_OBJECTS 1u
int mw_perf_snapshot_parse_ex(struct mw_perf_snapshot *s, const unsigned char *buf, size_t len,
			      unsigned flags, struct mw_err *err);
void mw_perf_snapshot_release(struct mw_perf_snapshot *s);
const struct mw_perf_object *mw_perf_snapshot_object(const struct mw_perf_snapshot *s,
						     uint32_t name_index);
static inline const char *mw_perf_name(const struct mw_perf_snapshot *s, size_t off)
{
	return off == SIZE_MAX ? NULL : s->names + off;
}

/* The raw value of counter c of instance i (typed as the counter type
 * says: 4 bytes for DWORD types whatever CounterSize claims, else 8). */
uint64_t mw_perf_raw(const struct mw_perf_snapshot *s, const struct mw_perf_instance *i,
		     const struct mw_perf_counter_def *c);

/* --- counter arithmetic (perfmon's formulas) ------------------------------- */

enum mw_perf_calc {
	MW_PERF_VALUE = 0,	/* *value set */
	MW_PERF_NEED_PREVIOUS,	/* a rate's first sample */
	MW_PERF_DROPPED,	/* counter reset, time did not advance, base zero */
	MW_PERF_BASE,		/* a base counter: input to the one before it */
	MW_PERF_UNSUPPORTED,	/* type not handled (text, histogram, unknown) */
	MW_PERF_NO_BASE,	/* fraction/average without a base after it */
};

/* One counter's inputs at one sample, as typeperf's SQL log keeps them. */
struct mw_perf_raw_sample {
	uint32_t type;
	uint64_t a;		/* the counter's raw value */
	uint64_t b;		/* its base counter, or 0 */
	int64_t time;		/* the time base the type uses (system, 100 ns, object) */
	int64_t freq;		/* ticks per second of that time base */
};

/* True when the type needs a base counter right after it. */
bool mw_perf_type_needs_base(uint32_t type);
bool mw_perf_type_is_base(uint32_t type);
/* True when the type needs two samples. */
bool mw_perf_type_is_rate(uint32_t type);
/* Short name, e.g. "PERF_COUNTER_BULK_COUNT", or NULL if unknown. */
const char *mw_perf_type_name(uint32_t type);

/* Fill r for counter index ci of instance i in object o. */
int mw_perf_raw_sample_get(const struct mw_perf_snapshot *s, const struct mw_perf_object *o,
			   const struct mw_perf_instance *i, size_t ci,
			   struct mw_perf_raw_sample *r);
/* Compute a value from the current sample and the previous one (NULL when
 * there is none).  Types differ: returns MW_PERF_DROPPED for a previous
 * sample of a different type. */
enum mw_perf_calc mw_perf_compute(const struct mw_perf_raw_sample *cur,
				  const struct mw_perf_raw_sample *prev, double *value);

/* The instance of `obj_prev` that is the same thing as `cur` (same pid
 * and start for processes; same UniqueID; else same perfmon name), or
 * NULL.  *changed is set when an instance of that name exists but is not
 * the same one (a pid reused, a process restarted). */
const struct mw_perf_instance *mw_perf_match_instance(
	const struct mw_perf_snapshot *s_cur, const struct mw_perf_object *o_cur,
	const struct mw_perf_instance *cur, const struct mw_perf_snapshot *s_prev,
	const struct mw_perf_object *o_prev, bool *changed);

/* --- counter paths --------------------------------------------------------- */

/* Parsed by core/counter_path.c (mw_perf_path_parse). */
/* Does the path's instance part select this instance? ("*" matches all;
 * otherwise perfmon's full name, case-insensitive, "#0" optional.) */
bool mw_perf_path_match_instance(const struct mw_perf_path *p,
				 const struct mw_perf_snapshot *s,
				 const struct mw_perf_instance *i);

/* Objects that o's instances name as their parent (ParentObjectTitleIndex,
 * e.g. Process for Thread) and that s lacks: without them "parent/name"
 * cannot be formed, so a query for o must ask for them too.  Returns how
 * many it put in out (at most max). */
size_t mw_perf_missing_parents(const struct mw_perf_snapshot *s, const struct mw_perf_object *o,
			       uint32_t *out, size_t max);
/* Add an object index to a space-separated query ("232 230") unless it is
 * already one of its words.  Returns 1 when added, 0 when already there,
 * -1 when it does not fit. */
int mw_perf_query_add(char *query, size_t size, uint32_t index);

/* --- decode a recording to JSON -------------------------------------------- */

/* Write the JSON document `perfdata decode --json` prints: titles may be
 * NULL (names become "#INDEX"), cur must be given, prev may be NULL.
 * Returns 0 or -1 on a write error. */
int mw_perf_decode_json(void *file /* FILE* */, const struct mw_perf_titles *titles,
			const struct mw_perf_snapshot *cur, const struct mw_perf_snapshot *prev);

/* --- platform: the registry calls (perfdata_win32.c, perfdata_linux.c) ---- */

struct mw_perfreg;
/* Returns 0, or -1 when this platform has no performance registry. */
int mw_perfreg_open(struct mw_perfreg **out, struct mw_err *err);
void mw_perfreg_free(struct mw_perfreg *r);
/* RegQueryValueEx(HKEY_PERFORMANCE_DATA, value), retried as
 * perfdata_fetch.h says (the buffer grows by doubling up to a cap and is
 * remembered per reader; ERROR_BUSY is retried with backoff).  *out
 * points into the reader's buffer, valid until the next call. */
int mw_perfreg_query(struct mw_perfreg *r, const char *value, const unsigned char **out,
		     size_t *len, struct mw_err *err);
/* RegCloseKey(HKEY_PERFORMANCE_DATA) (unloads the providers). */
void mw_perfreg_close_key(struct mw_perfreg *r);
/* A number that changes when counters are (un)registered ("Last Counter");
 * 0 if unknown. */
uint32_t mw_perfreg_title_stamp(struct mw_perfreg *r);

#endif
