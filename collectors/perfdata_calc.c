/*
 * perfdata_calc.c - perfmon's counter arithmetic: what each CounterType
 * reads (its base counter, its time base) and the formula that turns one
 * or two raw samples into the value perfmon shows (the "Counter Types"
 * section of the Windows Server 2003 Deployment Kit, and the Win32 sample
 * "Calculating Counter Values").
 */
#include "perfdata_int.h"

#include <string.h>

static const struct {
	uint32_t type;
	const char *name;
} type_names[] = {
	{ MW_PERF_COUNTER_COUNTER, "PERF_COUNTER_COUNTER" },
	{ MW_PERF_COUNTER_TIMER, "PERF_COUNTER_TIMER" },
	{ MW_PERF_COUNTER_QUEUELEN_TYPE, "PERF_COUNTER_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_LARGE_QUEUELEN_TYPE, "PERF_COUNTER_LARGE_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_100NS_QUEUELEN_TYPE, "PERF_COUNTER_100NS_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, "PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_BULK_COUNT, "PERF_COUNTER_BULK_COUNT" },
	{ MW_PERF_COUNTER_TEXT, "PERF_COUNTER_TEXT" },
	{ MW_PERF_COUNTER_RAWCOUNT, "PERF_COUNTER_RAWCOUNT" },
	{ MW_PERF_COUNTER_LARGE_RAWCOUNT, "PERF_COUNTER_LARGE_RAWCOUNT" },
	{ MW_PERF_COUNTER_RAWCOUNT_HEX, "PERF_COUNTER_RAWCOUNT_HEX" },
	{ MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX, "PERF_COUNTER_LARGE_RAWCOUNT_HEX" },
	{ MW_PERF_SAMPLE_FRACTION, "PERF_SAMPLE_FRACTION" },
	{ MW_PERF_SAMPLE_COUNTER, "PERF_SAMPLE_COUNTER" },
	{ MW_PERF_COUNTER_NODATA, "PERF_COUNTER_NODATA" },
	{ MW_PERF_COUNTER_TIMER_INV, "PERF_COUNTER_TIMER_INV" },
	{ MW_PERF_SAMPLE_BASE, "PERF_SAMPLE_BASE" },
	{ MW_PERF_AVERAGE_TIMER, "PERF_AVERAGE_TIMER" },
	{ MW_PERF_AVERAGE_BASE, "PERF_AVERAGE_BASE" },
	{ MW_PERF_AVERAGE_BULK, "PERF_AVERAGE_BULK" },
	{ MW_PERF_OBJ_TIME_TIMER, "PERF_OBJ_TIME_TIMER" },
	{ MW_PERF_100NSEC_TIMER, "PERF_100NSEC_TIMER" },
	{ MW_PERF_100NSEC_TIMER_INV, "PERF_100NSEC_TIMER_INV" },
	{ MW_PERF_COUNTER_MULTI_TIMER, "PERF_COUNTER_MULTI_TIMER" },
	{ MW_PERF_COUNTER_MULTI_TIMER_INV, "PERF_COUNTER_MULTI_TIMER_INV" },
	{ MW_PERF_COUNTER_MULTI_BASE, "PERF_COUNTER_MULTI_BASE" },
	{ MW_PERF_100NSEC_MULTI_TIMER, "PERF_100NSEC_MULTI_TIMER" },
	{ MW_PERF_100NSEC_MULTI_TIMER_INV, "PERF_100NSEC_MULTI_TIMER_INV" },
	{ MW_PERF_RAW_FRACTION, "PERF_RAW_FRACTION" },
	{ MW_PERF_LARGE_RAW_FRACTION, "PERF_LARGE_RAW_FRACTION" },
	{ MW_PERF_RAW_BASE, "PERF_RAW_BASE" },
	{ MW_PERF_LARGE_RAW_BASE, "PERF_LARGE_RAW_BASE" },
	{ MW_PERF_ELAPSED_TIME, "PERF_ELAPSED_TIME" },
	{ MW_PERF_COUNTER_DELTA, "PERF_COUNTER_DELTA" },
	{ MW_PERF_COUNTER_LARGE_DELTA, "PERF_COUNTER_LARGE_DELTA" },
	{ MW_PERF_PRECISION_SYSTEM_TIMER, "PERF_PRECISION_SYSTEM_TIMER" },
	{ MW_PERF_PRECISION_100NS_TIMER, "PERF_PRECISION_100NS_TIMER" },
	{ MW_PERF_PRECISION_OBJECT_TIMER, "PERF_PRECISION_OBJECT_TIMER" },
};

const char *mw_perf_type_name(uint32_t type)
{
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(type_names); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	return NULL;
}

bool mw_perf_type_is_base(uint32_t type)
{
	return type == MW_PERF_SAMPLE_BASE || type == MW_PERF_AVERAGE_BASE ||
	       type == MW_PERF_COUNTER_MULTI_BASE || type == MW_PERF_RAW_BASE ||
	       type == MW_PERF_LARGE_RAW_BASE;
}

bool mw_perf_type_needs_base(uint32_t type)
{
	switch (type) {
	case MW_PERF_SAMPLE_FRACTION:
	case MW_PERF_AVERAGE_TIMER:
	case MW_PERF_AVERAGE_BULK:
	case MW_PERF_RAW_FRACTION:
	case MW_PERF_LARGE_RAW_FRACTION:
	case MW_PERF_COUNTER_MULTI_TIMER:
	case MW_PERF_COUNTER_MULTI_TIMER_INV:
	case MW_PERF_100NSEC_MULTI_TIMER:
	case MW_PERF_100NSEC_MULTI_TIMER_INV:
	case MW_PERF_PRECISION_SYSTEM_TIMER:
	case MW_PERF_PRECISION_100NS_TIMER:
	case MW_PERF_PRECISION_OBJECT_TIMER:
		return true;
	default:
		return false;
	}
}

bool mw_perf_type_is_rate(uint32_t type)
{
	switch (type) {
	case MW_PERF_COUNTER_RAWCOUNT:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT:
	case MW_PERF_COUNTER_RAWCOUNT_HEX:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX:
	case MW_PERF_RAW_FRACTION:
	case MW_PERF_LARGE_RAW_FRACTION:
	case MW_PERF_ELAPSED_TIME:
		return false;
	default:
		return mw_perf_type_name(type) && !mw_perf_type_is_base(type) &&
		       type != MW_PERF_COUNTER_TEXT && type != MW_PERF_COUNTER_NODATA;
	}
}

int mw_perf_raw_sample_get(const struct mw_perf_snapshot *s, const struct mw_perf_object *o,
			   const struct mw_perf_instance *i, size_t ci,
			   struct mw_perf_raw_sample *r)
{
	const struct mw_perf_counter_def *c = &o->counters[ci];

	memset(r, 0, sizeof(*r));
	r->type = c->type;
	r->a = mw_perf_raw(s, i, c);
	if (mw_perf_type_needs_base(c->type)) {
		if (ci + 1 >= o->ncounters || !mw_perf_type_is_base(o->counters[ci + 1].type))
			return -1;
		if (c->type & MW_PERF_MULTI_COUNTER) {
			/* The multi timers' B, the number of items timed, is
			 * the PERF_COUNTER_MULTI_BASE counter that follows; PDH
			 * keeps it as a DWORD (PDH_RAW_COUNTER.MultiCount), as
			 * the Win32 sample "Retrieving Counter Data" reads it. */
			if (o->counters[ci + 1].type != MW_PERF_COUNTER_MULTI_BASE)
				return -1;
			r->b = (uint32_t)mw_perf_raw(s, i, &o->counters[ci + 1]);
		} else {
			r->b = mw_perf_raw(s, i, &o->counters[ci + 1]);
		}
	}
	switch (c->type & 0x00300000) {
	case 0x00100000:	/* PERF_TIMER_100NS */
		r->time = s->perf_time_100ns;
		r->freq = 10000000;
		break;
	case 0x00200000:	/* PERF_OBJECT_TIMER */
		r->time = o->perf_time;
		r->freq = o->perf_freq;
		break;
	default:
		r->time = s->perf_time;
		r->freq = s->perf_freq;
		break;
	}
	return 0;
}

enum mw_perf_calc mw_perf_compute(const struct mw_perf_raw_sample *cur,
				  const struct mw_perf_raw_sample *prev, double *value)
{
	double dn, dt, db;
	uint32_t t = cur->type;

	if (mw_perf_type_is_base(t))
		return MW_PERF_BASE;
	switch (t) {
	case MW_PERF_COUNTER_RAWCOUNT:
	case MW_PERF_COUNTER_RAWCOUNT_HEX:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX:
		*value = (double)cur->a;
		return MW_PERF_VALUE;
	case MW_PERF_RAW_FRACTION:
	case MW_PERF_LARGE_RAW_FRACTION:
		if (cur->b == 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * (double)cur->a / (double)cur->b;
		return MW_PERF_VALUE;
	case MW_PERF_ELAPSED_TIME:
		/* Raw is the start time in the object's time base. */
		if (cur->freq <= 0 || (uint64_t)cur->time < cur->a)
			return MW_PERF_DROPPED;
		*value = (double)((uint64_t)cur->time - cur->a) / (double)cur->freq;
		return MW_PERF_VALUE;
	default:
		break;
	}
	if (!mw_perf_type_is_rate(t))
		return MW_PERF_UNSUPPORTED;
	if (!prev)
		return MW_PERF_NEED_PREVIOUS;
	if (prev->type != t)
		return MW_PERF_DROPPED;
	if (cur->a < prev->a)
		return MW_PERF_DROPPED;	/* counter reset */
	dn = (double)(cur->a - prev->a);
	dt = (double)cur->time - (double)prev->time;
	db = cur->b >= prev->b ? (double)(cur->b - prev->b) : -1.0;

	switch (t) {
	case MW_PERF_COUNTER_DELTA:
	case MW_PERF_COUNTER_LARGE_DELTA:
		*value = dn;
		return MW_PERF_VALUE;
	case MW_PERF_SAMPLE_FRACTION:
		if (db <= 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * dn / db;
		return MW_PERF_VALUE;
	case MW_PERF_AVERAGE_BULK:
		if (db <= 0)
			return MW_PERF_DROPPED;
		*value = dn / db;
		return MW_PERF_VALUE;
	case MW_PERF_AVERAGE_TIMER:
		if (db <= 0 || cur->freq <= 0)
			return MW_PERF_DROPPED;
		*value = (dn / (double)cur->freq) / db;
		return MW_PERF_VALUE;
	case MW_PERF_PRECISION_SYSTEM_TIMER:
	case MW_PERF_PRECISION_100NS_TIMER:
	case MW_PERF_PRECISION_OBJECT_TIMER:
		/* The base is the provider's own timestamp. */
		if (db <= 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * dn / db;
		return MW_PERF_VALUE;
	default:
		break;
	}
	if (dt <= 0)
		return MW_PERF_DROPPED;	/* time base did not advance */
	switch (t) {
	case MW_PERF_COUNTER_COUNTER:
	case MW_PERF_COUNTER_BULK_COUNT:
	case MW_PERF_SAMPLE_COUNTER:
		if (cur->freq <= 0)
			return MW_PERF_DROPPED;
		*value = dn / (dt / (double)cur->freq);
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_TIMER:
	case MW_PERF_OBJ_TIME_TIMER:
	case MW_PERF_100NSEC_TIMER:
		*value = 100.0 * dn / dt;
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_TIMER_INV:
	case MW_PERF_100NSEC_TIMER_INV:
		*value = 100.0 * (1.0 - dn / dt);
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_QUEUELEN_TYPE:
	case MW_PERF_COUNTER_LARGE_QUEUELEN_TYPE:
	case MW_PERF_COUNTER_100NS_QUEUELEN_TYPE:
	case MW_PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
		*value = dn / dt;
		return MW_PERF_VALUE;
	/* Multi timers (Windows Server 2003 Deployment Kit, "Counter Types";
	 * the Win32 sample "Calculating Counter Values" agrees for the 100 ns
	 * and inverse ones), B = B1, the newer sample's multi base:
	 *   PERF_COUNTER_MULTI_TIMER, PERF_100NSEC_MULTI_TIMER
	 *       100 * ((N1 - N0) / (D1 - D0)) / B
	 *   PERF_COUNTER_MULTI_TIMER_INV, PERF_100NSEC_MULTI_TIMER_INV
	 *       100 * (B - (N1 - N0) / (D1 - D0))
	 * D is the system performance time or PerfTime100nSec as the type's
	 * timer bits say.  (The older CE/SDK tables also divide the inverse
	 * by B and write the system-timer one with D / TB; neither is what
	 * the Win32 sample computes for the inverse.) */
	case MW_PERF_COUNTER_MULTI_TIMER:
	case MW_PERF_100NSEC_MULTI_TIMER:
		if (cur->b == 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * (dn / dt) / (double)cur->b;
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_MULTI_TIMER_INV:
	case MW_PERF_100NSEC_MULTI_TIMER_INV:
		if (cur->b == 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * ((double)cur->b - dn / dt);
		return MW_PERF_VALUE;
	default:
		return MW_PERF_UNSUPPORTED;
	}
}

/* Start time of an instance from its Elapsed Time counter, or 0. */
