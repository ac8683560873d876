/* private_files_linux.c - new files 0600, directories 0700 (private_files.h). */
#include "private_files.h"

#include <sys/stat.h>

void mw_files_private(void)
{
	umask(077);
}
