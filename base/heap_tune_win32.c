/* heap_tune_win32.c - heap_tune.h on Windows: the process heap (the CRT's
 * malloc) needs no arena limit and decommits freed pages itself. */
#include "base/heap_tune.h"

void mw_heap_tune_startup(void)
{
}

void mw_heap_release(void)
{
}
