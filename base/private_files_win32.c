/* private_files_win32.c - files inherit their folder's ACL (private_files.h):
 * the service's install limits the data folder (app/service_win32.c). */
#include "private_files.h"

void mw_files_private(void)
{
}
