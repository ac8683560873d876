/* socket_end_win32.c - socket_end.h on Windows (Winsock). */
#include "socket_end.h"

#include <winsock2.h>

void mw_socket_end(uintptr_t s)
{
	shutdown((SOCKET)s, SD_BOTH);
}
