/*
 * log.h - leveled logging to stderr or a file, safe from any thread.
 *
 * Lines look like "2026-11-21T23:40:00.123Z warn  process: cannot open ...".
 * By convention the message starts with the module or collector name.
 * Until mw_log_open() is called, everything goes to stderr at level info.
 */
#ifndef MW_BASE_LOG_H
#define MW_BASE_LOG_H

#include "mwerr.h"

enum mw_log_level {
	MW_LOG_ERROR = 0,
	MW_LOG_WARN = 1,
	MW_LOG_INFO = 2,
	MW_LOG_DEBUG = 3,
};

/* Parse "error", "warn", "info", "debug". */
int mw_log_level_parse(const char *text, enum mw_log_level *out, struct mw_err *err);
const char *mw_log_level_name(enum mw_log_level level);

/* Direct output to path (appended) or to stderr when path is NULL or "". */
int mw_log_open(const char *path, enum mw_log_level level, struct mw_err *err);
void mw_log_close(void);
enum mw_log_level mw_log_get_level(void);

/* Optional extra sink (the Windows Event Log for errors and start/stop). */
typedef void (*mw_log_sink)(enum mw_log_level level, const char *line);
void mw_log_set_sink(mw_log_sink sink);

void mw_log(enum mw_log_level level, const char *fmt, ...) MW_PRINTF(2, 3);
#define mw_log_error(...) mw_log(MW_LOG_ERROR, __VA_ARGS__)
#define mw_log_warn(...) mw_log(MW_LOG_WARN, __VA_ARGS__)
#define mw_log_info(...) mw_log(MW_LOG_INFO, __VA_ARGS__)
#define mw_log_debug(...) mw_log(MW_LOG_DEBUG, __VA_ARGS__)

#endif
