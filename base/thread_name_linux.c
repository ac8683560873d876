/* thread_name_linux.c - thread_name.h with pthread_setname_np. */
#include "base/thread_name.h"

#include <pthread.h>
#include <string.h>

void mw_thread_set_name(const char *name)
{
	char cut[MW_THREAD_NAME_MAX + 1];

	/* the kernel refuses (ERANGE) a name over 15 bytes rather than cut it */
	strncpy(cut, name, MW_THREAD_NAME_MAX);
	cut[MW_THREAD_NAME_MAX] = '\0';
	(void)pthread_setname_np(pthread_self(), cut);
}

int mw_thread_get_name(char *buf, size_t size)
{
	if (!size)
		return -1;
	return pthread_getname_np(pthread_self(), buf, size) ? -1 : 0;
}
