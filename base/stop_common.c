/*
 * stop_common.c - the console control decision of stop.h, pure so the
 * native tests pin it too.
 */
#include "stop.h"

enum mw_console_action mw_console_ctrl_action(unsigned long ctrl, bool service_mode)
{
	/* A service stops only through its service control handler (stop,
	 * preshutdown, shutdown).  Windows sends CTRL_LOGOFF_EVENT to every
	 * service process whenever any user logs off: stopping then would end
	 * the service for good, reported as a clean stop the SCM does not
	 * restart. */
	if (service_mode)
		return ctrl <= 6 ? MW_CONSOLE_IGNORE : MW_CONSOLE_PASS;
	switch (ctrl) {
	case 0:	/* CTRL_C_EVENT */
	case 1:	/* CTRL_BREAK_EVENT */
		return MW_CONSOLE_STOP;	/* the process keeps running and exits 0 */
	case 2:	/* CTRL_CLOSE_EVENT */
	case 5:	/* CTRL_LOGOFF_EVENT */
	case 6:	/* CTRL_SHUTDOWN_EVENT */
		/* Windows ends the process when the handler returns. */
		return MW_CONSOLE_STOP_WAIT;
	default:
		return MW_CONSOLE_PASS;
	}
}
