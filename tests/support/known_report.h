/*
 * known_report.h - the exit leak report the tests print and parse: three
 * blocks, 4396 bytes, as ntdll lists them on x64 (test_exit_report_ntdll's
 * text lists them; helpers/ntdll_report_win32.c, a program of its own,
 * prints the same three), the check that a report is exactly it, and the
 * check of any report's totals.
 */
#ifndef MW_TESTS_SUPPORT_KNOWN_REPORT_H
#define MW_TESTS_SUPPORT_KNOWN_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/exit_report.h"

#define MW_KNOWN_LEAKS 3
#define MW_KNOWN_BYTES 4396

extern const struct mw_exit_block mw_known_blocks[MW_KNOWN_LEAKS];

/* Fails the running cmocka test unless r is the known report of process,
 * complete, from ntdll. */
void mw_test_assert_known_report(const struct mw_exit_report *r, const char *process);

/* Fails the running cmocka test unless r's totals are these: whether the
 * report was read to its end, the leaks it counts and their bytes (the
 * three figures every parser test checks). */
void mw_test_assert_exit_totals(const struct mw_exit_report *r, bool complete, uint64_t leaks,
				uint64_t bytes);

#endif
