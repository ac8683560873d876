/*
 * cmd_args.h - reading the "--name VALUE" / "--name=VALUE" options of the
 * commands that take their own (check, diff, export), with the messages
 * all of them print ("memwatchd CMD: ..."), so each command keeps only
 * its table of options and what it does with a value.
 */
#ifndef MW_APP_CMD_ARGS_H
#define MW_APP_CMD_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/* The flags the commands read alike: -h and --help print usage on stdout
 * (returns 1: exit 0), --json sets *json when the command has one (json
 * not NULL; returns 0: next argument); -1 for any other argument. */
int mw_cmd_common_flag(const char *arg, const char *usage, bool *json);

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

/* A whole command line of options that each set one string: the value of
 * flags[k] goes to *slots[k] (n of each), --json and --help as
 * mw_cmd_common_flag.  0; 1 after --help; 2 after printing a usage error
 * (an unknown option, a missing value). */
int mw_cmd_parse_slots(const char *cmd, const char *usage, int argc, char **argv,
		       const char *const *flags, const char **const *slots, size_t n, bool *json);

#endif
