/*
 * heap_sums.h - the two totals a heap-breakdown test compares (test_heap,
 * test_heap_linux, the Wine collectors test): every committed byte of an
 * address-space walk, and every committed byte the bar put in a kind.
 * The bar must account for exactly the walk's commit.
 */
#ifndef MW_TESTS_SUPPORT_HEAP_SUMS_H
#define MW_TESTS_SUPPORT_HEAP_SUMS_H

#include <stdint.h>

#include "collectors/heap.h"
#include "collectors/vmmap.h"

/* Committed bytes of v over every type (image, mapped, private). */
uint64_t mw_test_vm_committed(const struct mw_vm_regions *v);

/* The breakdown's kinds added up, less reserved stack (not committed). */
uint64_t mw_test_heap_committed(const struct mw_heap_breakdown *b);

#endif
