/*
 * heap_tune.h - keeping the C heap of a long-running daemon small
 * (heap_tune_linux.c: glibc's malloc; heap_tune_win32.c: nothing to do,
 * the Windows heap hands freed pages back on its own).
 *
 * mw_heap_tune_startup(): called once by `memwatchd run` before any
 * thread starts.  glibc gives every thread that allocates an arena of its
 * own (up to 8 per core); a daemon with a dozen threads (writer, web,
 * judge, forwarders, the sampler) then keeps a dozen half-empty heaps.
 * One arena, and large blocks as mappings of their own, returned when
 * freed (the figures are in heap_tune_linux.c).
 *
 * mw_heap_release(): after large transient work (a /metrics answer, a big
 * query), hands the free pages of every arena back to the system; freed
 * memory in the middle of a heap otherwise stays resident for good.
 * Costs a walk over the free lists (well under a millisecond at rest), so
 * call it after work that allocated megabytes, not per small request.
 */
#ifndef MW_BASE_HEAP_TUNE_H
#define MW_BASE_HEAP_TUNE_H

void mw_heap_tune_startup(void);
void mw_heap_release(void);

#endif
