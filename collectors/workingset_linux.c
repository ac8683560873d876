/* workingset_linux.c - not yet: Linux support comes with the procfs
 * collectors (the classifier in workingset.c is portable already). */
#include "workingset.h"

int mw_ws_read(uint32_t pid, bool self, struct mw_ws_snapshot *s, struct mw_err *err)
{
	(void)pid;
	(void)self;
	(void)s;
	return mw_error(err, "workingset: Linux support comes with the procfs collectors");
}

int mw_ws_supported(struct mw_err *why)
{
	return mw_error(why, "Linux support comes with the procfs collectors");
}
