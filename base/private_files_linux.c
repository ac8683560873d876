/* private_files_linux.c - new files 0600, directories 0700 (private_files.h). */
#include "private_files.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

void mw_files_private(void)
{
	umask(077);
}

int mw_folder_private(const char *path, struct mw_err *err)
{
	if (chmod(path, 0700))
		return mw_error(err, "cannot make '%s' private: %s", path, strerror(errno));
	return 0;
}
