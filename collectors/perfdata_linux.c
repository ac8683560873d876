/* perfdata_linux.c - Linux has no performance registry; recordings made
 * on Windows still decode here (perfdata_walk.c and the other perfdata_*.c). */
#include "perfdata.h"

int mw_perfreg_open(struct mw_perfreg **out, struct mw_err *err)
{
	*out = NULL;
	return mw_error(err, "HKEY_PERFORMANCE_DATA exists only on Windows "
			"(recordings decode anywhere: memwatchd perfdata decode DIR)");
}

void mw_perfreg_free(struct mw_perfreg *r)
{
	(void)r;
}

int mw_perfreg_query(struct mw_perfreg *r, const char *value, const unsigned char **out,
		     size_t *len, struct mw_err *err)
{
	(void)r;
	(void)value;
	*out = NULL;
	*len = 0;
	return mw_error(err, "HKEY_PERFORMANCE_DATA exists only on Windows");
}

void mw_perfreg_close_key(struct mw_perfreg *r)
{
	(void)r;
}

uint32_t mw_perfreg_title_stamp(struct mw_perfreg *r)
{
	(void)r;
	return 0;
}
