/* privilege_linux.c - privilege.h: nothing to enable on Linux. */
#include "privilege.h"

int mw_enable_debug_privilege(struct mw_err *why)
{
	(void)why;
	return 0;
}
