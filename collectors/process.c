/*
 * process.c - the process collector (portable part) and the pure parsers
 * behind both platforms' process tables.
 */
#include "process.h"
#include "core/watch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/collector.h"
#include "base/log.h"
#include "base/units.h"
#include "base/xalloc.h"

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
	unsigned long long f[20];
	const char *s;
	size_t n = 0, len;
	const char *end;

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
	/* Up to vsize only: this runs for every process every tick, and
	 * strtoull was a tenth of the reader's time. */
	while (n < 20 && *s) {
		unsigned long long v = 0;
		const char *d;

		while (*s == ' ')
			s++;
		if (!*s || *s == '\n')
			break;
		d = s + (*s == '-');	/* tpgid, priority, nice: may be negative */
		for (end = d; *end >= '0' && *end <= '9'; end++)
			v = v * 10 + (unsigned long long)(*end - '0');
		if (end == d || (*end && *end != ' ' && *end != '\n'))
			return mw_error(err, "stat: field %zu is not a number", n + 4);
		f[n++] = d == s ? v : 0 - v;
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
	uint64_t anon = 0, file = 0, shmem = 0, swap = 0, rss = 0, hwm = 0;
	bool has_anon, has_file, has_shmem;

	p->has_kinds = p->has_swap = p->has_private_ws = false;
	/* Kernel threads have no Vm* lines at all: their (empty) working set
	 * is 0; the figures by kind are absent. */
	if (status_kb(text, "VmRSS", &rss)) {
		if (!strstr(text, "Name:"))
			return mw_error(err, "status: no Name line");
		p->working_set_bytes = p->working_set_peak_bytes = p->private_bytes = 0;
		return 0;
	}
	status_kb(text, "VmHWM", &hwm);
	has_anon = !status_kb(text, "RssAnon", &anon);
	has_file = !status_kb(text, "RssFile", &file);
	has_shmem = !status_kb(text, "RssShmem", &shmem);
	p->has_swap = !status_kb(text, "VmSwap", &swap);
	p->working_set_bytes = rss;
	p->working_set_peak_bytes = hwm > rss ? hwm : rss;
	p->private_bytes = anon + swap;
	p->swap_bytes = swap;
	p->has_kinds = has_anon && has_file && has_shmem;
	if (p->has_kinds) {
		p->rss_anon_bytes = anon;
		p->rss_file_bytes = file;
		p->rss_shmem_bytes = shmem;
	}
	if (has_anon) {
		p->private_ws_bytes = anon;
		p->has_private_ws = true;
	}
	return 0;
}

int mw_proc_parse_statm(const char *text, uint64_t *size, uint64_t *resident,
			uint64_t *shared, struct mw_err *err)
{
	uint64_t v[3];
	const char *s = text;
	char *end;
	int i;

	for (i = 0; i < 3; i++) {
		while (*s == ' ')
			s++;
		if (*s < '0' || *s > '9')
			return mw_error(err, "statm: field %d is not a number", i + 1);
		v[i] = strtoull(s, &end, 10);
		s = end;
	}
	*size = v[0];
	*resident = v[1];
	*shared = v[2];
	return 0;
}

void mw_proc_apply_statm(struct mw_process_info *p, uint64_t resident, uint64_t shared)
{
	uint64_t anon = resident > shared ? resident - shared : 0;

	if (shared > resident)
		shared = resident;
	p->working_set_bytes = resident;
	if (p->working_set_peak_bytes < resident)
		p->working_set_peak_bytes = resident;
	p->private_bytes = anon + (p->has_swap ? p->swap_bytes : 0);
	if (p->has_private_ws)
		p->private_ws_bytes = anon;
	if (p->has_kinds) {
		if (p->rss_shmem_bytes > shared)
			p->rss_shmem_bytes = shared;
		p->rss_file_bytes = shared - p->rss_shmem_bytes;
		p->rss_anon_bytes = anon;
	}
}

int mw_proc_parse_smaps_rollup(const char *text, uint64_t *pss, uint64_t *uss,
			       struct mw_err *err)
{
	uint64_t pc = 0, pd = 0;

	if (status_kb(text, "Pss", pss))
		return mw_error(err, "smaps_rollup: no Pss line");
	status_kb(text, "Private_Clean", &pc);
	status_kb(text, "Private_Dirty", &pd);
	*uss = pc + pd;
	return 0;
}

static void copy_name(char *out, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

bool mw_proc_exe_name(const char *target, char *out, size_t size)
{
	static const char deleted[] = " (deleted)";
	const char *base, *end;

	if (!target || target[0] != '/' || !size)
		return false;
	end = target + strlen(target);
	if ((size_t)(end - target) > sizeof(deleted) - 1 &&
	    !strcmp(end - (sizeof(deleted) - 1), deleted))
		end -= sizeof(deleted) - 1;
	base = target;
	for (const char *c = target; c < end; c++)
		if (*c == '/')
			base = c + 1;
	if (base >= end)
		return false;
	copy_name(out, size, base, (size_t)(end - base));
	return true;
}

bool mw_proc_cmdline_name(const char *cmdline, size_t len, const char *comm, char *out,
			  size_t size)
{
	const char *base = cmdline, *end = cmdline;
	size_t clen = comm ? strlen(comm) : 0;

	if (!size)
		return false;
	while ((size_t)(end - cmdline) < len && *end)
		end++;
	for (const char *c = cmdline; c < end; c++)
		if (*c == '/')
			base = c + 1;
	if (end > base && clen && (size_t)(end - base) >= clen && !memcmp(base, comm, clen)) {
		copy_name(out, size, base, (size_t)(end - base));
		return true;
	}
	copy_name(out, size, comm ? comm : "", clen);
	return false;
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
			/* WorkingSetPrivateSize: a process with a working set has
			 * private pages (its stacks, its PEB); 0 beside a non-zero
			 * working set is a kernel that does not fill it (Wine). */
			p->private_ws_bytes = rd64(e + MW_SPI_PRIVATE_WS);
			p->has_private_ws = p->private_ws_bytes > 0 || p->working_set_bytes == 0;
			p->has_shareable_ws = p->has_private_ws &&
					      p->working_set_bytes >= p->private_ws_bytes;
			p->shareable_ws_bytes = p->has_shareable_ws ?
						p->working_set_bytes - p->private_ws_bytes : 0;
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
 *
 * PSS / USS (Linux): /proc/PID/smaps_rollup walks the page tables of the
 * process, far dearer than status, so it is read on a time budget: a
 * credit of pss_budget (a share of one core) times the wall time elapsed
 * accrues between ticks (at most one tick's worth is banked, the first
 * tick gets one interval's); reads go round-robin by pid from where the
 * last tick stopped, each process at most once per pss_interval, while
 * credit lasts.  A read costs its measured time (an overrun makes the
 * credit negative and is paid back by later ticks).  A process whose read
 * took longer than PSS_SLOW_NS is not read again for PSS_SLOW_PAUSE_NS.
 * A process whose resident set (statm's resident and shared) is what it
 * was at its last read is not read again until PSS_UNCHANGED_EVERY
 * intervals have passed since that read: its own pages are the same, so
 * its PSS and USS can move only by other processes mapping or unmapping
 * pages it shares (most processes of a machine sit still most of the time;
 * at 1,000 processes the reads were a tenth of the daemon's CPU).
 * Between reads the last figures are reported again.
 */
#define PSS_SLOW_NS 50000000LL		/* 50 ms */
#define PSS_SLOW_PAUSE_NS 600000000000LL	/* 10 min */
#define PSS_UNCHANGED_EVERY 5	/* intervals between reads of a still process */

/* [collector.process] keys, filled from process_options below. */
struct process_options {
	int64_t min_age_ms;
	double pss_budget;	/* share of one core */
	int64_t pss_interval_ms;
	int64_t status_interval_ms;
	int64_t handles_interval_ms;
	int64_t stat_interval_ms;
};

#define POFF(f) offsetof(struct process_options, f)
#define PROCESS_MAX_MS (100 * 365 * 86400000LL)

static const struct mw_option process_options[] = {
	{ MW_OPTION(NULL, "min_age", MW_OPT_DURATION, POFF(min_age_ms), "5s", 0, PROCESS_MAX_MS,
	  "A process gets series once it has run this long (0: at once); younger ones\n"
	  "(but memwatchd itself) are skipped and counted\n"
	  "(memwatch_collector_young_skipped_total).") },
	{ MW_OPTION(NULL, "pss_budget", MW_OPT_SHARE, POFF(pss_budget), "5%", 0, 0,
	  "Linux: share of one core spent reading PSS/USS (smaps_rollup), spread over\n"
	  "ticks round-robin (0: never read them); a process whose read took over 50 ms\n"
	  "is left out for 10 minutes.") },
	{ MW_OPTION(NULL, "pss_interval", MW_OPT_DURATION, POFF(pss_interval_ms),
		    "60s", 0, PROCESS_MAX_MS,
	  "Linux: each process's PSS/USS is read at most this often; one whose resident\n"
	  "memory has not moved since its last read is read again only after 5 times this.") },
	{ MW_OPTION(NULL, "status_interval", MW_OPT_DURATION, POFF(status_interval_ms), "10s", 0,
	  PROCESS_MAX_MS,
	  "Linux: each process's /proc/PID/status (peak working set, swap, the file/shmem\n"
	  "split of resident memory) is read this often, spread over the ticks, and where\n"
	  "statm has not moved since its last read only every sixth time; the figures are\n"
	  "carried forward in between (0: every tick).") },
	{ MW_OPTION(NULL, "handles_interval", MW_OPT_DURATION, POFF(handles_interval_ms), "30s", 0,
	  PROCESS_MAX_MS,
	  "Linux: each process's open descriptors (memwatch_process_handles) are counted\n"
	  "this often, spread over the ticks (0: every tick).") },
	{ MW_OPTION(NULL, "stat_interval", MW_OPT_DURATION, POFF(stat_interval_ms),
		    "10s", 0, PROCESS_MAX_MS,
	  "Linux: /proc/PID/stat (page faults, threads) is read in every tick where the\n"
	  "process's statm (virtual size, resident, shared) changed, and at least this\n"
	  "often where it did not, its figures carried forward in between (0: every tick).") },
};

struct pss_entry {
	uint32_t pid;
	int64_t start_ms;
	int64_t due_ns;		/* monotonic: next read not before */
	int64_t read_ns;	/* monotonic: its last read */
	uint64_t ws_at_read, anon_at_read;	/* resident set as of that read */
	uint64_t pss, uss;
	bool has;
	size_t ti;		/* index in this tick's table */
};

/* One process's series keys (see keys_build), by pid. */
struct key_entry {
	uint32_t pid;
	int64_t start_ms;
	char *block;		/* owns the strings below */
	const char *pid_s, *started_s, *name;
	const char *tail, *kind_tail[3];
	size_t tail_len, kind_len[3];
	uint64_t tail_id;	/* of tail; tail_id + 1 + i of kind_tail[i] */
};

struct process_state {
	struct mw_process_reader *reader;
	struct mw_process_table table;
	int64_t min_age_ms;
	uint64_t skipped_total;	/* process samples skipped: younger than min_age */
	/* PSS budget */
	bool pss_on;
	double pss_share;	/* of one core */
	int64_t pss_interval_ns, tick_ns;
	int64_t credit_ns, last_ns;
	uint32_t cursor;	/* last pid read */
	struct pss_entry *pss, *pss_next;
	size_t npss, pss_cap, pss_next_cap;
	struct mw_process_pss_stats last;
	/* series keys, formatted once per process identity */
	struct key_entry *keys, *keys_next;
	size_t nkeys, keys_cap, nkeys_next, keys_next_cap;
};

extern const struct mw_collector mw_collector_process;

static int process_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct process_options own;
	const struct process_options *o = mw_collector_options(env, &mw_collector_process, &own);
	struct process_state *st;
	int64_t tick_ms = 0;
	uint64_t a, b;

	if (env && env->self)
		tick_ms = env->self->interval_ms;
	if (!tick_ms && env && env->config)
		tick_ms = env->config->interval_ms;
	if (tick_ms <= 0)
		tick_ms = 10000;
	st = mw_xcalloc(1, sizeof(*st));
	st->min_age_ms = o->min_age_ms;
	st->pss_share = o->pss_budget;
	st->pss_interval_ns = o->pss_interval_ms * 1000000LL;
	st->tick_ns = tick_ms * 1000000LL;
	st->reader = mw_process_reader_new();
	mw_process_reader_set_cadence(st->reader, o->status_interval_ms, o->handles_interval_ms,
				      o->stat_interval_ms);
	/* A first read proves the platform call works here. */
	if (mw_process_table_read(st->reader, &st->table, why)) {
		mw_process_reader_free(st->reader);
		mw_process_table_release(&st->table);
		free(st);
		return MW_COLLECTOR_UNSUPPORTED;
	}
	/* PSS where smaps_rollup exists (Linux 4.14+) and a budget is set */
	st->pss_on = o->pss_budget > 0 &&
		     mw_process_pss_read(st->reader, mw_self_pid(), &a, &b) == 0;
	*state = st;
	return MW_COLLECTOR_OK;
}

static int pss_cmp(const void *x, const void *y)
{
	const struct pss_entry *a = x, *b = y;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static const struct pss_entry *pss_find(const struct pss_entry *v, size_t n, uint32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid < pid)
			lo = mid + 1;
		else if (v[mid].pid > pid)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}

/* This tick's PSS reads (see above); fills the table's pss fields. */
/* Due, but its figures still hold: read before, resident set as it was
 * then, and not PSS_UNCHANGED_EVERY intervals ago. */
static bool pss_still_current(const struct pss_entry *e, const struct mw_process_info *p,
			      int64_t now_ns, int64_t interval_ns)
{
	return e->has && p->working_set_bytes == e->ws_at_read &&
	       p->rss_anon_bytes == e->anon_at_read &&
	       now_ns - e->read_ns < PSS_UNCHANGED_EVERY * interval_ns;
}

static void pss_tick(struct process_state *st, int64_t now_ns)
{
	struct mw_process_pss_stats *o = &st->last;
	struct pss_entry *v;
	size_t i, n, start = 0, k;
	int64_t elapsed = st->last_ns ? now_ns - st->last_ns : st->tick_ns;
	int64_t cap = (int64_t)(st->pss_share * (double)(elapsed > st->tick_ns ? elapsed : st->tick_ns));

	memset(o, 0, sizeof(*o));
	st->last_ns = now_ns;
	st->credit_ns += (int64_t)(st->pss_share * (double)elapsed);
	if (st->credit_ns > cap)
		st->credit_ns = cap;
	/* carry each process's entry over (same pid and start), in pid order */
	MW_GROW(st->pss_next, st->pss_next_cap, st->table.nprocs + 1);
	v = st->pss_next;
	for (i = 0, n = 0; i < st->table.nprocs; i++) {
		const struct mw_process_info *p = &st->table.procs[i];
		const struct pss_entry *old = pss_find(st->pss, st->npss, p->pid);

		if (old && old->start_ms == p->start_ms) {
			v[n] = *old;
		} else {
			memset(&v[n], 0, sizeof(v[n]));
			v[n].pid = p->pid;
			v[n].start_ms = p->start_ms;
		}
		v[n++].ti = i;
	}
	for (i = 1; i < n && v[i - 1].pid < v[i].pid; i++)
		;
	if (i < n)
		qsort(v, n, sizeof(*v), pss_cmp);
	while (start < n && v[start].pid <= st->cursor)
		start++;
	for (k = 0; k < n; k++) {
		struct pss_entry *e = &v[(start + k) % n];
		int64_t t0, took;

		if (e->due_ns > now_ns)
			continue;
		if (pss_still_current(e, &st->table.procs[e->ti], now_ns, st->pss_interval_ns)) {
			e->due_ns = now_ns + st->pss_interval_ns;
			o->unchanged++;
			continue;
		}
		if (st->credit_ns <= 0) {
			o->waiting++;
			continue;
		}
		t0 = mw_clock_mono_ns();
		e->has = mw_process_pss_read(st->reader, e->pid, &e->pss, &e->uss) == 0;
		took = mw_clock_mono_ns() - t0;
		e->read_ns = now_ns;
		e->ws_at_read = st->table.procs[e->ti].working_set_bytes;
		e->anon_at_read = st->table.procs[e->ti].rss_anon_bytes;
		st->credit_ns -= took;
		o->read++;
		o->spent_ns += took;
		st->cursor = e->pid;
		e->due_ns = now_ns + (took > PSS_SLOW_NS ? PSS_SLOW_PAUSE_NS : st->pss_interval_ns);
		if (took > PSS_SLOW_NS)
			o->slow++;
	}
	for (i = 0; i < n; i++) {
		struct mw_process_info *p = &st->table.procs[v[i].ti];

		if (v[i].due_ns - now_ns > st->pss_interval_ns)
			o->paused++;
		p->has_pss = v[i].has;
		p->pss_bytes = v[i].pss;
		p->uss_bytes = v[i].uss;
		o->known += v[i].has;
	}
	st->pss_next = st->pss;
	st->pss = v;
	i = st->pss_cap;
	st->pss_cap = st->pss_next_cap;
	st->pss_next_cap = i;
	st->npss = n;
}

/* --- series keys, formatted once per process ---------------------------- */

static const char *const kind_names[3] = { "anon", "file", "shmem" };

/* Build k's strings for process p: "pid", "started", the name, the key
 * tail `{pid="..",process="..",started=".."}` and the three with kind. */
static void keys_build(struct key_entry *k, const struct mw_process_info *p)
{
	char pid_s[16], started_s[24];
	struct mw_label l[4] = {
		{ "kind", NULL }, { "pid", pid_s }, { "process", p->name }, { "started", started_s },
	};
	size_t len[4], total = 0, i;
	char *at;

	snprintf(pid_s, sizeof(pid_s), "%" PRIu32, p->pid);
	snprintf(started_s, sizeof(started_s), "%" PRId64, p->start_ms / 1000);
	len[0] = strlen(pid_s);
	len[1] = strlen(started_s);
	len[2] = strlen(p->name);
	len[3] = mw_series_key_format(NULL, 0, "", l + 1, 3);
	for (i = 0; i < 4; i++)
		total += len[i] + 1;
	{	/* the kind tails differ only in the kind's length */
		size_t kl[3];

		for (i = 0; i < 3; i++) {
			l[0].value = kind_names[i];
			kl[i] = mw_series_key_format(NULL, 0, "", l, 4);
			total += kl[i] + 1;
		}
		free(k->block);
		k->block = at = mw_xmalloc(total);
		k->pid_s = at;
		memcpy(at, pid_s, len[0] + 1);
		at += len[0] + 1;
		k->started_s = at;
		memcpy(at, started_s, len[1] + 1);
		at += len[1] + 1;
		k->name = at;
		memcpy(at, p->name, len[2] + 1);
		at += len[2] + 1;
		k->tail = at;
		k->tail_len = len[3];
		mw_series_key_format(at, len[3] + 1, "", l + 1, 3);
		at += len[3] + 1;
		for (i = 0; i < 3; i++) {
			l[0].value = kind_names[i];
			k->kind_tail[i] = at;
			k->kind_len[i] = kl[i];
			mw_series_key_format(at, kl[i] + 1, "", l, 4);
			at += kl[i] + 1;
		}
	}
	k->pid = p->pid;
	k->start_ms = p->start_ms;
	k->tail_id = mw_batch_tail_ids(4);
}

static int key_cmp(const void *x, const void *y)
{
	const struct key_entry *a = x, *b = y;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static struct key_entry *key_find(struct key_entry *v, size_t n, uint32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid < pid)
			lo = mid + 1;
		else if (v[mid].pid > pid)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}

/* p's keys: last tick's if pid, start and name are the same, else new. */
static struct key_entry *keys_of(struct process_state *st, const struct mw_process_info *p)
{
	struct key_entry *k = &st->keys_next[st->nkeys_next++];
	struct key_entry *old = key_find(st->keys, st->nkeys, p->pid);

	memset(k, 0, sizeof(*k));
	if (old && old->block && old->start_ms == p->start_ms && !strcmp(old->name, p->name)) {
		*k = *old;
		old->block = NULL;	/* moved */
		return k;
	}
	keys_build(k, p);
	return k;
}

/* This tick's keys become the cache; the rest are freed. */
static void keys_done(struct process_state *st)
{
	struct key_entry *tmp;
	size_t i, cap;

	for (i = 0; i < st->nkeys; i++)
		free(st->keys[i].block);
	for (i = 1; i < st->nkeys_next && st->keys_next[i - 1].pid < st->keys_next[i].pid; i++)
		;
	if (i < st->nkeys_next)
		qsort(st->keys_next, st->nkeys_next, sizeof(*st->keys_next), key_cmp);
	tmp = st->keys;
	cap = st->keys_cap;
	st->keys = st->keys_next;
	st->nkeys = st->nkeys_next;
	st->keys_cap = st->keys_next_cap;
	st->keys_next = tmp;
	st->keys_next_cap = cap;
	st->nkeys_next = 0;
}

/* One process's samples: labels copied once into the batch, keys from
 * the cache, nothing formatted. */
static void emit(struct mw_batch *b, const struct key_entry *k, const struct mw_process_info *p,
		 int64_t ts)
{
	struct mw_label *l = mw_batch_alloc(b, 15 * sizeof(*l)), *kl = l + 3;
	size_t i;

#define ADD(metric, v) mw_batch_add_keyed(b, metric, l, 3, k->tail, k->tail_len, k->tail_id, \
					  (double)(v), ts)
	l[0].name = "pid";
	l[0].value = mw_batch_strdup(b, k->pid_s);
	l[1].name = "process";
	l[1].value = mw_batch_strdup(b, k->name);
	l[2].name = "started";
	l[2].value = mw_batch_strdup(b, k->started_s);
	ADD("memwatch_process_working_set_bytes", p->working_set_bytes);
	ADD("memwatch_process_working_set_peak_bytes", p->working_set_peak_bytes);
	ADD("memwatch_process_private_bytes", p->private_bytes);
	ADD("memwatch_process_virtual_bytes", p->virtual_bytes);
	if (p->has_handles)
		ADD("memwatch_process_handles", p->handles);
	ADD("memwatch_process_threads", p->threads);
	ADD("memwatch_process_page_faults_total", p->page_faults);
	if (p->has_private_ws)
		ADD("memwatch_process_private_working_set_bytes", p->private_ws_bytes);
	if (p->has_shareable_ws)
		ADD("memwatch_process_shareable_working_set_bytes", p->shareable_ws_bytes);
	if (p->has_kinds) {
		const uint64_t v[3] = { p->rss_anon_bytes, p->rss_file_bytes, p->rss_shmem_bytes };

		for (i = 0; i < 3; i++) {
			struct mw_label *x = kl + 4 * i;

			x[0].name = "kind";
			x[0].value = kind_names[i];
			x[1] = l[0];
			x[2] = l[1];
			x[3] = l[2];
			mw_batch_add_keyed(b, "memwatch_process_resident_bytes", x, 4, k->kind_tail[i],
					   k->kind_len[i], k->tail_id + 1 + i, (double)v[i], ts);
		}
	}
	if (p->has_swap)
		ADD("memwatch_process_swap_bytes", p->swap_bytes);
	if (p->has_pss) {
		ADD("memwatch_process_pss_bytes", p->pss_bytes);
		ADD("memwatch_process_uss_bytes", p->uss_bytes);
	}
#undef ADD
}

static int emit_table(struct process_state *st, struct mw_sample_ctx *ctx);

int mw_process_sample_at(void *state, struct mw_sample_ctx *ctx, int64_t now_ns)
{
	struct process_state *st = state;

	if (mw_process_table_read_at(st->reader, &st->table, now_ns, &ctx->err))
		return MW_COLLECTOR_ERROR;
	if (st->pss_on)
		pss_tick(st, now_ns);
	return emit_table(st, ctx);
}

int mw_process_sample_table(void *state, struct mw_sample_ctx *ctx,
			    const struct mw_process_table *t)
{
	struct process_state *st = state;

	st->table.nprocs = 0;
	MW_GROW(st->table.procs, st->table.cap, t->nprocs + 1);
	memcpy(st->table.procs, t->procs, t->nprocs * sizeof(*t->procs));
	st->table.nprocs = t->nprocs;
	st->table.inaccessible = t->inaccessible;
	return emit_table(st, ctx);
}

/* The samples of st->table. */
static int emit_table(struct process_state *st, struct mw_sample_ctx *ctx)
{
	uint32_t self = mw_self_pid();
	uint64_t skipped = 0;
	size_t i, len = 0;

	MW_GROW(st->keys_next, st->keys_next_cap, st->table.nprocs + 1);
	st->nkeys_next = 0;
	for (i = 0; i < st->table.nprocs; i++) {
		const struct mw_process_info *p = &st->table.procs[i];
		int64_t ts = ctx->ts_ms;

		/* a start time of 0 is unknown: never skipped; nor is memwatch */
		if (st->min_age_ms > 0 && p->start_ms > 0 && ts - p->start_ms < st->min_age_ms &&
		    p->pid != self) {
			skipped++;
			continue;
		}
		emit(ctx->batch, keys_of(st, p), p, ts);
	}
	keys_done(st);
	ctx->inaccessible = st->table.inaccessible;
	st->skipped_total += skipped;
	{
		struct mw_label l[1] = { { "collector", "process" } };

		mw_batch_add(ctx->batch, "memwatch_collector_young_skipped_total", l, 1,
			     (double)st->skipped_total, ctx->ts_ms);
	}
	ctx->mode[0] = '\0';
	if (st->pss_on)
		len = (size_t)snprintf(ctx->mode, sizeof(ctx->mode),
				       "pss %g%%: %zu read %.1f ms, %zu unchanged, %zu waiting, "
				       "%zu slow", st->pss_share * 100, st->last.read,
				       (double)st->last.spent_ns / 1e6, st->last.unchanged,
				       st->last.waiting, st->last.paused);
	if (st->min_age_ms > 0 && len + 2 < sizeof(ctx->mode))
		snprintf(ctx->mode + len, sizeof(ctx->mode) - len, "%smin_age %llds: %llu young "
			 "skipped", len ? "; " : "", (long long)st->min_age_ms / 1000,
			 (unsigned long long)skipped);
	return MW_COLLECTOR_OK;
}

static int process_sample(void *state, struct mw_sample_ctx *ctx)
{
	return mw_process_sample_at(state, ctx, mw_clock_mono_ns());
}

static void process_fini(void *state)
{
	struct process_state *st = state;

	if (!st)
		return;
	mw_process_reader_free(st->reader);
	mw_process_table_release(&st->table);
	free(st->pss);
	free(st->pss_next);
	for (size_t i = 0; i < st->nkeys; i++)
		free(st->keys[i].block);
	free(st->keys);
	free(st->keys_next);
	free(st);
}

const struct mw_collector mw_collector_process = {
	.name = "process",
	.summary = "Every process every tick: working set (and peak), private working set,\n"
		   "private bytes (commit charge), virtual size, handles, threads, page faults;\n"
		   "Linux: resident bytes by kind (anon, file, shmem), swap, and PSS/USS on a\n"
		   "time budget.",
	.default_interval_ms = 0,
	.default_enabled = true,
	.options = process_options,
	.noptions = MW_ARRAY_SIZE(process_options),
	.options_size = sizeof(struct process_options),
	.init = process_init,
	.sample = process_sample,
	.fini = process_fini,
};
