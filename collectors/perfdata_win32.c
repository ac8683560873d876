/*
 * perfdata_win32.c - the registry calls behind perfdata.h:
 * RegQueryValueEx(HKEY_PERFORMANCE_DATA), one call at a time; how the
 * buffer grows and what is retried is perfdata_fetch.c's.
 */
#include "perfdata.h"
#include "perfdata_fetch.h"

#include <windows.h>
#include <winperf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

struct mw_perfreg {
	struct mw_perf_fetch fetch;
};

int mw_perfreg_open(struct mw_perfreg **out, struct mw_err *err)
{
	(void)err;
	*out = mw_xcalloc(1, sizeof(**out));
	return 0;
}

void mw_perfreg_free(struct mw_perfreg *r)
{
	if (!r)
		return;
	mw_perf_fetch_release(&r->fetch);
	free(r);
}

/* The one registry call.  The W call: "Counter 009" must come back as
 * UTF-16 (the A call converts REG_MULTI_SZ to the ANSI code page). */
static enum mw_perf_call query_value(void *arg, const char *value, unsigned char *buf, size_t size,
				     size_t *got, long *code)
{
	WCHAR wvalue[256];
	DWORD sz = size > MAXDWORD ? MAXDWORD : (DWORD)size, type = 0;
	LONG rc;

	(void)arg;
	if (!MultiByteToWideChar(CP_UTF8, 0, value, -1, wvalue, MW_ARRAY_SIZE(wvalue))) {
		*code = (long)GetLastError();
		return MW_PERF_CALL_FAILED;
	}
	rc = RegQueryValueExW(HKEY_PERFORMANCE_DATA, wvalue, NULL, &type, buf, &sz);
	*got = sz;
	*code = rc;
	return rc == ERROR_SUCCESS ? MW_PERF_CALL_OK
	       : rc == ERROR_MORE_DATA ? MW_PERF_CALL_MORE
	       : rc == ERROR_BUSY ? MW_PERF_CALL_BUSY : MW_PERF_CALL_FAILED;
}

static void pause_ms(void *arg, unsigned ms)
{
	(void)arg;
	Sleep(ms);
}

int mw_perfreg_query(struct mw_perfreg *r, const char *value, const unsigned char **out,
		     size_t *len, struct mw_err *err)
{
	static const struct mw_perf_call_ops ops = { query_value, pause_ms, NULL };

	/* query_value's UTF-16 copy has 256 characters */
	if (strlen(value) >= 256)
		return mw_error(err, "perf data query '%.32s...' too long", value);
	return mw_perf_fetch(&r->fetch, &ops, value, out, len, err);
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
