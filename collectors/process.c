/*
 * process.c - the process collector (portable part) and the pure parsers
 * behind both platforms' process tables.
 */
#include "process.h"
#include "watch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/collector.h"
#include "daemon/log.h"
#include "daemon/units.h"
#include "daemon/xalloc.h"

void mw_process_table_release(struct mw_process_table *t)
{
	free(t->procs);
	memset(t, 0, sizeof(*t));
}

struct mw_process_info *mw_process_table_add(struct mw_process_table *t)
{
	struct mw_process_info *p;

	MW_GROW(t->procs, t->cap, t->nprocs + 1);
	p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	return p;
}

/* --- /proc parsers ------------------------------------------------------ */

int mw_proc_parse_stat(const char *text, struct mw_process_info *p,
		       uint64_t *start_ticks, struct mw_err *err)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long f[64];
	const char *s;
	size_t n = 0, len;
	char *end;

	/* comm may hold spaces and parentheses: it runs from the first '('
	 * to the last ')'. */
	if (!open || !close || close < open)
		return mw_error(err, "stat: no '(comm)' field");
	p->pid = (uint32_t)strtoul(text, NULL, 10);
	len = (size_t)(close - open - 1);
	if (len >= sizeof(p->name))
		len = sizeof(p->name) - 1;
	memcpy(p->name, open + 1, len);
	p->name[len] = '\0';
	/* Fields after comm: state(3) ppid(4) ... minflt(10) majflt(12)
	 * num_threads(20) starttime(22) vsize(23).  f[0] is field 4. */
	s = close + 2;
	if (*(close + 1) != ' ' || !*s)
		return mw_error(err, "stat: truncated after comm");
	s++;	/* the state letter */
	while (n < MW_ARRAY_SIZE(f) && *s) {
		while (*s == ' ')
			s++;
		if (!*s || *s == '\n')
			break;
		f[n] = strtoull(s, &end, 10);
		if (end == s)
			return mw_error(err, "stat: field %zu is not a number", n + 4);
		n++;
		s = end;
	}
	if (n < 20)
		return mw_error(err, "stat: only %zu fields after comm", n);
	p->ppid = (uint32_t)f[0];
	p->page_faults = f[6] + f[8];
	p->threads = (uint32_t)f[16];
	*start_ticks = f[18];
	p->virtual_bytes = f[19];
	return 0;
}

static int status_kb(const char *text, const char *key, uint64_t *out)
{
	const char *p = text;
	size_t klen = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			*out = strtoull(p + klen + 1, NULL, 10) * 1024ULL;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int mw_proc_parse_status(const char *text, struct mw_process_info *p, struct mw_err *err)
{
	uint64_t anon = 0, swap = 0, rss = 0, hwm = 0;

	/* Kernel threads have no Vm* lines at all: everything stays 0. */
	if (status_kb(text, "VmRSS", &rss)) {
		if (!strstr(text, "Name:"))
			return mw_error(err, "status: no Name line");
		p->working_set_bytes = p->working_set_peak_bytes = p->private_bytes = 0;
		return 0;
	}
	status_kb(text, "VmHWM", &hwm);
	status_kb(text, "RssAnon", &anon);
	status_kb(text, "VmSwap", &swap);
	p->working_set_bytes = rss;
	p->working_set_peak_bytes = hwm > rss ? hwm : rss;
	p->private_bytes = anon + swap;
	return 0;
}

/* --- Windows SYSTEM_PROCESS_INFORMATION --------------------------------- */

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static size_t put_utf8(char *out, size_t pos, size_t size, uint32_t cp)
{
	unsigned char b[4];
	size_t n, i;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xC0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xF0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[3] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	if (pos + n >= size)
		return pos;	/* no room: never split a character */
	for (i = 0; i < n; i++)
		out[pos + i] = (char)b[i];
	return pos + n;
}

void mw_utf16le_to_utf8(const unsigned char *in, size_t n, char *out, size_t out_size)
{
	size_t i, pos = 0;

	if (!out_size)
		return;
	for (i = 0; i < n; i++) {
		uint32_t cp = rd16(in + 2 * i);

		if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n) {
			uint32_t lo = rd16(in + 2 * (i + 1));
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			} else {
				cp = 0xFFFD;
			}
		} else if (cp >= 0xD800 && cp <= 0xDFFF) {
			cp = 0xFFFD;
		}
		if (cp == 0)
			break;
		pos = put_utf8(out, pos, out_size, cp);
	}
	out[pos] = '\0';
}

int64_t mw_filetime_to_unix_ms(uint64_t ft)
{
	if (!ft)
		return 0;
	return ((int64_t)ft - 116444736000000000LL) / 10000;
}

int mw_spi_parse(const unsigned char *buf, size_t len, uint64_t buf_addr,
		 struct mw_process_table *t, struct mw_err *err)
{
	size_t off = 0;
	size_t count = 0;

	t->nprocs = 0;
	for (;;) {
		const unsigned char *e = buf + off;
		struct mw_process_info *p;
		uint32_t next, name_len;
		uint64_t name_ptr, pid;

		if (len < MW_SPI_SIZE || off > len - MW_SPI_SIZE)
			return mw_error(err, "process entry %zu at offset %zu runs past the "
					"%zu-byte buffer", count, off, len);
		next = rd32(e + MW_SPI_NEXT);
		pid = rd64(e + MW_SPI_PID);
		if (pid > UINT32_MAX)
			return mw_error(err, "process entry %zu has an impossible pid %" PRIu64,
					count, pid);
		/* PID 0 entries without threads are ghosts, not the idle process. */
		if (pid != 0 || rd32(e + MW_SPI_THREADS) != 0) {
			p = mw_process_table_add(t);
			p->pid = (uint32_t)pid;
			p->ppid = (uint32_t)rd64(e + MW_SPI_PPID);
			p->threads = rd32(e + MW_SPI_THREADS);
			p->start_ms = mw_filetime_to_unix_ms(rd64(e + MW_SPI_CREATE_TIME));
			p->handles = rd32(e + MW_SPI_HANDLES);
			p->has_handles = true;
			p->virtual_bytes = rd64(e + MW_SPI_VIRTUAL);
			p->page_faults = rd32(e + MW_SPI_PAGE_FAULTS);
			p->working_set_peak_bytes = rd64(e + MW_SPI_PEAK_WS);
			p->working_set_bytes = rd64(e + MW_SPI_WS);
			p->private_bytes = rd64(e + MW_SPI_PAGEFILE);
			name_len = rd16(e + MW_SPI_NAME_LEN);
			name_ptr = rd64(e + MW_SPI_NAME_BUF);
			if (name_len == 0 || name_ptr == 0) {
				snprintf(p->name, sizeof(p->name), "%s",
					 pid == 0 ? "Idle" : pid == 4 ? "System" : "");
			} else {
				uint64_t name_off = name_ptr - buf_addr;

				if (name_ptr < buf_addr || name_off > len || name_len > len - name_off ||
				    (name_len & 1))
					return mw_error(err, "process %" PRIu64 ": image name (%u bytes at "
							"0x%" PRIx64 ") lies outside the buffer",
							pid, name_len, name_ptr);
				mw_utf16le_to_utf8(buf + name_off, name_len / 2, p->name,
						   sizeof(p->name));
			}
		}
		count++;
		if (next == 0)
			break;
		if (next < MW_SPI_SIZE)
			return mw_error(err, "process entry %zu: next offset %u is shorter than an "
					"entry", count - 1, next);
		off += next;
	}
	return 0;
}

/* --- the collector ------------------------------------------------------ */

/*
 * min_age: a process gets series only once it has run this long, so the
 * short-lived ones (compilers, shells a build agent starts by the
 * thousand) do not each leave a set of series behind; what is skipped is
 * counted (the status line and memwatch_collector_young_skipped_total).
 */
#define PROCESS_MIN_AGE_DEFAULT_MS 5000

static const char *const process_options[] = { "min_age", NULL };
static const char *const process_option_docs[] = {
	"5s ; a process gets series once it has run this long (0: at once); younger "
	"ones (but memwatchd itself) are skipped and counted "
	"(memwatch_collector_young_skipped_total)",
	NULL,
};

struct process_state {
	struct mw_process_reader *reader;
	struct mw_process_table table;
	int64_t min_age_ms;
	uint64_t skipped_total;	/* process samples skipped: younger than min_age */
};

static int process_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	const char *min_age = env && env->self ? mw_config_extra(env->self, "min_age") : NULL;
	struct process_state *st;
	int64_t ms = PROCESS_MIN_AGE_DEFAULT_MS;

	if (min_age && !strcmp(min_age, "0"))
		ms = 0;
	else if (min_age && mw_parse_duration_ms(min_age, &ms, why)) {
		mw_error_prefix(why, "min_age");
		return MW_COLLECTOR_ERROR;
	}
	st = mw_xcalloc(1, sizeof(*st));
	st->min_age_ms = ms;
	st->reader = mw_process_reader_new();
	/* A first read proves the platform call works here. */
	if (mw_process_table_read(st->reader, &st->table, why)) {
		mw_process_reader_free(st->reader);
		mw_process_table_release(&st->table);
		free(st);
		return MW_COLLECTOR_UNSUPPORTED;
	}
	*state = st;
	return MW_COLLECTOR_OK;
}

static int process_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct process_state *st = state;
	uint32_t self = mw_self_pid();
	uint64_t skipped = 0;
	size_t i;

	if (mw_process_table_read(st->reader, &st->table, &ctx->err))
		return MW_COLLECTOR_ERROR;
	for (i = 0; i < st->table.nprocs; i++) {
		const struct mw_process_info *p = &st->table.procs[i];
		char pid[16], started[24];
		struct mw_label labels[3] = {
			{ "process", p->name }, { "pid", pid }, { "started", started },
		};
		struct mw_batch *b = ctx->batch;
		int64_t ts = ctx->ts_ms;

		/* a start time of 0 is unknown: never skipped; nor is memwatch */
		if (st->min_age_ms > 0 && p->start_ms > 0 && ts - p->start_ms < st->min_age_ms &&
		    p->pid != self) {
			skipped++;
			continue;
		}
		snprintf(pid, sizeof(pid), "%" PRIu32, p->pid);
		snprintf(started, sizeof(started), "%" PRId64, p->start_ms / 1000);
		mw_batch_add(b, "memwatch_process_working_set_bytes", labels, 3,
			     (double)p->working_set_bytes, ts);
		mw_batch_add(b, "memwatch_process_working_set_peak_bytes", labels, 3,
			     (double)p->working_set_peak_bytes, ts);
		mw_batch_add(b, "memwatch_process_private_bytes", labels, 3,
			     (double)p->private_bytes, ts);
		mw_batch_add(b, "memwatch_process_virtual_bytes", labels, 3,
			     (double)p->virtual_bytes, ts);
		if (p->has_handles)
			mw_batch_add(b, "memwatch_process_handles", labels, 3,
				     (double)p->handles, ts);
		mw_batch_add(b, "memwatch_process_threads", labels, 3, (double)p->threads, ts);
		mw_batch_add(b, "memwatch_process_page_faults_total", labels, 3,
			     (double)p->page_faults, ts);
	}
	ctx->inaccessible = st->table.inaccessible;
	st->skipped_total += skipped;
	{
		struct mw_label l[1] = { { "collector", "process" } };

		mw_batch_add(ctx->batch, "memwatch_collector_young_skipped_total", l, 1,
			     (double)st->skipped_total, ctx->ts_ms);
	}
	if (st->min_age_ms > 0)
		snprintf(ctx->mode, sizeof(ctx->mode), "min_age %lld ms: %llu younger skipped "
			 "(%llu in all)", (long long)st->min_age_ms, (unsigned long long)skipped,
			 (unsigned long long)st->skipped_total);
	return MW_COLLECTOR_OK;
}

static void process_fini(void *state)
{
	struct process_state *st = state;

	if (!st)
		return;
	mw_process_reader_free(st->reader);
	mw_process_table_release(&st->table);
	free(st);
}

const struct mw_collector mw_collector_process = {
	.name = "process",
	.summary = "Every process every tick: working set (and peak), private bytes (commit\n"
		   "charge), virtual size, handles, threads, page faults.",
	.default_interval_ms = 0,
	.default_enabled = true,
	.options = process_options,
	.option_docs = process_option_docs,
	.init = process_init,
	.sample = process_sample,
	.fini = process_fini,
};
