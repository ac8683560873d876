/*
 * exit_report.h - the exit leak report of one process run: what the heap
 * manager's leak check (Windows ntdll, ShutdownFlags) or LeakSanitizer
 * (Linux) said when the program exited, as one domain type shared by the
 * collector that captures it (collectors/exit_leaks*), the import of
 * saved reports (import/), storage, the check and the web.
 *
 * Parsers are pure: text in, a report out; they never trust a number or a
 * length in the text (hostile or truncated reports give a report marked
 * incomplete, or an error naming the line, never a crash).
 *
 * Hand-over from a collector to storage: a batch detail record of kind
 * MW_EXIT_REPORT_DETAIL whose bytes are mw_exit_report_encode's output;
 * the writer decodes them with mw_exit_report_decode.
 *
 * Owner: core.  Memory: a report owns its arrays and strings; release
 * with mw_exit_report_release.
 */
#ifndef MW_CORE_EXIT_REPORT_H
#define MW_CORE_EXIT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/mwerr.h"

#define MW_EXIT_REPORT_DETAIL "exit_leaks.report"

enum mw_exit_source {
	MW_EXIT_NTDLL = 1,	/* Windows heap manager, RtlDetectHeapLeaks at ExitProcess */
	MW_EXIT_LSAN = 2,	/* LeakSanitizer report file */
	MW_EXIT_UMDH = 3,	/* a UMDH log or comparison (stacks of growing allocations) */
};

/* One leaked heap entry as ntdll lists it (no stack). */
struct mw_exit_block {
	uint64_t entry;		/* entry address */
	uint64_t heap;		/* heap handle */
	uint64_t size;		/* bytes */
};

/* One allocation stack: LeakSanitizer's "Direct/Indirect leak of B
 * byte(s) in N object(s) allocated from:" with its frames, or a UMDH
 * backtrace with its growth. */
struct mw_exit_stack {
	uint64_t bytes;
	uint64_t count;		/* objects / allocations */
	bool indirect;		/* LeakSanitizer's "Indirect leak" */
	char *frames;		/* frames, one per line ("#0 0x... in f file:line") */
};

struct mw_exit_report {
	char *process;		/* image or program name, UTF-8 */
	int64_t pid;		/* 0: unknown */
	int64_t started_ms;	/* 0: unknown */
	int64_t exited_ms;	/* 0: unknown */
	enum mw_exit_source source;
	uint64_t leaks;		/* leaked allocations the report counts */
	uint64_t bytes;		/* leaked bytes (ntdll: the sum of the blocks) */
	struct mw_exit_block *blocks;
	size_t nblocks;
	struct mw_exit_stack *stacks;	/* by bytes, largest first */
	size_t nstacks;
	/* The report's closing line was seen (ntdll "N leaks detected." /
	 * "No leaks detected.", LeakSanitizer's SUMMARY); a truncated report
	 * says what it has with complete false. */
	bool complete;
};

/* Limits that hold whatever the text says: more is summed, not kept. */
#define MW_EXIT_MAX_BLOCKS 4096
#define MW_EXIT_MAX_STACKS 64
#define MW_EXIT_MAX_FRAMES_BYTES 4096

void mw_exit_report_release(struct mw_exit_report *r);

/* The detail record's bytes (malloc'd; *len set) and back.  Decode checks
 * every length against the buffer: false with err naming what was wrong. */
void *mw_exit_report_encode(const struct mw_exit_report *r, size_t *len);
bool mw_exit_report_decode(const void *data, size_t len, struct mw_exit_report *out,
			   struct mw_err *err);

/*
 * ntdll's report arrives line by line (DbgPrint strings through a
 * debugger, or a saved debugger log).  Feed each line; a line that ends
 * a report fills *out (the caller's to release) and returns 1, else 0.
 * Lines that are not part of a report are ignored; a report interrupted
 * by another report's start is returned incomplete.
 */
struct mw_ntdll_leak_parser {
	int state;			/* 0 outside a report, 1 inside */
	struct mw_exit_report cur;	/* the report being read */
	/* A "HEAP[app.exe]:" line alone, joined to the next line: a log that
	 * puts each DbgPrint call on its own line (DebugView's "force
	 * carriage returns") splits ntdll's prefix from its message. */
	char *prefix;
};

void mw_ntdll_parser_init(struct mw_ntdll_leak_parser *p);
void mw_ntdll_parser_release(struct mw_ntdll_leak_parser *p);
int mw_ntdll_parser_line(struct mw_ntdll_leak_parser *p, const char *line, size_t n,
			 struct mw_exit_report *out);
/* The stream ended (the process exited, the log ended): a report in
 * progress is returned incomplete (1), else 0. */
int mw_ntdll_parser_end(struct mw_ntdll_leak_parser *p, struct mw_exit_report *out);

/* A LeakSanitizer report file's text: 0, or -1 with err naming the line
 * that was wrong.  pid and process come from the caller (the file name). */
int mw_lsan_parse(const char *text, size_t n, struct mw_exit_report *out, struct mw_err *err);

/* A UMDH log or comparison: the growing stacks ("+ 5320 ( f110 - 9df0)
 * 3a allocs BackTrace00B53" and the frames below). */
int mw_umdh_parse(const char *text, size_t n, struct mw_exit_report *out, struct mw_err *err);

#endif
