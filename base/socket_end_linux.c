/* socket_end_linux.c - socket_end.h on POSIX. */
#include "socket_end.h"

#include <sys/socket.h>

void mw_socket_end(uintptr_t s)
{
	shutdown((int)s, SHUT_RDWR);
}
