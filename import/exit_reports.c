/*
 * exit_reports.c - exit leak reports from files into the store
 * (exit_reports.h), through the same detail record the collector writes
 * (MW_EXIT_REPORT_DETAIL, routed by storage/store.c), so an imported
 * report and one the daemon picked up are stored alike - and the same
 * report twice (process, pid, exit time, source) once.
 *
 * Which report it is, from the content (the first 64 KB):
 *   LeakSanitizer  "ERROR: LeakSanitizer" / "Direct leak of" / "Indirect
 *                  leak of": process and pid from the file name NAME.PID
 *                  (as lsan_dir's files are named; else the name less its
 *                  extension, and the pid the report's ==PID==)
 *   ntdll          "Inspecting leaks at process shutdown" (a debugger log;
 *                  every report in it, process from its HEAP[name] lines)
 *   UMDH           "BackTrace" with "allocs" / "allocations": the growing
 *                  stacks, process from the file name less its extension
 * The exit time is the file's last change, to the second (what the
 * daemon takes for a LeakSanitizer file too); the reports of one debugger log get it plus
 * their index in ms, to stay apart.  A file at most MAX_FILE bytes.
 */
#include "exit_reports.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutf8.h"
#include "base/xalloc.h"
#include "core/batch.h"
#include "core/exit_report.h"
#include "core/metric_catalog.h"
#include "storage/store.h"

#define MAX_FILE (64u << 20)
#define SNIFF 65536

enum kind { NOT_ONE, LSAN, NTDLL, UMDH };

static bool has(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s), i;

	for (i = 0; i + k <= n; i++)
		if (p[i] == s[0] && !memcmp(p + i, s, k))
			return true;
	return false;
}

static enum kind sniff(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i < n && (p[i] == '{' || p[i] == '(' || p[i] == '"'))
		return NOT_ONE;	/* memwatch JSON, PDH CSV */
	if (n > SNIFF)
		n = SNIFF;
	if (has(p, n, "Inspecting leaks at process shutdown"))
		return NTDLL;
	if (has(p, n, "ERROR: LeakSanitizer") || has(p, n, "Direct leak of ") ||
	    has(p, n, "Indirect leak of "))
		return LSAN;
	if (has(p, n, "BackTrace") && (has(p, n, " allocs") || has(p, n, " allocations")))
		return UMDH;
	return NOT_ONE;
}

static const char *base_name(const char *path)
{
	const char *b = path, *p;

	for (p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	return b;
}

/* NAME.PID: true with the name and pid; else the name less its extension. */
static bool split_name(const char *path, char **name, int64_t *pid)
{
	const char *b = base_name(path), *dot = strrchr(b, '.'), *p;
	int64_t v = 0;

	*pid = 0;
	if (dot && dot != b && dot[1]) {
		for (p = dot + 1; *p >= '0' && *p <= '9' && v < 1000000000; p++)
			v = v * 10 + (*p - '0');
		if (!*p && v > 0) {
			*name = mw_xstrndup(b, (size_t)(dot - b));
			*pid = v;
			return true;
		}
	}
	*name = dot && dot != b ? mw_xstrndup(b, (size_t)(dot - b)) : mw_xstrdup(b);
	return false;
}

static int store_one(struct mw_store *store, struct mw_exit_report *r, const char *path,
		     FILE *out, struct mw_err *err)
{
	struct mw_batch *b = mw_batch_new();
	struct mw_err why;
	char pid[24];
	struct mw_label l[2] = { { "pid", pid }, { "process", r->process } };
	void *enc;
	size_t len;

	snprintf(pid, sizeof(pid), "%" PRId64, r->pid);
	enc = mw_exit_report_encode(r, &len);
	mw_batch_add_detail(b, MW_EXIT_REPORT_DETAIL, mw_metric_name(MW_M_EXIT_LEAK_BYTES), l, 2,
			    r->exited_ms, enc, len);
	free(enc);
	if (store)
		mw_store_add_batch(store, b);
	mw_batch_free(b);
	if (store && mw_store_flush(store, &why))
		return mw_error(err, "%s: storage: %s", path, why.msg);
	if (out)
		fprintf(out, "%s: %s exit leak report: %s pid %" PRId64 ", %" PRIu64
			" bytes in %" PRIu64 " allocations, %zu blocks, %zu stacks%s\n", path,
			r->source == MW_EXIT_NTDLL ? "ntdll" : r->source == MW_EXIT_LSAN ? "LeakSanitizer" : "UMDH",
			r->process, r->pid, r->bytes, r->leaks, r->nblocks, r->nstacks,
			r->complete ? "" : " (incomplete)");
	return 0;
}

static int ntdll_reports(struct mw_store *store, const char *text, size_t n, const char *path,
			 int64_t mtime_ms, FILE *out, struct mw_err *err)
{
	struct mw_ntdll_leak_parser p;
	struct mw_exit_report r;
	size_t pos = 0, count = 0;
	int rc = 0;
	bool more = true;

	mw_ntdll_parser_init(&p);
	while (more && rc == 0) {
		const char *nl = pos < n ? memchr(text + pos, '\n', n - pos) : NULL;
		size_t end = nl ? (size_t)(nl - text) : n;
		int got;

		if (pos < n) {
			got = mw_ntdll_parser_line(&p, text + pos, end - pos, &r);
			pos = nl ? end + 1 : n;
		} else {
			got = mw_ntdll_parser_end(&p, &r);
			more = false;
		}
		if (got == 1) {
			if (!r.process || !*r.process) {
				free(r.process);
				split_name(path, &r.process, &r.pid);
				r.pid = 0;
			}
			r.exited_ms = mtime_ms + (int64_t)count++;
			rc = store_one(store, &r, path, out, err);
			mw_exit_report_release(&r);
		}
	}
	mw_ntdll_parser_release(&p);
	if (rc == 0 && count == 0)
		return mw_error(err, "%s: no complete ntdll exit leak report in it", path);
	return rc;
}

int mw_import_exit_report_file(struct mw_store *store, const char *path, FILE *out,
			       struct mw_err *err)
{
	FILE *f = mw_fopen(path, "rb");
	struct mw_exit_report r;
	struct mw_err why = { "" };
	char *text, *name;
	size_t n;
	int64_t pid, mtime_ms;
	enum kind k;
	int rc;

	if (!f)
		return 0;	/* the caller says why it cannot be opened */
	/* the head first: a recording of gigabytes is not read twice */
	text = mw_xmalloc(SNIFF);
	n = fread(text, 1, SNIFF, f);
	k = sniff(text, n);
	if (k == NOT_ONE) {
		fclose(f);
		free(text);
		return 0;
	}
	text = mw_xrealloc(text, MAX_FILE + 1);
	if (n == SNIFF)
		n += fread(text + n, 1, MAX_FILE + 1 - n, f);
	fclose(f);
	if (n > MAX_FILE) {
		free(text);
		return mw_error(err, "%s: an exit leak report larger than %u MB", path,
				MAX_FILE >> 20);
	}
	/* whole seconds, as the daemon takes them; a UTF-8 path on Windows
	 * too (a narrow stat fails under C:\Users\José) */
	mtime_ms = mw_file_mtime(path);
	mtime_ms = mtime_ms < 0 ? 0 : mtime_ms * 1000;
	if (k == NTDLL) {
		rc = ntdll_reports(store, text, n, path, mtime_ms, out, err);
		free(text);
		return rc < 0 ? -1 : 1;
	}
	rc = k == LSAN ? mw_lsan_parse(text, n, &r, &why) : mw_umdh_parse(text, n, &r, &why);
	free(text);
	if (rc)
		return mw_error(err, "%s: %s", path, why.msg);
	if (split_name(path, &name, &pid) && k == LSAN) {
		r.pid = pid;
	} else if (k == UMDH) {
		r.pid = 0;
	}
	free(r.process);
	r.process = name;
	r.exited_ms = mtime_ms;
	rc = store_one(store, &r, path, out, err);
	mw_exit_report_release(&r);
	return rc < 0 ? -1 : 1;
}
