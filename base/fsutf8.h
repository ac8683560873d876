/*
 * fsutf8.h - file names are UTF-8 everywhere inside memwatch.  On Windows
 * the C library's fopen() and main()'s argv use the ANSI code page, which
 * cannot hold every name (a user folder with characters outside it), so:
 *
 *   mw_fopen()      opens a UTF-8 path (_wfopen on Windows, fopen elsewhere)
 *   mw_utf8_argv()  replaces argv with the UTF-8 form of the real command
 *                   line (GetCommandLineW on Windows; a no-op elsewhere)
 *   mw_stdout_binary()  stdout writes its bytes as given (Windows' text
 *                   mode would turn "\r\n" into "\r\r\n"; a no-op elsewhere)
 *
 * SQLite takes UTF-8 paths already.
 */
#ifndef MW_BASE_FSUTF8_H
#define MW_BASE_FSUTF8_H

#include <stdio.h>

FILE *mw_fopen(const char *path, const char *mode);

/* Call first thing in main(); the new argv lives until exit. */
void mw_utf8_argv(int *argc, char ***argv);

void mw_stdout_binary(void);

#endif
