/*
 * cmd_args.h - reading the "--name VALUE" / "--name=VALUE" options of the
 * commands that take their own (check, diff, export), with the messages
 * all of them print ("memwatchd CMD: ..."), so each command keeps only
 * its table of options and what it does with a value.
 */
#ifndef MW_APP_CMD_ARGS_H
#define MW_APP_CMD_ARGS_H

#include <stddef.h>

/* The length of argv[i]'s name: up to its '=', or all of it. */
size_t mw_cmd_option_len(const char *arg);

/* Index of the option arg (name length flen) in flags[0..n), or n after
 * printing "unknown option" with a pointer to `memwatchd CMD --help`. */
size_t mw_cmd_option_find(const char *cmd, const char *arg, size_t flen,
			  const char *const *flags, size_t n);

/* Print that option arg (name length flen) is unknown; returns 2, the
 * exit status of a usage error. */
int mw_cmd_option_unknown(const char *cmd, const char *arg, size_t flen);

/* The value of the option at argv[*i]: after its '=', or the next
 * argument (then *i moves past it).  NULL after printing "needs a value". */
const char *mw_cmd_option_value(const char *cmd, int argc, char **argv, int *i);

#endif
