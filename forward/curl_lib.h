/*
 * curl_lib.h - libcurl, loaded when the first transport is made
 * (curl_lib_linux.c), not at start-up: a daemon that forwards nothing and
 * never runs `check --url` does not map libcurl and the TLS, Kerberos,
 * LDAP and SSH libraries it pulls in (about 3 MB of resident memory that
 * every memwatchd paid; issue 26).
 *
 * Used by rw_transport_linux.c only, which calls curl through mw_curl
 * after mw_curl_load succeeded.  Linux only.
 */
#ifndef MW_FORWARD_CURL_LIB_H
#define MW_FORWARD_CURL_LIB_H

#include <curl/curl.h>

#include "base/mwerr.h"

struct mw_curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *curl);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
};

/* Filled by a successful mw_curl_load. */
extern struct mw_curl_api mw_curl;

/* Load libcurl and find its functions, once (any thread; later calls
 * give the first call's outcome): 0, or -1 with err saying which library
 * or function was missing. */
int mw_curl_load(struct mw_err *err);

#endif
