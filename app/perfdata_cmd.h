/*
 * perfdata_cmd.h - the `counters` and `perfdata` subcommands of memwatchd.
 *
 * Both take argv with argv[0] the command's own name ("counters",
 * "perfdata"), i.e. main passes (argc - 1, argv + 1), print to stdout,
 * errors to stderr, and return the exit code (0 ok, 1 failure, 2 usage).
 *
 *   memwatchd counters [--all] [DIR]
 *       objects and counters with their title indexes, from the live
 *       registry (Windows) or from a recording; --all lists every title.
 *   memwatchd perfdata dump DIR [--query "230 4"] [--interval-ms 1000]
 *       save titles-counter.bin, titles-help.bin, snapshot1.bin,
 *       snapshot2.bin (exactly as RegQueryValueEx returned them) and
 *       meta.json in DIR (created if missing).  Default query: Global.
 *   memwatchd perfdata decode DIR [--json]
 *   memwatchd perfdata decode TITLES SNAPSHOT [SNAPSHOT2] [--json]
 *       decode on any platform to one JSON document (see perfdata.h).
 */
#ifndef MW_APP_PERFDATA_CMD_H
#define MW_APP_PERFDATA_CMD_H

int mw_cmd_counters(int argc, char **argv);
int mw_cmd_perfdata(int argc, char **argv);

/* Read a whole file; 0 or -1 (err says why).  *buf is the caller's. */
#include <stddef.h>
#include "base/mwerr.h"
int mw_read_whole_file(const char *path, unsigned char **buf, size_t *len, struct mw_err *err);

#endif
