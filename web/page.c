/*
 * page.c - serves the chart page and its assets (mw_page_assets, embedded
 * at build time by scripts/embed-assets.sh).
 *
 * Each asset gets a strong ETag (FNV-1a of its bytes) and
 * "Cache-Control: no-cache": the browser keeps its copy and revalidates,
 * so a new binary's page shows up at once and an unchanged one costs a
 * 304.  No gzip: the assets are small and the page runs on loopback or a
 * LAN.
 */
#include <stdio.h>
#include <string.h>

#include "base/xalloc.h"
#include "page_assets.h"
#include "web_internal.h"

static char (*etags)[24];

void mw_page_init(void)
{
	size_t i, j;
	uint64_t h;

	if (etags)
		return;
	etags = mw_xcalloc(mw_npage_assets ? mw_npage_assets : 1, sizeof(*etags));
	for (i = 0; i < mw_npage_assets; i++) {
		h = 0xcbf29ce484222325ULL;
		for (j = 0; j < mw_page_assets[i].len; j++) {
			h ^= mw_page_assets[i].data[j];
			h *= 0x100000001b3ULL;
		}
		snprintf(etags[i], sizeof(etags[i]), "\"%016llx\"", (unsigned long long)h);
	}
}

static const struct mw_asset *find(const char *url, size_t *index)
{
	size_t i;

	if (!strcmp(url, "/index.html"))
		url = "/";
	for (i = 0; i < mw_npage_assets; i++) {
		if (!strcmp(mw_page_assets[i].path, url)) {
			*index = i;
			return &mw_page_assets[i];
		}
	}
	return NULL;
}

bool mw_page_has(const char *url)
{
	size_t i;

	return find(url, &i) != NULL;
}

struct MHD_Response *mw_h_page(struct mw_req *r)
{
	size_t i;
	const struct mw_asset *a = find(r->url, &i);
	const struct mw_mhd_api *mhd = r->web->mhd;
	const char *inm;
	struct MHD_Response *resp;
	unsigned status = 200;

	if (!a)
		return mw_reply_error(r, MHD_HTTP_NOT_FOUND, "no such path");
	mw_page_init();
	inm = mhd->lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
	if (inm && strstr(inm, etags[i]))
		status = MHD_HTTP_NOT_MODIFIED;
	resp = mw_reply_static(r, status, a->content_type, a->data,
			       status == 200 ? a->len : 0);
	if (!resp)
		return NULL;
	mhd->add_response_header(resp, MHD_HTTP_HEADER_ETAG, etags[i]);
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	mhd->add_response_header(resp, "Content-Security-Policy",
				 "default-src 'self'; style-src 'self' 'unsafe-inline'; "
				 "img-src 'self' data:; connect-src 'self'");
	return resp;
}
