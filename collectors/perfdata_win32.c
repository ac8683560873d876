/*
 * perfdata_win32.c - the registry calls behind perfdata.h:
 * RegQueryValueEx(HKEY_PERFORMANCE_DATA) with a buffer that grows by
 * doubling, retries on ERROR_BUSY, and nothing else.
 *
 * The buffer is kept between calls and never shrinks, so the size that
 * worked last time is where the next query starts.  After ERROR_MORE_DATA
 * the size the call writes back is not to be trusted (it may be 0 or the
 * old size): our own doubled size is used instead.
 */
#include "perfdata.h"

#include <windows.h>
#include <winperf.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/xalloc.h"

_Static_assert(offsetof(PERF_DATA_BLOCK, TotalByteLength) == MW_PDB_TOTAL_LENGTH, "pdb total");
_Static_assert(offsetof(PERF_DATA_BLOCK, NumObjectTypes) == MW_PDB_NUM_OBJECTS, "pdb nobj");
_Static_assert(offsetof(PERF_DATA_BLOCK, SystemTime) == MW_PDB_SYSTEM_TIME, "pdb st");
_Static_assert(offsetof(PERF_DATA_BLOCK, PerfTime) == MW_PDB_PERF_TIME, "pdb time");
_Static_assert(offsetof(PERF_DATA_BLOCK, PerfTime100nSec) == MW_PDB_PERF_TIME_100NS, "pdb 100ns");
_Static_assert(offsetof(PERF_DATA_BLOCK, SystemNameOffset) == MW_PDB_SYSTEM_NAME_OFFSET, "pdb name");
_Static_assert(sizeof(PERF_DATA_BLOCK) == MW_PDB_SIZE, "pdb size");
_Static_assert(offsetof(PERF_OBJECT_TYPE, ObjectHelpTitleIndex) == MW_POT_HELP_INDEX, "pot help");
_Static_assert(offsetof(PERF_OBJECT_TYPE, NumInstances) == MW_POT_NUM_INSTANCES, "pot ninst");
_Static_assert(offsetof(PERF_OBJECT_TYPE, PerfTime) == MW_POT_PERF_TIME, "pot time");
_Static_assert(offsetof(PERF_OBJECT_TYPE, PerfFreq) == MW_POT_PERF_FREQ, "pot freq");
_Static_assert(sizeof(PERF_OBJECT_TYPE) == MW_POT_SIZE, "pot size");
_Static_assert(offsetof(PERF_COUNTER_DEFINITION, CounterType) == MW_PCD_COUNTER_TYPE, "pcd type");
_Static_assert(offsetof(PERF_COUNTER_DEFINITION, CounterOffset) == MW_PCD_COUNTER_OFFSET, "pcd off");
_Static_assert(sizeof(PERF_COUNTER_DEFINITION) == MW_PCD_SIZE, "pcd size");
_Static_assert(offsetof(PERF_INSTANCE_DEFINITION, NameOffset) == MW_PID_NAME_OFFSET, "pid name");
_Static_assert(sizeof(PERF_INSTANCE_DEFINITION) == MW_PID_SIZE, "pid size");
_Static_assert(PERF_100NSEC_TIMER == MW_PERF_100NSEC_TIMER, "type");
_Static_assert(PERF_ELAPSED_TIME == MW_PERF_ELAPSED_TIME, "type");
_Static_assert(PERF_AVERAGE_TIMER == MW_PERF_AVERAGE_TIMER, "type");
_Static_assert(PERF_COUNTER_MULTI_TIMER_INV == MW_PERF_COUNTER_MULTI_TIMER_INV, "type");
_Static_assert(PERF_SAMPLE_FRACTION == MW_PERF_SAMPLE_FRACTION, "type");
_Static_assert(PERF_PRECISION_OBJECT_TIMER == MW_PERF_PRECISION_OBJECT_TIMER, "type");

#define MAX_BUFFER (256u << 20)

struct mw_perfreg {
	unsigned char *buf;
	DWORD size;
};

int mw_perfreg_open(struct mw_perfreg **out, struct mw_err *err)
{
	struct mw_perfreg *r = mw_xcalloc(1, sizeof(*r));

	(void)err;
	r->size = 64 * 1024;
	r->buf = mw_xmalloc(r->size);
	*out = r;
	return 0;
}

void mw_perfreg_free(struct mw_perfreg *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

int mw_perfreg_query(struct mw_perfreg *r, const char *value, const unsigned char **out,
		     size_t *len, struct mw_err *err)
{
	int busy = 0;
	WCHAR wvalue[256];

	/* The W call: "Counter 009" must come back as UTF-16 (the A call
	 * converts REG_MULTI_SZ to the ANSI code page). */
	if (!MultiByteToWideChar(CP_UTF8, 0, value, -1, wvalue, MW_ARRAY_SIZE(wvalue)))
		return mw_error(err, "perf data query '%s' too long", value);
	for (;;) {
		DWORD sz = r->size, type = 0;
		LONG rc = RegQueryValueExW(HKEY_PERFORMANCE_DATA, wvalue, NULL, &type, r->buf, &sz);

		if (rc == ERROR_SUCCESS) {
			*out = r->buf;
			*len = sz <= r->size ? sz : r->size;
			return 0;
		}
		if (rc == ERROR_MORE_DATA) {
			if (r->size >= MAX_BUFFER)
				return mw_error(err, "RegQueryValueEx(HKEY_PERFORMANCE_DATA, '%s'): "
						"more than %u bytes", value, MAX_BUFFER);
			r->size *= 2;
			r->buf = mw_xrealloc(r->buf, r->size);
			continue;
		}
		if (rc == ERROR_BUSY && busy < 5) {
			Sleep(10u << busy);	/* 10, 20, 40, 80, 160 ms */
			busy++;
			continue;
		}
		return mw_error(err, "RegQueryValueEx(HKEY_PERFORMANCE_DATA, '%s'): Win32 error %ld",
				value, (long)rc);
	}
}

void mw_perfreg_close_key(struct mw_perfreg *r)
{
	(void)r;
	RegCloseKey(HKEY_PERFORMANCE_DATA);
}

uint32_t mw_perfreg_title_stamp(struct mw_perfreg *r)
{
	DWORD v = 0, sz = sizeof(v);

	(void)r;
	if (RegGetValueA(HKEY_LOCAL_MACHINE,
			 "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib",
			 "Last Counter", RRF_RT_REG_DWORD, NULL, &v, &sz) != ERROR_SUCCESS)
		return 0;
	return v;
}
