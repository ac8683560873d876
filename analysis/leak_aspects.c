/*
 * leak_aspects.c - what a leak report judges of each process: by default
 * its private memory, shared memory, mapped files, handles, threads and
 * a JVM's old generation
 * (each an aspect: one per-process series judged on its own), or the
 * series of the user's selector.
 *
 * Owner: the detector work.  Caller: leak_report.c.
 */
#include <string.h>

#include "base/units.h"
#include "leak_report_internal.h"

/*
 * The aspects of a process judged by default: all of its memory, and the
 * things it holds by count.  Each is one per-process series; a group's
 * verdict is the worst of its aspects', and a fail names the aspect (for
 * private memory, the finer kind when a watched process has the series
 * to tell).  Windows has shared memory as the shareable part of the
 * working set (images and mapped files in it too), no per-process
 * mapped-file series: a fail there is named from the working-set
 * categories of a watched process.
 */
#define MW_PRIVATE_METRIC "memwatch_process_private_bytes"

static const struct mw_leak_aspect default_aspects[] = {
	/* each failing incarnation's growth held against what it had
	 * committed before (leak_report_bound.c) */
	{ "private", "memwatch_process_private_bytes", NULL, true, "private", false, false,
	  mw_leak_private_within_commit },
	{ "shared", "memwatch_process_resident_bytes{kind=\"shmem\"}", NULL, false, "shared", false,
	  true, NULL },
	/* Windows: the shareable pages resident, where a pagefile-backed
	 * section (CreateFileMapping without a file) that grows shows, and
	 * images and mapped files too: a watched process's working-set
	 * categories tell them apart (mapped, image or shared); an unwatched
	 * one has only the sum, named shared; each failing incarnation's
	 * growth held against the views it had mapped (leak_report_mapped.c) */
	{ "shared", "memwatch_process_shareable_working_set_bytes", NULL, false, "shared", true,
	  true, mw_leak_shareable_within_views },
	/* each failing incarnation's growth held against the files it had
	 * mapped (leak_report_mapped.c) */
	{ "mapped", "memwatch_process_resident_bytes{kind=\"file\"}", NULL, false, "mapped", false,
	  true, mw_leak_mapped_within_maps },
	{ "handles", "memwatch_process_handles", "handles", false, "handles", false, false, NULL },
	{ "threads", "memwatch_process_threads", "threads", false, "threads", false, false, NULL },
	/* a JVM's old generation after its old-generation collections
	 * (collectors/jvm.c, hsperfdata): what the program keeps inside a
	 * heap whose committed size stopped growing at -Xmx, invisible in
	 * private memory; the in-use bytes between collections are a
	 * sawtooth of whatever was promoted since; each JVM judged again
	 * from after its heap's sizing (leak_report_jvm.c) */
	{ "java_heap", "memwatch_jvm_old_after_gc_bytes", NULL, false, "java_heap", false, false,
	  mw_leak_java_heap_since_sized },
};

/* The unit of a user's selector: a count for the count metrics. */
static const char *unit_of_selector(const char *sel)
{
	if (!strncmp(sel, "memwatch_process_handles", 24))
		return "handles";
	if (!strncmp(sel, "memwatch_process_threads", 24))
		return "threads";
	return NULL;
}

/* A selector of private bytes (with or without label matchers). */
static bool is_private_selector(const char *sel)
{
	size_t n = strlen(MW_PRIVATE_METRIC);

	return !strncmp(sel, MW_PRIVATE_METRIC, n) && (sel[n] == '\0' || sel[n] == '{');
}

int mw_leak_cmp_entry(const void *a, const void *b)
{
	const struct mw_leak_entry *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (c)
		return c;
	if (x->aspect != y->aspect)
		return x->aspect < y->aspect ? -1 : 1;
	return x->s->id < y->s->id ? -1 : x->s->id > y->s->id;
}

_Static_assert(MW_ARRAY_SIZE(default_aspects) == MW_LEAK_NASPECTS,
	       "MW_LEAK_NASPECTS counts the default aspects");

/* The user's series: counts are judged as counts, private bytes as the
 * default judges them, anything else without a kind it cannot tell. */
size_t mw_leak_aspects_for(const struct mw_leak_query *q, struct mw_leak_aspect *user,
			   const struct mw_leak_aspect **aspects)
{
	const char *unit;

	if (!q->match) {
		*aspects = default_aspects;
		return MW_LEAK_NASPECTS;
	}
	unit = unit_of_selector(q->match);
	if (unit)
		*user = (struct mw_leak_aspect){ unit, q->match, unit, false, unit, false, false, NULL };
	else if (is_private_selector(q->match))
		*user = default_aspects[0];
	else
		*user = (struct mw_leak_aspect){ "selected", NULL, NULL, true, NULL, false, false,
						 NULL };
	user->selector = q->match;
	*aspects = user;
	return 1;
}
