/*
 * collector_list.c - the static list of collectors built into memwatchd
 * (declared in core/collector.h as mw_collectors).
 *
 * The application assembles the program, so the list that names every
 * collector lives here, above them; core and the collectors see only the
 * declaration.
 *
 * Order matters only for display (status, `once`, the reference config).
 * A collector that cannot work on this platform is still listed and says
 * why from its init.
 */
#include "core/collector.h"

#include <string.h>

extern const struct mw_collector mw_collector_system;
extern const struct mw_collector mw_collector_process;
extern const struct mw_collector mw_collector_workingset;
extern const struct mw_collector mw_collector_perfcounters;
extern const struct mw_collector mw_collector_heap;
extern const struct mw_collector mw_collector_vmmap;
extern const struct mw_collector mw_collector_jvm;
extern const struct mw_collector mw_collector_exit_leaks;

const struct mw_collector *const mw_collectors[] = {
	&mw_collector_system,
	&mw_collector_process,
	&mw_collector_workingset,
	&mw_collector_perfcounters,
	&mw_collector_heap,
	&mw_collector_vmmap,
	&mw_collector_jvm,
	&mw_collector_exit_leaks,
};

const size_t mw_ncollectors = MW_ARRAY_SIZE(mw_collectors);

const struct mw_collector *mw_collector_find(const char *name)
{
	size_t i;

	for (i = 0; i < mw_ncollectors; i++)
		if (!strcmp(mw_collectors[i]->name, name))
			return mw_collectors[i];
	return NULL;
}
