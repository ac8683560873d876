/* fsutf8_linux.c - see fsutf8.h: names are bytes, nothing to convert. */
#include "fsutf8.h"

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
