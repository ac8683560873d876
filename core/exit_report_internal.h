/*
 * exit_report_internal.h - what the exit report parsers share
 * (exit_report_lsan.c, exit_report_umdh.c; exit_report.c implements it):
 * cutting text into lines without trusting a NUL or a final newline,
 * reading numbers that refuse to overflow, and keeping the largest stacks
 * within MW_EXIT_MAX_STACKS.  Not for use outside core/'s exit report
 * files.
 */
#ifndef MW_CORE_EXIT_REPORT_INTERNAL_H
#define MW_CORE_EXIT_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exit_report.h"

/* One line of a text: [p, p + n), without its "\n" or "\r\n". */
struct mw_xr_line {
	const char *p;
	size_t n;
	uint64_t no;		/* 1-based */
};

/* The next line of text[0, len) at *pos (advanced); false at the end. */
bool mw_xr_next_line(const char *text, size_t len, size_t *pos, struct mw_xr_line *l);

/* Leading blanks (space, tab) skipped: the count. */
size_t mw_xr_blanks(const char *p, size_t n);
/* Does [p, n) start with the literal s (its bytes, no NUL)? */
bool mw_xr_starts(const char *p, size_t n, const char *s);
/* Where s first occurs in [p, n), or NULL (no NUL needed in p). */
const char *mw_xr_find(const char *p, size_t n, const char *s);

/* Digits (base 10 or 16) at p[*i]: true and *v, *i past them; false when
 * there is no digit or the number does not fit in 64 bits. */
bool mw_xr_number(const char *p, size_t n, size_t *i, int base, uint64_t *v);

/* a + b, saturating (a hostile report's totals must not wrap). */
uint64_t mw_xr_add(uint64_t a, uint64_t b);

/* Keep stack s (its frames taken over) among r's stacks: appended while
 * there is room, else it replaces the smallest when larger (else freed). */
void mw_xr_keep_stack(struct mw_exit_report *r, struct mw_exit_stack *s);
/* Order r's stacks by bytes, largest first (at the end of a parse). */
void mw_xr_sort_stacks(struct mw_exit_report *r);

/* A parse begins: out and cur emptied, out's source set. */
void mw_xr_start(struct mw_exit_report *out, struct mw_exit_stack *cur, enum mw_exit_source src);
/* A parse fails: cur's frames and out released; -1. */
int mw_xr_fail(struct mw_exit_report *out, struct mw_exit_stack *cur);

/* Append [p, n) and a newline to a stack's frames, within
 * MW_EXIT_MAX_FRAMES_BYTES (a line that does not fit is dropped; a NUL
 * in it ends it). */
void mw_xr_add_frame(struct mw_exit_stack *s, const char *p, size_t n);

#endif
