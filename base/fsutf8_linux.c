/* fsutf8_linux.c - see fsutf8.h: names are bytes, nothing to convert. */
#include "fsutf8.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

FILE *mw_fopen(const char *path, const char *mode)
{
	return fopen(path, mode);
}

void mw_utf8_argv(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

void mw_stdout_binary(void)
{
}

int mw_mkdir(const char *path)
{
	return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int64_t mw_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int64_t)st.st_size;
}

int64_t mw_file_mtime(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int64_t)st.st_mtime;
}

int mw_remove(const char *path)
{
	return remove(path);
}

int mw_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mw_rename(const char *from, const char *to)
{
	return rename(from, to);
}
