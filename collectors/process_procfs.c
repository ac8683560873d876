/*
 * process_procfs.c - the pure parsers of Linux's /proc files behind the
 * process table (process.h): stat, status, statm, smaps_rollup, and the
 * image name from exe or cmdline.  Text in, figures out; no file is read
 * here (process_linux.c reads them), so tests run them on constructed
 * text on every platform (test_process_parse).
 */
#include "process.h"
#include "procfs_field.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A status or smaps_rollup figure: always in kB there. */
static int status_kb(const char *text, const char *key, uint64_t *out)
{
	uint64_t v;
	bool kb;

	if (mw_procfs_field(text, key, &v, &kb))
		return -1;
	*out = v * 1024ULL;
	return 0;
}

int mw_proc_parse_status(const char *text, struct mw_process_info *p, struct mw_err *err)
{
	uint64_t anon = 0, file = 0, shmem = 0, swap = 0, rss = 0, hwm = 0, data = 0, stk = 0;
	bool has_anon, has_file, has_shmem;

	p->has_kinds = p->has_swap = p->has_private_ws = p->has_data = false;
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
	/* statm's data is VmData + VmStk (the kernel's data_vm + stack_vm) */
	if (!status_kb(text, "VmData", &data) && !status_kb(text, "VmStk", &stk)) {
		p->data_bytes = data + stk;
		p->has_data = true;
	}
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
			uint64_t *shared, uint64_t *data, struct mw_err *err)
{
	uint64_t v[6] = { 0 };
	const char *s = text;
	char *end;
	int i;

	for (i = 0; i < 6; i++) {
		while (*s == ' ')
			s++;
		if (*s < '0' || *s > '9') {
			if (i < 3)
				return mw_error(err, "statm: field %d is not a number", i + 1);
			v[5] = 0;	/* no data figure: unknown */
			break;
		}
		v[i] = strtoull(s, &end, 10);
		s = end;
	}
	*size = v[0];
	*resident = v[1];
	*shared = v[2];
	*data = v[5];
	return 0;
}

void mw_proc_apply_statm(struct mw_process_info *p, uint64_t resident, uint64_t shared,
			 uint64_t data)
{
	uint64_t anon = resident > shared ? resident - shared : 0;

	if (data) {
		p->data_bytes = data;
		p->has_data = true;
	}
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

/* The kernel names a memfd's file "memfd:LABEL"; exec of one names the
 * process so too (comm "memfd:LABEL", 15 bytes of it). */
static bool is_memfd_name(const char *name)
{
	return !strncmp(name, "memfd:", 6);
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
	/* a program run from a memfd (runc's clone of itself, a launcher's
	 * sealed copy): "/memfd:LABEL", the label (slashes and all) names its
	 * creator's purpose, not the program; argv[0] does
	 * (mw_proc_cmdline_name) */
	if (base >= end || is_memfd_name(target + 1))
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
	/* run from a memfd: comm is the memfd's label, argv[0] the program */
	if (end > base && comm && is_memfd_name(comm)) {
		copy_name(out, size, base, (size_t)(end - base));
		return true;
	}
	copy_name(out, size, comm ? comm : "", clen);
	return false;
}
