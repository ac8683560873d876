/* listen_options_linux.c - listen_options.h elsewhere than Windows:
 * nothing to add (MHD's SO_REUSEADDR stays). */
#include "listen_options.h"

struct MHD_OptionItem *mw_web_listen_options(void)
{
	static struct MHD_OptionItem none[] = { { MHD_OPTION_END, 0, NULL } };

	return none;
}
