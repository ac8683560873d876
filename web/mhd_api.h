/*
 * mhd_api.h - the libmicrohttpd functions web/ calls, as a table, because
 * one process can hold two copies of the library.  The Linux build links
 * a static libmicrohttpd made without HTTPS (scripts/deps.sh), so a daemon
 * serving plain HTTP maps no GnuTLS (with the libraries it brings, ~2.2 MB
 * of resident pages and 110 KB of heap: issue 26).  HTTPS ([web]
 * tls_cert) runs on Debian's libmicrohttpd.so.12, GnuTLS and all, loaded
 * at start by mhd_api_linux.c.
 *
 * Connections and responses belong to the library that made them: a
 * server (struct mw_web) keeps the table it started on, and every MHD
 * call in web/ goes through that table (the handlers reach it through
 * their request, conn_guard.c through the guard).  So a plain and an
 * HTTPS server can run side by side in one process (the tests do).
 *
 * Owners: mhd_api.c the linked table and filling a table from a loaded
 * library's symbols; mhd_api_linux.c loading libmicrohttpd.so.12;
 * mhd_api_win32.c the Windows (and MSYS2) build, whose one library is the
 * linked one: it has no TLS in the cross build, and tls.c says so.
 */
#ifndef MW_WEB_MHD_API_H
#define MW_WEB_MHD_API_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "base/mwerr.h"

/* Debian's libmicrohttpd with GnuTLS, for HTTPS on Linux, and its package. */
#define MW_MHD_HTTPS_LIB "libmicrohttpd.so.12"
#define MW_MHD_HTTPS_PACKAGE "libmicrohttpd12"

/* Each field has the type of the MHD_ function of its name. */
struct mw_mhd_api {
	const char *name;	/* the library, for messages */
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc, void *apc_cls,
					   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *daemon);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *daemon,
						       enum MHD_DaemonInfoType info_type, ...);
	const union MHD_ConnectionInfo *(*get_connection_info)(
		struct MHD_Connection *connection, enum MHD_ConnectionInfoType info_type, ...);
	const char *(*lookup_connection_value)(struct MHD_Connection *connection,
					       enum MHD_ValueKind kind, const char *key);
	int (*get_connection_values)(struct MHD_Connection *connection, enum MHD_ValueKind kind,
				     MHD_KeyValueIterator iterator, void *iterator_cls);
	int (*get_connection_values_n)(struct MHD_Connection *connection, enum MHD_ValueKind kind,
				       MHD_KeyValueIteratorN iterator, void *iterator_cls);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	struct MHD_Response *(*create_response_from_buffer_with_free_callback)(
		size_t size, void *buffer, MHD_ContentReaderFreeCallback crfc);
	struct MHD_Response *(*create_response_from_callback)(
		uint64_t size, size_t block_size, MHD_ContentReaderCallback crc, void *crc_cls,
		MHD_ContentReaderFreeCallback crfc);
	enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *connection,
					  unsigned int status_code, struct MHD_Response *response);
	void (*destroy_response)(struct MHD_Response *response);
	enum MHD_Result (*is_feature_supported)(enum MHD_FEATURE feature);
};

/* The library linked into memwatchd (on Linux: without HTTPS). */
extern const struct mw_mhd_api mw_mhd_linked;

/* The library that serves HTTPS.  Linux: libmicrohttpd.so.12, loaded on
 * the first call and kept for the rest of the run; NULL with a message
 * naming it and how to install it when it cannot be loaded.  Windows: the
 * linked one (whether it has TLS is the caller's check). */
const struct mw_mhd_api *mw_mhd_https(struct mw_err *err);

/* Linux only (mhd_api_linux.c): the table of the library `soname`,
 * loaded now with dlopen; -1 naming it, the reason and the package to
 * install.  mw_mhd_https passes MW_MHD_HTTPS_LIB, the tests other names. */
int mw_mhd_open(struct mw_mhd_api *api, const char *soname, struct mw_err *err);

/* Fill api from a loaded library: lookup(lib, "MHD_start_daemon") and so
 * on for every field.  -1 naming `name` and the first function it lacks.
 * (mhd_api_linux.c passes dlsym; tests pass stand-ins.) */
typedef void *(*mw_mhd_lookup_fn)(void *lib, const char *symbol);
int mw_mhd_fill(struct mw_mhd_api *api, const char *name, mw_mhd_lookup_fn lookup, void *lib,
		struct mw_err *err);

#endif
