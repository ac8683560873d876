/* curl_lib_linux.c - see curl_lib.h: libcurl by dlopen, on first use. */
#include "forward/curl_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct mw_curl_api mw_curl;

/* The libcurl memwatchd is built against (libcurl4-openssl-dev), then
 * Debian's GnuTLS flavour: both keep curl's ABI 4. */
static const char *const lib_names[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];

/* dlsym's void * to a function pointer: POSIX guarantees it converts. */
#define FIND(field, symbol)                                                              \
	do {                                                                             \
		void *p = dlsym(lib, symbol);                                            \
		if (!p) {                                                                \
			snprintf(load_error, sizeof(load_error), "%s has no %s", name, symbol); \
			return;                                                          \
		}                                                                        \
		*(void **)&api.field = p;                                                \
	} while (0)

static void load(void)
{
	struct mw_curl_api api;
	const char *name = lib_names[0];
	void *lib = NULL;
	size_t i;

	for (i = 0; i < sizeof(lib_names) / sizeof(lib_names[0]) && !lib; i++) {
		name = lib_names[i];
		lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	}
	if (!lib) {
		snprintf(load_error, sizeof(load_error), "cannot load libcurl (%s): %s "
			 "(install libcurl4)", lib_names[0], dlerror());
		return;
	}
	FIND(global_init, "curl_global_init");
	FIND(easy_init, "curl_easy_init");
	FIND(easy_setopt, "curl_easy_setopt");
	FIND(easy_getinfo, "curl_easy_getinfo");
	FIND(easy_perform, "curl_easy_perform");
	FIND(easy_cleanup, "curl_easy_cleanup");
	FIND(easy_strerror, "curl_easy_strerror");
	FIND(slist_append, "curl_slist_append");
	FIND(slist_free_all, "curl_slist_free_all");
	/* kept loaded for the rest of the run: transports come and go */
	mw_curl = api;
}

int mw_curl_load(struct mw_err *err)
{
	pthread_once(&load_once, load);
	if (load_error[0])
		return mw_error(err, "%s", load_error);
	return 0;
}
