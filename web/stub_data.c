/* TEMPORARY until storage/query.h lands. */
#include <stdlib.h>
#include "daemon/xalloc.h"
#include "readers.h"
#include "web_internal.h"
struct mw_reader_pool { int x; };
struct mw_reader_pool *mw_reader_pool_new(const char *db_path, size_t keep) { MW_UNUSED(db_path); MW_UNUSED(keep); return mw_xcalloc(1, sizeof(struct mw_reader_pool)); }
void mw_reader_pool_free(struct mw_reader_pool *p) { free(p); }
static struct MHD_Response *na(struct mw_req *r) { return mw_reply_error(r, 503, "storage unavailable"); }
struct MHD_Response *mw_h_series(struct mw_req *r) { return na(r); }
struct MHD_Response *mw_h_query(struct mw_req *r) { return na(r); }
struct MHD_Response *mw_h_processes(struct mw_req *r) { return na(r); }
struct MHD_Response *mw_h_export(struct mw_req *r) { return na(r); }
struct MHD_Response *mw_h_metrics(struct mw_req *r) { return na(r); }
