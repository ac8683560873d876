/* cmd_args.c - see cmd_args.h. */
#include "cmd_args.h"

#include <stdio.h>
#include <string.h>

int mw_cmd_common_flag(const char *arg, const char *usage, bool *json)
{
	if (json && !strcmp(arg, "--json")) {
		*json = true;
		return 0;
	}
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		fputs(usage, stdout);
		return 1;
	}
	return -1;
}

size_t mw_cmd_option_len(const char *arg)
{
	const char *eq = strchr(arg, '=');

	return eq ? (size_t)(eq - arg) : strlen(arg);
}

int mw_cmd_option_unknown(const char *cmd, const char *arg, size_t flen)
{
	fprintf(stderr, "memwatchd %s: unknown option '%.*s' (see memwatchd %s --help)\n", cmd,
		(int)flen, arg, cmd);
	return 2;
}

size_t mw_cmd_option_find(const char *cmd, const char *arg, size_t flen,
			  const char *const *flags, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (strlen(flags[k]) == flen && !strncmp(arg, flags[k], flen))
			return k;
	mw_cmd_option_unknown(cmd, arg, flen);
	return n;
}

const char *mw_cmd_option_value(const char *cmd, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');

	if (eq)
		return eq + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	fprintf(stderr, "memwatchd %s: %s needs a value\n", cmd, arg);
	return NULL;
}

int mw_cmd_parse_slots(const char *cmd, const char *usage, int argc, char **argv,
		       const char *const *flags, const char **const *slots, size_t n, bool *json)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int common = mw_cmd_common_flag(arg, usage, json);
		size_t k;

		if (common == 1)
			return 1;
		if (common == 0)
			continue;
		k = mw_cmd_option_find(cmd, arg, mw_cmd_option_len(arg), flags, n);
		if (k == n)
			return 2;
		*slots[k] = mw_cmd_option_value(cmd, argc, argv, &i);
		if (!*slots[k])
			return 2;
	}
	return 0;
}
