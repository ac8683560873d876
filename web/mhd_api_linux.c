/* mhd_api_linux.c - see mhd_api.h: Debian's libmicrohttpd.so.12 for HTTPS,
 * loaded with dlopen when a server first asks for it.
 *
 * RTLD_LOCAL: its MHD_ symbols stay out of the global scope, where they
 * would meet the linked library's; memwatchd exports none of those, so
 * the loaded library's calls to itself bind to itself.  (Not
 * RTLD_DEEPBIND, which AddressSanitizer's interceptors do not survive.)
 * It is never unloaded: GnuTLS keeps global state, and a server may
 * start again. */
#include "mhd_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct mw_mhd_api https_api;
static bool https_loaded;

static void *find(void *lib, const char *symbol)
{
	return dlsym(lib, symbol);
}

int mw_mhd_open(struct mw_mhd_api *api, const char *soname, struct mw_err *err)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return mw_error(err, "HTTPS needs %s (libmicrohttpd with GnuTLS), which cannot "
				"be loaded: %s; install it (apt install %s)", soname, dlerror(),
				MW_MHD_HTTPS_PACKAGE);
	if (mw_mhd_fill(api, soname, find, lib, err)) {
		dlclose(lib);
		return mw_error_prefix(err, "HTTPS needs libmicrohttpd 0.9.x with GnuTLS "
				       "(apt install %s)", MW_MHD_HTTPS_PACKAGE);
	}
	return 0;
}

const struct mw_mhd_api *mw_mhd_https(struct mw_err *err)
{
	const struct mw_mhd_api *api = NULL;

	pthread_mutex_lock(&lock);
	if (!https_loaded && !mw_mhd_open(&https_api, MW_MHD_HTTPS_LIB, err))
		https_loaded = true;
	if (https_loaded)
		api = &https_api;
	pthread_mutex_unlock(&lock);
	return api;
}
