/*
 * commands.h - the subcommands of memwatchd, each in its own file.
 * Each returns the process exit code.
 */
#ifndef MW_APP_COMMANDS_H
#define MW_APP_COMMANDS_H

#include "core/config.h"

/* run.c: sample, store and serve until stopped. */
int mw_cmd_run(const struct mw_config *cfg);
/* Called once by mw_cmd_run when storage and the web server are up (the
 * service reports SERVICE_RUNNING then); NULL: none. */
void mw_run_set_ready_hook(void (*fn)(void *arg), void *arg);
/* once.c: run every enabled collector once, print JSON on stdout. */
int mw_cmd_once(const struct mw_config *cfg);
/* check_cmd.c: leak verdicts from a database or a running daemon. */
int mw_cmd_check(int argc, char **argv);
/* diff_cmd.c: working-set diff between two times (region snapshots). */
int mw_cmd_diff(int argc, char **argv);
/* service_win32.c / service_linux.c */
int mw_cmd_service(int argc, char **argv, const char *const *run_args, int nrun_args);
/* Try to run as a Windows service (started by the SCM).  Returns 1 when it
 * ran as one (and *exit_code is set), 0 when this is a console start. */
int mw_service_try_dispatch(const struct mw_config *cfg, int *exit_code);
/* A run that fails before the dispatcher (bad option or config file): on
 * Windows, what main printed to stderr from _begin on goes to the Event Log
 * too, and a service start is reported STOPPED with exit_code.  Returns 1
 * when it ran as a service; no-ops elsewhere. */
void mw_service_early_errors_begin(void);
int mw_service_start_failed(int exit_code);
/* export_cmd.c: stored points to stdout as CSV or JSON (argv[0] "export"). */
int mw_cmd_export(int argc, char **argv);
/* app/import_cmd.c: load exports and typeperf CSV (argv[0] "import"). */
int mw_cmd_import(int argc, char **argv);

#endif
