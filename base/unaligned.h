/*
 * unaligned.h - reading a 16, 32 or 64-bit number at any byte address, in
 * the host's order (memcpy, which compilers turn into one load): the one
 * copy for the NT structures the collectors decode (perflib blocks, the
 * remote heap summary; Windows is little-endian, as is every host we
 * build for) and for snappy's match finder in forward/.  Pure.
 */
#ifndef MW_BASE_UNALIGNED_H
#define MW_BASE_UNALIGNED_H

#include <stdint.h>
#include <string.h>

static inline uint16_t mw_load16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t mw_load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t mw_load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif
