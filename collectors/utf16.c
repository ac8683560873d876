/*
 * utf16.c - UTF-16LE text of Windows structures to UTF-8 (utf16.h).
 */
#include "utf16.h"

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static size_t put_utf8(char *out, size_t pos, size_t size, uint32_t cp)
{
	unsigned char b[4];
	size_t n, i;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xC0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xF0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[3] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	if (pos + n >= size)
		return pos;	/* no room: never split a character */
	for (i = 0; i < n; i++)
		out[pos + i] = (char)b[i];
	return pos + n;
}

void mw_utf16le_to_utf8(const unsigned char *in, size_t n, char *out, size_t out_size)
{
	size_t i, pos = 0;

	if (!out_size)
		return;
	for (i = 0; i < n; i++) {
		uint32_t cp = rd16(in + 2 * i);

		if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n) {
			uint32_t lo = rd16(in + 2 * (i + 1));
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			} else {
				cp = 0xFFFD;
			}
		} else if (cp >= 0xD800 && cp <= 0xDFFF) {
			cp = 0xFFFD;
		}
		if (cp == 0)
			break;
		pos = put_utf8(out, pos, out_size, cp);
	}
	out[pos] = '\0';
}
