/*
 * mwerr.h - error reporting shared by every module.
 *
 * Functions that can fail take a `struct mw_err *` and return -1 after
 * writing a one-line, lower-case message naming what failed (file, line,
 * key, parameter ...).  The caller owns the struct; it never needs freeing.
 * Passing NULL is allowed and discards the message.
 */
#ifndef MW_BASE_MWERR_H
#define MW_BASE_MWERR_H

#include <stddef.h>

#define MW_ERR_MAX 512

struct mw_err {
	char msg[MW_ERR_MAX];
};

#if defined(__MINGW32__)
/* With __USE_MINGW_ANSI_STDIO (the Makefile sets it) printf is C99's. */
#define MW_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define MW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MW_PRINTF(f, a)
#endif

#define MW_UNUSED(x) ((void)(x))
#define MW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Format a message into err (if not NULL) and return -1. */
int mw_error(struct mw_err *err, const char *fmt, ...) MW_PRINTF(2, 3);

/* Prefix err's message with "prefix: " (for adding context going up). */
int mw_error_prefix(struct mw_err *err, const char *fmt, ...) MW_PRINTF(2, 3);

#endif
