/* listen_options_win32.c - listen_options.h on Windows: the port for this
 * daemon alone (SO_EXCLUSIVEADDRUSE). */
#include "listen_options.h"

struct MHD_OptionItem *mw_web_listen_options(void)
{
	static struct MHD_OptionItem exclusive[] = {
		{ MHD_OPTION_LISTENING_ADDRESS_REUSE, 0, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

	return exclusive;
}
