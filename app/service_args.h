/*
 * service_args.h - the command line `service install` registers, as pure
 * string logic (UTF-8) so both platforms test it; service_win32.c does the
 * Win32 calls around it (wide-character paths, GetFullPathNameW, the SCM).
 *
 * A service starts in %SystemRoot%\System32, so every path it gets must be
 * absolute:
 *   - --config, --db, --log-file (also --flag=VALUE and --set storage.db=,
 *     --set daemon.log_file=) given on the command line are made absolute
 *     against the current folder at install time;
 *   - a relative `[storage] db` or `[daemon] log_file` inside the --config
 *     file is resolved against the config file's folder and passed as
 *     --db / --log-file (the command line wins over the file, so the
 *     resolved path keeps the file's choice);
 *   - --db beside the executable is added only when no database is
 *     configured anywhere (command line or config file).
 */
#ifndef MW_APP_SERVICE_ARGS_H
#define MW_APP_SERVICE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/mwerr.h"

/* Make `in` absolute into out[size]; 0, or -1 when it does not fit. */
typedef int (*mw_abspath_fn)(const char *in, char *out, size_t size);

struct mw_service_install {
	const char *exe;		/* absolute path of memwatchd.exe */
	const char *const *args;	/* the run options after `service install` */
	int nargs;
	const char *config_db;		/* [storage] db from the config file, NULL: unset */
	const char *config_log;		/* [daemon] log_file from it, NULL or "": unset */
	mw_abspath_fn abspath;
};

/* Windows rules: "C:\x", "C:/x", "\x", "/x", "\\server\share" are absolute
 * (rooted); "x", ".\x", "..\x" are relative. */
bool mw_path_is_absolute(const char *path);
/* dir + '\' + path, or path when it is absolute; -1 when too long. */
int mw_path_join(char *out, size_t size, const char *dir, const char *path);
/* The folder of a file path (without the last separator); -1 when too long. */
int mw_path_dirname(char *out, size_t size, const char *file);
/* Append ' "arg"' quoted so CommandLineToArgvW splits it back; -1 (cmd
 * unchanged) when it does not fit in size bytes. */
int mw_cmdline_append(char *cmd, size_t size, const char *arg);

/* The --config value among the run options (either form), or NULL. */
const char *mw_service_config_arg(const char *const *args, int nargs);

/* The --listen value among the run options (either form, or --set
 * web.listen=VALUE; the last one wins), or NULL. */
const char *mw_service_listen_arg(const char *const *args, int nargs);

/* The TCP port of a listen address "HOST:PORT", "[IPV6]:PORT"; *loopback
 * when HOST is 127.x, localhost or ::1 (no firewall rule needed then).
 * -1 for "off" or an address without a valid port. */
int mw_listen_port(const char *listen, unsigned *port, bool *loopback);

/* The full service command line: "EXE" run OPTIONS..., as described above.
 * Returns 0, or -1 with err set (a path or the line too long). */
int mw_service_cmdline(const struct mw_service_install *in, char *out, size_t size,
		       struct mw_err *err);

#endif
