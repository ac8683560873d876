/*
 * tls.h - [web] tls_cert / tls_key: the library that serves HTTPS
 * (mhd_api.h: on Linux Debian's libmicrohttpd with GnuTLS, loaded only
 * then), and the server's certificate and key read and checked at start,
 * before libmicrohttpd sees them, so a wrong file stops start-up with a
 * message naming the file and what is wrong with it (missing, unreadable,
 * not PEM, a certificate where the key should be, an encrypted key), and
 * a missing library with its name and package.  Whether the key matches
 * the certificate only GnuTLS can tell: libmicrohttpd's start fails then,
 * and server.c reports GnuTLS's words through mw_web_tls_start_failed().
 *
 * Used by server.c only.  Read once at start: a new certificate needs a
 * restart (there is no reload on SIGHUP).
 */
#ifndef MW_WEB_TLS_H
#define MW_WEB_TLS_H

#include <stdbool.h>

#include "base/mwerr.h"
#include "core/config.h"
#include "mhd_api.h"

/* The PEM texts libmicrohttpd is given (they must outlive the daemon),
 * and the library to run the server on. */
struct mw_web_tls {
	char *cert;	/* NULL: TLS is off */
	char *key;
	const struct mw_mhd_api *mhd;	/* set with cert */
};

/* Both settings empty: 0 with TLS off.  Otherwise both must be set, the
 * library for HTTPS must load (Linux: libmicrohttpd.so.12) and have TLS
 * (the Windows build's has not) and both files must hold what they are
 * for; -1 with a message naming the setting, the file or library and the
 * reason. */
int mw_web_tls_load(struct mw_web_tls *tls, const struct mw_config *cfg, struct mw_err *err);

/* The message for libmicrohttpd refusing the pair at start: mhd_said is
 * its own log line (GnuTLS's reason), "" when it said nothing. */
int mw_web_tls_start_failed(const struct mw_config *cfg, const char *mhd_said,
			    struct mw_err *err);

/* Wipe and free the texts (the key is a secret). */
void mw_web_tls_release(struct mw_web_tls *tls);

#endif
