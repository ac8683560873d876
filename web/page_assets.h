/*
 * page_assets.h - the chart page's files, embedded in the binary at build
 * time by scripts/embed-assets.sh (generated: build/gen/page_assets.c).
 */
#ifndef MW_PAGE_ASSETS_H
#define MW_PAGE_ASSETS_H

#include <stddef.h>

struct mw_asset {
	const char *path;		/* URL path, e.g. "/" or "/uplot.min.js" */
	const char *content_type;
	const unsigned char *data;
	size_t len;
};

extern const struct mw_asset mw_page_assets[];
extern const size_t mw_npage_assets;

#endif
