/* tls.c - see tls.h. */
#include "tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutf8.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "tls_key_mode.h"

/* A certificate chain or a key is a few KB; anything far larger is not one. */
#define PEM_MAX_BYTES (1u << 20)

/* The whole file as a NUL-terminated string, or NULL with the reason. */
static char *read_pem(const char *setting, const char *path, struct mw_err *err)
{
	FILE *f = mw_fopen(path, "rb");
	char *buf;
	size_t n;
	int e;

	if (!f) {
		mw_error(err, "[web] %s '%s' cannot be opened: %s", setting, path,
			 strerror(errno));
		return NULL;
	}
	buf = mw_xmalloc(PEM_MAX_BYTES + 1);
	n = fread(buf, 1, PEM_MAX_BYTES + 1, f);
	e = ferror(f) ? errno : 0;
	fclose(f);
	if (e || n > PEM_MAX_BYTES || n == 0) {
		if (e)	/* a folder opens on Linux and fails here */
			mw_error(err, "[web] %s '%s' cannot be read: %s", setting, path,
				 strerror(e));
		else
			mw_error(err, "[web] %s '%s' is %s, not a PEM file", setting, path,
				 n ? "larger than 1 MB" : "empty");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		/* DER (binary) where PEM was wanted; libmicrohttpd takes text */
		mw_error(err, "[web] %s '%s' is binary (DER?), not PEM; convert it with "
			 "openssl %s -inform der -in FILE -out FILE.pem", setting, path,
			 strcmp(setting, "tls_cert") ? "pkey" : "x509");
		free(buf);
		return NULL;
	}
	return buf;
}

static bool has_key_block(const char *pem)
{
	const char *p = pem;

	/* "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY" ... */
	while ((p = strstr(p, "-----BEGIN ")) != NULL) {
		const char *end = strstr(p + 11, "-----");
		const char *key = strstr(p + 11, "PRIVATE KEY-----");

		if (end && key && key + 11 == end)
			return true;
		p += 11;
	}
	return false;
}

/* What is wrong with the certificate file's text, or NULL. */
static const char *cert_problem(const char *pem)
{
	if (strstr(pem, "-----BEGIN CERTIFICATE-----"))
		return NULL;
	if (has_key_block(pem))
		return "holds a private key, not a certificate (are tls_cert and tls_key swapped?)";
	return "is not a PEM certificate (no '-----BEGIN CERTIFICATE-----' line)";
}

/* What is wrong with the key file's text, or NULL. */
static const char *key_problem(const char *pem)
{
	if (strstr(pem, "-----BEGIN ENCRYPTED PRIVATE KEY-----") ||
	    strstr(pem, "Proc-Type: 4,ENCRYPTED"))
		return "is encrypted with a passphrase, which memwatch cannot ask for at start; "
		       "write it unencrypted (openssl pkey -in KEY -out KEY.plain) and let "
		       "only memwatch's user read it";
	if (has_key_block(pem))
		return NULL;
	if (strstr(pem, "-----BEGIN CERTIFICATE-----"))
		return "holds a certificate, not a private key (are tls_cert and tls_key swapped?)";
	return "is not a PEM private key (no '-----BEGIN ... PRIVATE KEY-----' line)";
}

int mw_web_tls_load(struct mw_web_tls *tls, const struct mw_config *cfg, struct mw_err *err)
{
	const char *cert = cfg->web_tls_cert ? cfg->web_tls_cert : "";
	const char *key = cfg->web_tls_key ? cfg->web_tls_key : "";
	const char *why;
	unsigned mode;

	memset(tls, 0, sizeof(*tls));
	if (!cert[0] && !key[0])
		return 0;
	if (!cert[0] || !key[0])
		return mw_error(err, "[web] %s is set without [web] %s: HTTPS needs both (a PEM "
				"certificate and its private key)",
				cert[0] ? "tls_cert" : "tls_key", cert[0] ? "tls_key" : "tls_cert");
	/* Only now: on Linux this loads GnuTLS and what it brings */
	tls->mhd = mw_mhd_https(err);
	if (!tls->mhd)
		return mw_error_prefix(err, "[web] tls_cert is set");
	if (tls->mhd->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
		return mw_error(err, "[web] tls_cert is set but this build of memwatchd cannot "
				"serve HTTPS: its libmicrohttpd has no TLS (the Windows build is "
				"made without GnuTLS).  Leave tls_cert and tls_key empty, keep "
				"[web] listen on 127.0.0.1 and put an HTTPS reverse proxy in front "
				"(IIS with URL Rewrite and ARR, nginx, Caddy or stunnel)");
	tls->cert = read_pem("tls_cert", cert, err);
	if (!tls->cert)
		return -1;
	if ((why = cert_problem(tls->cert)) != NULL) {
		mw_web_tls_release(tls);
		return mw_error(err, "[web] tls_cert '%s' %s", cert, why);
	}
	tls->key = read_pem("tls_key", key, err);
	if (!tls->key) {
		mw_web_tls_release(tls);
		return -1;
	}
	if ((why = key_problem(tls->key)) != NULL) {
		mw_web_tls_release(tls);
		return mw_error(err, "[web] tls_key '%s' %s", key, why);
	}
	if (mw_web_key_readable_by_others(key, &mode))
		mw_log_warn("web: [web] tls_key '%s' can be read by other users (mode %04o): "
			    "anyone who reads it can pose as this server; chmod 600 it", key, mode);
	return 0;
}

int mw_web_tls_start_failed(const struct mw_config *cfg, const char *mhd_said,
			    struct mw_err *err)
{
	return mw_error(err, "HTTPS could not start with [web] tls_cert '%s' and tls_key '%s': "
			"%s", cfg->web_tls_cert, cfg->web_tls_key,
			mhd_said[0] ? mhd_said
			: "libmicrohttpd refused them (does the key belong to the certificate?)");
}

static void wipe_free(char *s)
{
	volatile char *p = s;

	if (!s)
		return;
	while (*p)
		*p++ = '\0';
	free(s);
}

void mw_web_tls_release(struct mw_web_tls *tls)
{
	wipe_free(tls->cert);
	wipe_free(tls->key);
	tls->cert = tls->key = NULL;
	tls->mhd = NULL;
}
