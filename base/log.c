/*
 * log.c - see log.h.
 *
 * One mutex around formatting and writing keeps lines from different
 * threads whole.  Timestamps are UTC so logs from lab machines in
 * different zones line up.
 */
#include "fsutf8.h"
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "clock.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;		/* NULL: stderr */
static enum mw_log_level log_level = MW_LOG_INFO;
static mw_log_sink log_sink;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

const char *mw_log_level_name(enum mw_log_level level)
{
	return (unsigned)level < MW_ARRAY_SIZE(level_names) ? level_names[level] : "?";
}

int mw_log_level_parse(const char *text, enum mw_log_level *out, struct mw_err *err)
{
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(level_names); i++)
		if (!strcmp(text, level_names[i])) {
			*out = (enum mw_log_level)i;
			return 0;
		}
	if (!strcmp(text, "warning")) {
		*out = MW_LOG_WARN;
		return 0;
	}
	return mw_error(err, "'%s' is not a log level (error, warn, info, debug)", text);
}

int mw_log_open(const char *path, enum mw_log_level level, struct mw_err *err)
{
	FILE *f = NULL;

	if (path && *path) {
		f = mw_fopen(path, "a");
		if (!f)
			return mw_error(err, "cannot open log file '%s'", path);
		setvbuf(f, NULL, _IOLBF, 0);
	}
	pthread_mutex_lock(&log_lock);
	if (log_file)
		fclose(log_file);
	log_file = f;
	log_level = level;
	pthread_mutex_unlock(&log_lock);
	return 0;
}

void mw_log_close(void)
{
	pthread_mutex_lock(&log_lock);
	if (log_file)
		fclose(log_file);
	log_file = NULL;
	pthread_mutex_unlock(&log_lock);
}

enum mw_log_level mw_log_get_level(void)
{
	return log_level;
}

void mw_log_set_sink(mw_log_sink sink)
{
	pthread_mutex_lock(&log_lock);
	log_sink = sink;
	pthread_mutex_unlock(&log_lock);
}

void mw_log(enum mw_log_level level, const char *fmt, ...)
{
	char line[1024], stamp[MW_TIME_TEXT_MAX];
	int64_t now = mw_clock_wall_ms();
	va_list ap;
	size_t n;

	if (level > log_level)
		return;
	mw_time_rfc3339(stamp, sizeof(stamp), now);
	n = (size_t)snprintf(line, sizeof(line), "%s %-5s ", stamp, mw_log_level_name(level));
	va_start(ap, fmt);
	if (n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&log_lock);
	fprintf(log_file ? log_file : stderr, "%s\n", line);
	if (log_sink)
		log_sink(level, line + n);
	pthread_mutex_unlock(&log_lock);
}
