/* utf16.c - see utf16.h. */
#include "utf16.h"

#include <string.h>

#include "utf8.h"

#define REPLACEMENT 0xfffd

size_t mw_utf16_feed(struct mw_utf16_decoder *d, uint16_t unit, char *out)
{
	size_t n = 0;

	if (unit >= 0xdc00 && unit <= 0xdfff) {	/* low half */
		uint32_t cp = d->high ? 0x10000 + ((uint32_t)(d->high - 0xd800) << 10) +
						(uint32_t)(unit - 0xdc00)
				      : REPLACEMENT;

		d->high = 0;
		return mw_utf8_put(out, cp);
	}
	n = mw_utf16_finish(d, out);	/* a high half not followed by its low one */
	if (unit >= 0xd800 && unit <= 0xdbff) {
		d->high = unit;
		return n;
	}
	return n + mw_utf8_put(out + n, unit);
}

size_t mw_utf16_finish(struct mw_utf16_decoder *d, char *out)
{
	if (!d->high)
		return 0;
	d->high = 0;
	return mw_utf8_put(out, REPLACEMENT);
}

size_t mw_utf16le_decode(const unsigned char *in, size_t n, char *out, size_t out_size)
{
	struct mw_utf16_decoder d = { 0 };
	char piece[MW_UTF16_UNIT_MAX];
	size_t i, pos = 0, k;

	if (!out_size)
		return 0;
	for (i = 0; i <= n; i++) {
		uint16_t unit = i < n ? (uint16_t)(in[2 * i] | in[2 * i + 1] << 8) : 0;

		k = unit ? mw_utf16_feed(&d, unit, piece) : mw_utf16_finish(&d, piece);
		if (pos + k >= out_size)
			break;	/* no room: never split a character */
		memcpy(out + pos, piece, k);
		pos += k;
		if (!unit)
			break;
	}
	out[pos] = '\0';
	return pos;
}
