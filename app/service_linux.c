/*
 * service_linux.c - there is no SCM here: `service` explains what to do
 * instead, and `run` is always a plain foreground process (systemd runs
 * it as Type=simple; see README).
 */
#include <stdio.h>

#include "commands.h"

int mw_cmd_service(int argc, char **argv, const char *const *run_args, int nrun_args)
{
	(void)argc;
	(void)argv;
	(void)run_args;
	(void)nrun_args;
	fprintf(stderr, "memwatchd: 'service' manages the Windows service; on Linux run "
			"'memwatchd run' under systemd (see README)\n");
	return 2;
}

int mw_service_try_dispatch(const struct mw_config *cfg, int *exit_code)
{
	(void)cfg;
	(void)exit_code;
	return 0;
}

void mw_service_early_errors_begin(void)
{
}

int mw_service_start_failed(int exit_code)
{
	(void)exit_code;
	return 0;
}
