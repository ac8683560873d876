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
 *   mw_mkdir(), mw_file_size(), mw_is_dir(), mw_rename()  the same for a
 *                   directory to make, a file's size, whether a path is a
 *                   directory and renaming (_wmkdir, _wstat64, _wrename on
 *                   Windows)
 *
 * SQLite takes UTF-8 paths already.
 */
#ifndef MW_BASE_FSUTF8_H
#define MW_BASE_FSUTF8_H

#include <stdint.h>
#include <stdio.h>

FILE *mw_fopen(const char *path, const char *mode);

/* Call first thing in main(); the new argv lives until exit. */
void mw_utf8_argv(int *argc, char ***argv);

void mw_stdout_binary(void);

/* Make the directory (mode 0755 where there are modes): 0 when it was made
 * or is there already, -1 otherwise (errno says why). */
int mw_mkdir(const char *path);

/* The size in bytes of the file, -1 when it cannot be read. */
int64_t mw_file_size(const char *path);

/* The file's last modification, whole seconds since the epoch (as every
 * stat gives it); -1 when it cannot be read. */
int64_t mw_file_mtime(const char *path);

/* 1 when path names a directory, 0 when not or it cannot be read. */
int mw_is_dir(const char *path);

/* remove(path): 0, or -1 with errno. */
int mw_remove(const char *path);

/* rename(from, to): 0, or -1 with errno. */
int mw_rename(const char *from, const char *to);

#endif
