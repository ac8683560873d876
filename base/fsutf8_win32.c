/* fsutf8_win32.c - see fsutf8.h. */
#include "fsutf8.h"

#include <windows.h>
#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#include <shellapi.h>
#include <stdlib.h>

#include "xalloc.h"
#include "utf8_wide.h"

FILE *mw_fopen(const char *path, const char *mode)
{
	wchar_t *wp = mw_utf8_to_wide(path), *wm = mw_utf8_to_wide(mode);
	FILE *f = NULL;

	if (wp && wm)
		f = _wfopen(wp, wm);
	else
		f = fopen(path, mode);	/* not UTF-8: as the caller gave it */
	free(wp);
	free(wm);
	return f;
}

void mw_utf8_argv(int *argc, char ***argv)
{
	int n, i;
	wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
	char **out;

	if (!wargv)
		return;
	out = mw_xcalloc((size_t)n + 1, sizeof(*out));
	for (i = 0; i < n; i++) {
		int len = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);

		if (len <= 0) {
			LocalFree(wargv);
			free(out);
			return;	/* keep the C library's argv */
		}
		out[i] = mw_xmalloc((size_t)len);
		WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, out[i], len, NULL, NULL);
	}
	LocalFree(wargv);
	*argc = n;
	*argv = out;
}

void mw_stdout_binary(void)
{
	fflush(stdout);
	_setmode(_fileno(stdout), _O_BINARY);
}

int mw_mkdir(const char *path)
{
	wchar_t *wp = mw_utf8_to_wide(path);
	int rc = wp ? _wmkdir(wp) : _mkdir(path);	/* not UTF-8: as given */

	free(wp);
	return rc == 0 || errno == EEXIST ? 0 : -1;
}

/* _wstat64 of a UTF-8 path (a path that is not UTF-8: as given). */
static int stat_utf8(const char *path, struct _stat64 *st)
{
	wchar_t *wp = mw_utf8_to_wide(path);
	int rc = wp ? _wstat64(wp, st) : _stat64(path, st);

	free(wp);
	return rc;
}

int64_t mw_file_size(const char *path)
{
	struct _stat64 st;

	return stat_utf8(path, &st) ? -1 : (int64_t)st.st_size;
}

int64_t mw_file_mtime(const char *path)
{
	struct _stat64 st;

	return stat_utf8(path, &st) ? -1 : (int64_t)st.st_mtime;
}

int mw_is_dir(const char *path)
{
	struct _stat64 st;

	return stat_utf8(path, &st) == 0 && (st.st_mode & _S_IFMT) == _S_IFDIR;
}

int mw_remove(const char *path)
{
	wchar_t *wp = mw_utf8_to_wide(path);
	int rc = wp ? _wremove(wp) : remove(path);	/* not UTF-8: as given */

	free(wp);
	return rc;
}

int mw_rename(const char *from, const char *to)
{
	wchar_t *wf = mw_utf8_to_wide(from), *wt = mw_utf8_to_wide(to);
	int rc = wf && wt ? _wrename(wf, wt) : rename(from, to);	/* not UTF-8: as given */

	free(wf);
	free(wt);
	return rc;
}
