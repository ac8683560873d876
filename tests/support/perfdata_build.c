/*
 * perfdata_build.c - PERF_DATA_BLOCK and title-database builder, and the
 * synthetic sample system (see perfdata_build.h).
 */
#include "perfdata_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "collectors/perfdata.h"

static void put(struct mw_pdbb *b, size_t at, const void *p, size_t n)
{
	MW_GROW(b->buf, b->cap, at + n);
	if (at + n > b->len) {
		memset(b->buf + b->len, 0, at + n - b->len);
		b->len = at + n;
	}
	memcpy(b->buf + at, p, n);
}

static void put32(struct mw_pdbb *b, size_t at, uint32_t v)
{
	put(b, at, &v, 4);
}

static void put64(struct mw_pdbb *b, size_t at, uint64_t v)
{
	put(b, at, &v, 8);
}

static void pad8(struct mw_pdbb *b)
{
	static const unsigned char z[8];

	if (b->len % 8)
		put(b, b->len, z, 8 - b->len % 8);
}

/* ASCII name as UTF-16LE with its NUL; returns the bytes written. */
static size_t put_utf16(struct mw_pdbb *b, size_t at, const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i <= n; i++) {
		unsigned char u[2] = { (unsigned char)s[i], 0 };

		put(b, at + 2 * i, u, 2);
	}
	return 2 * (n + 1);
}

void mw_pdbb_begin(struct mw_pdbb *b, int64_t perf_time, int64_t perf_freq,
		   int64_t perf_time_100ns, const char *system_name)
{
	static const unsigned char sig[8] = { 'P', 0, 'E', 0, 'R', 0, 'F', 0 };
	static const uint16_t st[8] = { 2024, 5, 3, 17, 12, 30, 45, 500 };
	size_t nlen;

	memset(b, 0, sizeof(*b));
	b->obj_start = SIZE_MAX;
	put(b, MW_PDB_SIGNATURE, sig, 8);
	put32(b, MW_PDB_LITTLE_ENDIAN, 1);
	put32(b, MW_PDB_VERSION, 1);
	put32(b, MW_PDB_REVISION, 1);
	put32(b, MW_PDB_DEFAULT_OBJECT, MW_PERF_IDX_PROCESS);
	put(b, MW_PDB_SYSTEM_TIME, st, sizeof(st));
	put64(b, MW_PDB_PERF_TIME, (uint64_t)perf_time);
	put64(b, MW_PDB_PERF_FREQ, (uint64_t)perf_freq);
	put64(b, MW_PDB_PERF_TIME_100NS, (uint64_t)perf_time_100ns);
	put32(b, MW_PDB_SYSTEM_NAME_OFFSET, MW_PDB_SIZE);
	nlen = put_utf16(b, MW_PDB_SIZE, system_name);
	put32(b, MW_PDB_SYSTEM_NAME_LENGTH, (uint32_t)nlen);
	pad8(b);
	put32(b, MW_PDB_HEADER_LENGTH, (uint32_t)b->len);
}

static uint32_t tbytes(uint32_t type)
{
	switch (type & 0x300) {
	case 0x000:
		return 4;
	case 0x100:
		return 8;
	default:
		return 0;
	}
}

void mw_pdbb_object(struct mw_pdbb *b, uint32_t name_index,
		    const struct mw_pdbb_counter *counters, uint32_t ncounters,
		    int no_instances, int64_t obj_time, int64_t obj_freq)
{
	size_t o = b->len, i;
	uint32_t off = 8;

	b->obj_start = o;
	b->ninstances = no_instances ? MW_PERF_NO_INSTANCES : 0;
	free(b->counters);
	free(b->offsets);
	b->counters = mw_xmalloc((ncounters + 1) * sizeof(*counters));
	b->offsets = mw_xmalloc((ncounters + 1) * sizeof(uint32_t));
	memcpy(b->counters, counters, ncounters * sizeof(*counters));
	b->ncounters = ncounters;
	put32(b, o + MW_POT_HEADER_LENGTH, MW_POT_SIZE);
	put32(b, o + MW_POT_NAME_INDEX, name_index);
	put32(b, o + MW_POT_HELP_INDEX, name_index + 1);
	put32(b, o + MW_POT_DETAIL_LEVEL, 100);
	put32(b, o + MW_POT_NUM_COUNTERS, ncounters);
	put32(b, o + MW_POT_DEFAULT_COUNTER, 0);
	put32(b, o + MW_POT_CODE_PAGE, 0);
	put64(b, o + MW_POT_PERF_TIME, (uint64_t)obj_time);
	put64(b, o + MW_POT_PERF_FREQ, (uint64_t)obj_freq);
	for (i = 0; i < ncounters; i++) {
		size_t d = o + MW_POT_SIZE + i * MW_PCD_SIZE;
		uint32_t sz = tbytes(counters[i].type);

		if (sz && off % sz)
			off += sz - off % sz;
		b->offsets[i] = off;
		put32(b, d + MW_PCD_BYTE_LENGTH, MW_PCD_SIZE);
		put32(b, d + MW_PCD_NAME_INDEX, counters[i].name_index);
		put32(b, d + MW_PCD_HELP_INDEX, counters[i].name_index + 1);
		put32(b, d + MW_PCD_DEFAULT_SCALE, 0);
		put32(b, d + MW_PCD_DETAIL_LEVEL, 100);
		put32(b, d + MW_PCD_COUNTER_TYPE, counters[i].type);
		put32(b, d + MW_PCD_COUNTER_SIZE, sz);
		put32(b, d + MW_PCD_COUNTER_OFFSET, off);
		off += sz;
	}
	b->block_len = (off + 7) & ~7u;
	put32(b, o + MW_POT_DEFINITION_LENGTH, (uint32_t)(MW_POT_SIZE + ncounters * MW_PCD_SIZE));
	b->len = o + MW_POT_SIZE + ncounters * MW_PCD_SIZE;
	put32(b, o + MW_POT_TOTAL_LENGTH, 0);
}

void mw_pdbb_values(struct mw_pdbb *b, const uint64_t *values)
{
	size_t blk = b->len, i;

	for (i = 0; i < b->block_len; i += 4)
		put32(b, blk + i, 0);
	put32(b, blk, b->block_len);
	for (i = 0; i < b->ncounters; i++) {
		if (tbytes(b->counters[i].type) == 4)
			put32(b, blk + b->offsets[i], (uint32_t)values[i]);
		else if (tbytes(b->counters[i].type) == 8)
			put64(b, blk + b->offsets[i], values[i]);
	}
	b->len = blk + b->block_len;
}

void mw_pdbb_instance(struct mw_pdbb *b, const char *name, uint32_t parent_object,
		      uint32_t parent_instance, int32_t unique_id, const uint64_t *values)
{
	size_t d = b->len, nlen;

	put32(b, d + MW_PID_PARENT_OBJECT, parent_object);
	put32(b, d + MW_PID_PARENT_INSTANCE, parent_instance);
	put32(b, d + MW_PID_UNIQUE_ID, (uint32_t)unique_id);
	put32(b, d + MW_PID_NAME_OFFSET, MW_PID_SIZE);
	nlen = put_utf16(b, d + MW_PID_SIZE, name);
	put32(b, d + MW_PID_NAME_LENGTH, (uint32_t)nlen);
	pad8(b);
	put32(b, d + MW_PID_BYTE_LENGTH, (uint32_t)(b->len - d));
	mw_pdbb_values(b, values);
	b->ninstances++;
}

void mw_pdbb_end_object(struct mw_pdbb *b)
{
	size_t o = b->obj_start;

	put32(b, o + MW_POT_NUM_INSTANCES, (uint32_t)b->ninstances);
	put32(b, o + MW_POT_TOTAL_LENGTH, (uint32_t)(b->len - o));
	b->nobjects++;
	b->obj_start = SIZE_MAX;
}

unsigned char *mw_pdbb_finish(struct mw_pdbb *b, size_t *len)
{
	unsigned char *out;

	put32(b, MW_PDB_TOTAL_LENGTH, (uint32_t)b->len);
	put32(b, MW_PDB_NUM_OBJECTS, b->nobjects);
	free(b->counters);
	free(b->offsets);
	out = b->buf;
	*len = b->len;
	memset(b, 0, sizeof(*b));
	return out;
}

unsigned char *mw_pdbb_titles(const struct mw_pdbb_title *t, size_t n, size_t *len)
{
	struct mw_pdbb b;
	size_t i;
	char num[16];
	unsigned char z[2] = { 0, 0 };

	memset(&b, 0, sizeof(b));
	for (i = 0; i < n; i++) {
		snprintf(num, sizeof(num), "%u", (unsigned)t[i].index);
		put_utf16(&b, b.len, num);
		put_utf16(&b, b.len, t[i].name);
	}
	put(&b, b.len, z, 2);
	*len = b.len;
	return b.buf;
}

/* --- the sample system ----------------------------------------------------- */

static const struct mw_pdbb_title sample_titles[] = {
	{ 1, "1847" }, { 2, "System" }, { 4, "Memory" }, { 6, "% Processor Time" },
	{ 24, "Available Bytes" }, { 26, "Committed Bytes" }, { 28, "Page Faults/sec" },
	{ 56, "Pool Paged Bytes" }, { 58, "Pool Nonpaged Bytes" },
	{ 142, "% User Time" }, { 144, "% Privileged Time" },
	{ 146, "Context Switches/sec" }, { 148, "Interrupts/sec" },
	{ 172, "Virtual Bytes Peak" }, { 174, "Virtual Bytes" },
	{ 178, "Working Set Peak" }, { 180, "Working Set" },
	{ 182, "Page File Bytes Peak" }, { 184, "Page File Bytes" },
	{ 186, "Private Bytes" }, { 198, "Current Disk Queue Length" },
	{ 210, "Avg. Disk sec/Transfer" }, { 212, "Disk Transfers/sec" },
	{ 230, "Process" }, { 232, "Thread" }, { 236, "LogicalDisk" }, { 238, "Processor" },
	{ 408, "% Free Space" }, { 680, "Thread Count" }, { 682, "Priority Base" },
	{ 684, "Elapsed Time" }, { 700, "Paging File" }, { 702, "% Usage" },
	{ 784, "ID Process" }, { 804, "ID Thread" }, { 952, "Handle Count" },
	{ 1400, "Avg. Disk Queue Length" }, { 1406, "% Committed Bytes In Use" },
	{ 1410, "Creating Process ID" }, { 1412, "IO Read Operations/sec" },
	{ 1414, "IO Write Operations/sec" }, { 1416, "IO Data Operations/sec" },
	{ 1418, "IO Other Operations/sec" }, { 1420, "IO Read Bytes/sec" },
	{ 1422, "IO Write Bytes/sec" }, { 1424, "IO Data Bytes/sec" },
	{ 1426, "IO Other Bytes/sec" }, { 1478, "Working Set - Private" },
	{ 1482, "% Idle Time" }, { 1484, "Avg. Disk Bytes/Transfer" },
	{ 1486, "Disk Transfers Delta" },
	/* Same name, another index, in no object of the sample: path
	 * resolution must pick the counter the object actually has. */
	{ 3000, "Available Bytes" },
	{ 1847, "End Marker" },
};

unsigned char *mw_pdbb_sample_titles(size_t *len)
{
	return mw_pdbb_titles(sample_titles, MW_ARRAY_SIZE(sample_titles), len);
}

#define GiB (1024ULL * 1024 * 1024)
#define MiB (1024ULL * 1024)

static const struct mw_pdbb_counter memory_ctrs[] = {
	{ 24, MW_PERF_COUNTER_LARGE_RAWCOUNT }, { 26, MW_PERF_COUNTER_LARGE_RAWCOUNT },
	{ 28, MW_PERF_COUNTER_COUNTER }, { 1406, MW_PERF_RAW_FRACTION }, { 1407, MW_PERF_RAW_BASE },
};
static const struct mw_pdbb_counter paging_ctrs[] = {
	{ 702, MW_PERF_RAW_FRACTION }, { 703, MW_PERF_RAW_BASE },
};
static const struct mw_pdbb_counter cpu_ctrs[] = {
	{ 6, MW_PERF_100NSEC_TIMER_INV }, { 148, MW_PERF_COUNTER_COUNTER },
};
static const struct mw_pdbb_counter proc_ctrs[] = {
	{ 6, MW_PERF_100NSEC_TIMER }, { 142, MW_PERF_100NSEC_TIMER },
	{ 144, MW_PERF_100NSEC_TIMER }, { 172, MW_PERF_COUNTER_LARGE_RAWCOUNT },
	{ 174, MW_PERF_COUNTER_LARGE_RAWCOUNT }, { 28, MW_PERF_COUNTER_COUNTER },
	{ 178, MW_PERF_COUNTER_LARGE_RAWCOUNT }, { 180, MW_PERF_COUNTER_LARGE_RAWCOUNT },
	{ 182, MW_PERF_COUNTER_LARGE_RAWCOUNT }, { 184, MW_PERF_COUNTER_LARGE_RAWCOUNT },
	{ 186, MW_PERF_COUNTER_LARGE_RAWCOUNT }, { 680, MW_PERF_COUNTER_RAWCOUNT },
	{ 682, MW_PERF_COUNTER_RAWCOUNT }, { 684, MW_PERF_ELAPSED_TIME },
	{ 784, MW_PERF_COUNTER_RAWCOUNT }, { 1410, MW_PERF_COUNTER_RAWCOUNT },
	{ 56, MW_PERF_COUNTER_RAWCOUNT }, { 58, MW_PERF_COUNTER_RAWCOUNT },
	{ 952, MW_PERF_COUNTER_RAWCOUNT }, { 1412, MW_PERF_COUNTER_BULK_COUNT },
	{ 1414, MW_PERF_COUNTER_BULK_COUNT }, { 1416, MW_PERF_COUNTER_BULK_COUNT },
	{ 1418, MW_PERF_COUNTER_BULK_COUNT }, { 1420, MW_PERF_COUNTER_BULK_COUNT },
	{ 1422, MW_PERF_COUNTER_BULK_COUNT }, { 1424, MW_PERF_COUNTER_BULK_COUNT },
	{ 1426, MW_PERF_COUNTER_BULK_COUNT }, { 1478, MW_PERF_COUNTER_LARGE_RAWCOUNT },
};
static const struct mw_pdbb_counter thread_ctrs[] = {
	{ 804, MW_PERF_COUNTER_RAWCOUNT }, { 784, MW_PERF_COUNTER_RAWCOUNT },
	{ 146, MW_PERF_COUNTER_COUNTER },
};
static const struct mw_pdbb_counter disk_ctrs[] = {
	{ 210, MW_PERF_AVERAGE_TIMER }, { 211, MW_PERF_AVERAGE_BASE },
	{ 1484, MW_PERF_AVERAGE_BULK }, { 1485, MW_PERF_AVERAGE_BASE },
	{ 408, MW_PERF_RAW_FRACTION }, { 409, MW_PERF_RAW_BASE },
	{ 198, MW_PERF_COUNTER_RAWCOUNT }, { 1400, MW_PERF_COUNTER_100NS_QUEUELEN_TYPE },
	{ 1482, MW_PERF_SAMPLE_FRACTION }, { 1483, MW_PERF_SAMPLE_BASE },
	{ 212, MW_PERF_COUNTER_COUNTER }, { 1486, MW_PERF_COUNTER_DELTA },
};

/* Process i's name: 0 Idle, 1 System, 2 and 3 svchost, last _Total. */
static void proc_name(size_t i, size_t nproc, char *buf, size_t size)
{
	if (i == nproc - 1)
		snprintf(buf, size, "_Total");
	else if (i == 0)
		snprintf(buf, size, "Idle");
	else if (i == 1)
		snprintf(buf, size, "System");
	else if (i == 2 || i == 3)
		snprintf(buf, size, "svchost");
	else
		snprintf(buf, size, "proc%zu", i);
}

unsigned char *mw_pdbb_sample_snapshot(int tick, size_t nproc, size_t *len)
{
	/* Two seconds between the snapshots in every time base. */
	const int64_t freq = 10000000, t = 1000000000LL + tick * 20000000LL;
	const int64_t t100 = 133000000000000000LL + tick * 20000000LL;
	const uint64_t k = (uint64_t)tick;
	struct mw_pdbb b;
	uint64_t v[32];
	size_t i;

	if (nproc < 5)
		nproc = 5;
	mw_pdbb_begin(&b, t, freq, t100, "TESTBOX");

	/* Memory: Available Bytes drops 1 MiB; 500 faults in 2 s = 250/s;
	 * 25 % committed. */
	mw_pdbb_object(&b, 4, memory_ctrs, MW_ARRAY_SIZE(memory_ctrs), 1, 0, 0);
	v[0] = 4 * GiB - k * MiB;
	v[1] = 8 * GiB;
	v[2] = 1000 + k * 500;
	v[3] = 2500;
	v[4] = 10000;
	mw_pdbb_values(&b, v);
	mw_pdbb_end_object(&b);

	/* Paging File: 25 % usage. */
	mw_pdbb_object(&b, 700, paging_ctrs, MW_ARRAY_SIZE(paging_ctrs), 0, 0, 0);
	v[0] = 300;
	v[1] = 1200;
	mw_pdbb_instance(&b, "\\??\\C:\\pagefile.sys", 0, 0, -1, v);
	mw_pdbb_instance(&b, "_Total", 0, 0, -1, v);
	mw_pdbb_end_object(&b);

	/* Processor: idle 75 %, 50 %, 62.5 % -> busy 25, 50, 37.5 %. */
	mw_pdbb_object(&b, 238, cpu_ctrs, MW_ARRAY_SIZE(cpu_ctrs), 0, 0, 0);
	v[0] = 5000000 + k * 15000000;
	v[1] = 100 + k * 2000;
	mw_pdbb_instance(&b, "0", 0, 0, -1, v);
	v[0] = 5000000 + k * 10000000;
	mw_pdbb_instance(&b, "1", 0, 0, -1, v);
	v[0] = 5000000 + k * 12500000;
	mw_pdbb_instance(&b, "_Total", 0, 0, -1, v);
	mw_pdbb_end_object(&b);

	/* Process i: CPU 10 % * (i % 3); private (i+1) MiB, + (i % 2) MiB;
	 * faults 10 * i per second; started i + 1 s before the first tick;
	 * pid 4 * i. */
	mw_pdbb_object(&b, 230, proc_ctrs, MW_ARRAY_SIZE(proc_ctrs), 0, t100, freq);
	for (i = 0; i < nproc; i++) {
		char name[32];
		size_t c;

		proc_name(i, nproc, name, sizeof(name));
		for (c = 0; c < MW_ARRAY_SIZE(proc_ctrs); c++)
			v[c] = (uint64_t)(i * 1000 + c) * 4096 + k * 8192;
		v[0] = i * 1000 + k * 2000000 * (i % 3);
		v[1] = v[0] / 2;
		v[2] = v[0] - v[1];
		v[5] = 100 * i + k * 20 * i;
		v[10] = (i + 1) * MiB + k * (i % 2) * MiB;
		v[11] = 2;
		v[12] = 8;
		v[13] = (uint64_t)(133000000000000000LL - (int64_t)(i + 1) * 10000000LL);
		v[14] = 4 * i;
		v[15] = 4;
		v[18] = 50 + i;
		mw_pdbb_instance(&b, name, 0, 0, -1, v);
	}
	mw_pdbb_end_object(&b);

	/* Thread: two threads in processes 2, 3, 4 (svchost, svchost, proc4);
	 * 100 context switches per second each. */
	mw_pdbb_object(&b, 232, thread_ctrs, MW_ARRAY_SIZE(thread_ctrs), 0, 0, 0);
	for (i = 2; i <= 4; i++) {
		for (size_t th = 0; th < 2; th++) {
			char name[8];

			snprintf(name, sizeof(name), "%zu", th);
			v[0] = 1000 + 10 * i + th;
			v[1] = 4 * i;
			v[2] = 7 + k * 200;
			mw_pdbb_instance(&b, name, 230, (uint32_t)i, -1, v);
		}
	}
	mw_pdbb_end_object(&b);

	/* LogicalDisk: 100 transfers in 2 s of 5 ms each, 4096 bytes each;
	 * 40 % free; queue 2.0; 50 % idle; 50 transfers/s; delta 100. */
	mw_pdbb_object(&b, 236, disk_ctrs, MW_ARRAY_SIZE(disk_ctrs), 0, 0, 0);
	for (i = 0; i < 2; i++) {
		v[0] = 777 + k * 5000000;	/* 0.5 s in PerfFreq ticks */
		v[1] = 10 + k * 100;
		v[2] = 4096 * 10 + k * 409600;
		v[3] = 10 + k * 100;
		v[4] = 40;
		v[5] = 100;
		v[6] = 3;
		v[7] = 123 + k * 40000000;
		v[8] = 5 + k * 30;
		v[9] = 5 + k * 60;
		v[10] = 10 + k * 100;
		v[11] = 10 + k * 100;
		mw_pdbb_instance(&b, i ? "_Total" : "C:", 0, 0, -1, v);
	}
	mw_pdbb_end_object(&b);
	return mw_pdbb_finish(&b, len);
}
